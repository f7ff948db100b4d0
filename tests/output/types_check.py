"""Every element type and stride, through the VTP and PLY writers
(write-views), read back with VTK and an independent PLY parser."""
import os

import numpy as np

from outcheck import read_ply, read_vtp


def run(t, d, n):
    i = np.arange(n)
    want = {
        "f32": (i[:, None] / 8.0 + np.arange(3)).astype(np.float32),
        "u8": (i % 251).astype(np.uint8),
        "i64": i.astype(np.int64) * 1000000007 - 5,
        "i32": (-i).astype(np.int32),
        "u32": (4000000000 - i).astype(np.uint32),
        "d5": i[:, None] * 0.25 - np.arange(5),
    }
    pos = 0.5 * i[:, None] + np.arange(3)

    def vtp(name, m):
        pts, a, fd = read_vtp(os.path.join(d, name))
        assert np.array_equal(pts, pos[:m])
        assert set(a) == set(want), sorted(a)
        for k, w in want.items():
            assert a[k].dtype == w.dtype, (k, a[k].dtype, w.dtype)
            assert np.array_equal(a[k], w[:m]), k
        assert fd["TimeValue"][0] == 1.25


    t.check("VTK reads every type, strided or not, with its own type",
            lambda: vtp("types.vtp", n))
    t.check("a second view through the same writer buffer reads back exactly",
            lambda: vtp("third.vtp", n // 3))


    def ply():
        com, v = read_ply(os.path.join(d, "types.ply"))
        assert com == ["synthetic"], com
        names = ["x", "y", "z", "f32_x", "f32_y", "f32_z", "u8", "i64", "i32",
                 "u32", "d5_0", "d5_1", "d5_2", "d5_3", "d5_4"]
        assert list(v.dtype.names) == names, v.dtype.names
        assert np.array_equal(np.stack([v["x"], v["y"], v["z"]], 1), pos)
        f32 = np.stack([v["f32_" + c] for c in "xyz"], 1)
        assert f32.dtype == np.float32 and np.array_equal(f32, want["f32"])
        assert v["u8"].dtype == np.uint8 and np.array_equal(v["u8"], want["u8"])
        assert v["i64"].dtype == np.float64  # PLY has no 64-bit integers
        assert np.array_equal(v["i64"], want["i64"].astype(np.float64))
        assert v["i32"].dtype == np.int32 and np.array_equal(v["i32"], want["i32"])
        assert v["u32"].dtype == np.uint32 and np.array_equal(v["u32"], want["u32"])
        d5 = np.stack([v["d5_%d" % c] for c in range(5)], 1)
        assert np.array_equal(d5, want["d5"])


    t.check("the PLY holds every type under its PLY name, values exact", ply)
