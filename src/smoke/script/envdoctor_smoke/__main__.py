"""envdoctor's GPU smoke test, run by the interpreter the job will use:

    python -m envdoctor_smoke [--deep] [--deepspeed-config FILE --deepspeed-config-source NAME]

The order matters: each stage runs only when what it stands on passed, and
says so when it does not.

`python -m envdoctor_smoke worker KIND ARGS...` is one rank of a multi-process
step (see protocol.run_workers)."""

import json
import sys

from . import protocol


def option(arguments, name):
    """The value after `name`, or None."""
    if name in arguments:
        at = arguments.index(name)
        if at + 1 < len(arguments):
            return arguments[at + 1]
    return None


def job_deepspeed_config(arguments):
    """(its name, its JSON) of the job's DeepSpeed config envdoctor wrote for
    the test, or None: the built-in configs run."""
    path = option(arguments, "--deepspeed-config")
    if path is None:
        return None
    with open(path) as opened:
        config = json.load(opened)
    return option(arguments, "--deepspeed-config-source") or path, config


def main(arguments):
    if arguments[:1] == ["worker"]:
        from . import workers

        protocol.worker_main(workers.KINDS[arguments[1]], arguments[2:])
        return
    runner = protocol.Runner(protocol.open_event_channel())
    deep = "--deep" in arguments
    job = job_deepspeed_config(arguments)

    from . import library_steps, torch_steps

    torch = torch_steps.import_torch(runner)
    gpus = torch_steps.cuda_as_torch_sees_it(runner, torch)
    if gpus:
        # The library imports overlap the GPU steps; each library step waits
        # for its own and reports it, so the report's order is unchanged.
        library_steps.import_in_background(runner)
    torch_steps.each_gpu(runner, torch, gpus)
    torch_steps.between_gpus(runner, torch, gpus)
    library_steps.run(runner, torch, gpus, deep, job)
    runner.emit(event="done")


main(sys.argv[1:])
