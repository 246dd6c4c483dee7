# tests/parts/hint.sh — HINT through a2atune (sourced by tests/run.sh: `tests/run.sh hint`).
# The kernel's own correctness matrix is tests/test_hint.c (part `programs`), the copies'
# tests/unit_nt_memcpy.c and the orders' tests/unit_hint_order.c (part `unit`). Here: the
# shared allocation mode of the runner and its refusals, the sweep end to end with the
# vendor on shared buffers, the offline tuning round trip (database -> scripts/a2a
# hint-tune -> JSON -> the tuned kernel obeys it), copybench, the forced NT level, and the
# sanitizer and MPICH builds on a small hint sweep.
if want hint; then
H="$WORK/hint"
mkdir -p "$H"
A2A=./a2atune

# -- the sweep end to end: every configuration ok, vendor next to hint on shared buffers
run hint/sweep 120 mpirun_openmpi 4 $A2A run tests/sweeps/hint.ini --db "$H/hint.db" --quiet
expected=$(mpirun_openmpi 4 $A2A run tests/sweeps/hint.ini --dry-run 2>/dev/null | tail -1 | sed 's/.*: \([0-9]*\) to run.*/\1/')
check hint/sweep-all-ok holds '[ "$(sql "$H/hint.db" "SELECT count(*) FROM results WHERE status = '"'ok'"'")" = "$expected" ] && [ "$expected" -gt 0 ]'
check hint/sweep-shared-vendor [ "$(sql "$H/hint.db" "SELECT count(*) FROM results WHERE kernel = 'vendor' AND params LIKE '%\"alloc\":\"shared\"%'")" -gt 0 ]
check hint/sweep-every-order [ "$(sql "$H/hint.db" "SELECT count(DISTINCT json_extract(params, '$.order')) FROM results WHERE kernel = 'hint' AND status = 'ok'")" = 4 ]
check hint/sweep-virtual-nodes [ "$(sql "$H/hint.db" "SELECT count(*) FROM results WHERE kernel = 'hint' AND ppn > 0 AND status = 'ok' AND messages > 0")" -gt 0 ]

# -- alloc: both values in one section, refusals with file:line
cat > "$H/mixed.ini" <<'INI'
[mixed]
family = uniform
kernels = vendor, hint
P = 2
S = 1K
order = row
threshold = 0
alloc = private, shared
iterations = 2
INI
mpirun_openmpi 2 $A2A run "$H/mixed.ini" --db "$H/mixed.db" --quiet > "$H/mixed.log" 2>&1; rc=$?
check hint/alloc-mixed-runs [ $rc -eq 0 ]
check hint/alloc-private-hint-skipped [ "$(sql "$H/mixed.db" "SELECT status || ':' || message FROM results WHERE kernel = 'hint' AND params NOT LIKE '%shared%'")" = "skipped:hint needs alloc = shared" ]
check hint/alloc-both-vendors [ "$(sql "$H/mixed.db" "SELECT count(*) FROM results WHERE kernel = 'vendor' AND status = 'ok'")" = 2 ]
bad_hint() { # bad_hint NAME EXPECTED-TEXT (the sweep is $H/bad.ini)
    mpirun_openmpi 2 $A2A run "$H/bad.ini" --db "$H/bad.db" > /dev/null 2> "$H/bad.err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$2" "$H/bad.err" && [ "$(grep -c "^a2atune:" "$H/bad.err")" -eq 1 ]; then
        pass "hint/bad-input/$1"
    else
        fail "hint/bad-input/$1" "exit $rc, wanted '$2', got: $(head -c 300 "$H/bad.err")"
    fi
}
printf '[s]\nfamily = uniform\nkernels = hint\nS = 1K\norder = row\nthreshold = 0\nalloc = private\n' > "$H/bad.ini"
bad_hint private-only "bad.ini:7: kernel hint needs alloc = shared"
printf '[s]\nfamily = uniform\nkernels = vendor\nS = 1K\nalloc = shard\n' > "$H/bad.ini"
bad_hint unknown-alloc "bad.ini:5: alloc = 'shard': not private or shared"
printf '[s]\nfamily = sdde\nkernels = reference\npattern = stencil2d:4x4\nalloc = shared\n' > "$H/bad.ini"
bad_hint sparse-shared "bad.ini:5: alloc = shared is for the uniform, nonuniform and inplace families"
printf '[s]\nfamily = uniform\nkernels = hint\nS = 1K\norder = spiral\nthreshold = 0\nalloc = shared\n' > "$H/bad.ini"
bad_hint unknown-order "bad.ini:5: order = spiral"

