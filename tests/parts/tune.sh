# tests/parts/tune.sh — tuning files, vendor_algorithm, the tuned dispatcher and the preload
# library (sourced by tests/run.sh: run, check, holds, sql, pass, fail, $WORK,
# mpirun_openmpi, mpirun_mpich). Every claim is checked by watching the library:
# tests/preload/probe.so (LD_PRELOAD) names, for every MPI_Alltoall(v), the Open MPI
# coll/base algorithm that ran, or MPICH's UCX sends and tags; tests/preload/expect.py reads
# each tuning file on its own and compares its choice with what ran. About 40 s.
TD="$WORK/tune"
mkdir -p "$TD"
OB=build/openmpi/tests/preload
MB=build/mpich/tests/preload
EXPECT="/usr/bin/python3 tests/preload/expect.py"
SIZES="16 100 1000 5000 20000"   # block bytes for plain_alltoall: around and between the sweep's S
T0=$SECONDS

# step NAME SECONDS LOG CMD...: CMD's stdout to LOG.out, stderr to LOG; passes when it exits
# 0 within SECONDS (shows the ends of both if not)
step() {
    local name=$1 limit=$2 log=$3; shift 3
    local t0=$SECONDS
    if timeout -k 10 "$limit" "$@" > "$log.out" 2> "$log"; then
        pass "$name" "($((SECONDS - t0)) s)"
    else
        fail "$name" "(exit $?, $((SECONDS - t0)) s; last lines below)"
        tail -n 5 "$log.out" "$log" | sed 's/^/    /'
    fi
}
# expect_ok NAME KIND ARGS...: passes when expect.py finds no mismatch (shows them if not)
expect_ok() {
    local name=$1; shift
    if $EXPECT "$@" > "$TD/expect.out" 2>&1; then
        pass "$name" "($(tail -n 1 "$TD/expect.out"))"
    else
        fail "$name" "$(tail -n 1 "$TD/expect.out")"
        head -n 8 "$TD/expect.out" | sed 's/^/    /'
    fi
}
# same_bytes NAME DIR1 DIR2 N: the receive buffers of N ranks are byte for byte equal
same_bytes() {
    local name=$1 a=$2 b=$3 n=$4 r
    for ((r = 0; r < n; r++)); do
        if [ ! -s "$a/rank$r.bin" ] || ! cmp -s "$a/rank$r.bin" "$b/rank$r.bin"; then
            fail "$name" "rank $r: $a/rank$r.bin and $b/rank$r.bin differ or are missing"
            return
        fi
    done
    pass "$name" "($(cat "$a"/rank*.bin | wc -c) bytes)"
}

# ---- vendor_algorithm: each number makes the library run that algorithm ------------------
step tune/force/openmpi-P4 60 "$TD/force-ompi.log" mpirun_openmpi 4 env LD_PRELOAD="$PWD/$OB/probe.so" $OB/force_check
MIN=12 expect_ok tune/force/openmpi-P4-probe force "$TD/force-ompi.log"
step tune/force/openmpi-P2 60 "$TD/force-ompi2.log" mpirun_openmpi 2 env LD_PRELOAD="$PWD/$OB/probe.so" $OB/force_check
check tune/force/openmpi-two_proc holds \
    'grep -A1 "vendor_algorithm=5 name=two_proc" "$TD/force-ompi2.log" | grep -q "algorithm=two_proc"'
MIN=14 expect_ok tune/force/openmpi-P2-probe force "$TD/force-ompi2.log"
step tune/force/mpich-P4 60 "$TD/force-mpich.log" mpirun_mpich 4 env LD_PRELOAD="$PWD/$MB/probe.so" $MB/force_check
MIN=12 MPI_LIBRARY=mpich expect_ok tune/force/mpich-P4-probe force "$TD/force-mpich.log"
# a user's own coll/tuned setting is left alone: forcing is then refused, in one clear line
timeout -k 10 60 mpirun_openmpi 2 env OMPI_MCA_coll_tuned_priority=30 $OB/force_check > /dev/null 2> "$TD/refused.err"; rc=$?
check tune/force/refused-clearly holds '[ $rc -ne 0 ] && [ "$(grep -c "^a2a: vendor_algorithm .* needs coll_tuned_use_dynamic_rules" "$TD/refused.err")" = 1 ]'
# liba2a turns Open MPI's dynamic rules on; by itself that changes no algorithm (the two
# halves of the world log concurrently, so the lines are compared sorted)
timeout -k 10 60 mpirun_openmpi 4 env LD_PRELOAD="$PWD/$OB/probe.so" $OB/plain_alltoall - $SIZES \
    2> "$TD/fixed.log" > /dev/null
