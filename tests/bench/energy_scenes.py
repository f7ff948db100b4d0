#!/usr/bin/env python3
"""Does a coupled run create energy?  For every shipped scene without pins
(configs/ and every folder under it; a scene that names `pins` or
`hold`, itself or in a file it @includes, is left out: a pin, or a
clamp holding a body's particles in place or moving them, is an
external force), run it with alpha = beta = 1 (the split gives back all the energy
merging and synchronising stored), then with alpha = 1, beta = 0 and with
alpha = beta = 0, and print the largest rise of the total energy (kinetic
+ gravitational + internal, the report's `totals.energy`) from one frame
to the next, relative to the energy's scale, and the frame it happened
at.  A rise means the run created energy between those frames.

    energy_scenes.py [--mergesplit PATH] [--threads N] [--variant A,B]...
                     [--set KEY=VALUE]... [--after FRAME] [SCENE ...]

SCENE: paths of scene files (default: every unpinned scene of configs/
and of each folder under it).  --variant A,B (repeatable): an (alpha,
beta) pair to run instead of the three above, e.g. --variant 1,1.
--set KEY=VALUE (repeatable): passed to `mergesplit run --set`, e.g.
systems.water.energy_limit_metas=true.  --after FRAME: only the rises
into frames after FRAME count (a scene's later frames, past its start).
The coupling's own share is in the split ledger; what a solver's
integration does on its own shows in a scene with one system
(sph_dam_break, flip_dam_break)."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

VARIANTS = [(1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]


def text_with_includes(path):
    out, todo, seen = [], [path], set()
    while todo:
        p = todo.pop()
        if p in seen or not os.path.exists(p):
            continue
        seen.add(p)
        with open(p) as f:
            t = f.read()
        out.append(t)
        for m in re.finditer(r'@include\s+"([^"]+)"', t):
            todo.append(os.path.join(os.path.dirname(p), m.group(1)))
    return "\n".join(out)


def pinned(path):
    """Whether the scene pins or clamps anything (outside comments)."""
    t = "\n".join(l.split("#")[0] for l in text_with_includes(path).split("\n"))
    return re.search(r"\b(pins|hold)\s*=", t) is not None


def with_alpha_beta(text, a, b):
    """The scene text with coupling.alpha and .beta set."""
    text = re.sub(r"^\s*(alpha|beta)\s*=\s*[^;]*;[^\n]*\n", "", text,
                  flags=re.M)
    keys = "\n  alpha = %r;\n  beta = %r;" % (a, b)
    if re.search(r"^coupling\s*=\s*\{", text, flags=re.M):
        return re.sub(r"^(coupling\s*=\s*\{)", lambda m: m.group(1) + keys,
                      text, count=1, flags=re.M)
    return text + "\ncoupling = {%s\n};\n" % keys


def run(args, scene, a, b):
    with open(scene) as f:
        text = with_alpha_beta(f.read(), a, b)
    d = os.path.dirname(os.path.abspath(scene))  # for @include
    fd, tmp = tempfile.mkstemp(prefix=".energy-", suffix=".cfg", dir=d)
    rep = tmp + ".json"
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        sets = [a for kv in args.set or [] for a in ("--set", kv)]
        p = subprocess.run([args.mergesplit, "run", tmp, "--no-output",
                            "--quiet", "--report", rep, "--threads",
                            str(args.threads)] + sets,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0 or not os.path.exists(rep):
            return None, p.stderr.strip()
        with open(rep) as f:
            r = json.load(f)
    finally:
        for q in (tmp, rep):
            if os.path.exists(q):
                os.remove(q)
    e = r["totals"]["energy"]
    worst, at, prev = 0.0, 0, None
    for fr in r["frames"]:
        tot = fr["energy"]["total"]
        if (prev is not None and tot - prev > worst and
                fr["frame"] > args.after):
            worst, at = tot - prev, fr["frame"]
        prev = tot
    return {"rise": worst / e["scale"] if e["scale"] else 0.0, "frame": at,
            "start": e["start"], "end": e["end"],
            "complete": e["complete"]}, None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mergesplit", default="mergesplit")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--variant", action="append", metavar="A,B")
    ap.add_argument("--set", action="append", metavar="KEY=VALUE")
    ap.add_argument("--after", type=int, default=0, metavar="FRAME")
    ap.add_argument("scenes", nargs="*")
    args = ap.parse_args()
    variants = ([tuple(float(x) for x in v.split(",")) for v in args.variant]
                if args.variant else VARIANTS)
    scenes = args.scenes or sorted(
        glob.glob(os.path.join(top, "configs", "*.cfg")) +
        glob.glob(os.path.join(top, "configs", "*", "*.cfg")))
    print("| scene | alpha | beta | energy start -> end [J] | largest rise "
          "between frames (of the scale) | at frame |")
    print("|---|---|---|---|---|---|")
    for s in scenes:
        if pinned(s):
            continue
        name = os.path.relpath(s, os.path.join(top, "configs"))
        for a, b in variants:
            r, err = run(args, s, a, b)
            if r is None:
                print("| %s | %g | %g | — | %s | — |" % (name, a, b, err))
            else:
                print("| %s | %g | %g | %.4g -> %.4g | %.1e%s | %d |" % (
                    name, a, b, r["start"], r["end"], r["rise"],
                    "" if r["complete"] else " (internal unknown)",
                    r["frame"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
