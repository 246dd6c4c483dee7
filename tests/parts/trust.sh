# tests/parts/trust.sh — runs a user can trust (issue "Trustworthy runs"): --resume on the
# configuration key whatever the sweep text or launch size, race-free creation, live runs
# refused, dead runs marked interrupted, the first failed write ends the launch,
# run-sweep.sh sums its launches, sweep lines of any length, small bad-input holes, graph
# closures that say what they do. Sourced by tests/run.sh (run, check, holds, skip, sql, $WORK,
# mpirun_openmpi, start_session, end_session). About 40 s.
TR="$WORK/trust"
mkdir -p "$TR"
A2A=./a2atune
one_line() { [ "$(grep -c "^a2atune: $2" "$1")" -eq 1 ]; }   # exactly one such line

# ---- resume across an edited sweep and another launch size ----------------------------
cat > "$TR/r.ini" <<'EOF'
iterations = 2
warmup = 0
[u]
family = uniform
kernels = vendor, tra
P = 2..4
S = 8, 64
radix = 2..P
EOF
RD="$TR/r.db"
mpirun_openmpi 4 $A2A run "$TR/r.ini" --db "$RD" --quiet > /dev/null 2>&1
first=$(sql "$RD" "SELECT count(*) FROM results WHERE status = 'ok'")
sed -i '1i ; a comment added after the first launch' "$TR/r.ini"
mpirun_openmpi 2 $A2A run "$TR/r.ini" --db "$RD" --resume > /dev/null 2> "$TR/r2.err"; rc=$?
check trust/resume-edited-smaller-launch-redoes-nothing holds \
    '[ $rc -eq 0 ] && [ "$first" -gt 10 ] && [ "$(sql "$RD" "SELECT count(*) || \",\" || count(DISTINCT run_id) FROM results")" = "$first,1" ] && grep -q "nothing left to run" "$TR/r2.err"'
check trust/resume-says-what-it-skips holds 'grep -q -- "--resume: $first already ok in other runs" "$TR/r2.err"'
# a new size: only it runs (P = 2 at -n 2; P = 3, 4 recorded as skipped); the dry run says so first
sed -i 's/^S = 8, 64$/S = 8, 64, 256/' "$TR/r.ini"
mpirun_openmpi 2 $A2A run "$TR/r.ini" --db "$RD" --resume --dry-run > "$TR/r3.out" 2>&1
check trust/resume-dry-run-counts-what-is-left [ "$(tail -n 1 "$TR/r3.out")" = "$((first + first / 2)) configurations: 2 to run, $((first / 2 - 2)) skipped, $first already recorded" ]
mpirun_openmpi 2 $A2A run "$TR/r.ini" --db "$RD" --resume --quiet > /dev/null 2>&1; rc=$?
check trust/resume-runs-only-the-new-size holds \
    '[ $rc -eq 0 ] && [ "$(sql "$RD" "SELECT group_concat(status || P, \",\") FROM (SELECT status, P FROM results WHERE run_id = 2 ORDER BY id)")" = "ok2,ok2,skipped3,skipped3,skipped3,skipped4,skipped4,skipped4,skipped4" ]'

# ---- two launches creating one new database at once -----------------------------------
printf 'iterations = 1\nwarmup = 0\n[a]\nfamily = uniform\nkernels = vendor\nP = 1\nS = 8\n' > "$TR/a.ini"
sed 's/S = 8/S = 16/' "$TR/a.ini" > "$TR/b.ini"
raced=0
for i in $(seq 1 10); do   # about one round in ten lost the race before the header was read as one snapshot
    rm -f "$TR/c.db"*
    mpirun_openmpi 1 $A2A run "$TR/a.ini" --db "$TR/c.db" --quiet > /dev/null 2> "$TR/c1.err" & pid=$!
    mpirun_openmpi 1 $A2A run "$TR/b.ini" --db "$TR/c.db" --quiet > /dev/null 2> "$TR/c2.err"; r2=$?
    wait $pid; r1=$?
    rows=$(sql "$TR/c.db" "SELECT count(*) FROM results")
    if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ "$rows" = 2 ]; then raced=$((raced + 1))
    else { echo "round $i: exits $r1 $r2, $rows rows"; cat "$TR/c1.err" "$TR/c2.err"; } >> "$TR/race.err"; fi
