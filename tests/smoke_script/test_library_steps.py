"""Tests of the smoke test's library stages (src/smoke/script/envdoctor_smoke/library_steps.py and
bitsandbytes_steps.py, peft_steps.py, deepspeed_steps.py),
on the CPU: each stage's work runs on the CPU where the library supports it,
and `library_steps.run` is driven without a GPU to check the skip events.

Run from the repository root with the interpreter that has torch and whichever
of peft, bitsandbytes and deepspeed are to be exercised (standard library
unittest; a library that is not installed makes its tests skip):

    python -m unittest discover -s tests/smoke_script -v

DeepSpeed's JIT builds need `ninja` on PATH. The ZeRO-3 test builds DeepSpeed's
CPU ops from scratch (minutes), so it runs only with ENVDOCTOR_SMOKE_SLOW=1.
"""

import importlib
import io
import json
import math
import os
import sys
import unittest
from unittest import mock

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "smoke", "script")
sys.path.insert(0, os.path.abspath(SCRIPT))

from envdoctor_smoke import (  # noqa: E402
    bitsandbytes_steps,
    deepspeed_config,
    deepspeed_steps,
    library_steps,
    peft_steps,
    protocol,
)

ALL_NAMES = [
    "bitsandbytes.nf4",
    "bitsandbytes.int8",
    "peft.lora",
    "peft.qlora",
    "deepspeed.ops",
    "deepspeed.zero3",
    "deepspeed.zero2",
]


def not_json(constant):
    raise ValueError("{} is not JSON: envdoctor could not read this event".format(constant))


def events_of(work):
    channel = io.StringIO()
    work(protocol.Runner(channel))
    return [json.loads(line, parse_constant=not_json) for line in channel.getvalue().splitlines()]


def ends_of(events):
    return [event for event in events if event["event"] == "end"]


def run_as_step(work):
    """Runs `work(step)` as one step and returns its `end` event."""

    def in_a_step(runner):
        with runner.step("test", "test", 60) as step:
            work(step)

    return ends_of(events_of(in_a_step))[0]


def only_installed(*names):
    return mock.patch.object(library_steps, "installed", lambda name: name in names)


