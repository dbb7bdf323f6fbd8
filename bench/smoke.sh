#!/usr/bin/env bash
# The smoke test against `python -m torch.utils.collect_env`, its nearest peer (it
# imports torch and initialises CUDA too, but tests nothing), with `envdoctor probe`
# and `envdoctor check` beside them, timed in the same interleaved rounds. Prints the
# medians, the ratios and every step of one smoke run with its figures. No thresholds:
# it measures and prints.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/smoke.sh --python PY [--runs N] [--envdoctor PATH]

PY is an interpreter with torch (on a GPU node: the job's). Times, interleaved, N rounds
after one discarded warm-up round:
  envdoctor smoke --format json
  PY -m torch.utils.collect_env
  envdoctor probe --format json
  envdoctor check --format json   (probe, matrix, checks and the smoke test where a GPU is)
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
tools = [
    ("envdoctor smoke", [envdoctor, "smoke", "--python", py, "--format", "json", "-o", smoke_json]),
    ("collect_env", [py, "-m", "torch.utils.collect_env"]),
    ("envdoctor probe", [envdoctor, "probe", "--python", py, "--format", "json"]),
    ("envdoctor check", [envdoctor, "check", "--python", py, "--format", "json"]),
]
times = time_interleaved(tools, runs, env)
med = print_medians(times, width=20, decimals=0)
print(f"smoke / collect_env:   {med['envdoctor smoke'] / med['collect_env']:.2f}x")
print(f"collect_env / probe:   {med['collect_env'] / med['envdoctor probe']:.0f}x")
with open(smoke_json) as f:
    report = json.load(f)
print(f"\nlast smoke run: {len(report['steps'])} steps, {report['duration_ms']} ms, {report['ending']}")
for step in report["steps"]:
    figures = ", ".join(f"{k}={v}" for k, v in step["figures"].items() if not isinstance(v, (list, dict)))
    print(f"  {step['status']:7} {step['name']:20} {step['duration_ms']:6d} ms  {figures}")
PYEOF
