#!/usr/bin/env python3
"""Writes the shipped model descriptions in data/models/ (format: docs/model-format.md).

Run once after changing this script or data/candle/workloads.json:

    python3 scripts/gen_models.py            # rewrites data/models/*.json
    python3 scripts/gen_models.py --check    # exit 1 if data/models/ differs from what it would write

The CANDLE benchmarks are adapted from data/candle/workloads.json, the one source of truth
for them: every layer keeps that file's input_shape and output_shape, which fomcast checks
when it reads the model, and tests/unit/models_shipped_test.cpp compares each layer's
parameters and MACs with the file. The other networks (alexnet, vgg16, resnet50,
googlenet, bert-base, gpt2-small) are written out from their papers here. This is a
developer tool: fomcast itself never runs Python.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGENET_TRAIN = 1281167  # ILSVRC-2012 training images

# ---------------------------------------------------------------------------------------
# CANDLE: adapter from data/candle/workloads.json

# Fields of a workloads.json layer that the layer-list format reads (same names).
KEEP = ["units", "activation", "use_bias", "filters", "kernel_size", "strides", "padding", "pool_size", "rate",
        "input_dim", "output_dim", "return_sequences", "input_shape", "output_shape"]
TYPES = {"dense", "conv1d", "conv2d", "activation", "dropout", "maxpool1d", "flatten", "batchnorm", "lstm",
         "embedding", "global_maxpool1d"}
LOSSES = {"mse": "mse", "categorical_crossentropy": "categorical_crossentropy",
          "custom (helper.combined_loss)": "custom",
          "sparse_categorical_crossentropy (one per head)": "sparse_categorical_crossentropy"}


def candle_layer(src, **extra):
    if src["type"] not in TYPES:
        raise SystemExit("gen_models: no mapping for CANDLE layer type " + src["type"])
    out = {"type": src["type"]}
    out.update(extra)
    for k in KEEP:
        if k in src and not (k == "activation" and src[k] == "linear"):
            out[k] = src[k]
    if "note" in src:
        out["note"] = src["note"]
    return out


def candle_sequential(w):
    return [candle_layer(l) for l in w["layers"]]


def candle_towers(w):
    """UNO and COMBO: encoder towers applied to several inputs (the drug towers twice, with
    shared weights), their outputs concatenated with the plain inputs, then a head."""
    towers = {}
    for l in w["layers"]:
        if l["branch"] != "head":
            towers.setdefault(l["branch"], []).append(l)
    layers, tower_out = [], {}
    for inp in w["inputs"]:
        enc = inp["encoder"]
        if enc is None:
            continue
        first_use = not any(k[0] == enc for k in tower_out)
        prev = inp["name"]
        for j, l in enumerate(towers[enc]):
            base = "%s.%d" % (enc, j)
            name = base if first_use else base + "@" + inp["name"]
            extra = {"name": name, "inputs": [prev]}
            if not first_use:
                extra["share_weights"] = base
            layers.append(candle_layer(l, **extra))
            prev = name
        tower_out[(enc, inp["name"])] = prev
    head = [l for l in w["layers"] if l["branch"] == "head"]
    concat = head[0]
    assert concat["type"] == "concatenate"
    names = []
    for ref in concat["inputs"]:  # "encoder(input)" or a plain input
        if "(" in ref:
            enc, inp = ref[:-1].split("(")
            names.append(tower_out[(enc, inp)])
        else:
            names.append(ref)
    layers.append({"type": "concatenate", "name": "concat", "inputs": names, "output_shape": concat["output_shape"]})
    layers += [candle_layer(l) for l in head[1:]]
    return layers


def candle_p3b1(w):
    """Three independent task models (the v0.1 shared-trunk bug), each trained on its own
    task's samples: every task's input carries its own samples_per_epoch."""
    layers, seen = [], set()
    for l in w["layers"]:
        task = l["branch"].split()[0]
        extra = {}
        if task not in seen:
            seen.add(task)
            extra["inputs"] = [task]
        layers.append(candle_layer(l, **extra))
    return layers


def candle_p3b3(w):
    layers = []
    for l in w["layers"]:
        b = l["branch"]
        if b == "trunk":
            layers.append(candle_layer(l, name="embedding"))
        elif b.startswith("conv_k"):
            if l["type"] == "conv1d":
                layers.append(candle_layer(l, name=b, inputs=["embedding"]))
            else:
                layers.append(candle_layer(l, name=b + ".pool"))
        elif l["type"] == "concatenate":
            layers.append({"type": "concatenate", "name": "concat", "inputs": ["conv_k3.pool", "conv_k4.pool",
                                                                            "conv_k5.pool"],
                           "output_shape": l["output_shape"]})
        else:
            layers.append(candle_layer(l))
    return layers


def candle_models():
    with open(os.path.join(ROOT, "data", "candle", "workloads.json")) as f:
        workloads = json.load(f)
    models = []
    for w in workloads:
        name = w["name"]
        m = {"name": name, "description": w["description"],
             "source": "adapted by scripts/gen_models.py from data/candle/workloads.json (ECP-CANDLE/Benchmarks "
                       "v0.1); every layer's input_shape and output_shape are checked on reading"}
        notes = []
        m["batch_size"] = w["batch_size"]
        samples = w["train_samples"]
        if samples is None and name == "P3B2":
            # Not documented anywhere we could read: an assumption, said loudly.
            samples = 250000
            notes.append("ASSUMED samples_per_epoch 250,000: the P3B2 data (data.pkl) is not public; the benchmark "
                         "README (CBIIT/NCI-DOE-Collab-Pilot3-LSTM-based-Clinical-Text-Generator, Pilot3/P3B2/README.md) "
                         "gives a corpus of 250,000-500,000 characters, taken here at its low end as one 20-character "
                         "window per character")
        m["samples_per_epoch"] = samples
        m["epochs"] = w["epochs"]
        m["optimizer"] = w["optimizer"]
        m["loss"] = LOSSES[w["loss"]]
        if name == "P3B1":
            per_task = w["train_samples_per_task"]
            m["inputs"] = [{"name": t, "shape": w["input_shape"], "samples_per_epoch": per_task[t]}
                           for t in ("task0", "task1", "task2")]
            m["layers"] = candle_p3b1(w)
            notes.append("three independent task models (v0.1 code); each pass trains one task's model, so a "
                         "task's ops count its share of the epoch's samples")
        elif name in ("UNO", "COMBO"):
            m["inputs"] = [{"name": i["name"], "shape": [i["dim"]]} for i in w["inputs"]]
            m["layers"] = candle_towers(w)
            notes.append("encoder towers shared between drug1 and drug2 run twice per sample with one set of weights")
        elif name == "P3B3":
            m["inputs"] = [{"name": "tokens", "shape": w["input_shape"], "dtype": "int32"}]
            m["layers"] = candle_p3b3(w)
            notes.append("the four softmax heads are one Dense(24), as in data/candle/workloads.json")
        else:
            m["layers"] = candle_sequential(w)
        if any("kernel_regularizer" in l or "activity_regularizer" in l or "embeddings_regularizer" in l
               for l in w["layers"]):
            notes.append("L2 regularizers are left out: their elementwise ops are negligible next to the GEMMs")
        if notes:
            m["notes"] = notes
        models.append(m)
    return models

# The configurations the CANDLE repository timed on Titan ("Profile runs" in
# Pilot1/NT3/README.md and Pilot1/TC1/README.md on master, added in f8a729c): the same
# networks as the default files, at batch 5 and fewer epochs. Shipped as their own
# workloads so that the measured Titan epoch times apply to exactly what they measured
# (data/studies/candle-exascale.json, docs/calibration.md).
PERF_BENCH = {
    "NT3": {"epochs": 50, "batch_size": 5, "config": "Pilot1/NT3/nt3_perf_bench_model.txt"},
    "TC1": {"epochs": 20, "batch_size": 5, "config": "Pilot1/TC1/tc1_perf_bench_model.txt"},
}


def perf_bench_variants(models):
    out = []
    for m in models:
        if m["name"] not in PERF_BENCH:
            continue
        pb = PERF_BENCH[m["name"]]
        v = dict(m)
        v["name"] = m["name"] + "-perf"
        v["description"] = (m["description"] + ", in the perf-bench configuration the CANDLE repository timed on "
                            "Titan (batch %d, %d epochs)" % (pb["batch_size"], pb["epochs"]))
        v["source"] = (m["source"] + "; batch_size and epochs from ECP-CANDLE/Benchmarks " + pb["config"] +
                       " (master, commit 07d45a6b7cbafad313f3b0ed26901b58aeddd40e), which differs from the default "
                       "file only in them (and the timeout)")
        v["batch_size"] = pb["batch_size"]
        v["epochs"] = pb["epochs"]
        out.append(v)
    return out

# ---------------------------------------------------------------------------------------
# Image networks


def placed(l, name=None, inputs=None, out=None):
    """Adds a layer's name, what it reads and the output shape to check, where given."""
    if name:
        l["name"] = name
    if inputs:
        l["inputs"] = inputs
    if out:
        l["output_shape"] = out
    return l


