#!/usr/bin/env python3
"""Times a few GEMMs in fp32, tf32 and fp16 at training-step shapes and at their neighbours
one element off a multiple of 8, on the GPU this runs on.

Why: NeuSight's shapes (and a table timed at them) are odd sizes, where a training step's
are multiples of 64. With tensor cores, cuBLAS needs 16-byte aligned rows for its fastest
kernels; an odd leading dimension may fall back to slower ones. A table of odd shapes would
then read too slow for an aligned op (docs/accuracy.md, section 5: a tf32 table made BERT's
3072 x 768 x 32768 weight-gradient GEMM 97 TFLOP/s). Timing as measure_neusight_kernels.py:
CUDA events around one call, the mean of the fastest half of REPEATS after warm-up.

    python3 scripts/measure_gemm_alignment.py OUT.json [REPEATS]
"""
import json
import sys

import torch

from cuda_timing import time_ms

# (m, n, k): C[m, n] = A[m, k] @ B[k, n]
SHAPES = [
    (3072, 768, 32768),   # BERT-base (batch 32 x 384) weight gradient of the feed-forward out
    (3071, 767, 32767),   # the same, one off in every dimension
    (2047, 541, 29677),   # the tf32 table's nearest entry to it
    (2048, 544, 29696),   # that entry rounded up to multiples of 32
    (12288, 3072, 768),   # BERT-base's feed-forward in, forward
    (12287, 3071, 767),
    (12288, 768, 3072),   # feed-forward out, forward
    (12288, 767, 3071),   # only n and k off
    (4096, 4096, 4096),
    (4095, 4095, 4095),
]


def main():
    out = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rows = []
    for mode in ("fp32", "tf32", "fp16"):
        torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
        dtype = torch.float16 if mode == "fp16" else torch.float32
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            with torch.no_grad():
                ms = time_ms(lambda: torch.mm(a, b), repeats)
            tflops = 2.0 * m * n * k / (ms * 1e-3) / 1e12
            rows.append({"mode": mode, "m": m, "n": n, "k": k, "time_ms": ms, "tflop_s": tflops})
            print(f"{mode} {m}x{n}x{k}: {ms:.4f} ms, {tflops:.1f} TFLOP/s", flush=True)
            del a, b
        torch.cuda.empty_cache()
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
              "repeats": repeats, "rows": rows}
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
