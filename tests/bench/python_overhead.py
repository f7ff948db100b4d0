#!/usr/bin/env python3
"""What driving a run from Python costs: 1000 steps of the default scene
by a Python loop of Simulation.step() against `mergesplit run` of the same
steps (no output files in either), wall-clock medians of --repeat runs
each, alternating the two.

    PYTHONPATH=python MS_CLI=core/cli/mergesplit \\
        python3 tests/bench/python_overhead.py [--steps 1000] [--repeat 5]
"""
import argparse
import os
import statistics
import subprocess
import time

import mergesplit

ap = argparse.ArgumentParser()
ap.add_argument("--scene", default="configs/default.cfg")
ap.add_argument("--steps", type=int, default=1000)
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--threads", type=int, default=0)
ap.add_argument("--duration", type=float, default=20.0,
                help="scene.duration, long enough for --steps")
a = ap.parse_args()
cli = os.environ.get("MS_CLI", "mergesplit")

over = {"scene.duration": a.duration}
# the whole frames that hold --steps steps: count them once
with mergesplit.Simulation.from_file(a.scene, over, threads=a.threads) as s:
    while s.steps < a.steps and not s.done:
        s.step()
    f = s.frames_done
    while s.frames_done == f and not s.done:
        s.step()
    frames = s.frames_done


def python_run():
    t0 = time.perf_counter()
    with mergesplit.Simulation.from_file(a.scene, over, threads=a.threads,
                                         frames=frames) as s:
        while not s.done:
            s.step()
        k = s.steps
    return time.perf_counter() - t0, k


def cli_run():
    cmd = [cli, "run", a.scene, "-n", str(frames), "--no-output", "-q",
           "--set", "scene.duration=%r" % a.duration]
    if a.threads:
        cmd += ["-j", str(a.threads)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


py, cl = [], []
for _ in range(a.repeat):
    t, k = python_run()
    py.append(t)
    cl.append(cli_run())
mp, mc = statistics.median(py), statistics.median(cl)
print("scene %s, %d frames, %d steps (Python loop of step())" % (a.scene, frames, k))
print("python step() loop: median %.3f s  (runs: %s)" % (mp, " ".join("%.3f" % x for x in py)))
print("mergesplit run:     median %.3f s  (runs: %s)" % (mc, " ".join("%.3f" % x for x in cl)))
print("python / cli: %.4f  (%+.2f %%)" % (mp / mc, 100 * (mp / mc - 1)))
