#!/bin/sh
# Install what mergesplit needs to build and test on Debian 12.
# Runs apt-get directly as root, through sudo otherwise.
set -e
PKGS="build-essential autoconf automake libtool pkg-config autoconf-archive
libconfig-dev libcairo2-dev libassimp-dev libjson-c-dev zlib1g-dev fonts-dejavu-core check libsuitesparse-dev libopenblas-dev libopenblas0-pthread
python3-numpy python3-dev groff-base libopenmpi-dev openmpi-bin"
# The tests read frames with Python's VTK: Debian's python3-vtk9, or the
# VTK of ParaView's python3-paraview (the two conflict; either will do).
if ! /usr/bin/python3 -c 'import vtk' 2>/dev/null; then
  PKGS="$PKGS python3-vtk9"
fi
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
