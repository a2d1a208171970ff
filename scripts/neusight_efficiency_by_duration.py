#!/usr/bin/env python3
"""Median fraction of the fp32 peak that NeuSight's compute-bound linears reach, by the call's
duration, per card (docs/accuracy.md section 5, "Part of that power limit is the call's
length"). Reads data/neusight/linear/ and the cards' specs in data/platforms/.

usage: scripts/neusight_efficiency_by_duration.py
"""
import csv
import gzip
import json
import math
import os
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARDS = {  # NeuSight's file -> fomcast's platform
    "NVIDIA_A100-PCIE-40GB": "A100_PCIe_40GB",
    "Tesla_V100-PCIE-32GB": "V100_PCIe_32GB",
    "Tesla_P100-PCIE-16GB": "P100_PCIe_16GB",
    "Tesla_T4": "NV_T4",
    "Tesla_P4": "P4",
}
RIDGES = 4  # compute-bound: FLOPs per byte at least this many times the card's ridge point


def figure(spec, key):
    value = spec[key]
    return value["value"] if isinstance(value, dict) else value


def main():
    bins = [10 ** (k / 2) for k in range(-7, 1)]  # 0.3 ms ... 1 s, half decades
    print("card".ljust(16) + "".join(f"{b * 1e3:>9.1f}ms" for b in bins))
    for card, platform in CARDS.items():
        with open(os.path.join(ROOT, "data", "platforms", platform + ".json")) as f:
            spec = json.load(f)
        peak = figure(spec["peak_tflop_per_s"], "fp32") * 1e12
        ridge = peak / (figure(spec, "mem_bw_gb_per_s") * 1e9)
        by_bin = {}
        with gzip.open(os.path.join(ROOT, "data", "neusight", "linear", card + ".csv.gz"), "rt") as f:
            for row in csv.DictReader(f):
                b, m, n, k = (int(float(row[c])) for c in "BMNK")
                seconds = float(row["Latency"]) * 1e-3
                flops = 2 * b * m * n * k
                moved = 4 * (b * m * n + n * k + b * m * k)
                if flops < 1e9 or flops / moved < RIDGES * ridge:
                    continue
                at = round(2 * math.log10(seconds))
                by_bin.setdefault(at, []).append(flops / seconds / peak)
        cells = []
        for b in bins:
            values = by_bin.get(round(2 * math.log10(b)), [])
            cells.append(f"{statistics.median(values):>11.2f}" if len(values) >= 5 else f"{'-':>11s}")
        print(platform.ljust(16) + "".join(cells))


if __name__ == "__main__":
    main()
