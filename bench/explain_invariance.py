#!/usr/bin/env python3
"""How often `envdoctor explain` changes its answer when a real log reaches it dressed as real
logs are: wrapped by a tool, framed by a post, or followed by what a job prints after it fails.

Usage: bench/explain_invariance.py [--bin PATH] [--only NAME,...] CASE_DIR_OR_PARENT...

For every case whose own log gets its cause named first (as bench/explain_corpus.py judges it),
each dressing below is applied to the log and the log explained again on the case's node; a
dressing that changes the cause named, or names none, is counted. Nothing here is a threshold:
it prints the count per dressing and the longer cases changed. A log of four lines or fewer is
counted apart: a message pasted without its exception's name is read as one only in so short a
paste, so a dressing that lengthens it past four lines changes its answer by design.
"""
import argparse
import html
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from explain_corpus import cases, judge  # noqa: E402

TORCHRUN = """E0501 12:00:05.123000 4242 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 4243) of binary: /usr/bin/python3
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
============================================================
"""

IGNORED = """Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f3a2c1d5e50>
Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1479, in __del__
    self._shutdown_workers()
AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_workers_status'
"""

WANDB = """wandb: Waiting for W&B process to finish... (failed 1). Press Control-C to abort syncing.
wandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 0 other file(s)
wandb: Find logs at: ./wandb/run-20240501_100000-abc123/logs
"""

WARNINGS = """/usr/local/lib/python3.10/dist-packages/torchvision/models/_utils.py:208: UserWarning: The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, please use 'weights' instead.
  warnings.warn(
"""

PROGRESS = "Epoch 0:  37%|###7      | 37/100 [00:12<00:21,  2.95it/s, loss=0.231]\r"


def each_line(prefix):
    return lambda log: "".join(prefix + line for line in log.splitlines(True))


def after(tail):
    return lambda log: log.rstrip("\n") + "\n" + tail


def conda_paths(log):
    log = re.sub(r"/usr/local/lib/python(3\.\d+)/dist-packages/", r"/home/me/miniconda3/envs/train/lib/python\1/site-packages/", log)
    return log


DRESSINGS = {
    "torchrun ranks": each_line("[rank0]: "),
    "logger time stamps": each_line("2024-05-01 10:00:00,123 - ERROR - "),
    "compose service": each_line("trainer-1  | "),
    "quote": each_line("> "),
    "code block indent": each_line("    "),
    "colour": lambda log: "".join(f"\x1b[0;31m{line.rstrip(chr(10))}\x1b[0m\n" for line in log.splitlines(True)),
    "HTML source": lambda log: html.escape(log, quote=True),
    "CRLF": lambda log: log.replace("\r\n", "\n").replace("\n", "\r\n"),
    "fence and prose": lambda log: f"Here is my error:\n```\n{log.rstrip(chr(10))}\n```\nAny idea?\n",
    "conda paths": conda_paths,
    "warnings before": lambda log: WARNINGS + log,
    "progress bar on the header's line": lambda log: log.replace("Traceback (most recent call last):", PROGRESS + "Traceback (most recent call last):", 1),
    "torchrun summary after": after(TORCHRUN),
    "exception passed over after": after(IGNORED),
    "crash after": after("Segmentation fault (core dumped)\n"),
    "wandb after": after(WANDB),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / "target/release/envdoctor"))
    parser.add_argument("--only", default="")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    dressings = {name: dress for name, dress in DRESSINGS.items() if not args.only or name in args.only.split(",")}

    def plain(case_dir):
        _, verdict, named, _ = judge(args.bin, case_dir)
        return case_dir, named if verdict == "right" and named else None

    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        named_cases = [(case_dir, named) for case_dir, named in pool.map(plain, list(cases(args.paths))) if named]

    def dressed(job):
        case_dir, named, name = job
        log = (case_dir / "log.txt").read_text(encoding="utf-8", errors="surrogateescape")
        short = len([line for line in log.splitlines() if line.strip()]) <= 4
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8", errors="surrogateescape") as out:
            out.write(dressings[name](log))
        run = subprocess.run(
            [args.bin, "explain", out.name, "--snapshot", str(case_dir / "snapshot.json"), "--format", "json"],
            capture_output=True,
        )
        os.unlink(out.name)
        try:
            result = json.loads(run.stdout)
            now = result["candidates"][0]["id"] if result["outcome"] == "explained" and result["candidates"] else None
        except (json.JSONDecodeError, KeyError, IndexError):
            now = "error"
        return name, case_dir, named, now, short

    jobs = [(case_dir, named, name) for case_dir, named in named_cases for name in dressings]
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(dressed, jobs))

    print(f"cases whose own log gets its cause named: {len(named_cases)}")
    print(f"{'dressing':<36} {'changed':>8} {'of them logs of 4 lines or fewer':>34}")
    for name in dressings:
        changed = [r for r in results if r[0] == name and r[3] != r[2]]
        print(f"{name:<36} {len(changed):>8} {sum(1 for r in changed if r[4]):>34}")
    for name, case_dir, named, now, short in results:
        if now != named and not short:
            print(f"  {name}: {case_dir.name}: {named} -> {now}")


if __name__ == "__main__":
    main()