def conv(filters, k, stride=1, padding="valid", act="relu", bias=True, groups=1, **where):
    l = {"type": "conv2d", "filters": filters, "kernel_size": k}
    if stride != 1:
        l["strides"] = stride
    if padding != "valid":
        l["padding"] = padding
    if groups != 1:
        l["groups"] = groups
    if not bias:
        l["use_bias"] = False
    if act:
        l["activation"] = act
    return placed(l, **where)


def maxpool(size, stride, padding="valid", **where):
    l = {"type": "maxpool2d", "pool_size": size, "strides": stride}
    if padding != "valid":
        l["padding"] = padding
    return placed(l, **where)


def imagenet(name, description, batch, epochs, optimizer, layers, notes):
    return {"name": name, "description": description, "batch_size": batch, "samples_per_epoch": IMAGENET_TRAIN,
            "epochs": epochs, "optimizer": optimizer, "loss": "categorical_crossentropy", "notes": notes,
            "input_shape": [224, 224, 3] if name != "alexnet" else [227, 227, 3], "layers": layers}


def alexnet():
    # Krizhevsky, Sutskever, Hinton 2012: conv2, conv4 and conv5 are split over two GPUs
    # (groups 2); conv3 and the dense layers see both halves.
    layers = [
        conv(96, 11, stride=4, out=[55, 55, 96]),
        {"type": "lrn", "size": 5},
        maxpool(3, 2, out=[27, 27, 96]),
        conv(256, 5, padding=2, groups=2, out=[27, 27, 256]),
        {"type": "lrn", "size": 5},
        maxpool(3, 2, out=[13, 13, 256]),
        conv(384, 3, padding=1, out=[13, 13, 384]),
        conv(384, 3, padding=1, groups=2, out=[13, 13, 384]),
        conv(256, 3, padding=1, groups=2, out=[13, 13, 256]),
        maxpool(3, 2, out=[6, 6, 256]),
        {"type": "flatten", "output_shape": [9216]},
        {"type": "dense", "units": 4096, "activation": "relu"},
        {"type": "dropout", "rate": 0.5},
        {"type": "dense", "units": 4096, "activation": "relu"},
        {"type": "dropout", "rate": 0.5},
        {"type": "dense", "units": 1000, "activation": "softmax"},
    ]
    return imagenet("alexnet", "AlexNet, the original two-group network on 227x227 inputs (Krizhevsky et al. 2012)",
                    128, 90, {"type": "sgd", "momentum": 0.9}, layers,
                    ["batch 128, SGD with momentum 0.9, about 90 epochs over ILSVRC-2012's 1,281,167 training "
                     "images, as in the paper"])


