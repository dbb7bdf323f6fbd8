#!/usr/bin/env bash
# Build envdoctor from this repository and install it into $PREFIX/bin, or
# (--wheel) build the wheel that installs it on nodes without Rust.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: ./install.sh [--help]
       ./install.sh --wheel DIR [--target x86_64|aarch64]

Builds the envdoctor release binary with cargo (cargo build --release --locked)
from the repository this script lives in, whatever the current directory, and
installs it as $PREFIX/bin/envdoctor.

With --wheel DIR, installs nothing: builds the manylinux_2_17 wheel (runs on
glibc 2.17 and later; the `dist` profile) into DIR and prints its path, for
`pip install`, `pipx install` or `uvx --from` on nodes without Rust. maturin and
ziglang (zig links against the old glibc) are installed from the package index
into a private virtual environment, target/wheel-tools. --target picks the
wheel's architecture (default x86_64); aarch64 needs its Rust target:
rustup target add aarch64-unknown-linux-gnu.

Environment:
  PREFIX   where to install; the binary goes to $PREFIX/bin (default: $HOME/.local)

Running it again rebuilds and replaces the installed binary (or the wheel).
EOF
}

wheel_dir=""
wheel_arch=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help)
            usage
            exit 0
            ;;
        --wheel | --target)
            if [[ $# -lt 2 || -z "$2" ]]; then
                echo "install.sh: $1 needs a value" >&2
                usage >&2
                exit 2
            fi
            if [[ "$1" == --wheel ]]; then wheel_dir="$2"; else wheel_arch="$2"; fi
            shift 2
            ;;
        *)
            echo "install.sh: unknown argument: $1" >&2
            usage >&2
            exit 2
            ;;
    esac
done

if [[ -n "$wheel_arch" && -z "$wheel_dir" ]]; then
    echo "install.sh: --target goes with --wheel DIR; plain ./install.sh builds for this machine." >&2
    exit 2
fi

if ! command -v cargo >/dev/null 2>&1; then
    cat >&2 <<'EOF'
install.sh: cargo was not found on PATH, and it is needed to build envdoctor. Install a Rust toolchain with rustup (https://rustup.rs: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh), then open a new shell or run `. "$HOME/.cargo/env"` so that cargo is on PATH, and run ./install.sh again.
EOF
    exit 1
fi

build_wheel() {
    case "${wheel_arch:-x86_64}" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *)
            echo "install.sh: --target $wheel_arch: wheels are built for x86_64 or aarch64" >&2
            exit 2
            ;;
    esac
    local triple="$arch-unknown-linux-gnu"
    # Without the target's standard library cargo fails deep in the build
    # ("can't find crate for `core`"); say what to do instead.
    if command -v rustup >/dev/null 2>&1 &&
        ! rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
        echo "install.sh: the Rust target $triple is not installed; add it with \`rustup target add $triple\` and run ./install.sh again." >&2
        exit 1
    fi

    local tools="$PWD/target/wheel-tools"
    if [[ ! -x "$tools/bin/python" ]]; then
        if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
            echo "install.sh: --wheel needs python3 with venv (Debian/Ubuntu: python3-venv) to install maturin and ziglang." >&2
            exit 1
        fi
        python3 -m venv "$tools"
    fi
    echo "installing maturin and ziglang into $tools (from the package index)..." >&2
    # maturin 1.16 and ziglang 0.17 are what .ci/wheel-proof.sh proved the
    # wheel with; the floors keep an older cached pair from tagging it differently.
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check \
        'maturin>=1.16,<2' 'ziglang>=0.17'

    mkdir -p "$wheel_dir"
    local version
    version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
    # A wheel of the same version left in DIR would be taken for this build's.
    rm -f "$wheel_dir/envdoctor-$version-"*"_$arch.whl"
    echo "building the $arch wheel (maturin --zig, manylinux_2_17, profile dist: several minutes)..." >&2
    local start=$SECONDS
    # maturin finds zig as `python -m ziglang` of the python first on PATH: the venv's.
    PATH="$tools/bin:$PATH" "$tools/bin/maturin" build --locked --profile dist --zig \
        --compatibility manylinux2014 --target "$triple" --out "$wheel_dir"
    local wheel
    wheel="$(find "$wheel_dir" -maxdepth 1 -name "envdoctor-$version-*manylinux*_$arch.whl" | head -n 1)"
    if [[ -z "$wheel" ]]; then
        echo "install.sh: maturin finished, but no envdoctor-$version manylinux $arch wheel is in $wheel_dir." >&2
        exit 1
    fi
    echo "built the wheel in $((SECONDS - start)) s:" >&2
    echo "$wheel"
}

if [[ -n "$wheel_dir" ]]; then
    # DIR is relative to where the user ran us, not to the repository.
    [[ "$wheel_dir" == /* ]] || wheel_dir="$PWD/$wheel_dir"
    cd "$(dirname -- "${BASH_SOURCE[0]}")"
    build_wheel
    exit 0
fi

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
