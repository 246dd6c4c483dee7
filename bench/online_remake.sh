#!/bin/bash
# bench/online_remake.sh — re-make the records of docs/results/online-sim.md after a
# change: the shapes' online and second runs only, the MPI library's and the fixed candidates'
# runs taken from the earlier records (online_bench.py --reuse; the online tuner does not touch
# a fixed run); the applications' runs all anew (the direct kernels they run fixed changed),
# or their fixed runs reused when REUSE_APPS names records of the same launches.
#
#   bench/online_remake.sh shapes|apps|SHAPE|APP|p2...
#
#   shapes   the 12 shapes of the table (6 launches of online_bench.py, below)
#   apps     fft --n 512x512 (500 transforms) and tc --graph rmat:9:4 (167 closures) on
#            dragonfly.xml: ~1,000 all-to-alls each, at A2A_TUNING_EXPLORE 120 and 30 (or
#            EXPLORE's), one run after the second (--again 1)
#   SHAPE    one launch of the table: df64 df64v df256 df256v to64 to256
#   APP      one application launch: fft, tc (dragonfly.xml), tc-torus (torus_tofud.xml)
#   p2       the real rows: Open MPI, mpirun -n 2 --bind-to core, alltoall and alltoallv at
#            16 B, 1 KiB, 16 KiB, 1,000 calls a run, 5 launches of each, under the benchmark
#            lock /tmp/a2atune-bench.lock, the online runs without A2A_VERBOSE
#            (online_bench.py --quiet: its lines are printed inside the timed call that
#            decides), every launch after one untimed MPI_Alltoall (--connect: no total
#            holds the MPI library's connection setup); needs build/openmpi/bench/online_loop and build/openmpi/a2atune; OUT_REAL,
#            default tests/data/online-real-p2.jsonl: nothing reused, every run launched)
#
# Environment: REUSE_SHAPES (default tests/data/online-sim-race.jsonl), REUSE_APPS (default
# none: every application run launched), the records to reuse; OUT_SHAPES, OUT_APPS (default
# tests/data/online-sim.jsonl, tests/data/online-apps-sim.jsonl), where the new records are
# appended; WORK (default /tmp/a2a-online-remake), the tuning files and host files;
# EXPLORE, the A2A_TUNING_EXPLORE values of the online runs, comma-separated (default: 120
# for the shapes, 120,30 for the applications), e.g. to compare other values with the fixed
# runs of the records of 120 (a fixed run does not depend on them):
#   EXPLORE=30,60 OUT_SHAPES=tests/data/online-sim-explore.jsonl \
#       REUSE_SHAPES=tests/data/online-sim.jsonl bench/online_remake.sh shapes
# Needs build/simgrid/bench/online_loop and build/simgrid/a2atune (make MPI=simgrid ...)
# (p2: build/openmpi/bench/online_loop and build/openmpi/a2atune).
# Every simulated launch is smpirun on platforms/*.xml with `a2a simulate`'s options, MPICH's selector
# and copy model; the solver precision of each shape is the one its records were made with.
set -eu
cd "$(dirname "$0")/../.."
REUSE_SHAPES=${REUSE_SHAPES:-tests/data/online-sim-race.jsonl}
REUSE_APPS=${REUSE_APPS:-}
OUT_SHAPES=${OUT_SHAPES:-tests/data/online-sim.jsonl}
OUT_APPS=${OUT_APPS:-tests/data/online-apps-sim.jsonl}
OUT_REAL=${OUT_REAL:-tests/data/online-real-p2.jsonl}
WORK=${WORK:-/tmp/a2a-online-remake}
EXPLORE=${EXPLORE:-}
mkdir -p "$WORK"
# the copy model of the records (GB/s by size: `a2atune copybench` on the machine that made them)
export A2A_SIM_COPY_MODEL=1024:108.4,16384:116.7,262144:95.3,1048576:41.48,16777216:23.39
PY=/usr/bin/python3

