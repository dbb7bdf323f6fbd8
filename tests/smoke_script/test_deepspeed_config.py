"""Tests of how the ZeRO step turns a job's DeepSpeed config into the one it runs
(src/smoke/script/envdoctor_smoke/deepspeed_config.py): pure Python, no torch."""

import json
import os
import sys
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "smoke", "script")
sys.path.insert(0, os.path.abspath(SCRIPT))

from envdoctor_smoke import deepspeed_config  # noqa: E402

# An HF Trainer ZeRO-3 offload config with every value the Trainer fills left "auto",
# as the transformers DeepSpeed documentation gives it.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "configs",
                       "ds-trainer-zero3-offload-all-auto.json")) as opened:
    TRAINER_ZERO3 = json.load(opened)


def autos(value):
    if isinstance(value, dict):
        return sum(autos(item) for item in value.values())
    return 1 if deepspeed_config.is_auto(value) else 0


class Prepare(unittest.TestCase):
    def test_the_trainer_s_autos_are_filled_and_no_auto_is_left(self):
        config, changes = deepspeed_config.prepare(TRAINER_ZERO3, "/scratch")
        self.assertEqual(autos(config), 0, config)
        self.assertEqual(config["optimizer"]["params"]["lr"], 5e-5)
        self.assertEqual(config["optimizer"]["params"]["betas"], [0.9, 0.999])
        self.assertEqual(config["scheduler"]["params"]["warmup_max_lr"], 5e-5)
        # max(1, warmup steps) as the Trainer fills it: DeepSpeed 0.19.6 and later refuse 0.
        self.assertEqual(config["scheduler"]["params"]["warmup_num_steps"], 1)
        zero = config["zero_optimization"]
        self.assertEqual(zero["reduce_bucket_size"], 64 * 64)
        self.assertEqual(zero["stage3_param_persistence_threshold"], 640)
        self.assertEqual(config["fp16"]["enabled"], False)
        self.assertEqual(config["bf16"]["enabled"], False)
        # The job's ZeRO settings are carried as they are.
        self.assertEqual(zero["stage"], 3)
        self.assertEqual(zero["offload_optimizer"], {"device": "cpu", "pin_memory": True})
        self.assertEqual(zero["offload_param"], {"device": "cpu", "pin_memory": True})
        self.assertTrue(zero["overlap_comm"])
        self.assertTrue(any("gradient_clipping auto (max_grad_norm, 1.0 by default)" in change for change in changes), changes)
        # The job's own config is not touched.
        self.assertEqual(TRAINER_ZERO3["gradient_clipping"], "auto")

    def test_clipping_is_forced_low_and_the_batch_made_tiny(self):
        job = {"train_batch_size": 256, "train_micro_batch_size_per_gpu": 32, "gradient_accumulation_steps": 8,
               "gradient_clipping": 1.0, "zero_optimization": {"stage": 2}}
        config, changes = deepspeed_config.prepare(job, "/scratch")
        self.assertEqual(config["gradient_clipping"], deepspeed_config.FORCED_CLIPPING)
        self.assertEqual(config["train_micro_batch_size_per_gpu"], deepspeed_config.MICRO_BATCH)
        self.assertEqual(config["gradient_accumulation_steps"], 8)
        self.assertEqual(config["train_batch_size"], deepspeed_config.MICRO_BATCH * 8)
        self.assertIn("gradient_clipping 1.0 -> 1e-06 so that every step clips", changes)
        self.assertTrue(any("was train_micro_batch_size_per_gpu 32, train_batch_size 256" in change for change in changes))

    def test_a_job_that_does_not_clip_is_told_so(self):
        _, changes = deepspeed_config.prepare({"gradient_clipping": 0}, "/scratch")
        self.assertTrue(any("the job does not clip" in change for change in changes), changes)

    def test_no_optimizer_gets_adamw_with_the_trainer_s_defaults(self):
        config, changes = deepspeed_config.prepare({"zero_optimization": {"stage": 3}}, "/scratch")
        self.assertEqual(config["optimizer"]["type"], "AdamW")
        self.assertEqual(config["optimizer"]["params"]["lr"], 5e-5)
        self.assertTrue(any("no optimizer in the config" in change for change in changes))

    def test_nothing_is_written_outside_the_test(self):
        job = {
            "tensorboard": {"enabled": True, "output_path": "/shared/logs"},
            "wandb": {"enabled": True},
            "zero_optimization": {"stage": 3, "offload_param": {"device": "nvme", "nvme_path": "/local_nvme"}},
        }
        config, changes = deepspeed_config.prepare(job, "/scratch")
        self.assertNotIn("tensorboard", config)
        self.assertNotIn("wandb", config)
        self.assertEqual(config["zero_optimization"]["offload_param"]["nvme_path"], "/scratch")
        self.assertTrue(any("nvme_path" in change for change in changes))

    def test_an_auto_only_the_trainer_knows_is_left_to_deepspeed(self):
        config, changes = deepspeed_config.prepare({"zero_optimization": {"stage": 3, "sub_group_size": "auto"}}, "/s")
        self.assertNotIn("sub_group_size", config["zero_optimization"])
        self.assertIn("zero_optimization.sub_group_size auto left to DeepSpeed's default", changes)

    def test_a_value_deepspeed_must_judge_is_passed_on(self):
        # A stage DeepSpeed does not have: it is DeepSpeed's to refuse, with its own words.
        config, _ = deepspeed_config.prepare({"zero_optimization": {"stage": 4}, "gradient_accumulation_steps": -1}, "/s")
        self.assertEqual(config["zero_optimization"]["stage"], 4)
        self.assertEqual(config["gradient_accumulation_steps"], -1)

    def test_not_an_object_is_refused(self):
        with self.assertRaises(ValueError):
            deepspeed_config.prepare([1, 2], "/s")


