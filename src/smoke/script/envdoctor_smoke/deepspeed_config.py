"""The DeepSpeed configs the ZeRO steps run: the built-in ones, or the job's own
with only the model, batch and data made tiny. Pure Python, so the tests check
it without torch or DeepSpeed.

Every change made to a job's config is listed in words: the step's detail says
exactly what ran, so a pass or a failure can be held against the real job."""

import copy
import json
import math

# The tiny model's width (library_steps.tiny_model: 64 -> 128 -> 64), which the
# HF Trainer would use for the model-dependent "auto" values.
HIDDEN_SIZE = 64
MICRO_BATCH = 4
# Optimizer steps each ZeRO step must see update the weights: the first one can
# differ from the rest (lazy optimizer state, the scheduler's warm-up). Steps the
# fp16 loss scaler skips come on top (most_skipped_steps).
OPTIMIZER_STEPS = 3
# Far below any gradient norm, so that every step clips. DeepSpeed 0.14.1-0.14.2
# reach their broken line only when the norm exceeds `gradient_clipping`, which a
# real job with max_grad_norm=1.0 does early and a tiny model never does.
FORCED_CLIPPING = 1e-6
# More micro-batches than this per optimizer step would make the step slow for
# nothing: the accumulation path is the same after a few.
MOST_ACCUMULATION = 64

# What the HF Trainer fills an "auto" with, from its TrainingArguments defaults
# (transformers/integrations/deepspeed.py, HfTrainerDeepSpeedConfig.trainer_config_process
# and trainer_config_finalize; transformers/training_args.py).
TRAINER_LEARNING_RATE = 5e-5
TRAINER_OPTIMIZER_AUTO = {
    "lr": TRAINER_LEARNING_RATE,
    "betas": [0.9, 0.999],
    "eps": 1e-8,
    "weight_decay": 0.0,
}
TRAINER_ZERO_AUTO = {
    "reduce_bucket_size": HIDDEN_SIZE * HIDDEN_SIZE,
    "stage3_prefetch_bucket_size": int(0.9 * HIDDEN_SIZE * HIDDEN_SIZE),
    "stage3_param_persistence_threshold": 10 * HIDDEN_SIZE,
}

# Blocks that write or send outside the test (monitors, profilers, checkpoints):
# the test must leave nothing behind and reach no network.
OUTSIDE_BLOCKS = ("tensorboard", "wandb", "csv_monitor", "comet", "flops_profiler", "comms_logger", "checkpoint")


def built_in(stage, offload_param, bf16):
    """The configs of the default ZeRO steps: what real offload jobs run, with
    clipping forced and a tiny batch."""
    precision = {"bf16": {"enabled": True}} if bf16 else {"fp16": {"enabled": True}}
    zero = {
        "stage": stage,
        "offload_optimizer": {"device": "cpu", "pin_memory": True},
    }
    if offload_param:
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    if stage == 3:
        zero.update(
            stage3_param_persistence_threshold=TRAINER_ZERO_AUTO["stage3_param_persistence_threshold"],
        )
    config = {
        "train_micro_batch_size_per_gpu": MICRO_BATCH,
        "gradient_accumulation_steps": 1,
        "gradient_clipping": FORCED_CLIPPING,
        "steps_per_print": 1000,
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}},
        "zero_optimization": zero,
    }
    config.update(precision)
    return config


def is_auto(value):
    return isinstance(value, str) and value.strip().lower() == "auto"


def number_text(value):
    return json.dumps(value)


