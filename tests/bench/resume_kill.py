#!/usr/bin/env python3
"""Is a resumed run bit-identical to an uninterrupted one, whatever the
moment it was stopped?  For each scene: one uninterrupted run, then KILLS
runs stopped at random moments (SIGKILL, SIGTERM and SIGINT in turn) and
resumed from their last checkpoint; every frame file of each must equal
the uninterrupted run's, byte for byte.

    resume_kill.py [--mergesplit PATH] [--plugin-path DIR] [--kills K]
                   [--frames N] [--scale S] [--threads N] [--seed X]
                   [SCENE ...]

SCENE: scene files (default: one or more of every family of configs/:
the paper's figures, a soft body, Gao 2018, Wicke 2007, rigid bodies,
heat, zero gravity).  Every run writes a checkpoint after each frame
(--checkpoint-every 1) and uses the same thread count (default 2).  A
stop lands at a moment drawn uniformly over the time the uninterrupted
run took after its first checkpoint; the draws follow --seed (default 1).
A run that finishes before its signal (a busier machine while the
uninterrupted run was timed, a faster one later) is started again with
the window halved, up to three times.
Prints one line per scene and a last line `N of M bit-identical`; exits 1
unless every resumed run is."""
import argparse
import filecmp
import glob
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SIGNALS = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT]
DEFAULT_SCENES = [
    "configs/paper/fig03_ball_on_cloth_high.cfg",
    "configs/paper/fig04_column_on_cloth.cfg",
    "configs/paper/fig05_brittle_wall.cfg",
    "configs/paper/fig08_bowl_into_water.cfg",
    "configs/paper/fig08_dam_break_wall.cfg",
    "configs/paper/fig09_flip_cloth.cfg",
    "configs/paper/fig10c_alpha1_beta1.cfg",
    "configs/paper/fig11_nmin_nmax_8_16.cfg",
    "configs/soft_trampoline.cfg",
    "configs/gao2018/soft_bodies_drop.cfg",
    "configs/gao2018/oil_drop.cfg",
    "configs/gao2018/ice_melts.cfg",
    "configs/wicke2007/fracture.cfg",
    "configs/wicke2007/melting_body.cfg",
    "configs/rigid/dominoes.cfg",
    "configs/rigid/box_on_cloth.cfg",
    "configs/heat/hot_box_in_water.cfg",
    "configs/zero_g/blob_into_block.cfg",
]


def frames_of(d):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "*"))
                  if p.endswith((".vtp", ".ply")))


def differs(ref, out):
    """The first frame file that differs (or is missing), or None."""
    a, b = frames_of(ref), frames_of(out)
    if a != b:
        extra = sorted(set(a) ^ set(b))
        return "file set differs (%s)" % (extra[0] if extra else "order")
    for name in a:
        if not filecmp.cmp(os.path.join(ref, name), os.path.join(out, name),
                           shallow=False):
            return name
    return None


def command(args, scene, out, extra=()):
    cmd = [args.mergesplit, "run", scene, "-o", out, "-q", "--frames",
           str(args.frames), "--threads", str(args.threads),
           "--checkpoint-every", "1"]
    if args.scale:
        cmd += ["--scale", str(args.scale)]
    for p in args.plugin_path:
        cmd += ["--plugin-path", p]
    return cmd + list(extra)


def stopped_run(args, scene, out, span, rng, sig):
    """Start a run, stop it with sig at a random moment after its first
    checkpoint; returns 'stopped' or 'finished' (done before the signal)."""
    proc = subprocess.Popen(command(args, scene, out),
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    ckpt = os.path.join(out, "checkpoint.msck")
    while not os.path.exists(ckpt) and proc.poll() is None:
        time.sleep(0.005)
    time.sleep(rng.uniform(0.0, span))
    if proc.poll() is not None:
        return "finished"
    proc.send_signal(sig)
    rc = proc.wait()
    return "finished" if rc == 0 else "stopped"


def reference_run(args, scene, ref):
    """The uninterrupted run: its status, stderr, and how long it ran
    after its first checkpoint (the window the stops are drawn from)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(command(args, scene, ref),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    ckpt, t_ck = os.path.join(ref, "checkpoint.msck"), None
    while proc.poll() is None:
        if t_ck is None and os.path.exists(ckpt):
            t_ck = time.monotonic()
        time.sleep(0.005)
    t1 = time.monotonic()
    return proc.returncode, proc.stderr.read(), t1 - (t_ck or t0)


def one_scene(args, scene, rng, tmp):
    ref = os.path.join(tmp, "ref")
    rc, err, span = reference_run(args, scene, ref)
    if rc:
        return None, "uninterrupted run failed: " + err.strip()[-200:]
    results = []
    for k in range(args.kills):
        sig = SIGNALS[k % len(SIGNALS)]
        out = os.path.join(tmp, "run%d" % k)
        for attempt in range(4):
            shutil.rmtree(out, ignore_errors=True)
            how = stopped_run(args, scene, out, 0.9 * span / 2 ** attempt,
                              rng, sig)
            if how == "stopped":
                break
        if how == "stopped":
            r = subprocess.run(
                command(args, scene, out,
                        ["--resume", os.path.join(out, "checkpoint.msck")]),
                capture_output=True, text=True)
            if r.returncode:
                results.append((sig, how, "resume failed: " +
                                r.stderr.strip()[-200:]))
                continue
        results.append((sig, how, differs(ref, out)))
    return results, span


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mergesplit",
                    default=os.path.join(TOP, "core/cli/mergesplit"))
    ap.add_argument("--plugin-path", action="append", default=[])
    ap.add_argument("--kills", type=int, default=6)
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--scale", type=float, default=0.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("scenes", nargs="*")
    args = ap.parse_args()
    scenes = args.scenes or [os.path.join(TOP, s) for s in DEFAULT_SCENES]
    rng = random.Random(args.seed)
    same = total = 0
    for scene in scenes:
        with tempfile.TemporaryDirectory() as tmp:
            results, span = one_scene(args, scene, rng, tmp)
        name = os.path.relpath(scene, TOP)
        if results is None:
            print("%s: %s" % (name, span))
            total += 1
            continue
        resumed = [r for r in results if r[1] == "stopped"]
        good = [r for r in resumed if r[2] is None]
        bad = [r for r in results if r[2] is not None]
        same += len(good)
        total += len(resumed) + sum(1 for r in results
                                    if r[1] == "finished" and r[2])
        sigs = "/".join(signal.Signals(r[0]).name[3:] for r in resumed)
        line = "%s: %d of %d resumed runs bit-identical (%s; %d finished " \
               "before the signal; run after its first checkpoint %.1f s)" % (
                   name, len(good), len(resumed), sigs or "-",
                   len(results) - len(resumed), span)
        if bad:
            line += "; first difference: %s after SIG%s" % (
                bad[0][2], signal.Signals(bad[0][0]).name[3:])
        print(line, flush=True)
    print("%d of %d bit-identical" % (same, total))
    return 0 if same == total else 1


if __name__ == "__main__":
    sys.exit(main())