def vgg16():
    layers = []
    for block, (filters, convs) in enumerate([(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)]):
        for _ in range(convs):
            layers.append(conv(filters, 3, padding="same"))
        layers.append(maxpool(2, 2))
    layers += [{"type": "flatten", "output_shape": [25088]},
               {"type": "dense", "units": 4096, "activation": "relu"}, {"type": "dropout", "rate": 0.5},
               {"type": "dense", "units": 4096, "activation": "relu"}, {"type": "dropout", "rate": 0.5},
               {"type": "dense", "units": 1000, "activation": "softmax"}]
    return imagenet("vgg16", "VGG-16 (configuration D, Simonyan & Zisserman 2014)", 256, 74,
                    {"type": "sgd", "momentum": 0.9}, layers,
                    ["batch 256, SGD with momentum 0.9, 74 epochs (370K iterations) over ILSVRC-2012's 1,281,167 "
                     "training images, as in the paper"])


def resnet50():
    # He et al. 2015 bottleneck blocks with the stride on the 3x3 convolution (torchvision's
    # "v1.5", the form MLPerf trains); convolutions without bias, each followed by batch norm.
    layers = [conv(64, 7, stride=2, padding=3, act=None, bias=False, name="stem.conv"),
              {"type": "batchnorm", "name": "stem.bn"}, {"type": "activation", "activation": "relu", "name": "stem.relu"},
              maxpool(3, 2, padding=1, name="stem.pool")]
    prev = "stem.pool"
    for stage, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], start=1):
        for b in range(blocks):
            p = "s%d.b%d." % (stage, b)
            s = stride if b == 0 else 1
            layers += [conv(width, 1, act=None, bias=False, name=p + "conv1", inputs=[prev]),
                       {"type": "batchnorm", "name": p + "bn1"}, {"type": "activation", "activation": "relu", "name": p + "relu1"},
                       conv(width, 3, stride=s, padding=1, act=None, bias=False, name=p + "conv2"),
                       {"type": "batchnorm", "name": p + "bn2"}, {"type": "activation", "activation": "relu", "name": p + "relu2"},
                       conv(4 * width, 1, act=None, bias=False, name=p + "conv3"),
                       {"type": "batchnorm", "name": p + "bn3"}]
            shortcut = prev
            if b == 0:
                layers += [conv(4 * width, 1, stride=s, act=None, bias=False, name=p + "proj", inputs=[prev]),
                           {"type": "batchnorm", "name": p + "proj.bn"}]
                shortcut = p + "proj.bn"
            layers += [{"type": "add", "name": p + "add", "inputs": [p + "bn3", shortcut]},
                       {"type": "activation", "activation": "relu", "name": p + "out"}]
            prev = p + "out"
    layers += [{"type": "global_avgpool2d", "output_shape": [2048]},
               {"type": "dense", "units": 1000, "activation": "softmax"}]
    model = imagenet("resnet50", "ResNet-50 (He et al. 2015), stride on the 3x3 convolutions (torchvision v1.5)", 256,
                     90, {"type": "sgd", "momentum": 0.9}, layers,
                     ["batch 256, SGD with momentum 0.9 and 90 epochs over ILSVRC-2012's 1,281,167 training images "
                      "(the paper's batch; the common 90-epoch schedule)",
                      "parameters include batch norm's moving statistics (Keras counts them: 53,120 of them here)",
                      "torchvision's model in PyTorch's default memory format, channels first (NCHW); give "
                      "channels_last for a run with memory_format=torch.channels_last"])
    model["memory_format"] = "channels_first"
    return model


