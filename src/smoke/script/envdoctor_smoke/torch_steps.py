"""The torch stages: import, CUDA as torch sees it, each GPU alone, and the
GPUs together (peer access, copies, an NCCL all-reduce across all of them)."""

import os
import time
import warnings

from . import protocol

# Seconds each kind of step may take before envdoctor kills the test. Generous:
# they bound a hang, they are not a performance target.
IMPORT_DEADLINE = 120
CUDA_INIT_DEADLINE = 60
GPU_STEP_DEADLINE = 30
COLLECTIVE_DEADLINE = 60


def import_torch(runner):
    with runner.step("torch.import", "import torch", IMPORT_DEADLINE) as step:
        started = time.perf_counter()
        import torch

        seconds = time.perf_counter() - started
        step.figure("import_s", round(seconds, 3))
        step.figure("torch_version", torch.__version__)
        step.detail = "torch {} from {} in {:.2f} s".format(
            torch.__version__, os.path.dirname(torch.__file__), seconds
        )
        return torch
    return None


def cuda_as_torch_sees_it(runner, torch):
    """Returns the CUDA ordinals the per-GPU stages run on: all of them, or none
    when torch cannot use CUDA (and this step says why)."""
    title = "CUDA as torch sees it"
    if torch is None:
        runner.skipped("torch.cuda", title, "torch did not import")
        return []
    with runner.step("torch.cuda", title, CUDA_INIT_DEADLINE) as step:
        step.figure("torch_cuda", torch.version.cuda)
        if torch.version.cuda is None:
            step.fail("torch {} is not a CUDA build (torch.version.cuda is None)".format(torch.__version__))
        # is_available() says why it is False only in a warning.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            available = torch.cuda.is_available()
        count = torch.cuda.device_count()
        step.figure("is_available", available)
        step.figure("device_count", count)
        if not available:
            reasons = "; ".join(str(warning.message).strip() for warning in caught)
            step.fail(
                "torch.cuda.is_available() is False: "
                + (reasons or "CUDA sees no GPU (no NVIDIA driver loaded, or CUDA_VISIBLE_DEVICES hides every GPU)")
            )
        torch.cuda.init()
        step.figure("cudnn", torch.backends.cudnn.version())
        step.figure("nccl", nccl_version(torch))
        step.figure("arch_list", torch.cuda.get_arch_list())
        step.detail = "CUDA {}, cuDNN {}, NCCL {}, {} GPU{}; kernels for {}".format(
            torch.version.cuda,
            step.figures["cudnn"],
            step.figures["nccl"],
            count,
            "" if count == 1 else "s",
            " ".join(step.figures["arch_list"]) or "no architecture",
        )
        return list(range(count))
    return []


def nccl_version(torch):
    try:
        version = torch.cuda.nccl.version()
    except Exception:  # a build without NCCL (Windows, some source builds)
        return None
    return ".".join(str(part) for part in version) if isinstance(version, tuple) else str(version)


def arch_covers(arch_list, major, minor):
    """Whether a build with these `sm_XY`/`compute_XY` entries has code a GPU of
    compute capability major.minor can run: a cubin of the same major and an
    equal or lower minor, an arch-specific (`a`) cubin of exactly this one, a
    family (`f`) cubin of this major, or PTX of an equal or lower capability."""
    capability = major * 10 + minor
    for arch in arch_list:
        kind, _, number = arch.partition("_")
        digits = number.rstrip("abcdefghijklmnopqrstuvwxyz")
        suffix = number[len(digits):]
        if not digits.isdigit():
            continue
        value = int(digits)
        if kind == "sm":
            if suffix == "a":
                covered = value == capability
            else:
                covered = value // 10 == major and value <= capability
        elif kind == "compute":
            covered = value == capability if suffix == "a" else value <= capability
        else:
            covered = False
        if covered:
            return True
    return False


def each_gpu(runner, torch, gpus):
    if not gpus:
        reason = "torch did not import" if torch is None else "CUDA is not available to torch"
        runner.skipped("gpus", "every GPU: kernels, memory, matrix products", reason)
    for index in gpus:
        device = torch.device("cuda", index)
        ran = kernels(runner, torch, index, device)
        stages = [
            ("memory", "allocate, fill and copy memory", memory),
            ("fp32", "fp32 matrix product against a CPU reference", matmul_fp32),
            ("fp16", "fp16 matrix product and throughput", matmul_fp16),
            ("bf16", "bf16 matrix product and throughput", matmul_bf16),
        ]
        for suffix, title, stage in stages:
            name = "gpu{}.{}".format(index, suffix)
            title = "cuda:{} {}".format(index, title)
            if not ran:
                runner.skipped(name, title, "cuda:{} could not run a kernel".format(index), gpu=index)
                continue
            # The GPU under test is the current device for the stage: CUDA
            # events, the current stream, pinned memory and cuBLAS handles
            # otherwise belong to cuda:0.
            with runner.step(name, title, GPU_STEP_DEADLINE, gpu=index) as step, torch.cuda.device(device):
                stage(step, torch, index, device)
                torch.cuda.synchronize(device)
            protocol.release(torch)


