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


def import_timed(step, name):
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
