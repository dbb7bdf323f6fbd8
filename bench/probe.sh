#!/usr/bin/env bash
# Side-by-side timing of `envdoctor probe` (warm and cold interpreter cache) against
# `pip list`, `pip freeze` and, when installed, `uv pip list`, all on one interpreter; and
# the GPU case: `nvidia-smi -q` and `python -m torch.utils.collect_env`, where those exist,
# against envdoctor probe again. It only measures and prints; there are no thresholds.
# Why not hyperfine (issue 21, step 8): it runs each command's rounds in one block, where
# these rounds interleave every tool so a change in the machine's load falls on all of them
# alike; it reports no peak RSS; and neither CI nor the GPU nodes (no network) have it.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/probe.sh [--python PY] [--runs N] [--gpu-runs N] [--envdoctor PATH]

Times, on the same Python environment and interleaved round by round:
  envdoctor probe --format json             (warm: interpreter answer cached)
  envdoctor probe --format json --no-cache  (cold: asks the interpreter)
  PY -m pip list --format=json --disable-pip-version-check
  PY -m pip freeze --disable-pip-version-check
  uv pip list --python PY                   (only when uv is on PATH)
and prints median/min/max wall time, peak RSS and the speed-up over pip list.

Then the GPU case, the tools envdoctor probe stands in for on a GPU node:
  nvidia-smi -q                             (only when nvidia-smi is on PATH)
  PY -m torch.utils.collect_env             (only when PY has torch; found without importing it)
These take 0.1 s to several seconds a run, so they get their own, smaller number of rounds
(--gpu-runs) in a second interleaved loop that also holds envdoctor probe (warm) and
(cold): the ratios nvidia-smi -q / envdoctor and collect_env / envdoctor come from runs
side by side in that one loop. Each is run once first (limit 120 s); one that fails there
or in a timed round (a broken driver, say) is reported as failed with its last error
line, and the rest of the benchmark carries on. With neither tool there, the report says
"GPU case skipped: ..." naming what is missing.

  --python PY       interpreter to measure (default: python3). It is resolved once to the
                    real executable (sys.executable), so wrappers such as pyenv shims add
                    nothing to any tool's time; every tool gets the resolved path.
  --runs N          timed rounds, after one discarded warm-up round (default: 15)
  --gpu-runs N      timed rounds of the GPU case, after one discarded warm-up round
                    (default: 5; 0 skips the GPU case)
  --envdoctor PATH  envdoctor binary (default: target/release/envdoctor, built if missing)
EOF
}

die() {
    echo "bench/probe.sh: $*" >&2
    exit 1
}

python_arg=python3
runs=15
gpu_runs=5
envdoctor=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --python) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; python_arg="$2"; shift 2 ;;
        --python=*) python_arg="${1#*=}"; shift ;;
        --runs) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; runs="$2"; shift 2 ;;
        --runs=*) runs="${1#*=}"; shift ;;
        --gpu-runs) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; gpu_runs="$2"; shift 2 ;;
        --gpu-runs=*) gpu_runs="${1#*=}"; shift ;;
        --envdoctor) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; envdoctor="$2"; shift 2 ;;
        --envdoctor=*) envdoctor="${1#*=}"; shift ;;
        *) echo "bench/probe.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive whole number, not '$runs'"
[[ "$gpu_runs" =~ ^(0|[1-9][0-9]*)$ ]] || die "--gpu-runs needs a whole number (0 skips the GPU case), not '$gpu_runs'"

repo_root="$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"

# Resolve the interpreter once: a pyenv shim is a bash script costing ~100 ms per call.
python_found="$(command -v -- "$python_arg" 2>/dev/null)" || die "interpreter '$python_arg' not found"
py="$("$python_found" -c 'import sys; print(sys.executable)')" ||
    die "'$python_found' did not run: it is not a working Python"
[[ -n "$py" && -x "$py" ]] || die "'$python_found' reports sys.executable '$py', which is not executable"

