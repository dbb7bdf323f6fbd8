"""Tests of protocol.run_workers, with `python -c` workers that need no torch:
the first rank to end badly fails the step at once and by name, and no worker
is left running.

    PYTHONPATH=src/smoke/script python3 -m unittest discover -s tests/smoke_script
"""

import signal
import subprocess
import sys
import time
import unittest
from unittest import mock

from envdoctor_smoke import protocol

# A worker that does what its arguments say: `exit CODE`, `sleep SECONDS`,
# `answer VALUE` (prints a result) or `error MESSAGE` (prints an error, as
# protocol.worker_main does for an exception).
WORKER = """
import json, sys, time
kind, argument = sys.argv[1], sys.argv[2]
if kind == "exit":
    sys.exit(int(argument))
if kind == "sleep":
    time.sleep(float(argument))
if kind == "answer":
    print("a library's own output first")
    print(json.dumps({"value": argument}))
if kind == "error":
    print(json.dumps({"error": {"type": "RuntimeError", "message": argument}}))
"""
COMMAND = [sys.executable, "-c", WORKER]


class RunWorkers(unittest.TestCase):
    def run_workers(self, argument_lists, deadline_s):
        """run_workers with the test's worker; returns (results or the Failed
        exception, seconds taken, the processes it started)."""
        started = []
        real_popen = subprocess.Popen

        def recording_popen(*arguments, **options):
            process = real_popen(*arguments, **options)
            started.append(process)
            return process

        began = time.monotonic()
        with mock.patch.object(protocol.subprocess, "Popen", recording_popen):
            try:
                outcome = protocol.run_workers(argument_lists, deadline_s, command=COMMAND)
            except protocol.Failed as failed:
                outcome = failed
        return outcome, time.monotonic() - began, started

    def assert_none_left_running(self, processes):
        for process in processes:
            self.assertIsNotNone(process.poll(), process.args)

    def test_every_rank_answers_in_rank_order(self):
        results, _, processes = self.run_workers([["answer", "a"], ["answer", "b"]], 30)
        self.assertEqual(results, [{"value": "a"}, {"value": "b"}])
        self.assert_none_left_running(processes)

    def test_a_rank_that_dies_fails_the_step_at_once_by_name_and_its_peer_is_killed(self):
        failed, seconds, processes = self.run_workers([["sleep", 30], ["exit", 3]], 30)
        self.assertIsInstance(failed, protocol.Failed)
        self.assertEqual(str(failed), "rank 1: the worker process ended with exit status 3")
        self.assertLess(seconds, 10)
        self.assert_none_left_running(processes)
        self.assertEqual(processes[0].returncode, -signal.SIGKILL)

    def test_a_rank_that_reports_an_error_fails_the_step_with_its_message(self):
        message = "NCCL error: unhandled system error"
        failed, seconds, processes = self.run_workers([["sleep", 30], ["error", message]], 30)
        self.assertEqual(str(failed), "rank 1: RuntimeError: " + message)
        self.assertLess(seconds, 10)
        self.assert_none_left_running(processes)

    def test_ranks_still_running_at_the_deadline_are_named_and_killed(self):
        failed, seconds, processes = self.run_workers([["answer", "a"], ["sleep", 30], ["sleep", 30]], 1)
        self.assertIsInstance(failed, protocol.Failed)
        self.assertTrue(str(failed).startswith("ranks 1, 2 did not finish within 1 s"), str(failed))
        self.assertLess(seconds, 10)
        self.assert_none_left_running(processes)

    def test_a_rank_that_prints_no_result_fails(self):
        failed, _, processes = self.run_workers([["exit", 0]], 30)
        self.assertEqual(str(failed), "rank 0: the worker process ended without printing its result")
        self.assert_none_left_running(processes)

    def test_a_worker_killed_by_a_signal_is_described_by_the_signal(self):
        self.assertEqual(protocol.describe_returncode(-11), "signal SIGSEGV")
        self.assertEqual(protocol.describe_returncode(1), "exit status 1")


class Release(unittest.TestCase):
    def test_a_cuda_error_between_steps_does_not_end_the_run(self):
        torch = mock.Mock()
        torch.cuda.empty_cache.side_effect = RuntimeError("CUDA error: an illegal memory access was encountered")
        protocol.release(torch)
        torch.cuda.empty_cache.assert_called_once_with()


if __name__ == "__main__":
    unittest.main()
