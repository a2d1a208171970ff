#!/usr/bin/env python3
"""Makes the small xplane fuzz seed in tests/fuzz/seeds/ from the shared JAX profile.

A developer tool, run by hand (the seed is committed; fomcast never runs Python). The
shared .xplane.pb is 267 KB, most of it the HLO proto in /host:metadata. The seed is an
XSpace holding only the smallest /device: plane, whole, so it is still a profile that
fomcast ingests.

    python3 tests/fuzz/make_xplane_seed.py ../shared tests/fuzz/seeds
"""
import os
import sys


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
    src = os.path.join(shared, "traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb")
    data = open(src, "rb").read()
    pos, planes = 0, []
    while pos < len(data):
        key, start = varint(data, pos)
        n, body = varint(data, start)
        if key == (1 << 3) | 2 and b"/device:" in data[body:body + 64]:
            planes.append(data[pos:body + n])
        pos = body + n
    with open(os.path.join(out, "jax_conv.small.xplane.pb"), "wb") as f:
        f.write(min(planes, key=len))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
