"""DeepSpeed: which of its ops this system has or can build, and (with
--deep) one ZeRO-3 training step with the optimizer offloaded to the CPU, in a
worker process (deepspeed_zero3_rank)."""

import inspect
import math
import os
import socket
import tempfile
import time

from . import protocol
from .library_steps import IMPORT_DEADLINE, LIBRARY_STEP_DEADLINE, figure_number, import_timed, listing, tiny_model

# The ZeRO-3 step may have to JIT-build DeepSpeed's cpu_adam op (a C++ build).
ZERO3_DEADLINE = 300

# The ops a ZeRO-3 job with `offload_optimizer: {"device": "cpu"}` loads.
ZERO3_OFFLOAD_OPS = ("cpu_adam",)


def run(runner, device, gpu, problem, deep):
    ops_title = "import deepspeed; which of its ops are prebuilt or can be JIT-built"
    zero3_title = (
        "a DeepSpeed ZeRO-3 step with the optimizer offloaded to the CPU, on cuda:0 "
        "(allows {} s to JIT-build cpu_adam)".format(ZERO3_DEADLINE)
    )
    if problem:
        # Without a GPU DeepSpeed picks its CPU accelerator and checks the ops
        # for that, not for the GPU the job will use.
        runner.skipped("deepspeed.ops", ops_title, problem, gpu=gpu)
        if deep:
            runner.skipped("deepspeed.zero3", zero3_title, problem, gpu=gpu)
        return
    with runner.step("deepspeed.ops", ops_title, IMPORT_DEADLINE + LIBRARY_STEP_DEADLINE, gpu=gpu) as step:
        deepspeed = import_timed(step, "deepspeed")
        deepspeed_ops(step, deepspeed)
    if not deep:
        return
    if not runner.passed("deepspeed.ops"):
        runner.skipped("deepspeed.zero3", zero3_title, "deepspeed.ops did not pass", gpu=gpu)
        return
    with runner.step("deepspeed.zero3", zero3_title, ZERO3_DEADLINE + 10, gpu=gpu) as step:
        zero3_step(step, device)


def deepspeed_ops(step, deepspeed):
    """What `ds_report` shows: each op builder DeepSpeed has for the accelerator
    it detected, whether it was prebuilt at install time and whether this
    system could JIT-build it (deepspeed/env_report.py, op_report)."""
    from deepspeed.ops.op_builder.all_ops import ALL_OPS
    from deepspeed import git_version_info
    from torch.utils.cpp_extension import is_ninja_available

    accelerator = accelerator_name()
    # Prebuilt ops count only for the accelerator they were built for (env_report.py).
    built_for = getattr(git_version_info, "accelerator_name", None)
    prebuilt_here = built_for is None or accelerator is None or built_for == accelerator
    installed_ops = getattr(git_version_info, "installed_ops", {}) or {}
    compatible, incompatible, installed, reasons = [], [], [], {}
    for name, builder in sorted(ALL_OPS.items()):
        if builder is None:
            continue
        if prebuilt_here and installed_ops.get(name, False):
            installed.append(name)
        ok, reason = op_is_compatible(builder)
        (compatible if ok else incompatible).append(name)
        if reason:
            reasons[name] = reason
    ninja = is_ninja_available()
    step.figure("accelerator", accelerator)
    step.figure("compatible", compatible)
    step.figure("incompatible", incompatible)
    step.figure("installed", installed)
    step.figure("ninja", ninja)
    step.detail = "DeepSpeed {} ({}): {} ops, {} compatible, {} prebuilt".format(
        getattr(deepspeed, "__version__", "?"),
        accelerator,
        len(compatible) + len(incompatible),
        len(compatible),
        len(installed),
    )
    unusable = []
    for name in ZERO3_OFFLOAD_OPS:
        if name in installed:
            continue
        if name not in ALL_OPS:
            unusable.append("{} (DeepSpeed has no such op for the {} accelerator)".format(name, accelerator))
        elif name not in compatible:
            why = ": " + reasons[name] if reasons.get(name) else ""
            unusable.append("{} (neither prebuilt nor compatible{})".format(name, why))
        elif not ninja:
            # DeepSpeed's JIT load raises "Unable to JIT load the ... op due to ninja not being installed."
            unusable.append("{} (not prebuilt, and ninja, which DeepSpeed's JIT build needs, is missing)".format(name))
    if unusable:
        step.fail("a ZeRO-3 job with the optimizer offloaded to the CPU cannot load {}".format("; ".join(unusable)))


def accelerator_name():
    try:
        from deepspeed.accelerator import get_accelerator
    except ImportError:  # DeepSpeed before its accelerator abstraction (0.8)
        return None
    return get_accelerator().device_name()


