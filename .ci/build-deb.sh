#!/bin/sh
# Build the Debian packages from the tree (dpkg-buildpackage -us -uc -b) in a
# clean copy, install them with dpkg -i and check that the installed
# mergesplit lists every shipped plugin.  Needs root for the install (or
# sudo).  Usage: sh .ci/build-deb.sh [--no-check]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq --no-install-recommends debhelper devscripts \
  dpkg-dev dh-python >/dev/null
# A clean copy: committed files only.
git -C "$top" archive --format=tar --prefix=mergesplit/ HEAD | tar -x -C "$work"
cd "$work/mergesplit"
if [ "${1:-}" = "--no-check" ]; then export DEB_BUILD_OPTIONS=nocheck; fi
dpkg-buildpackage -us -uc -b
cd "$work"
debs=$(ls ./*.deb | grep -v -- -dbgsym_)
echo "$debs"
# shellcheck disable=SC2086
$SUDO dpkg -i $debs
# Every plugin the tree ships must be listed by the installed command.
listed=$(mergesplit plugins)
echo "$listed"
for mk in "$top"/plugins/*/local.mk; do
  for id in $(sed -n 's|^plugin_LTLIBRARIES += plugins/\(.*\)\.la$|\1|p' "$mk"); do
    echo "$listed" | grep -q "^$id " || { echo "missing plugin: $id"; exit 1; }
    man -w "mergesplit-$id" >/dev/null || { echo "missing page: mergesplit-$id(7)"; exit 1; }
  done
done
man -w mergesplit-plugin >/dev/null
man -w 3 libmergesplit >/dev/null
# The Python module from the package, on the installed scenes and plugins.
(cd / && /usr/bin/python3 -c "import mergesplit; s = mergesplit.Simulation.from_file('/usr/share/mergesplit/configs/default.cfg'); s.advance(0.1); print(s.systems['cloth'].fields['position'].shape)") |
  grep -qx "(1024, 3)" || { echo "python3-mergesplit: the import and run failed"; exit 1; }
echo "debian packages: OK"
