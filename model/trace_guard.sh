#!/bin/bash
# model/trace_guard.sh — two builds of a2atrace print the same bytes: runs both on a fixed
# set of configurations (every traced kernel; P = 1, 2, 3, 5, 64, 100, 1024; S = 0, 16,
# 1000, 16 KiB; non-uniform distributions; with and without a copy-cost model) and
# compares stdout and exit status of each. For a change to the tracer that must not change
# what it prints (its speed, its memory):
#   model/trace_guard.sh OLD_A2ATRACE NEW_A2ATRACE
# Prints one line per difference and a count; exit 0 when every configuration is identical,
# 1 when one differs, 2 on bad input. About a minute per binary on one core.
set -u
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || {
    echo "usage: model/trace_guard.sh OLD_A2ATRACE NEW_A2ATRACE (two executables)" >&2; exit 2; }
OLD=$1 NEW=$2
COPY_MODEL=1024:4,65536:10,16777216:8

# configurations: one per line, the arguments of a2atrace after the kernel's name
configs() {
    local P Q S r
    for PQ in 1:1 2:2 3:3 5:5 64:8 64:32 100:4 100:100 1024:32; do
        P=${PQ%:*} Q=${PQ#*:}
        for S in 0 16 1000 16384; do
            for r in 2 3 7 P; do
                [ $r = P ] && r=$P
                echo "tra $P $S --node-size $Q --radix $r"
                echo "tuna $P $S --node-size $Q --radix $r --dist uniform --seed 1"
            done
            echo "tuna $P $S --node-size $Q --radix 4 --block-count 2 --dist normal --seed 3"
            echo "tuna $P $S --node-size $Q --radix 5 --block-count 4 --dist powerlaw --seed 2"
            echo "tuna $P $S --node-size $Q --radix 2 --dist fft_n1 --seed 1"
            echo "tuna $P $S --node-size $Q --radix 3 --dist constant --seed 1"
            echo "tra2 $P $S --node-size $Q --radix 2 --radix2 3"
            for k in bruck pairwise spread_out; do echo "$k $P $S --node-size $Q"; done
            echo "scattered $P $S --node-size $Q --block-count 2"
            echo "scattered $P $S --node-size $Q --block-count $P"
            for d in uniform powerlaw fft_n2; do
                echo "twophase_bruck $P $S --node-size $Q --dist $d --seed 1"
                echo "mpich_selection $P $S --node-size $Q --dist $d --seed 1"
            done
        done
    done
    echo "tra 64 16 --node-size 8 --radix 4 --all-nodes"
    echo "scattered 100 1000 --node-size 4 --block-count 3 --all-nodes"
    echo "tuna 64 16 --node-size 8 --all-nodes"   # refused: exit 2 on both
}

# run BINARY ARGS...: stdout, then the exit status, with and without the copy-cost model
run() {
    local bin=$1; shift
    A2A_SIM_COPY_MODEL= "$bin" "$@" 2>/dev/null; echo "exit $?"
    A2A_SIM_COPY_MODEL=$COPY_MODEL "$bin" "$@" 2>/dev/null; echo "exit $?"
}

n=0 differ=0
while read -r line; do
    n=$((n + 1))
    if ! cmp -s <(run "$OLD" $line) <(run "$NEW" $line); then
        differ=$((differ + 1))
        echo "differs: a2atrace $line"
    fi
done < <(configs)
echo "trace_guard: $n configurations, $differ differ"
[ $differ -eq 0 ]
