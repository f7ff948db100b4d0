#!/usr/bin/env python3
"""The scenes of the `rigid` solver, measured: run each scene of
configs/rigid/ (and the variants below) and print the figures its
acceptance asks for, from the run's report and its frames.

    rigid_scenes.py [--mergesplit PATH] [--plugin-path DIR] [--threads N]
                    [NAME ...]

NAME: box, box_heavy, box_light, sphere, stack, dominoes, wall, float
(default: all).  Each figure is what the run wrote; nothing is assumed:

- on the cloth: penetrations (the report's count over every frame), the
  body's speed at the end (|P| / M of its system, last frame), how deep
  its particles went into the cloth's (closest distance of a body particle
  to a cloth particle, as a fraction of the contact distance, over the
  frames), the largest rise of the total energy between frames;
- the stack: each box's horizontal drift from its place at 0.5 s (once
  landed) to the end, and penetrations;
- dominoes: each slab's centre height at the end (standing: 0.05 m);
- the wall: bonds broken, the ball's velocity at the end and the energy at
  the end, for the rigid ball and for the paper's peridynamics ball;
- floating: the share of the box's volume under the water at the end
  (each particle a slab one spacing high: right also for a box that
  turned on an edge) against Archimedes' 50 % (density 500), below three
  levels of the water: its particles' surface (the median over the
  columns away from the box of the highest particle, plus half a
  spacing), its pressure's (the median of y + p / (rho g) over the
  particles 0.04-0.08 m high away from the box, above the lowest cells'
  centres, where the pressure sampled at a particle is linear in its
  height: the hydrostatic level the solver's pressure shows), and the level its mass fills at its
  density (the water's volume plus the box's volume under that level,
  over the tank's area); and how far the box's centre moved over the last
  second.
"""
import argparse
import glob
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile


