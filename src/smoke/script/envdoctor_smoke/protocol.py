"""How the smoke test talks to envdoctor: one JSON object per line, on a
private copy of the original stdout.

    {"event": "start", "step": "gpu0.fp16", "title": "...", "deadline_s": 30, "gpu": 0}
    {"event": "end", "step": "gpu0.fp16", "status": "pass", "duration_ms": 41,
     "detail": "...", "figures": {"tflops": 612.3}, "error": null}
    {"event": "background", "imports": ["peft"], "state": "start"}

envdoctor enforces each step's deadline from its `start` event: a step that
sends no `end` in time is killed with the whole process group and reported as
`timeout`. A step that raises is `fail`, with the exception's type and message;
a crash by signal is seen by envdoctor, which knows the step that was running.

Libraries (and torch's own warnings) print to stdout; file descriptor 1 is
pointed at stderr so that nothing they print can be mistaken for an event.
"""

import json
import os
import subprocess
import sys
import threading
import time
import traceback


def open_event_channel():
    private = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(private, "w", buffering=1)


class Skip(Exception):
    """The step does not apply here; the message says why."""


class Failed(Exception):
    """The step ran and found the node broken; the message says how."""


class WorkerFailed(Failed):
    """A worker process raised: its exception, traceback included, becomes the
    step's error, so that the frames it broke in reach envdoctor's diagnosis."""

    def __init__(self, rank, error):
        super().__init__("rank {}: {}: {}".format(rank, error.get("type"), error.get("message")))
        self.error = error


def error_of(exception):
    kind = type(exception)
    name = kind.__qualname__
    if kind.__module__ not in ("builtins", "__main__"):
        name = kind.__module__ + "." + name
    frames = traceback.format_exception(kind, exception, exception.__traceback__)
    return {
        "type": name,
        "message": str(exception).strip()[:4000],
        # The innermost frames say where in torch or the library it broke.
        "traceback": "".join(frames)[-3000:],
    }


