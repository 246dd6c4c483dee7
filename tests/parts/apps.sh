# tests/parts/apps.sh — application workloads (docs/applications.md): the
# `a2atune app tc|fft` commands, `dist = graph` / `dist = fft` in sweeps and their cache.
# Sourced by tests/run.sh (helpers: run, check, holds, sql, $WORK, mpirun_openmpi,
# mpirun_mpich). Closure equality, FFT accuracy and the counts at P = 1, 2, 3, 4, 7, 8 are
# tests/test_apps.c (the `programs` part, both MPI libraries). About 25 s on 2 cores.

AC="$WORK/apps-cache"   # a cache of our own: the tests start from an empty one
export A2A_CACHE_DIR="$AC"
ADB="$WORK/apps.db"
appsql() { sql "$ADB" "$1"; }

# ---- the command line: help, and bad input (one line, exit 2) -------------------------
./a2atune app --help > "$WORK/app-help.txt"; rc=$?
check apps/help holds '[ $rc -eq 0 ] && grep -q "app tc  --graph SPEC" "$WORK/app-help.txt"'
./a2atune --help > "$WORK/a2atune-help.txt"; rc=$?
check apps/help-lists-app holds '[ $rc -eq 0 ] && grep -q "a2atune app tc" "$WORK/a2atune-help.txt"'
# bad_app NAME EXPECTED-TEXT ARGS...: exit 2, one "a2atune:" line containing the text;
# one process (MPI singleton), or $RANKS under mpirun (only rank 0 may speak)
bad_app() {
    local name=$1 want=$2; shift 2
    if [ -n "${RANKS:-}" ]; then
        mpirun_openmpi "$RANKS" ./a2atune app "$@" > /dev/null 2> "$WORK/app-bad.err"
    else
        ./a2atune app "$@" > /dev/null 2> "$WORK/app-bad.err"
    fi
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$WORK/app-bad.err" && [ "$(grep -c "^a2atune:" "$WORK/app-bad.err")" -eq 1 ]; then
        pass "apps/bad/$name"
    else
        fail "apps/bad/$name" "exit $rc, wanted '$want', got: $(head -c 300 "$WORK/app-bad.err")"
    fi
}
RANKS=3 bad_app no-application "needs tc or fft"
bad_app unknown-application "unknown application 'sort'" sort
bad_app tc-without-graph "needs --graph" tc
bad_app unknown-option "unknown option '--fast'" tc --graph rmat:4 --fast
bad_app bad-rmat "rmat:SCALE" tc --graph rmat:0
bad_app missing-file "cannot read the graph file" tc --graph "$WORK/no-such-graph.txt"
RANKS=3 bad_app malformed-file "graph_bad.txt:3:" tc --graph tests/data/graph_bad.txt
bad_app unknown-kernel "unknown nonuniform kernel 'tra'" tc --graph rmat:4 --kernel tra
RANKS=3 bad_app radix-range "radix = 1 outside" tc --graph rmat:4 --kernel tuna --radix 1
bad_app param-not-taken "does not take radix" tc --graph rmat:4 --kernel vendor --radix 2
bad_app fft-without-size "needs --n SIZE" fft
bad_app bad-size "expected N0xN1" fft --n 1000
RANKS=3 bad_app uncovered-blocks "cover only" fft --n 12x12/2x2
RANKS=3 bad_app uniform-kernel-non-uniform "transposes of 10x10 at P = 3 are non-uniform" fft --n 10x10 --kernel tra

# ---- app tc: verified, recorded next to the vendor run, counts cached -------------------
run apps/tc-run 60 mpirun_openmpi 4 ./a2atune app tc --graph rmat:7:4:5 --kernel tuna --radix 2 \
    --repetitions 3 --db "$ADB"
