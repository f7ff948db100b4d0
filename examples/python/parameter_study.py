#!/usr/bin/env python3
"""A parameter study from Python: the default scene (a ball of grains on a
cloth) for several cloth stiffnesses, each run to 0.6 s; the sag of the
cloth under the ball, the top speed and, from each run's report, the
scene's energy frame by frame, drawn with matplotlib into
stiffness_study.png.  (For studies without Python: mergesplit sweep.)

    PYTHONPATH=python python3 examples/python/parameter_study.py
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

import mergesplit

scene = sys.argv[1] if len(sys.argv) > 1 else "configs/default.cfg"
stiffness = [500.0, 1000.0, 2000.0, 4000.0, 8000.0]
sag, speed, energy = [], [], []
for k in stiffness:
    with mergesplit.Simulation.from_file(
            scene, overrides={"systems.cloth.stiffness": k,
                              "scene.duration": 0.6}) as sim:
        y0 = sim.systems["cloth"].fields["position"][:, 1].min()
        sim.run()
        y1 = sim.systems["cloth"].fields["position"][:, 1].min()
        sag.append(y0 - y1)
        speed.append(sim.metrics["max_speed"])
        frames = sim.report["frames"]   # one dict per frame, frame 0 first
        energy.append(([f["time"] for f in frames],
                       [f["energy"]["total"] for f in frames]))
        print("stiffness %6.0f N/m: sag %.4f m, top speed %.3f m/s, "
              "penetrations %d" % (k, sag[-1], speed[-1],
                                   sim.metrics["penetrations"]))

fig, ax = plt.subplots(1, 3, figsize=(13, 3.5))
ax[0].plot(stiffness, sag, "o-")
ax[0].set_xscale("log")
ax[0].set_xlabel("cloth stiffness [N/m]")
ax[0].set_ylabel("sag at 0.6 s [m]")
ax[1].plot(stiffness, speed, "o-")
ax[1].set_xscale("log")
ax[1].set_xlabel("cloth stiffness [N/m]")
ax[1].set_ylabel("top speed [m/s]")
for k, (t, e) in zip(stiffness, energy):
    ax[2].plot(t, e, label="%g N/m" % k)
ax[2].set_xlabel("time [s]")
ax[2].set_ylabel("total energy [J] (report)")
ax[2].legend(fontsize=7)
fig.tight_layout()
fig.savefig("stiffness_study.png", dpi=100)
print("wrote stiffness_study.png")
