#!/usr/bin/env python3
"""Times NeuSight's kernel shapes on the GPU this runs on, in NeuSight's CSV columns.

The output imports as that GPU's table (`fomcast import-bench FILE --format neusight
--platform P`), and `fomcast validate` then predicts it from the five shipped NeuSight GPUs
(leave-platform-out): an out-of-sample check of the transfer to a card nobody measured here.

Shapes: every STRIDE-th row of the V100 PCIe card's shipped files (data/neusight/, the same
shapes NeuSight measured on every GPU). Timing as NeuSight's collection did: fp32 with TF32
off, CUDA events around one PyTorch call, the mean of the fastest half of REPEATS calls after
warm-up, in milliseconds.

    python3 scripts/measure_neusight_kernels.py OUT.csv [STRIDE] [REPEATS] [tf32]

With `tf32` last, the GEMMs (bmm, linear) and convs run with TF32 on (PyTorch's and cuDNN's
tensor-core path for fp32 data) and the file is fomcast's native kernel CSV with dtype tf32
(`import-bench OUT.csv --format csv --platform P`): what a tf32 op reads, where the fp32
table would only be scaled by the peak ratio.
"""
import csv
import gzip
import sys

import torch
import torch.nn.functional as F

from cuda_timing import time_ms

OPS = ["bmm", "linear", "conv", "add", "mul", "relu", "gelu", "ln", "softmax"]


def rows_of(op, stride):
    path = f"data/neusight/{op}/Tesla_V100-PCIE-32GB.csv.gz"
    with gzip.open(path, "rt") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if i % stride == 0:
                yield row


def call_for(op, r):
    g = lambda k: int(float(r[k]))
    dev = "cuda"
    if op == "bmm":
        a = torch.randn(g("B"), g("M"), g("N"), device=dev)
        b = torch.randn(g("B"), g("N"), g("K"), device=dev)
        return lambda: torch.bmm(a, b)
    if op == "linear":
        x = torch.randn(g("B"), g("M"), g("N"), device=dev)
        lin = torch.nn.Linear(g("N"), g("K")).to(dev)
        return lambda: lin(x)
    if op == "conv":
        x = torch.randn(g("B"), g("Input_Channel"), g("Input_Size"), g("Input_Size"), device=dev)
        conv = torch.nn.Conv2d(g("Input_Channel"), g("Output_Channel"), g("Kernel_Szie"), stride=g("Stride"),
                               padding=g("Padding"), bias=False).to(dev)
        return lambda: conv(x)
    x = torch.randn(g("B"), g("H"), device=dev)
    if op in ("add", "mul"):
        y = torch.randn(g("B"), g("H"), device=dev)
        return (lambda: x + y) if op == "add" else (lambda: x * y)
    if op == "relu":
        return lambda: F.relu(x)
    if op == "gelu":
        return lambda: F.gelu(x)
    if op == "ln":
        ln = torch.nn.LayerNorm(g("H")).to(dev)
        return lambda: ln(x)
    if op == "softmax":
        return lambda: torch.softmax(x, dim=-1)
    raise ValueError(op)


def native_row(op, r, ms):
    g = lambda k: int(float(r[k]))
    row = {"dtype": "tf32", "time_us": f"{ms * 1000:.6g}"}
    if op == "bmm":
        row.update(kind="batched_gemm", batch=g("B"), m=g("M"), k=g("N"), n=g("K"))
    elif op == "linear":
        row.update(kind="gemm", m=g("B") * g("M"), k=g("N"), n=g("K"), b_t=1)
    else:
        size, pad, stride = g("Input_Size"), g("Padding"), g("Stride")
        row.update(kind="conv", n=g("B"), c=g("Input_Channel"), k=g("Output_Channel"), h=size, w=size,
                   r=g("Kernel_Szie"), s=g("Kernel_Szie"), pad_h=pad, pad_w=pad, hstride=stride, wstride=stride,
                   direction="forward")
    return row


def main_tf32(out, stride, repeats):
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    cols = ["kind", "batch", "m", "n", "k", "a_t", "b_t", "w", "h", "c", "r", "s", "pad_w", "pad_h", "wstride",
            "hstride", "direction", "dtype", "time_us"]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for op in ("bmm", "linear", "conv"):
            n = 0
            for r in rows_of(op, stride):
                try:
                    ms = time_ms(call_for(op, r), repeats)
                except torch.cuda.OutOfMemoryError:
                    torch.cuda.empty_cache()
                    continue
                w.writerow(native_row(op, r, ms))
                n += 1
            print(f"{op} (tf32): {n} shapes", flush=True)


def main():
    out = sys.argv[1]
    stride = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    if len(sys.argv) > 4 and sys.argv[4] == "tf32":
        return main_tf32(out, stride, repeats)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.cuda.get_device_name()
    cols = ["OPName", "Latency", "Device", "Torch Version", "CUDNN Version", "B", "M", "N", "K", "H",
            "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size", "Stride", "Padding"]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for op in OPS:
            n = 0
            for r in rows_of(op, stride):
                row = {k: r[k] for k in cols[5:] if k in r}
                row.update({"OPName": op, "Device": device, "Torch Version": torch.__version__,
                            "CUDNN Version": torch.backends.cudnn.version()})
                try:
                    row["Latency"] = f"{time_ms(call_for(op, r), repeats):.6g}"
                except torch.cuda.OutOfMemoryError:
                    torch.cuda.empty_cache()
                    continue
                w.writerow(row)
                n += 1
            print(f"{op}: {n} shapes", flush=True)


if __name__ == "__main__":
    main()