if [[ -z "$envdoctor" ]]; then
    envdoctor="$repo_root/target/release/envdoctor"
    if [[ ! -x "$envdoctor" ]]; then
        command -v cargo >/dev/null 2>&1 || die "$envdoctor is missing and cargo is not on PATH to build it"
        echo "building envdoctor (cargo build --release)..." >&2
        (cd "$repo_root" && cargo build --release --quiet) || die "cargo build --release failed"
    fi
fi
[[ "$envdoctor" == */* ]] || envdoctor="$(command -v -- "$envdoctor")" || die "envdoctor '$envdoctor' not found"
[[ -x "$envdoctor" ]] || die "envdoctor binary '$envdoctor' is not executable"
envdoctor="$(cd "$(dirname -- "$envdoctor")" && pwd)/$(basename -- "$envdoctor")"

uv="$(command -v uv 2>/dev/null || true)"
nvidia_smi="$(command -v nvidia-smi 2>/dev/null || true)"
gnu_time=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
    gnu_time=/usr/bin/time
fi

# envdoctor's interpreter cache lives in a directory private to this run, so the
# benchmark neither depends on nor disturbs the user's cache, and can check that
# every warm run really was a cache hit.
cache_home="$(mktemp -d "${TMPDIR:-/tmp}/envdoctor-bench.XXXXXX")"
trap 'rm -rf "$cache_home"' EXIT
unset ENVDOCTOR_NO_CACHE

harness="$(cat <<'PYEOF'
import gc, importlib.util, json, os, platform, statistics, subprocess, sys, tempfile, time

if sys.version_info < (3, 8):
    sys.exit("bench/probe.sh: the timing harness needs Python 3.8 or newer (os.posix_spawn)")

py, envdoctor, uv, gnu_time, cache_home, python_found = sys.argv[1:7]
runs = int(sys.argv[7])
nproc = sys.argv[8]
nvidia_smi = sys.argv[9]
gpu_runs = int(sys.argv[10])
GPU_CHECK_TIMEOUT = 120  # seconds for the first, untimed run of each GPU-case tool

base_env = dict(os.environ)
envdoctor_env = dict(base_env, XDG_CACHE_HOME=cache_home)

# (label, argv, env)
tools = [
    ("envdoctor (warm)", [envdoctor, "probe", "--format", "json", "--python", py], envdoctor_env),
    ("envdoctor (cold)", [envdoctor, "probe", "--format", "json", "--no-cache", "--python", py], envdoctor_env),
    ("pip list", [py, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"], base_env),
    ("pip freeze", [py, "-m", "pip", "freeze", "--disable-pip-version-check"], base_env),
]
if uv:
    tools.append(("uv pip list", [uv, "pip", "list", "--python", py], base_env))

err_file = tempfile.TemporaryFile()


class ToolFailed(Exception):
    """A run that did not succeed, for tools whose failure does not end the benchmark."""

    def __init__(self, what, stderr=b"", stdout=b""):
        super().__init__(what)
        self.what, self.stderr, self.stdout = what, stderr or b"", stdout or b""

    def reason(self):
        # nvidia-smi prints its own failures ("NVIDIA-SMI has failed because ...") on stdout.
        for stream in (self.stderr, self.stdout):
            lines = [l.strip() for l in stream.decode(errors="replace").splitlines() if l.strip()]
            if lines:
                return f"{self.what}: {lines[-1]}"
        return f"{self.what}, no error output"


def fail(label, argv, what, stderr=b""):
    tail = stderr.decode(errors="replace").strip().splitlines()[-15:]
    print(f"\nbench/probe.sh: {label} failed ({what})", file=sys.stderr)
    print("  command: " + " ".join(argv), file=sys.stderr)
    for line in tail:
        print("  | " + line, file=sys.stderr)
    sys.exit(1)


def describe(status):
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.WEXITSTATUS(status)}"


def timed_run(label, argv, env, fatal=True):
    """Wall time of one run, in ns: clock read right before spawn and right after reaping.
    posix_spawn (vfork+exec) and wait4 are all the harness adds; see the /bin/true floor."""
    err_file.seek(0)
    err_file.truncate()
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, err_file.fileno(), 2),
    ]
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, status, _ = os.wait4(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if status != 0:
        err_file.seek(0)
        if not fatal:
            raise ToolFailed(describe(status), err_file.read())
        fail(label, argv, describe(status), err_file.read())
    return elapsed


def run_capture(label, argv, env):
    done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    if done.returncode != 0:
        fail(label, argv, f"exit status {done.returncode}", done.stderr)
    return done.stdout


def peak_rss_kb(label, argv, env, fatal=True):
    """Peak RSS of one run, as the kernel reports it to the parent (ru_maxrss from wait4):
    the largest single process among the tool and the children it waited for."""
    if gnu_time:
        with tempfile.NamedTemporaryFile("r") as out:
            done = subprocess.run([gnu_time, "-f", "%M", "-o", out.name] + argv, env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
            if done.returncode != 0:
                if not fatal:
                    raise ToolFailed(f"exit status {done.returncode} under {gnu_time}", done.stderr)
                fail(label, argv, f"exit status {done.returncode} under {gnu_time}", done.stderr)
            return int(out.read().strip().splitlines()[-1])
    # No GNU time: a fresh Python whose only child is the tool reports its RUSAGE_CHILDREN.
    probe = ("import resource, subprocess, sys\n"
             "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=True)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([py, "-c", probe] + argv, env=env, capture_output=True)
    if done.returncode != 0:
        if not fatal:
            raise ToolFailed("failed under the RSS probe", done.stderr)
        fail(label, argv, "exit status under the RSS probe", done.stderr)
    return int(done.stdout.split()[-1])


def own_hwm_kb(argv, env, tries=5):
    """envdoctor's own peak RSS when it has a Python child: wait4 reports the larger of
    the two, so sample envdoctor's VmHWM from /proc until its memory is gone."""
    best = 0
    for _ in range(tries):
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        path, last = f"/proc/{proc.pid}/status", 0
        while True:
            try:
                with open(path, "rb") as handle:
                    text = handle.read()
            except OSError:
                break
            at = text.find(b"VmHWM:")
            if at < 0:
                break
            last = int(text[at + 6:].split()[0])
        if proc.wait() != 0:
            return None
        best = max(best, last)
    return best


def cache_state():
    directory = os.path.join(cache_home, "envdoctor", "interpreters")
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return None
    state = []
    for name in names:
        st = os.stat(os.path.join(directory, name))
        state.append((name, st.st_ino, st.st_mtime_ns, st.st_size))
    return state


def check_run(argv, env):
    """One untimed run of a GPU-case tool: its stdout, or ToolFailed (a failure, or a hang
    past GPU_CHECK_TIMEOUT) so that the tool is reported and left out, not fatal."""
    try:
        # Its own process group, so that a hang is ended with everything it started
        # (collect_env runs nvidia-smi and pip itself).
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as error:
        raise ToolFailed(f"could not start: {error}")
    try:
        stdout, stderr = proc.communicate(timeout=GPU_CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, 9)
        except OSError:
            pass
        try:
            stdout, stderr = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # stuck in the kernel (a sick driver): leave it
            stdout, stderr = b"", b""
        raise ToolFailed(f"no answer within {GPU_CHECK_TIMEOUT} s, killed", stderr, stdout)
    if proc.returncode != 0:
        status = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                  else f"exit status {proc.returncode}")
        raise ToolFailed(status, stderr, stdout)
    return stdout


# ---- GPU case: which tools exist ----------------------------------------------------------
# gpu_missing: what is not there ("nvidia-smi not on PATH"); gpu_failed: label -> how it failed.
gpu_tools, gpu_missing, gpu_failed = [], [], {}
torch_note = ""
if gpu_runs == 0:
    gpu_missing.append("--gpu-runs 0")
else:
    if nvidia_smi:
        gpu_tools.append(("nvidia-smi -q", [nvidia_smi, "-q"], base_env))
    else:
        gpu_missing.append("nvidia-smi not on PATH")
    # find_spec on a top-level name only looks for it: torch is not imported, here or anywhere.
    try:
        torch_spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        torch_spec = None
    if torch_spec is not None:
        gpu_tools.append(("collect_env", [py, "-m", "torch.utils.collect_env"], base_env))
        import importlib.metadata  # Python 3.8+, checked above
        try:
            torch_version = importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            torch_version = "version unknown (no distribution metadata)"
        where = (os.path.dirname(torch_spec.origin) if torch_spec.origin and torch_spec.has_location
                 else ", ".join(torch_spec.submodule_search_locations or []))
        torch_note = f"{torch_version} at {where} (found without importing it)"
    else:
        gpu_missing.append(f"torch not installed for {py}")

# ---- header -------------------------------------------------------------------------
version = run_capture("python", [py, "-c", "import platform; print(platform.python_version())"], base_env).decode().strip()
pip_version = run_capture("pip", [py, "-m", "pip", "--version", "--disable-pip-version-check"], base_env).decode().split()[1]
pip_count = len(json.loads(run_capture("pip list", tools[2][1], base_env)))
# First envdoctor run: fills the cache for the warm runs, and counts what envdoctor sees.
snapshot = json.loads(run_capture("envdoctor", tools[0][1], envdoctor_env))
envdoctor_count = len(snapshot.get("packages", []))
envdoctor_version = run_capture("envdoctor", [envdoctor, "--version"], base_env).decode().strip()
warm_cache = cache_state()
if not warm_cache:
    print("warning: envdoctor wrote no interpreter cache entry; its 'warm' runs will be cold", file=sys.stderr)

gc.disable()
floor = sorted(timed_run("/bin/true", ["/bin/true"], base_env) for _ in range(51))
floor_ms = statistics.median(floor) / 1e6

resolved_note = "" if python_found == py else f"  (resolved once from {python_found})"
print("envdoctor probe benchmark")
print(f"  date          {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
print(f"  machine       {platform.node()}, {platform.system()} {platform.release()} {platform.machine()}, nproc {nproc}")
print(f"  interpreter   {py}{resolved_note}")
print(f"  python        {version} ({platform.python_implementation()}), pip {pip_version}")
print(f"  distributions {pip_count} (pip list), {envdoctor_count} (envdoctor)")
print(f"  envdoctor     {envdoctor} ({envdoctor_version})")
print(f"  rounds        {runs} timed, interleaved round-robin (start rotating), after 1 discarded warm-up round")
print(f"  harness floor {floor_ms:.2f} ms median to posix_spawn+wait4 /bin/true (included in every time below)")
print(f"  uv            {uv}" if uv else "  uv: not installed, skipped")

# Untimed first run of each GPU-case tool (its own warm-up too: torch's import from a cold
# page cache): a failing one is reported and left out, and the benchmark goes on.
for label, argv, env in list(gpu_tools):
    try:
        check_run(argv, env)
    except ToolFailed as failure:
        gpu_failed[label] = failure.reason()
        gpu_tools.remove((label, argv, env))
if gpu_runs == 0:
    print("  gpu case: skipped (--gpu-runs 0)")
else:
    if not nvidia_smi:
        print("  nvidia-smi: not on PATH, skipped")
    elif "nvidia-smi -q" in gpu_failed:
        print(f"  nvidia-smi    {nvidia_smi}, FAILED: {gpu_failed['nvidia-smi -q']}")
    else:
        query = [nvidia_smi, "--query-gpu=name,driver_version", "--format=csv,noheader"]
        try:
            gpus = [l.strip() for l in check_run(query, base_env).decode(errors="replace").splitlines()
                    if l.strip()]
        except ToolFailed:
            gpus = []
        kinds = {}
        for gpu in gpus:
            kinds[gpu] = kinds.get(gpu, 0) + 1
        listed = "; ".join(f"{count} x {kind}" for kind, count in kinds.items())
        print(f"  nvidia-smi    {nvidia_smi}" + (f" ({listed})" if listed else ""))
    if not torch_note:
        print(f"  torch: not installed for {py}, skipped")
    elif "collect_env" in gpu_failed:
        print(f"  torch         {torch_note}; collect_env FAILED: {gpu_failed['collect_env']}")
    else:
        print(f"  torch         {torch_note}")
if gpu_tools:
    print(f"  gpu rounds    {gpu_runs} timed, a second interleaved loop of envdoctor (warm), (cold) and"
          f" {' and '.join(label for label, _, _ in gpu_tools)}, after 1 discarded warm-up round")
print(flush=True)

# ---- timing ---------------------------------------------------------------------------
times = {label: [] for label, _, _ in tools}
for round_number in range(runs + 1):
    shift = round_number % len(tools)
    for label, argv, env in tools[shift:] + tools[:shift]:
        elapsed = timed_run(label, argv, env)
        if round_number > 0:  # round 0 is the warm-up
            times[label].append(elapsed)

# The GPU case: a second interleaved loop, fewer rounds, envdoctor (warm) and (cold) timed
# again side by side with the slow tools. A GPU-case tool that fails here is left out of
# the remaining rounds and reported; envdoctor failing still ends the benchmark.
gpu_loop = tools[:2] + gpu_tools
gpu_times = {label: [] for label, _, _ in gpu_loop}
gpu_labels = {label for label, _, _ in gpu_tools}
if gpu_tools:
    active = list(gpu_loop)
    for round_number in range(gpu_runs + 1):
        shift = round_number % len(active)
        for tool in active[shift:] + active[:shift]:
            label, argv, env = tool
            try:
                elapsed = timed_run(label, argv, env, fatal=label not in gpu_labels)
            except ToolFailed as failure:
                which = "warm-up round" if round_number == 0 else f"timed round {round_number}"
                gpu_failed[label] = f"{failure.reason()} (in the {which})"
                active.remove(tool)
                continue
            if round_number > 0:
                gpu_times[label].append(elapsed)
        if len(active) == 2:  # only envdoctor left
            break
    gpu_tools = [tool for tool in gpu_tools if tool[0] not in gpu_failed]
gc.enable()

cache_ok = cache_state() == warm_cache and bool(warm_cache)

# ---- memory -----------------------------------------------------------------------------
# ru_maxrss survives exec, so a child first carries its launcher's peak (Python's, in
# the fallback): a figure at the launcher's floor says nothing about the tool itself.
rss_floor = peak_rss_kb("/bin/true", ["/bin/true"], base_env)
rss, sampled, child_rss = {}, set(), {}
# envdoctor (warm) has a child too, its NVML query: on a GPU node, where that loads the
# driver's library, its peak is the larger and is set apart from envdoctor's own.
for label, argv, env in tools:
    measured = peak_rss_kb(label, argv, env)
    if label == "envdoctor (warm)" and measured > rss_floor * 1.02:
        own = own_hwm_kb(argv, env)
        if own and measured > own * 1.10:
            rss[label], child_rss[label] = own, measured
            sampled.add(label)
            continue
    elif label == "envdoctor (cold)" or measured <= rss_floor * 1.02:
        own = own_hwm_kb(argv, env)
        if own:
            rss[label] = own
            sampled.add(label)
            if measured > max(own, rss_floor * 1.02):
                child_rss[label] = measured
            continue
    rss[label] = measured
gpu_rss_failed = {}
for label, argv, env in gpu_tools:
    try:
        rss[label] = peak_rss_kb(label, argv, env, fatal=False)
    except ToolFailed as failure:
        gpu_rss_failed[label] = failure.reason()

# ---- report -----------------------------------------------------------------------------
pip_median = statistics.median(times["pip list"])
rss_source = f"{gnu_time} -f %M" if gnu_time else "getrusage(RUSAGE_CHILDREN).ru_maxrss"
headers = ("tool", "median ms", "min ms", "max ms", "peak RSS MiB", "pip list / tool")
rows = []
for label, _, _ in tools:
    samples = times[label]
    median = statistics.median(samples)
    peak = ("*" if label in sampled else "") + f"{rss[label] / 1024:.1f}"
    rows.append((label, f"{median / 1e6:.1f}", f"{min(samples) / 1e6:.1f}", f"{max(samples) / 1e6:.1f}",
                 peak, f"{pip_median / median:.1f}x"))


def print_table(headers, rows):
    widths = [max(len(str(row[i])) for row in rows + [headers]) for i in range(len(headers))]
    def line(cells):
        return "  ".join(str(cell).ljust(widths[0]) if i == 0 else str(cell).rjust(widths[i])
                         for i, cell in enumerate(cells))
    print(line(headers))
    print(line("-" * w for w in widths))
    for row in rows:
        print(line(row))


print_table(headers, rows)
print()
for label, _, _ in tools:
    if label != "pip list":
        print(f"  pip list / {label} = {pip_median / statistics.median(times[label]):.1f}x")
print()

# The GPU case: ratios are the GPU tool's median over envdoctor's, both from the second loop.
gpu_ratios = []
if gpu_tools:
    ed_warm = statistics.median(gpu_times["envdoctor (warm)"])
    ed_cold = statistics.median(gpu_times["envdoctor (cold)"])
    print(f"GPU case: {gpu_runs} timed rounds of its own interleaved loop (envdoctor timed again in it)")
    gpu_headers = ("tool", "median ms", "min ms", "max ms", "peak RSS MiB",
                   "tool / envdoctor (warm)", "tool / envdoctor (cold)")
    gpu_rows = []
    for label, _, _ in tools[:2] + gpu_tools:
        samples = gpu_times[label]
        median = statistics.median(samples)
        peak = "-" if label not in rss else ("*" if label in sampled else "") + f"{rss[label] / 1024:.1f}"
        gpu_rows.append((label, f"{median / 1e6:.1f}", f"{min(samples) / 1e6:.1f}",
                         f"{max(samples) / 1e6:.1f}", peak, f"{median / ed_warm:.1f}x",
                         f"{median / ed_cold:.1f}x"))
    print_table(gpu_headers, gpu_rows)
    print()
    for label, _, _ in gpu_tools:
        median = statistics.median(gpu_times[label])
        for kind, base in (("warm", ed_warm), ("cold", ed_cold)):
            gpu_ratios.append(f"{label} / envdoctor ({kind}) = {median / base:.1f}x")
    for ratio in gpu_ratios:
        print(f"  {ratio}")
if not gpu_tools:
    print("GPU case skipped: " + "; ".join(gpu_missing + [f"{label} failed" for label in gpu_failed]))
for label, reason in gpu_failed.items():
    print(f"  {label}: FAILED, left out of the GPU case: {reason}")
if gpu_tools and gpu_missing:
    print("  not in the GPU case: " + "; ".join(gpu_missing))
print()
print("notes:")
print(f"  peak RSS: one separate run each, via {rss_source}, which reports the largest single process"
      f" the tool waited for (floor on /bin/true: {rss_floor / 1024:.1f} MiB).")
if sampled:
    print("  *: the tool's own process only, sampled from /proc/PID/status VmHWM (can read slightly low).")
for label in sampled:
    children = "its NVML query" if label == "envdoctor (warm)" else "the Python it asks, or its NVML query"
    if label in child_rss:
        print(f"  {label}: its largest child process ({children}) peaked at {child_rss[label] / 1024:.1f} MiB.")
    elif label == "envdoctor (cold)":
        print(f"  {label}: its children's peak ({children}) was not above envdoctor's own or the floor,"
              " so not separable.")
print("  envdoctor (warm): " + ("every warm run was a cache hit (cache entry untouched)." if cache_ok
      else "WARNING: the cache entry changed during the runs, so some 'warm' runs were not cache hits."))
for label, reason in gpu_rss_failed.items():
    print(f"  {label}: its peak RSS run failed ({reason}), so no figure.")
print("  commands:")
for label, argv, _ in tools + gpu_tools:
    print(f"    {label}: {' '.join(argv)}")
print()
warm_ratio = pip_median / statistics.median(times["envdoctor (warm)"])
cold_ratio = pip_median / statistics.median(times["envdoctor (cold)"])
print(f"headline: pip list / envdoctor (warm) = {warm_ratio:.1f}x, pip list / envdoctor (cold) = {cold_ratio:.1f}x"
      + "".join(f", {ratio}" for ratio in gpu_ratios))
PYEOF
)"

"$py" -c "$harness" "$py" "$envdoctor" "$uv" "$gnu_time" "$cache_home" "$python_found" "$runs" "$(nproc)" \
    "$nvidia_smi" "$gpu_runs"