# launch PLATFORM P PRECISION: the smpirun words of one launch (a host file of P ranks,
# the platform's hosts in order)
launch() {
    local plat=$1 P=$2 prec=$3 hosts=$WORK/hosts-$1-$2
    PYTHONPATH=scripts $PY -c '
import sys
from a2a_tools.simulation.simulate import platform_hosts
left = int(sys.argv[2])
with open(sys.argv[3], "w") as f:
    for name, cores in platform_hosts(sys.argv[1]):
        take = min(cores, left)
        f.write((name + "\n") * take)
        left -= take
        if not left:
            break' "platforms/$plat.xml" "$P" "$hosts"
    echo "smpirun -no-privatize -platform platforms/$plat.xml -hostfile $hosts -np $P" \
         "--cfg=maxmin/precision:$prec --cfg=smpi/coll-selector:mpich" \
         "--cfg=smpi/allgather:bruck --cfg=smpi/allreduce:rdb --cfg=smpi/bcast:binomial_tree" \
         "--cfg=smpi/reduce:binomial --cfg=smpi/gather:ompi_binomial" \
         "--cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf --log=root.thresh:warning"
}

# shape PLATFORM P PRECISION SIZES alltoall|alltoallv: one online_bench.py launch (200 calls
# online, 2 per fixed candidate, 16 (alltoall) or 64 (alltoallv) for the MPI library, the
# second run and the candidates near the best; totals extrapolated to 1,000 calls)
shape() {
    local plat=$1 P=$2 prec=$3 sizes=$4 coll=$5 best=16 v=
    [ "$coll" = alltoallv ] && best=64 v=--alltoallv
    echo "online_remake: $plat P = $P $coll S = $sizes ($(date -u +%T))"
    $PY bench/online_bench.py --launch "$(launch "$plat" "$P" "$prec")" \
        --binary build/simgrid/bench/online_loop --out "$WORK/$plat-$P-$coll" --sizes "$sizes" \
        --calls 200 --calls-fixed 2 --calls-best $best --target 1000 --repeats 1 $v \
        --explore "${EXPLORE:-120}" \
        --record "$OUT_SHAPES" --label "$plat.xml, SMPI coll-selector mpich" --reuse "$REUSE_SHAPES"
}

# app PLATFORM NAME ARGS RUNS PRECISION: one app_online_bench.py launch at P = 64
app() {
    local plat=$1 reuse=()
    [ -n "$REUSE_APPS" ] && reuse=(--reuse "$REUSE_APPS")
    echo "online_remake: $plat $2 $3 ($(date -u +%T))"
    $PY bench/app_online_bench.py \
        --launch "$(launch "$plat" 64 "$5") $PWD/build/simgrid/a2atune" --app "$2" --args "$3" \
        --repetitions "$4" --explore "${EXPLORE:-120,30}" --again 1 --out "$WORK/app-$plat-$2" \
        --record "$OUT_APPS" --label "$plat.xml, SMPI coll-selector mpich" "${reuse[@]}"
}

# real_p2: the real P = 2 launches of online_bench.py (alltoall, then alltoallv), quiet
real_p2() {
    local v
    for v in "" --alltoallv; do
        echo "online_remake: real P = 2 ${v:-alltoall} ($(date -u +%T))"
        flock /tmp/a2atune-bench.lock $PY bench/online_bench.py \
            --launch "mpirun -n 2 --bind-to core" --binary build/openmpi/bench/online_loop \
            --out "$WORK/real-p2$v" --sizes 16,1024,16384 --calls 1000 --repeats 5 $v --quiet \
            --connect \
            --record "$OUT_REAL" --label "real: Open MPI, P = 2 on 2 cores (--bind-to core)"
    done
}
run_one() {
    case $1 in
        df64)   shape dragonfly 64 1e-3 16,1024,16384 alltoall ;;
        df64v)  shape dragonfly 64 1e-2 16,1024,16384 alltoallv ;;
        df256)  shape dragonfly 256 1e-3 16 alltoall ;;
        df256v) shape dragonfly 256 1e-2 16 alltoallv ;;
        to64)   shape torus_tofud 64 1e-3 16,1024,16384 alltoall ;;
        to256)  shape torus_tofud 256 1e-2 16 alltoall ;;
        shapes) for s in df64 df64v df256 df256v to64 to256; do run_one $s; done ;;
        fft)    app dragonfly fft "--n 512x512" 500 1e-3 ;;
        tc)     app dragonfly tc "--graph rmat:9:4" 167 1e-2 ;;
        tc-torus) app torus_tofud tc "--graph rmat:9:4" 167 1e-2 ;;
        apps)   run_one fft; run_one tc ;;
        p2)     real_p2 ;;
        *) echo "online_remake: unknown '$1' (shapes, apps, df64, df64v, df256, df256v, to64," \
                "to256, fft, tc, tc-torus, p2)" >&2; exit 2 ;;
    esac
}

[ $# -gt 0 ] || { sed -n '2,35p' "$0" >&2; exit 2; }
for what in "$@"; do run_one "$what"; done
