#!/usr/bin/env bash
# Build envdoctor from this repository and install it into $PREFIX/bin.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: ./install.sh [--help]

Builds the envdoctor release binary with cargo (cargo build --release --locked)
from the repository this script lives in, whatever the current directory, and
installs it as $PREFIX/bin/envdoctor.

Environment:
  PREFIX   where to install; the binary goes to $PREFIX/bin (default: $HOME/.local)

Running it again rebuilds and replaces the installed binary.
EOF
}

for argument in "$@"; do
    case "$argument" in
        -h | --help)
            usage
            exit 0
            ;;
        *)
            echo "install.sh: unknown argument: $argument" >&2
            usage >&2
            exit 2
            ;;
    esac
done

if [[ -z "${PREFIX:-}" ]]; then
    if [[ -z "${HOME:-}" ]]; then
        echo "install.sh: neither PREFIX nor HOME is set; set PREFIX to choose where to install." >&2
        exit 1
    fi
    PREFIX="$HOME/.local"
fi
# A relative PREFIX means relative to where the user ran us, not to the repository.
if [[ "$PREFIX" != /* ]]; then
    PREFIX="$PWD/$PREFIX"
fi
PREFIX="${PREFIX%/}"
bin_dir="$PREFIX/bin"
target="$bin_dir/envdoctor"

if ! command -v cargo >/dev/null 2>&1; then
    cat >&2 <<'EOF'
install.sh: cargo was not found on PATH, and it is needed to build envdoctor. Install a Rust toolchain with rustup (https://rustup.rs: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh), then open a new shell or run `. "$HOME/.cargo/env"` so that cargo is on PATH, and run ./install.sh again.
EOF
    exit 1
fi

cd "$(dirname -- "${BASH_SOURCE[0]}")"

echo "building envdoctor (cargo build --release --locked; a few minutes the first time)..." >&2
# Not --quiet: a first build takes minutes, and cargo's progress shows it is working.
cargo build --release --locked

# Where cargo put the binary: honours CARGO_TARGET_DIR and .cargo/config.toml.
target_dir="$(cargo metadata --format-version 1 --no-deps --locked 2>/dev/null |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')" || true
target_dir="${target_dir:-${CARGO_TARGET_DIR:-target}}"
built="$target_dir/release/envdoctor"
if [[ ! -x "$built" ]]; then
    echo "install.sh: the build finished but $built is not there." >&2
    exit 1
fi

mkdir -p "$bin_dir"
# Copy to a temporary name in the same directory, then rename over the old binary:
# a running envdoctor keeps its (unlinked) file instead of seeing it truncated.
staging="$(mktemp "$bin_dir/.envdoctor.XXXXXX")"
trap 'rm -f "$staging"' EXIT
install -m 0755 "$built" "$staging"
mv -f "$staging" "$target"
trap - EXIT

version="$("$target" --version)"
echo "installed $version to $target"

on_path=false
IFS=: read -r -a path_entries <<<"${PATH:-}"
for entry in "${path_entries[@]}"; do
    [[ -n "$entry" ]] || continue
    if [[ "${entry%/}" == "$bin_dir" ]] ||
        { [[ -d "$entry" ]] && [[ "$(cd -P -- "$entry" && pwd)" == "$(cd -P -- "$bin_dir" && pwd)" ]]; }; then
        on_path=true
        break
    fi
done

if [[ "$on_path" == false ]]; then
    cat >&2 <<EOF
note: $bin_dir is not on your PATH, so typing \`envdoctor\` will not find it yet.
Add this line to your shell's start-up file (e.g. ~/.bashrc or ~/.zshrc) and open a new shell:
  export PATH="$bin_dir:\$PATH"
Until then, run it by its full path:
  $target probe
EOF
else
    found="$(command -v envdoctor 2>/dev/null || true)"
    if [[ -n "$found" && "$found" != "$target" ]] &&
        [[ "$(cd -P -- "$(dirname -- "$found")" && pwd)/envdoctor" != "$(cd -P -- "$bin_dir" && pwd)/envdoctor" ]]; then
        echo "note: \`envdoctor\` on your PATH is $found, which comes before $target; run $target or remove the other one." >&2
    fi
fi
