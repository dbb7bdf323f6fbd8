#!/usr/bin/env bash
# `envdoctor fleet` on a generated fleet of N node Snapshots (tests/fixtures/fleet/make_fleet.py),
# from a directory of N files and from one JSON-lines stream on standard input, timed side by
# side with the peer a team would write: bench/fleet_peer.py (json.load every report, group the
# nodes by a hash of driver, GPUs, Python, packages and NCCL_*/CUDA_* variables, print the nodes
# outside the largest group), and the same grouping in jq when jq is installed. Wall time and
# peak RSS come from /usr/bin/time. Also checks that envdoctor found exactly the nodes the
# generator perturbed. Measures and prints; no thresholds.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: bench/fleet.sh [--nodes N] [--runs N] [--envdoctor PATH]

Generates N nodes (default 10000: about 750 MB as files, and again as JSON lines), then times,
interleaved, RUNS rounds (default 1) after the files are read once into the page cache:
  envdoctor fleet DIR --format json                 envdoctor fleet - < fleet.jsonl
  python3 bench/fleet_peer.py DIR                   python3 bench/fleet_peer.py - < fleet.jsonl
  jq (per-node key) DIR/*.json | jq -s (group)      (skipped when jq is not installed)
and prints seconds (median), peak RSS (largest) and the ratios to envdoctor on the same input.
USAGE
}

nodes=10000 runs=1 envdoctor=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --nodes) nodes="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --envdoctor) envdoctor="$2"; shift 2 ;;
        *) echo "bench/fleet.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ && "$nodes" =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench/fleet.sh: needs GNU time at /usr/bin/time (apt install time)" >&2; exit 2; }

# shellcheck source=bench/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
release_envdoctor

scratch_dir fleet
make_fleet="$repo_root/tests/fixtures/fleet/make_fleet.py"

start=$SECONDS
python3 "$make_fleet" --nodes "$nodes" --out "$work/fleet" --expected "$work/expected.json"
python3 "$make_fleet" --nodes "$nodes" --jsonl "$work/fleet.jsonl"
cat "$work"/fleet/*.json "$work/fleet.jsonl" >/dev/null # into the page cache for every tool alike
echo "fleet: $nodes nodes, $(du -sm "$work/fleet" | cut -f1) MiB of files, $(du -m "$work/fleet.jsonl" | cut -f1) MiB of JSON lines (generated in $((SECONDS - start)) s)"

python3 - "$envdoctor" "$repo_root" "$work" "$runs" <<'PYEOF'
import json, os, shutil, statistics, subprocess, sys

envdoctor, repo_root, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
fleet, jsonl = os.path.join(work, "fleet"), os.path.join(work, "fleet.jsonl")
peer = [sys.executable, os.path.join(repo_root, "bench", "fleet_peer.py")]
out = lambda name: os.path.join(work, name)

# jq: one line per node, [name, key], then the largest group's key and every node outside it.
JQ_KEY = (
    '[(.env.ENVDOCTOR_NODE_NAME // .env.SLURMD_NODENAME // .system.hostname), '
    '([.nvidia.driver_version, [.nvidia.gpus[] | [.name, .memory_total_mib, .compute_capability]], '
    '.python.version, ([.packages[] | "\\(.normalized_name)==\\(.version)"] | sort), '
    '(.env | to_entries | map(select(.key | test("^(NCCL|CUDA)_"))))] | tostring)]'
)
JQ_GROUP = "group_by(.[1]) | (max_by(length) | .[0][1]) as $reference | .[][] | select(.[1] != $reference) | .[0]"

# (label, argv, file given on standard input, input kind: ratios compare tools on the same kind)
tools = [
    ("envdoctor fleet DIR", [envdoctor, "fleet", fleet, "--format", "json", "-o", out("dir.json")], None, "files"),
    ("envdoctor fleet - < jsonl", [envdoctor, "fleet", "-", "--format", "json", "-o", out("stdin.json")], jsonl, "jsonl"),
    ("python peer DIR", peer + [fleet], None, "files"),
    ("python peer - < jsonl", peer + ["-"], jsonl, "jsonl"),
]
if shutil.which("jq"):
    script = f"jq -c '{JQ_KEY}' {fleet}/*.json | jq -rs '{JQ_GROUP}'"
    tools.append(("jq DIR/*.json | jq -s", ["sh", "-c", script], None, "files"))
else:
    print("jq: not installed, skipped")

times = {label: [] for label, *_ in tools}
peaks = {label: 0 for label, *_ in tools}
for _ in range(runs):
    for label, argv, stdin, kind in tools:
        measured = out("time.txt")
        with open(stdin or os.devnull, "rb") as given, open(out(f"{label.split()[0]}-{kind}.out"), "wb") as stdout:
            result = subprocess.run(
                ["/usr/bin/time", "-f", "%e %M", "-o", measured] + argv, stdin=given, stdout=stdout, stderr=subprocess.PIPE
            )
        if result.returncode not in (0, 1):
            sys.exit(f"{label} failed with exit code {result.returncode}: {result.stderr.decode(errors='replace')[-2000:]}")
        seconds, kib = open(measured).read().split()[-2:]
        times[label].append(float(seconds))
        peaks[label] = max(peaks[label], int(kib))

medians = {label: statistics.median(values) for label, values in times.items()}
baseline = {"files": "envdoctor fleet DIR", "jsonl": "envdoctor fleet - < jsonl"}
print(f"\n{'tool':28} {'seconds':>8} {'peak MiB':>9} {'time / envdoctor':>17} {'memory / envdoctor':>19}")
for label, argv, stdin, kind in tools:
    base = baseline[kind]
    print(
        f"{label:28} {medians[label]:8.2f} {peaks[label] / 1024:9.0f} "
        f"{medians[label] / medians[base]:16.2f}x {peaks[label] / peaks[base]:18.2f}x"
    )
print(f"(median of {runs} run(s); peak RSS of the process, of the largest process for the jq pipeline;"
      " ratios against envdoctor on the same input)")

# Did each tool find the nodes the generator perturbed?
expected = json.load(open(out("expected.json")))["deviating"]
pcie = {node for node, entries in expected.items() if any(e.startswith("gpu-pcie-link-degraded") for e in entries)}
configuration = set(expected) - pcie
def deviating(report):
    return {node for deviation in report["deviations"] for node in deviation["nodes"]}
def finding(report, id):
    return {node for item in report["findings"] if item["id"] == id for node in item["nodes"]}
ok = True
print()
for name in ("dir.json", "stdin.json"):
    report = json.load(open(out(name)))
    found, links = deviating(report), finding(report, "gpu-pcie-link-degraded")
    good = found == configuration and links == pcie
    ok &= good
    print(
        f"envdoctor ({name.split('.')[0]}): {report['nodes']['reported']} nodes, {len(found)} deviating "
        f"({'exactly' if found == configuration else 'NOT'} the {len(configuration)} perturbed), "
        f"PCIe finding on {len(links)} ({'exactly' if links == pcie else 'NOT'} the {len(pcie)} degraded)"
        + ("" if good else f"; missed {sorted(configuration - found)[:5]}, extra {sorted(found - configuration)[:5]}")
    )
for label, _argv, _stdin, kind in tools[2:]:
    printed = set(open(out(f"{label.split()[0]}-{kind}.out")).read().split())
    missed = configuration - printed
    print(
        f"{label}: {len(printed)} nodes printed, {len(printed & configuration)} of the {len(configuration)} perturbed"
        + (f"; missed {', '.join(sorted(missed))} ({', '.join(sorted({e for n in missed for e in expected[n]}))})" if missed else "")
        + (f"; {len(printed - configuration)} not perturbed" if printed - configuration else "")
    )
if not ok:
    sys.exit("bench/fleet.sh: envdoctor did not find exactly the perturbed nodes")
PYEOF
