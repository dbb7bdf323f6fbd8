#!/usr/bin/env bash
# Builds the x86_64 wheel with ./install.sh --wheel and proves that it is what a
# GPU node without Rust can use (issue 30): its tag is manylinux_2_17, its binary
# needs no glibc symbol newer than 2.17, and installed with pip it runs from /
# with no cargo on PATH, here and in a Debian 11 chroot (glibc 2.31, Python 3.9,
# no Rust, no C compiler).
#
# Called by .ci/run. The chroot needs root, debootstrap and Debian's mirror: where
# "debian11-chroot" is in ENVDOCTOR_TEST_REQUIRE, not building it fails; where it
# is not, the script says plainly that the chroot step did not run, and records
# it in $ENVDOCTOR_TEST_SKIPS for .ci/run's list of what did not run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

step() { printf '\n==> wheel proof: %s\n' "$*"; }
fail() {
    echo "wheel proof FAILED: $*" >&2
    exit 1
}
# Runs a command that must print exactly "envdoctor VERSION".
expect_version() {
    local label="$1" out
    shift
    out="$("$@")"
    echo "$label: $out"
    [[ "$out" == "envdoctor $version" ]] || fail "$label: expected \"envdoctor $version\""
}
required() { [[ ",${ENVDOCTOR_TEST_REQUIRE:-}," == *",$1,"* ]]; }
record_skip() {
    echo "NOT RUN: $1: $2" >&2
    if [[ -n "${ENVDOCTOR_TEST_SKIPS:-}" ]]; then
        printf '%s\t%s\t%s\n' "wheel-proof $1" "$1" "$2" >>"$ENVDOCTOR_TEST_SKIPS"
    fi
}

work="$repo/target/wheel-proof"
rm -rf "$work/dist" "$work/venv" "$work/smoke-venv" "$work/nvml"
mkdir -p "$work"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

step "build (./install.sh --wheel)"
start=$SECONDS
wheel="$(./install.sh --wheel "$work/dist" | tail -n 1)"
echo "wheel build time: $((SECONDS - start)) s"
echo "wheel: $wheel ($(stat -c %s "$wheel") bytes, $(du -h "$wheel" | cut -f1))"

step "tag is manylinux_2_17 (manylinux2014)"
# The file name and the Tag lines of the wheel's WHEEL file must agree.
case "$(basename "$wheel")" in
    "envdoctor-$version-py3-none-"*manylinux_2_17_x86_64*) ;;
    *) fail "$(basename "$wheel") is not a py3-none manylinux_2_17_x86_64 wheel" ;;
esac
tags="$(python3 - "$wheel" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/WHEEL"))
    print("\n".join(l for l in wheel.read(name).decode().splitlines() if l.startswith("Tag:")))
EOF
)"
echo "$tags"
grep -q '^Tag: py3-none-manylinux_2_17_x86_64$' <<<"$tags" || fail "WHEEL has no Tag: py3-none-manylinux_2_17_x86_64"

step "glibc floor of the binary (objdump -T)"
command -v objdump >/dev/null || fail "objdump (binutils) is needed to read the binary's glibc symbols"
python3 - "$wheel" "$work/envdoctor.bin" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith(".data/scripts/envdoctor"))
    open(sys.argv[2], "wb").write(wheel.read(name))
EOF
glibc_versions="$(objdump -T "$work/envdoctor.bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV)"
floor="$(tail -n 1 <<<"$glibc_versions")"
echo "GLIBC_ symbol versions: $(tr '\n' ' ' <<<"$glibc_versions")"
echo "glibc floor: $floor"
[[ "$(printf '%s\n2.17\n' "$floor" | sort -V | tail -n 1)" == 2.17 ]] ||
    fail "the binary needs GLIBC_$floor, newer than 2.17"

step "pip install into a fresh venv, run from / with no cargo on PATH"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
# A PATH of the venv and the system only: ~/.cargo/bin and the like are gone.
clean_path="$work/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
run() { (cd / && env -u CARGO_HOME -u RUSTUP_HOME PATH="$clean_path" "$@"); }
if run sh -c 'command -v cargo' >/dev/null; then
    fail "cargo is on the clean PATH ($(run sh -c 'command -v cargo')); the proof needs a PATH without it"
fi
[[ "$(run sh -c 'command -v envdoctor')" == "$work/venv/bin/envdoctor" ]] || fail "envdoctor on PATH is not the venv's"
expect_version "envdoctor --version" run envdoctor --version
expect_version "python -m envdoctor --version" run python -m envdoctor --version
run envdoctor matrix lint "$repo/compat-matrix"
# Exit 1 would only mean findings on this machine; 0 with --fail-on never means it did its job.
run envdoctor check --no-smoke --fail-on never --python "$work/venv/bin/python"

step "the embedded smoke package, written out and run (the tests' stand-in torch: no CUDA device)"
# No real torch here (PyPI's is 514 MiB plus the CUDA libraries; .ci/run): the
# stand-in of tests/fixtures/smoke/no_cuda_device imports and sees no GPU, so the
# smoke script envdoctor carries runs its import and CUDA steps for real.
python3 -m venv "$work/smoke-venv"
smoke_site="$("$work/smoke-venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
cp -r tests/fixtures/smoke/no_cuda_device/torch "$smoke_site/torch"
run envdoctor smoke --python "$work/smoke-venv/bin/python" --format json --fail-on never -o "$work/smoke.json"
python3 - "$work/smoke.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
steps = {step["name"]: step for step in report["steps"]}
assert steps["torch.import"]["status"] == "pass", steps
print("smoke ran:", ", ".join(f"{name} {step['status']}" for name, step in steps.items()))
EOF

