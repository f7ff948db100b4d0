#!/usr/bin/env python3
"""Run the paper's scenes (configs/paper/) and write the table of
doc/paper.md.

For every scene: merging-and-splitting at scale 1 and then at doubling
scales while the next run is predicted to finish within the time budget
(default 10 minutes on this machine's cores), with the default
synchronisation (the momentum rule); the paper's Eq. 17
(`coupling.sync = "paper"`) at scale 1; for the scenes of Figs. 3, 4
and 5 also the baselines at scale 1.  Each run writes a JSON report
(`mergesplit run --report`); the table gives particles, steps,
penetrations (largest count seen, and crossings of a sheet), the largest
speed, the meta-particles' mean size (per meta-particle, and per merged
particle), ms per step, the share of detection + merging + splitting in
the step, stage 2 / stage 1 time, the momentum the synchronisation
created or lost over the run relative to the coupling impulse it
exchanged (|sum of the defects| / sum of |impulses|; 0 to round-off for a
conserving rule), and the largest rise of the total energy between two
frames relative to the energy's scale (`totals.energy` of the report).  A scene's last row names the
scale it stopped at: over the budget, predicted over it (not run), or not
measured yet (--cached-only).  The prediction (2.6x the last run) is
rough: --min-scale S grows every scene to S whatever it predicts (a run
over the budget still stops), and a run the cache holds is shown.

    paper_table.py [--mergesplit PATH] [--configs DIR] [--budget SECONDS]
                   [--min-scale S] [--max-scale S] [--threads N] [--out FILE]
                   [--cache FILE [--cached-only]] [SCENE ...]

SCENE names files of configs/paper (default: all *.cfg there).  The table
goes to stdout and, with --out, to FILE.  A run that takes longer than the
budget is stopped and counts as not fitting.  With --cache, every run's
result is kept in FILE (one JSON line per run, keyed by scene, method,
scale, threads, budget and a hash of the scene file with its @includes) and
taken from there when asked again: the whole table takes hours at the
default budget, and may be built in several sittings.  Each row keeps the
source commit it was measured at (the table's last line lists them);
start a new cache when the code changes.  --cached-only writes the table
of what the cache holds without running anything.
tests/bench/paper_table.jsonl is the cache doc/paper.md's table was made
from.
"""
import argparse
import glob
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time

BASELINES = ["penalty:weak", "penalty:medium", "penalty:strong",
             "sph_force:weak", "impulse"]
COMPARED = ("fig03_", "fig04_", "fig05_")


def scene_hash(scene):
    """Hash of the scene file and of the files it @includes."""
    h = hashlib.sha256()
    todo, seen = [scene], set()
    while todo:
        path = todo.pop()
        if path in seen or not os.path.exists(path):
            continue
        seen.add(path)
        with open(path, "rb") as f:
            data = f.read()
        h.update(data)
        for line in data.decode("utf-8", "replace").splitlines():
            line = line.strip()
            if line.startswith("@include"):
                name = line.split('"')[1]
                todo.append(os.path.join(os.path.dirname(path), name))
    return h.hexdigest()[:16]


def run_once(args, scene, method, scale, tmp):
    report = os.path.join(tmp, "report.json")
    if os.path.exists(report):
        os.remove(report)
    cmd = [args.mergesplit, "run", scene, "--no-output", "--quiet",
           "--report", report, "--scale", repr(scale),
           "--threads", str(args.threads)]
    if method and method.startswith("sync:"):
        cmd += ["--sync", method[5:]]
    elif method:
        cmd += ["--method", method]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True,
                           timeout=args.budget)
    except subprocess.TimeoutExpired:
        return {"error": "over the budget of %g s" % args.budget,
                "wall": time.monotonic() - t0, "over_budget": True}
    wall = time.monotonic() - t0
    if not os.path.exists(report):
        return {"error": p.stderr.strip() or "exit %d" % p.returncode,
                "wall": wall}
    with open(report) as f:
        r = json.load(f)
    r["wall"] = wall
    return r


def cache_key(args, scene, method, scale):
    return "%s|%s|%r|%d|%g|%s" % (os.path.basename(scene),
                                  method or "merge-split", scale,
                                  args.threads, args.budget,
                                  scene_hash(scene))


def cached(args, scene, scale):
    """Whether the cache holds merging-and-splitting at this scale (a run
    measured once is shown even where the next is predicted not to fit)."""
    return cache_key(args, scene, None, scale) in args.cached


def run(args, scene, method, scale, tmp):
    key = cache_key(args, scene, method, scale)
    if key in args.cached:
        args.used.append(args.cached[key])
        return args.cached[key]
    if args.cached_only:
        return {"error": "not measured", "wall": float("inf")}
    r = run_once(args, scene, method, scale, tmp)
    r["commit"] = args.commit
    if args.cache:
        keep = {k: r[k] for k in ("totals", "timing", "systems", "status",
                                  "error", "wall", "over_budget",
                                  "mergesplit_version", "commit") if k in r}
        with open(args.cache, "a") as f:
            f.write(json.dumps({"key": key, "result": keep}) + "\n")
        args.cached[key] = keep
    args.used.append(r)
    return r