log="$WORK/apps_tc-run.log"
check apps/tc-verified grep -q "^verified: .* paths and their fingerprint equal" "$log"
check apps/tc-counts-recorded grep -q "recorded for dist = graph in $AC/tc-" "$log"
check apps/tc-rows [ "$(appsql "SELECT group_concat(kernel || ':' || status || ':' || P || ':' || iterations, ',') FROM (SELECT * FROM results WHERE family = 'app' AND section = 'tc' ORDER BY id)")" = "tuna:ok:4:3,vendor:ok:4:3" ]
check apps/tc-samples [ "$(appsql "SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id WHERE r.section = 'tc'")" = 6 ]
iters=$(sed -n 's/^closure: [0-9]* paths in \([0-9]*\) iterations.*/\1/p' "$log")
check apps/tc-metrics [ "$(appsql "SELECT count(*) FROM metrics m JOIN results r ON r.id = m.result_id WHERE r.section = 'tc' AND (m.name = 'iterations' AND m.value = ${iters:-0} OR m.name = 'comm_s' AND m.value > 0 AND m.value <= r.median_s * 1.5 OR m.name = 'bytes_shuffled' AND m.value > 0)")" = 6 ]
check apps/tc-params [ "$(appsql "SELECT radix || ',' || block_count || ',' || dist || ',' || json_extract(dist_params, '$.graph') FROM results WHERE section = 'tc' AND kernel = 'tuna'")" = "2,1,graph,rmat:7:4:5" ]
check apps/tc-run-provenance [ "$(appsql "SELECT status || ',' || world_size || ',' || section FROM runs ORDER BY id DESC LIMIT 1")" = "done,4,tc" ]
cache_file=$(ls "$AC"/tc-*-p4.counts 2>/dev/null | head -1)
check apps/cache-file-whole holds '[ -n "$cache_file" ] && [ "$(tail -1 "$cache_file")" = end ] && [ -z "$(ls "$AC" | grep "\.tmp\.")" ]'

# ---- dist = graph replays the cached counts; dist = fft sizes blocks as the app sends --
cat > "$WORK/apps-sweep.ini" <<EOF
iterations = 2
warmup = 1
P = 3, 4

[graph]
family = nonuniform
kernels = vendor, tuna
dist = graph
graph = rmat:7:4:5, $PWD/tests/data/graph_snap.txt
graph_iteration = all, 40
S = 0, 1K
radix = 2, P
block_count = 1

[fft]
family = nonuniform
kernels = vendor, tuna
dist = fft
fft = 24x20, 3x16/1x4
radix = 2
block_count = 1

[fft_uniform]
family = uniform
kernels = vendor, tra
dist = fft
fft = 20x20
radix = 2, 3
EOF
run apps/sweep 120 mpirun_openmpi 4 ./a2atune run "$WORK/apps-sweep.ini" --db "$WORK/apps-sweep.db" --quiet
SDB="$WORK/apps-sweep.db"
check apps/sweep-all-ok [ "$(sql "$SDB" "SELECT count(*) FROM results WHERE status NOT IN ('ok', 'skipped')")" = 0 ]
# every iteration of the app's graph at P = 4 once per kernel configuration (3), S = its largest block
want_rows=$(awk '/^iterations/ {print 3 * $2}' "$cache_file")
check apps/sweep-graph-iterations [ "$(sql "$SDB" "SELECT count(*) FROM results WHERE dist = 'graph' AND P = 4 AND status = 'ok' AND json_extract(dist_params, '$.graph') = 'rmat:7:4:5'")" = "${want_rows:-x}" ]
peak_S=$(awk '/^iteration 1$/ {on = 1; next} /^(iteration|end)/ {on = 0} on {for (i = 1; i <= NF; i++) if ($i > m) m = $i} END {print 8 * m}' "$cache_file")
check apps/sweep-graph-S [ "$(sql "$SDB" "SELECT DISTINCT S FROM results WHERE dist = 'graph' AND P = 4 AND json_extract(dist_params, '$.iteration') = 1 AND json_extract(dist_params, '$.graph') = 'rmat:7:4:5'")" = "$peak_S" ]
check apps/sweep-graph-beyond-skipped [ "$(sql "$SDB" "SELECT count(*) FROM results WHERE dist = 'graph' AND status = 'skipped' AND message LIKE '%iterations (graph_iteration 40..40)%'")" -gt 0 ]
check apps/sweep-fft-uniform-skips-P3 [ "$(sql "$SDB" "SELECT group_concat(DISTINCT P || status) FROM results WHERE section = 'fft_uniform'")" = "3skipped,4ok" ]
# 3x16/1x4 is the TuNA paper's N1 at P = 4: 64-byte blocks from 3 ranks to all 4
check apps/sweep-fft-n1-instance [ "$(sql "$SDB" "SELECT DISTINCT S || status FROM results WHERE dist = 'fft' AND json_extract(dist_params, '$.fft') = '3x16/1x4' AND P = 4")" = 64ok ]
# the app at P = 3 finds the counts the sweep cached (computed by the replay) equal to its own
run apps/tc-P3 60 mpirun_openmpi 3 ./a2atune app tc --graph "$PWD/tests/data/graph_snap.txt" --repetitions 1 --warmup 0 --no-db
check apps/replay-equals-app grep -q "sent, equal to the cached ones in $AC/tc-" "$WORK/apps_tc-P3.log"