def googlenet():
    # Szegedy et al. 2014 (Table 1), as BVLC's Caffe model without the two auxiliary
    # classifiers, which only training adds and which the paper's parameter counts leave out.
    inception = [("3a", 64, 96, 128, 16, 32, 32), ("3b", 128, 128, 192, 32, 96, 64), None,
                 ("4a", 192, 96, 208, 16, 48, 64), ("4b", 160, 112, 224, 24, 64, 64),
                 ("4c", 128, 128, 256, 24, 64, 64), ("4d", 112, 144, 288, 32, 64, 64),
                 ("4e", 256, 160, 320, 32, 128, 128), None,
                 ("5a", 256, 160, 320, 32, 128, 128), ("5b", 384, 192, 384, 48, 128, 128)]
    layers = [conv(64, 7, stride=2, padding="same", name="conv1"), maxpool(3, 2, padding="same", name="pool1"),
              {"type": "lrn", "size": 5, "name": "norm1"},
              conv(64, 1, name="conv2.reduce"), conv(192, 3, padding="same", name="conv2"),
              {"type": "lrn", "size": 5, "name": "norm2"}, maxpool(3, 2, padding="same", name="pool2")]
    prev = "pool2"
    pools = 3
    for spec in inception:
        if spec is None:
            layers.append(maxpool(3, 2, padding="same", name="pool%d" % pools, inputs=[prev]))
            prev = "pool%d" % pools
            pools += 1
            continue
        n, c1, r3, c3, r5, c5, pp = spec
        p = "inception" + n + "."
        layers += [conv(c1, 1, name=p + "1x1", inputs=[prev]),
                   conv(r3, 1, name=p + "3x3.reduce", inputs=[prev]), conv(c3, 3, padding="same", name=p + "3x3"),
                   conv(r5, 1, name=p + "5x5.reduce", inputs=[prev]), conv(c5, 5, padding="same", name=p + "5x5"),
                   maxpool(3, 1, padding="same", name=p + "pool", inputs=[prev]), conv(pp, 1, name=p + "pool.proj"),
                   {"type": "concatenate", "name": p + "out",
                    "inputs": [p + "1x1", p + "3x3", p + "5x5", p + "pool.proj"]}]
        prev = p + "out"
    layers += [{"type": "global_avgpool2d", "inputs": [prev], "output_shape": [1024]},
               {"type": "dropout", "rate": 0.4}, {"type": "dense", "units": 1000, "activation": "softmax"}]
    return imagenet("googlenet", "GoogLeNet (Inception v1, Szegedy et al. 2014) without the auxiliary classifiers",
                    32, 60, {"type": "sgd", "momentum": 0.9}, layers,
                    ["batch 32, SGD with momentum 0.9, about 60 epochs (BVLC's Caffe reference training, "
                     "2.4M iterations of 32) over ILSVRC-2012's 1,281,167 training images",
                     "the paper's Table 1 sums to 6.8M parameters, but the layers it lists hold 6,998,552 "
                     "(with biases, without the auxiliary classifiers)"])