# -- the offline tuning round trip
scripts/a2a hint-tune --db "$H/hint.db" --out "$H/tuning.json" > "$H/tune.txt" 2>&1; rc=$?
check hint/tune-writes [ $rc -eq 0 -a -s "$H/tuning.json" ]
/usr/bin/python3 - "$H/hint.db" "$H/tuning.json" > "$H/tune-check.txt" 2>&1 <<'PY'
# every rule's measured winner is the least median of the fixed-order hint rows at its P, S
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
doc = json.load(open(sys.argv[2]))
assert doc["format"] == "a2atune-hint-tuning" and doc["version"] == 1, "format"
rules = doc["rules"]
assert rules, "no rules"
best = {}
for P, S, params, m in db.execute("SELECT P, S, params, median_s FROM results WHERE kernel = 'hint' AND status = 'ok'"):
    p = json.loads(params)
    if p["order"] in ("row", "column", "hilbert") and p.get("ppn", 0) == 0:
        if (P, S) not in best or m < best[(P, S)][0]:
            best[(P, S)] = (m, p["order"], p["threshold"])
seen = set()
for r in rules:
    for m in r["measured"]:
        key = (r["P"], m["S"])
        assert abs(best[key][0] - m["median_s"]) < 1e-12, "not the least median at %s" % (key,)
        assert best[key][0] == m["median_s"], key
        assert r["S_min"] <= m["S"] and (r["S_max"] is None or m["S"] <= r["S_max"]), key
        seen.add(key)
assert seen == set(best), "rules miss %s" % (set(best) - seen)
for P in {r["P"] for r in rules}:   # contiguous ranges from 0 to no end
    rs = [r for r in rules if r["P"] == P]
    assert rs[0]["S_min"] == 0 and rs[-1]["S_max"] is None, P
    for a, b in zip(rs, rs[1:]):
        assert b["S_min"] == a["S_max"] + 1, (a, b)
print("ok: %d rules cover %d measured (P, S)" % (len(rules), len(seen)))
PY
rc=$?
check hint/tune-picks-least-median holds '[ $rc -eq 0 ] || { cat "$H/tune-check.txt"; false; }'
run hint/tune-obeyed 120 mpirun_openmpi 4 build/openmpi/tests/test_hint --check-tuning "$H/tuning.json"
printf '[tuned]\nfamily = uniform\nkernels = hint\nP = 2..4\nS = 64, 4K, 64K, 100K\norder = tuned\nthreshold = 0\nalloc = shared\niterations = 3\n' > "$H/tuned.ini"
A2A_HINT_TUNING_FILE="$H/tuning.json" run hint/tuned-sweep 120 mpirun_openmpi 4 $A2A run "$H/tuned.ini" --db "$H/tuned.db" --quiet
check hint/tuned-sweep-ok [ "$(sql "$H/tuned.db" "SELECT count(*) FROM results WHERE status = 'ok'")" = 12 ]
env -u A2A_HINT_TUNING_FILE mpirun_openmpi 2 $A2A run "$H/tuned.ini" --db "$H/untuned.db" --quiet > "$H/untuned.log" 2>&1; rc=$?
check hint/tuned-without-file-fails holds '[ $rc -eq 1 ] && grep -q "A2A_HINT_TUNING_FILE is not set" "$H/untuned.log" && [ "$(sql "$H/untuned.db" "SELECT count(*) FROM results WHERE status = '"'error'"' AND P = 2")" = 4 ]'

