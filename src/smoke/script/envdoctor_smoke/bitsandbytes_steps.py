"""bitsandbytes: an NF4 layer against its own dequantized weights and an
LLM.int8 layer against fp16, on cuda:0 (on the CPU in the tests)."""

import math

from . import protocol
from .library_steps import IMPORT_DEADLINE, LIBRARY_STEP_DEADLINE, figure_number, import_timed

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


def run(runner, torch, device, gpu, problem):
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
    protocol.release(torch)
    if bnb is None:
        reason = "bitsandbytes did not import (see bitsandbytes.nf4)"
        runner.skipped("bitsandbytes.int8", titles["bitsandbytes.int8"], reason, gpu=gpu)
        return None
    with runner.step("bitsandbytes.int8", titles["bitsandbytes.int8"], LIBRARY_STEP_DEADLINE, gpu=gpu) as step:
        error = int8_layer(step, torch, bnb, device)
        step.detail = "LLM.int8 layer on {} within {:.2g} of fp16 (tolerance {:g})".format(
            device, error, INT8_TOLERANCE
        )
    protocol.release(torch)
    return bnb


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