# --kernel best: the results contract's choice: the kernel and parameters the sweep measured
# fastest (sum over iterations), or the simplest within the noise of it (and then it says so)
best=$(sql "$SDB" "WITH per AS (SELECT kernel, radix, json_extract(dist_params, '$.iteration') AS it, MIN(median_s) AS m FROM results WHERE dist = 'graph' AND status = 'ok' AND P = 4 AND json_extract(dist_params, '$.graph') = 'rmat:7:4:5' GROUP BY kernel, radix, it) SELECT kernel || ':' || ifnull(radix, '') FROM per GROUP BY kernel, radix ORDER BY SUM(m) LIMIT 1")
run apps/tc-best 60 mpirun_openmpi 4 ./a2atune app tc --graph rmat:7:4:5 --kernel best --repetitions 1 --warmup 0 --db "$SDB"
chosen=$(sql "$SDB" "SELECT kernel || ':' || ifnull(radix, '') FROM results WHERE family = 'app' ORDER BY id LIMIT 1")
why=$(sed -n 's/^best in .*; \(the fastest\|the simplest within the noise of [a-z_]*\).*/\1/p' "$WORK/apps_tc-best.log")
check apps/tc-best-from-db [ "$why" = "the fastest" -a "$chosen" = "$best" -o "$why" = "the simplest within the noise of ${best%%:*}" ]
run apps/fft-best 60 mpirun_openmpi 3 ./a2atune app fft --n 24x20 --kernel best --repetitions 1 --warmup 0 --no-db --db "$SDB"
check apps/fft-best-printed grep -q "^best in .*: nonuniform/" "$WORK/apps_fft-best.log"
bad_app best-without-results "has no timed dist = graph results for rmat:4:8:1 at P = 1" tc --graph rmat:4 --kernel best --db "$SDB"

# many ranks filling an empty cache at once: one whole file, no temporary left behind
rm -rf "$AC"
run apps/cache-concurrent 60 mpirun_openmpi 8 ./a2atune run "$WORK/apps-sweep.ini" --section graph --dry-run
check apps/cache-concurrent-whole holds '[ "$(ls "$AC"/*.counts | wc -l)" = 4 ] && [ "$(tail -qn1 "$AC"/*.counts | sort -u)" = end ] && [ -z "$(ls "$AC" | grep "\.tmp\.")" ]'
# a cache file that was cut short is ignored and rewritten
f=${cache_file%-p4.counts}-p3.counts   # rmat:7:4:5 at P = 3
head -n 5 "$f" > "$f.cut" && mv "$f.cut" "$f"
run apps/cache-truncated 60 mpirun_openmpi 3 ./a2atune app tc --graph rmat:7:4:5 --repetitions 1 --warmup 0 --no-db
check apps/cache-truncated-rewritten holds '[ "$(tail -1 "$f")" = end ] && grep -q "recorded for dist = graph" "$WORK/apps_cache-truncated.log"'