timeout -k 10 60 mpirun_openmpi 4 env LD_PRELOAD="$PWD/$OB/probe.so" OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
    $OB/plain_alltoall - $SIZES 2> "$TD/dynamic.log" > /dev/null
check tune/dynamic-rules-alone-change-nothing holds \
    '[ "$(grep -c a2a-probe "$TD/fixed.log")" -ge 20 ] && diff -q <(sort "$TD/fixed.log") <(sort "$TD/dynamic.log") > /dev/null'

# ---- a database from real sweeps, both libraries -----------------------------------------
DB="$TD/tune.db"
run tune/sweep/openmpi 120 mpirun_openmpi 4 ./a2atune run tests/sweeps/tune.ini --db "$DB" --quiet
run tune/sweep/mpich 120 mpirun_mpich 4 build/mpich/a2atune run tests/sweeps/tune_mpich.ini --db "$DB" --quiet
check tune/sweep/all-ok [ "$(sql "$DB" "SELECT count(*) FROM results WHERE status <> 'ok'")" = 0 ]
check tune/sweep/vendor-algorithms-recorded [ "$(sql "$DB" "SELECT group_concat(n) FROM (SELECT count(DISTINCT json_extract(params, '\$.vendor_algorithm')) AS n FROM results WHERE kernel = 'vendor' GROUP BY run_id, family ORDER BY run_id, family)")" = "3,6,3,5" ]

# ---- the three files -----------------------------------------------------------------------
F="$TD/files"
run tune/a2a-tune 60 scripts/a2a tune --db "$DB" --out "$F" --mpi openmpi
check tune/files/written holds '[ -s "$F/a2a-tuning.json" ] && [ -s "$F/openmpi-rules.conf" ] && [ -s "$F/mpich-tuning.json" ]'
check tune/files/a2a-rules holds '[ "$(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[\"format\"], d[\"mpi_library\"], len(d[\"alltoall\"]) >= 3, len(d[\"alltoallv\"]) >= 3)" "$F/a2a-tuning.json")" = "a2a-tuning Open MPI True True" ]'
check tune/files/openmpi-ids holds '[ "$(grep -v "^#" "$F/openmpi-rules.conf" | sed "s/ *#.*//" | sed -n "1p;2p")" = "$(printf "2\n3")" ]'
run tune/a2a-tune-explicit 60 scripts/a2a tune --db "$DB" --out "$TD/explicit" --files openmpi --explicit
check tune/files/explicit-names-algorithms holds \
    '[ "$(grep -cE "^0 [1-5] 0 0" "$TD/explicit/openmpi-rules.conf")" -ge 3 ]'

# ---- Open MPI obeys its rules file (each call: the algorithm the file names) ---------------
for n in 4 3; do
    step tune/openmpi-rules-baseline/P$n 60 "$TD/base$n.log" mpirun_openmpi $n env LD_PRELOAD="$PWD/$OB/probe.so" \
        $OB/plain_alltoall - $SIZES
done
for file in "$F" "$TD/explicit"; do
    tag=$(basename "$file")
    for n in 4 3; do
        timeout -k 10 60 mpirun_openmpi $n env LD_PRELOAD="$PWD/$OB/probe.so" \
            OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
            OMPI_MCA_coll_tuned_dynamic_rules_filename="$file/openmpi-rules.conf" \
            $OB/plain_alltoall - $SIZES 2> "$TD/rules-$tag$n.log" > /dev/null
        expect_ok "tune/openmpi-rules-obeyed/$tag/P$n" openmpi "$file/openmpi-rules.conf" \
            "$TD/rules-$tag$n.log" "$TD/base$n.log"
    done
done
# the sentinel: hand-made rules that force what the fixed decision does not choose
timeout -k 10 60 mpirun_openmpi 4 env LD_PRELOAD="$PWD/$OB/probe.so" OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
    OMPI_MCA_coll_tuned_dynamic_rules_filename="$PWD/tests/data/openmpi-sentinel.conf" \
    $OB/plain_alltoall - $SIZES 2> "$TD/rules-sentinel4.log" > /dev/null
expect_ok tune/openmpi-rules-obeyed/sentinel/P4 openmpi tests/data/openmpi-sentinel.conf \
    "$TD/rules-sentinel4.log" "$TD/base4.log"
check tune/openmpi-rules-sentinel-took-effect holds \
    '[ "$(grep -c "alltoall P=4 bytes=1000 algorithm=modified_bruck" "$TD/rules-sentinel4.log")" = 2 ] &&
     [ "$(grep -c "alltoallv P=4 .*algorithm=pairwise" "$TD/rules-sentinel4.log")" = 5 ] &&
     ! grep -q "P=4 .*algorithm=modified_bruck" "$TD/base4.log" &&
     ! grep -q "alltoallv P=4 .*algorithm=pairwise" "$TD/base4.log"'

