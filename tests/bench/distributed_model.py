#!/usr/bin/env python3
"""The cost model of doc/distributed.md, fitted to this machine.

Runs the paper's Fig. 8 bottom (configs/paper/fig08_bowl_into_water.cfg:
an SPH pool, a peridynamics bowl dropped into it) at several scales on one
node (this machine), reads each run's report (steps, seconds per phase,
particles, pairs, meta-particles), fits every phase's time per step as
a + b N, measures the halo of a column decomposition of the pool from the
scene's particles (Python module: the positions the solvers hold), and
predicts the time per step of the paper's 6.6M-particle run on 1, 4, 16
and 64 nodes like this one, for a network of latency ALPHA and bandwidth
BETA (parameters: they are the cluster's, not this machine's).

    PYTHONPATH=python /usr/bin/python3 tests/bench/distributed_model.py \\
        [--mergesplit core/cli/mergesplit] [--scales 0.5,1,2,4]
        [--frames 12] [--threads 2] [--alpha 2e-6] [--beta 1e10]
        [--target 6.6e6]

Everything printed is measured here except ALPHA and BETA; the model's
formulas are in doc/distributed.md section 4."""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

import mergesplit

SCENE = "configs/paper/fig08_bowl_into_water.cfg"
PHASES = ["detection", "merging", "stage1", "stage2", "sync", "splitting",
          "metrics", "other"]
# Bytes a ghost carries (doc/distributed.md section 3): for detection and
# SPH's density pass x, v (3 doubles each), m, r (doubles), a 64-bit id and
# a 32-bit system id; SPH's force pass adds density and pressure; a
# migrating particle carries its whole solver state (SPH: x, v, m, r,
# density, pressure, heat: 12 doubles and the id).
B_GHOST = 8 * 8 + 8 + 4
B_FORCE = 2 * 8
B_MIGRATE = 12 * 8 + 8


def one_system(name):
    """The scene's text with system `name` alone (the other's braces cut)."""
    text = open(SCENE).read()
    head, rest = text.split("systems = (", 1)
    blocks, depth, start = [], 0, None
    for i, c in enumerate(rest):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                blocks.append(rest[start:i + 1])
    keep = [b for b in blocks if 'name = "%s"' % name in b]
    return head + "systems = (\n" + keep[0] + "\n);\n"


def run(cli, scale, frames, threads, text=None):
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "r.json")
        scene = SCENE
        if text is not None:
            scene = os.path.join(tmp, "scene.cfg")
            with open(scene, "w") as f:
                f.write(text)
        subprocess.run([cli, "run", scene, "--set", "scene.scale=%g" % scale,
                        "--frames", str(frames), "-j", str(threads),
                        "--no-output", "-q", "--report", rep], check=True)
        with open(rep) as f:
            return json.load(f)


def per_step(r):
    steps = r["timing"]["steps"]
    ph = {p["phase"]: p["seconds"] / steps for p in r["timing"]["phases"]}
    n = sum(s["particles"] for s in r["systems"])
    t = r["totals"]
    return {"n": n, "steps": steps, "phase": ph,
            "pairs": t["pairs"] / steps, "metas": t["metas"] / steps,
            "members": t["metas"] * t["meta_size_mean"] / steps}


def fit(xs, ys):
    """Least squares y = a + b x."""
    A = np.vstack([np.ones(len(xs)), np.asarray(xs, float)]).T
    (a, b), *_ = np.linalg.lstsq(A, np.asarray(ys, float), rcond=None)
    return a, b


def positions(scale):
    """The scene's particles at its start: {system: (positions, spacing)}."""
    s = mergesplit.Simulation.from_file(SCENE, frames=0,
                                        overrides={"scene.scale": scale})
    out = {n: sy.fields["position"].copy() for n, sy in s.systems.items()}
    s.close()
    return out