# sweep keys: file:line errors
bad_sweep() { # bad_sweep NAME EXPECTED-TEXT LINES (from line 5 on: family, dist, graph / fft, ...)
    printf 'iterations = 0\n[s]\nkernels = vendor\nS = 0\n%b\n' "$3" > "$WORK/apps-bad.ini"
    ./a2atune run "$WORK/apps-bad.ini" --db "$WORK/apps-bad.db" > /dev/null 2> "$WORK/apps-bad.err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$2" "$WORK/apps-bad.err" && [ "$(grep -c "^a2atune:" "$WORK/apps-bad.err")" -eq 1 ]; then
        pass "apps/bad-sweep/$1"
    else
        fail "apps/bad-sweep/$1" "exit $rc, wanted '$2', got: $(head -c 300 "$WORK/apps-bad.err")"
    fi
}
N="family = nonuniform\n"
bad_sweep graph-missing "apps-bad.ini:6: dist = graph needs 'graph = SPEC'" "${N}dist = graph"
bad_sweep graph-spec "apps-bad.ini:7: graph 'rmat:x'" "${N}dist = graph\ngraph = rmat:x"
bad_sweep graph-unreadable "apps-bad.ini:7: graph 'nope.txt': cannot read" "${N}dist = graph\ngraph = nope.txt"
bad_sweep graph-malformed "graph_bad.txt:3: expected 'source target'" "${N}dist = graph\ngraph = $PWD/tests/data/graph_bad.txt"
bad_sweep graph-iteration "apps-bad.ini:8: graph_iteration = 'first'" "${N}dist = graph\ngraph = rmat:4\ngraph_iteration = first"
bad_sweep fft-missing "apps-bad.ini:6: dist = fft needs 'fft = SIZE'" "${N}dist = fft"
bad_sweep fft-size "apps-bad.ini:7: FFT size '10'" "${N}dist = fft\nfft = 10"
bad_sweep uniform-graph "apps-bad.ini:6: distribution 'graph' gives blocks of different sizes" "family = uniform\ndist = graph\ngraph = rmat:4"

# ---- app fft: non-uniform and uniform transposes, verified and recorded ----------------
run apps/fft-nonuniform 60 mpirun_openmpi 3 ./a2atune app fft --n 24x20 --kernel tuna --radix 2 --repetitions 3 --db "$ADB"
check apps/fft-nonuniform-verified grep -q "^verified: maximum relative error .* (bound 1e-09)" "$WORK/apps_fft-nonuniform.log"
run apps/fft-uniform 60 mpirun_openmpi 4 ./a2atune app fft --n 16x16x4 --kernel tra --radix 3 --repetitions 3 --db "$ADB"
check apps/fft-uniform-alltoall grep -q "uniform transposes (alltoall)" "$WORK/apps_fft-uniform.log"
check apps/fft-rows [ "$(appsql "SELECT group_concat(kernel || ':' || P || ':' || json_extract(dist_params, '$.fft') || ':' || status, ',') FROM (SELECT * FROM results WHERE section = 'fft' ORDER BY id)")" = "tuna:3:24x20:ok,vendor:3:24x20:ok,tra:4:16x16x4:ok,vendor:4:16x16x4:ok" ]
check apps/fft-error-bounded [ "$(appsql "SELECT count(*) FROM metrics m JOIN results r ON r.id = m.result_id WHERE r.section = 'fft' AND m.name = 'max_rel_error' AND m.value <= 1e-9")" = 4 ]
# the app's block sizes are those of dist = fft (largest block = the sweep's S)
check apps/fft-S-matches-dist [ "$(appsql "SELECT S FROM results WHERE section = 'fft' AND kernel = 'tuna'")" = "$(sql "$SDB" "SELECT DISTINCT S FROM results WHERE dist = 'fft' AND P = 3 AND json_extract(dist_params, '$.fft') = '24x20'")" ]

