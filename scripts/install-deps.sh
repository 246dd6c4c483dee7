#!/bin/sh
# Installs the Debian packages a2atune needs, only those that are missing.
# Quick and silent when everything is there; needs root (or sudo) otherwise.
set -e
PACKAGES="build-essential pkg-config git mpich libmpich-dev openmpi-bin libopenmpi-dev
libpapi-dev papi-tools libsqlite3-dev sqlite3 libinih-dev libhwloc-dev hwloc
libjansson-dev python3 python3-matplotlib python3-numpy libfftw3-dev slurm-wlm slurm-wlm-basic-plugins munge
libsimgrid-dev"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "setup: done"
