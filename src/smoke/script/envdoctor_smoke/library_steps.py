"""The library stages: bitsandbytes' 4-bit and 8-bit layers
(bitsandbytes_steps), PEFT's LoRA and QLoRA in miniature (peft_steps),
DeepSpeed's ops and (with --deep) short ZeRO runs with the optimizer offloaded
to the CPU, or the job's own DeepSpeed config (deepspeed_steps); and what they share.

A library the environment does not have gets no step at all: not having it is
not a finding. Each stage's work is a function of `torch` and the device, so the
same code runs on the CPU in the tests; on the node it runs on cuda:0."""

import importlib
import importlib.util
import math
import threading
import time

# Seconds each step may take before envdoctor kills the test. Generous: they
# bound a hang. Importing bitsandbytes, PEFT (which imports transformers) or
# DeepSpeed can take tens of seconds on a cold network file system.
IMPORT_DEADLINE = 120
LIBRARY_STEP_DEADLINE = 60


def installed(name):
    """Whether `import name` would find the library, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def run(runner, torch, gpus, deep, job=None):
    # Imported here: each imports the shared helpers below from this module.
    from . import bitsandbytes_steps, deepspeed_steps, peft_steps

    have_bitsandbytes = installed("bitsandbytes")
    gpu = gpus[0] if gpus else None
    problem = why_not_on_a_gpu(runner, torch, gpus)
    device = None if problem else torch.device("cuda", gpu)
    bnb = None
    if have_bitsandbytes:
        bnb = bitsandbytes_steps.run(runner, torch, device, gpu, problem)
    if installed("peft"):
        peft_steps.run(runner, torch, device, gpu, problem, have_bitsandbytes, bnb)
    if installed("deepspeed"):
        deepspeed_steps.run(runner, torch, device, gpu, problem, deep, job)


def why_not_on_a_gpu(runner, torch, gpus):
    if torch is None:
        return "torch did not import"
    if not gpus:
        return "CUDA is not available to torch"
    if not runner.passed("gpu{}.kernels".format(gpus[0])):
        return "cuda:{} could not run a kernel".format(gpus[0])
    return None


# The libraries whose steps may run, in the order their steps run (PEFT imports
# transformers, the longest import of a training stack).
LIBRARIES = ("bitsandbytes", "peft", "deepspeed")


class BackgroundImports:
    """Imports the installed libraries on a thread while the GPU steps run on
    the main one: a node's smoke test then costs about what the job's own
    imports cost. Each library step still reports its own import: its time,
    and any exception it raised, with the traceback it raised it with."""

    def __init__(self, runner, names):
        self.names = list(names)
        self.results = {}
        self.ready = {name: threading.Event() for name in self.names}
        self.runner = runner
        # A daemon: a library whose import hangs must not keep the test alive
        # once envdoctor has had its answer.
        self.thread = threading.Thread(target=self.run, name="envdoctor-imports", daemon=True)
        runner.background(self.names, "start")
        self.thread.start()

    def run(self):
        try:
            for name in self.names:
                started = time.perf_counter()
                try:
                    self.results[name] = (importlib.import_module(name), None, time.perf_counter() - started)
                except BaseException as exception:  # reported by the library's step
                    self.results[name] = (None, exception, time.perf_counter() - started)
                self.ready[name].set()
        finally:
            self.runner.background(self.names, "end")

    def take(self, name):
        """(module or None, exception or None, import seconds, seconds waited)."""
        started = time.perf_counter()
        self.ready[name].wait()
        module, exception, seconds = self.results[name]
        return module, exception, seconds, time.perf_counter() - started


BACKGROUND = []


def import_in_background(runner):
    """Starts importing the installed libraries whose steps will run. Called once
    torch has imported (each of them imports torch) and CUDA answered."""
    names = [name for name in LIBRARIES if installed(name)]
    if names and not BACKGROUND:
        BACKGROUND.append(BackgroundImports(runner, names))


def import_timed(step, name):
    background = BACKGROUND[0] if BACKGROUND else None
    module = None
    if background is not None and name in background.names:
        module, exception, seconds, waited = background.take(name)
        step.figure("import_wait_s", round(waited, 3))
        if exception is not None and not isinstance(exception, Exception):
            raise exception
        # An import that failed on the thread is tried again here, on the main
        # thread, as the job imports it: a library that refuses to be imported
        # off the main thread (one that installs signal handlers) is not broken.
    if module is None:
        started = time.perf_counter()
        module = importlib.import_module(name)
        seconds = time.perf_counter() - started
    step.figure("import_s", round(seconds, 3))
    step.figure("version", getattr(module, "__version__", None))
    return module


def figure_number(value, digits):
    """`value` to `digits` significant digits; NaN and infinity as text, which
    JSON (and so envdoctor) can read."""
    if not math.isfinite(value):
        return str(value)
    return float("{:.{}g}".format(value, digits))


def tiny_model(torch, linear):
    """Two layers named like a transformer's MLP, built here: nothing to
    download. PEFT's steps put LoRA on them; the ZeRO-3 step partitions them."""

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = linear(64, 128)
            self.down = linear(128, 64)

        def forward(self, inputs):
            return self.down(torch.relu(self.up(inputs)))

    torch.manual_seed(0)
    return Tiny()


def listing(names, most=8):
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else "{} and {} more".format(shown, len(names) - most)