def op_is_compatible(builder):
    """(compatible, why not). A builder whose own check raises is not
    compatible, as DeepSpeed's probe_is_compatible treats it."""
    try:
        if "verbose" in inspect.signature(builder.is_compatible).parameters:
            ok = builder.is_compatible(verbose=False)
        else:  # DeepSpeed before 0.6
            ok = builder.is_compatible()
    except Exception as exception:
        return False, "{}: {}".format(type(exception).__name__, exception)
    reason = None if ok else (getattr(builder, "error_log", None) or None)
    return bool(ok), reason


def zero3_step(step, device):
    # A worker process: deepspeed.initialize sets up torch.distributed and
    # DeepSpeed's global state, which the smoke test's own process must not keep.
    (result,) = protocol.run_workers([["deepspeed_zero3", str(device)]], ZERO3_DEADLINE)
    step.figure("loss", figure_number(result["loss"], 6))
    for key in ("optimizer", "partitioned_parameters", "master_weights_device", "initialize_s", "step_s"):
        step.figure(key, result.get(key))
    if result["misplaced"]:
        step.fail("ZeRO-3 left tensors where it should not: {}".format(listing(result["misplaced"])))
    if not math.isfinite(result["loss"]):
        step.fail("the loss is {}".format(result["loss"]))
    step.detail = (
        "ZeRO-3 step on {} with {} on the CPU; loss {:.4g}; "
        "initialize {:.1f} s (including any cpu_adam build), step {:.2f} s".format(
            device, result["optimizer"], result["loss"], result["initialize_s"], result["step_s"]
        )
    )


def deepspeed_zero3_rank(device_name):
    """The worker of deepspeed.zero3 (workers.KINDS["deepspeed_zero3"]): a
    one-rank job, as a launcher would start it."""
    import torch

    device = torch.device(device_name)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    os.environ.update(
        RANK="0",
        WORLD_SIZE="1",
        LOCAL_RANK=str(device.index or 0),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),
    )
    # A JIT build of cpu_adam goes to a temporary directory: the smoke test
    # writes nothing outside one, and builds the op from scratch as a new job would.
    with tempfile.TemporaryDirectory(prefix="envdoctor-torch-extensions-") as extensions:
        os.environ["TORCH_EXTENSIONS_DIR"] = extensions
        return zero3_training(torch, device)


def free_port():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def zero3_training(torch, device):
    import deepspeed

    model = tiny_model(torch, torch.nn.Linear)
    config = {
        "train_micro_batch_size_per_gpu": 16,
        "gradient_accumulation_steps": 1,
        "steps_per_print": 1000,
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}},
        "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": device.type == "cuda"}},
    }
    started = time.perf_counter()
    engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
    initialize_s = time.perf_counter() - started
    try:
        started = time.perf_counter()
        inputs = torch.randn(16, 64, generator=torch.Generator().manual_seed(0)).to(engine.device)
        output = engine(inputs)
        loss = output.float().pow(2).mean()
        engine.backward(loss)
        engine.step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        step_s = time.perf_counter() - started
        misplaced = zero3_misplaced(engine, optimizer, device)
        if output.device != device:
            misplaced.append("output on {}".format(output.device))
        masters = getattr(optimizer, "fp32_partitioned_groups_flat", None) or []
        return {
            "loss": loss.item(),
            "optimizer": type(getattr(optimizer, "optimizer", optimizer)).__name__,
            "partitioned_parameters": sum(1 for p in engine.module.parameters() if hasattr(p, "ds_tensor")),
            "master_weights_device": sorted(set(str(master.device) for master in masters)),
            "misplaced": misplaced,
            "initialize_s": round(initialize_s, 2),
            "step_s": round(step_s, 3),
        }
    finally:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


def zero3_misplaced(engine, optimizer, device):
    """Where ZeRO-3 with optimizer offload leaves things: each parameter is an
    empty placeholder on the device with its partition (`ds_tensor`) beside it;
    the fp32 master weights the optimizer updates are on the CPU."""
    misplaced = []
    for name, parameter in engine.module.named_parameters():
        partition = getattr(parameter, "ds_tensor", None)
        if partition is None:
            misplaced.append("{} not partitioned by ZeRO-3".format(name))
        elif partition.device != device:
            misplaced.append("{} partition on {}".format(name, partition.device))
        if parameter.device != device:
            misplaced.append("{} on {}".format(name, parameter.device))
    for index, master in enumerate(getattr(optimizer, "fp32_partitioned_groups_flat", None) or []):
        if master.device.type != "cpu":
            misplaced.append("fp32 master weights of group {} on {} instead of the CPU".format(index, master.device))
    return misplaced
