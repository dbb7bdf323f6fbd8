"""PEFT: one LoRA training step, and one QLoRA step (LoRA on bitsandbytes
4-bit layers), on a tiny model built here, on cuda:0 (on the CPU in the tests)."""

import math

from . import protocol
from .library_steps import IMPORT_DEADLINE, LIBRARY_STEP_DEADLINE, figure_number, import_timed, listing, tiny_model

LORA_TARGETS = ["up", "down"]


def run(runner, torch, device, gpu, problem, have_bitsandbytes, bnb):
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
    protocol.release(torch)
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
    protocol.release(torch)


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

