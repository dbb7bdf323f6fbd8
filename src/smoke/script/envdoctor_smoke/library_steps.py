"""Placeholder: bitsandbytes, PEFT and DeepSpeed stages."""


def run(runner, torch, gpus, deep):
    pass