# ---------------------------------------------------------------------------------------
# Transformers


def language_model(name, description, batch, samples, epochs, notes, seq, input_names, layers):
    return {"name": name, "description": description, "batch_size": batch, "samples_per_epoch": samples,
            "epochs": epochs, "optimizer": "adamw", "loss": "sparse_categorical_crossentropy", "notes": notes,
            "inputs": [{"name": n, "shape": [seq], "dtype": "int64"} for n in input_names], "layers": layers}


def bert_base():
    s, d, layers = 128, 768, []
    layers += [{"type": "embedding", "name": "word_embeddings", "input_dim": 30522, "output_dim": d,
                "inputs": ["input_ids"]},
               {"type": "embedding", "name": "position_embeddings", "input_dim": 512, "output_dim": d,
                "inputs": ["position_ids"]},
               {"type": "embedding", "name": "token_type_embeddings", "input_dim": 2, "output_dim": d,
                "inputs": ["token_type_ids"]},
               {"type": "add", "name": "embeddings",
                "inputs": ["word_embeddings", "position_embeddings", "token_type_embeddings"]},
               {"type": "layernorm", "epsilon": 1e-12}, {"type": "dropout", "rate": 0.1}]
    # BERT's reference PyTorch code (Hugging Face's and NVIDIA DeepLearningExamples'
    # BertSelfAttention) divides the scores, adds the mask and merges the heads with
    # .contiguous(), each its own kernel: attention_kernels "eager".
    for i in range(12):
        layers.append({"type": "transformer_block", "name": "encoder.%d" % i, "heads": 12, "ff_units": 3072,
                       "activation": "gelu", "norm": "post", "dropout": 0.1, "attention_kernels": "eager"})
    layers += [
        # Masked-LM head on every position (as Hugging Face computes it), decoder tied to the
        # word embeddings with its own bias.
        {"type": "dense", "name": "mlm.transform", "units": d, "activation": "gelu", "inputs": ["encoder.11"]},
        {"type": "layernorm", "name": "mlm.norm", "epsilon": 1e-12},
        {"type": "dense", "name": "mlm.decoder", "units": 30522, "share_weights": "word_embeddings",
         "output_shape": [s, 30522]},
        # Next-sentence head on the first token, through the pooler.
        {"type": "slice", "name": "cls", "inputs": ["encoder.11"], "axis": 0, "begin": 0, "size": 1},
        {"type": "flatten", "name": "cls.flat"},
        {"type": "dense", "name": "pooler", "units": d, "activation": "tanh"},
        {"type": "dense", "name": "nsp", "units": 2},
    ]
    return language_model(
        "bert-base", "BERT-base (Devlin et al. 2018) pre-training at sequence length 128: masked LM and "
                     "next-sentence heads", 256, 6400000, 40,
        ["batch 256 sequences of 128 tokens; 40 epochs of 6.4M sequences is the paper's 1M steps of "
         "256 (the paper runs 90% of them at length 128)",
         "110,106,428 parameters: BertModel with pooler 109,482,240 plus the pre-training heads (MLM "
         "transform, norm and decoder bias, NSP classifier); the MLM decoder reuses the word embeddings"],
        s, ["input_ids", "position_ids", "token_type_ids"], layers)


