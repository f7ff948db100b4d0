"""Every frame file with a complete name in DIR reads completely: .vtp with
VTK, .ply with the independent parser, and the two agree on the particle
count.  Prints the number of files checked; exit status 1 on a bad one."""
import glob
import os
import sys

from outcheck import read_ply, read_vtp

d = sys.argv[1]
n = 0
for path in sorted(glob.glob(os.path.join(d, "*.vtp"))):
    pts, _, _ = read_vtp(path)
    ply = path[:-4] + ".ply"
    if os.path.exists(ply):
        _, v = read_ply(ply)
        if len(v) != len(pts):
            sys.exit("%s: %d points, %s: %d" % (path, len(pts), ply, len(v)))
        n += 1
    n += 1
print(n)
