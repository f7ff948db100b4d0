#!/usr/bin/env python3
"""Write the meshes of the mesh-shape tests and the shipped knot.

    python3 tests/data/meshes/make_meshes.py   (from the source tree's top)

Every vertex is rounded to a 32-bit float first, so the OBJ, STL and PLY
files of one mesh hold the very same vertices (mesh readers store floats).
The meshes are made here, by us, and are free to use: no third-party data.
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def icosphere(level):
    t = (1.0 + math.sqrt(5.0)) / 2.0
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0),
         (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
         (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    v = [tuple(c / math.sqrt(sum(x * x for x in p)) for c in p) for p in v]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11),
         (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8),
         (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
         (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(level):
        mid = {}

        def m(a, b):
            k = (min(a, b), max(a, b))
            if k not in mid:
                p = [(v[a][i] + v[b][i]) / 2 for i in range(3)]
                n = math.sqrt(sum(x * x for x in p))
                v.append(tuple(x / n for x in p))
                mid[k] = len(v) - 1
            return mid[k]
        g = []
        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            g += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = g
    return v, f


def pebble():
    """An ellipsoid of semi-axes 0.2, 0.12, 0.1 m centred at (0.05, 0.3, 0)."""
    v, f = icosphere(2)
    v = [(0.05 + 0.2 * x, 0.3 + 0.12 * y, 0.1 * z) for x, y, z in v]
    return [tuple(f32(c) for c in p) for p in v], f


def knot(n_along=96, n_around=12, R=0.1, a=0.05, rho=0.032):
    """A trefoil (the (2,3) torus knot) as a closed tube, about 0.4 m wide."""
    def c(t):
        r = R + a * math.cos(3 * t)
        return (r * math.cos(2 * t), a * math.sin(3 * t), r * math.sin(2 * t))

    def d(t, h=1e-5):
        p, q = c(t + h), c(t - h)
        return tuple((p[i] - q[i]) / (2 * h) for i in range(3))

    def dd(t, h=1e-4):
        p, q, o = c(t + h), c(t - h), c(t)
        return tuple((p[i] - 2 * o[i] + q[i]) / (h * h) for i in range(3))

    def unit(u):
        n = math.sqrt(sum(x * x for x in u))
        return tuple(x / n for x in u)

    def cross(u, w):
        return (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0])
    v = []
    for i in range(n_along):
        t = 2 * math.pi * i / n_along
        T = unit(d(t))
        acc = dd(t)
        k = sum(acc[j] * T[j] for j in range(3))
        N = unit(tuple(acc[j] - k * T[j] for j in range(3)))  # Frenet: periodic
        B = cross(T, N)
        o = c(t)
        for j in range(n_around):
            s = 2 * math.pi * j / n_around
            v.append(tuple(f32(o[x] + rho * (math.cos(s) * N[x] +
                                               math.sin(s) * B[x]))
                           for x in range(3)))
    f = []
    for i in range(n_along):
        for j in range(n_around):
            a0 = i * n_around + j
            a1 = i * n_around + (j + 1) % n_around
            b0 = ((i + 1) % n_along) * n_around + j
            b1 = ((i + 1) % n_along) * n_around + (j + 1) % n_around
            f += [(a0, b0, b1), (a0, b1, a1)]
    return orient(v, f)


def volume(v, f):
    s = 0.0
    for a, b, c in f:
        A, B, C = v[a], v[b], v[c]
        s += (A[0] * (B[1] * C[2] - B[2] * C[1]) - A[1] * (B[0] * C[2] -
              B[2] * C[0]) + A[2] * (B[0] * C[1] - B[1] * C[0])) / 6.0
    return s


def orient(v, f):
    """Outward normals: flip every face if the signed volume is negative."""
    if volume(v, f) < 0:
        f = [(a, c, b) for a, b, c in f]
    return v, f


def g(x):
    return "%.9g" % x


def write_obj(path, v, f):
    with open(path, "w") as o:
        o.write("# made by tests/data/meshes/make_meshes.py\n")
        for p in v:
            o.write("v %s %s %s\n" % tuple(g(x) for x in p))
        for a, b, c in f:
            o.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


def normal(v, t):
    A, B, C = (v[i] for i in t)
    u = [B[i] - A[i] for i in range(3)]
    w = [C[i] - A[i] for i in range(3)]
    n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
         u[0] * w[1] - u[1] * w[0])
    ln = math.sqrt(sum(x * x for x in n)) or 1.0
    return tuple(x / ln for x in n)


def write_stl_ascii(path, v, f):
    with open(path, "w") as o:
        o.write("solid mesh\n")
        for t in f:
            o.write(" facet normal %s %s %s\n  outer loop\n" %
                    tuple(g(x) for x in normal(v, t)))
            for i in t:
                o.write("   vertex %s %s %s\n" % tuple(g(x) for x in v[i]))
            o.write("  endloop\n endfacet\n")
        o.write("endsolid mesh\n")


def write_stl_binary(path, v, f):
    with open(path, "wb") as o:
        o.write(b"binary STL made by tests/data/meshes/make_meshes.py".ljust(80))
        o.write(struct.pack("<I", len(f)))
        for t in f:
            o.write(struct.pack("<3f", *normal(v, t)))
            for i in t:
                o.write(struct.pack("<3f", *v[i]))
            o.write(struct.pack("<H", 0))


def write_ply(path, v, f, binary):
    head = ("ply\nformat %s 1.0\ncomment made by tests/data/meshes/"
            "make_meshes.py\nelement vertex %d\nproperty float x\n"
            "property float y\nproperty float z\nelement face %d\n"
            "property list uchar int vertex_indices\nend_header\n" %
            ("binary_little_endian" if binary else "ascii", len(v), len(f)))
    with open(path, "wb") as o:
        o.write(head.encode())
        for p in v:
            o.write(struct.pack("<3f", *p) if binary else
                    ("%s %s %s\n" % tuple(g(x) for x in p)).encode())
        for t in f:
            o.write(struct.pack("<B3i", 3, *t) if binary else
                    ("3 %d %d %d\n" % t).encode())


def main():
    v, f = orient(*pebble())
    d = HERE
    write_obj(os.path.join(d, "pebble.obj"), v, f)
    write_stl_ascii(os.path.join(d, "pebble_ascii.stl"), v, f)
    write_stl_binary(os.path.join(d, "pebble_binary.stl"), v, f)
    write_ply(os.path.join(d, "pebble.ply"), v, f, binary=False)
    write_ply(os.path.join(d, "pebble_binary.ply"), v, f, binary=True)
    # a hole: the faces nearest the +x pole, about 1 % of the area
    area = [math.sqrt(sum(x * x for x in cross3(v, t))) / 2 for t in f]
    order = sorted(range(len(f)), key=lambda i: -max(v[j][0] for j in f[i]))
    cut, got = set(), 0.0
    for i in order:
        if got + area[i] > 0.01 * sum(area):
            break
        cut.add(i)
        got += area[i]
    write_obj(os.path.join(d, "pebble_hole.obj"), v,
              [t for i, t in enumerate(f) if i not in cut])
    # open: the upper half of the pebble only
    write_obj(os.path.join(d, "bowl_open.obj"), v,
              [t for t in f if min(v[j][1] for j in t) >= 0.3])
    # degenerate: every vertex on the plane y = 0.3 (no volume)
    write_obj(os.path.join(d, "flat.obj"), [(p[0], f32(0.3), p[2]) for p in v],
              f)
    with open(os.path.join(d, "empty.obj"), "w") as o:
        o.write("# no vertices, no faces\n")
    with open(os.path.join(d, "garbage.stl"), "wb") as o:
        o.write(bytes((i * 37 + 11) % 256 for i in range(97)))
    kv, kf = knot()
    write_obj(os.path.join(TOP, "configs", "meshes", "knot.obj"), kv, kf)
    print("pebble: %d vertices, %d faces, volume %.6g; hole %.2f %% of the "
          "area; knot: %d vertices, %d faces, volume %.6g" %
          (len(v), len(f), volume(v, f), 100 * got / sum(area), len(kv),
           len(kf), volume(kv, kf)))


def cross3(v, t):
    A, B, C = (v[i] for i in t)
    u = [B[i] - A[i] for i in range(3)]
    w = [C[i] - A[i] for i in range(3)]
    return (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0])


if __name__ == "__main__":
    main()
