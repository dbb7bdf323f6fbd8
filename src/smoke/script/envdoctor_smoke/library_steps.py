"""The library stages: bitsandbytes' 4-bit and 8-bit layers, PEFT's LoRA and
QLoRA in miniature, DeepSpeed's ops and (with --deep) one ZeRO-3 step with the
optimizer offloaded to the CPU.

A library the environment does not have gets no step at all: not having it is
not a finding. Each stage's work is a function of `torch` and the device, so the
same code runs on the CPU in the tests; on the node it runs on cuda:0."""

import importlib
import importlib.util
import inspect
import math
import os
import socket
import tempfile
import time

from . import protocol

# Seconds each step may take before envdoctor kills the test. Generous: they
# bound a hang. Importing bitsandbytes, PEFT (which imports transformers) or
# DeepSpeed can take tens of seconds on a cold network file system.
IMPORT_DEADLINE = 120
LIBRARY_STEP_DEADLINE = 60
# The ZeRO-3 step may have to JIT-build DeepSpeed's cpu_adam op (a C++ build).
ZERO3_DEADLINE = 300

# The NF4 layer is compared with a product of the very weights it dequantizes,
# in fp16, so the 4-bit quantization error is not part of the difference: what
# is left is fp16 rounding of products and sums taken in another order, a few
# units of fp16's 2**-11 relative to the largest output. A kernel reading the
# wrong code table, the wrong block's scale or stale memory is off by order 1.
NF4_TOLERANCE = 1e-2
# LLM.int8 quantizes each weight row and each input row to 8 bits by its
# absolute maximum (a step of max/127), so the product differs from fp16 by
# about 1 % of the largest output for Gaussian inputs of this size (0.7-1.1 %
# simulated over several seeds); 5 % leaves room and still catches a broken
# kernel, whose error is of order 1.
INT8_TOLERANCE = 5e-2

# The ops a ZeRO-3 job with `offload_optimizer: {"device": "cpu"}` loads.
ZERO3_OFFLOAD_OPS = ("cpu_adam",)

LORA_TARGETS = ["up", "down"]