def source_commit(top):
    """The source tree's commit (with "+" if it has changes), or ""."""
    try:
        head = subprocess.run(["git", "-C", top, "rev-parse", "--short=10",
                               "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        # changes to what is measured (not to this script or the docs)
        dirty = subprocess.run(["git", "-C", top, "status", "--porcelain",
                                "--untracked-files=no", "--", "core",
                                "plugins", "sdk", "configs"],
                               capture_output=True, text=True,
                               check=True).stdout.strip()
        return head + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return ""


def load_cache(path):
    cached = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    e = json.loads(line)
                    cached[e["key"]] = e["result"]
    return cached


def sync_defect(t):
    """|sum of the synchronisation's momentum defects| / sum of |coupling
    impulses| over the run, or None when the report predates them."""
    led = t.get("ledger", {})
    d, x = led.get("momentum_defect"), led.get("coupling_impulse")
    if d is None or x is None:
        return None
    return math.sqrt(sum(c * c for c in d)) / x if x > 0 else 0.0


def energy_rise(t):
    e = t.get("energy")
    if not e or not e.get("scale"):
        return None
    return e["max_rise"] / e["scale"]


def fmt(x):
    return "—" if x is None else "%.1e" % x


def row(name, method, scale, r):
    if "totals" not in r:
        return ("| %s | %s | %g | — | — | — | — | — | — | — | — | — | — | "
                "%s |" % (name, method, scale, r.get("error", "failed")))
    t, tim = r["totals"], r["timing"]
    ph = {p["phase"]: p for p in tim["phases"]}
    steps = max(tim["steps"], 1)
    total = tim["total_seconds"]
    core = sum(ph[k]["seconds"] for k in ("detection", "merging",
                                          "splitting"))
    s1, s2 = ph["stage1"]["seconds"], ph["stage2"]["seconds"]
    particles = sum(s["particles"] for s in r["systems"])
    pen = t["penetration"]
    status = "ok" if r["status"] == "ok" else r.get("error", "error")
    defect = sync_defect(t) if method.startswith("merge-split") else None
    return ("| %s | %s | %g | %d | %d | %d (%d) | %.3g | %.2f / %.1f | "
            "%.1f | %.1f %% | %s | %s | %s | %s |" % (
                name, method, scale, particles, t["steps"], pen["max"],
                pen["crossings"], t["max_speed"], t["meta_size_mean"],
                t["meta_size_weighted"], 1e3 * total / steps,
                100.0 * core / total if total > 0 else 0.0,
                "%.2f" % (s2 / s1) if s1 > 0 else "—", fmt(defect),
                fmt(energy_rise(t)), status))


HEADER = ("| scene | method | scale | particles | steps | penetrations "
          "(crossings) | max speed [m/s] | meta size: mean / per particle "
          "| ms/step | detect+merge+split | stage 2 / stage 1 | sync "
          "momentum error | energy rise | status |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mergesplit", default="mergesplit")
    ap.add_argument("--configs", default=os.path.join(top, "configs",
                                                      "paper"))
    ap.add_argument("--budget", type=float, default=600.0,
                    help="seconds a scaled-up run may take")
    ap.add_argument("--min-scale", type=float, default=1.0,
                    help="grow to this scale whatever the prediction")
    ap.add_argument("--max-scale", type=float, default=1024.0)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out")
    ap.add_argument("--cache")
    ap.add_argument("--cached-only", action="store_true",
                    help="run nothing: the table of what --cache holds")
    ap.add_argument("scenes", nargs="*")
    args = ap.parse_args()
    args.cached = load_cache(args.cache)
    args.commit = source_commit(top)
    args.used = []
    names = args.scenes or sorted(
        os.path.basename(p) for p in glob.glob(os.path.join(args.configs,
                                                            "*.cfg")))
    lines = [HEADER]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            scene = os.path.join(args.configs, name)
            label = name[:-4] if name.endswith(".cfg") else name
            r = run(args, scene, None, 1.0, tmp)
            lines.append(row(label, "merge-split", 1.0, r))
            print(lines[-1], flush=True)
            p = run(args, scene, "sync:paper", 1.0, tmp)
            lines.append(row(label, "merge-split (Eq. 17)", 1.0, p))
            print(lines[-1], flush=True)
            if name.startswith(COMPARED):
                for m in BASELINES:
                    b = run(args, scene, m, 1.0, tmp)
                    lines.append(row(label, m, 1.0, b))
                    print(lines[-1], flush=True)
            # grow while the next run should fit the budget: twice the
            # particles, and the finer lattice takes 2^(1/3) more steps
            scale, wall = 1.0, r["wall"]
            while ("totals" in r and r["status"] == "ok"
                   and 2.0 * scale <= args.max_scale):
                if (wall * 2.6 > args.budget and 2.0 * scale > args.min_scale
                        and not cached(args, scene, 2.0 * scale)):
                    lines.append(row(label, "merge-split", 2.0 * scale, {
                        "error": "not run: predicted %.0f s, over the "
                                 "budget" % (wall * 2.6)}))
                    print(lines[-1], flush=True)
                    break
                scale *= 2.0
                r = run(args, scene, None, scale, tmp)
                wall = r["wall"]
                # a row also for the scale that did not fit (or that the
                # cache does not hold yet): where and why the scene stops
                lines.append(row(label, "merge-split", scale, r))
                print(lines[-1], flush=True)
                if wall > args.budget:
                    break
    commits = sorted({r.get("commit") or "?" for r in args.used})
    lines.append("")
    lines.append("Measured with %d thread(s), budget %g s per run, source "
                 "commit %s." % (args.threads, args.budget,
                                 ", ".join(commits)))
    print(lines[-1], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
