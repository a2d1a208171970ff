#!/usr/bin/env python3
"""How a one-GPU training step would come out if each op's per-call launch floor were hidden.

Reads the one-GPU rows of data/e2e/published.csv and measured_here.csv, estimates each with
the built fomcast (its op JSON gives each op's `launch_gap_s`), and prints every row's error
under three ways of adding up a step (docs/accuracy.md section 7, "The per-call floor as
host time"):

  sum     the step as fomcast gives it: every op's time, per-call floor included
  max     the larger of the kernels' sum and the floors' sum (the host runs ahead)
  per-op  each op the larger of its kernel and its floor (no run-ahead)

An op's kernel is its time less its floor, held to its bytes at 90% of the target's memory
bandwidth and to 3 us. Nothing here is read by fomcast; it measures a rule before it lands.

usage: scripts/compare_step_rules.py [--fomcast build/fomcast]
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACHIEVABLE_BANDWIDTH = 0.9
KERNEL_MIN_S = 3e-6


def one_gpu_rows():
    rows = []
    for name in ("published.csv", "measured_here.csv"):
        with open(os.path.join(ROOT, "data", "e2e", name), newline="") as f:
            rows += [r for r in csv.DictReader(io.StringIO(f.read().replace("\r", ""))) if r["gpus"] == "1"]
    return rows


def bandwidths():
    out = {}
    folder = os.path.join(ROOT, "data", "platforms")
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            spec = json.load(f)
        bw = spec.get("mem_bw_gb_per_s")
        out[spec["name"]] = (bw["value"] if isinstance(bw, dict) else bw or 0) * 1e9
    return out


def estimate(fomcast, db, tmp, row, made):
    workload, batch, layout = row["workload"], int(row["batch"]), row.get("memory_format", "")
    name = f"{workload}_b{batch}_{layout or 'default'}"
    if name not in made:
        path = os.path.join(ROOT, "data", "models", workload + ".json")
        if not os.path.exists(path):
            path = os.path.join(ROOT, "data", "e2e", "models", workload + ".json")
        with open(path) as f:
            doc = json.load(f)
        doc["batch_size"] = batch
        if layout:
            doc["memory_format"] = layout
        model = os.path.join(tmp, name + ".json")
        with open(model, "w") as f:
            json.dump(doc, f)
        subprocess.run([fomcast, "--db", db, "ingest", model, "--workload", name], check=True, capture_output=True)
        made.add(name)
    out = subprocess.run([fomcast, "--db", db, "estimate", "--workload", name, "--platform", row["platform"],
                          "--precision", row["precision"], "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def steps(est, bandwidth):
    kernels = floors = per_op = 0.0
    for op in est["ops"]:
        t, gap, n = op["predicted_s"], op["launch_gap_s"], op["count"]
        kernel = max(t - gap, (op["bytes"] or 0) / (bandwidth * ACHIEVABLE_BANDWIDTH), KERNEL_MIN_S) if gap > 0 else t
        kernels += n * kernel
        floors += n * gap
        per_op += n * max(kernel, gap)
    return {"sum": est["pass_s"], "max": max(kernels, floors), "per-op": per_op}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fomcast", default=os.path.join(ROOT, "build", "fomcast"))
    args = parser.parse_args()
    bw = bandwidths()
    errors = {}
    with tempfile.TemporaryDirectory() as tmp:
        db, made = os.path.join(tmp, "rules.db"), set()
        for row in one_gpu_rows():
            published_s = int(row["batch"]) / float(row["samples_per_s"])
            for rule, s in steps(estimate(args.fomcast, db, tmp, row, made), bw[row["platform"]]).items():
                errors.setdefault(rule, []).append((row["id"], s / published_s - 1))
    rules = list(errors)
    print(f"{'row':45s} " + " ".join(f"{r:>8s}" for r in rules))
    for i, (row_id, _) in enumerate(errors[rules[0]]):
        print(f"{row_id[:45]:45s} " + " ".join(f"{100 * errors[r][i][1]:+7.1f}%" for r in rules))
    for subset, keep in (("all", lambda i: True), ("published", lambda i: not i.startswith("here-")),
                         ("timed here", lambda i: i.startswith("here-"))):
        medians = [statistics.median(abs(e) for i, e in errors[r] if keep(i)) for r in rules]
        print(f"{'median |error|, ' + subset:45s} " + " ".join(f"{100 * m:7.1f}%" for m in medians))


if __name__ == "__main__":
    main()
