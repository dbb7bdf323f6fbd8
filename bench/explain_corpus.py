#!/usr/bin/env python3
"""Scores `envdoctor explain` on case directories as the corpus test judges them, and prints
the figures per expected cause and per mechanism (the `mechanism` key of case.toml).

Usage: bench/explain_corpus.py [--bin PATH] [--list] CASE_DIR_OR_PARENT...

A case is right when its expected cause is named first ("explained"), or, for expected "none",
when no cause is named; it is confidently wrong when another cause is named. Expected ids
outside the tool's knowledge (`other:...`) can only be missed or confidently wrong.
"""
import json
import os
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

MECHANISMS = {
    "0": "none of the five",
    "1": "stated requirement",
    "2": "shared library",
    "3": "extension built for other torch",
    "4": "whole log / non-Python failure",
    "5": "other machine / likelihood",
}


def cases(paths):
    for path in map(Path, paths):
        if (path / "case.toml").is_file():
            yield path
        else:
            yield from sorted(p.parent for p in path.glob("*/case.toml"))


EXTRA = os.environ.get("EXPLAIN_ARGS", "").split()


def judge(binary, case_dir):
    case = tomllib.loads((case_dir / "case.toml").read_text())
    run = subprocess.run(
        [binary, "explain", *EXTRA, str(case_dir / "log.txt"), "--snapshot", str(case_dir / "snapshot.json"), "--format", "json"],
        capture_output=True,
    )
    try:
        out = json.loads(run.stdout)
    except json.JSONDecodeError:
        return case, "error", None, run.stderr.decode(errors="replace").strip()
    outcome = out.get("outcome")
    first = (out.get("candidates") or [{}])[0].get("id")
    expected = case["expected"]
    if expected == "none":
        verdict = "wrong" if outcome == "explained" else "right"
    elif outcome == "explained":
        verdict = "right" if first == expected else "wrong"
    else:
        verdict = "missed"
    return case, verdict, first if outcome == "explained" else None, outcome


def main(argv):
    binary = "target/release/envdoctor"
    listing = False
    args = []
    it = iter(argv)
    for arg in it:
        if arg == "--bin":
            binary = next(it)
        elif arg == "--list":
            listing = True
        else:
            args.append(arg)
    totals = defaultdict(lambda: [0, 0, 0])  # right, wrong, count
    env = [0, 0]
    user = [0, 0]
    everything = [0, 0, 0]
    for case_dir in cases(args):
        case, verdict, named, outcome = judge(binary, case_dir)
        mechanism = str(case.get("mechanism", "?"))
        for key in (f"mechanism {mechanism} ({MECHANISMS.get(mechanism, '?')})",):
            totals[key][2] += 1
            totals[key][0] += verdict == "right"
            totals[key][1] += verdict == "wrong"
        bucket = user if case["expected"] == "none" else env
        bucket[0] += verdict == "right"
        bucket[1] += 1
        everything[0] += verdict == "right"
        everything[1] += verdict == "wrong"
        everything[2] += 1
        if listing:
            print(f"{verdict:7} {case_dir.name:70} expected {case['expected']:45} named {named} ({outcome})")
    right, wrong, count = everything
    print(f"right first: {right} of {count} ({100 * right / max(count, 1):.0f}%), confidently wrong: {wrong}")
    print(f"  environment failures: {env[0]} of {env[1]} ({100 * env[0] / max(env[1], 1):.0f}%)")
    print(f"  user-code failures left unblamed: {user[0]} of {user[1]}")
    for key in sorted(totals):
        r, w, n = totals[key]
        print(f"  {key}: {r} of {n} right, {w} confidently wrong")


if __name__ == "__main__":
    main(sys.argv[1:])