def installed(name):
    """Whether `import name` would find the library, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def run(runner, torch, gpus, deep):
    have_bitsandbytes = installed("bitsandbytes")
    gpu = gpus[0] if gpus else None
    problem = why_not_on_a_gpu(runner, torch, gpus)
    device = None if problem else torch.device("cuda", gpu)
    bnb = None
    if have_bitsandbytes:
        bnb = bitsandbytes_steps(runner, torch, device, gpu, problem)
    if installed("peft"):
        peft_steps(runner, torch, device, gpu, problem, have_bitsandbytes, bnb)
    if installed("deepspeed"):
        deepspeed_steps(runner, device, gpu, problem, deep)


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


def release(torch):
    try:
        torch.cuda.empty_cache()
    except Exception:  # a CUDA error: the step that caused it has reported it
        pass


def relative_error(output, reference):
    """The largest difference relative to the largest entry of the reference."""
    output, reference = output.detach().float().cpu(), reference.detach().float().cpu()
    return ((output - reference).abs().max() / reference.abs().max()).item()


def check_output(step, output, device, dtype, shape):
    if output.device != device or output.dtype != dtype or tuple(output.shape) != tuple(shape):
        step.fail(
            "the layer returned {} {} on {}, expected {} {} on {}".format(
                output.dtype, tuple(output.shape), output.device, dtype, tuple(shape), device
            )
        )


# bitsandbytes


def bitsandbytes_steps(runner, torch, device, gpu, problem):
    """Returns the bitsandbytes module when it imported (PEFT's QLoRA stage
    needs it), else None."""
    titles = {
        "bitsandbytes.nf4": "import bitsandbytes; a 4-bit (NF4) layer on cuda:0 against its own dequantized weights",
        "bitsandbytes.int8": "bitsandbytes 8-bit (LLM.int8) layer on cuda:0 against fp16",
    }
    if problem:
        for name, title in titles.items():
            runner.skipped(name, title, problem, gpu=gpu)
        return None
    bnb = None
    with runner.step(
        "bitsandbytes.nf4", titles["bitsandbytes.nf4"], IMPORT_DEADLINE + LIBRARY_STEP_DEADLINE, gpu=gpu
    ) as step:
        bnb = import_timed(step, "bitsandbytes")
        error = nf4_layer(step, torch, bnb, device)
        step.detail = "bitsandbytes {} (imported in {:.2f} s); NF4 on {} within {:.2g} of its own weights".format(
            step.figures["version"], step.figures["import_s"], device, error
        )
    release(torch)
    if bnb is None:
        reason = "bitsandbytes did not import (see bitsandbytes.nf4)"
        runner.skipped("bitsandbytes.int8", titles["bitsandbytes.int8"], reason, gpu=gpu)
        return None
    with runner.step("bitsandbytes.int8", titles["bitsandbytes.int8"], LIBRARY_STEP_DEADLINE, gpu=gpu) as step:
        error = int8_layer(step, torch, bnb, device)
        step.detail = "LLM.int8 layer on {} within {:.2g} of fp16 (tolerance {:g})".format(
            device, error, INT8_TOLERANCE
        )
    release(torch)
    return bnb


def nf4_layer(step, torch, bnb, device):
    torch.manual_seed(0)
    layer = bnb.nn.Linear4bit(256, 128, quant_type="nf4", compute_dtype=torch.float16)
    # Params4bit quantizes when it is moved to a device: this is the kernel
    # that runs when a model is loaded in 4 bits.
    layer = layer.to(device)
    weight = layer.weight
    if getattr(weight, "quant_state", None) is None or weight.dtype == torch.float32:
        step.fail("moving the layer to {} did not quantize it (weight is {})".format(device, weight.dtype))
    # Taken before the forward pass: on some CPUs bitsandbytes repacks the
    # weight in place for its CPU kernel during the first inference.
    dequantized = bnb.functional.dequantize_4bit(weight.data, quant_state=weight.quant_state).to(torch.float16)
    bias = layer.bias.detach().to(device, torch.float16)
    inputs = torch.randn(8, 256, generator=torch.Generator().manual_seed(0)).to(device, torch.float16)
    errors = []
    with torch.no_grad():
        # bitsandbytes picks its kernel by the number of rows (a few take its
        # fused 4-bit kernel, more are dequantized and multiplied), so both.
        for batch in (inputs, inputs[:1]):
            output = layer(batch)
            check_output(step, output, device, torch.float16, (len(batch), 128))
            reference = torch.nn.functional.linear(batch, dequantized, bias)
            errors.append(relative_error(output, reference))
    # max() would pass over a NaN.
    error = float("nan") if any(math.isnan(value) for value in errors) else max(errors)
    step.figure("max_relative_error", figure_number(error, 3))
    if not error <= NF4_TOLERANCE:  # also catches NaN
        step.fail(
            "the NF4 layer's output differs from fp16 with the same dequantized weights "
            "by {:.3g} (more than {:g})".format(error, NF4_TOLERANCE)
        )
    return error


def int8_layer(step, torch, bnb, device):
    torch.manual_seed(0)
    reference = torch.nn.Linear(256, 128).to(torch.float16)
    layer = bnb.nn.Linear8bitLt(256, 128, has_fp16_weights=False, threshold=6.0)
    layer.load_state_dict(reference.state_dict())
    # Int8Params quantizes each row when it is moved to a device.
    layer = layer.to(device)
    reference = reference.to(device)
    if layer.weight.dtype != torch.int8:
        step.fail("moving the layer to {} left its weight in {} instead of int8".format(device, layer.weight.dtype))
    inputs = torch.randn(8, 256, generator=torch.Generator().manual_seed(0))
    # One input column above the 6.0 threshold takes LLM.int8's outlier path
    # (that column in fp16, the rest in int8), as real activations do.
    inputs[:, 7] *= 8.0
    inputs = inputs.to(device, torch.float16)
    with torch.no_grad():
        output = layer(inputs)
        expected = reference(inputs)
    check_output(step, output, device, torch.float16, (8, 128))
    error = relative_error(output, expected)
    step.figure("max_relative_error", figure_number(error, 3))
    if not error <= INT8_TOLERANCE:
        step.fail(
            "the int8 layer's output differs from the fp16 layer by {:.3g} (more than {:g})".format(
                error, INT8_TOLERANCE
            )
        )
    return error


# PEFT


def peft_steps(runner, torch, device, gpu, problem, have_bitsandbytes, bnb):
    titles = {
        "peft.lora": "import peft; a LoRA training step on cuda:0",
        "peft.qlora": "a QLoRA training step (LoRA on bitsandbytes 4-bit layers) on cuda:0",
    }
    if problem:
        runner.skipped("peft.lora", titles["peft.lora"], problem, gpu=gpu)
        if have_bitsandbytes:
            runner.skipped("peft.qlora", titles["peft.qlora"], problem, gpu=gpu)
        return
    peft = None
    with runner.step("peft.lora", titles["peft.lora"], IMPORT_DEADLINE + LIBRARY_STEP_DEADLINE, gpu=gpu) as step:
        peft = import_timed(step, "peft")
        lora_training(step, torch, peft, device)
        figures = step.figures
        step.detail = "peft {} (imported in {:.2f} s); {} LoRA parameters trained on {}, loss {:.4g}".format(
            figures["version"], figures["import_s"], figures["trainable_parameters"], device, figures["loss"]
        )
    release(torch)
    if not have_bitsandbytes:
        return
    reason = None
    if not runner.passed("peft.lora"):
        reason = "peft.lora did not pass"
    elif bnb is None or not runner.passed("bitsandbytes.nf4"):
        reason = "bitsandbytes.nf4 did not pass"
    if reason:
        runner.skipped("peft.qlora", titles["peft.qlora"], reason, gpu=gpu)
        return
    with runner.step("peft.qlora", titles["peft.qlora"], LIBRARY_STEP_DEADLINE, gpu=gpu) as step:
        qlora_training(step, torch, peft, bnb, device)
        step.detail = "{} LoRA parameters on NF4 layers trained on {}, loss {:.4g}".format(
            step.figures["trainable_parameters"], device, step.figures["loss"]
        )
    release(torch)


def tiny_model(torch, linear):
    """Two layers named like a transformer's MLP, built here: nothing to download."""

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = linear(64, 128)
            self.down = linear(128, 64)

        def forward(self, inputs):
            return self.down(torch.relu(self.up(inputs)))

    torch.manual_seed(0)
    return Tiny()


