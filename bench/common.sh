# Sourced by the bench scripts: the repository root, and the envdoctor to time
# (the one given with --envdoctor, else a release build of this checkout).
repo_root="$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"

# Sets $envdoctor to the release binary, building it, unless it is already set.
release_envdoctor() {
    if [[ -z "$envdoctor" ]]; then
        envdoctor="${CARGO_TARGET_DIR:-$repo_root/target}/release/envdoctor"
        (cd "$repo_root" && cargo build --release --quiet)
    fi
}

# Sets $work to a scratch folder removed when the script exits, and gives
# envdoctor its own cache there, so no run reuses an answer from outside.
scratch_dir() {
    work="$(mktemp -d "${TMPDIR:-/tmp}/envdoctor-bench-$1.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    export XDG_CACHE_HOME="$work/cache"
}
