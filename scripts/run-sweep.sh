#!/bin/sh
# Runs a sweep with Open MPI on NP ranks (the default launcher of `make run`).
# A configuration that exceeds its time limit ends the launch with exit code 3;
# the sweep then resumes after it, up to 5 times.
#   usage: scripts/run-sweep.sh [--launches N] NP SWEEP.ini DB [a2atune options...]
# --launches N repeats the sweep in N launches (each its own run, recorded as launch i of N
# of one launch group, its configurations in an order shuffled from a recorded seed), so
# that the tools take the spread between launches as the noise.
# Ranks are bound to cores (rank i to core i mod cores): the first P <= cores ranks then run
# on distinct cores while the others wait, as in a launch of P ranks.
set -u
launches=1
if [ "${1:-}" = --launches ]; then
    launches=${2:-}
    case "$launches" in ''|*[!0-9]*|0) echo "run-sweep: --launches needs a positive integer" >&2; exit 2;; esac
    shift 2
fi
np=$1 sweep=$2 db=$3
shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
launch() { mpirun.openmpi --oversubscribe --bind-to core:overload-allowed -n "$np" ./a2atune run "$sweep" --db "$db" "$@"; }
# one launch, resumed after timeouts; returns its exit code
sweep_once() {
    launch "$@"
    rc=$?
    tries=0
    while [ $rc -eq 3 ] && [ $tries -lt 5 ]; do
        tries=$((tries + 1))
        echo "run-sweep: a configuration timed out; resuming after it" >&2
        launch --resume "$@"
        rc=$?
    done
    return $rc
}
if [ "$launches" -eq 1 ]; then
    sweep_once "$@"
    exit $?
fi
group="$(basename "$sweep" .ini)-$(date -u +%Y%m%dT%H%M%SZ)-$$"
base=$(date +%s)
worst=0
i=1
while [ $i -le "$launches" ]; do
    echo "run-sweep: launch $i of $launches ($group, order seed $((base + i)))" >&2
    sweep_once "$@" --launch "$i/$launches" --launch-group "$group" --shuffle $((base + i))
    rc=$?
    [ $rc -eq 2 ] && exit 2
    [ $rc -gt $worst ] && worst=$rc
    i=$((i + 1))
done
exit $worst