done
check trust/concurrent-create [ $raced -eq 10 ]
[ $raced -eq 10 ] || sed 's/^/    /' "$TR/race.err"   # what the lost rounds said, for the log

# ---- a live run refuses a second launch; a dead one becomes interrupted ----------------
LD="$TR/live.db"
# resume.ini with ten times its iterations: live for the whole of the two refusals below
sed 's/^iterations = 400$/iterations = 4000/' tests/sweeps/resume.ini > "$TR/live.ini"
start_session "$TR/live1.log" mpirun.openmpi --oversubscribe -n 4 $A2A run "$TR/live.ini" --db "$LD" --quiet
live=$session
for _ in $(seq 1 300); do
    [ "$(sql "$LD" "SELECT count(*) FROM results" 2>/dev/null)" -ge 2 ] 2>/dev/null && break
    sleep 0.1
done
mpirun_openmpi 2 $A2A run "$TR/live.ini" --db "$LD" --resume --quiet > /dev/null 2> "$TR/live2.err"; rc=$?
check trust/live-run-refuses-resume holds '[ $rc -eq 2 ] && one_line "$TR/live2.err" ".*: run 1 is live" && [ "$(grep -c "^a2atune:" "$TR/live2.err")" -eq 1 ]'
mpirun_openmpi 2 $A2A run "$TR/live.ini" --db "$LD" --quiet > /dev/null 2> "$TR/live3.err"; rc=$?
check trust/live-run-refuses-a-new-launch holds '[ $rc -eq 2 ] && one_line "$TR/live3.err" ".*: run 1 is live" && [ "$(sql "$LD" "SELECT count(*) FROM runs")" = 1 ]'
check trust/kill-ends-the-whole-launch end_session "$live"
before=$(sql "$LD" "SELECT status FROM runs WHERE id = 1")
mpirun_openmpi 1 $A2A run "$TR/a.ini" --db "$LD" --quiet > /dev/null 2> "$TR/live4.err"; rc=$?
check trust/dead-run-marked-interrupted holds \
    '[ "$before" = running ] && [ $rc -eq 0 ] && [ "$(sql "$LD" "SELECT group_concat(status) FROM runs ORDER BY id")" = "interrupted,done" ] && one_line "$TR/live4.err" "1 earlier run(s) in .* marked interrupted"'

# ---- a simulated run is live while its process runs a2atune ----------------------------
# It has no heartbeat (SMPI cannot host the thread) and a simulated host; before, every such
# run looked dead a minute after it started and a second launch of its sweep ran beside it.
# Here: run 2 stands for a simulation whose process (argv names a2atune) lives, run 3 for
# one whose pid now belongs to an unrelated process.
SD="$TR/sim.db"
mpirun_openmpi 1 $A2A run "$TR/a.ini" --db "$SD" --quiet > /dev/null 2>&1
ident=$(sql "$SD" "SELECT substr(config_key, length(section) + 2) FROM results")
bash -c 'exec -a a2atune-simulation sleep 300' & fake=$!
sleep 300 & other=$!
long_ago="strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-10 minutes')"
for pid in $fake $other; do
    sql "$SD" "INSERT INTO runs (started, status, host, pid, heartbeat, backend, planned) VALUES ($long_ago, 'running', 'df-0', $pid, $long_ago, 'simgrid', '$ident')"
