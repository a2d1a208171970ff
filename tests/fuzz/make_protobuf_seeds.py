#!/usr/bin/env python3
"""Makes the small protobuf fuzz seeds in tests/fuzz/seeds/ from the shared traces.

A developer tool, run by hand (the seeds are committed; fomcast never runs Python). The
shared protobuf traces are too big for the fuzzer to mutate usefully; each seed is still a
valid trace that fomcast ingests:
  - chakra_feeder_tests.small.et: the Chakra trace's GlobalMetadata and first nodes, whole
    messages only, up to about 48 KB (CPU ops, the kernels they launched, a broadcast);
  - jax_conv.small.xplane.pb: the JAX profile's smallest /device: plane, whole, and its
    /host:metadata plane cut down to the one compiled module those kernels ran (its
    HloProto), as an XSpace (the shared file is mostly the HloProtos of other modules).

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


def encode_varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def fields(message):
    """(field number, the field's whole encoding, its payload) for length-delimited fields."""
    pos, out = 0, []
    while pos < len(message):
        start = pos
        key, pos = varint(message, pos)
        if key & 7 == 0:
            _, pos = varint(message, pos)
            out.append((key >> 3, message[start:pos], None))
        elif key & 7 == 2:
            n, body = varint(message, pos)
            pos = body + n
            out.append((key >> 3, message[start:pos], message[body:pos]))
        else:
            raise ValueError("unexpected wire type")
    return out


def xplane_seed(shared):
    path = "traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb"
    data = open(os.path.join(shared, path), "rb").read()
    devices, metadata = [], b""
    for number, whole, plane in fields(data):
        if number != 1:
            continue
        if b"/device:" in plane[:64]:
            devices.append(whole)
        elif b"/host:metadata" in plane[:64]:
            # Keep the plane's name, its stat metadata, and the one module entry.
            kept = b"".join(w for n, w, body in fields(plane)
                            if n in (1, 2, 5) or (n == 4 and b"jit_forward_3d_conv" in body))
            metadata = encode_varint((1 << 3) | 2) + encode_varint(len(kept)) + kept
    return metadata + min(devices, key=len)


def main(shared, out):
    for name, make in (("chakra_feeder_tests.small.et", chakra_seed), ("jax_conv.small.xplane.pb", xplane_seed)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(make(shared))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
