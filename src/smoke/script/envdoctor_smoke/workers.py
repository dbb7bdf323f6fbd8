"""What one worker process of a multi-process step does. Each function takes
its command-line arguments as strings and returns a JSON-able answer."""

import datetime

from .deepspeed_steps import deepspeed_zero_rank


def nccl_rank(rank, world_size, port, deadline_s):
    import torch
    import torch.distributed as dist

    rank, world_size, port = int(rank), int(world_size), int(port)
    device = torch.device("cuda", rank)
    torch.cuda.set_device(device)
    store = dist.TCPStore("127.0.0.1", port, None, False)
    dist.init_process_group(
        "nccl",
        store=store,
        rank=rank,
        world_size=world_size,
        timeout=datetime.timedelta(seconds=float(deadline_s)),
    )
    try:
        values = torch.full((1 << 24,), float(rank + 1), device=device)
        dist.all_reduce(values)
        expected = world_size * (world_size + 1) / 2
        if not bool((values == expected).all()):
            raise RuntimeError("all-reduce gave {} on rank {}, expected {}".format(values[0].item(), rank, expected))
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            dist.all_reduce(values)
        end.record()
        torch.cuda.synchronize(device)
        seconds = start.elapsed_time(end) / 5 / 1000
        size = values.numel() * values.element_size()
        # nccl-tests' bus bandwidth for all-reduce: 2(n-1)/n of the data per rank.
        bus = size * 2 * (world_size - 1) / world_size / seconds / 1e9
        return {"rank": rank, "bus_gbps": round(bus, 1)}
    finally:
        dist.destroy_process_group()


KINDS = {"nccl": nccl_rank, "deepspeed_zero": deepspeed_zero_rank}
