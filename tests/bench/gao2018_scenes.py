#!/usr/bin/env python3
"""The scenes of configs/gao2018/ (the `shape_matching` solver), measured:
run each at the given scales and print what its acceptance asks for, from
the run's report and frames.  --set KEY=VALUE (repeatable) goes to every
run: e.g. scene.duration=6, or systems.body.density=2000.0 for a body
that sinks.

    gao2018_scenes.py [--mergesplit PATH] [--plugin-path DIR]
                      [--threads N] [--scales 1,8] [--set KEY=VALUE]...
                      [NAME ...]

NAME: a scene of configs/gao2018 without .cfg (default: all).  Per run:
wall time, steps, penetrations (the report's largest count over the
frames) and sheet crossings, whether every frame's figures are finite, the
energy at the start and the end and its largest rise between frames; for
a body of density 500 dropped into water, the share of its volume under
the water at the end, below the water's three levels of
rigid_scenes.py's `water_levels` (its particles' surface, its pressure's
level, the level its mass fills), against Archimedes' 50 %, its bottom
(its lowest particle less half a spacing) and how far its centre moved
over the last second (a soft body: its bottom); for two liquids in one
flip system (`liquids`, the lighter phase told by its smaller particle
mass), the share of the light phase above the interface height the
volumes predict (the heavy phase's particle volume over the floor the
liquids cover)
and the share of its particles with no particle of its own phase within
1.5 spacings, at the end.
"""
import argparse
import glob
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rigid_scenes as R  # noqa: E402  (its frame reader and helpers)


