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


def system_blocks(path):
    """A scene file's text before its systems list, and each system's
    block (its braces), in order."""
    head, rest = open(path).read().split("systems = (", 1)
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
    return head, blocks


def one_system(name):
    """The scene's text with system `name` alone (the other's braces cut)."""
    head, blocks = system_blocks(SCENE)
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


# The proof's records (core/step/domain.c): a ghost is x, v, m, r and two
# 32-bit ids, the particle's and its system's (72 B: the core's indices are
# 32-bit); a migrating grain of the `particles` solver is its view's ten
# doubles and its id (84 B).
B_GHOST_PROOF = 8 * 8 + 4 + 4
B_MIGRATE_PROOF = 10 * 8 + 4
F_MIGRATE = 0.01


def slab_cut(x, ranks):
    """The proof's cut (core/step/domain.c): slabs along the longest side
    of the particles' box, holding equal counts of them."""
    axis = int(np.argmax(x.max(axis=0) - x.min(axis=0)))
    c = np.sort(x[:, axis])
    return axis, [c[q * len(c) // ranks] for q in range(1, ranks)]


def slab_ghosts(x, axis, cuts, width):
    """Each particle's owner, and near[q]: the particles rank q receives
    as ghosts, those within `width` of its slab that it does not own (the
    rule of section 1)."""
    c = x[:, axis]
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    owner = np.searchsorted(np.asarray(cuts), c, side="right")
    near = np.zeros((len(cuts) + 1, len(c)), bool)
    for q in range(len(cuts) + 1):
        d = np.maximum(np.maximum(edges[q] - c, c - edges[q + 1]), 0.0)
        near[q] = (owner != q) & (d < width)
    return owner, near


# The proof's other records (core/step/domain.c): a component's pair
# (a tag and two ids), member (a tag, its ghost record, its owner,
# padding), a member going back (id, padding, x, v), and per open
# component its link (root, smallest id, owner, count) with 4 B per
# boundary id.
B_PAIR, B_MEMBER, B_RESULT, B_LINK, B_LINK_ID = 12, 84, 56, 16, 4


def self_collides(scene):
    """Per system of the scene, in order: whether its own particles
    collide (self_collision, default yes: the `particles` solver's)."""
    return ["self_collision = false" not in b for b in system_blocks(scene)[1]]


def approaching_pairs(x, v, r, sid, selfc):
    """Rules 1 and 2 on one state: pairs i < j in contact and approaching,
    the pairs of a system without self-collision left out."""
    ii, jj = [], []
    for a in range(0, len(x), 512):
        d = x[None, :, :] - x[a:a + 512, None, :]
        near = (d * d).sum(-1) < (r[a:a + 512, None] + r[None, :]) ** 2
        i, j = np.nonzero(near)
        i = i + a
        keep = (j > i) & ((sid[i] != sid[j]) | selfc[sid[i]])
        ii.append(i[keep])
        jj.append(j[keep])
    i, j = np.concatenate(ii), np.concatenate(jj)
    app = ((x[j] - x[i]) * (v[j] - v[i])).sum(1) < 0
    return i[app], j[app]


def components(n, i, j):
    """Label of each particle: the smallest index of its component."""
    lab = np.arange(n)
    while True:
        m = np.minimum(lab[i], lab[j])
        new = lab.copy()
        np.minimum.at(new, i, m)
        np.minimum.at(new, j, m)
        new = new[new]
        if np.array_equal(new, lab):
            return lab
        lab = new


def face_traffic(x, v, r, sid, selfc, owner, near):
    """Bytes each rank receives in one step for the components that cross
    a face (section 5.1): links, pairs and members to the rank owning the
    component's smallest id, members merged there back to their owners;
    owner and near as slab_ghosts gives them."""
    P = len(near)
    edge = near.any(axis=0)  # a ghost on some other rank
    i, j = approaching_pairs(x, v, r, sid, selfc)
    out = {k: np.zeros(P) for k in ("link", "component", "result")}
    if len(i) == 0:
        return out
    lab = components(len(x), i, j)
    taker = owner[lab]           # the owner of the component's smallest id
    finder = owner[i]            # the rank that finds the pair
    far = finder != taker[i]
    np.add.at(out["component"], taker[i][far], B_PAIR)
    for q in range(P):           # what rank q sends: its pairs' members
        mine = finder == q
        ids = np.unique(np.concatenate([i[mine], j[mine]]))
        gone = taker[ids] != q
        np.add.at(out["component"], taker[ids][gone], B_MEMBER)
        # q's open components: those holding a ghost or an edge particle
        local = components(len(x), i[mine], j[mine])[ids]
        bnd = (owner[ids] != q) | edge[ids]
        open_roots = np.unique(local[bnd])
        nb = np.count_nonzero(np.isin(local, open_roots) & bnd)
        link = B_LINK * len(open_roots) + B_LINK_ID * nb
        for p in range(P):
            if p != q:
                out["link"][p] += link
    ids = np.unique(np.concatenate([i, j]))
    back = owner[ids] != taker[ids]
    np.add.at(out["result"], owner[ids][back], B_RESULT)
    return out


def proof(scene, run_json):
    """The model against a run over ranks (tests/dist/dist-run): the bytes
    each rank receives per step, by kind, predicted from the one-process
    run of the scene: at its start and at every frame, the rules of
    section 5.1 (ghosts within the halo; Rules 1 and 2 and the components
    of approaching pairs that cross a face), averaged over the frames,
    with `f` of the ghosts migrating; measured: everything that crossed
    ranks in the run but the frames."""
    r = json.load(open(run_json))
    selfc = np.array(self_collides(scene))
    s = mergesplit.Simulation.from_file(scene)
    systems = list(s.systems.values())
    sid = np.concatenate([np.full(len(sy.fields["mass"]), k)
                          for k, sy in enumerate(systems)])
    rad = np.concatenate([sy.fields["radius"] for sy in systems])
    width = 2.0 * float(rad.max())

    def state(name):
        return np.concatenate([sy.fields[name] for sy in systems])
    axis, cuts = slab_cut(state("position"), r["ranks"])
    kinds = ("ghost", "migrant", "link", "component", "result")
    model = {k: np.zeros(r["ranks"]) for k in kinds}
    g = np.zeros(r["ranks"])
    for f in range(s.frames_total + 1):
        if f:
            s.frame()
        x, v = state("position"), state("velocity")
        owner, near = slab_ghosts(x, axis, cuts, width)
        g += near.sum(axis=1)
        for k, b in face_traffic(x, v, rad, sid, selfc, owner,
                                 near).items():
            model[k] += b
    samples = s.frames_total + 1
    s.close()
    g /= samples
    for k in ("link", "component", "result"):
        model[k] /= samples
    model["ghost"] = g * B_GHOST_PROOF
    model["migrant"] = g * F_MIGRATE * B_MIGRATE_PROOF
    steps = r["steps"]
    print("rank  ghosts/step model measured | bytes/step model measured | "
          "by kind, model/measured: " + " ".join(kinds))
    tm, tx = [], []
    for q, pr in enumerate(r["per_rank"]):
        rb = pr["received_bytes"]
        meas = {k: rb[k] / steps for k in kinds}
        tm.append(sum(model[k][q] for k in kinds))
        tx.append(sum(meas.values()))
        print("%4d  %8.1f %8.1f | %8.0f %8.0f | %s" % (
            q, g[q], pr["received_records"]["ghost"] / steps, tm[-1], tx[-1],
            " ".join("%.0f/%.0f" % (model[k][q], meas[k]) for k in kinds)))
    out = {"ranks": r["ranks"], "model_bytes_per_step": max(tm),
           "measured_bytes_per_step": max(tx),
           "ratio": max(tx) / max(tm) if max(tm) else None}
    print(json.dumps(out))
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--proof":
        return proof(sys.argv[2], sys.argv[3])
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
