#!/usr/bin/env python3
"""Tracer positions from vortexfmm checkpoints (vortex/checkpoint.h), and their gaps.

ckpt_tracers.py REF.ckpt OTHER.ckpt... : for each OTHER, the tracers' distance to REF's (same seed,
same count): max, 99th percentile, median and rms, in units of the ring radius R (0.3)."""
import struct, sys
import numpy as np

V1 = 64 + 3 * 8 + (5 * 4 + 2 * 8 + 3 * 4 + 8 + 8 + 2 * 4 + 4 * 8) + (8 + 8 + 4 + 8 + 4 + 2 * 8) + (8 + 3 * 4 + 3 * 8) + 2 * 4


def fixed(v):
    return V1 + (4 if v >= 2 else 0) + (24 if v >= 3 else 0) + (24 if v >= 4 else 0)


def tracers(path):
    b = open(path, "rb").read()
    assert b[:8] == b"VXFMMCKP", path
    v = struct.unpack_from("<I", b, 8)[0]
    p = b[32:]
    f = fixed(v)
    ne, nt = struct.unpack_from("<ii", p, f - 8)
    pos = np.frombuffer(p, "<f8", 3 * (ne + nt), f).reshape(-1, 3)
    return ne, pos[ne:]


if __name__ == "__main__":
    R = 0.3
    ne0, ref = tracers(sys.argv[1])
    print("reference %s: %d elements, %d tracers" % (sys.argv[1], ne0, len(ref)))
    for o in sys.argv[2:]:
        ne, t = tracers(o)
        d = np.linalg.norm(t - ref, axis=1) / R
        print("%-28s %6d elements  gap/R: max %.3e  p99 %.3e  median %.3e  rms %.3e" % (
            o, ne, d.max(), np.percentile(d, 99), np.median(d), np.sqrt((d * d).mean())))
