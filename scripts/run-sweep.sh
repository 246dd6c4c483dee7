#!/bin/bash
# Runs a sweep with Open MPI on NP ranks (the default launcher of `make run`).
# A configuration that exceeds its time limit ends the launch with exit code 3;
# the sweep then resumes after it, up to 5 times. The last line sums every launch:
#   run-sweep: N launch(es): A ok, W wrong, E error, S skipped, T timeout
# and the exit code is a2atune's worst (0 ok, 1 wrong or failed, 2 bad input), or 3 when
# any configuration timed out (even if the later launches finished).
#   usage: scripts/run-sweep.sh [--launches N] NP SWEEP.ini DB [a2atune options...]
# --launches N repeats the sweep in N launches (each its own run, recorded as launch i of N
# of one launch group, its configurations in an order shuffled from a recorded seed), so
# that the tools take the spread between launches as the noise.
# Ranks are bound to cores (rank i to core i mod cores): the first P <= cores ranks then run
# on distinct cores while the others wait, as in a launch of P ranks.
set -u
repeats=1
if [ "${1:-}" = --launches ]; then
    repeats=${2:-}
    case "$repeats" in ''|*[!0-9]*|0) echo "run-sweep: --launches needs a positive integer" >&2; exit 2;; esac
    shift 2
fi
np=$1 sweep=$2 db=$3
shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
log=$(mktemp "${TMPDIR:-/tmp}/run-sweep.XXXXXX")
trap 'rm -f "$log"' EXIT
launches=0
# stderr goes to the terminal and, through tee, to $log (for the sums); stdout stays put
launch() {
    launches=$((launches + 1))
    { mpirun.openmpi --oversubscribe --bind-to core:overload-allowed -n "$np" \
        ./a2atune run "$sweep" --db "$db" "$@" 2>&1 1>&3 3>&- | tee -a "$log" >&2; } 3>&1
    return "${PIPESTATUS[0]}"
}
# one launch, resumed after timeouts; returns its exit code
sweep_once() {
    launch "$@"
    local rc=$? tries=0
    while [ $rc -eq 3 ] && [ $tries -lt 5 ]; do
        tries=$((tries + 1))
        echo "run-sweep: a configuration timed out; resuming after it" >&2
        launch --resume "$@"
        rc=$?
    done
    return $rc
}
rc=0
if [ "$repeats" -eq 1 ]; then
    sweep_once "$@"
    rc=$?
else
    group="$(basename "$sweep" .ini)-$(date -u +%Y%m%dT%H%M%SZ)-$$"
    base=$(date +%s)
    i=1
    while [ $i -le "$repeats" ]; do
        echo "run-sweep: launch $i of $repeats ($group, order seed $((base + i)))" >&2
        sweep_once "$@" --launch "$i/$repeats" --launch-group "$group" --shuffle $((base + i))
        r=$?
        [ $r -gt $rc ] && rc=$r
        [ $r -eq 2 ] && break
        i=$((i + 1))
    done
fi
# every launch ends with "a2atune: finished|ended in X s: A ok, W wrong, E error, S skipped"
# or, when a configuration timed out, "a2atune: ended by a timeout after ...: ..., 1 timeout"
sums=$(sed -n 's/^a2atune: \(finished\|ended\|ended by a timeout\) \(in\|after\) [0-9.]* s: //p' "$log" |
       awk '{ for (i = 1; i < NF; i += 2) n[$(i + 1)] += $i }
            END { printf "%d ok, %d wrong, %d error, %d skipped, %d timeout",
                  n["ok,"], n["wrong,"], n["error,"], n["skipped,"] + n["skipped"],
                  n["timeout"] }')
timeouts=$(echo "$sums" | sed 's/.* \([0-9]*\) timeout$/\1/')
[ $rc -eq 0 ] && [ "${timeouts:-0}" -gt 0 ] && rc=3
echo "run-sweep: $launches launch(es): $sums; exit $rc" >&2
exit $rc