# -- copybench: rows and metrics in the database; its command line
run hint/copybench 60 $A2A copybench --db "$H/copy.db" --sizes 4K,1M --samples 3 --min-time 0.0005 --threads 2
check hint/copybench-rows [ "$(sql "$H/copy.db" "SELECT count(*) FROM results WHERE family = 'copy' AND status = 'ok' AND iterations = 3")" = 12 ]
check hint/copybench-metrics [ "$(sql "$H/copy.db" "SELECT count(*) FROM metrics m JOIN results r ON r.id = m.result_id WHERE r.family = 'copy' AND m.name = 'GB/s' AND m.value > 0")" = 12 ]
check hint/copybench-provenance [ "$(sql "$H/copy.db" "SELECT section || ',' || status || ',' || (l2_bytes > 0) FROM runs")" = "copybench,done,1" ]
$A2A copybench --help > "$H/cb.txt"; rc=$?
check hint/copybench-help holds '[ $rc -eq 0 ] && grep -q "usage: a2atune copybench" "$H/cb.txt"'
$A2A copybench --sizes 0 2> "$H/cb.err"; rc=$?
check hint/copybench-bad-size holds '[ $rc -eq 2 ] && grep -q "outside 1..1TiB" "$H/cb.err"'
$A2A copybench --fast 2> "$H/cb.err"; rc=$?
check hint/copybench-bad-option holds '[ $rc -eq 2 ] && grep -q "unknown option" "$H/cb.err"'
mpirun_openmpi 2 $A2A copybench --db "$H/copy2.db" --sizes 4K 2> "$H/cb.err" > /dev/null; rc=$?
check hint/copybench-one-process holds '[ $rc -eq 2 ] && grep -q "without mpirun" "$H/cb.err"'

# -- the forced non-temporal level
if grep -qw sse2 /proc/cpuinfo; then
    A2A_NT_ISA=sse2 build/openmpi/tests/unit_nt_memcpy --selected > "$H/sse2.txt" 2>&1; rc=$?
    check hint/nt-isa-forced holds '[ $rc -eq 0 ] && grep -q "selected: sse2" "$H/sse2.txt"'
else
    skip hint/nt-isa-forced "this CPU has no sse2 (/proc/cpuinfo)"
fi

# -- AddressSanitizer + UBSan: a small hint sweep and copybench
if build/asan/a2atune list 2>/dev/null | grep -q '^uniform *hint'; then
    printf 'leak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\nleak:libhwloc.so\nleak:libpmix.so\nleak:libevent\nleak:mca_\n' > "$H/asan.supp"
    sed -e 's/^P = 1..4/P = 1..3/' -e 's/^S = 64, 4K, 64K/S = 64, 4K/' tests/sweeps/hint.ini > "$H/hint-small.ini"
    export OMPI_MCA_mca_base_component_disable_dlclose=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 LSAN_OPTIONS="suppressions=$H/asan.supp" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    run hint/sanitizers-sweep 300 mpirun_openmpi 3 build/asan/a2atune run "$H/hint-small.ini" --db "$H/asan.db" --quiet
    run hint/sanitizers-copybench 60 build/asan/a2atune copybench --db "$H/asan-copy.db" --sizes 4K,64K --samples 2 --min-time 0.0002 --quiet
    unset OMPI_MCA_mca_base_component_disable_dlclose ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
else
    fail hint/sanitizers "build/asan/a2atune has no hint kernel (make the sanitizer build first)"
fi

# -- MPICH: the shared windows under the other library (busy-polling: P <= 3)
sed -e 's/^P = 1..4/P = 1..3/' -e 's/^P = 2, 4/P = 2/' -e 's/^P = 4$/P = 2/' -e 's/^ppn = 1, 2/ppn = 1/' tests/sweeps/hint.ini > "$H/hint-mpich.ini"
run hint/mpich-sweep 180 mpirun_mpich 3 build/mpich/a2atune run "$H/hint-mpich.ini" --db "$H/mpich.db" --quiet
check hint/mpich-sweep-all-ok [ "$(sql "$H/mpich.db" "SELECT count(*) FROM results WHERE status NOT IN ('ok', 'skipped')")" = 0 ]
fi
