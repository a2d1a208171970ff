"""How the measure_* scripts time one PyTorch call on a GPU: CUDA events around the call,
after warm-up, the mean of the fastest half of `repeats` (NeuSight's collection did the
same), in milliseconds. The call runs without autograd."""
import torch


def time_ms(fn, repeats, warmup=3):
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeats):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
    times.sort()
    fastest = times[: max(1, repeats // 2)]
    return sum(fastest) / len(fastest)