# GPT-2's four sizes (Radford et al. 2019, Table 2; the released checkpoints' configs):
# layers, width, heads, the parameter count with the LM head tied (Hugging Face's
# GPT2LMHeadModel), and the batch the model file starts from.
GPT2_SIZES = {
    "gpt2-small": (12, 768, 12, "124M", 12,
                   "batch 12 sequences of 1024 tokens (nanoGPT's per-GPU micro-batch for its GPT-2 124M "
                   "reproduction)"),
    "gpt2-medium": (24, 1024, 16, "355M", 8,
                    "batch 8 sequences of 1024 tokens, a starting point (set --batch); the 24-layer, "
                    "1024-wide, 16-head shape is also Megatron-LM's 'GPT-2 345M' example"),
    "gpt2-large": (36, 1280, 20, "774M", 4, "batch 4 sequences of 1024 tokens, a starting point (set --batch)"),
    "gpt2-xl": (48, 1600, 25, "1.5B", 2, "batch 2 sequences of 1024 tokens, a starting point (set --batch)"),
}


# Megatron-LM's GPT-2 scaling configurations (Shoeybi et al. 2019, "Megatron-LM: Training
# Multi-Billion Parameter Language Models Using Model Parallelism", Table 1): layers, hidden
# size, heads, parameters, the model-parallel GPUs the paper ran each on; vocabulary padded to
# 51,200, context 1024, batch 8 as in NVIDIA's "MegatronLM's Supercharged V1.0" weak-scaling
# table (nv-adlr.github.io/MegatronLMV1). Its attention of that time ran each step as its own
# kernel (scores scaled, masked, softmax, dropout, heads merged with .contiguous()): "eager".
MEGATRON_SIZES = {
    "megatron-gpt2-1.2b": (40, 1536, 16, "1.2B", 1),
    "megatron-gpt2-2.5b": (54, 1920, 20, "2.5B", 2),
    "megatron-gpt2-4.2b": (64, 2304, 24, "4.2B", 4),
    "megatron-gpt2-8.3b": (72, 3072, 32, "8.3B", 8),
}