def halo(x, p, width, lo=0.0, hi=0.6):
    """Ghosts of a p x p column decomposition of [lo, hi]^2 in x and z:
    every particle within `width` of another column's box is sent there
    (to each such column once).  Returns (total ghosts, largest per rank,
    particles per rank)."""
    w = (hi - lo) / p
    cx = np.clip(((x[:, 0] - lo) // w).astype(int), 0, p - 1)
    cz = np.clip(((x[:, 2] - lo) // w).astype(int), 0, p - 1)
    owned = np.zeros((p, p), int)
    np.add.at(owned, (cx, cz), 1)
    recv = np.zeros((p, p), int)
    total = 0
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            if dx == dz == 0:
                continue
            tx, tz = cx + dx, cz + dz
            ok = (tx >= 0) & (tx < p) & (tz >= 0) & (tz < p)
            # distance from the particle to column (tx, tz) along x and z
            ddx = np.where(dx > 0, (cx + 1) * w + lo - x[:, 0],
                           np.where(dx < 0, x[:, 0] - (cx * w + lo), 0.0))
            ddz = np.where(dz > 0, (cz + 1) * w + lo - x[:, 2],
                           np.where(dz < 0, x[:, 2] - (cz * w + lo), 0.0))
            near = ok & (np.hypot(ddx, ddz) < width)
            np.add.at(recv, (tx[near], tz[near]), 1)
            total += int(near.sum())
    return total, int(recv.max()), owned


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mergesplit", default="core/cli/mergesplit")
    ap.add_argument("--scales", default="0.5,1,2,4")
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--alpha", type=float, default=2e-6)
    ap.add_argument("--beta", type=float, default=1e10)
    ap.add_argument("--target", type=float, default=6.6e6)
    a = ap.parse_args()
    scales = [float(s) for s in a.scales.split(",")]

    print("# 1. one node (this machine, %d threads): Fig. 8 bottom, %d frames"
          % (a.threads, a.frames))
    rows = []
    for s in scales:
        r = per_step(run(a.mergesplit, s, a.frames, a.threads))
        rows.append(r)
        print("scale %-4g N %8d  steps %4d  ms/step %8.2f  pairs/step %8.0f  "
              "meta members/step %7.0f  | %s" % (
                  s, r["n"], r["steps"], 1e3 * sum(r["phase"].values()),
                  r["pairs"], r["members"],
                  " ".join("%s %.3f" % (k, 1e3 * v)
                           for k, v in r["phase"].items())))
    # the solvers' own work (stage 1, stage 2 and begin/end of step, which
    # the report counts as "other"), per system: each system alone
    SOLVER = ("stage1", "stage2", "other")
    alone = {}
    for name in ("water", "bowl"):
        alone[name] = []
        for s in scales:
            r = per_step(run(a.mergesplit, s, a.frames, a.threads,
                             one_system(name)))
            alone[name].append(r)
            print("scale %-4g %-5s alone: N %8d  steps %4d  solver ms/step "
                  "%8.3f (%.0f ns/particle)" % (
                      s, name, r["n"], r["steps"],
                      1e3 * sum(r["phase"][k] for k in SOLVER),
                      1e9 * sum(r["phase"][k] for k in SOLVER) / r["n"]))
    ns = [r["n"] for r in rows]
    coef = {k: fit(ns, [r["phase"][k] for r in rows]) for k in PHASES}
    solver = {name: fit([r["n"] for r in v],
                        [sum(r["phase"][k] for k in SOLVER) for r in v])
              for name, v in alone.items()}
    print("\nsolver seconds per step = a + b N:  " + ";  ".join(
        "%s a %.3e s, b %.1f ns/particle" % (k, ca, 1e9 * cb)
        for k, (ca, cb) in solver.items()))
    print("\n# 2. each phase's seconds per step = a + b N (least squares)")
    for k in PHASES:
        ca, cb = coef[k]
        worst = max(abs(ca + cb * r["n"] - r["phase"][k]) /
                    max(r["phase"][k], 1e-12) for r in rows)
        print("%-10s a %9.3e s  b %9.3e s/particle  (%.1f ns/particle; "
              "largest misfit %.0f %%)" % (k, ca, cb, 1e9 * cb, 100 * worst))
    n1 = rows[scales.index(1.0)]["n"] if 1.0 in scales else ns[0] / scales[0]

    print("\n# 3. halo of a p x p column decomposition of the pool "
          "(measured on the scene's particles)")
    geo = {}
    for s in scales:
        pos = positions(s)
        water = pos["water"]
        h = 0.02 / s ** (1.0 / 3.0)          # the lattice spacing at scale s
        for p in (2, 4, 8):
            tot, mx, owned = halo(water, p, 2.0 * h)
            geo.setdefault(p, []).append((len(water), mx, tot))
            print("scale %-4g water %8d  p %d (%2d ranks): ghosts within 2h "
                  "= %.4f m: largest per rank %7d, all %8d, owned per rank "
                  "%d..%d" % (s, len(water), p, p * p, 2 * h, mx, tot,
                              owned.min(), owned.max()))
    # ghosts per rank ~ c N^(2/3) (a face of the column: its area in
    # particles, times the width in layers, which is fixed: 2h)
    gcoef = {}
    for p, v in geo.items():
        c = [mx / n ** (2.0 / 3.0) for n, mx, _ in v]
        gcoef[p] = float(np.mean(c))
        print("p %d: largest ghosts per rank / N_water^(2/3) = %s (mean %.3f)"
              % (p, " ".join("%.3f" % x for x in c), gcoef[p]))
    # the bowl (peridynamics) and the contacts sit over the middle of the
    # pool: the ranks under it carry its share; the largest share is the
    # bowl's particles in the busiest column
    bowl = positions(1.0)["bowl"]
    share = {}
    for p in (1, 2, 4, 8):
        _, _, owned = halo(bowl, max(p, 1), 0.0) if p > 1 else (0, 0, np.array([[len(bowl)]]))
        share[p] = owned.max() / len(bowl)
    print("bowl: largest share on one rank: " +
          ", ".join("%d ranks %.3f" % (p * p, share[p]) for p in (1, 2, 4, 8)))

    print("\n# 4. prediction: N = %.3g particles (scale %.1f), nodes like this "
          "one, alpha %.1e s, beta %.2e B/s" % (a.target, a.target / n1,
                                               a.alpha, a.beta))
    fw = len(positions(scales[-1])["water"]) / rows[-1]["n"]
    print("%-9s %6s %12s %12s %12s %12s %12s %10s %8s" % (
        "partition", "nodes", "compute ms", "halo B/rank", "comm ms",
        "step ms", "speed-up", "efficiency", "ghost %"))
    for balanced in (False, True):
        predict(a, coef, solver, share, gcoef, fw, balanced, SOLVER)
    return 0


def predict(a, coef, solver, share, gcoef, fw, balanced, SOLVER):
    """One table: columns (busiest rank as cut) or balanced by cost (every
    rank the same work; the same ghosts as the columns, a bound)."""
    t1 = None
    for p in (1, 2, 4, 8):
        P = p * p
        n = a.target / P
        # ghosts: measured per rank on the columns, ~ N_water^(2/3)
        ghosts = gcoef[p] * (fw * a.target) ** (2.0 / 3.0) if P > 1 else 0.0
        comp = 0.0
        for k in PHASES:
            if k in SOLVER:
                continue
            ca, cb = coef[k]
            # the contacts' work does not divide evenly: they sit on the
            # bowl, and the busiest rank holds `share` of it; ghosts are
            # sorted into the detection grid with the owned particles
            frac = share[p] if k in ("merging", "sync", "splitting") else 1.0 / P
            part = a.target * (1.0 / P if balanced else frac)
            comp += ca + cb * (part + (ghosts if k == "detection" else 0.0))
        # the solvers (the coupled run's stage 1, stage 2 and other): the
        # water divides evenly, the busiest rank holds `share` of the
        # bowl; each system weighs what it costs alone per particle
        ww, wb = solver["water"][1] * fw, solver["bowl"][1] * (1 - fw)
        phi = 1.0 / P if balanced else (ww / P + wb * share[p]) / (ww + wb)
        comp += sum(coef[k][0] + coef[k][1] * a.target * phi for k in SOLVER)
        if P == 1:
            bytes_, comm = 0, 0.0
        else:
            # per step: one exchange of positions etc. (detection and SPH's
            # density pass), one of density and pressure (SPH's force
            # pass), the migrants (a fraction: particles that crossed a
            # face, ~ ghosts * v dt / 2h, under 1 % here: counted as 1 %)
            bytes_ = ghosts * (B_GHOST + B_FORCE + 0.01 * B_MIGRATE)
            neighbours = 8
            comm = 3 * neighbours * a.alpha + bytes_ / a.beta
        step = comp + comm
        if t1 is None:
            t1 = step
        print("%-9s %6d %12.1f %12.3g %12.3f %12.1f %12.2f %10.2f %8.2f" % (
            "balanced" if balanced else "columns", P, 1e3 * comp, bytes_,
            1e3 * comm, 1e3 * step, t1 / step, t1 / step / P,
            100.0 * ghosts / n if P > 1 else 0.0))


if __name__ == "__main__":
    sys.exit(main())