done
sql "$SD" "UPDATE runs SET planned = NULL WHERE id = 3"   # only run 2 plans a2a's configuration
mpirun_openmpi 1 $A2A run "$TR/a.ini" --db "$SD" --quiet > /dev/null 2> "$TR/sim1.err"; rc=$?
check trust/live-simulated-run-refuses-a-launch holds \
    '[ $rc -eq 2 ] && one_line "$TR/sim1.err" ".*: run 2 is live" && [ "$(sql "$SD" "SELECT group_concat(status) FROM runs ORDER BY id")" = "done,running,interrupted" ]'
kill $fake $other; wait $fake $other 2>/dev/null
mpirun_openmpi 1 $A2A run "$TR/a.ini" --db "$SD" --quiet > /dev/null 2> "$TR/sim2.err"; rc=$?
check trust/dead-simulated-run-marked-interrupted holds \
    '[ $rc -eq 0 ] && [ "$(sql "$SD" "SELECT group_concat(status) FROM runs ORDER BY id")" = "done,interrupted,interrupted,done" ]'

# ---- the first failed write (full disk) ends the launch --------------------------------
FULL="$TR/full"
mkdir -p "$FULL"
if mount -t tmpfs -o size=256k tmpfs "$FULL" 2>/dev/null; then
    printf 'iterations = 100\nwarmup = 0\n[many]\nfamily = uniform\nkernels = vendor\nP = 1\nS = 1..400\n' > "$TR/full.ini"
    mpirun_openmpi 1 $A2A run "$TR/full.ini" --db "$FULL/f.db" > /dev/null 2> "$TR/full.err"; rc=$?
    stored=$(sql "$FULL/f.db" "SELECT count(*) FROM results" 2>/dev/null)
    check trust/full-disk-ends-at-first-failure holds \
        '[ $rc -eq 2 ] && one_line "$TR/full.err" ".*: cannot store uniform/vendor P=1 S=[0-9]* .*: database or disk is full; the launch ends here" && [ "${stored:-0}" -gt 0 ] && [ "$stored" -lt 400 ] && [ "$(grep -c "^\[" "$TR/full.err")" -le "$((stored + 1))" ]'
    check trust/full-disk-nothing-lost [ "$(sql "$FULL/f.db" "PRAGMA integrity_check")" = ok ]
    mount -o remount,size=64m "$FULL"
    mpirun_openmpi 1 $A2A run "$TR/full.ini" --db "$FULL/f.db" --resume --quiet > /dev/null 2>&1; rc=$?
    check trust/full-disk-resume-completes holds '[ $rc -eq 0 ] && [ "$(sql "$FULL/f.db" "SELECT count(DISTINCT config_key) || \",\" || count(*) FROM results")" = "400,400" ]'
    umount "$FULL"
else
    skip trust/full-disk "cannot mount a tmpfs here"
fi

# ---- scripts/run-sweep.sh sums every launch; a timeout makes a non-zero exit -----------
scripts/run-sweep.sh 2 tests/sweeps/timeout.ini "$TR/t.db" --quiet > /dev/null 2> "$TR/rs.err"; rc=$?
check trust/run-sweep-sums-launches holds \
    '[ $rc -eq 3 ] && [ "$(tail -n 1 "$TR/rs.err")" = "run-sweep: 2 launch(es): 4 ok, 0 wrong, 0 error, 0 skipped, 1 timeout; exit 3" ]'

# ---- sweep text: any line length, fractional timeouts, radix in expressions ------------
{
    printf '; %s\n' "$(head -c 3000000 /dev/zero | tr '\0' 'x')"
    printf 'iterations = 1\nwarmup = 0\ntimeout = 2.5\n[long]\nfamily = nonuniform\n'
    printf 'kernels = vendor%s, tuna\n' "$(for i in $(seq 1 60); do printf ', vendor'; done)"
    printf 'P = 4\nS = 64\nradix = 2, 4\nblock_count = 1..radix-1\n'
} > "$TR/long.ini"
mpirun_openmpi 4 $A2A run "$TR/long.ini" --dry-run > "$TR/long.out" 2> "$TR/long.err"; rc=$?
check trust/long-lines-and-radix-expressions holds \
    '[ $rc -eq 0 ] && [ "$(tail -n 1 "$TR/long.out")" = "5 configurations: 5 to run, 0 skipped" ] && grep -q "tuna P=4 S=64 constant radix=4 block_count=3" "$TR/long.out"'
