#!/usr/bin/env python3
"""Makes the small protobuf fuzz seeds in tests/fuzz/seeds/ from the shared traces.

A developer tool, run by hand (the seeds are committed; fomcast never runs Python). The
shared protobuf traces are too big for the fuzzer to mutate usefully; each seed is still a
valid trace that fomcast ingests:
  - chakra_feeder_tests.small.et: the Chakra trace's GlobalMetadata and first nodes, whole
    messages only, up to about 48 KB (CPU ops, the kernels they launched, a broadcast);
  - jax_conv.small.xplane.pb: the JAX profile's smallest /device: plane, whole, as an XSpace
    (the shared file is mostly the HLO proto in /host:metadata).

    python3 tests/fuzz/make_protobuf_seeds.py ../shared tests/fuzz/seeds
"""
import os
import sys

CHAKRA_LIMIT = 48 * 1024


def varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def chakra_seed(shared):
    data = open(os.path.join(shared, "traces/chakra/chakra_feeder_tests_chakra.0.et"), "rb").read()
    pos, end = 0, 0
    while pos < len(data):  # a varint length, then a message
        n, start = varint(data, pos)
        if start + n > CHAKRA_LIMIT and end > 0:
            break
        pos = end = start + n
    return data[:end]


def xplane_seed(shared):
    path = "traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb"
    data = open(os.path.join(shared, path), "rb").read()
    pos, planes = 0, []
    while pos < len(data):  # XSpace fields: key, length, bytes
        key, start = varint(data, pos)
        n, body = varint(data, start)
        if key == (1 << 3) | 2 and b"/device:" in data[body:body + 64]:
            planes.append(data[pos:body + n])
        pos = body + n
    return min(planes, key=len)


def main(shared, out):
    for name, make in (("chakra_feeder_tests.small.et", chakra_seed), ("jax_conv.small.xplane.pb", xplane_seed)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(make(shared))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
