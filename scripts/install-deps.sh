#!/bin/sh
# Installs the Debian packages a2atune needs, only those that are missing (make setup).
# Quick and silent when everything is there; needs root (or sudo) otherwise.
#   scripts/install-deps.sh                 install what is missing, or fail saying why
#   scripts/install-deps.sh --if-possible   (make run, make test, make simulate) install
#       only where apt-get is there and the user is root or has sudo without a password;
#       otherwise list what is missing and exit 0, so that the build goes on with what is
#       there (docs/install.md: what each optional library gives)
set -e
PACKAGES="build-essential pkg-config git mpich libmpich-dev openmpi-bin libopenmpi-dev
libpapi-dev papi-tools libsqlite3-dev sqlite3 libhwloc-dev hwloc
libjansson-dev python3 python3-matplotlib python3-numpy libfftw3-dev slurm-wlm slurm-wlm-basic-plugins munge
libsimgrid-dev lmod"
if_possible=0
[ "${1:-}" = --if-possible ] && if_possible=1
if ! command -v dpkg-query > /dev/null 2>&1 || ! command -v apt-get > /dev/null 2>&1; then
    echo "setup: not a Debian system (no dpkg-query or apt-get): install MPI, a C11 compiler," \
         "SQLite, jansson and pkg-config (optional: PAPI, FFTW 3, hwloc; Python 3 with numpy" \
         "and matplotlib) yourself; docs/install.md"
    [ $if_possible -eq 1 ] && exit 0
    exit 1
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=""
for p in $PACKAGES; do
    installed "$p" || missing="$missing $p"
done
# a module system (the tests load a2atune's module file): Lmod, or Environment Modules
# where that is installed already (the two conflict)
installed environment-modules && missing=$(echo "$missing" | sed 's/ lmod$//; s/ lmod / /')
[ -z "$missing" ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
        SUDO="sudo"
    elif [ $if_possible -eq 1 ]; then
        echo "setup: missing Debian packages:$missing; not installing them (neither root nor" \
             "sudo without a password): going on with what is here (make setup installs them)"
        exit 0
    else
        SUDO="sudo"
    fi
fi
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "setup: done"
