"""DeepSpeed: which of its ops this system has or can build, and (with
--deep) short ZeRO training runs with the optimizer offloaded to the CPU, each
in a worker process (deepspeed_zero_rank): the built-in ZeRO-3 and ZeRO-2
offload configs, or the job's own config (deepspeed_config.prepare).

Every ZeRO run clips at every step and takes several optimizer steps, so that
it reaches the code a real job reaches: DeepSpeed 0.14.1-0.14.2 break ZeRO-3
offload only in the clipping branch of unscale_and_clip_grads."""

import inspect
import json
import math
import os
import socket
import tempfile
import time

from . import deepspeed_config, protocol
from .library_steps import IMPORT_DEADLINE, LIBRARY_STEP_DEADLINE, figure_number, import_timed, listing, tiny_model

# A ZeRO run may have to JIT-build DeepSpeed's cpu_adam op (a C++ build).
ZERO_DEADLINE = 300

# The ops a ZeRO job with `offload_optimizer: {"device": "cpu"}` loads.
ZERO_OFFLOAD_OPS = ("cpu_adam",)

# Where envdoctor wants scratch files: inside the folder it removes, whatever
# ends the test (see the harness). Elsewhere, the system's temporary folder.
SCRATCH_VARIABLE = "ENVDOCTOR_SMOKE_SCRATCH"


class ZeroRun:
    """One ZeRO step to run: its name, title and the config it runs."""

    def __init__(self, name, title, config, source, changes):
        self.name = name
        self.title = title
        self.config = config
        self.source = source
        self.changes = changes


def zero_runs(torch, device, job):
    """The job's config when one was given (`job`: (its name, its JSON)), else
    the built-in offload configs real jobs use: ZeRO-3 with optimizer and
    parameters on the CPU, and ZeRO-2 with the optimizer on the CPU and fp16
    loss scaling. bf16 where the GPU has it (compute capability 8.0 and later)."""
    where = "on {} (allows {} s to JIT-build cpu_adam)".format(device, ZERO_DEADLINE)
    if job is not None:
        source, job_config = job
        config, changes = deepspeed_config.prepare(job_config, scratch_folder())
        title = "the job's DeepSpeed config ({}), tiny model and batch, clipping at every step, {}".format(
            deepspeed_config.describe(config), where
        )
        return [ZeroRun("deepspeed.job_config", title, config, source, changes)]
    built_in = [
        ("deepspeed.zero3", deepspeed_config.built_in(3, offload_param=True, bf16=has_bf16(torch, device))),
        # fp16 with loss scaling on a GPU; DeepSpeed's CPU accelerator (the
        # tests) has no fp16, so bf16 there.
        ("deepspeed.zero2", deepspeed_config.built_in(2, offload_param=False, bf16=device.type == "cpu")),
    ]
    return [
        ZeroRun(
            name,
            "DeepSpeed {}, clipping at every step, {}".format(deepspeed_config.describe(config), where),
            config,
            "built-in",
            [],
        )
        for name, config in built_in
    ]


def zero_step_names(job):
    """The ZeRO steps' names, for skip events before torch is known."""
    return ["deepspeed.job_config"] if job is not None else ["deepspeed.zero3", "deepspeed.zero2"]


def has_bf16(torch, device):
    if device.type != "cuda":
        return True
    major, _minor = torch.cuda.get_device_capability(device)
    return major >= 8


def scratch_folder():
    folder = os.environ.get(SCRATCH_VARIABLE) or tempfile.gettempdir()
    os.makedirs(folder, exist_ok=True)
    return folder


