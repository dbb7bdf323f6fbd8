//! Compiles compat-matrix/ into the binary: a node without network must give the
//! same answers. Writes the lists of rule and symptom files for `include_str!`, so adding a
//! rule file is all it takes to ship it.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut source = String::new();
    for (constant, dir) in [("RULE_FILES", "rules"), ("SYMPTOM_FILES", "symptoms")] {
        let dir = root.join("compat-matrix").join(dir);
        // A new or removed file changes the directory; edits are tracked by include_str!.
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|entries| entries.filter_map(Result::ok).map(|entry| entry.path()).collect())
            .unwrap_or_default();
        files.retain(|path| path.extension().is_some_and(|extension| extension == "toml"));
        files.sort();
        writeln!(source, "pub const {constant}: &[(&str, &str)] = &[").unwrap();
        for path in files {
            let relative = path.strip_prefix(root).expect("under the manifest dir");
            writeln!(
                source,
                "    ({:?}, include_str!({:?})),",
                relative.display().to_string(),
                path.display().to_string()
            )
            .unwrap();
        }
        source.push_str("];\n");
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("compat_matrix.rs"), source).expect("OUT_DIR is writable");
}