def read_vtp(path):
    """Point arrays of a frame file written by mergesplit (appended raw)."""
    with open(path, "rb") as f:
        b = f.read()
    i = b.index(b"<AppendedData")
    j = b.index(b"_", i) + 1
    head = b[:i].decode()
    kinds = {"Float64": "d", "Int32": "i", "UInt32": "I", "UInt8": "B",
             "Int64": "q"}
    out = {}
    for m in re.finditer(r'<DataArray type="(\w+)" Name="(\w+)" '
                         r'NumberOfComponents="(\d+)" format="appended" '
                         r'offset="(\d+)"', head):
        t, name, comp, off = m.group(1), m.group(2), int(m.group(3)), \
            int(m.group(4))
        size = struct.unpack("<Q", b[j + off:j + off + 8])[0]
        k = size // struct.calcsize(kinds[t])
        v = struct.unpack("<%d%s" % (k, kinds[t]), b[j + off + 8:j + off + 8 +
                                                   size])
        out[name] = [v[q * comp:(q + 1) * comp] for q in range(k // comp)] \
            if comp > 1 else list(v)
    return out


def frames(outdir, system):
    return sorted(glob.glob(os.path.join(outdir, system + "_*.vtp")))


def centre(points, masses):
    m = sum(masses)
    return [sum(p[a] * w for p, w in zip(points, masses)) / m
            for a in range(3)]


def run(args, text, name):
    """Run scene text; (report, output dir) or exit with its error."""
    tmpdir = tempfile.mkdtemp(prefix="rigid-")
    scene = os.path.join(tmpdir, name + ".cfg")
    with open(scene, "w") as f:
        f.write(text)
    out = os.path.join(tmpdir, "out")
    rep = os.path.join(tmpdir, "report.json")
    extra = ["--plugin-path", args.plugin_path] if args.plugin_path else []
    p = subprocess.run([args.mergesplit, "run", scene, "-o", out, "--quiet",
                        "--report", rep, "--threads", str(args.threads)] +
                       extra,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        sys.exit("%s: %s" % (name, p.stderr.strip()))
    with open(rep) as f:
        return json.load(f), out


def energy_rise(r):
    worst, prev = 0.0, None
    for fr in r["frames"]:
        e = fr["energy"]["total"]
        if prev is not None:
            worst = max(worst, e - prev)
        prev = e
    return worst


def system_of(fr, name):
    return [s for s in fr["systems"] if s["name"] == name][0]


def on_cloth(args, path, body, mass=None):
    with open(path) as f:
        text = f.read()
    if mass is not None:
        text = re.sub(r"mass = [0-9.e-]+;", "mass = %r;" % mass, text)
    r, out = run(args, text, body)
    pen = max(fr["penetration"]["max"] for fr in r["frames"])
    last = system_of(r["frames"][-1], body)
    d0 = read_vtp(frames(out, body)[0])
    m = sum(d0["mass"])
    speed = math.sqrt(sum(p * p for p in last["momentum"])) / m
    deepest = math.inf
    for fb, fc in zip(frames(out, body), frames(out, "cloth")):
        b, c = read_vtp(fb), read_vtp(fc)
        for x, rb in zip(b["position"], b["radius"]):
            for y, rc in zip(c["position"], c["radius"]):
                d = math.dist(x, y)
                if d < 2.0 * (rb + rc):
                    deepest = min(deepest, d / (rb + rc))
    return pen, speed, deepest, energy_rise(r)


def cloth(args, top, names):
    rows = [("box", "box_on_cloth.cfg", "box", None, "0.8 kg box"),
            ("box_heavy", "box_on_cloth.cfg", "box", 80.0,
             "80 kg box (100x heavier per particle than the cloth's)"),
            ("box_light", "box_on_cloth.cfg", "box", 0.008,
             "8 g box (100x lighter)"),
            ("sphere", "sphere_on_cloth.cfg", "ball", None, "0.8 kg ball")]
    rows = [r for r in rows if r[0] in names]
    if not rows:
        return
    print("| on the cloth, 3 s | penetrations | speed at the end [m/s] | "
          "closest to a cloth particle (of the contact distance) | "
          "largest energy rise [J] |")
    print("|---|---|---|---|---|")
    for _, cfg, body, mass, label in rows:
        pen, speed, deepest, rise = on_cloth(
            args, os.path.join(top, "configs", "rigid", cfg), body, mass)
        print("| %s | %d | %.2g | %.4f | %.2g |" % (label, pen, speed,
                                                    deepest, rise),
              flush=True)


def stack(args, top):
    with open(os.path.join(top, "configs", "rigid", "stack_on_slab.cfg")) as f:
        r, out = run(args, f.read(), "stack")
    fs = frames(out, "boxes")
    fps = r["fps"]
    a, b = read_vtp(fs[int(0.5 * fps)]), read_vtp(fs[-1])
    n = len(a["mass"]) // 3
    drift = []
    for k in range(3):
        ca = centre(a["position"][k * n:(k + 1) * n], a["mass"][k * n:(k + 1) * n])
        cb = centre(b["position"][k * n:(k + 1) * n], b["mass"][k * n:(k + 1) * n])
        drift.append(math.hypot(cb[0] - ca[0], cb[2] - ca[2]))
    pen = max(fr["penetration"]["max"] for fr in r["frames"])
    print("stack_on_slab.cfg, 0.5 s to 2 s: horizontal drift of the boxes "
          "%s m; penetrations at most %d; largest energy rise %.2g J" % (
              ", ".join("%.2g" % d for d in drift), pen, energy_rise(r)))


def dominoes(args, top):
    with open(os.path.join(top, "configs", "rigid", "dominoes.cfg")) as f:
        r, out = run(args, f.read(), "dominoes")
    d = read_vtp(frames(out, "dominoes")[-1])
    n = len(d["mass"]) // 8
    ys = [centre(d["position"][k * n:(k + 1) * n],
                 d["mass"][k * n:(k + 1) * n])[1] for k in range(8)]
    e = r["totals"]["energy"]
    print("dominoes.cfg, 2 s: centre heights %s m (standing 0.05); energy "
          "%.4g -> %.4g J, largest rise between frames %.2g J" % (
              ", ".join("%.3f" % y for y in ys), e["start"], e["end"],
              energy_rise(r)))


def wall(args, top):
    for cfg in (os.path.join("rigid", "ball_through_wall.cfg"),
                os.path.join("paper", "fig05_brittle_wall.cfg")):
        with open(os.path.join(top, "configs", cfg)) as f:
            r, out = run(args, f.read(), "wall")
        bonds = sum(system_of(fr, "wall")["stats"].get("bonds_broken", 0)
                    for fr in r["frames"])
        ball = system_of(r["frames"][-1], "ball")
        m = sum(read_vtp(frames(out, "ball")[0])["mass"])
        v = [p / m for p in ball["momentum"]]
        print("%s: bonds broken %d, ball velocity at the end (%.3f, %.3f, "
              "%.3f) m/s, energy %.4g -> %.4g J" % (
                  cfg, bonds, v[0], v[1], v[2],
                  r["totals"]["energy"]["start"],
                  r["totals"]["energy"]["end"]), flush=True)


def water_levels(water, body, h, lo, area, rho):
    """The three levels of the docstring and the body's share under each:
    a list of (name, level [m], share)."""
    xs = [p[0] for p in body["position"]]
    zs = [p[2] for p in body["position"]]
    x0, x1, z0, z1 = min(xs), max(xs), min(zs), max(zs)
    tops, heads = {}, []
    for i, p in enumerate(water["position"]):
        away = max(x0 - p[0], p[0] - x1, z0 - p[2], p[2] - z1)
        if away < 2 * h:
            continue
        key = (math.floor((p[0] - lo) / h), math.floor((p[2] - lo) / h))
        tops[key] = max(tops.get(key, -1.0), p[1])
        if "pressure" in water and 0.04 <= p[1] < 0.08:
            heads.append(p[1] + water["pressure"][i] / (rho * 9.81))
    def share(level):
        return sum(min(1.0, max(0.0, (level - (p[1] - h / 2)) / h))
                   for p in body["position"]) / len(body["position"])
    t = sorted(tops.values())
    out = [("particles' surface", t[len(t) // 2] + h / 2)]
    if heads:
        heads.sort()
        out.append(("pressure's level", heads[len(heads) // 2]))
    vw = sum(water["mass"]) / rho
    vb = len(body["position"]) * h ** 3
    level = vw / area
    for _ in range(60):
        level = (vw + share(level) * vb) / area
    out.append(("mass's level", level))
    return [(n, v, share(v)) for n, v in out]


def floating(args, top):
    h = 0.02
    for cfg in ("box_in_sph.cfg", "box_in_flip.cfg"):
        with open(os.path.join(top, "configs", "rigid", cfg)) as f:
            r, out = run(args, f.read(), "float")
        fb = frames(out, "box")
        w, b = read_vtp(frames(out, "water")[-1]), read_vtp(fb[-1])
        a = read_vtp(fb[-1 - int(r["fps"])])
        moved = math.dist(centre(a["position"], a["mass"]),
                          centre(b["position"], b["mass"]))
        pen = max(fr["penetration"]["max"] for fr in r["frames"])
        shares = "; ".join("%.1f %% under the %s (%.4f m)" % (100 * u, n, v)
                           for n, v, u in water_levels(w, b, h, -0.2, 0.16,
                                                       1000.0))
        print("%s, %g s (Archimedes 50 %%): %s; centre moved %.1e m over "
              "the last second, penetrations at most %d" % (
                  cfg, r["frames"][-1]["time"], shares, moved, pen),
              flush=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mergesplit", default="mergesplit")
    ap.add_argument("--plugin-path", help="where the solver plugins are "
                    "(a build tree: plugins/.libs)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    names = args.names or ["box", "box_heavy", "box_light", "sphere",
                           "stack", "dominoes", "wall", "float"]
    cloth(args, top, names)
    if "stack" in names:
        stack(args, top)
    if "dominoes" in names:
        dominoes(args, top)
    if "wall" in names:
        wall(args, top)
    if "float" in names:
        floating(args, top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