def lora_config(peft):
    return peft.LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=list(LORA_TARGETS))


def lora_training(step, torch, peft, device):
    model = peft.get_peft_model(tiny_model(torch, torch.nn.Linear), lora_config(peft))
    model.to(device)
    train_one_step(step, torch, model, device, torch.float32)


def qlora_training(step, torch, peft, bnb, device):
    def four_bit(inputs, outputs):
        return bnb.nn.Linear4bit(inputs, outputs, quant_type="nf4", compute_dtype=torch.float16)

    base = tiny_model(torch, four_bit)
    # transformers marks a model it loaded in 4 bits so (quantizers/
    # quantizer_bnb_4bit.py); PEFT picks its bitsandbytes LoRA layer by it.
    base.is_loaded_in_4bit = True
    # As from_pretrained(..., quantization_config=4-bit) does: the base weights
    # are quantized on the GPU first, and PEFT then places the adapters beside
    # them itself. No .to() afterwards: that placement is what is checked.
    # peft.prepare_model_for_kbit_training is not called: its own docstring says
    # it works only for transformers models (it casts layer norms, hooks input
    # embeddings, turns on gradient checkpointing); on this model it would only
    # freeze the base weights, which get_peft_model does too.
    base.to(device)
    model = peft.get_peft_model(base, lora_config(peft))
    layer = model.base_model.model.up
    kind = type(layer).__module__ + "." + type(layer).__qualname__
    step.figure("lora_layer", kind)
    if ".bnb" not in type(layer).__module__:
        step.fail(
            "peft wrapped the bitsandbytes 4-bit layer with {}, not its QLoRA layer "
            "(peft does not see 4-bit support in this bitsandbytes)".format(kind)
        )
    train_one_step(step, torch, model, device, torch.float16)


def train_one_step(step, torch, model, device, input_dtype):
    """Forward, backward and one AdamW step; then every tensor must be where the
    job put it. A device mismatch inside torch raises its own error, which the
    step reports as it is."""
    trainable = [(name, parameter) for name, parameter in model.named_parameters() if parameter.requires_grad]
    if not trainable:
        step.fail("LoRA left no trainable parameter")
    step.figure("trainable_parameters", sum(parameter.numel() for _, parameter in trainable))
    before = [parameter.detach().clone() for _, parameter in trainable]
    optimizer = torch.optim.AdamW([parameter for _, parameter in trainable], lr=1e-2)
    inputs = torch.randn(16, 64, generator=torch.Generator().manual_seed(0)).to(device, input_dtype)
    output = model(inputs)
    loss = output.float().pow(2).mean()
    loss.backward()
    optimizer.step()
    step.figure("loss", figure_number(loss.item(), 6))
    misplaced = misplaced_tensors(model, device)
    if output.device != device:
        misplaced.append("output on {}".format(output.device))
    if misplaced:
        step.fail("not on {}: {}".format(device, listing(misplaced)))
    without_gradient = [name for name, parameter in trainable if parameter.grad is None]
    if without_gradient:
        step.fail("no gradient reached {}".format(listing(without_gradient)))
    if not math.isfinite(loss.item()):
        step.fail("the loss is {}".format(loss.item()))
    if all(torch.equal(old, parameter.detach()) for old, (_, parameter) in zip(before, trainable)):
        step.fail("the optimizer step left every LoRA weight unchanged")


def misplaced_tensors(model, device):
    """'name on device' for each parameter, gradient and 4-bit quantization
    state that is not on `device`."""
    misplaced = []
    for name, parameter in model.named_parameters():
        if parameter.device != device:
            misplaced.append("{} on {}".format(name, parameter.device))
        if parameter.grad is not None and parameter.grad.device != device:
            misplaced.append("{}.grad on {}".format(name, parameter.grad.device))
        quant_state = getattr(parameter, "quant_state", None)
        absmax = getattr(quant_state, "absmax", None)
        if absmax is not None and absmax.device != device:
            misplaced.append("{}.quant_state.absmax on {}".format(name, absmax.device))
    return misplaced


def listing(names, most=8):
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else "{} and {} more".format(shown, len(names) - most)


# DeepSpeed


def deepspeed_steps(runner, device, gpu, problem, deep):
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
    step.detail = "ZeRO-3 step on {} with {} on the CPU; loss {:.4g}; initialize {:.1f} s{}, step {:.2f} s".format(
        device,
        result["optimizer"],
        result["loss"],
        result["initialize_s"],
        " (including any cpu_adam build)",
        result["step_s"],
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
