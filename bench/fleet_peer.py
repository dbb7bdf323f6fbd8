#!/usr/bin/env python3
"""The peer of `envdoctor fleet` in bench/fleet.sh: the straightforward script a
team writes to find the odd nodes in a directory of per-node reports.

Loads every report with json.load, keys each node by a hash of what it thinks
matters for training (driver, GPUs, Python version, packages name==version,
NCCL_*/CUDA_* variables), takes the largest group as the reference and prints
every node outside it, one per line. Reads a directory of *.json files, or a
JSON-lines file (`-` for standard input).

    fleet_peer.py DIR
    fleet_peer.py FLEET.jsonl
"""

import collections
import glob
import hashlib
import json
import os
import sys


def reports(source):
    if os.path.isdir(source):
        for path in sorted(glob.glob(os.path.join(source, "*.json"))):
            with open(path) as file:
                yield json.load(file)
    else:
        stream = sys.stdin if source == "-" else open(source)
        for line in stream:
            if line.strip():
                yield json.loads(line)


def node_name(report):
    snapshot = report.get("snapshot", report)  # a check report carries the Snapshot
    env = snapshot.get("env") or {}
    return env.get("ENVDOCTOR_NODE_NAME") or env.get("SLURMD_NODENAME") or snapshot["system"]["hostname"]


def key(report):
    snapshot = report.get("snapshot", report)
    nvidia = snapshot.get("nvidia") or {}
    facts = {
        "driver": nvidia.get("driver_version"),
        "gpus": sorted(
            (gpu["name"], gpu.get("memory_total_mib"), gpu.get("compute_capability")) for gpu in nvidia.get("gpus", [])
        ),
        "python": snapshot["python"]["version"],
        "packages": sorted(f"{package['normalized_name']}=={package['version']}" for package in snapshot["packages"]),
        "env": sorted(
            (name, value) for name, value in snapshot["env"].items() if name.startswith(("NCCL_", "CUDA_"))
        ),
    }
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    groups = collections.defaultdict(list)
    for report in reports(sys.argv[1]):
        groups[key(report)].append(node_name(report))
    if not groups:
        sys.exit("fleet_peer.py: no reports")
    reference = max(groups, key=lambda fingerprint: len(groups[fingerprint]))
    for fingerprint, nodes in groups.items():
        if fingerprint != reference:
            for node in nodes:
                print(node)


if __name__ == "__main__":
    main()