class Describe(unittest.TestCase):
    def test_the_built_in_runs(self):
        zero3 = deepspeed_config.built_in(3, offload_param=True, bf16=True)
        self.assertEqual(
            deepspeed_config.describe(zero3), "ZeRO-3, optimizer offloaded to cpu, parameters offloaded to cpu, bf16"
        )
        zero2 = deepspeed_config.built_in(2, offload_param=False, bf16=False)
        self.assertEqual(deepspeed_config.describe(zero2), "ZeRO-2, optimizer offloaded to cpu, fp16 with loss scaling")
        self.assertEqual(zero3["gradient_clipping"], deepspeed_config.FORCED_CLIPPING)
        self.assertEqual(
            deepspeed_config.facts(zero2),
            {
                "zero_stage": 2,
                "offload_optimizer_device": "cpu",
                "offload_param_device": "none",
                "precision": "fp16 with loss scaling",
                "gradient_clipping": deepspeed_config.FORCED_CLIPPING,
            },
        )


class LossScaleWarmUp(unittest.TestCase):
    """How many skipped fp16 steps the ZeRO step waits through before it judges."""

    def test_deepspeed_s_defaults_allow_the_scale_to_come_down_to_one(self):
        # No scale setting named: the scaler's own 2**32, halved at every overflow
        # (the H200 run of 2026-12-04 skipped 11 steps from 2**32 to 2**22).
        zero2 = deepspeed_config.built_in(2, offload_param=False, bf16=False)
        self.assertEqual(deepspeed_config.most_skipped_steps(zero2), 32 + 1)
        # One named: the config's defaults, 2**16 with a hysteresis of 2.
        window = {"fp16": {"enabled": True, "loss_scale_window": 100}}
        self.assertEqual(deepspeed_config.most_skipped_steps(window), 16 + 2)

    def test_the_job_s_own_scale_settings_are_read(self):
        fp16 = {"enabled": True, "initial_scale_power": 12, "hysteresis": 1, "min_loss_scale": 16}
        self.assertEqual(deepspeed_config.most_skipped_steps({"fp16": fp16}), 8 + 1)

    def test_no_dynamic_scaler_means_no_step_may_be_skipped(self):
        for config in (
            deepspeed_config.built_in(3, offload_param=True, bf16=True),
            {"fp16": {"enabled": True, "loss_scale": 128}},
            {"fp16": {"enabled": False}},
            {"fp16": {"enabled": "auto"}},
            {},
        ):
            self.assertEqual(deepspeed_config.most_skipped_steps(config), 0, config)

    def test_a_huge_initial_scale_is_bounded_and_nonsense_reads_as_the_default(self):
        self.assertEqual(deepspeed_config.most_skipped_steps({"fp16": {"enabled": True, "initial_scale_power": 200}}), 48)
        odd = {"fp16": {"enabled": True, "initial_scale_power": "16", "hysteresis": -3, "min_loss_scale": "x"}}
        self.assertEqual(deepspeed_config.most_skipped_steps(odd), 16 + 2)


if __name__ == "__main__":
    unittest.main()