# ---- MPICH obeys its selection file ----------------------------------------------------------
step tune/mpich-json-run 60 "$TD/mpich-json.log" mpirun_mpich 4 env LD_PRELOAD="$PWD/$MB/probe.so" \
    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$F/mpich-tuning.json" $MB/plain_alltoall - $SIZES
expect_ok tune/mpich-json-obeyed mpich "$F/mpich-tuning.json" "$TD/mpich-json.log"

# ---- the dispatcher: the a2a file names the kernel each call runs; results unchanged ---------
mkdir -p "$TD/plain" "$TD/gen" "$TD/sentinel" "$TD/mplain" "$TD/msentinel"
run tune/preload/plain 60 mpirun_openmpi 4 $OB/plain_alltoall "$TD/plain" $SIZES
step tune/preload/generated 60 "$TD/gen.log" mpirun_openmpi 4 env LD_PRELOAD="$PWD/build/openmpi/liba2a_preload.so" \
    A2A_TUNING_FILE="$F/a2a-tuning.json" A2A_VERBOSE=1 $OB/plain_alltoall "$TD/gen" $SIZES
expect_ok tune/dispatcher/generated-file a2a "$F/a2a-tuning.json" "$TD/gen.log"
same_bytes tune/preload/generated-same-bytes "$TD/plain" "$TD/gen" 4
step tune/preload/sentinel 60 "$TD/sentinel.log" mpirun_openmpi 4 env LD_PRELOAD="$PWD/build/openmpi/liba2a_preload.so" \
    A2A_TUNING_FILE="$PWD/tests/data/tuning-sentinel.json" A2A_VERBOSE=1 $OB/plain_alltoall "$TD/sentinel" $SIZES
expect_ok tune/dispatcher/sentinel-file a2a tests/data/tuning-sentinel.json "$TD/sentinel.log"
check tune/dispatcher/sentinel-kernels-ran holds \
    'for k in "tra radix=3" bruck "scattered block_count=2" tuna twophase_bruck pairwise "MPI library (no rule)"; do grep -q -- "-> $k" "$TD/sentinel.log" || return 1; done'
same_bytes tune/preload/sentinel-same-bytes "$TD/plain" "$TD/sentinel" 4
run tune/preload/mpich-plain 60 mpirun_mpich 4 $MB/plain_alltoall "$TD/mplain" $SIZES
step tune/preload/mpich-sentinel 60 "$TD/msentinel.log" mpirun_mpich 4 env LD_PRELOAD="$PWD/build/mpich/liba2a_preload.so" \
    A2A_TUNING_FILE="$PWD/tests/data/tuning-sentinel.json" A2A_VERBOSE=1 $MB/plain_alltoall "$TD/msentinel" $SIZES
expect_ok tune/dispatcher/mpich-sentinel-file a2a tests/data/tuning-sentinel.json "$TD/msentinel.log"
same_bytes tune/preload/mpich-sentinel-same-bytes "$TD/mplain" "$TD/msentinel" 4
# a broken file: the program still runs right, on the MPI library, after one clear line
timeout -k 10 60 mpirun_openmpi 4 env LD_PRELOAD="$PWD/build/openmpi/liba2a_preload.so" \
    A2A_TUNING_FILE="$PWD/tests/data/tuning-unknown-kernel.json" $OB/plain_alltoall - 16 1000 \
    > "$TD/bad.out" 2> "$TD/bad.err"; rc=$?
check tune/preload/bad-file-one-line holds '[ $rc -eq 0 ] && [ "$(wc -l < "$TD/bad.err")" = 1 ] && grep -q "unknown uniform kernel .no_such_kernel." "$TD/bad.err"'

# ---- bad input to a2a tune: one line, exit 2 ------------------------------------------------
bad_tune() { # bad_tune NAME EXPECTED-TEXT ARGS...
    local name=$1 want=$2; shift 2
    scripts/a2a tune "$@" --out "$TD/bad-out" > /dev/null 2> "$TD/tune.err"
    local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$TD/tune.err")" = 1 ] && grep -qF -- "$want" "$TD/tune.err"; then
        pass "tune/bad-input/$name"
    else
        fail "tune/bad-input/$name" "exit $rc, wanted '$want', got: $(head -c 300 "$TD/tune.err")"
    fi
}
bad_tune missing-db "no such database" --db "$TD/none.db"
sql "$TD/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
bad_tune foreign-db "not an a2atune database" --db "$TD/foreign.db"
bad_tune empty-selection "no ok timed results" --db "$DB" --P 99
bad_tune unknown-kernel "unknown kernel 'nope'" --db "$DB" --kernel nope
bad_tune unknown-file "unknown file" --db "$DB" --files a2a,gcc
echo "     (tune part: $((SECONDS - T0)) s)"
