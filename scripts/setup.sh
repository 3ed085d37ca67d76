#!/usr/bin/env bash
# Installs the Debian packages impact needs to build, test and benchmark,
# only those that are missing. Safe to run repeatedly. Needs root (or sudo).
set -euo pipefail
pkgs=(build-essential cmake pkg-config git
      libeigen3-dev libqhull-dev libgtest-dev libgmock-dev libbenchmark-dev
      libcli11-dev nlohmann-json3-dev
      libbullet-dev libfcl-dev libccd-dev
      libtinyobjloader-dev libembree-dev libtbb-dev libpng-dev
      clang libfuzzer-14-dev valgrind
      python3 python3-numpy python3-scipy
      python3-dev pybind11-dev python3-pytest python3-matplotlib
      python3-venv python3-setuptools python3-wheel python3-pip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
