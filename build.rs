//! Compiles compat-matrix/ into the binary: a node without network must give the
//! same answers. Writes the lists of rule and symptom files for `include_str!`, so adding a
//! rule file is all it takes to ship it.

use std::fmt::Write;
use std::path::Path;

fn main() {
    // Read at run time, not with `env!`: a build script compiled for one checkout can be
    // reused by cargo for another that shares its target directory, and `env!` would keep
    // reading the first checkout's matrix (or none, silently).
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest_dir);
    let mut source = String::new();
    for (constant, dir) in [("RULE_FILES", "rules"), ("SYMPTOM_FILES", "symptoms")] {
        let dir = root.join("compat-matrix").join(dir);
        // A new or removed file changes the directory; edits are tracked by include_str!.
        println!("cargo:rerun-if-changed={}", dir.display());
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|error| panic!("cannot read {}: {error}", dir.display()));
        let mut files: Vec<_> = entries
            .map(|entry| entry.map(|entry| entry.path()))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|error| panic!("cannot list {}: {error}", dir.display()));
        files.retain(|path| path.extension().is_some_and(|extension| extension == "toml"));
        files.sort();
        // An empty matrix builds a binary that knows nothing and says so nowhere.
        assert!(!files.is_empty(), "no .toml files in {}", dir.display());
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
