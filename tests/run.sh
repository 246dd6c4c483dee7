#!/bin/bash
# tests/run.sh — the whole test suite of `make test` (after both builds exist).
# Prints one line per test (PASS, FAIL or SKIP) and, last, "N passed, M failed, K skipped";
# exits non-zero when a test failed (a skip alone does not).
#   tests/run.sh [unit] [programs] [matrix] [sanitizers] [e2e] [scripts] [PART...]
# (default: all). A PART is tests/parts/PART.sh, sourced with the helpers below.
set -u
cd "$(dirname "$0")/.."
extra_parts=$(for f in tests/parts/*.sh; do [ -e "$f" ] && basename "$f" .sh; done | tr '\n' ' ')
builtin_parts="unit programs matrix sanitizers e2e scripts"
parts=" ${*:-$builtin_parts $extra_parts} "
want() { [[ "$parts" == *" $1 "* ]]; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d /tmp/a2atune-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export A2A_CACHE_DIR="$WORK/cache"   # graph count matrices recorded during the tests
passed=0 failed=0 skipped=0 failures=""

pass() { passed=$((passed + 1)); printf 'PASS %-44s %s\n' "$1" "${2:-}"; }
fail() { failed=$((failed + 1)); failures="$failures $1"; printf 'FAIL %-44s %s\n' "$1" "$2"; }
# skip NAME REASON: NAME was not run here, and REASON says why (counted, never a failure)
skip() { skipped=$((skipped + 1)); printf 'SKIP %-44s (%s)\n' "$1" "$2"; }

# a part named on the command line that does not exist would run nothing and pass
for p in $parts; do
    [[ " $builtin_parts $extra_parts " == *" $p "* ]] || fail "part/$p" "no such part (parts: $builtin_parts ${extra_parts% })"
done

# run NAME SECONDS CMD...: passes when CMD exits 0 within SECONDS; shows its tail if not
run() {
    local name=$1 limit=$2; shift 2
    local t0=$SECONDS log="$WORK/${name//\//_}.log"
    if timeout -k 10 "$limit" "$@" >"$log" 2>&1; then
        pass "$name" "($((SECONDS - t0)) s)"
    else
        fail "$name" "(exit $?, $((SECONDS - t0)) s; last lines below)"
        tail -n 15 "$log" | sed 's/^/    /'
    fi
}

# launchers as commands (not functions), so that `timeout` can run them
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nn=$1; shift; exec mpirun.openmpi --oversubscribe -n "$n" "$@"\n' > "$WORK/bin/mpirun_openmpi"
printf '#!/bin/sh\nn=$1; shift; exec mpirun.mpich -n "$n" "$@"\n' > "$WORK/bin/mpirun_mpich"
chmod +x "$WORK/bin/"*
export PATH="$WORK/bin:$PATH"
sql() { sqlite3 -batch "$@"; }
# check NAME COMMAND...: passes when COMMAND (usually a [ ... ] test) succeeds
check() {
    local name=$1; shift
    check_why=""   # COMMAND may say why it is false here (holds and end_session do)
    if "$@"; then pass "$name"; else fail "$name" "${check_why:-false: $*}"; fi
}
# holds 'CONDITION': a whole shell condition, for check. A condition that reads $? is
# refused (false, and the check says why): inside holds, $? is the status of holds' own
# call, never that of the command the condition is about. Capture that status on the
# line that runs the command (cmd > out; rc=$?) and test "$rc".
holds() {
    case $1 in
        *'$?'* | *'${?}'*)
            check_why="holds refuses a condition reading \$? (always 0 in there): capture the status as rc=\$? on the command's line: $1"
            return 1 ;;
    esac
    eval "$1"
}
# start_session LOG CMD...: CMD in the background, its output to LOG, as the leader of a
# session of its own (setsid: the shell's background job is no group leader, so setsid
# makes the session in the same process); its pid, which is the session's id, in $session.
# The job is disowned: its end (by end_session's SIGKILL) is not reported as a job's.
start_session() { local log=$1; shift; setsid "$@" > "$log" 2>&1 & session=$!; disown "$session"; }
# end_session SID: SIGKILL to every process of session SID (started by start_session)
# until none is left (zombies aside): true then, false if some still run after 10 s. The
# session, not the leader's process group: Open MPI gives every rank a process group of its
# own. Nothing outside the session is signalled (Linux reuses no id while a process of the
# session holds it), so another checkout's suite running at the same time is safe.
end_session() {
    local sid=$1 alive _
    for _ in $(seq 1 100); do
        alive=$(ps -o pid=,stat= -s "$sid" | awk '$2 !~ /^Z/ { print $1 }')
        [ -n "$alive" ] || return 0
        kill -9 $alive 2>/dev/null
        sleep 0.1
    done
    check_why="session $sid: still running 10 s after SIGKILL: $(ps -o pid=,args= -p "$(echo $alive | tr ' ' ,)" |
        awk '{ $1 = $1; printf "%s%s", sep, $0; sep = "; " }')"
    return 1
}

# ---- unit tests (no MPI launch) --------------------------------------------------
want unit && for t in build/openmpi/tests/unit_*; do
    run "$(basename "$t")" 60 "$t"
done

# ---- MPI test programs: first line "/* ranks: N */" or "/* ranks: N, mpich: M */";
# MPICH busy-polls, so it gets M or at most 8 ranks (the programs take the largest P as
# their argument) ----------------------------------------------------------------------
want programs && for src in tests/test_*.c; do
    name=$(basename "$src" .c)
    ranks=$(sed -n '1s/.*ranks: *\([0-9]*\).*/\1/p' "$src")
    ranks=${ranks:-4}
    run "$name/openmpi" 600 mpirun_openmpi "$ranks" "build/openmpi/tests/$name"
    m=$(sed -n '1s/.*mpich: *\([0-9]*\).*/\1/p' "$src")
    m=${m:-$(( ranks < 8 ? ranks : 8 ))}
    run "$name/mpich" 600 mpirun_mpich "$m" "build/mpich/tests/$name" "$m"
done

# ---- the correctness matrix: every kernel, P = 1..16, in one launch per library -----
# check_matrix NAME DB SECTIONS: every configuration that could run is ok, none missing
check_matrix() {
    local name=$1 db=$2 sections=$3 expected
    expected=$(OMPI_MCA_rmaps_base_oversubscribe=1 mpirun_openmpi 16 ./a2atune run tests/sweeps/matrix.ini \
               --section "$sections" --dry-run 2>/dev/null | tail -1 | sed 's/.*: \([0-9]*\) to run.*/\1/')
    local ok bad
    ok=$(sql "$db" "SELECT count(*) FROM results WHERE status = 'ok'")
    bad=$(sql "$db" "SELECT count(*) FROM results WHERE status NOT IN ('ok', 'skipped')")
    if [ "$ok" = "$expected" ] && [ "$bad" = 0 ] && [ "$expected" -gt 0 ]; then
        pass "$name: $ok configurations ok"
    else
        fail "$name" "expected $expected ok, got $ok ok and $bad wrong/error"
        sql "$db" "SELECT kernel, P, S, dist, status, message FROM results WHERE status NOT IN ('ok','skipped') LIMIT 5" | sed 's/^/    /'
    fi
}
if want matrix; then
run matrix/openmpi 900 mpirun_openmpi 16 ./a2atune run tests/sweeps/matrix.ini --db "$WORK/matrix-openmpi.db" --quiet
check_matrix matrix/openmpi/rows "$WORK/matrix-openmpi.db" "$(sed -n 's/^\[\(.*\)\]$/\1/p' tests/sweeps/matrix.ini | paste -sd,)"
run matrix/mpich 900 mpirun_mpich 16 build/mpich/a2atune run tests/sweeps/matrix.ini --section uniform,nonuniform,uniform_radix,vendor_baselines,vendor_baselines_v --db "$WORK/matrix-mpich.db" --quiet
check_matrix matrix/mpich/rows "$WORK/matrix-mpich.db" uniform,nonuniform,uniform_radix,vendor_baselines,vendor_baselines_v

# every distribution with the radix kernels, P = 1..17, 24, 32 in one launch of 32 ranks
run distributions/openmpi 900 mpirun_openmpi 32 ./a2atune run tests/sweeps/distributions.ini --db "$WORK/dist.db" --quiet
check distributions/all-ok [ "$(sql "$WORK/dist.db" "SELECT count(*) FROM results WHERE status NOT IN ('ok', 'skipped')")" = 0 ]
check distributions/every-dist-ran [ "$(sql "$WORK/dist.db" "SELECT count(DISTINCT dist) FROM results WHERE status = 'ok' AND family = 'nonuniform'")" = 8 ]
fi

# ---- AddressSanitizer + UndefinedBehaviorSanitizer build on the small P of the matrix -
if want sanitizers; then
cat > "$WORK/asan.supp" <<'SUPP'
leak:libmpi.so
leak:libopen-pal.so
leak:libopen-rte.so
leak:libhwloc.so
leak:libpmix.so
leak:libevent
leak:mca_
SUPP
sed -e 's/^P = .*/P = 1, 2, 3, 4/' -e "s|\.\./\.\./workloads|$PWD/workloads|g" tests/sweeps/matrix.ini > "$WORK/matrix-small.ini"
# Open MPI unloads its plugins at exit, which hides their frames from LeakSanitizer
# ("unknown module"): keep them loaded, and unwind slowly so suppressions can match.
OMPI_MCA_mca_base_component_disable_dlclose=1 \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 LSAN_OPTIONS="suppressions=$WORK/asan.supp" \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run sanitizers/matrix-P1-4 600 mpirun_openmpi 4 build/asan/a2atune run "$WORK/matrix-small.ini" --db "$WORK/asan.db" --quiet
# the tuner on 2 ranks, screens and forced library algorithms included
OMPI_MCA_mca_base_component_disable_dlclose=1 \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 LSAN_OPTIONS="suppressions=$WORK/asan.supp" \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run sanitizers/tune-P2 300 mpirun_openmpi 2 build/asan/a2atune tune tests/sweeps/tuner_screen.ini --budget 30% --db "$WORK/asan-tune.db" --no-files --quiet
check sanitizers/tune-screened [ "$(sql "$WORK/asan-tune.db" "SELECT count(*) > 0 FROM results WHERE chosen_by = 'tuner-screen' AND status = 'ok'")" = 1 ]
fi

# ---- end to end: the command line, quick.ini, kill + resume, timeouts, bad input -----
if want e2e; then
A2A=./a2atune
count() { sql "$1" "SELECT count(*) FROM results WHERE $2"; }

$A2A --help > "$WORK/help.txt"; rc=$?
check cli/help holds '[ $rc -eq 0 ] && grep -q "usage:" "$WORK/help.txt"'
# every kernel the registry holds (list --json, all families) has its row in the table of
# `a2atune list` (the lines up to its first blank one), and no other row is there
$A2A list > "$WORK/list.txt"; rc=$?
$A2A list --json > "$WORK/list.json"; rc_json=$?
/usr/bin/python3 -c 'import json, sys
for k in json.load(open(sys.argv[1]))["kernels"]:
    print(k["family"], k["name"])' "$WORK/list.json" > "$WORK/list-registry.txt" 2>&1; rc_registry=$?
awk 'NR > 1 && /^$/ { exit } NR > 1 && /^[^ ]/ { print $1, $2 }' "$WORK/list.txt" > "$WORK/list-rows.txt"
diff <(sort "$WORK/list-registry.txt") <(sort "$WORK/list-rows.txt") > "$WORK/list.diff"; rc_diff=$?
check cli/list-has-every-kernel holds '[ $rc -eq 0 ] && [ $rc_json -eq 0 ] && [ $rc_registry -eq 0 ] &&
    [ -s "$WORK/list-registry.txt" ] && [ $rc_diff -eq 0 ]'
[ $rc_diff -eq 0 ] || sed 's/^/    /' "$WORK/list.diff"
$A2A frobnicate 2> "$WORK/cli.err"; rc=$?
check cli/unknown-command holds '[ $rc -eq 2 ] && grep -q "unknown command" "$WORK/cli.err"'
mpirun_openmpi 2 $A2A run 2> "$WORK/cli.err"; rc=$?
check cli/run-without-sweep holds '[ $rc -eq 2 ] && [ $(grep -c "a2atune:" "$WORK/cli.err") -eq 1 ]'
mpirun_openmpi 2 $A2A run sweeps/quick.ini --fast 2> "$WORK/cli.err"; rc=$?
check cli/unknown-option holds '[ $rc -eq 2 ] && grep -q "unknown option" "$WORK/cli.err"'
mpirun_openmpi 2 $A2A run "$WORK/missing.ini" 2> "$WORK/cli.err"; rc=$?
check cli/missing-sweep holds '[ $rc -eq 2 ] && grep -q "cannot read the sweep file" "$WORK/cli.err"'

# quick.ini as `make run` runs it
Q="$WORK/quick.db"
run e2e/quick-run 300 mpirun_openmpi 4 $A2A run sweeps/quick.ini --db "$Q"
total=$(mpirun_openmpi 4 $A2A run sweeps/quick.ini --dry-run 2>/dev/null | tail -1 | cut -d' ' -f1)
cores=$(nproc)
check e2e/quick-all-rows holds '[ "${total:-0}" -gt 0 ] && [ "$(count "$Q" 1)" = "$total" ]'
check e2e/quick-all-ok [ "$(count "$Q" "status NOT IN ('ok', 'skipped')")" = 0 ]
samples=$(sql "$Q" "SELECT count(*) FROM samples")
check e2e/quick-samples holds '[ "${samples:-0}" -gt 0 ] && [ "$samples" = "$(sql "$Q" "SELECT sum(iterations) FROM results WHERE status = '"'ok'"'")" ]'
check e2e/quick-quartiles-ordered [ "$(count "$Q" "status = 'ok' AND NOT (min_s <= q1_s AND q1_s <= median_s AND median_s <= q3_s AND q3_s <= max_s)")" = 0 ]
check e2e/quick-provenance [ "$(sql "$Q" "SELECT mpi_library || ',' || world_size || ',' || oversubscribed || ',' || (length(sweep_text) > 0) || ',' || (git_revision <> '') FROM runs")" = "Open MPI,4,$(( 4 > cores )),1,1" ]
# every rank of the launch is alive while the first P are measured: 4 ranks beyond the cores flag every row
check e2e/quick-oversubscribed-flag [ "$(count "$Q" "oversubscribed IS NOT $(( 4 > cores )) OR idle_ranks IS NOT 4 - P")" = 0 ]

# kill -9 part-way, then --resume: nothing lost, nothing duplicated, nothing redone
R="$WORK/resume.db"
start_session "$WORK/resume1.log" mpirun.openmpi --oversubscribe -n 4 $A2A run tests/sweeps/resume.ini --db "$R" --quiet
for _ in $(seq 1 300); do
    n=$(count "$R" 1 2>/dev/null)
    [ "${n:-0}" -ge 8 ] && break
    sleep 0.1
done
check e2e/kill-ends-the-whole-launch end_session "$session"
sql "$R" "SELECT id, config_key, median_s FROM results ORDER BY id" > "$WORK/before-resume.txt"
before=$(wc -l < "$WORK/before-resume.txt")
total=$(mpirun_openmpi 4 $A2A run tests/sweeps/resume.ini --dry-run 2>/dev/null | tail -1 | cut -d' ' -f1)
check e2e/killed-part-way holds '[ "$before" -ge 8 ] && [ "$before" -lt "$total" ]'
run e2e/resume 300 mpirun_openmpi 4 $A2A run tests/sweeps/resume.ini --db "$R" --resume --quiet
check e2e/resume-complete holds '[ "${total:-0}" -gt 0 ] && [ "$(count "$R" 1)" = "$total" ]'
check e2e/resume-no-duplicates [ "$(sql "$R" "SELECT count(DISTINCT config_key) || ',' || count(DISTINCT run_id) FROM results")" = "$total,1" ]
sql "$R" "SELECT id, config_key, median_s FROM results ORDER BY id" | head -n "$before" > "$WORK/after-resume.txt"
check e2e/resume-kept-earlier-rows cmp -s "$WORK/before-resume.txt" "$WORK/after-resume.txt"
check e2e/resume-run-done [ "$(sql "$R" "SELECT status FROM runs")" = done ]

# a configuration over its time limit: recorded as timeout, launch ended with 3, resumable
T="$WORK/timeout.db"
mpirun_openmpi 2 $A2A run tests/sweeps/timeout.ini --db "$T" --quiet > "$WORK/timeout.log" 2>&1; rc=$?
check e2e/timeout-exit-3 [ $rc -eq 3 ]
check e2e/timeout-recorded [ "$(sql "$T" "SELECT section || ':' || status FROM results")" = "slow:timeout" ]
run e2e/timeout-resume 120 mpirun_openmpi 2 $A2A run tests/sweeps/timeout.ini --db "$T" --resume --quiet
check e2e/timeout-not-redone [ "$(sql "$T" "SELECT group_concat(status) FROM (SELECT status FROM results ORDER BY id)")" = "timeout,ok,ok,ok,ok" ]

# counters: every requested event has a row per configuration; unavailable ones say why
C="$WORK/counters.db"
run e2e/counters-run 120 mpirun_openmpi 2 $A2A run tests/sweeps/counters.ini --db "$C" --quiet
check e2e/counters-rows [ "$(sql "$C" "SELECT count(*) FROM counters")" = 33 ]
check e2e/counters-task-clock [ "$(sql "$C" "SELECT count(*) FROM counters WHERE event = 'task-clock' AND available = 1 AND max_value > 0 AND sum_value >= max_value AND calls = 5")" = 3 ]
check e2e/counters-unavailable-say-why [ "$(sql "$C" "SELECT count(*) FROM counters WHERE available = 0 AND (reason IS NULL OR reason = '' OR max_value IS NOT NULL)")" = 0 ]
$A2A counters > "$WORK/counters.txt"; rc=$?
check e2e/counters-command holds '[ $rc -eq 0 ] && grep -q "task-clock" "$WORK/counters.txt" && grep -q "PAPI_TOT_CYC" "$WORK/counters.txt"'
mpirun_openmpi 2 $A2A run tests/sweeps/counters.ini --db "$C" --counters "task-clock,,page-faults" 2> "$WORK/cli.err"; rc=$?
check e2e/counters-bad-list holds '[ $rc -eq 2 ] && grep -q "^a2atune: --counters:" "$WORK/cli.err"'

# bad input: one line naming the problem (file:line), exit 2, the database untouched
dump() { sql "$1" .dump | sha256sum; }
good=$(dump "$Q")
for f in tests/bad/*.ini; do
    want=$(sed -n '1s/^; expect: //p' "$f")
    mpirun_openmpi 2 $A2A run "$f" --db "$Q" > /dev/null 2> "$WORK/bad.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$WORK/bad.err" && [ "$(grep -c "^a2atune:" "$WORK/bad.err")" -eq 1 ]; then
        pass "bad-input/$(basename "$f")"
    else
        fail "bad-input/$(basename "$f")" "exit $rc, wanted '$want', got: $(head -c 300 "$WORK/bad.err")"
    fi
done
check bad-input/database-untouched holds '[ -s "$Q" ] && [ "$(dump "$Q")" = "$good" ]'
bad_db() { # bad_db NAME PATH EXPECTED-TEXT
    mpirun_openmpi 2 $A2A run sweeps/quick.ini --db "$2" > /dev/null 2> "$WORK/bad.err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$3" "$WORK/bad.err" && [ "$(grep -c "^a2atune:" "$WORK/bad.err")" -eq 1 ]; then
        pass "bad-db/$1"
    else
        fail "bad-db/$1" "exit $rc, wanted '$3', got: $(head -c 300 "$WORK/bad.err")"
    fi
}
bad_db missing-directory "$WORK/no/such/dir/a2a.db" "cannot open database"
bad_db directory "$WORK" "not a regular file"
echo "not a database, but precious" > "$WORK/text.db"; sum_text=$(sha256sum < "$WORK/text.db")
bad_db text-file "$WORK/text.db" "not an a2atune database"
check bad-db/text-file-untouched [ "$(sha256sum < "$WORK/text.db")" = "$sum_text" ]
sql "$WORK/other.db" "CREATE TABLE accounts(id INTEGER, owner TEXT); INSERT INTO accounts VALUES (1, 'x');"
sum_other=$(dump "$WORK/other.db")
bad_db foreign-sqlite "$WORK/other.db" "not an a2atune database"
check bad-db/foreign-sqlite-untouched holds '[ "$(dump "$WORK/other.db")" = "$sum_other" ] && [ ! -e "$WORK/other.db-wal" ]'
bad_db unwritable-place "/proc/a2a.db" "cannot open database"
fi

# ---- the Python tools (scripts/a2a) on a fixture database made by a real sweep ---------
if want scripts; then
    tests/scripts/run.sh > "$WORK/scripts.log" 2>&1
    line=$(tail -n 1 "$WORK/scripts.log")
    p=$(echo "$line" | sed -n 's/^scripts: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/^scripts: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -n "$p" ] && [ "$f" = 0 ] && [ "$p" -gt 0 ]; then
        passed=$((passed + p)); echo "PASS scripts/* ($p tests: $(grep '^time:' "$WORK/scripts.log"))"
    else
        failed=$((failed + ${f:-1})); failures="$failures scripts"
        echo "FAIL scripts ($line)"; tail -n 30 "$WORK/scripts.log" | sed 's/^/    /'
    fi
    # the tests unittest skipped ("NAME ... skipped 'REASON'"), each with its reason
    while IFS=$'\t' read -r name why; do
        skip "scripts/$name" "$why"
    done < <(sed -n "s/^\(.*\) \.\.\. skipped '\(.*\)'\$/\1\t\2/p" "$WORK/scripts.log")
fi

# ---- further parts (tests/parts/*.sh), each a feature's own tests ------------------------
for part in $extra_parts; do
    want "$part" && . "tests/parts/$part.sh"
done

echo
[ $failed -eq 0 ] || echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