def gpt2_layers(n_layer, d, heads, vocab, attention_kernels=None):
    s, layers = 1024, []
    layers += [{"type": "embedding", "name": "wte", "input_dim": vocab, "output_dim": d, "inputs": ["input_ids"]},
               {"type": "embedding", "name": "wpe", "input_dim": 1024, "output_dim": d, "inputs": ["position_ids"]},
               {"type": "add", "name": "embeddings", "inputs": ["wte", "wpe"]}, {"type": "dropout", "rate": 0.1}]
    for i in range(n_layer):
        block = {"type": "transformer_block", "name": "h.%d" % i, "heads": heads, "ff_units": 4 * d,
                 "activation": "gelu", "norm": "pre", "causal": True, "fused_qkv": True, "dropout": 0.1}
        if attention_kernels:
            block["attention_kernels"] = attention_kernels
        layers.append(block)
    layers += [{"type": "layernorm", "name": "ln_f", "epsilon": 1e-5},
               {"type": "dense", "name": "lm_head", "units": vocab, "use_bias": False, "share_weights": "wte",
                "output_shape": [s, vocab]}]
    return layers


def megatron_gpt2(name):
    n_layer, d, heads, size, gpus = MEGATRON_SIZES[name]
    return language_model(
        name, "Megatron-LM GPT-2 %s (Shoeybi et al. 2019, Table 1): %d layers, hidden %d, %d heads, "
              "vocabulary padded to 51,200, context 1024, LM head tied to the token embeddings" % (size, n_layer, d, heads),
        8, 8823810, 1,
        ["batch 8 sequences of 1024 tokens, the weak-scaling runs of Megatron-LM v1.0; the paper ran this size "
         "%d-way tensor parallel (--parallel tp=%d); its runs checkpoint every block (--recompute) and train in "
         "fp16 (--precision fp16); docs/parallel.md compares them; one epoch taken as OpenWebText's 8,823,810 "
         "sequences of 1024, as for gpt2-*" % (gpus, gpus)],
        1024, ["input_ids", "position_ids"], gpt2_layers(n_layer, d, heads, 51200, "eager"))


def gpt2(name):
    n_layer, d, heads, size, batch, batch_note = GPT2_SIZES[name]
    s, layers = 1024, gpt2_layers(n_layer, d, heads, 50257)
    label = {"gpt2-small": "small", "gpt2-medium": "medium", "gpt2-large": "large", "gpt2-xl": "XL"}[name]
    return language_model(
        name, "GPT-2 %s (Radford et al. 2019), %s parameters, context 1024, LM head tied to the "
              "token embeddings" % (label, size), batch, 8823810, 1,
        [batch_note + "; one epoch is OpenWebText's 9,035,582,198 training tokens in 8,823,810 "
         "sequences of 1024" + ("; that reproduction runs about 32 such epochs" if name == "gpt2-small" else "")],
        s, ["input_ids", "position_ids"], layers)

# ---------------------------------------------------------------------------------------


def dump(model):
    """One layer per line: diffs stay readable and the files stay small."""
    lines = ["{"]
    keys = [k for k in model if k != "layers"]
    for k in keys:
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(model[k])))
    lines.append('  "layers": [')
    for i, l in enumerate(model["layers"]):
        lines.append("    " + json.dumps(l) + ("," if i + 1 < len(model["layers"]) else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    out_dir = os.path.join(ROOT, "data", "models")
    os.makedirs(out_dir, exist_ok=True)
    candle = candle_models()
    models = candle + perf_bench_variants(candle) + [alexnet(), vgg16(), resnet50(), googlenet(), bert_base()]
    models += [gpt2(name) for name in GPT2_SIZES]
    models += [megatron_gpt2(name) for name in MEGATRON_SIZES]
    stale = []
    for m in models:
        path = os.path.join(out_dir, m["name"] + ".json")
        text = dump(m)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(path)
            if not check:
                with open(path, "w") as f:
                    f.write(text)
    if check and stale:
        print("gen_models: out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    print("gen_models: %d models %s" % (len(models), "checked" if check else "written to data/models/"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
