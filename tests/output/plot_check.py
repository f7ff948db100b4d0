"""Checks on the charts of `mergesplit plot`: plot_check.py REPORT.json DIR
prints TAP lines (no plan), one per chart and check:
  - the PNG is not blank (axes, text and lines drawn);
  - the numbers in its tEXt chunk "mergesplit:plot" are the report's, taken
    from the report here by our own reading of it, bit for bit;
  - each value is drawn where the chunk's mapping puts it: the pixel under
    each dot has the colour of the last series drawn with a dot on that
    very pixel (dots go in series order), unless a later series' dot lies
    within 3 pixels of it; each bar is filled with its colour.
Pixels are read with VTK's PNG reader; the chunk with the PNG layout."""
import json
import math
import struct
import sys

import numpy as np

n = 0


def tap(ok, what):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))


def text_chunk(path, key):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    at = 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"tEXt" and body.split(b"\0", 1)[0] == key:
            return json.loads(body.split(b"\0", 1)[1].decode())
        at += 12 + length
    return None


def pixels(path):
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    rd = vtk.vtkPNGReader()
    rd.SetFileName(path)
    rd.Update()
    img = rd.GetOutput()
    w, h, _ = img.GetDimensions()
    a = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)
    return a[::-1, :, :3].astype(int)


def get(o, path):
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return None
        o = o[k]
    return o


def num(v):
    if v is None:
        return None
    if isinstance(v, list):
        s = 0.0
        for c in v:
            s += c * c
        return math.sqrt(s)
    return float(v)


def expected(rep):
    """Every chart's series from the report, read independently."""
    fr = rep["frames"]
    sysn = [s["name"] for s in fr[0]["systems"]]
    on = lambda *paths: [[num(get(f, p)) for f in fr] for p in paths]
    total = []
    for k in range(3):
        row = []
        for f in fr:
            s = 0.0
            for y in f["systems"]:
                s += y["momentum"][k]
            row.append(s)
        total.append(row)
    per = lambda p: [[num(get(f["systems"][j], p)) for f in fr]
                     for j in range(len(sysn))]
    return {
        "energy": on("energy.total", "energy.kinetic", "energy.potential",
                     "energy.internal"),
        "energy_systems": per("energy.total"),
        "momentum": total,
        "momentum_systems": per("momentum"),
        "contacts": on("metas", "penetration.through_sheet",
                       "penetration.through_solid", "penetration.inside_solid",
                       "penetration.crossings"),
        "meta_sizes": on("meta_size_mean", "meta_size_weighted",
                         "meta_size_max"),
        "ledger": on("ledger.stored", "ledger.restored", "ledger.dissipated",
                     "ledger.contact_energy"),
        "timing": [[float(p["seconds"]) for p in rep["timing"]["phases"]]],
    }


def to_px(c, x, y):
    x0, y0, x1, y1 = c["box"]
    (xl, xh), (yl, yh) = c["x_range"], c["y_range"]
    return (math.floor(x0 + (x - xl) / (xh - xl) * (x1 - x0)),
            math.floor(y1 - (y - yl) / (yh - yl) * (y1 - y0)))


def check_dots(c, want, img):
    top = {}  # pixel -> the last series with a dot there
    for s, ys in enumerate(want):
        for x, y in zip(c["x"], ys):
            if y is not None:
                top[to_px(c, x, y)] = s
    seen = bad = 0
    for (px, py), s in top.items():
        if any(t > s and (qx, qy) != (px, py) and abs(qx - px) <= 3 and
               abs(qy - py) <= 3 for (qx, qy), t in top.items()):
            continue  # a later dot may cover part of this pixel
        seen += 1
        if list(img[py, px]) != c["series"][s]["rgb"]:
            bad += 1
            if bad <= 3:
                print("# %s: %s at (%d, %d) is %s, not %s" %
                      (c["chart"], c["series"][s]["label"], px, py,
                       list(img[py, px]), c["series"][s]["rgb"]))
    return seen, bad


def check_bars(c, want, img):
    seen = bad = 0
    for x, y in zip(c["x"], want[0]):
        ax, ay = to_px(c, x, y)
        _, zy = to_px(c, x, 0.0)
        if abs(zy - ay) < 4:
            continue  # too short a bar to probe
        seen += 1
        if list(img[(ay + zy) // 2, ax]) != c["series"][0]["rgb"]:
            bad += 1
    return seen, bad


def main():
    rep = json.load(open(sys.argv[1]))
    want = expected(rep)
    times = [float(f["time"]) for f in rep["frames"]]
    for name, series in want.items():
        path = "%s/%s.png" % (sys.argv[2], name)
        c = text_chunk(path, b"mergesplit:plot")
        tap(c is not None and c["chart"] == name,
            "%s.png is a PNG carrying its numbers" % name)
        if c is None:
            continue
        img = pixels(path)
        body = img[c["box"][1]:c["box"][3], c["box"][0]:c["box"][2]]
        ink = (body != 255).any(axis=2).mean()
        colours = len(np.unique(img.reshape(-1, 3), axis=0))
        tap(0.001 < ink < 0.5 and colours > 8,
            "%s.png is not blank (%.1f %% of the plot drawn on, %d colours)"
            % (name, 100 * ink, colours))
        got = [[None if v is None else float(v) for v in s["y"]]
               for s in c["series"]]
        xs_ok = c["bars"] or c["x"] == times
        tap(got == series and xs_ok,
            "%s.png plots the report's numbers (%d series of %d values)" %
            (name, len(series), len(series[0]) if series else 0))
        seen, bad = (check_bars if c["bars"] else check_dots)(c, series, img)
        tap(bad == 0 and seen > 0,
            "%s.png draws them where they belong (%d values probed, %d "
            "wrong)" % (name, seen, bad))


if __name__ == "__main__":
    main()
