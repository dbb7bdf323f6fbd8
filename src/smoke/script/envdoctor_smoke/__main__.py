"""envdoctor's GPU smoke test, run by the interpreter the job will use:
`python -m envdoctor_smoke [--deep]`. The order matters: each stage runs only
when what it stands on passed, and says so when it does not.

`python -m envdoctor_smoke worker KIND ARGS...` is one rank of a multi-process
step (see protocol.run_workers)."""

import sys

from . import protocol


def main(arguments):
    if arguments[:1] == ["worker"]:
        from . import workers

        protocol.worker_main(workers.KINDS[arguments[1]], arguments[2:])
        return
    runner = protocol.Runner(protocol.open_event_channel())
    deep = "--deep" in arguments

    from . import library_steps, torch_steps

    torch = torch_steps.import_torch(runner)
    gpus = torch_steps.cuda_as_torch_sees_it(runner, torch)
    torch_steps.each_gpu(runner, torch, gpus)
    torch_steps.between_gpus(runner, torch, gpus)
    library_steps.run(runner, torch, gpus, deep)
    runner.emit(event="done")


main(sys.argv[1:])