def kernels(runner, torch, index, device):
    name = "gpu{}.kernels".format(index)
    title = "cuda:{} runs this build's kernels".format(index)
    with runner.step(name, title, GPU_STEP_DEADLINE, gpu=index) as step, torch.cuda.device(device):
        properties = torch.cuda.get_device_properties(index)
        covered = arch_covers(torch.cuda.get_arch_list(), properties.major, properties.minor)
        step.figure("name", properties.name)
        step.figure("compute_capability", "{}.{}".format(properties.major, properties.minor))
        step.figure("memory_total_mib", properties.total_memory // (1 << 20))
        step.figure("arch_list_covers", covered)
        values = torch.arange(1 << 20, device=device, dtype=torch.float32)
        # The sum of the first 2**20 odd numbers, 2**40: exact in float64 (the
        # odd numbers themselves are exact in float32), so any difference is an error.
        total = (values * 2 + 1).sum(dtype=torch.float64).item()
        expected = float((1 << 20) ** 2)
        if total != expected:
            step.fail("an elementwise kernel on cuda:{} summed to {} instead of {}".format(index, total, expected))
        step.detail = "{}, compute capability {}.{}; {}".format(
            properties.name,
            properties.major,
            properties.minor,
            "the build has code for it"
            if covered
            else "the build's architecture list does not cover it, yet its kernels ran",
        )
        return True
    return False


def elapsed_ms(torch, device, work, repeat):
    """Milliseconds per call of `work`, timed with CUDA events after a warm-up.
    The events are recorded on `device`'s stream, where `work` runs (a bare
    record() would use the current device's)."""
    work()
    stream = torch.cuda.current_stream(device)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record(stream)
    for _ in range(repeat):
        work()
    end.record(stream)
    torch.cuda.synchronize(device)
    return start.elapsed_time(end) / repeat


def memory(step, torch, index, device):
    free, total = torch.cuda.mem_get_info(device)
    step.figure("free_mib", free // (1 << 20))
    size = min(256 << 20, free // 8)
    count = size // 4
    block = torch.empty(count, dtype=torch.float32, device=device)
    block.fill_(3.0)
    total_value = block.sum(dtype=torch.float64).item()
    if total_value != 3.0 * count:
        step.fail(
            "{} MiB filled with 3.0 on cuda:{} summed to {} instead of {}".format(
                size >> 20, index, total_value, 3.0 * count
            )
        )
    host = torch.empty(count, dtype=torch.float32).pin_memory()
    host_ms = elapsed_ms(torch, device, lambda: block.copy_(host, non_blocking=True), 3)
    other = torch.empty_like(block)
    device_ms = elapsed_ms(torch, device, lambda: other.copy_(block), 5)
    if not torch.equal(other, block):
        step.fail("a device-to-device copy on cuda:{} changed the data".format(index))
    # Host to device moves the bytes once; a device copy reads and writes them.
    step.figure("host_to_device_gbps", round(size / host_ms / 1e6, 1))
    step.figure("device_copy_gbps", round(2 * size / device_ms / 1e6, 1))
    step.detail = "{} MiB free of {}; host to device {} GB/s, device copy {} GB/s".format(
        free >> 20, total >> 20, step.figures["host_to_device_gbps"], step.figures["device_copy_gbps"]
    )


def matmul_against_cpu(step, torch, device, dtype, tolerance):
    """The largest error of a GPU matrix product relative to the largest entry
    of the exact product of the same (rounded) inputs, computed in float64."""
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(512, 512, generator=generator).to(dtype)
    b = torch.randn(512, 512, generator=generator).to(dtype)
    reference = a.double() @ b.double()
    product = (a.to(device) @ b.to(device)).double().cpu()
    error = ((product - reference).abs().max() / reference.abs().max()).item()
    step.figure("max_relative_error", float("{:.3g}".format(error)))
    if not error <= tolerance:  # also catches NaN
        step.fail("the product differs from the CPU reference by {:.3g} (more than {:g})".format(error, tolerance))
    return error


def throughput(step, torch, device, dtype):
    n = 4096
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    milliseconds = elapsed_ms(torch, device, lambda: a @ b, 20)
    tflops = 2 * n**3 / milliseconds / 1e9
    step.figure("tflops", round(tflops, 1))
    return tflops


def matmul_fp32(step, torch, index, device):
    # TF32, when turned on (in code, or for all of cuBLAS by the environment),
    # rounds the inputs to 10 mantissa bits.
    tf32 = torch.backends.cuda.matmul.allow_tf32 or os.environ.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE") == "1"
    tolerance = 2e-3 if tf32 else 1e-5
    error = matmul_against_cpu(step, torch, device, torch.float32, tolerance)
    step.detail = "max relative error {:.2g}".format(error)


# Half-precision products round their output (fp16: 11 bits of mantissa, bf16:
# 8) and cuBLAS may reduce in reduced precision; the CPU shows 3e-4 and 2e-3 for
# these inputs. A broken GPU or library is off by orders of magnitude more.
FP16_TOLERANCE = 5e-3
BF16_TOLERANCE = 2e-2


def matmul_fp16(step, torch, index, device):
    error = matmul_against_cpu(step, torch, device, torch.float16, FP16_TOLERANCE)
    tflops = throughput(step, torch, device, torch.float16)
    step.detail = "max relative error {:.2g}; {:.1f} TFLOPS".format(error, tflops)


def matmul_bf16(step, torch, index, device):
    major, minor = torch.cuda.get_device_capability(device)
    if major < 8:
        step.skip("bf16 needs compute capability 8.0 (Ampere) or later; cuda:{} is {}.{}".format(index, major, minor))
    error = matmul_against_cpu(step, torch, device, torch.bfloat16, BF16_TOLERANCE)
    tflops = throughput(step, torch, device, torch.bfloat16)
    step.detail = "max relative error {:.2g}; {:.1f} TFLOPS".format(error, tflops)


def between_gpus(runner, torch, gpus):
    if len(gpus) < 2:
        return
    working = [index for index in gpus if runner.passed("gpu{}.kernels".format(index))]
    titles = {
        "gpus.peer_access": "peer access between every pair of GPUs",
        "gpus.copy": "copies from each GPU to the next",
        "nccl.all_reduce": "NCCL all-reduce across all {} GPUs".format(len(gpus)),
    }
    if len(working) < len(gpus):
        reason = "not every GPU could run a kernel"
        for name, title in titles.items():
            runner.skipped(name, title, reason)
        return
    with runner.step("gpus.peer_access", titles["gpus.peer_access"], GPU_STEP_DEADLINE) as step:
        matrix = [[i == j or torch.cuda.can_device_access_peer(i, j) for j in gpus] for i in gpus]
        step.figure("matrix", matrix)
        missing = ["{}-{}".format(i, j) for i in gpus for j in gpus if i < j and not (matrix[i][j] and matrix[j][i])]
        step.detail = (
            "every pair has peer access"
            if not missing
            else "no peer access between {} (copies and NCCL go through host memory there)".format(", ".join(missing))
        )
    with runner.step("gpus.copy", titles["gpus.copy"], GPU_STEP_DEADLINE) as step:
        pattern = torch.arange(1 << 22, dtype=torch.int32)
        broken = []
        for source in gpus:
            target = gpus[(source + 1) % len(gpus)]
            arrived = pattern.to(torch.device("cuda", source)).to(torch.device("cuda", target)).cpu()
            if not torch.equal(arrived, pattern):
                broken.append("cuda:{} -> cuda:{}".format(source, target))
        if broken:
            step.fail("data changed on the way: {}".format(", ".join(broken)))
        step.detail = "16 MiB arrived intact on each of {} hops".format(len(gpus))
    all_reduce(runner, torch, gpus, titles["nccl.all_reduce"])


def all_reduce(runner, torch, gpus, title):
    with runner.step("nccl.all_reduce", title, COLLECTIVE_DEADLINE + 10) as step:
        import torch.distributed as dist

        if not dist.is_available() or not dist.is_nccl_available():
            step.fail("torch {} was built without NCCL support in torch.distributed".format(torch.__version__))
        # The store listens on a port the OS picks: no port to collide with a
        # job already running on this node.
        store = dist.TCPStore("127.0.0.1", 0, None, True, wait_for_workers=False)
        results = protocol.run_workers(
            [["nccl", rank, len(gpus), store.port, COLLECTIVE_DEADLINE] for rank in range(len(gpus))],
            COLLECTIVE_DEADLINE,
        )
        bandwidth = min(result["bus_gbps"] for result in results)
        step.figure("world_size", len(gpus))
        step.figure("bus_gbps", bandwidth)
        step.detail = "{} ranks agree on the sum; bus bandwidth {} GB/s (64 MiB)".format(len(gpus), bandwidth)
