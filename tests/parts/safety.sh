# tests/parts/safety.sh — legal MPI programs through the preload library (issue: intercommunicators,
# ranks that describe the same bytes with other types, typemaps not in order, messages over
# the byte limit). Sourced by tests/run.sh (run, check, holds, pass, fail, $WORK,
# mpirun_openmpi, mpirun_mpich). tests/preload/safety_program runs every case at block sizes
# 0..160 bytes; tests/data/tuning-safety.json sends each size to another kernel; each run is
# checked by the program itself (what the types mean, computed without MPI) and byte for byte
# against the same program without the preload library; and the same under online tuning
# (A2A_TUNING=online: with the file, which it exploits; without, exploring from 6 calls a
# shape). About 40 s.
SD="$WORK/safety"
SAFETY_SIZES="0 16 32 48 64 80 96 112 128 144 160"
SAFETY_FILE="$PWD/tests/data/tuning-safety.json"
T0=$SECONDS

# safety_same NAME DIR1 DIR2: the receive buffers of the 5 ranks are byte for byte equal
safety_same() {
    local name=$1 a=$2 b=$3 r
    for r in 0 1 2 3 4; do
        if [ ! -s "$a/rank$r.bin" ] || ! cmp -s "$a/rank$r.bin" "$b/rank$r.bin"; then
            fail "$name" "rank $r: $a/rank$r.bin and $b/rank$r.bin differ or are missing"
            return
        fi
    done
    pass "$name" "($(cat "$a"/rank*.bin | wc -c) bytes)"
}

for lib in openmpi mpich; do
    B=build/$lib
    launch=mpirun_$lib
    mkdir -p "$SD/$lib/plain" "$SD/$lib/preload" "$SD/$lib/limit" "$SD/$lib/online" "$SD/$lib/explore"
    run safety/$lib/plain 120 $launch 5 $B/tests/preload/safety_program "$SD/$lib/plain" $SAFETY_SIZES
    # run keeps the output (the A2A_VERBOSE log) in $WORK/safety_$lib_preload.log
    run safety/$lib/preload 120 $launch 5 env LD_PRELOAD="$PWD/$B/liba2a_preload.so" \
        A2A_TUNING_FILE="$SAFETY_FILE" A2A_VERBOSE=1 \
        $B/tests/preload/safety_program "$SD/$lib/preload" $SAFETY_SIZES
    log="$WORK/safety_${lib}_preload.log"
    safety_same safety/$lib/preload-same-bytes "$SD/$lib/plain" "$SD/$lib/preload"
    check safety/$lib/every-kernel-ran holds \
        'for k in spread_out pairwise "scattered block_count=1" bruck "tra radix=2" "tra radix=3" tra2 "scattered block_count=2" linear twophase_bruck "tuna radix=2" "tuna radix=3" tuna_staggered tuna_coalesced; do grep -q -- "-> $k" "$log" || return 1; done'
    check safety/$lib/intercommunicators-to-mpi holds \
        '[ "$(grep -c "P=[23] .*-> MPI library (intercommunicator)" "$log")" -ge 4 ]'
    # every message of a kernel at most 24 bytes: rounds split, or the call falls back
    run safety/$lib/limit 120 $launch 5 env LD_PRELOAD="$PWD/$B/liba2a_preload.so" \
        A2A_TUNING_FILE="$SAFETY_FILE" A2A_MAX_MESSAGE_BYTES=24 \
        $B/tests/preload/safety_program "$SD/$lib/limit" $SAFETY_SIZES
    safety_same safety/$lib/limit-same-bytes "$SD/$lib/plain" "$SD/$lib/limit"
    run safety/$lib/online 120 $launch 5 env LD_PRELOAD="$PWD/$B/liba2a_preload.so" \
        A2A_TUNING=online A2A_TUNING_FILE="$SAFETY_FILE" A2A_VERBOSE=1 \
        $B/tests/preload/safety_program "$SD/$lib/online" $SAFETY_SIZES
    safety_same safety/$lib/online-same-bytes "$SD/$lib/plain" "$SD/$lib/online"
    # the file's choices, call for call (online.c takes the calls without a rule, unlogged
    # but for a decision line when such a shape is decided within the run: the race can
    # leave the MPI library after a few calls where it is far slower)
    check safety/$lib/online-file-exploited holds \
        "cmp -s <(grep -- '-> ' '$log' | grep -v '(no rule)' | sort) <(grep -- '-> ' '$WORK/safety_${lib}_online.log' | grep -v '^a2a: online ' | sort)"
    run safety/$lib/online-explore 120 $launch 5 env LD_PRELOAD="$PWD/$B/liba2a_preload.so" \
        A2A_TUNING=online A2A_TUNING_EXPLORE=6 A2A_TUNING_CHECK=1 \
        $B/tests/preload/safety_program "$SD/$lib/explore" $SAFETY_SIZES
    safety_same safety/$lib/online-explore-same-bytes "$SD/$lib/plain" "$SD/$lib/explore"
done
echo "     (safety part: $((SECONDS - T0)) s)"