step "NVML is still loaded at run time: a stand-in libnvidia-ml"
if command -v cc >/dev/null; then
    mkdir -p "$work/nvml"
    # SICKNESS=2: nvmlInit_v2 answers NVML_ERROR_DRIVER_NOT_LOADED; a binary that
    # could not dlopen would say "cannot load the NVML library" instead.
    cc -shared -fPIC -O0 -DSICKNESS=2 -o "$work/nvml/libnvidia-ml.so.1" tests/fixtures/nvml/sick_nvml.c
    ENVDOCTOR_NVML_LIBRARY="$work/nvml/libnvidia-ml.so.1" run envdoctor probe --format json \
        --python "$work/venv/bin/python" -o "$work/probe-nvml.json"
    python3 - "$work/probe-nvml.json" <<'EOF'
import json, sys
error = json.load(open(sys.argv[1]))["nvidia_error"]
assert error["kind"] in ("module_not_loaded", "broken_install"), error
print("stand-in NVML loaded and answered:", error["kind"])
EOF
elif required c++; then
    fail "no C compiler to build the stand-in libnvidia-ml"
else
    record_skip nvml-stand-in "no C compiler (cc) to build the stand-in libnvidia-ml"
fi

step "the upgrade hint of a pip-installed binary names pip"
echo '{"schema": "envdoctor.snapshot/2"}' >"$work/newer.json"
hint="$(run envdoctor probe --snapshot "$work/newer.json" 2>&1 >/dev/null || true)"
echo "$hint"
grep -qF 'pip install -U envdoctor-*.whl' <<<"$hint" || fail "the hint does not name pip"

step "Debian 11 (bullseye) chroot: glibc 2.31, Python 3.9, no Rust, no C compiler"
chroot_dir="$work/bullseye"
why_not=""
if [[ "$(id -u)" != 0 ]]; then
    why_not="not root: debootstrap and chroot need root"
elif ! command -v debootstrap >/dev/null; then
    why_not="debootstrap is not installed"
fi
if [[ -z "$why_not" ]] && grep -qF " $chroot_dir/" /proc/mounts; then
    # A run killed before its cleanup left /proc, /sys or /dev bound in there:
    # deleting or reusing the chroot would reach into the host's.
    fail "something is still mounted under $chroot_dir (see /proc/mounts); unmount it (umount -R) first"
fi
if [[ -z "$why_not" && ! -f "$chroot_dir/.complete" ]]; then
    rm -rf --one-file-system "$chroot_dir"
    start=$SECONDS
    if debootstrap --variant=minbase --include=python3,python3-venv,python3-pip \
        bullseye "$chroot_dir" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1; then
        touch "$chroot_dir/.complete"
        echo "debootstrap bullseye: $((SECONDS - start)) s"
    else
        tail -n 5 "$work/debootstrap.log" >&2
        why_not="debootstrap of bullseye failed (no network to the Debian mirror?); log: $work/debootstrap.log"
    fi
fi
if [[ -n "$why_not" ]]; then
    if required debian11-chroot; then
        fail "the Debian 11 chroot was required and cannot be built: $why_not"
    fi
    record_skip debian11-chroot "$why_not"
    exit 0
fi

mounted=()
cleanup() {
    local index
    for ((index = ${#mounted[@]} - 1; index >= 0; index--)); do umount -R "${mounted[index]}" || true; done
}
trap cleanup EXIT
# envdoctor reads the kernel, the CPUs and the limits from /proc and /sys.
for fs in proc sys; do
    mountpoint -q "$chroot_dir/$fs" || { mount --rbind "/$fs" "$chroot_dir/$fs" && mount --make-rslave "$chroot_dir/$fs" && mounted+=("$chroot_dir/$fs"); }
done
mountpoint -q "$chroot_dir/dev" || { mount --bind /dev "$chroot_dir/dev" && mounted+=("$chroot_dir/dev"); }
cp "$wheel" "$chroot_dir/tmp/"
in_chroot() { chroot "$chroot_dir" env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin "$@"; }
in_chroot sh -c 'ldd --version | head -n 1; python3 --version'
if in_chroot sh -c 'command -v cargo || command -v rustc || command -v cc || command -v gcc'; then
    fail "the chroot has a Rust or C toolchain; it must have neither"
fi
echo "no cargo, rustc, cc or gcc in the chroot"
in_chroot sh -c "rm -rf /opt/envdoctor && python3 -m venv /opt/envdoctor &&
    /opt/envdoctor/bin/pip install --quiet --disable-pip-version-check --no-index /tmp/$(basename "$wheel")"
expect_version "chroot: envdoctor --version" in_chroot sh -c 'cd / && /opt/envdoctor/bin/envdoctor --version'
expect_version "chroot: python -m envdoctor --version" \
    in_chroot sh -c 'cd / && /opt/envdoctor/bin/python -m envdoctor --version'
echo "chroot: envdoctor check --no-smoke:"
in_chroot sh -c 'cd / && /opt/envdoctor/bin/envdoctor check --no-smoke --fail-on never --python /opt/envdoctor/bin/python' |
    tee "$work/chroot-check.txt"
echo "wheel proof: every step passed"