def json_safe(value):
    """`value` with NaN and infinities as text: JSON has no such numbers, and a
    broken GPU's matrix product is exactly where they appear."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return str(value)
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


class Step:
    def __init__(self, runner, name, title, deadline_s, gpu):
        self.runner = runner
        self.name = name
        self.title = title
        self.deadline_s = deadline_s
        self.gpu = gpu
        self.detail = ""
        self.figures = {}
        self.status = None

    def figure(self, key, value):
        self.figures[key] = value

    def skip(self, reason):
        raise Skip(reason)

    def fail(self, message):
        raise Failed(message)

    def __enter__(self):
        self.runner.emit(
            event="start", step=self.name, title=self.title, deadline_s=self.deadline_s, gpu=self.gpu
        )
        self.started = time.perf_counter()
        return self

    def __exit__(self, kind, value, _traceback):
        error = None
        if kind is None:
            self.status = "pass"
        elif issubclass(kind, Skip):
            self.status, self.detail = "skip", str(value)
        elif issubclass(kind, WorkerFailed):
            self.status, error = "fail", value.error
            self.detail = str(value).splitlines()[0]
        elif issubclass(kind, Failed):
            self.status, self.detail = "fail", str(value)
        elif issubclass(kind, Exception):
            self.status = "fail"
            error = error_of(value)
            self.detail = "{}: {}".format(error["type"], error["message"].splitlines()[0] if error["message"] else "")
        else:
            # KeyboardInterrupt, SystemExit: not a verdict on the node.
            return False
        self.runner.emit(
            event="end",
            step=self.name,
            status=self.status,
            duration_ms=round((time.perf_counter() - self.started) * 1000),
            detail=self.detail,
            figures=self.figures,
            error=error,
        )
        self.runner.statuses[self.name] = self.status
        return True


class Runner:
    def __init__(self, channel):
        self.channel = channel
        self.statuses = {}
        # The background import thread emits too; a line is written whole.
        self.lock = threading.Lock()

    def emit(self, **event):
        line = json.dumps(json_safe(event), default=str, allow_nan=False) + "\n"
        with self.lock:
            self.channel.write(line)

    def step(self, name, title, deadline_s, gpu=None):
        """`with runner.step(...) as step:` reports the block as one step."""
        return Step(self, name, title, deadline_s, gpu)

    def skipped(self, name, title, reason, gpu=None):
        with self.step(name, title, 1, gpu) as step:
            step.skip(reason)

    def passed(self, name):
        return self.statuses.get(name) == "pass"

    def background(self, imports, state):
        """Tells envdoctor which libraries a thread is importing ("start") or
        has imported ("end"): a crash while they import happens during
        whatever step is running, and envdoctor must not blame that step alone."""
        self.emit(event="background", imports=list(imports), state=state)


def release(torch):
    """Hands the memory a step cached back to the driver, between steps. After
    a sticky CUDA error this raises too; outside any step that would end the
    whole run, and the step that caused the error has already reported it."""
    try:
        torch.cuda.empty_cache()
    except Exception:
        pass


WORKER_COMMAND = [sys.executable, "-m", "envdoctor_smoke", "worker"]
# How often run_workers looks whether a worker has ended.
POLL_INTERVAL_S = 0.05


def run_workers(argument_lists, deadline_s, command=None):
    """Runs `python -m envdoctor_smoke worker ...` once per argument list (rank
    0, 1, ...), all at once, and returns what each printed as JSON, in rank
    order. The first rank to end badly (a non-zero exit or a reported error)
    fails the step at once, naming that rank, and the others are killed: a rank
    that died must not read as its peers hanging in a collective. Ranks still
    running at the deadline are killed too, so one hung rank cannot take the
    rest of the smoke test with it. `command` replaces the
    `python -m envdoctor_smoke worker` prefix (the tests run `python -c`)."""
    prefix = list(command or WORKER_COMMAND)
    workers = []
    try:
        for arguments in argument_lists:
            workers.append(Worker(prefix + [str(argument) for argument in arguments]))
        return wait_for_workers(workers, deadline_s)
    finally:
        for worker in workers:
            worker.stop()


class Worker:
    """One worker process. Its stdout is read on a thread, so that a worker
    that prints more than a pipe holds cannot stall while its peers are watched."""

    def __init__(self, command):
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.output = b""
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        self.output = self.process.stdout.read()

    def answer(self, rank, ends):
        """What the ended worker returned; raises Failed for a rank that ended badly."""
        code = self.process.returncode
        if code != 0:
            raise Failed("rank {}: the worker process ended with {}".format(rank, describe_returncode(code)))
        self.reader.join(max(0.1, ends - time.monotonic()))
        lines = self.output.decode("utf-8", "replace").strip().splitlines()
        try:
            result = json.loads(lines[-1])
        except (IndexError, ValueError):
            raise Failed("rank {}: the worker process ended without printing its result".format(rank))
        if isinstance(result, dict) and isinstance(result.get("error"), dict):
            raise WorkerFailed(rank, result["error"])
        return result

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.reader.join(1)
        # Closing the pipe waits for a read in progress: only once the reader is done.
        if not self.reader.is_alive():
            self.process.stdout.close()


def wait_for_workers(workers, deadline_s):
    ends = time.monotonic() + deadline_s
    results = [None] * len(workers)
    running = list(range(len(workers)))
    while running:
        for rank in list(running):
            if workers[rank].process.poll() is not None:
                running.remove(rank)
                results[rank] = workers[rank].answer(rank, ends)
        if running and time.monotonic() >= ends:
            raise Failed(
                "{} {} did not finish within {:.0f} s (hung in a collective?)".format(
                    "rank" if len(running) == 1 else "ranks", ", ".join(str(rank) for rank in running), deadline_s
                )
            )
        if running:
            time.sleep(POLL_INTERVAL_S)
    return results


def describe_returncode(code):
    if code < 0:
        import signal

        try:
            return "signal " + signal.Signals(-code).name
        except ValueError:
            return "signal {}".format(-code)
    return "exit status {}".format(code)


def worker_main(work, arguments):
    """Runs `work(*arguments)` in a worker and prints its answer, or the
    exception it raised, as the last line of stdout for `run_workers`."""
    channel = open_event_channel()
    try:
        result = work(*arguments)
    except Exception as exception:  # the parent step reports it
        result = {"error": error_of(exception)}
    channel.write(json.dumps(result, default=str) + "\n")
    channel.flush()
    # The answer is given: a library's teardown at interpreter exit (seen:
    # "terminate called without an active exception" after a finished ZeRO-3
    # run) must not turn it into a failed step.
    os._exit(0)
