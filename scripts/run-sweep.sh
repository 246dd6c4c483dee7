#!/bin/bash
# Runs a sweep with Open MPI on NP ranks (the default launcher of `make run`); A2ATUNE names
# the a2atune binary to run (default ./a2atune).
# A configuration that exceeds its time limit ends the launch with exit code 3;
# the sweep then resumes after it, up to 5 times. The last line sums every launch:
#   run-sweep: N launch(es): A ok, W wrong, E error, S skipped, T timeout
# and the exit code is a2atune's worst (0 ok, 1 wrong or failed, 2 bad input), or 3 when
# any configuration timed out (even if the later launches finished).
#   usage: scripts/run-sweep.sh [--launches N] [--launch NAME|TEMPLATE [--nodes M]]
#                               NP SWEEP.ini DB [a2atune options...]
# --launches N repeats the sweep in N launches (each its own run, recorded as launch i of N
# of one launch group, its configurations in an order shuffled from a recorded seed), so
# that the tools take the spread between launches as the noise.
# Ranks are bound to cores (rank i to core i mod cores): the first P <= cores ranks then run
# on distinct cores while the others wait, as in a launch of P ranks.
# --launch starts the ranks with a launch template instead (a2a submit's: a name, or shell
# text such as 'mpiexec -n {ranks} --ppn {ppn} {cmd}'; `scripts/a2a launch-template` lists
# the names), for NP ranks on M nodes (default 1), ceil(NP / M) per node.
set -u
repeats=1 template= nodes=1
while [ $# -gt 0 ]; do
    case "$1" in
    --launches)
        repeats=${2:-}
        case "$repeats" in ''|*[!0-9]*|0) echo "run-sweep: --launches needs a positive integer" >&2; exit 2;; esac
        shift 2 ;;
    --launch)
        [ $# -ge 2 ] || { echo "run-sweep: --launch needs a name or a template" >&2; exit 2; }
        template=$2
        shift 2 ;;
    --nodes)
        nodes=${2:-}
        case "$nodes" in ''|*[!0-9]*|0) echo "run-sweep: --nodes needs a positive integer" >&2; exit 2;; esac
        shift 2 ;;
    *) break ;;
    esac
done
np=$1 sweep=$2 db=$3
shift 3
launch_line=
if [ -n "$template" ]; then
    a2a="$(dirname "$0")/a2a"
    # the template rendered once, "$@" where the a2atune command goes; bad input is a2a's line
    launch_line=$("$a2a" launch-template "$template" --ranks "$np" --nodes "$nodes") || exit 2
elif [ "$nodes" != 1 ]; then
    echo "run-sweep: --nodes goes with --launch (the default launch is on this node)" >&2
    exit 2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
log=$(mktemp "${TMPDIR:-/tmp}/run-sweep.XXXXXX")
trap 'rm -f "$log"' EXIT
launches=0
# start_ranks COMMAND...: COMMAND on NP ranks, by the launch template or bound to cores
start_ranks() {
    if [ -n "$launch_line" ]; then
        eval "$launch_line"
    else
        mpirun.openmpi --oversubscribe --bind-to core:overload-allowed -n "$np" "$@"
    fi
}
# stderr goes to the terminal and, through tee, to $log (for the sums); stdout stays put.
# A launcher that reports the ranks it ended (srun: 137) after the driver's TIMEOUT line
# counts as exit 3, as in the job scripts of a2a submit.
launch() {
    launches=$((launches + 1))
    local seen rc
    seen=$(wc -l < "$log")
    { start_ranks "${A2ATUNE:-./a2atune}" run "$sweep" --db "$db" "$@" 2>&1 1>&3 3>&- | tee -a "$log" >&2; } 3>&1
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && tail -n "+$((seen + 1))" "$log" | grep -q "^a2atune: TIMEOUT "; then
        rc=3
    fi
    return "$rc"
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