printf 'bogus = 1\n' >> "$TR/long.ini"
mpirun_openmpi 2 $A2A run "$TR/long.ini" --dry-run > /dev/null 2> "$TR/long.err"; rc=$?
check trust/long-lines-count-lines holds '[ $rc -eq 2 ] && one_line "$TR/long.err" ".*long.ini:12: unknown key .bogus."'

# ---- small holes: a directory, unknown counters, model ---------------------------------
mpirun_openmpi 2 $A2A run "$TR" > /dev/null 2> "$TR/dir.err"; rc=$?
check trust/directory-as-sweep holds '[ $rc -eq 2 ] && one_line "$TR/dir.err" ".*is a directory, not a sweep file"'
mpirun_openmpi 2 $A2A run "$TR/a.ini" --counters FOO_BAR_EVENT --dry-run > /dev/null 2> "$TR/cnt.err"; rc=$?
check trust/unknown-counter-warns holds '[ $rc -eq 0 ] && one_line "$TR/cnt.err" "warning: --counters: 1 of 1 events cannot be counted here: FOO_BAR_EVENT"'
$A2A model --help > "$TR/model.out" 2>&1; rc=$?
check trust/model-help holds '[ $rc -eq 0 ] && grep -q "^usage: a2atune model" "$TR/model.out"'
$A2A model --P 8 --radix 9 > "$TR/model.out" 2> "$TR/model.err"; rc=$?
check trust/model-radix-above-P holds '[ $rc -eq 2 ] && one_line "$TR/model.err" "model: radix 9 is outside 2..P at P = 8" && [ "$(wc -l < "$TR/model.out")" -le 1 ]'

# ---- dist = graph: the closure says how far it got, the summary counts it, no lock stays -
printf 'iterations = 1\nwarmup = 0\n[g]\nfamily = nonuniform\nkernels = vendor\nP = 2\ndist = graph\ngraph = rmat:7:4:3\ngraph_iteration = peak\n' > "$TR/g.ini"
sed "s/rmat:7:4:3/rmat:9:8:3/" "$TR/g.ini" > "$TR/g9.ini"   # a closure of about a second
A2A_CACHE_DIR="$TR/cache" mpirun_openmpi 2 $A2A run "$TR/g.ini" --dry-run > /dev/null 2> "$TR/g1.err"; rc=$?
check trust/graph-progress-in-dry-run holds '[ $rc -eq 0 ] && grep -q "rmat:7:4:3 at P = 2: closure iteration 1, " "$TR/g1.err" && one_line "$TR/g1.err" "rmat:7:4:3 at P = 2: [0-9]* iterations, [0-9]* paths in .* s; cached in "'
check trust/graph-cache-no-lock-left holds '[ -n "$(ls "$TR/cache"/*.counts 2>/dev/null)" ] && [ -z "$(ls "$TR/cache"/*.lock 2>/dev/null)" ]'
A2A_CACHE_DIR="$TR/cache2" mpirun_openmpi 2 $A2A run "$TR/g9.ini" --db "$TR/g.db" > /dev/null 2> "$TR/g2.err"; rc=$?
closure=$(sed -n 's/.* paths in \([0-9.]*\) s; cached in .*/\1/p' "$TR/g2.err")
total=$(sed -n 's/^a2atune: finished in \([0-9.]*\) s:.*/\1/p' "$TR/g2.err")
check trust/graph-summary-counts-the-closure holds '[ $rc -eq 0 ] && [ -n "$closure" ] && [ -n "$total" ] && awk -v a="$total" -v b="$closure" "BEGIN { exit !(a + 0.05 >= b) }"'
