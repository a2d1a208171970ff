"""Times training steps of models fomcast ships (data/models/, data/e2e/models/) on this
machine's GPU with synthetic data already on the device, and records one profiled step of
some of them as Kineto traces. Each configuration: warm-up steps (cudnn.benchmark picks its
algorithms there), then timed steps between two synchronizations; the step is their mean.

usage: python3 scripts/measure_training_steps.py OUT_DIR [--budget-s S] [--configs NAME,...] [--trace-all]
(needs torch, torchvision, transformers; --configs keeps only the named configurations)
Writes OUT_DIR/steps.json and OUT_DIR/trace_<config>.json.gz for the traced configurations.
"""
import argparse, gzip, json, os, shutil, time

import torch

# name, workload (fomcast's), batch, precision (fomcast's --precision), extra, traced
CONFIGS = [
    ("rn50-fp32-b128", "resnet50", 128, "fp32", {}, False),
    ("rn50-tf32-b256", "resnet50", 256, "tf32", {}, True),
    ("rn50-amp-b256-nhwc", "resnet50", 256, "amp-fp16", {"channels_last": True}, False),
    # Lambda's amp rows: NCHW (its configs give no --memory-format), batch 1280 on 80 GB cards.
    ("rn50-amp-b256", "resnet50", 256, "amp-fp16", {}, False),
    ("rn50-amp-b1280", "resnet50", 1280, "amp-fp16", {}, False),
    ("rn50-amp-b1280-nhwc", "resnet50", 1280, "amp-fp16", {"channels_last": True}, False),
    ("bert-base-squad384-fp32-b32", "bert-base-squad384", 32, "fp32", {}, False),
    ("bert-base-squad384-tf32-b32", "bert-base-squad384", 32, "tf32", {}, False),
    ("bert-base-squad384-amp-b32", "bert-base-squad384", 32, "amp-fp16", {}, True),
    ("gpt2-small-amp-bf16-b12", "gpt2-small", 12, "amp-bf16", {}, False),
]


def eager(cls, cfg):
    # Attention as the shipped models spell it (matmul, softmax, matmul), not a fused kernel.
    try:
        return cls._from_config(cfg, attn_implementation="eager")
    except (TypeError, ValueError):
        cfg._attn_implementation = "eager"
        return cls(cfg)


def model_and_step(workload, batch, precision, extra):
    dev = "cuda"
    amp = {"amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}.get(precision)
    if workload == "resnet50":
        import torchvision
        m = torchvision.models.resnet50().to(dev)
        mf = torch.channels_last if extra.get("channels_last") else torch.contiguous_format
        m = m.to(memory_format=mf)
        x = torch.randn(batch, 3, 224, 224, device=dev).to(memory_format=mf)
        y = torch.randint(0, 1000, (batch,), device=dev)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
        loss_of = lambda: torch.nn.functional.cross_entropy(m(x), y)
    elif workload == "bert-base-squad384":
        from transformers import BertConfig, BertForQuestionAnswering
        m = eager(BertForQuestionAnswering, BertConfig()).to(dev)
        ids = torch.randint(0, 30522, (batch, 384), device=dev)
        sp = torch.randint(0, 384, (batch,), device=dev)
        ep = torch.randint(0, 384, (batch,), device=dev)
        opt = torch.optim.AdamW(m.parameters(), lr=3e-5)
        loss_of = lambda: m(input_ids=ids, start_positions=sp, end_positions=ep).loss
    else:
        from transformers import GPT2Config, GPT2LMHeadModel
        m = eager(GPT2LMHeadModel, GPT2Config()).to(dev)
        ids = torch.randint(0, 50257, (batch, 1024), device=dev)
        opt = torch.optim.AdamW(m.parameters(), lr=3e-4)
        loss_of = lambda: m(input_ids=ids, labels=ids).loss
    m.train()
    scaler = torch.amp.GradScaler("cuda", enabled=(amp == torch.float16))

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp or torch.bfloat16, enabled=amp is not None):
            loss = loss_of()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return m, step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget-s", type=float, default=120.0)
    ap.add_argument("--configs", help="comma-separated configuration names (default: all)")
    ap.add_argument("--trace-all", action="store_true", help="profile one step of every configuration run")
    args = ap.parse_args()
    wanted = set(args.configs.split(",")) if args.configs else None
    torch.backends.cudnn.benchmark = True
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "steps": []}
    start = time.time()
    for name, workload, batch, precision, extra, traced in CONFIGS:
        if wanted is not None and name not in wanted:
            continue
        if time.time() - start > args.budget_s:
            print(f"{name}: skipped (budget)", flush=True)
            continue
        tf32 = precision != "fp32"
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        t0 = time.time()
        try:
            m, step = model_and_step(workload, batch, precision, extra)
            for _ in range(5):
                step()
            torch.cuda.synchronize()
            n, t = 0, time.perf_counter()
            while n < 30 and (n < 5 or time.perf_counter() - t < 4.0):
                step()
                n += 1
            torch.cuda.synchronize()
            step_s = (time.perf_counter() - t) / n
            row = {"config": name, "workload": workload, "batch": batch, "precision": precision,
                   "memory_format": "channels_last" if extra.get("channels_last") else "",
                   "step_s": step_s, "steps_timed": n, "samples_per_s": batch / step_s,
                   "max_memory_bytes": torch.cuda.max_memory_allocated()}
            if traced or args.trace_all:
                from torch.profiler import ProfilerActivity, profile
                with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
                    step()
                    torch.cuda.synchronize()
                raw = f"/tmp/trace_{name}.json"
                prof.export_chrome_trace(raw)
                with open(raw, "rb") as fi, gzip.open(os.path.join(args.out, f"trace_{name}.json.gz"), "wb") as fo:
                    shutil.copyfileobj(fi, fo)
                row["traced"] = True
        except Exception as e:  # one configuration's failure leaves the others measured
            row = {"config": name, "error": repr(e)[:500]}
        results["steps"].append(row)
        print(f"{name}: {row.get('step_s', row.get('error'))} ({time.time() - t0:.1f} s)", flush=True)
        m = step = None
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        with open(os.path.join(args.out, "steps.json"), "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
