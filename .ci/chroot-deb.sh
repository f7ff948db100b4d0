#!/bin/sh
# The Debian packages on a clean Debian 12: build them from the committed
# tree (dpkg-buildpackage -us -uc -b), check them with lintian, install
# them with apt in a fresh debootstrap chroot of bookworm (so every
# dependency comes from the archive, nothing from this machine), and there
# run the installed default scene, chart its report, and build, install
# and check the installed example plugin with the installed .pc.
# Needs root, debootstrap and the Debian archive; about 15 minutes.
# Usage: sh .ci/chroot-deb.sh [--no-check] [MIRROR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
nocheck=
[ "${1:-}" = "--no-check" ] && { nocheck=1; shift; }
mirror=${1:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || { echo "chroot-deb: run as root"; exit 1; }
work=$(mktemp -d)
root=$work/chroot
cleanup() {
  for m in proc dev/pts dev; do umount "$root/$m" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends debhelper devscripts dpkg-dev \
  debootstrap lintian >/dev/null

# The packages, from the committed files only.
git -C "$top" archive --format=tar --prefix=mergesplit/ HEAD | tar -x -C "$work"
(cd "$work/mergesplit" &&
 if [ -n "$nocheck" ]; then DEB_BUILD_OPTIONS=nocheck; export DEB_BUILD_OPTIONS; fi &&
 dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
  { tail -n 40 "$work/build.log"; echo "chroot-deb: the build failed"; exit 1; }
debs=$(cd "$work" && ls ./*.deb | grep -v -- -dbgsym_)
echo "built:" $debs

# lintian: no error, no warning.
(cd "$work" && lintian --fail-on error,warning $debs) &&
  echo "lintian: 0 errors, 0 warnings" ||
  { echo "chroot-deb: lintian complains"; exit 1; }

# A clean bookworm, the packages installed by apt from the archive.
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/boot.log" 2>&1 ||
  { tail -n 20 "$work/boot.log"; echo "chroot-deb: debootstrap failed"; exit 1; }
mkdir -p "$root/tmp/debs"
(cd "$work" && cp $debs "$root/tmp/debs/")
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount -t devpts devpts "$root/dev/pts"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root DEBIAN_FRONTEND=noninteractive /bin/sh -ec "$1"; }
in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/debs/*.deb >/dev/null"
echo "installed in a clean bookworm chroot"

# The installed default scene, a few frames, and its charts.
in_root "mergesplit plugins && cd /tmp &&
  mergesplit run /usr/share/mergesplit/configs/default.cfg -o out --frames 6 -r r.json &&
  ls out/*.vtp | wc -l && mergesplit plot r.json -q && ls r_plots"
echo "default scene: ran and plotted"

# The installed example, built with the installed mergesplit-plugin.pc.
in_root "apt-get install -y -qq --no-install-recommends gcc libc6-dev make pkg-config >/dev/null &&
  cp -r /usr/share/doc/libmergesplit-dev/example /tmp/dust && make -C /tmp/dust &&
  make -C /tmp/dust install && mergesplit conformance dust"
echo "chroot-deb: OK"
