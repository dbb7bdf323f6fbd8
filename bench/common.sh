# Sourced by the bench scripts: the repository root, and the envdoctor to time
# (the one given with --envdoctor, else a release build of this checkout).
repo_root="$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"

# Sets $envdoctor to the release binary, building it, unless it is already set.
release_envdoctor() {
    if [[ -z "$envdoctor" ]]; then
        envdoctor="$repo_root/target/release/envdoctor"
        (cd "$repo_root" && cargo build --release --quiet)
    fi
}