class Preparation:
    """A job's config turned into the config the step runs, with each change said."""

    def __init__(self, job):
        if not isinstance(job, dict):
            raise ValueError("a DeepSpeed config must be a JSON object, not {}".format(type(job).__name__))
        self.config = copy.deepcopy(job)
        self.changes = []

    def change(self, text):
        self.changes.append(text)

    def run(self, scratch):
        self.batch()
        self.clipping()
        self.precision()
        self.optimizer()
        self.scheduler()
        self.zero(scratch)
        self.outside()
        self.leftover_auto(self.config, "")
        self.config["steps_per_print"] = 1000
        return self.config

    def batch(self):
        config = self.config
        accumulation = config.get("gradient_accumulation_steps", 1)
        if is_auto(accumulation):
            accumulation = 1
            self.change("gradient_accumulation_steps auto -> 1 (the HF Trainer's default)")
        if not isinstance(accumulation, int) or isinstance(accumulation, bool) or accumulation < 1:
            # DeepSpeed itself judges a value like this; it is passed on as it is.
            return
        if accumulation > MOST_ACCUMULATION:
            self.change("gradient_accumulation_steps {} -> {}".format(accumulation, MOST_ACCUMULATION))
            accumulation = MOST_ACCUMULATION
        was = {key: config.get(key) for key in ("train_micro_batch_size_per_gpu", "train_batch_size")}
        config["gradient_accumulation_steps"] = accumulation
        config["train_micro_batch_size_per_gpu"] = MICRO_BATCH
        config["train_batch_size"] = MICRO_BATCH * accumulation
        said = ", ".join("{} {}".format(key, number_text(value)) for key, value in was.items() if value is not None)
        self.change(
            "batch made tiny: train_micro_batch_size_per_gpu {}, train_batch_size {} on one GPU{}".format(
                MICRO_BATCH, MICRO_BATCH * accumulation, " (was {})".format(said) if said else ""
            )
        )

    def clipping(self):
        was = self.config.get("gradient_clipping")
        if is_auto(was):
            # The HF Trainer passes max_grad_norm, 1.0 unless the job says otherwise.
            was_text = "auto (max_grad_norm, 1.0 by default)"
        elif was in (None, 0, 0.0):
            was_text = "{} (the job does not clip; clipping is forced on to reach that code)".format(
                "absent" if was is None else number_text(was)
            )
        else:
            was_text = number_text(was)
        self.config["gradient_clipping"] = FORCED_CLIPPING
        self.change("gradient_clipping {} -> {} so that every step clips".format(was_text, FORCED_CLIPPING))

    def precision(self):
        for key in ("fp16", "bf16", "bfloat16"):
            block = self.config.get(key)
            if isinstance(block, dict) and is_auto(block.get("enabled")):
                # TrainingArguments.fp16 and .bf16 are False unless the job passes --fp16/--bf16.
                block["enabled"] = False
                self.change("{}.enabled auto -> false (the HF Trainer's default; the job's --{} would make it true)".format(
                    key, "fp16" if key == "fp16" else "bf16"
                ))

    def optimizer(self):
        block = self.config.get("optimizer")
        if block is None:
            self.config["optimizer"] = {"type": "AdamW", "params": dict(TRAINER_OPTIMIZER_AUTO)}
            self.change("no optimizer in the config (the job builds its own): DeepSpeed's AdamW with the HF Trainer's defaults")
            return
        params = block.get("params") if isinstance(block, dict) else None
        if isinstance(params, dict):
            for key, value in list(params.items()):
                if is_auto(value) and key in TRAINER_OPTIMIZER_AUTO:
                    params[key] = TRAINER_OPTIMIZER_AUTO[key]
                    self.change("optimizer.params.{} auto -> {}".format(key, number_text(params[key])))

    def scheduler(self):
        block = self.config.get("scheduler")
        params = block.get("params") if isinstance(block, dict) else None
        if not isinstance(params, dict):
            return
        lr = ((self.config.get("optimizer") or {}).get("params") or {}).get("lr", TRAINER_LEARNING_RATE)
        # trainer_config_finalize: warmup_num_steps is max(1, the job's warmup
        # steps, 0 by default), since DeepSpeed 0.19.6 refuses 0.
        fills = {
            "warmup_min_lr": 0,
            "warmup_max_lr": lr,
            "warmup_num_steps": 1,
            "total_num_steps": OPTIMIZER_STEPS,
        }
        for key, value in list(params.items()):
            if is_auto(value) and key in fills:
                params[key] = fills[key]
                self.change("scheduler.params.{} auto -> {}".format(key, number_text(params[key])))

    def zero(self, scratch):
        zero = self.config.get("zero_optimization")
        if not isinstance(zero, dict):
            return
        for key, value in list(zero.items()):
            if is_auto(value) and key in TRAINER_ZERO_AUTO:
                zero[key] = TRAINER_ZERO_AUTO[key]
                self.change(
                    "zero_optimization.{} auto -> {} (from the tiny model's hidden size {})".format(
                        key, zero[key], HIDDEN_SIZE
                    )
                )
        for block_name in ("offload_optimizer", "offload_param"):
            block = zero.get(block_name)
            if isinstance(block, dict) and block.get("nvme_path"):
                # The test writes only inside its own temporary folder.
                block["nvme_path"] = scratch
                self.change("zero_optimization.{}.nvme_path -> a temporary folder".format(block_name))

    def outside(self):
        for key in OUTSIDE_BLOCKS:
            if key in self.config:
                del self.config[key]
                self.change("{} block removed (it writes outside the test)".format(key))

    def leftover_auto(self, value, where):
        """An "auto" nothing above fills is a key only the HF Trainer knows how
        to fill for this job; DeepSpeed itself would refuse it. It is dropped, so
        DeepSpeed's default stands, and the change says so."""
        if isinstance(value, dict):
            for key in list(value):
                path = key if not where else where + "." + key
                if is_auto(value[key]):
                    del value[key]
                    self.change("{} auto left to DeepSpeed's default".format(path))
                else:
                    self.leftover_auto(value[key], path)


