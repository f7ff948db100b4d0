#!/usr/bin/env python3
"""Two builds of bench-detect side by side: A B A B ... in one run, so a
machine whose speed drifts slows both alike.  Prints, per order and thread
count, the median over the runs of each build's warm median, the ratio B/A
of each pair's figures (median, min, max), the fastest call of each build, each build's speed-up on its
last thread count over its first (the median of the runs' ratios), and the
largest workspace either printed.

  detect_vs.py OLD_BENCH NEW_BENCH [--runs N] [--n N] [--repeats R]
               [--threads 1,2]

Each run is `BENCH n repeats threads...`; a build that ignores the thread
counts (older ones ran 1 and 2) is read the same way."""
import argparse
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"^(\w+)\s+threads=(\d+)\s+pairs=(\d+)\s+cold\s+([\d.]+) ms"
                  r"\s+warm median\s+([\d.]+) ms\s+\(min ([\d.]+).*workspace ([\d.]+) MiB")


def one(bench, args):
    out = subprocess.run([bench] + args, check=True, capture_output=True,
                         text=True).stdout
    rows = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            rows[(m[1], int(m[2]))] = (int(m[3]), float(m[5]), float(m[7]),
                                       float(m[6]))
    if not rows:
        sys.exit(f"detect_vs: {bench} printed no figures")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args()
    counts = [int(t) for t in a.threads.split(",")]
    args = [str(a.n), str(a.repeats)] + [str(t) for t in counts]
    runs = {"old": [], "new": []}
    for _ in range(a.runs):
        runs["old"].append(one(a.old, args))
        runs["new"].append(one(a.new, args))
    keys = [k for k in runs["new"][0] if k in runs["old"][0]]
    for key in keys:
        pairs = {runs["old"][i][key][0] for i in range(a.runs)} | \
                {runs["new"][i][key][0] for i in range(a.runs)}
        if len(pairs) != 1:
            sys.exit(f"detect_vs: {key}: the builds found {sorted(pairs)} pairs")
    print(f"bench-detect {' '.join(args)}, {a.runs} runs of each, A B A B ...")
    print(f"{'order':9} {'threads':>7} {'old warm':>10} {'new warm':>10} "
          f"{'new/old (min-max)':>22} {'old best':>10} {'new best':>10}")
    for key in keys:
        old = [r[key][1] for r in runs["old"]]
        new = [r[key][1] for r in runs["new"]]
        ratio = [n / o for n, o in zip(new, old)]
        best = [min(r[key][3] for r in runs[b]) for b in ("old", "new")]
        print(f"{key[0]:9} {key[1]:>7} {statistics.median(old):8.1f} ms "
              f"{statistics.median(new):8.1f} ms {statistics.median(ratio):8.3f}"
              f" ({min(ratio):.3f}-{max(ratio):.3f}) {best[0]:8.1f} ms "
              f"{best[1]:8.1f} ms")
    for label in dict.fromkeys(k[0] for k in keys):
        first, last = (label, counts[0]), (label, counts[-1])
        if first == last or first not in keys or last not in keys:
            continue
        for build in ("old", "new"):
            s = [r[first][1] / r[last][1] for r in runs[build]]
            print(f"{label:9} {build}: {counts[-1]} threads over {counts[0]}: "
                  f"{statistics.median(s):.2f}x (runs {min(s):.2f}-{max(s):.2f})")
    for build in ("old", "new"):
        ws = max(r[k][2] for r in runs[build] for k in keys)
        print(f"workspace {build}: {ws:.1f} MiB at most")


if __name__ == "__main__":
    main()
