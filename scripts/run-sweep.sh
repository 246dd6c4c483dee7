#!/bin/sh
# Runs a sweep with Open MPI on NP ranks (the default launcher of `make run`).
# A configuration that exceeds its time limit ends the launch with exit code 3;
# the sweep then resumes after it, up to 5 times.
#   usage: scripts/run-sweep.sh NP SWEEP.ini DB [a2atune options...]
set -u
np=$1 sweep=$2 db=$3
shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
launch() { mpirun.openmpi --oversubscribe -n "$np" ./a2atune run "$sweep" --db "$db" "$@"; }
launch "$@"
rc=$?
tries=0
while [ $rc -eq 3 ] && [ $tries -lt 5 ]; do
    tries=$((tries + 1))
    echo "run-sweep: a configuration timed out; resuming after it" >&2
    launch --resume "$@"
    rc=$?
done
exit $rc
