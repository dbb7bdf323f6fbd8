#!/usr/bin/env bash
# `envdoctor explain` on real fixture tracebacks and on a 200 MB training log, timed side by
# side in the same interleaved rounds with the floor of reading that log: `grep -c` for the
# traceback header, and the Python loop a user would write to find tracebacks in a log (no
# tool explains a traceback, so reading the log is the peer). Measures and prints; no thresholds.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/explain.sh [--size-mb N] [--runs N] [--envdoctor PATH]

Times, interleaved:
  envdoctor explain FIXTURE --snapshot SNAPSHOT     (a real DeepSpeed traceback, replayed node)
  envdoctor explain FIXTURE                          (the same, probing this node)
  envdoctor explain BIG.log --snapshot SNAPSHOT     (N MB of training log, the traceback in the middle)
  grep -c 'Traceback (most recent call last)' BIG.log
  python3: for line in open(BIG.log): find tracebacks
and prints median/min/max, throughput, the ratios and envdoctor's peak memory.
USAGE
}

size_mb=200 runs=7 envdoctor=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --size-mb) size_mb="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --envdoctor) envdoctor="$2"; shift 2 ;;
        *) echo "bench/explain.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ && "$size_mb" =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 2; }

# shellcheck source=bench/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
release_envdoctor

scratch_dir explain
case_dir="$repo_root/tests/fixtures/explain/deepspeed-zero3-offload-lf3583-a40"

PYTHONPATH="$repo_root/bench" python3 - "$envdoctor" "$case_dir" "$work" "$runs" "$size_mb" <<'PYEOF'
import os, subprocess, sys
from interleaved import print_medians, time_interleaved

envdoctor, case_dir, work, runs, size_mb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
log, snapshot = os.path.join(case_dir, "log.txt"), os.path.join(case_dir, "snapshot.json")

# A training log: step lines around the real traceback, and an unrelated one at the end.
big = os.path.join(work, "train.log")
step = "".join(f"{{'loss': 1.{i:04d}, 'grad_norm': 0.8{i % 10}, 'learning_rate': 2e-05, 'epoch': 0.{i:03d}}}\n" for i in range(1000))
with open(big, "w") as out, open(log) as traceback:
    chunks = size_mb * 1024 * 1024 // len(step)
    for index in range(chunks):
        out.write(step)
        if index == chunks // 2:
            out.write(traceback.read())
    out.write('Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    main()\nKeyboardInterrupt\n')
size = os.path.getsize(big)
print(f"log: {size / 2**20:.0f} MiB, {sum(1 for _ in open(big, 'rb'))} lines")

scan = (
    "import sys\n"
    "found = []\n"
    "block = None\n"
    "for line in open(sys.argv[1], errors='replace'):\n"
    "    if 'Traceback (most recent call last):' in line: block = [line]\n"
    "    elif block is not None:\n"
    "        block.append(line)\n"
    "        if not line.startswith(' '): found.append(block); block = None\n"
    "print(len(found))\n"
)
tools = [
    ("explain fixture --snapshot", [envdoctor, "explain", log, "--snapshot", snapshot]),
    ("explain fixture (probe)", [envdoctor, "explain", log]),
    ("explain big --snapshot", [envdoctor, "explain", big, "--snapshot", snapshot]),
    ("grep -c big", ["grep", "-c", "Traceback (most recent call last)", big]),
    ("python scan big", [sys.executable, "-c", scan, big]),
]
times = time_interleaved(tools, runs, dict(os.environ))
med = print_medians(times, width=30, decimals=1)
mb = size / 1e6
print(f"explain throughput on the big log:   {mb / med['explain big --snapshot']:.0f} MB/s")
print(f"python scan / explain (big log):     {med['python scan big'] / med['explain big --snapshot']:.1f}x")
print(f"explain / grep -c (big log):         {med['explain big --snapshot'] / med['grep -c big']:.1f}x")

# Measured in a child of its own: this process's RUSAGE_CHILDREN is the
# largest of every child so far (the Python scan of the big log, the
# probe's interpreter), not explain's.
alone = "import resource, subprocess, sys; code = subprocess.run(sys.argv[1:], capture_output=True).returncode; print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)"
measured = subprocess.run(
    [sys.executable, "-c", alone, envdoctor, "explain", big, "--snapshot", snapshot, "--format", "json"],
    capture_output=True, text=True, check=True,
)
peak, code = measured.stdout.split()
print(f"explain peak memory on the big log:  {int(peak) / 1024:.1f} MiB (exit {code})")
PYEOF
