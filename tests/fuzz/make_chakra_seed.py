#!/usr/bin/env python3
"""Makes the small chakra-et fuzz seed in tests/fuzz/seeds/ from the shared Chakra trace.

A developer tool, run by hand (the seed is committed; fomcast never runs Python). The
shared .et is 2.9 MB: too big for the fuzzer to mutate usefully. The seed keeps its
GlobalMetadata and its first nodes, whole messages only, up to about 48 KB, so it is still
a valid trace (CPU ops, the kernels they launched, a broadcast) that fomcast ingests.

    python3 tests/fuzz/make_chakra_seed.py ../shared tests/fuzz/seeds
"""
import os
import sys

LIMIT = 48 * 1024


def varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def main(shared, out):
    src = os.path.join(shared, "traces/chakra/chakra_feeder_tests_chakra.0.et")
    data = open(src, "rb").read()
    pos, end = 0, 0
    while pos < len(data):
        n, start = varint(data, pos)
        if start + n > LIMIT and end > 0:
            break
        pos = end = start + n
    with open(os.path.join(out, "chakra_feeder_tests.small.et"), "wb") as f:
        f.write(data[:end])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
