#!/bin/sh
# Install what mergesplit needs to build and test on Debian 12.
# Runs apt-get directly as root, through sudo otherwise.
set -e
PKGS="build-essential autoconf automake libtool pkg-config autoconf-archive
libconfig-dev libcairo2-dev libassimp-dev libjson-c-dev zlib1g-dev fonts-dejavu-core check libsuitesparse-dev libopenblas-dev libopenblas0-pthread
python3-vtk9 python3-numpy groff-base"
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
