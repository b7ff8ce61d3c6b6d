#!/usr/bin/python3
"""check_vtp.py — reads vortexfmm's ParaView export with VTK's own reader and checks it against the
run's diagnostics CSV. Used by tests/test_vortex_vtk.c; needs python3-vtk9 (scripts/setup).

  /usr/bin/python3 tests/check_vtp.py DIR/SCENE.pvd DIAG.csv N_ELEM N_TRACER STEP [STEP ...]

Checks: the .pvd lists exactly the given steps with their simulated times; each .vtp opens with
vtkXMLPolyDataReader, has N_ELEM + N_TRACER points and as many vertex cells, the arrays alpha (3),
velocity (3), vorticity_magnitude (1), type (1), ring (1) of one tuple per point; type is 0 on the
elements and 1 on the tracers, ring is -1 on the tracers; Σα equals the CSV's W at that step, the
time equals its time; vorticity_magnitude = |α| / particle_volume; velocities are finite and the
elements move. Exit 0 when all hold, 1 with a message otherwise."""
import csv
import math
import os
import sys
import xml.etree.ElementTree as ET

try:
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError as e:
    sys.exit("check_vtp.py: cannot import vtk (%s): install the Debian package python3-vtk9 (scripts/setup)" % e)

ARRAYS = {"alpha": 3, "velocity": 3, "vorticity_magnitude": 1, "type": 1, "ring": 1}


def fail(msg):
    sys.exit("check_vtp.py: " + msg)


def read_diag(path):
    """Rows of the diagnostics CSV by step (the '# key = value' lines before the header skipped)."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return {int(r["step"]): r for r in rows}


def close(a, b, scale):
    return abs(a - b) <= 1e-9 * scale + 1e-12


def check_snapshot(path, t_pvd, row, ne, nt):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        fail("%s: VTK reader error %d" % (path, r.GetErrorCode()))
    pd = r.GetOutput()
    n = ne + nt
    if pd.GetNumberOfPoints() != n or pd.GetNumberOfVerts() != n:
        fail("%s: %d points and %d vertex cells, expected %d" % (path, pd.GetNumberOfPoints(), pd.GetNumberOfVerts(), n))
    arr = {}
    for name, comps in ARRAYS.items():
        a = pd.GetPointData().GetArray(name)
        if a is None:
            fail("%s: no point array '%s'" % (path, name))
        if a.GetNumberOfComponents() != comps or a.GetNumberOfTuples() != n:
            fail("%s: array %s is %d x %d, expected %d x %d" % (path, name, a.GetNumberOfTuples(), a.GetNumberOfComponents(), n, comps))
        arr[name] = vtk_to_numpy(a)
    fd = pd.GetFieldData()
    t = fd.GetArray("TimeValue").GetValue(0)
    vol = fd.GetArray("particle_volume").GetValue(0)
    if not close(t, t_pvd, 1.0) or not close(t, float(row["time"]), 1.0):
        fail("%s: TimeValue %.17g, the .pvd says %.17g, the CSV %s" % (path, t, t_pvd, row["time"]))
    typ, ring, alpha = arr["type"], arr["ring"], arr["alpha"]
    if (typ[:ne] != 0).any() or (typ[ne:] != 1).any():
        fail("%s: type is not 0 on the %d elements and 1 on the %d tracers" % (path, ne, nt))
    if (ring[ne:] != -1).any() or (ring[:ne] < 0).any():
        fail("%s: ring is not >= 0 on the elements and -1 on the tracers" % path)
    if (alpha[ne:] != 0).any():
        fail("%s: tracers carry a strength" % path)
    amag = (alpha ** 2).sum(axis=1) ** 0.5
    scale = float(amag.sum())
    for i, c in enumerate("xyz"):
        w = float(alpha[:, i].sum())
        if not close(w, float(row["W" + c]), scale):
            fail("%s: sum of alpha_%s = %.12g, the diagnostics' W%s = %s" % (path, c, w, c, row["W" + c]))
    if not close(scale, float(row["sum_abs_alpha"]), scale):
        fail("%s: sum |alpha| = %.12g, the diagnostics' sum_abs_alpha = %s" % (path, scale, row["sum_abs_alpha"]))
    vort = arr["vorticity_magnitude"]
    if abs(vort - amag / vol).max() > 1e-9 * (amag.max() / vol):
        fail("%s: vorticity_magnitude is not |alpha| / particle_volume" % path)
    vel = arr["velocity"]
    if not all(math.isfinite(x) for x in vel.ravel()) or not (abs(vel[:ne]).max() > 0):
        fail("%s: velocities not finite, or the elements do not move" % path)
    pts = vtk_to_numpy(pd.GetPoints().GetData())
    print("  ok: %s: %d points, t = %g, sum alpha = (%.6g, %.6g, %.6g), max |u| %.4g, centroid z %.6f"
          % (os.path.basename(path), n, t, *alpha.sum(axis=0), abs(vel).max(), pts[:ne, 2].mean()))


def main():
    if len(sys.argv) < 6:
        fail("usage: check_vtp.py PVD CSV N_ELEM N_TRACER STEP [STEP ...]")
    pvd, diag, ne, nt = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    steps = [int(s) for s in sys.argv[5:]]
    rows = read_diag(diag)
    sets = ET.parse(pvd).getroot().findall("./Collection/DataSet")
    files = [(d.get("file"), float(d.get("timestep"))) for d in sets]
    want = [os.path.basename(pvd)[:-4] + "_%06d.vtp" % s for s in steps]
    if [f for f, _ in files] != want:
        fail("%s lists %s, expected %s" % (pvd, [f for f, _ in files], want))
    for (f, t), s in zip(files, steps):
        if s not in rows:
            fail("%s has no row for step %d" % (diag, s))
        check_snapshot(os.path.join(os.path.dirname(pvd), f), t, rows[s], ne, nt)
    print("check_vtp.py: %d snapshots checked" % len(files))


if __name__ == "__main__":
    main()