def version_tuple(version):
    parts = []
    for part in version.split("+")[0].split("."):
        digits = "".join(c for c in part if c.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def need(testcase, name):
    if not library_steps.installed(name):
        testcase.skipTest("{} is not installed".format(name))
    return importlib.import_module(name)


def need_torch(testcase):
    return need(testcase, "torch")


def need_bitsandbytes_on_cpu(testcase):
    bnb = need(testcase, "bitsandbytes")
    # 0.45.5 cannot quantize on the CPU (an AssertionError in quantize_4bit);
    # 0.46 added the CPU backend (tried: 0.45.5 fails, 0.46.1 to 0.50.2 work).
    if version_tuple(bnb.__version__) < (0, 46):
        testcase.skipTest("bitsandbytes {} has no CPU backend (0.46 or later has)".format(bnb.__version__))
    return bnb


class SkipEvents(unittest.TestCase):
    """Without a usable GPU every installed library's steps are skipped with the
    reason; a library that is not installed has no step at all."""

    def skips(self, torch, gpus, deep, installed_names):
        with only_installed(*installed_names):
            events = events_of(lambda runner: library_steps.run(runner, torch, gpus, deep))
        starts = [event["step"] for event in events if event["event"] == "start"]
        ends = ends_of(events)
        self.assertEqual(starts, [event["step"] for event in ends])
        return ends

    def test_every_step_is_skipped_with_the_reason_when_cuda_is_not_available(self):
        ends = self.skips(object(), [], True, ("bitsandbytes", "peft", "deepspeed"))
        self.assertEqual([event["step"] for event in ends], ALL_NAMES)
        for event in ends:
            self.assertEqual(event["status"], "skip", event)
            self.assertEqual(event["detail"], "CUDA is not available to torch")

    def test_the_reason_is_that_torch_did_not_import(self):
        ends = self.skips(None, [], True, ("bitsandbytes", "peft", "deepspeed"))
        self.assertEqual({event["detail"] for event in ends}, {"torch did not import"})

    def test_the_reason_is_that_the_gpu_could_not_run_a_kernel(self):
        # gpus=[0] but no passed gpu0.kernels step in this runner.
        ends = self.skips(object(), [0], True, ("bitsandbytes", "peft", "deepspeed"))
        self.assertEqual({event["detail"] for event in ends}, {"cuda:0 could not run a kernel"})
        self.assertEqual({event["status"] for event in ends}, {"skip"})

    def test_no_step_for_a_library_that_is_not_installed(self):
        self.assertEqual(self.skips(object(), [], True, ()), [])

    def test_no_qlora_step_without_bitsandbytes(self):
        ends = self.skips(object(), [], True, ("peft",))
        self.assertEqual([event["step"] for event in ends], ["peft.lora"])

    def test_no_zero3_step_without_deep(self):
        ends = self.skips(object(), [], False, ("deepspeed",))
        self.assertEqual([event["step"] for event in ends], ["deepspeed.ops"])

    def test_a_job_config_replaces_the_built_in_zero_runs(self):
        with only_installed("deepspeed"):
            job = ("ds.json", {"zero_optimization": {"stage": 3}})
            events = events_of(lambda runner: library_steps.run(runner, object(), [], True, job))
        self.assertEqual([event["step"] for event in ends_of(events)], ["deepspeed.ops", "deepspeed.job_config"])

    def test_the_libraries_here(self):
        # The real find_spec check, with whatever this interpreter has.
        events = events_of(lambda runner: library_steps.run(runner, object(), [], True))
        expected = []
        if library_steps.installed("bitsandbytes"):
            expected += ["bitsandbytes.nf4", "bitsandbytes.int8"]
        if library_steps.installed("peft"):
            expected += ["peft.lora"] + (["peft.qlora"] if library_steps.installed("bitsandbytes") else [])
        if library_steps.installed("deepspeed"):
            expected += ["deepspeed.ops", "deepspeed.zero3", "deepspeed.zero2"]
        self.assertEqual([event["step"] for event in ends_of(events)], expected)


class BackgroundImports(unittest.TestCase):
    """The libraries are imported on a thread while the GPU steps run; each
    library step takes its own import from there, success or failure."""

    def tearDown(self):
        library_steps.BACKGROUND.clear()

    def test_each_step_takes_its_import_and_a_failure_is_the_step_s(self):
        names = ("json", "envdoctor_no_such_library")

        def work(runner):
            library_steps.import_in_background(runner)
            with runner.step("first", "first", 60) as step:
                self.assertEqual(library_steps.import_timed(step, "json").__name__, "json")
            with runner.step("second", "second", 60) as step:
                library_steps.import_timed(step, "envdoctor_no_such_library")
            library_steps.BACKGROUND[0].thread.join(5)

        with mock.patch.object(library_steps, "LIBRARIES", names), only_installed(*names):
            events = events_of(work)
        background = [event for event in events if event["event"] == "background"]
        self.assertEqual(
            background,
            [
                {"event": "background", "imports": list(names), "state": "start"},
                {"event": "background", "imports": list(names), "state": "end"},
            ],
        )
        first, second = ends_of(events)
        self.assertEqual(first["status"], "pass", first)
        self.assertIn("import_s", first["figures"])
        self.assertIn("import_wait_s", first["figures"])
        # Tried again on the main thread, where it fails as the job's import would.
        self.assertEqual(second["status"], "fail", second)
        self.assertEqual(second["error"]["type"], "ModuleNotFoundError", second)
        self.assertIn("envdoctor_no_such_library", second["error"]["traceback"])

    def test_nothing_is_imported_when_no_library_is_installed(self):
        with only_installed():
            events = events_of(library_steps.import_in_background)
        self.assertEqual(events, [])
        self.assertEqual(library_steps.BACKGROUND, [])


class BitsandbytesOnCpu(unittest.TestCase):
    def setUp(self):
        self.torch = need_torch(self)
        self.bnb = need_bitsandbytes_on_cpu(self)
        self.cpu = self.torch.device("cpu")

    def test_nf4_matches_its_dequantized_weights(self):
        end = run_as_step(lambda step: bitsandbytes_steps.nf4_layer(step, self.torch, self.bnb, self.cpu))
        self.assertEqual(end["status"], "pass", end)
        self.assertLessEqual(end["figures"]["max_relative_error"], bitsandbytes_steps.NF4_TOLERANCE)

    def test_nf4_fails_when_the_kernel_is_wrong(self):
        forward = self.bnb.nn.Linear4bit.forward
        with mock.patch.object(self.bnb.nn.Linear4bit, "forward", lambda layer, x: forward(layer, x) * 1.1):
            end = run_as_step(lambda step: bitsandbytes_steps.nf4_layer(step, self.torch, self.bnb, self.cpu))
        self.assertEqual(end["status"], "fail", end)
        self.assertIn("differs from fp16 with the same dequantized weights", end["detail"])

    def test_nf4_fails_on_nan(self):
        forward = self.bnb.nn.Linear4bit.forward
        with mock.patch.object(self.bnb.nn.Linear4bit, "forward", lambda layer, x: forward(layer, x) * float("nan")):
            end = run_as_step(lambda step: bitsandbytes_steps.nf4_layer(step, self.torch, self.bnb, self.cpu))
        self.assertEqual(end["status"], "fail", end)
        # As text: NaN is not JSON.
        self.assertEqual(end["figures"]["max_relative_error"], "nan")

    def test_int8_is_close_to_fp16(self):
        end = run_as_step(lambda step: bitsandbytes_steps.int8_layer(step, self.torch, self.bnb, self.cpu))
        self.assertEqual(end["status"], "pass", end)
        self.assertLessEqual(end["figures"]["max_relative_error"], bitsandbytes_steps.INT8_TOLERANCE)

    def test_int8_fails_when_the_kernel_is_wrong(self):
        forward = self.bnb.nn.Linear8bitLt.forward
        with mock.patch.object(self.bnb.nn.Linear8bitLt, "forward", lambda layer, x: forward(layer, x) * 1.2):
            end = run_as_step(lambda step: bitsandbytes_steps.int8_layer(step, self.torch, self.bnb, self.cpu))
        self.assertEqual(end["status"], "fail", end)
        self.assertIn("differs from the fp16 layer", end["detail"])


class PeftOnCpu(unittest.TestCase):
    def setUp(self):
        self.torch = need_torch(self)
        self.peft = need(self, "peft")
        self.cpu = self.torch.device("cpu")

    def lora_model(self):
        base = library_steps.tiny_model(self.torch, self.torch.nn.Linear)
        return self.peft.get_peft_model(base, peft_steps.lora_config(self.peft)).to(self.cpu)

    def train(self, model):
        float32 = self.torch.float32
        return run_as_step(lambda step: peft_steps.train_one_step(step, self.torch, model, self.cpu, float32))

    def test_lora_trains_one_step(self):
        end = run_as_step(lambda step: peft_steps.lora_training(step, self.torch, self.peft, self.cpu))
        self.assertEqual(end["status"], "pass", end)
        # r=4 on up (64->128) and down (128->64): A is r x in, B is out x r.
        self.assertEqual(end["figures"]["trainable_parameters"], 4 * (64 + 128) * 2)
        self.assertTrue(math.isfinite(end["figures"]["loss"]))

    def test_misplaced_tensors_are_named(self):
        misplaced = peft_steps.misplaced_tensors(self.lora_model(), self.torch.device("meta"))
        self.assertIn("base_model.model.up.lora_A.default.weight on cpu", misplaced)

    def test_a_parameter_left_elsewhere_fails_the_step_with_its_name(self):
        model = self.lora_model()
        model.base_model.model.stray = self.torch.nn.Parameter(self.torch.zeros(1, device="meta"))
        end = self.train(model)
        self.assertEqual(end["status"], "fail", end)
        self.assertEqual(end["detail"], "not on cpu: base_model.model.stray on meta")

    def test_an_error_from_torch_keeps_its_message(self):
        model = self.lora_model()
        message = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
        with mock.patch.object(type(model), "forward", side_effect=RuntimeError(message)):
            end = self.train(model)
        self.assertEqual(end["status"], "fail", end)
        self.assertEqual(end["error"]["type"], "RuntimeError")
        self.assertEqual(end["error"]["message"], message)

    def test_qlora_trains_one_step(self):
        bnb = need_bitsandbytes_on_cpu(self)
        end = run_as_step(lambda step: peft_steps.qlora_training(step, self.torch, self.peft, bnb, self.cpu))
        self.assertEqual(end["status"], "pass", end)
        self.assertEqual(end["figures"]["lora_layer"], "peft.tuners.lora.bnb.Linear4bit")
        self.assertEqual(end["figures"]["trainable_parameters"], 4 * (64 + 128) * 2)


class DeepSpeedOnCpu(unittest.TestCase):
    def setUp(self):
        self.torch = need_torch(self)
        self.deepspeed = need(self, "deepspeed")

    def ops(self, ninja=True):
        with mock.patch("torch.utils.cpp_extension.is_ninja_available", lambda: ninja):
            return run_as_step(lambda step: deepspeed_steps.deepspeed_ops(step, self.deepspeed))

    def test_ops_are_listed(self):
        end = self.ops()
        figures = end["figures"]
        self.assertEqual(end["status"], "pass", end)
        self.assertIn("cpu_adam", figures["compatible"] + figures["installed"])
        from deepspeed.ops.op_builder.all_ops import ALL_OPS

        self.assertEqual(sorted(figures["compatible"] + figures["incompatible"]), sorted(ALL_OPS))

    def test_cpu_adam_without_ninja_fails_unless_prebuilt(self):
        end = self.ops(ninja=False)
        if "cpu_adam" in end["figures"]["installed"]:
            self.assertEqual(end["status"], "pass", end)
        else:
            self.assertEqual(end["status"], "fail", end)
            self.assertIn("cpu_adam (not prebuilt, and ninja", end["detail"])

    def test_an_incompatible_cpu_adam_fails(self):
        from deepspeed.ops.op_builder.all_ops import ALL_OPS

        with mock.patch.object(ALL_OPS["cpu_adam"], "is_compatible", lambda verbose=False: False):
            with mock.patch.dict(self.deepspeed.git_version_info.installed_ops, {"cpu_adam": False}):
                end = self.ops()
        self.assertEqual(end["status"], "fail", end)
        self.assertIn("cannot load cpu_adam (neither prebuilt nor compatible", end["detail"])
        self.assertIn("cpu_adam", end["figures"]["incompatible"])

    def test_a_check_that_raises_is_incompatible(self):
        builder = mock.Mock()
        builder.is_compatible = lambda verbose=False: 1 / 0
        self.assertEqual(deepspeed_steps.op_is_compatible(builder), (False, "ZeroDivisionError: division by zero"))

    def zero_run(self, job=None):
        """Each ZeRO run in a worker (`python -m envdoctor_smoke worker deepspeed_zero cpu FILE`)."""
        path = os.pathsep.join(filter(None, [os.path.abspath(SCRIPT), os.environ.get("PYTHONPATH")]))
        cpu = self.torch.device("cpu")
        ends = []
        # DeepSpeed JIT-builds its ops with the ninja of this interpreter's environment.
        search = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
        with mock.patch.dict(os.environ, {"PYTHONPATH": path, "PATH": search}):
            for zero in deepspeed_steps.zero_runs(self.torch, cpu, job):
                ends.append(run_as_step(lambda step: deepspeed_steps.zero_step(step, cpu, zero)))
        return ends

    @unittest.skipUnless(os.environ.get("ENVDOCTOR_SMOKE_SLOW") == "1", "JIT-builds DeepSpeed's CPU ops (minutes)")
    def test_the_built_in_zero_runs_train_with_clipping(self):
        zero3, zero2 = self.zero_run()
        for end in (zero3, zero2):
            self.assertEqual(end["status"], "pass", end)
            self.assertEqual(end["figures"]["master_weights_device"], ["cpu"])
            self.assertEqual(end["figures"]["optimizer"], "DeepSpeedCPUAdam")
            self.assertTrue(math.isfinite(end["figures"]["loss"]))
            self.assertGreater(end["figures"]["gradient_norm"], deepspeed_config.FORCED_CLIPPING)
        self.assertEqual(zero3["figures"]["partitioned_parameters"], 4)
        self.assertEqual(zero3["figures"]["zero_stage"], 3)
        self.assertEqual(zero2["figures"]["zero_stage"], 2)

    @unittest.skipUnless(os.environ.get("ENVDOCTOR_SMOKE_SLOW") == "1", "JIT-builds DeepSpeed's CPU ops (minutes)")
    def test_a_config_deepspeed_refuses_is_said_with_its_message(self):
        (end,) = self.zero_run(("bad.json", {"zero_optimization": {"stage": 4}, "optimizer": {"type": "AdamW"}}))
        self.assertEqual(end["status"], "fail", end)
        self.assertTrue(end["figures"]["refused"], end)
        self.assertIn("refused the config", end["detail"])


if __name__ == "__main__":
    unittest.main()