def run(args, path, scale):
    tmp = tempfile.mkdtemp(prefix="gao2018-")
    out, rep = os.path.join(tmp, "out"), os.path.join(tmp, "r.json")
    extra = ["--plugin-path", args.plugin_path] if args.plugin_path else []
    t0 = time.time()
    p = subprocess.run([args.mergesplit, "run", path, "-o", out, "--quiet",
                        "--report", rep, "--threads", str(args.threads),
                        "--scale", str(scale)] + extra +
                       [a for kv in args.set for a in ("--set", kv)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    wall = time.time() - t0
    if p.returncode != 0:
        return None, out, wall, p.stderr.strip()
    import json
    with open(rep) as f:
        return json.load(f), out, wall, ""


def in_water(r, out, scale):
    """System `body` in system `water` at the end: the water's levels and
    the body's share under each (rigid_scenes.water_levels), the body's
    bottom, and how far its centre moved over the last second."""
    h = 0.02 / scale ** (1.0 / 3.0)
    w = R.read_vtp(R.frames(out, "water")[-1])
    fb = R.frames(out, "body")
    b, a = R.read_vtp(fb[-1]), R.read_vtp(fb[-1 - int(r["fps"])])
    bottom = min(p[1] for p in b["position"]) - h / 2
    moved = math.dist(R.centre(a["position"], a["mass"]),
                      R.centre(b["position"], b["mass"]))
    return R.water_levels(w, b, h, -0.2, 0.16, 1000.0), bottom, moved


def phases(r, out, scale):
    """Light phase above the predicted interface, and lone, at the end."""
    f = R.read_vtp(R.frames(out, "liquids")[-1])
    x, m = f["position"], f["mass"]
    heavy = max(m)
    sp = (heavy / 1000.0) ** (1.0 / 3.0)
    light = [p for p, q in zip(x, m) if q < 0.9 * heavy]
    nh = len(x) - len(light)
    # the liquids fill the tank's floor: its extent from theirs
    ext = [max(p[a] for p in x) - min(p[a] for p in x) + sp for a in (0, 2)]
    H = nh * sp ** 3 / (ext[0] * ext[1])
    above = sum(1 for p in light if p[1] > H) / len(light)
    cell = {}
    for k, p in enumerate(light):
        cell.setdefault(tuple(math.floor(c / sp) for c in p), []).append(k)
    lone = 0
    for k, p in enumerate(light):
        c = tuple(math.floor(v / sp) for v in p)
        near = False
        for d in ((i, j, l) for i in (-2, -1, 0, 1, 2) for j in (-2, -1, 0, 1, 2)
                  for l in (-2, -1, 0, 1, 2)):
            for q in cell.get((c[0] + d[0], c[1] + d[1], c[2] + d[2]), ()):
                if q != k and math.dist(p, light[q]) < 1.5 * sp:
                    near = True
                    break
            if near:
                break
        lone += not near
    return "oil above %.3f m: %.2f %%; no oil neighbour: %.2f %%" % (
        H, 100 * above, 100 * lone / len(light))


def melting(r, scale):
    """Ice melted, latent heat taken, and the heat books, at the end; and
    over every frame the largest gap between the melted fraction and the
    latent budget (latent heat taken / the block's M L), in points of the
    block (the melted particles' m L from configs/gao2018/ice_melts.cfg's
    ice: 917 kg/m^3 at spacing 0.005 m / scale^(1/3), L = 334000 J/kg)."""
    mL = 334000.0 * 917.0 * 0.005 ** 3 / scale
    ice = [{s["name"]: s for s in fr["systems"]}["ice"] for fr in r["frames"]]
    n = ice[-1]["particles"] + sum(s.get("stats", {}).get("melted", 0.0)
                                   for s in ice)
    melted = latent = 0.0
    heat0 = None
    drift = gap = 0.0
    for fr in r["frames"]:
        sy = {s["name"]: s for s in fr["systems"]}
        st = sy["ice"].get("stats", {})
        melted += st.get("melted", 0.0)
        latent += st.get("latent_absorbed", 0.0)
        books = sum(s.get("heat", 0.0) for s in fr["systems"]) + latent
        heat0 = books if heat0 is None else heat0
        drift = max(drift, abs(books - heat0) / heat0)
        gap = max(gap, abs(latent / (n * mL) - melted / n))
    return ("melted %d of %d (%.1f %%); latent taken %.1f J, the melted "
            "particles' m L %.1f %% of it; melted fraction within %.2f "
            "points of the latent budget at every frame; heat + latent "
            "kept to %.1e" % (
                melted, n, 100 * melted / n, latent,
                100 * melted * mL / latent if latent else 0,
                100 * gap, drift))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mergesplit", default="mergesplit")
    ap.add_argument("--plugin-path", help="where the solver plugins are "
                    "(a build tree: plugins/.libs)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--scales", default="1")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed to every run (e.g. scene.duration=6)")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    scenes = sorted(glob.glob(os.path.join(top, "configs", "gao2018",
                                           "*.cfg")))
    if args.names:
        scenes = [s for s in scenes
                  if os.path.basename(s)[:-4] in args.names]
    print("| scene | scale | wall [s] | steps | penetrations | sheet "
          "crossings | finite | energy start -> end [J] | largest rise "
          "[J] | floating or sinking |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in scenes:
        name = os.path.basename(path)[:-4]
        for scale in [float(s) for s in args.scales.split(",")]:
            r, out, wall, err = run(args, path, scale)
            if r is None:
                print("| %s | %g | %.1f | failed: %s |||||||" % (
                    name, scale, wall, err), flush=True)
                continue
            pen = max(fr["penetration"]["max"] for fr in r["frames"])
            cross = sum(fr["penetration"].get("crossings", 0)
                        for fr in r["frames"])
            finite = all(math.isfinite(fr["energy"]["total"])
                         for fr in r["frames"])
            e = r["totals"]["energy"]
            d = ""
            if "_into_" in name and name.startswith("rigid"):
                levels, bottom, moved = in_water(r, out, scale)
                d = "; ".join("%.1f %% under the %s" % (100 * u, n)
                              for n, v, u in levels)
                d += " (Archimedes 50 %%; bottom at %.4f m; moved %.1e m " \
                     "in the last second)" % (bottom, moved)
            elif "_into_" in name:
                levels, bottom, moved = in_water(r, out, scale)
                d = "sinks: bottom at %.4f m" % bottom
            elif name.startswith("oil_"):
                d = phases(r, out, scale)
            elif name.startswith("ice_"):
                d = melting(r, scale)
            print("| %s | %g | %.1f | %d | %d | %d | %s | %.4g -> %.4g | "
                  "%.2g | %s |" % (name, scale, wall, r["totals"].get(
                      "steps", 0), pen, cross, "yes" if finite else "NO",
                                  e["start"], e["end"], R.energy_rise(r), d),
                  flush=True)


if __name__ == "__main__":
    main()
