#!/usr/bin/env bash
# `envdoctor check --no-smoke` against `envdoctor probe` on a large environment (the issue's
# bar: check within 2x of probe), with `pip check` and `pip list`, the peers for what check
# adds, timed side by side in the same interleaved rounds. Measures and prints; no thresholds.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/check.sh [--python PY] [--packages N] [--runs N] [--envdoctor PATH]

Builds a virtual environment of PY holding N distributions (default 400): the real
dist-info directories of PY's own environment, copied under new names (name-copyK, with
their Requires-Dist renamed to match) until there are N. Then times, interleaved:
  envdoctor probe --format json          (warm interpreter cache)
  envdoctor check --no-smoke --format json
  PY -m pip check
  PY -m pip list --format=json
and prints median/min/max and the ratio check / probe.
USAGE
}

python_arg=python3 packages=400 runs=11 envdoctor=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --python) python_arg="$2"; shift 2 ;;
        --packages) packages="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --envdoctor) envdoctor="$2"; shift 2 ;;
        *) echo "bench/check.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ "$packages" =~ ^[1-9][0-9]*$ && "$runs" =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 2; }

# shellcheck source=bench/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
py="$("$(command -v -- "$python_arg")" -c 'import sys; print(sys.executable)')"
release_envdoctor

scratch_dir check
"$py" -m venv "$work/venv"
venv_py="$work/venv/bin/python"
# pip itself is in the venv; the copies go beside it.
"$venv_py" - "$py" "$packages" <<'PYEOF'
import os, re, shutil, subprocess, sys, sysconfig
source_py, wanted = sys.argv[1], int(sys.argv[2])
source = subprocess.check_output([source_py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip()
target = sysconfig.get_paths()["purelib"]
originals = sorted(d for d in os.listdir(source) if d.endswith(".dist-info"))
have = len([d for d in os.listdir(target) if d.endswith(".dist-info")])
def norm(name): return re.sub(r"[-_.]+", "-", name).lower()
names = {}
for d in originals:
    with open(os.path.join(source, d, "METADATA"), encoding="utf-8", errors="replace") as f:
        text = f.read()
    m = re.search(r"^Name: *(.+)$", text, re.M)
    if m:
        names[d] = (m.group(1).strip(), text)
known = {norm(n) for n, _ in names.values()}
copy = 0
while have < wanted:
    copy += 1
    for d, (name, text) in names.items():
        if have >= wanted:
            break
        new = f"{name}-copy{copy}"
        def rename(match):
            dep = match.group(2)
            return match.group(1) + (f"{dep}-copy{copy}" if norm(dep) in known else dep)
        body = re.sub(r"^Name: *.+$", f"Name: {new}", text, count=1, flags=re.M)
        body = re.sub(r"^(Requires-Dist: *)([A-Za-z0-9][A-Za-z0-9._-]*)", rename, body, flags=re.M)
        version = re.search(r"^Version: *(.+)$", text, re.M).group(1).strip()
        out = os.path.join(target, f"{new.replace('-', '_')}-{version}.dist-info")
        os.makedirs(out)
        with open(os.path.join(out, "METADATA"), "w", encoding="utf-8") as f:
            f.write(body)
        for extra in ("INSTALLER", "WHEEL"):
            if os.path.exists(os.path.join(source, d, extra)):
                shutil.copy(os.path.join(source, d, extra), out)
        open(os.path.join(out, "RECORD"), "w").close()
        have += 1
print(f"environment: {have} distributions in {target}", file=sys.stderr)
PYEOF

PYTHONPATH="$repo_root/bench" "$py" - "$envdoctor" "$venv_py" "$work/cache" "$runs" <<'PYEOF'
import os, sys
from interleaved import print_medians, time_interleaved
envdoctor, py, cache, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, XDG_CACHE_HOME=cache, PIP_DISABLE_PIP_VERSION_CHECK="1")
env.pop("VIRTUAL_ENV", None)
tools = [
    ("envdoctor probe", [envdoctor, "probe", "--format", "json", "--python", py]),
    ("envdoctor check --no-smoke", [envdoctor, "check", "--no-smoke", "--format", "json", "--python", py]),
    ("pip check", [py, "-m", "pip", "check"]),
    ("pip list", [py, "-m", "pip", "list", "--format=json"]),
]
times = time_interleaved(tools, runs, env)
med = print_medians(times, width=30, decimals=1)
print(f"check / probe:      {med['envdoctor check --no-smoke'] / med['envdoctor probe']:.2f}x  (issue 4 bar: within 2x)")
print(f"pip check / check:  {med['pip check'] / med['envdoctor check --no-smoke']:.1f}x")
print(f"pip list / probe:   {med['pip list'] / med['envdoctor probe']:.1f}x")
PYEOF
