#!/usr/bin/env python3
"""Does the dam break converge under refinement?  A column of water a
wide and 2a high at one end of a tank 6a long (a = 0.1 m, depth a/5
between walls: a slice of the two-dimensional problem of Martin & Moyce
1952), run with each solver at spacings a/20, a/30 and a/40; the surge
front, in units of a, at the dimensionless times T = t sqrt(2 g / a) = 1,
2 and 3, and how much it changes from one spacing to the next (the issue
asks for < 3 % between a/20, a/30 and a/40 at T = 2 and 3).

The front is the largest x among the particles that have at least 3
others of the system within 1.5 spacings: a drop thrown ahead of the
surge does not count.

    dam_break_convergence.py [--solvers sph,flip] [--spacings 20,30,40]
                             [--threads N] [--extra 'KEY = VALUE; ...']

Needs the Python module (PYTHONPATH=python, MERGESPLIT_PLUGIN_PATH) and
NumPy.  Prints one table row per run, with its run time."""
import argparse
import math
import time

import numpy as np

import mergesplit as ms

A = 0.1
G = 9.81


def scene(solver, n, extra):
    s = A / n
    t1 = math.sqrt(A / (2 * G))  # T = 1
    keys = {"sph": "", "flip": "flip_ratio = 0.97; pressure_solver = "
            "\"pcg\"; pressure_tolerance = 1e-6;"}[solver]
    return ("scene = { duration = %.9f; fps = %.9f; gravity = [0.0, -9.81, "
            "0.0];\n  domain = { min = [0.0, 0.0, 0.0]; max = [%.6f, %.6f, "
            "%.6f]; }; };\ncoupling = { cfl = 0.5; };\nsystems = ( { name = "
            "\"water\"; solver = \"%s\"; spacing = %.9f; %s %s\n  shape = "
            "{ type = \"box\"; min = [0.0, 0.0, 0.0]; max = [%.6f, %.6f, "
            "%.6f]; }; } );\n" % (3 * t1, 1.0 / t1, 6 * A, 3 * A, A / 5,
                                 solver, s, keys, extra, A, 2 * A, A / 5))


def front(x, s):
    """Largest x of a particle with at least 3 neighbours within 1.5 s."""
    order = np.argsort(-x[:, 0])
    for i in order[:2000]:
        d = np.linalg.norm(x - x[i], axis=1)
        if np.count_nonzero(d < 1.5 * s) >= 4:  # itself and 3 others
            return x[i, 0]
    return x[order[0], 0]


def run(solver, n, threads, extra):
    t0 = time.time()
    S = ms.Simulation.from_string(scene(solver, n, extra), threads=threads)
    w = S.systems["water"]
    fronts = []
    while not S.done:
        S.frame()
        fronts.append(front(np.array(w.fields["position"]), A / n) / A)
    count = len(w.fields["position"])
    S.close()
    return fronts, count, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--solvers", default="sph,flip")
    ap.add_argument("--spacings", default="20,30,40")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--extra", default="", help="keys added to the system")
    a = ap.parse_args()
    print("| solver | spacing | particles | front at T = 1 | T = 2 | T = 3 "
          "| change from the spacing before at T = 2 | at T = 3 | from the "
          "first at T = 2 | at T = 3 | run [s] |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for solver in a.solvers.split(","):
        first = prev = None
        for n in (int(v) for v in a.spacings.split(",")):
            f, count, sec = run(solver, n, a.threads, a.extra)
            ch = ["", "", "", ""]
            if prev:
                ch = ["%+.1f %%" % (100 * (f[k] / r[k] - 1))
                      for r in (prev, first) for k in (1, 2)]
            print("| %s | a/%d | %d | %.3f | %.3f | %.3f | %s | %s | %s | %s "
                  "| %.1f |" % ((solver, n, count) + tuple(f) + tuple(ch) +
                                (sec,)), flush=True)
            first = first or f
            prev = f


if __name__ == "__main__":
    main()
