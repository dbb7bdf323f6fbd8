"""What bench/check.sh and bench/smoke.sh share: commands timed side by side in
interleaved rounds (so a busy moment of the machine falls on all of them), and
a table of medians. Imported with PYTHONPATH=bench."""

import statistics
import subprocess
import sys
import time


def time_interleaved(tools, runs, env):
    """Seconds per run of each (label, argv), `runs` rounds after one discarded
    warm-up round. Exit codes 0 and 1 (findings) count; anything else stops."""
    times = {label: [] for label, _ in tools}
    for round_number in range(runs + 1):
        for label, argv in tools:
            start = time.perf_counter()
            result = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            elapsed = time.perf_counter() - start
            if result.returncode not in (0, 1):
                sys.exit(f"{label} failed with exit code {result.returncode}")
            if round_number:
                times[label].append(elapsed)
    return times


def print_medians(times, width=30, decimals=1):
    """Prints median/min/max per tool in ms and returns the medians in seconds."""
    medians = {label: statistics.median(values) for label, values in times.items()}
    print(f"{'tool':{width}} {'median':>10} {'min':>10} {'max':>10}")
    for label, values in times.items():
        row = [medians[label], min(values), max(values)]
        print(f"{label:{width}} " + " ".join(f"{value * 1000:9.{decimals}f}ms" for value in row))
    return medians