def run(runner, torch, device, gpu, problem, deep, job=None):
    ops_title = "import deepspeed; which of its ops are prebuilt or can be JIT-built"
    zero_title = "a DeepSpeed ZeRO run with the optimizer offloaded to the CPU"
    if problem:
        # Without a GPU DeepSpeed picks its CPU accelerator and checks the ops
        # for that, not for the GPU the job will use.
        runner.skipped("deepspeed.ops", ops_title, problem, gpu=gpu)
        if deep:
            for name in zero_step_names(job):
                runner.skipped(name, zero_title, problem, gpu=gpu)
        return
    with runner.step("deepspeed.ops", ops_title, IMPORT_DEADLINE + LIBRARY_STEP_DEADLINE, gpu=gpu) as step:
        deepspeed = import_timed(step, "deepspeed")
        deepspeed_ops(step, deepspeed)
    if not deep:
        return
    if not runner.passed("deepspeed.ops"):
        for name in zero_step_names(job):
            runner.skipped(name, zero_title, "deepspeed.ops did not pass", gpu=gpu)
        return
    for zero in zero_runs(torch, device, job):
        with runner.step(zero.name, zero.title, ZERO_DEADLINE + 10, gpu=gpu) as step:
            zero_step(step, device, zero)
        protocol.release(torch)


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
    for name in ZERO_OFFLOAD_OPS:
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
        step.fail("a ZeRO job with the optimizer offloaded to the CPU cannot load {}".format("; ".join(unusable)))


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


def zero_step(step, device, zero):
    """Runs `zero` in a worker process: deepspeed.initialize sets up
    torch.distributed and DeepSpeed's global state, which the smoke test's own
    process must not keep. The step says which config ran and what was changed."""
    step.figure("config", zero.source)
    if zero.changes:
        step.figure("changes", zero.changes)
    for key, value in deepspeed_config.facts(zero.config).items():
        step.figure(key, value)
    with tempfile.NamedTemporaryFile(
        "w", prefix="deepspeed-config-", suffix=".json", dir=scratch_folder(), delete=False
    ) as written:
        json.dump(zero.config, written)
    try:
        (result,) = protocol.run_workers([["deepspeed_zero", str(device), written.name]], ZERO_DEADLINE)
    finally:
        os.unlink(written.name)
    ran = "{} ({})".format(deepspeed_config.describe(zero.config), zero.source)
    refused = result.get("refused")
    if refused:
        step.figure("refused", True)
        step.fail(
            "DeepSpeed {} refused the config {}: {}: {}".format(
                result.get("version", "?"), ran, refused.get("type"), first_lines(refused.get("message", ""))
            )
        )
    losses = result["losses"]
    step.figure("loss", figure_number(losses[-1], 6) if losses else None)
    for key in (
        "version",
        "optimizer",
        "partitioned_parameters",
        "master_weights",
        "master_weights_device",
        "optimizer_steps",
        "skipped_steps",
        "gradient_norm",
        "initialize_s",
        "step_s",
    ):
        step.figure(key, result.get(key))
    if result["misplaced"]:
        step.fail("{} left tensors where it should not: {}".format(ran, listing(result["misplaced"])))
    if not all(math.isfinite(loss) for loss in losses):
        step.fail("{}: the loss is {}".format(ran, ", ".join(str(loss) for loss in losses)))
    skipped = result["skipped_steps"]
    if skipped >= result["optimizer_steps"]:
        step.fail(
            "{}: every one of the {} optimizer steps overflowed and was skipped by the fp16 loss scaler".format(
                ran, result["optimizer_steps"]
            )
        )
    if result["changed"] is False:
        step.fail(
            "{}: {} optimizer steps left the {} unchanged".format(ran, result["optimizer_steps"], result["master_weights"])
        )
    changes = "; changed from the job's config: {}".format("; ".join(zero.changes)) if zero.changes else ""
    updated = "weights updated" if result["changed"] else "weights not compared (optimizer state swapped to NVMe)"
    norm, clipping = result.get("gradient_norm"), zero.config.get("gradient_clipping")
    if isinstance(norm, (int, float)) and isinstance(clipping, (int, float)) and norm > clipping:
        clipped = "clipping (last gradient norm {} > gradient_clipping {})".format(format_norm(norm), clipping)
    else:
        clipped = "gradient_clipping {} (DeepSpeed reported gradient norm {})".format(clipping, format_norm(norm))
    # A job's first fp16 steps overflow while the loss scale comes down: said, not judged.
    settling = " ({} skipped by the fp16 loss scaler while its scale came down)".format(skipped) if skipped else ""
    step.detail = (
        "{} on {}: {} optimizer steps{} with {} on the {}, {}, "
        "{}, loss {:.4g}; initialize {:.1f} s (including any cpu_adam build), steps {:.2f} s{}".format(
            ran,
            device,
            result["optimizer_steps"],
            settling,
            result["optimizer"],
            "CPU" if "cpu" in (result.get("master_weights_device") or []) else "GPU",
            clipped,
            updated,
            losses[-1],
            result["initialize_s"],
            result["step_s"],
            changes,
        )
    )


