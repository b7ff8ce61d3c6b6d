#!/usr/bin/env python3
"""make_bad_checkpoints.py — the damaged checkpoints of tests/bad_inputs/cases_checkpoint.txt.

Each is tests/bad_inputs/ok.ckpt with one field set to a value no run can have and the payload's
FNV-1a 64 checksum recomputed, so that the file passes the checksum and reaches the checks by
meaning (io/checkpoint.c). The layout is io/checkpoint.h's, every format version (1 to 7) read.
    scripts/make_bad_checkpoints.py [DIR]      (DIR: tests/bad_inputs, where ok.ckpt is)
"""
import math
import os
import struct
import sys

HEADER = 32
# (name, struct format, first version that has it), in file order (io/checkpoint.c put_* functions)
META = [("scene", "64s", 1), ("seed", "<Q", 1), ("run_steps", "<q", 1), ("diag_every", "<q", 1)]
PARAMS = [("backend", "<i", 1), ("precision", "<i", 1), ("order", "<i", 1), ("leaf_size", "<i", 1), ("kernel", "<i", 1),
          ("sigma", "<d", 1), ("dt", "<d", 1), ("integrator", "<i", 1), ("stretching", "<i", 1), ("direct", "<i", 1),
          ("tracers", "<q", 1), ("relax", "<d", 1), ("relax_every", "<i", 1), ("remesh_every", "<i", 1),
          ("remesh_h", "<d", 1), ("remesh_drop", "<d", 1), ("viscosity", "<d", 1), ("lcfl", "<d", 1),
          ("conserve", "<i", 2), ("origin_x", "<d", 3), ("origin_y", "<d", 3), ("origin_z", "<d", 3),
          ("tracer_every", "<i", 4), ("remesh_coarsen", "<d", 5), ("dye_release", "<d", 6), ("spread", "<d", 7)]
# the dye release's state (io/checkpoint.c put_dye): seed, count, sources, then 16 source slots
DYE_SOURCE = [("first", "<i"), ("count", "<i"), ("perturb_mode", "<i"), ("centre_x", "<d"), ("centre_y", "<d"),
              ("centre_z", "<d"), ("axis_x", "<d"), ("axis_y", "<d"), ("axis_z", "<d"), ("radius", "<d"),
              ("perturb_amp", "<d"), ("spread", "<d")]
DYE = [("dye_seed", "<Q", 6), ("dye_released", "<q", 6), ("dye_sources", "<i", 6)] + \
      [(f"dye_source[{i}].{name}", fmt, 6) for i in range(16) for name, fmt in DYE_SOURCE]
STATE = [("t", "<d", 1), ("steps", "<q", 1), ("n_rings", "<i", 1), ("since_remesh", "<d", 1),
         ("steps_since_remesh", "<i", 1), ("amax0", "<d", 1), ("max_gradu", "<d", 1), ("remesh_count", "<q", 1),
         ("n_before", "<i", 1), ("n_nodes", "<i", 1), ("n_after", "<i", 1), ("c2", "<d", 1), ("h", "<d", 1),
         ("ms", "<d", 1), ("tr_m", "<i", 4), ("tr_steps", "<i", 4), ("tr_stage", "<i", 4), ("tr_h", "<d", 4)] + DYE + \
        [("n_elem", "<i", 1), ("n_tracer", "<i", 1)]


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def layout(buf):
    """Offsets (in the file) and formats of the fixed fields and the arrays of a checkpoint."""
    version = struct.unpack_from("<I", buf, 8)[0]
    at, fields = HEADER, {}
    for name, fmt, since in META + PARAMS + STATE:
        if version >= since:
            fields[name] = (at, fmt)
            at += struct.calcsize(fmt)
    ne = struct.unpack_from("<i", buf, fields["n_elem"][0])[0]
    nt = struct.unpack_from("<i", buf, fields["n_tracer"][0])[0]
    fields["position[0].x"] = (at, "<d")
    fields["strength[0].x"] = (at + 24 * (ne + nt), "<d")
    fields["ring[0]"] = (at + 24 * (ne + nt) + 24 * ne, "<i")
    return fields


def damaged(ok, field, value):
    """ok with field set to value and the checksum made to match."""
    b = bytearray(ok)
    at, fmt = layout(b)[field]
    struct.pack_into(fmt, b, at, value)
    struct.pack_into("<Q", b, 24, fnv1a(b[HEADER:]))
    return bytes(b)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "bad_inputs")
    with open(os.path.join(d, "ok.ckpt"), "rb") as f:
        ok = f.read()
    n_rings = struct.unpack_from("<i", ok, layout(ok)["n_rings"][0])[0]
    cases = {
        "ckpt_diag_every_0": ("diag_every", 0),
        "ckpt_rings_huge": ("n_rings", 2**31 - 1),
        "ckpt_ring_out_of_range": ("ring[0]", n_rings),
        "ckpt_ring_negative": ("ring[0]", -1),
        "ckpt_steps_negative": ("steps", -1),
        "ckpt_nan_position": ("position[0].x", math.nan),
        "ckpt_inf_strength": ("strength[0].x", math.inf),
        "ckpt_time_not_steps": ("t", 1e6),
        "ckpt_dt_zero": ("dt", 0.0),
        "ckpt_order_99": ("order", 99),
        "ckpt_remesh_every_negative": ("remesh_every", -5),
    }
    for name, (field, value) in cases.items():
        with open(os.path.join(d, name + ".ckpt"), "wb") as f:
            f.write(damaged(ok, field, value))
        print(f"{name}.ckpt: {field} = {value}")


if __name__ == "__main__":
    main()
