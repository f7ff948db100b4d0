"""Checks on preview images, read with VTK's PNG reader.
  png_check.py systems PNG W H      two balls: left blue, right orange
  png_check.py uniform PNG W H      particles all in the colour map's middle
  png_check.py two PNG W H          systems 0 and 1 both show (any place)
  png_check.py same A.png B.png     identical pixels
  png_check.py floor PNG W H        the floor's checkerboard covers >= 5 %
  png_check.py nofloor PNG W H      no pixel of the floor's greys (< 0.1 %)
  png_check.py count PNG W H        prints the pixels of systems 0 and 1
  png_check.py halves PNG W H       a W x H image whose two halves are equal
Exit status 0 when the check holds; the reason on stderr otherwise."""
import sys

import numpy as np


def load(path):
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    rd = vtk.vtkPNGReader()
    if not rd.CanReadFile(path):
        sys.exit("%s: not a PNG VTK can read" % path)
    rd.SetFileName(path)
    rd.Update()
    img = rd.GetOutput()
    w, h, _ = img.GetDimensions()
    a = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)
    return a[::-1, :, :3].astype(int)  # VTK's rows go bottom-up


def classes(a):
    r, g, b = a[..., 0], a[..., 1], a[..., 2]
    blue = (b > r + 40) & (b > g + 10)     # system 0
    orange = (r > b + 80) & (r > g + 20)   # system 1
    return blue, orange


def check_size(a, w, h):
    if a.shape[:2] != (h, w):
        sys.exit("image is %dx%d, expected %dx%d" % (a.shape[1], a.shape[0],
                                                     w, h))


mode, path = sys.argv[1], sys.argv[2]
a = load(path)
if mode == "same":
    b = load(sys.argv[3])
    if a.shape != b.shape or (a != b).any():
        sys.exit("%s and %s differ" % (path, sys.argv[3]))
    sys.exit(0)
w, h = int(sys.argv[3]), int(sys.argv[4])
check_size(a, w, h)
# Leave out the caption and legend (top left) and the colour bar (right).
body = a[int(0.2 * h):, : int(0.85 * w)]
if mode == "halves":  # two tiles side by side, the same run in each
    left, right = a[:, : w // 2], a[:, w // 2:]
    differ = (left != right).any(axis=2).sum()
    print("%d of %d pixels differ between the halves" % (differ, h * w // 2))
    sys.exit(1 if differ or left.std() == 0 else 0)  # equal, not blank
if mode == "count":  # no blank check: a far-away subject is small
    blue, orange = classes(body)
    print("%d %d" % (blue.sum(), orange.sum()))
    sys.exit(0)
bg = np.median(body.reshape(-1, 3), axis=0)
drawn = (np.abs(body - bg).sum(axis=2) > 60).mean()
if drawn < 0.02:
    sys.exit("blank: only %.2f %% of the pixels differ from the background"
             % (100 * drawn))
blue, orange = classes(body)
half = body.shape[1] // 2
if mode == "systems":
    lb, lo = blue[:, :half].sum(), orange[:, :half].sum()
    rb, ro = blue[:, half:].sum(), orange[:, half:].sum()
    print("left half: %d blue, %d orange; right half: %d blue, %d orange"
          % (lb, lo, rb, ro))
    if not (lb > 1000 and ro > 1000 and lo * 20 < lb and rb * 20 < ro):
        sys.exit("expected the left ball blue and the right ball orange")
elif mode == "two":
    print("%d pixels of system 0's colour, %d of system 1's" % (blue.sum(),
                                                            orange.sum()))
    if not (blue.sum() > 500 and orange.sum() > 500):
        sys.exit("expected both systems' colours")
elif mode in ("floor", "nofloor"):
    # the floor's two greys: r = g, b a little below (the background is
    # bluish: b above r), anti-aliased edges between them
    r, g, b = body[..., 0], body[..., 1], body[..., 2]
    grey = ((abs(r - g) <= 2) & (r - b >= 3) & (r - b <= 8) & (r >= 190) &
            (r <= 235)).mean()
    light = ((abs(r - 224) <= 2) & (abs(b - 219) <= 2)).mean()
    dark = ((abs(r - 204) <= 2) & (abs(b - 199) <= 2)).mean()
    print("%.1f %% of the pixels floor grey (%.1f %% light, %.1f %% dark)"
          % (100 * grey, 100 * light, 100 * dark))
    if mode == "floor" and not (grey >= 0.05 and light > 0.01 and dark > 0.01):
        sys.exit("expected the floor's checkerboard")
    if mode == "nofloor" and grey >= 0.001:
        sys.exit("expected no floor")
elif mode == "uniform":
    r, g, b = body[..., 0], body[..., 1], body[..., 2]
    green = ((g > r + 40) & (g > b + 20)).sum()
    print("%d green pixels, %d blue, %d orange" % (green, blue.sum(),
                                                   orange.sum()))
    if not (green > 2000 and blue.sum() < green / 50 and
            orange.sum() < green / 50):
        sys.exit("expected every particle in the colour map's middle (green)")