def first_lines(text, most=4):
    """A pydantic message names the model first and the reason after: both."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[:most])


def format_norm(norm):
    return "{:.3g}".format(norm) if isinstance(norm, (int, float)) else "unknown"


def deepspeed_zero_rank(device_name, config_path):
    """The worker of the ZeRO steps (workers.KINDS["deepspeed_zero"]): a
    one-rank job, as a launcher would start it."""
    import torch

    with open(config_path) as opened:
        config = json.load(opened)
    device = torch.device(device_name)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    os.environ.update(
        RANK="0",
        WORLD_SIZE="1",
        LOCAL_RANK=str(device.index or 0),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),
        # What DeepSpeed's own launcher sets (launcher/launch.py); its CPU
        # accelerator otherwise asks `numactl --hardware` for it.
        LOCAL_SIZE="1",
    )
    if not os.environ.get("TORCH_EXTENSIONS_DIR"):
        # envdoctor names one inside the folder it removes; run alone (the
        # tests), the worker makes its own. Either way cpu_adam is built from
        # scratch, as a new job's would be.
        with tempfile.TemporaryDirectory(prefix="envdoctor-torch-extensions-") as extensions:
            os.environ["TORCH_EXTENSIONS_DIR"] = extensions
            return zero_training(torch, device, config)
    return zero_training(torch, device, config)


def free_port():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def refusal(config):
    """What DeepSpeed says of the config before any training: its own parser
    (deepspeed.runtime.config.DeepSpeedConfig, which deepspeed.initialize runs
    first) raising is the config refused, not the node broken."""
    try:
        from deepspeed.runtime.config import DeepSpeedConfig
    except ImportError:
        return None
    try:
        DeepSpeedConfig(config)
    except Exception as exception:
        return protocol.error_of(exception)
    return None


def zero_training(torch, device, config):
    import deepspeed

    version = getattr(deepspeed, "__version__", "?")
    deepspeed.init_distributed()
    try:
        refused = refusal(config)
        if refused:
            return {"version": version, "refused": refused}
        model = tiny_model(torch, torch.nn.Linear)
        started = time.perf_counter()
        engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
        initialize_s = time.perf_counter() - started
        which, masters = master_weights(engine, optimizer)
        before = [master.detach().clone() for master in masters]
        dtype = torch.float32
        if engine.bfloat16_enabled():
            dtype = torch.bfloat16
        elif engine.fp16_enabled():
            dtype = torch.float16
        generator = torch.Generator().manual_seed(0)
        micro_batch = engine.train_micro_batch_size_per_gpu()
        accumulation = engine.gradient_accumulation_steps()
        losses, misplaced = [], []
        most_steps = deepspeed_config.OPTIMIZER_STEPS + deepspeed_config.most_skipped_steps(config)
        started = time.perf_counter()
        while len(losses) < most_steps and len(losses) - skipped_steps(engine) < deepspeed_config.OPTIMIZER_STEPS:
            for _ in range(accumulation):
                inputs = torch.randn(micro_batch, deepspeed_config.HIDDEN_SIZE, generator=generator)
                output = engine(inputs.to(engine.device, dtype))
                if output.device != device and "output on {}".format(output.device) not in misplaced:
                    misplaced.append("output on {}".format(output.device))
                loss = output.float().pow(2).mean()
                engine.backward(loss)
                engine.step()
            losses.append(loss.item())
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        step_s = time.perf_counter() - started
        misplaced += zero_misplaced(engine, optimizer, device, config)
        changed = None
        if deepspeed_config.offload_device(config, "offload_optimizer") != "nvme":
            # Swapped out to NVMe between steps, the masters in memory are
            # placeholders: nothing to compare there.
            changed = any(not torch.equal(old, master.detach()) for old, master in zip(before, masters))
        return {
            "version": version,
            "losses": losses,
            "optimizer": type(getattr(optimizer, "optimizer", optimizer)).__name__,
            "partitioned_parameters": sum(1 for p in engine.module.parameters() if hasattr(p, "ds_tensor")),
            "master_weights": which,
            "master_weights_device": sorted(set(str(master.device) for master in masters)),
            "misplaced": misplaced,
            "changed": changed,
            "optimizer_steps": len(losses),
            "skipped_steps": skipped_steps(engine),
            "gradient_norm": norm_value(engine.get_global_grad_norm()),
            "initialize_s": round(initialize_s, 2),
            "step_s": round(step_s, 3),
        }
    finally:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


def skipped_steps(engine):
    """The optimizer steps DeepSpeed skipped on an fp16 overflow so far."""
    return int(getattr(engine, "skipped_steps", 0) or 0)


def master_weights(engine, optimizer):
    """The fp32 weights the optimizer updates, as (what they are, tensors). A
    low-precision copy can round a small update away; these cannot. ZeRO-3
    keeps them in fp32_partitioned_groups_flat, ZeRO-1/2 in
    single_partition_of_fp32_groups, the bf16 and fp16 optimizers without ZeRO
    in fp32_groups_flat_partition and fp32_groups_flat; in fp32 without ZeRO
    they are the parameters themselves."""
    for attribute in (
        "fp32_partitioned_groups_flat",
        "single_partition_of_fp32_groups",
        "fp32_groups_flat_partition",
        "fp32_groups_flat",
    ):
        tensors = [tensor for tensor in (getattr(optimizer, attribute, None) or []) if tensor is not None]
        if tensors:
            return "fp32 master weights ({})".format(attribute), tensors
    return "parameters", [parameter for parameter in engine.module.parameters()]


def norm_value(norm):
    try:
        return figure_number(float(norm), 4) if norm is not None else None
    except (TypeError, ValueError, RuntimeError):
        return None


def zero_misplaced(engine, optimizer, device, config):
    """Where a ZeRO job with the optimizer offloaded leaves things: the fp32
    master weights the optimizer updates are on the CPU; under ZeRO-3 each
    parameter is an empty placeholder on the device with its partition
    (`ds_tensor`) beside it, on the CPU when parameters are offloaded too."""
    offload_optimizer = deepspeed_config.offload_device(config, "offload_optimizer")
    offload_param = deepspeed_config.offload_device(config, "offload_param")
    misplaced = []
    stage = engine.zero_optimization_stage()
    if stage == 3:
        partition_device = "cpu" if offload_param == "cpu" else device.type
        for name, parameter in engine.module.named_parameters():
            partition = getattr(parameter, "ds_tensor", None)
            if partition is None:
                misplaced.append("{} not partitioned by ZeRO-3".format(name))
            elif offload_param in (None, "none", "cpu") and partition.device.type != partition_device:
                misplaced.append("{} partition on {} instead of {}".format(name, partition.device, partition_device))
    if offload_optimizer == "cpu":
        for index, master in enumerate(getattr(optimizer, "fp32_partitioned_groups_flat", None) or []):
            if master.device.type != "cpu":
                misplaced.append("fp32 master weights of group {} on {} instead of the CPU".format(index, master.device))
    return misplaced