def prepare(job, scratch):
    """(the config to run, the changes made to the job's config, in words)."""
    preparation = Preparation(job)
    config = preparation.run(scratch)
    return config, preparation.changes


def zero_block(config):
    """The `zero_optimization` block, empty when absent or not an object."""
    zero = config.get("zero_optimization")
    return zero if isinstance(zero, dict) else {}


def describe(config):
    """`ZeRO-3, optimizer offloaded to cpu, parameters offloaded to cpu, bf16`."""
    parts = ["ZeRO-{}".format(zero_block(config).get("stage", 0))]
    for block, what in (("offload_optimizer", "optimizer"), ("offload_param", "parameters")):
        device = offload_device(config, block)
        if device not in (None, "none"):
            parts.append("{} offloaded to {}".format(what, device))
    precision = precision_of(config)
    parts.append(precision)
    return ", ".join(parts)


def offload_device(config, block):
    offload = zero_block(config).get(block)
    if isinstance(offload, dict):
        device = offload.get("device")
        return str(device).lower() if device is not None else "none"
    return None


def enabled(config, *keys):
    for key in keys:
        block = config.get(key)
        if isinstance(block, dict):
            return block.get("enabled") is True
    return False


def precision_of(config):
    if enabled(config, "bf16", "bfloat16"):
        return "bf16"
    if enabled(config, "fp16"):
        return "fp16 with loss scaling"
    return "fp32"


def most_skipped_steps(config):
    """How many overflowing steps DeepSpeed's dynamic fp16 loss scaler can skip
    before its scale reaches its floor (fp16/loss_scaler.py: the scale starts at
    2**initial_scale_power and is halved at an overflow once `hysteresis` of them
    have come). A real fp16 job skips its first steps while the scale comes
    down: on an H200 (2026-12-04) the built-in run, whose fp16 block names no
    scale setting, started at 2**32 and skipped 11. The test keeps stepping as
    the job would, and judges only a run that never settles. 0 without a
    dynamic scaler (bf16, fp32, a static loss_scale)."""
    fp16 = config.get("fp16")
    if not isinstance(fp16, dict) or fp16.get("enabled") is not True or fp16.get("loss_scale", 0) != 0:
        return 0
    if any(key in fp16 for key in SCALE_SETTINGS):
        power = whole_number(fp16.get("initial_scale_power"), CONFIG_INITIAL_SCALE_POWER)
        hysteresis = whole_number(fp16.get("hysteresis"), CONFIG_HYSTERESIS)
    else:
        power, hysteresis = SCALER_INITIAL_SCALE_POWER, SCALER_HYSTERESIS
    floor = fp16.get("min_loss_scale", 1)
    floor_power = math.log2(floor) if isinstance(floor, (int, float)) and floor >= 1 else 0
    halvings = max(0, math.ceil(power - floor_power))
    return min(halvings + hysteresis, MOST_SKIPPED_STEPS)


# DeepSpeed's fp16 defaults, two sets (0.14's runtime/config.py,
# get_dynamic_loss_scale_args): those of runtime/constants.py apply only when the
# fp16 block names one of SCALE_SETTINGS; otherwise the DynamicLossScaler's own
# (runtime/fp16/loss_scaler.py: init_scale 2**32, delayed_shift 1).
SCALE_SETTINGS = ("initial_scale_power", "loss_scale_window", "min_loss_scale", "hysteresis", "consecutive_hysteresis")
CONFIG_INITIAL_SCALE_POWER = 16
CONFIG_HYSTERESIS = 2
SCALER_INITIAL_SCALE_POWER = 32
SCALER_HYSTERESIS = 1
# A config asking for a scale of 2**60 would otherwise keep a test stepping for minutes.
MOST_SKIPPED_STEPS = 48


def whole_number(value, default):
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def facts(config):
    """The figures a finding is judged by: what this step ran."""
    return {
        "zero_stage": zero_block(config).get("stage", 0),
        "offload_optimizer_device": offload_device(config, "offload_optimizer") or "none",
        "offload_param_device": offload_device(config, "offload_param") or "none",
        "precision": precision_of(config),
        "gradient_clipping": config.get("gradient_clipping"),
    }
