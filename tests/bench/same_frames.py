#!/usr/bin/env python3
"""Do two builds write the same frames?  For refactoring that must not
change behaviour: run every scene with the `mergesplit` of build BEFORE
and of build AFTER (each with its own plugins) and compare every file the
runs write, byte for byte.

    same_frames.py BEFORE AFTER [--frames N] [--threads N] [--scale S]
                   [--method M] [SCENE ...]

BEFORE, AFTER: build trees (core/cli/mergesplit and plugins/.libs in
each, and the test plugins of tests/fixtures/.libs once `make check` has
built them) or install prefixes (bin/mergesplit and
lib/mergesplit/plugins).
SCENE: scene files (default: configs/*.cfg and configs/paper/*.cfg of
this tree, at the scale they are written for).  --frames N stops every
run after N frames (default: whole runs); --scale overrides scene.scale,
--method the collision method (as `mergesplit run --method`).
Checkpoints (.msck) must exist on both sides but are not compared: they
keep the run's wall-clock timings, so no two runs write the same bytes
(a resumed run's frames are compared instead).
A run's frames do not depend on the thread count (--threads, default 2).
Prints one line per scene (same, or the first files that differ) and a
last line `N same, N differ`; exits 1 if any differ or a run fails."""
import argparse
import filecmp
import glob
import os
import subprocess
import sys
import tempfile


def tools(tree):
    """(mergesplit binary, plugin directory) of a build tree or prefix."""
    tree = os.path.abspath(tree)
    for exe, plugins in (("core/cli/mergesplit", "plugins/.libs"),
                         ("bin/mergesplit", "lib/mergesplit/plugins")):
        if os.access(os.path.join(tree, exe), os.X_OK):
            return os.path.join(tree, exe), os.path.join(tree, plugins)
    sys.exit("%s: no core/cli/mergesplit or bin/mergesplit" % tree)


def run(tree, scene, out, args):
    exe, plugins = tools(tree)
    cmd = [exe, "run", scene, "-o", out, "--quiet", "--threads",
           str(args.threads), "--plugin-path", plugins]
    fixtures = os.path.join(os.path.abspath(tree), "tests/fixtures/.libs")
    if os.path.isdir(fixtures):  # a build tree's test plugins too
        cmd += ["--plugin-path", fixtures]
    if args.frames:
        cmd += ["--frames", str(args.frames)]
    if args.scale:
        cmd += ["--scale", str(args.scale)]
    if args.method:
        cmd += ["--method", args.method]
    env = dict(os.environ)
    env.pop("MERGESPLIT_PLUGIN_PATH", None)  # each build its own plugins
    p = subprocess.run(cmd, cwd=os.path.dirname(out), env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr.strip().split("\n")[-1]


def differing(a, b):
    """Files present in only one of the directories or differing."""
    out = []
    for root, _, files in os.walk(a):
        rel = os.path.relpath(root, a)
        for f in files:
            q = os.path.normpath(os.path.join(rel, f))
            other = os.path.join(b, q)
            if not os.path.exists(other):
                out.append(q + " (only before)")
            elif q.endswith(".msck"):
                continue  # a checkpoint keeps the run's wall-clock timings
            elif not filecmp.cmp(os.path.join(a, q), other, shallow=False):
                out.append(q)
    for root, _, files in os.walk(b):
        rel = os.path.relpath(root, b)
        for f in files:
            q = os.path.normpath(os.path.join(rel, f))
            if not os.path.exists(os.path.join(a, q)):
                out.append(q + " (only after)")
    return sorted(out)


def main():
    top = os.path.normpath(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--frames", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scale", type=float, default=0.0)
    ap.add_argument("--method", default="")
    ap.add_argument("scenes", nargs="*")
    args = ap.parse_intermixed_args()
    scenes = args.scenes or sorted(
        glob.glob(os.path.join(top, "configs", "*.cfg")) +
        glob.glob(os.path.join(top, "configs", "paper", "*.cfg")))
    same = differ = 0
    for s in map(os.path.abspath, scenes):
        name = os.path.relpath(os.path.abspath(s), os.path.join(top, "configs"))
        with tempfile.TemporaryDirectory(prefix="ms-same-") as d:
            a, b = os.path.join(d, "before"), os.path.join(d, "after")
            ra, ea = run(args.before, s, a, args)
            rb, eb = run(args.after, s, b, args)
            if ra or rb:
                print("%s: run failed (before: exit %d %s; after: exit %d %s)"
                      % (name, ra, ea if ra else "", rb, eb if rb else ""),
                      flush=True)
                differ += 1
                continue
            bad = differing(a, b)
            nfiles = sum(len(f) for _, _, f in os.walk(a))
            if bad:
                differ += 1
                print("%s: %d of %d files differ: %s" % (
                    name, len(bad), nfiles, ", ".join(bad[:5])), flush=True)
            else:
                same += 1
                print("%s: same (%d files)" % (name, nfiles), flush=True)
    print("%d same, %d differ" % (same, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
