"""Unit tests of the smoke test's Python side: the event protocol, and the parts
of the torch stages that do not need a GPU. Run by tests/smoke_script.rs with
PYTHONPATH=src/smoke/script, under the interpreter named by
ENVDOCTOR_TEST_TORCH_PYTHON (one with torch) or else python3, where the tests
that need torch skip themselves:

    PYTHONPATH=src/smoke/script python3 -m unittest discover -s tests/smoke_script
"""

import importlib.util
import io
import json
import unittest

from envdoctor_smoke import protocol, torch_steps

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def recorded(run):
    """Runs `run(runner)` and returns the events it wrote."""
    channel = io.StringIO()
    run(protocol.Runner(channel))
    return [json.loads(line) for line in channel.getvalue().splitlines()]


class Protocol(unittest.TestCase):
    def test_a_step_that_returns_passes_with_its_figures(self):
        def run(runner):
            with runner.step("gpu0.fp16", "fp16", 30, gpu=0) as step:
                step.figure("tflops", 12.5)
                step.detail = "fine"

        start, end = recorded(run)
        self.assertEqual(start, {"event": "start", "step": "gpu0.fp16", "title": "fp16", "deadline_s": 30, "gpu": 0})
        self.assertEqual(end["status"], "pass")
        self.assertEqual(end["figures"], {"tflops": 12.5})
        self.assertEqual(end["detail"], "fine")
        self.assertIsNone(end["error"])

    def test_an_exception_fails_the_step_with_its_type_and_message_and_the_run_goes_on(self):
        def run(runner):
            with runner.step("torch.import", "import torch", 60):
                raise ImportError("libcudnn.so.9: cannot open shared object file")
            with runner.step("next", "next", 1):
                pass
            self.assertFalse(runner.passed("torch.import"))
            self.assertTrue(runner.passed("next"))

        events = recorded(run)
        end = events[1]
        self.assertEqual(end["status"], "fail")
        self.assertEqual(end["error"]["type"], "ImportError")
        self.assertIn("libcudnn.so.9", end["error"]["message"])
        self.assertIn("libcudnn.so.9", end["detail"])
        self.assertEqual(events[3]["status"], "pass")

    def test_skip_and_fail_say_why(self):
        def run(runner):
            runner.skipped("gpus", "every GPU", "CUDA is not available to torch")
            with runner.step("gpu0.fp32", "fp32", 30) as step:
                step.fail("the product differs")

        events = recorded(run)
        self.assertEqual((events[1]["status"], events[1]["detail"]), ("skip", "CUDA is not available to torch"))
        self.assertEqual((events[3]["status"], events[3]["detail"]), ("fail", "the product differs"))
        self.assertIsNone(events[3]["error"])


    def test_a_nan_figure_is_valid_json(self):
        def run(runner):
            with runner.step("gpu0.fp32", "fp32", 30) as step:
                step.figure("max_relative_error", float("nan"))
                step.figure("nested", [float("inf")])

        end = recorded(run)[1]
        self.assertEqual(end["figures"], {"max_relative_error": "nan", "nested": ["inf"]})


class ArchitectureCoverage(unittest.TestCase):
    def test_a_cubin_runs_on_its_own_major_and_a_higher_minor(self):
        self.assertTrue(torch_steps.arch_covers(["sm_80"], 8, 6))
        self.assertTrue(torch_steps.arch_covers(["sm_80"], 8, 0))
        self.assertFalse(torch_steps.arch_covers(["sm_86"], 8, 0))
        self.assertFalse(torch_steps.arch_covers(["sm_80"], 9, 0))

    def test_ptx_runs_on_any_later_gpu(self):
        self.assertTrue(torch_steps.arch_covers(["sm_80", "compute_80"], 9, 0))
        self.assertFalse(torch_steps.arch_covers(["compute_90"], 8, 9))

    def test_arch_specific_code_runs_only_on_its_own_gpu(self):
        self.assertTrue(torch_steps.arch_covers(["sm_90a"], 9, 0))
        self.assertFalse(torch_steps.arch_covers(["sm_90a"], 10, 0))
        self.assertFalse(torch_steps.arch_covers(["compute_90a"], 10, 0))

    def test_three_digit_capabilities(self):
        self.assertTrue(torch_steps.arch_covers(["sm_100", "sm_120"], 12, 0))
        self.assertFalse(torch_steps.arch_covers(["sm_90", "sm_100"], 12, 0))


class FakeStep:
    def __init__(self):
        self.figures = {}

    def figure(self, key, value):
        self.figures[key] = value

    def fail(self, message):
        raise protocol.Failed(message)


@unittest.skipUnless(HAVE_TORCH, "needs torch (set ENVDOCTOR_TEST_TORCH_PYTHON)")
class MatrixProductAgainstReference(unittest.TestCase):
    """The comparison the GPU steps make, run on the CPU: the same code path
    and tolerances, with the CPU standing in as the device under test."""

    def setUp(self):
        import torch

        self.torch = torch

    def test_an_honest_product_is_within_tolerance_in_every_precision(self):
        torch = self.torch
        tolerances = [
            (torch.float32, 1e-5),
            (torch.float16, torch_steps.FP16_TOLERANCE),
            (torch.bfloat16, torch_steps.BF16_TOLERANCE),
        ]
        for dtype, tolerance in tolerances:
            step = FakeStep()
            error = torch_steps.matmul_against_cpu(step, torch, torch.device("cpu"), dtype, tolerance)
            self.assertLessEqual(error, tolerance, dtype)
            self.assertIn("max_relative_error", step.figures)

    def test_a_product_off_by_more_than_the_tolerance_fails(self):
        torch = self.torch
        with self.assertRaises(protocol.Failed) as failed:
            # A bf16 product rounds its output to 8 bits of mantissa: never within 1e-9.
            torch_steps.matmul_against_cpu(FakeStep(), torch, torch.device("cpu"), torch.bfloat16, 1e-9)
        self.assertIn("differs from the CPU reference", str(failed.exception))


if __name__ == "__main__":
    unittest.main()
