#!/usr/bin/env bash
# `envdoctor lock`, `verify`, `verify --files` and `export` against their nearest peers on one
# real environment, timed side by side in the same interleaved rounds: `pip freeze` (what
# people pin with), `pip inspect` (pip's structured inventory), and `pip freeze | diff` (the
# usual drift check). `uv pip freeze` joins when uv is on PATH. Measures and prints; no thresholds.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/lock.sh [--python PY] [--runs N] [--envdoctor PATH]

Times, interleaved, on PY's own environment (real RECORDs, so --files hashes real files):
  envdoctor lock -o FILE               pip freeze          pip inspect
  envdoctor verify                     pip freeze | diff against a saved freeze
  envdoctor verify --files             (no peer re-hashes installed files)
  envdoctor export --format requirements
and prints median/min/max and the ratios.
USAGE
}

python_arg=python3 runs=11 envdoctor=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --python) python_arg="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --envdoctor) envdoctor="$2"; shift 2 ;;
        *) echo "bench/lock.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 2; }

# shellcheck source=bench/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
py="$("$(command -v -- "$python_arg")" -c 'import sys; print(sys.executable)')"
release_envdoctor

scratch_dir lock
export PIP_DISABLE_PIP_VERSION_CHECK=1
unset VIRTUAL_ENV
"$envdoctor" lock --python "$py" -o "$work/envdoctor.lock" 2>/dev/null
"$py" -m pip freeze >"$work/frozen.txt"
count="$(grep -c '^\[\[packages\]\]' "$work/envdoctor.lock")"
echo "environment: $py, $count distributions"

PYTHONPATH="$repo_root/bench" "$py" - "$envdoctor" "$py" "$work" "$runs" <<'PYEOF'
import os, shutil, sys
from interleaved import print_medians, time_interleaved
envdoctor, py, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lock = os.path.join(work, "envdoctor.lock")
tools = [
    ("envdoctor lock", [envdoctor, "lock", "--python", py, "-o", os.path.join(work, "again.lock")]),
    ("pip freeze", [py, "-m", "pip", "freeze"]),
    ("pip inspect", [py, "-m", "pip", "inspect"]),
    ("envdoctor verify", [envdoctor, "verify", "--lock", lock, "--python", py]),
    ("pip freeze | diff", ["sh", "-c", f"'{py}' -m pip freeze | diff - '{work}/frozen.txt'"]),
    ("envdoctor verify --files", [envdoctor, "verify", "--files", "--lock", lock, "--python", py]),
    ("envdoctor export requirements", [envdoctor, "export", "--format", "requirements", "--python", py]),
]
uv = shutil.which("uv")
if uv:
    tools.append(("uv pip freeze", [uv, "pip", "freeze", "--python", py]))
times = time_interleaved(tools, runs, dict(os.environ))
med = print_medians(times, width=32, decimals=1)
print(f"pip freeze / envdoctor lock:          {med['pip freeze'] / med['envdoctor lock']:.1f}x")
print(f"pip inspect / envdoctor lock:         {med['pip inspect'] / med['envdoctor lock']:.1f}x")
print(f"pip freeze|diff / envdoctor verify:   {med['pip freeze | diff'] / med['envdoctor verify']:.1f}x")
print(f"pip freeze / envdoctor export:        {med['pip freeze'] / med['envdoctor export requirements']:.1f}x")
print(f"verify --files / verify:              {med['envdoctor verify --files'] / med['envdoctor verify']:.1f}x")
if uv:
    print(f"uv pip freeze / envdoctor lock:       {med['uv pip freeze'] / med['envdoctor lock']:.1f}x")
PYEOF