# ---- --kernel tuned: the all-to-alls through the tuned dispatcher, tuned online ---------
# A2A_TUNING_EXPLORE=6 (two candidates a shape) and 12 runs without warm-up: every shape of
# the closure (and the FFT's one) is seen at least 12 times, enough to decide; the file
# written is read back by a second run, whose shapes all run by its rules.
TD="$WORK/apps-tuned"
mkdir -p "$TD"
tuned_file_ok() { # FILE COLL: an a2a-tuning file whose COLL rules are decisions at P = 4
    /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
rules = d[sys.argv[2]]
assert d["format"] == "a2a-tuning" and d["version"] == 1 and rules
assert all(r["P"] == [4, 4] and r["kernel"] and "online" in r for r in rules)' "$1" "$2"
}
for app in tc fft; do
    if [ $app = tc ]; then what="--graph rmat:6:4"; coll=alltoallv; else what="--n 16x16"; coll=alltoall; fi
    run apps/tuned-$app-online 60 env A2A_TUNING=online A2A_TUNING_EXPLORE=6 \
        A2A_TUNING_OUT="$TD/$app.json" mpirun_openmpi 4 ./a2atune app $app $what --kernel tuned \
        --repetitions 12 --warmup 0 --db "$TD/$app.db"
    log="$WORK/apps_tuned-$app-online.log"
    check apps/tuned-$app-verified grep -q "^verified: " "$log"
    check apps/tuned-$app-decided holds "grep -q '^tuned: A2A_TUNING=online: $coll P=4 S=.* from call ' '$log' && ! grep -q 'still exploring' '$log'"
    check apps/tuned-$app-row [ "$(sql "$TD/$app.db" "SELECT group_concat(kernel || ':' || status || ':' || ifnull(json_extract(params, '$.online'), '-') || ':' || (ifnull(message, '') LIKE 'tuned: A2A_TUNING=online: $coll P=4 %'), ',') FROM (SELECT * FROM results ORDER BY id)")" = "tuned:ok:1:1,vendor:ok:-:0" ]
    check apps/tuned-$app-file-valid tuned_file_ok "$TD/$app.json" $coll
    run apps/tuned-$app-file 60 env A2A_TUNING=online A2A_TUNING_FILE="$TD/$app.json" \
        mpirun_openmpi 4 ./a2atune app $app $what --kernel tuned --no-vendor --repetitions 2 --no-db
    log="$WORK/apps_tuned-$app-file.log"
    check apps/tuned-$app-file-read holds "grep -q '^verified: ' '$log' && grep -q '^tuned: .*by the tuning file.s rule' '$log' && ! grep -q 'online tuning\|not used\|exploring\|warm-up' '$log'"
done
bad_app tuned-takes-no-params "--kernel tuned takes no --radix" tc --graph rmat:4 --kernel tuned --radix 2

# ---- MPICH, and the sanitizer build ----------------------------------------------------
run apps/mpich-tc 60 mpirun_mpich 3 build/mpich/a2atune app tc --graph rmat:6:4 --kernel tuna --radix 3 --repetitions 2 --no-db
run apps/mpich-fft 60 mpirun_mpich 3 build/mpich/a2atune app fft --n 12x10x3 --kernel twophase_bruck --repetitions 2 --no-db
if [ -x build/asan/a2atune ]; then
    printf 'leak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\nleak:libhwloc.so\nleak:libpmix.so\nleak:libevent\nleak:mca_\n' > "$WORK/apps-asan.supp"
    asan="env OMPI_MCA_mca_base_component_disable_dlclose=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$WORK/apps-asan.supp UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
    cat > "$WORK/apps-asan.ini" <<EOF
iterations = 1
warmup = 0
[apps]
family = nonuniform
kernels = vendor, tuna
dist = graph, fft
graph = rmat:5:4
graph_iteration = peak
fft = 10x7x3
radix = 2
block_count = 1
EOF
    run apps/asan-tc 120 $asan mpirun_openmpi 2 build/asan/a2atune app tc --graph tests/data/graph_snap.txt --kernel tuna --radix 2 --repetitions 1 --warmup 0 --db "$WORK/apps-asan.db"
    run apps/asan-fft 120 $asan mpirun_openmpi 2 build/asan/a2atune app fft --n 10x7x3 --kernel tuna --radix 2 --repetitions 1 --warmup 0 --db "$WORK/apps-asan.db"
    run apps/asan-sweep 120 $asan mpirun_openmpi 2 build/asan/a2atune run "$WORK/apps-asan.ini" --db "$WORK/apps-asan.db" --quiet
else
    fail apps/asan "build/asan/a2atune is missing (make test builds it first)"
fi
unset A2A_CACHE_DIR
