//! The name a node goes by, which a fleet report is filed under: the
//! scheduler's name for it, else its host name; and `{host}` in an output
//! path (`-o 'reports/{host}.json'`), where every node of a launch writes its
//! own report into one shared directory.

/// Variables that name the node, in the order they are believed: the site's
/// own choice (a Kubernetes pod sets it from `spec.nodeName`), then Slurm's.
pub const NODE_NAME_VARIABLES: [&str; 2] = ["ENVDOCTOR_NODE_NAME", "SLURMD_NODENAME"];

/// This node's name, by the same rule: for `-o 'DIR/{host}.json'`, where
/// every node of a launch writes its own report into one shared directory.
pub fn this_node_name() -> Option<String> {
    let set = |name: String| Some(name.trim().to_string()).filter(|name| !name.is_empty());
    NODE_NAME_VARIABLES
        .iter()
        .find_map(|name| std::env::var(name).ok().and_then(set))
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok().and_then(set))
}

/// The placeholder in an output path that becomes this node's name.
pub const HOST_PLACEHOLDER: &str = "{host}";

/// `path` with `{host}` replaced by the name `name` gives (asked only when the
/// path holds `{host}`); a name that would leave the directory (`/`, `..`) is
/// refused rather than written somewhere else.
pub fn expand_host(
    path: &std::path::Path,
    name: impl FnOnce() -> Option<String>,
) -> Result<std::path::PathBuf, String> {
    let text = path.to_string_lossy();
    if !text.contains(HOST_PLACEHOLDER) {
        return Ok(path.to_path_buf());
    }
    let name =
        name().ok_or("`{host}` in the output path, but this node's name is unknown (set ENVDOCTOR_NODE_NAME)")?;
    if name.contains('/') || name == ".." || name == "." {
        return Err(format!("`{{host}}` would become `{name}`, which is not a file name"));
    }
    Ok(std::path::PathBuf::from(text.replace(HOST_PLACEHOLDER, &name)))
}

#[cfg(test)]
mod tests {
    use super::expand_host;

    #[test]
    fn host_in_an_output_path_becomes_the_node_name() {
        let path = std::path::Path::new("reports/{host}.json");
        assert_eq!(
            expand_host(path, || Some("n3".to_string())).unwrap(),
            std::path::Path::new("reports/n3.json")
        );
        assert_eq!(
            expand_host(std::path::Path::new("a.json"), || None).unwrap(),
            std::path::Path::new("a.json")
        );
        assert!(expand_host(path, || Some("../x".to_string())).is_err());
        assert!(expand_host(path, || None).is_err());
    }
}
