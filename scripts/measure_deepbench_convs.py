#!/usr/bin/env python3
"""Times DeepBench's training conv shapes (data/deepbench/conv_problems.csv, set `train`) on
the GPU this runs on, through PyTorch (cuDNN's heuristic algorithm choice, cudnn.benchmark
off), in every direction, as fp16 with NCHW tensors (DeepBench's own layout, cuDNN's
transforms inside), fp16 with NHWC tensors (channels_last), and tf32 and fp32 with NCHW.

Why: the shipped tensor-core conv times come from DeepBench's V100 fp16 tables (NCHW, cuDNN 7)
carried to newer GPUs; on an H200, ResNet-50's NHWC fp16 convs ran 2.3x faster than that
carries them (docs/accuracy.md section 7). The same shapes timed here say how much of a
DeepBench time is its layout's transforms and how much faster a newer cuDNN runs the kernels.
Timing: CUDA events around one call, the mean of the fastest half of REPEATS after warm-up.

    python3 scripts/measure_deepbench_convs.py OUT.csv [REPEATS] [BUDGET_S]
"""
import csv
import sys
import time

import torch

from cuda_timing import time_ms

MODES = [("fp16", "nchw"), ("fp16", "nhwc"), ("tf32", "nchw"), ("fp32", "nchw")]


def calls(p, dtype_name, layout):
    g = lambda k: int(p[k])
    dt = torch.float16 if dtype_name == "fp16" else torch.float32
    mf = torch.channels_last if layout == "nhwc" else torch.contiguous_format
    x = torch.randn(g("n"), g("c"), g("h"), g("w"), device="cuda", dtype=dt).to(memory_format=mf)
    w = torch.randn(g("k"), g("c"), g("r"), g("s"), device="cuda", dtype=dt).to(memory_format=mf)
    stride, pad = [g("hstride"), g("wstride")], [g("pad_h"), g("pad_w")]
    y = torch.nn.functional.conv2d(x, w, stride=stride, padding=pad)
    dy = torch.randn_like(y).to(memory_format=mf)
    bw = lambda mask: torch.ops.aten.convolution_backward(dy, x, w, None, stride, pad, [1, 1], False, [0, 0], 1, mask)
    return {
        "forward": lambda: torch.nn.functional.conv2d(x, w, stride=stride, padding=pad),
        "backward_data": lambda: bw([True, False, False]),
        "backward_filter": lambda: bw([False, True, False]),
    }


def main():
    out = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    budget_s = float(sys.argv[3]) if len(sys.argv) > 3 else 180.0
    torch.backends.cudnn.benchmark = False
    with open("data/deepbench/conv_problems.csv") as f:
        problems = [r for r in csv.DictReader(f) if r["set"] == "train"]
    cols = ["index", "n", "c", "h", "w", "k", "r", "s", "pad_h", "pad_w", "hstride", "wstride", "direction", "dtype",
            "layout", "time_us", "gpu", "torch", "cudnn"]
    start = time.time()
    n = 0
    with open(out, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=cols)
        wr.writeheader()
        for dtype_name, layout in MODES:
            tf32 = dtype_name == "tf32"
            torch.backends.cudnn.allow_tf32 = tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            for p in problems:
                if time.time() - start > budget_s:
                    break
                try:
                    with torch.no_grad():
                        fns = calls(p, dtype_name, layout)
                        for direction, fn in fns.items():
                            ms = time_ms(fn, repeats)
                            row = {k: p[k] for k in cols[:12]}
                            row.update(direction=direction, dtype=dtype_name, layout=layout, time_us=f"{ms * 1000:.6g}",
                                       gpu=torch.cuda.get_device_name(), torch=torch.__version__,
                                       cudnn=torch.backends.cudnn.version())
                            wr.writerow(row)
                            n += 1
                except (torch.cuda.OutOfMemoryError, RuntimeError) as e:
                    print(f"{dtype_name} {layout} problem {p['index']}: {repr(e)[:200]}", flush=True)
                    torch.cuda.empty_cache()
                f.flush()
            print(f"{dtype_name} {layout}: done at {time.time() - start:.0f} s, {n} rows", flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
