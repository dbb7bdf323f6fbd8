#!/usr/bin/env bash
# What the smoke test costs beside what it must cost: the job's own imports. Times, in the
# same interleaved rounds, `envdoctor smoke` and `envdoctor check` (default smoke) against
# `python -c "import torch"`, `python -c "import torch, peft"` (the floor: the test imports
# what the job imports) and `python -m torch.utils.collect_env`, its nearest peer. Prints the
# medians, the ratios, and every step of one smoke run with its time and figures. No
# thresholds: it measures and prints. On a GPU node; elsewhere the smoke test skips its GPU
# steps and the figures say little.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/smoke.sh --python PY [--runs N] [--envdoctor PATH]

PY is an interpreter with torch and peft (on a GPU node: the job's). Times, interleaved, N
rounds after one discarded warm-up round:
  envdoctor smoke --format json
  envdoctor check --format json   (probe, matrix, checks and the default smoke test)
  PY -c "import torch"
  PY -c "import torch, peft"      (the floor: what the default smoke test must import)
  PY -m torch.utils.collect_env
USAGE
}

python_arg="" runs=5 envdoctor=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --python) python_arg="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --envdoctor) envdoctor="$2"; shift 2 ;;
        *) echo "bench/smoke.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -n "$python_arg" && "$runs" =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 2; }

# shellcheck source=bench/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
py="$(command -v -- "$python_arg")"
release_envdoctor
scratch_dir smoke

PYTHONPATH="$repo_root/bench" "$py" - "$envdoctor" "$py" "$work" "$runs" <<'PYEOF'
import json, os, sys
from interleaved import print_medians, time_interleaved
envdoctor, py, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
env.pop("VIRTUAL_ENV", None)
smoke_json = os.path.join(work, "smoke.json")
check_json = os.path.join(work, "check.json")
tools = [
    ("envdoctor smoke", [envdoctor, "smoke", "--python", py, "--format", "json", "-o", smoke_json]),
    ("envdoctor check", [envdoctor, "check", "--python", py, "--format", "json", "-o", check_json]),
    ("import torch", [py, "-c", "import torch"]),
    ("import torch, peft", [py, "-c", "import torch, peft"]),
    ("collect_env", [py, "-m", "torch.utils.collect_env"]),
]
times = time_interleaved(tools, runs, env)
med = print_medians(times, width=20, decimals=0)
floor = med["import torch, peft"]
print(f"\nsmoke / import torch, peft:   {med['envdoctor smoke'] / floor:.2f}x")
print(f"check / import torch, peft:   {med['envdoctor check'] / floor:.2f}x")
print(f"smoke / import torch:         {med['envdoctor smoke'] / med['import torch']:.2f}x")
print(f"smoke / collect_env:          {med['envdoctor smoke'] / med['collect_env']:.2f}x")
with open(smoke_json) as f:
    report = json.load(f)
steps_ms = sum(step["duration_ms"] for step in report["steps"])
print(f"\nlast smoke run: {len(report['steps'])} steps, {report['duration_ms']} ms in all "
      f"({steps_ms} ms in steps; the rest is the interpreter's start and exit), {report['ending']}")
for step in report["steps"]:
    figures = ", ".join(f"{k}={v}" for k, v in step["figures"].items() if not isinstance(v, (list, dict)))
    print(f"  {step['status']:7} {step['name']:20} {step['duration_ms']:6d} ms  {figures}")
PYEOF
