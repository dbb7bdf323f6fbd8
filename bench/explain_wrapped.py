#!/usr/bin/env python3
"""How often a log's answer changes when the log reaches `envdoctor explain` wrapped, as tools,
pages and people present logs. Runs the binary on each case's log as it is and under each
wrapping, and prints, per wrapping, how many cases got another outcome or another first cause.

Usage: bench/explain_wrapped.py [--bin PATH] [--show N] [CASE_DIR_OR_PARENT...]
(default: every case under tests/fixtures/explain and tests/fixtures/explain-fresh)

tests/it/explain_presentation.rs holds the corpus to the same standard in-process, a share of
the wrappings per case; this measures all of them on all fixture logs through the binary.
"""
import html
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def each_line(prefix):
    return lambda log: "\n".join(prefix(index) + line for index, line in enumerate(log.split("\n")))


def clock(index):
    return f"12:{index // 60 % 60:02}:{index % 60:02}"


WRAPPINGS = {
    "compose": each_line(lambda _: "trainer-worker-1  | "),
    "CI runner stamp": each_line(lambda i: f"2024-05-01T{clock(i)}.1234567Z "),
    "Python logger": each_line(lambda i: f"2024-05-01 {clock(i)},123 - ERROR - "),
    "logger with name": each_line(lambda i: f"2024-05-01 {clock(i)},123 - root - WARNING - "),
    "journalctl": each_line(lambda i: f"May  1 {clock(i)} node7 python3[4242]: "),
    "torchrun one rank": each_line(lambda _: "[rank0]: "),
    "torchrun two ranks": lambda log: "\n".join(f"[rank{rank}]: {line}" for line in log.split("\n") for rank in (0, 1)),
    "mpirun": each_line(lambda _: "[1,0]<stderr>:"),
    "srun -l": each_line(lambda _: "0: "),
    "quote": each_line(lambda _: "> "),
    "code block": each_line(lambda _: "    "),
    "HTML source": html.escape,
    "curly quotes": lambda log: log.replace("'", "\u2019").replace('"', "\u201d"),
    "colour": each_line(lambda _: "\x1b[31m"),
    "CRLF": lambda log: log.replace("\n", "\r\n"),
    "tabs for 4 spaces": lambda log: log.replace("    ", "\t"),
    "shell prompt above": lambda log: "(venv) user@gpu-node:~/run$ python train.py --bf16\n" + log,
    "Windows prompt above": lambda log: "C:\\Users\\me\\sd>python launch.py\n" + log,
}


def cases(paths):
    for path in map(Path, paths):
        if (path / "case.toml").is_file():
            yield path
        else:
            yield from sorted(p.parent for p in path.rglob("case.toml"))


def verdict(binary, log, snapshot):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as file:
        file.write(log)
    try:
        run = subprocess.run(
            [binary, "explain", file.name, "--snapshot", str(snapshot), "--format", "json"],
            capture_output=True,
        )
    finally:
        os.unlink(file.name)
    try:
        answer = json.loads(run.stdout)
    except json.JSONDecodeError:
        return ("exit", run.returncode)
    first = (answer.get("candidates") or [{}])[0]
    return (answer.get("outcome"), first.get("id"), first.get("confidence"))


def one(binary, case):
    log = (case / "log.txt").read_text(encoding="utf-8", errors="replace")
    snapshot = case / "snapshot.json"
    plain = verdict(binary, log, snapshot)
    return case, plain, {name: verdict(binary, wrap(log), snapshot) for name, wrap in WRAPPINGS.items()}


def main(argv):
    binary, show, paths = str(ROOT / "target/release/envdoctor"), 0, []
    while argv:
        flag = argv.pop(0)
        if flag == "--bin":
            binary = argv.pop(0)
        elif flag == "--show":
            show = int(argv.pop(0))
        else:
            paths.append(flag)
    paths = paths or [ROOT / "tests/fixtures/explain", ROOT / "tests/fixtures/explain-fresh"]
    found = list(cases(paths))
    changed = {name: [] for name in WRAPPINGS}
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for case, plain, wrapped in pool.map(lambda case: one(binary, case), found):
            for name, answer in wrapped.items():
                if answer != plain:
                    changed[name].append((case.name, plain, answer))
    print(f"{len(found)} logs; answers changed by each wrapping:")
    for name, cases_changed in changed.items():
        print(f"  {len(cases_changed):4}  {name}")
        for case, plain, answer in cases_changed[:show]:
            print(f"          {case}: {plain} -> {answer}")


if __name__ == "__main__":
    main(sys.argv[1:])
