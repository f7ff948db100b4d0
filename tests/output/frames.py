"""The frames of a run, read back with VTK and an independent PLY parser,
against the run's JSON report; then every element type through both
writers (types.py).  argv: report.json outdir typesdir n"""
import json
import os
import sys

import numpy as np

import types_check
from outcheck import Tap, read_ply, read_pvd, read_vtp

report, out = sys.argv[1], sys.argv[2]
t = Tap()
r = json.load(open(report))
names = [s["name"] for s in r["systems"]]
frames = r["frames"]
# the particles solver's fields (positions are the points) and the core's
CORE = {"velocity", "mass", "radius", "temperature", "specific_heat",
        "system", "meta"}


def pvd_lists_every_frame():
    ds = read_pvd(os.path.join(out, "scene.pvd"))
    want = [(f["time"], p, "%s_%06d.vtp" % (n, f["frame"]))
            for p, n in enumerate(names) for f in frames]
    assert sorted(ds) == sorted(want), (ds[:4], want[:4])
    for p, n in enumerate(names):
        one = read_pvd(os.path.join(out, n + ".pvd"))
        assert [d[2] for d in one] == [w[2] for w in want if w[1] == p]


t.check("scene.pvd and NAME.pvd list every frame with the report's times, "
        "each block named after its system",
        pvd_lists_every_frame)

vtp = {}  # (frame, system) -> (points, arrays)


def read_all_vtp():
    for f in frames:
        for s, n in enumerate(names):
            pts, arr, fd = read_vtp(os.path.join(out, "%s_%06d.vtp" %
                                                 (n, f["frame"])))
            want = f["systems"][s]["particles"]
            assert len(pts) == want, (f["frame"], n, len(pts), want)
            assert set(arr) == CORE, sorted(arr)
            assert fd["TimeValue"][0] == f["time"], (fd, f["time"])
            vtp[f["frame"], s] = (pts, arr)


t.check("every .vtp reads in VTK: particle count, fields, TimeValue",
        read_all_vtp)


def momentum_energy():
    for f in frames:
        for s in range(len(names)):
            _, a = vtp[f["frame"], s]
            m, v = a["mass"], a["velocity"]
            p = (m[:, None] * v).sum(axis=0)
            ke = 0.5 * (m * (v * v).sum(axis=1)).sum()
            rs = f["systems"][s]
            scale = max(1.0, np.abs(rs["momentum"]).max())
            assert np.abs(p - rs["momentum"]).max() <= 1e-12 * scale, (p, rs)
            assert abs(ke - rs["kinetic_energy"]) <= 1e-12 * max(1.0, ke)


t.check("momentum and kinetic energy from the .vtp match the report",
        momentum_energy)


def system_field():
    for (fr, s), (_, a) in vtp.items():
        assert a["system"].dtype == np.int32
        assert (a["system"] == s).all(), (fr, s)


t.check("'system' holds the system index", system_field)


def meta_field():
    seen_cross = False
    checked = 0
    for f in frames:
        ids = [vtp[f["frame"], s][1]["meta"] for s in range(len(names))]
        allid = np.concatenate(ids)
        if f["frame"] == 0:
            assert (allid == -1).all()
            continue
        assert f["steps"] == 1, "scene must take one step per frame"
        used = allid[allid >= 0]
        uniq, size = np.unique(used, return_counts=True)
        assert len(uniq) == f["metas"], (f["frame"], len(uniq), f["metas"])
        if len(uniq):
            assert uniq[0] == 0 and uniq[-1] == len(uniq) - 1, uniq
            assert size.max() == f["meta_size_max"], (size.max(), f)
            assert abs(size.mean() - f["meta_size_mean"]) <= 1e-12
            both = set(ids[0][ids[0] >= 0]) & set(ids[1][ids[1] >= 0])
            seen_cross |= bool(both)
            checked += 1
    assert checked >= 3, "too few frames with meta-particles: %d" % checked
    assert seen_cross, "no meta-particle holds particles of both systems"


t.check("'meta': count, largest and mean size per frame match the report; "
        "meta-particles span both systems", meta_field)


def ply_matches():
    for f in frames:
        for s, n in enumerate(names):
            com, v = read_ply(os.path.join(out, "%s_%06d.ply" %
                                           (n, f["frame"])))
            assert len(v) == f["systems"][s]["particles"]
            want = ["x", "y", "z", "velocity_x", "velocity_y", "velocity_z",
                    "mass", "radius", "temperature", "specific_heat",
                    "system", "meta"]
            assert list(v.dtype.names) == want, v.dtype.names
            assert any("frame %d " % f["frame"] in c for c in com), com
            pts, a = vtp[f["frame"], s]
            xyz = np.stack([v["x"], v["y"], v["z"]], axis=1)
            vel = np.stack([v["velocity_x"], v["velocity_y"],
                            v["velocity_z"]], axis=1)
            assert np.array_equal(xyz, pts)
            assert np.array_equal(vel, a["velocity"])
            for k in ("mass", "radius", "temperature", "specific_heat",
                      "system", "meta"):
                assert np.array_equal(v[k], a[k]), k


t.check("every .ply parses (independent parser) and equals the .vtp "
        "bitwise", ply_matches)
types_check.run(t, sys.argv[3], int(sys.argv[4]))
t.done()
