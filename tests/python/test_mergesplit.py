"""The Python module mergesplit (run by tests/python.test, TAP).

Each check compares with the C library or the command line: a run driven
from Python is the `mergesplit run` of the same scene bit for bit, the
arrays are the frames written, a velocity written is the next step's.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc

import numpy as np

import mergesplit

CONFIGS = os.environ["MS_CONFIGS"]
CLI = os.environ["MS_CLI"]
DEFAULT = os.path.join(CONFIGS, "default.cfg")
TWO_BALLS = os.path.join(CONFIGS, "two_balls.cfg")
n = 0
failed = 0


def check(ok, what, detail=""):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
    if not ok and detail:
        for line in str(detail).splitlines():
            print("# " + line)


def raises(f, exc):
    try:
        f()
    except exc as e:
        return e
    return None


def read_vtp(path):
    import vtk
    from vtk.util import numpy_support as ns
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    p = r.GetOutput()
    out = {"position": ns.vtk_to_numpy(p.GetPoints().GetData())}
    pd = p.GetPointData()
    for i in range(pd.GetNumberOfArrays()):
        out[pd.GetArrayName(i)] = ns.vtk_to_numpy(pd.GetArray(i))
    return out


# ---- the first line, and the shape of things ----------------------
s = mergesplit.Simulation.from_file(DEFAULT)
s.advance(0.1)
x = s.systems["cloth"].fields["position"]
check(x.shape == (1024, 3) and x.dtype == np.float64,
      "from_file(default.cfg); advance(0.1); cloth positions are (1024, 3) float64",
      "%r %r" % (x.shape, x.dtype))
check(abs(s.time - 0.1) < 1e-12 and s.frames_done == 3,
      "advance(0.1) ends at a frame's end: t = 0.1, 3 frames done", s.time)
check(sorted(s.systems) == ["ball", "cloth"] and
      s.systems["cloth"].solver == "mass_spring",
      "systems by name, with their solvers")
check({"position", "velocity", "mass", "radius"} <= set(s.systems["ball"].fields),
      "a system's field names")
m = s.systems["cloth"].fields["mass"]
check(m.shape == (1024,) and not m.flags.writeable and
      x.flags.writeable and raises(lambda: m.__setitem__(0, 1.0), ValueError),
      "one-component fields are 1-D; mass is read-only, position writable")
check(s.metrics["steps"] == s.steps > 0, "metrics as a dict")
s.close()
check(isinstance(raises(lambda: s.step(), ValueError), ValueError),
      "a closed simulation raises ValueError")
with mergesplit.Simulation.from_file(TWO_BALLS) as t:
    pass
check(isinstance(raises(lambda: t.step(), ValueError), ValueError),
      "a with-block closes the simulation")

# ---- a Python-driven run is the command line's, bit for bit ---------------
with tempfile.TemporaryDirectory() as tmp:
    a, b = os.path.join(tmp, "py"), os.path.join(tmp, "cli")
    kept = []
    with mergesplit.Simulation.from_file(DEFAULT, frames=3, threads=1,
                                         output_dir=a) as s:
        while not s.done:
            f = s.frames_done
            s.step()
            if s.frames_done > f:
                kept.append({k: s.systems["cloth"].fields[k].copy()
                             for k in ("position", "velocity", "mass")})
    rc = subprocess.run([CLI, "run", DEFAULT, "-n", "3", "-j", "1", "-o", b,
                         "-q"]).returncode
    files = sorted(f for f in os.listdir(b) if f.endswith((".vtp", ".pvd")))
    same = rc == 0 and len(files) >= 8 and all(
        open(os.path.join(a, f), "rb").read() ==
        open(os.path.join(b, f), "rb").read() for f in files)
    check(same, "a run stepped from Python writes the files mergesplit run "
          "writes, byte for byte (%d files)" % len(files))
    ok = True
    for i, k in enumerate(kept):
        v = read_vtp(os.path.join(b, "cloth_%06d.vtp" % (i + 1)))
        for name, arr in k.items():
            ok = ok and np.array_equal(arr.reshape(v[name].shape), v[name])
    check(ok and len(kept) == 3,
          "after each frame the fields are that frame's file, bitwise")

# ---- writing a velocity between steps -------------------------------------
with mergesplit.Simulation.from_file(TWO_BALLS, frames=2) as s:
    s.step()
    ball = s.systems[list(s.systems)[0]]
    x = ball.fields["position"]
    v = ball.fields["velocity"]
    c = x.mean(axis=0)
    out = (x[0] - c) / np.linalg.norm(x[0] - c)
    v[0] = v[0] + 0.5 * out          # away from its ball: it touches nothing
    x0, v0, t0 = x[0].copy(), v[0].copy(), s.time
    s.step()
    dt = s.time - t0
    x1 = ball.fields["position"][0]
    check(np.array_equal(ball.fields["velocity"][0], v0) and
          np.allclose(x1, x0 + v0 * dt, rtol=0, atol=1e-15),
          "a velocity written between steps is the next step's (x += v dt)",
          "%r vs %r" % (x1, x0 + v0 * dt))

# ---- overrides ------------------------------------------------------------
with mergesplit.Simulation.from_file(TWO_BALLS, frames=1,
                                     overrides={"scene.fps": 10.0,
                                                "coupling.sync": "paper"}) as s:
    s.run()
    check(abs(s.time - 0.1) < 1e-12, "overrides as a dict (scene.fps = 10)")
with mergesplit.Simulation.from_file(TWO_BALLS, frames=1,
                                     overrides=["scene.fps=10"]) as s:
    check(s.frames_total == 1, "overrides as KEY=VALUE strings")

# ---- errors: the library's one line ---------------------------------------
e = raises(lambda: mergesplit.Simulation.from_file("/nonexistent.cfg"),
           mergesplit.Error)
check(e is not None and "/nonexistent.cfg: cannot read the scene file" in
      e.message and e.status != 0, "a missing scene raises mergesplit.Error "
      "with the line", e)
e = raises(lambda: mergesplit.Simulation.from_file(
    DEFAULT, overrides={"coupling.alpha": 1.5}), mergesplit.Error)
check(e is not None and e.message.startswith(
    "--set coupling.alpha=1.5: coupling.alpha: must be in [0, 1] (got 1.5)"),
    "a bad override raises with the line naming it", e)
with mergesplit.Simulation.from_file(TWO_BALLS) as s:
    e = raises(lambda: s.systems["left"].fields["nope"], KeyError)
    check(e is not None and "system 'left' has no field 'nope'" in str(e),
          "an unknown field raises KeyError naming it", e)
    e = raises(lambda: s.advance(float("nan")), mergesplit.Error)
    check(e is not None and "not a number" in e.message,
          "advance(nan) raises, and the run goes on")
    s.step()
    check(s.steps == 1, "... it does")
e = raises(lambda: mergesplit.Simulation.from_file(TWO_BALLS,
                                                   overrides={"a": object()}),
           TypeError)
check(e is not None, "an override value of another type raises TypeError")

# ---- the GIL is released while a step runs --------------------------------
ticks = []
stop = False


def ticker():
    while not stop:
        ticks.append(time.perf_counter())
        time.sleep(0.001)


with mergesplit.Simulation.from_file(DEFAULT) as s:
    th = threading.Thread(target=ticker)
    th.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    s.advance(0.2)
    t1 = time.perf_counter()
    stop = True
    th.join()
    during = [t for t in ticks if t0 < t < t1]
    check(t1 - t0 > 0.1 and len(during) > 0.3 * (t1 - t0) / 0.0011,
          "another Python thread runs while advance() steps (%d ticks in "
          "%.2f s)" % (len(during), t1 - t0))

# ---- one call at a time; arrays outlive close() -----------------------------
with mergesplit.Simulation.from_file(DEFAULT) as s:
    errs = []

    def other():
        time.sleep(0.05)
        errs.append(raises(lambda: s.step(), RuntimeError))
        errs.append(raises(lambda: s.close(), RuntimeError))

    th = threading.Thread(target=other)
    th.start()
    s.advance(0.2)
    th.join()
    check(all(isinstance(e, RuntimeError) for e in errs) and len(errs) == 2,
          "step() and close() from another thread during advance() raise "
          "RuntimeError", errs)
with mergesplit.Simulation.from_file(TWO_BALLS) as s:
    x = s.systems["left"].fields["position"]
    kept = x.copy()
check(np.array_equal(x, kept) and
      isinstance(raises(lambda: s.step(), ValueError), ValueError),
      "an array taken before close() still reads the run's last state (the "
      "run is freed with the last array), and the run refuses to step")
del x

# ---- a scene as text -------------------------------------------------------
text = open(TWO_BALLS).read()
with mergesplit.Simulation.from_file(TWO_BALLS, frames=3) as a, \
        mergesplit.Simulation.from_string(text, frames=3) as b, \
        mergesplit.Simulation.from_string('@include "two_balls.cfg"\n',
                                          base_dir=CONFIGS, frames=3) as c:
    a.run(), b.run(), c.run()
    same = all(np.array_equal(a.systems[k].fields[f], o.systems[k].fields[f])
               for o in (b, c) for k in a.systems for f in ("position", "velocity"))
    check(same and a.steps == b.steps == c.steps > 3,
          "from_string(the file's text) and a text that @includes it from "
          "base_dir: the file's run, bitwise")
e = raises(lambda: mergesplit.Simulation.from_string(
    "scene = {\n  fps = -1.0;\n};\nsystems = ();\n", name="mine.cfg"),
    mergesplit.Error)
check(e is not None and e.message == "mine.cfg:2: scene.fps: must be > 0 (got -1)",
      "a bad text raises with NAME:LINE", e)

# ---- forces for the next step ---------------------------------------------
with mergesplit.Simulation.from_file(TWO_BALLS, frames=1) as a, \
        mergesplit.Simulation.from_file(TWO_BALLS, frames=1) as b:
    left = b.systems["left"]
    m = left.fields["mass"].copy()
    F = np.zeros((len(m), 3))
    F[:, 1] = 0.02 * np.arange(len(m))
    left.add_force(F)
    t0 = a.time
    a.step(), b.step()
    dt = a.time - t0
    va, vb = a.systems["left"].fields["velocity"], left.fields["velocity"]
    want = F * dt / m[:, None]
    err = np.abs((vb - va) - want).max()
    check(b.time == a.time and err <= 1e-15 * (np.abs(va).max() + np.abs(want).max())
          and np.array_equal(a.systems["right"].fields["velocity"],
                             b.systems["right"].fields["velocity"]),
          "add_force: the next step's velocity changes by F dt / m "
          "(largest error %.1e m/s), the other system's not at all" % err)
    d0 = (vb - va).copy()
    a.step(), b.step()
    check(np.abs((b.systems["left"].fields["velocity"] -
                  a.systems["left"].fields["velocity"]) - d0).max() <= 1e-15,
          "... and the force is spent after that step")
    e3 = raises(lambda: left.add_force(np.zeros((3, len(m)))), ValueError)
    e1 = raises(lambda: left.add_force(np.zeros((3, 3))), ValueError)
    e2 = raises(lambda: left.add_force(np.full((len(m), 3), np.nan)), ValueError)
    check(e1 is not None and "has %d particles" % len(m) in str(e1) and
          e2 is not None and "not finite" in str(e2) and e3 is not None,
          "add_force of the wrong shape (also (3, count)) or not finite "
          "raises ValueError", (e1, e2, e3))

# ---- the report as dicts --------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "r.json")
    with mergesplit.Simulation.from_file(TWO_BALLS, frames=3, report=path) as s:
        s.frame()
        r1 = s.report
        s.run()
        r3 = s.report
    with open(path) as fh:
        f = json.load(fh)
    check(r1["status"] == "running" and
          [x["frame"] for x in r1["frames"]] == [0, 1] and r3 == f and
          r3["status"] == "ok" and len(r3["frames"]) == 4,
          "sim.report: the frames so far while running; at the end the "
          "dict of the --report file, equal")
    with mergesplit.Simulation.from_file(TWO_BALLS, frames=1,
                                         keep_report=False) as s:
        e = raises(lambda: s.report, mergesplit.Error)
    check(e is not None and "keep_report=True" in e.message,
          "keep_report=False: sim.report raises, saying how to keep it", e)
    check(abs(sum(p["seconds"] for p in r3["timing"]["phases"]) -
              r3["timing"]["total_seconds"]) < 1e-9 and
          r3["totals"]["steps"] == r3["timing"]["steps"] > 0,
          "the report's timings: the phases add to the total")
    # blas_threads is passed through (the CLI test shows the bits it keeps)
    with mergesplit.Simulation.from_file(DEFAULT, frames=1,
                                         blas_threads=2) as s:
        b2 = s.report["blas_threads"]
    with mergesplit.Simulation.from_file(DEFAULT, frames=1) as s:
        b1 = s.report["blas_threads"]
    check((b1, b2) == (1, 2),
          "blas_threads: default 1, blas_threads=2 reaches the run", (b1, b2))
    e = raises(lambda: mergesplit.Simulation.from_file(DEFAULT,
                                                       blas_threads=-1),
               ValueError)
    check(e is not None and "blas_threads must be >= 0" in str(e),
          "blas_threads=-1 raises ValueError, naming it", e)

# ---- no leak over 1000 open/close cycles ----------------------------------
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cycle():
    with mergesplit.Simulation.from_file(TWO_BALLS) as s:
        s.systems["left"].fields["position"].sum()
        s.systems["left"].add_force(np.zeros((len(s.systems["left"].fields["mass"]), 3)))
        s.step()
        s.report


for _ in range(50):
    cycle()
r0 = t0 = r1 = t1 = 0  # the module's globals do not grow while traced
tracemalloc.start()
r0, t0 = rss(), tracemalloc.get_traced_memory()[0]
for _ in range(1000):
    cycle()
r1, t1 = rss(), tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
check(r1 - r0 < 4 << 20, "1000 open/step/report/close cycles: resident memory "
      "grows %.2f MiB (< 4)" % ((r1 - r0) / 2 ** 20))
check(t1 - t0 < 4 << 10, "... Python objects (tracemalloc) grow %d bytes "
      "(< 4 KiB)" % (t1 - t0))

print("1..%d" % n)
sys.exit(1 if failed else 0)
