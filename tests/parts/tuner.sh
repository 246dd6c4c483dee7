# tests/parts/tuner.sh — `a2atune tune` and `a2a tuner-report` (sourced by tests/run.sh: run,
# check, holds, sql, pass, fail, $WORK, mpirun_openmpi). The search replays the checked-in
# exhaustive database tests/data/tuner-exhaustive.sql (a simulated sweep: SimGrid, dragonfly,
# tra at every radix and the baselines, P = 8..32 on one node, 390 configurations) and must reach
# the issue's targets on it (at 25 % and 20 %), and on tests/data/tuner-real-p2.sql,
# tuner-real-p2-noisy.sql and tuner-sim64.sql, and the targets pinned on tuner-dragonfly.sql and
# tuner-dragonfly-1024.sql; a file never slower than the library's default; bad budgets and a
# sweep with nothing to tune are refused in one line; an interrupted tuner resumes without measuring
# anything twice; one real tuner run at 2 ranks writes validated rows marked 'tuner' and
# the tuning files; the evaluation's replay (--evaluate, --noise, --without), a budget in
# time, and the evaluation suite on two of its data sets (a2a tuner-report --suite), at a
# budget in configurations and one in time; the platform's prior (--prior) used and recorded, a
# malformed prior file refused in one line with its file and line. About 100 s.
TU="$WORK/tuner"
mkdir -p "$TU"
EXH="$TU/exhaustive.db"
SWEEP=tests/sweeps/tuner.ini
sql "$EXH" < tests/data/tuner-exhaustive.sql
runnable=$(sql "$EXH" "SELECT count(*) FROM results WHERE status <> 'skipped'")
# replay NAME DB ARGS...: a replayed tuner run (no measurement), one rank
replay() {
    local name=$1 db=$2; shift 2
    run "$name" 120 mpirun_openmpi 1 ./a2atune tune "$SWEEP" --db "$db" --replay "$EXH" --no-files --quiet "$@"
}
keys() { sql "$1" "SELECT config_key FROM results ORDER BY config_key"; }

# ---- the search reaches the targets on the exhaustive database -------------------------------
T1="$TU/tuned.db"
replay tuner/replay-25pct "$T1" --budget 25%
n1=$(sql "$T1" "SELECT count(*) FROM results")
check tuner/at-most-a-quarter holds '[ "$n1" -gt 0 ] && [ $((n1 * 4)) -le "$runnable" ]'
check tuner/rows-chosen-by-tuner [ "$(sql "$T1" "SELECT count(*) FROM results WHERE chosen_by = 'tuner' AND tuner_step BETWEEN 1 AND $n1")" = "$n1" ]
check tuner/steps-distinct [ "$(sql "$T1" "SELECT count(DISTINCT tuner_step) FROM results")" = "$n1" ]
check tuner/replay-provenance [ "$(sql "$T1" "SELECT backend || ',' || world_size FROM runs")" = "replay:simgrid,32" ]
# the model's misses, printed with the final model: every row observed (a simulated sweep has
# no screen), each predicted without itself; the chance of a miss (K + 0.5) / (rows + 20)
misses=$(grep '^  misses: ' "$WORK/tuner_replay-25pct.log" | tail -n 1)
check tuner/model-misses holds '[[ "$misses" =~ ^"  misses: "([0-9]+)" of $n1 observed candidates".*"probability "([0-9.]+)$ ]] && awk -v k="${BASH_REMATCH[1]}" -v n="$n1" -v p="${BASH_REMATCH[2]}" "BEGIN { d = (k + 0.5) / (n + 20) - p; exit !(d < 0.0005 && d > -0.0005) }"'
# replayed rows are the exhaustive rows: same medians
check tuner/replay-same-medians [ "$(sql "$T1" "ATTACH '$EXH' AS x; SELECT count(*) FROM results r JOIN x.results e USING (config_key) WHERE r.median_s = e.median_s AND r.q1_s = e.q1_s")" = "$n1" ]
scripts/a2a tuner-report --exhaustive "$EXH" --tuned "$T1" --check-targets --out "$TU/figures" > "$TU/report.txt" 2>&1; rc=$?
if [ $rc -eq 0 ]; then
    pass tuner/targets "($(grep '^fastest measured' "$TU/report.txt" | tr -s ' ' | cut -c1-90))"
else
    fail tuner/targets "(exit $rc)"; tail -n 9 "$TU/report.txt" | sed 's/^/    /'
fi
# the same targets on further exhaustive databases: a real one (Open MPI, 2 ranks, every
# kernel, radix and block_count of sweeps/tuner_p2.ini), a simulated one (sim64, below);
# and the first database again at a fifth of it
# targets_on NAME DATA SWEEP [BUDGET [MET]]: every target met, or, with MET, exactly the
# targets MET lists (a pattern of the report's "targets (tuning file)" line; its exit is then 1)
targets_on() {
    local name=$1 data=$2 sweep=$3 budget=${4:-25%} met=${5:-} exh="$TU/$1-exhaustive.db" tuned="$TU/$1-tuned.db" part
    for part in $data; do sql "$exh" < "$part"; done   # one file, or a list loaded in order
    run "tuner/$name-replay" 120 mpirun_openmpi 1 ./a2atune tune "$sweep" --db "$tuned" --replay "$exh" --no-files --quiet --budget "$budget"
    scripts/a2a tuner-report --exhaustive "$exh" --tuned "$tuned" --check-targets --no-figure > "$TU/$name-report.txt" 2>&1; rc=$?
    if [ -n "$met" ] && [ $rc -eq 1 ] && grep -q "^targets (tuning file): $met\$" "$TU/$name-report.txt"; then
        pass "tuner/$name-targets" "(as expected: $(grep '^tuning file' "$TU/$name-report.txt" | tr -s ' ' | cut -c1-90))"
    elif [ -z "$met" ] && [ $rc -eq 0 ]; then
        pass "tuner/$name-targets" "($(grep '^tuning file' "$TU/$name-report.txt" | tr -s ' ' | cut -c1-90))"
    else
        fail "tuner/$name-targets" "(exit $rc)"; tail -n 9 "$TU/$name-report.txt" | sed 's/^/    /'
    fi
}
targets_on real-p2 tests/data/tuner-real-p2.sql sweeps/tuner_p2.ini
# a real run on a noisy machine: the library's default is bimodal at 8-16 KiB. The larger of
# two IQRs as the tie rule picked it, 43.5 % slower (86.4 % of cells within 5 %). Now 95.5 %:
# the one cell beyond 5 % is the alltoall at 4 KiB, where the library default is taken, 5.0 %
# slower than a forced vendor algorithm within its interquartile range
targets_on real-p2-noisy tests/data/tuner-real-p2-noisy.sql sweeps/tuner_p2.ini
# sim64 (dragonfly, P = 16, 32 on one node, 64 on two): every target
targets_on sim64 tests/data/tuner-sim64.sql sweeps/tuner_sim64.ini
targets_on at-20pct tests/data/tuner-exhaustive.sql "$SWEEP" 20%
# the issue's simulated sweep (sweeps/paper/tuner_dragonfly.ini, P = 128..512, 36 cells), the
# archived data set (an older dragonfly platform; the suite reads tuner-dragonfly-memlink.sql):
# two targets missed, pinned here as what the data gives (no rule was added for them): at 25 %
# (2.2 configurations a cell) the default and cover steps take most of the 79 measurements,
# and cells whose predicted best is not their best stay up to 25 % off
targets_on dragonfly tests/data/tuner-dragonfly.sql sweeps/paper/tuner_dragonfly.ini 25% \
    "at most 25% measured: yes (24.8%); within 5% in >= 90% of cells: NO (69.4%); within 15% in every cell: NO (max 25.4%); median regret <= random's / 3: yes (0.0% vs [0-9.]*%); no cell slower than the default: yes (0)"
# with P = 1024 up to 4 KiB (40 cells, archived data too): the same two targets missed
sed -e 's/^P = 128, 256, 512$/P = 128, 256, 512, 1024/' -e 's/^S = 16, 64, 256, 1K, 4K, 16K$/S = 16, 64, 256, 1K, 4K/' \
    sweeps/paper/tuner_dragonfly.ini > "$TU/dragonfly-1024.ini"
targets_on dragonfly-1024 "tests/data/tuner-dragonfly.sql tests/data/tuner-dragonfly-1024.sql" "$TU/dragonfly-1024.ini" 25% \
    "at most 25% measured: yes (25.0%); within 5% in >= 90% of cells: NO (75.0%); within 15% in every cell: NO (max 53.6%); median regret <= random's / 3: yes (0.0% vs [0-9.]*%); no cell slower than the default: yes (0)"
# never slower than the library's default: the exhaustive data with the default made the
# fastest in the six cells of P = 16 (15 % faster than anything else there); a search of 10 %
# writes no rule but the library's own there (the search before measured Bruck at 16 B and
# 64 B only, and its file named Bruck), and the report finds no cell slower than the default
DF="$TU/default-fastest.db"
sql "$DF" < tests/data/tuner-exhaustive.sql
sql "$DF" "UPDATE results SET median_s = 0.85 * (SELECT min(o.median_s) FROM results o WHERE o.P = results.P AND o.S = results.S AND o.status = 'ok') WHERE kernel = 'vendor' AND P = 16; UPDATE results SET q1_s = median_s, q3_s = median_s, mean_s = median_s WHERE kernel = 'vendor' AND P = 16"
run tuner/default-fastest-replay 120 mpirun_openmpi 1 ./a2atune tune "$SWEEP" --db "$TU/default-fastest-tuned.db" --replay "$DF" --no-files --quiet --budget 10%
scripts/a2a tune --db "$TU/default-fastest-tuned.db" --out "$TU/default-fastest" --files a2a > "$TU/default-fastest.txt" 2>&1
cat > "$TU/library-rules.py" <<'PY'
# library-rules.py FILE P S...: exit 0 when the a2a tuning file's one alltoall rule covering
# P and each S names the MPI library's own choice (vendor, vendor_algorithm 0)
import json, sys
rules = json.load(open(sys.argv[1]))["alltoall"]
P = int(sys.argv[2])
for S in map(int, sys.argv[3:]):
    at = [r for r in rules if r["P"][0] <= P <= r["P"][1] and r["S"][0] <= S and (r["S"][1] is None or S <= r["S"][1])]
    if len(at) != 1 or at[0]["kernel"] != "vendor" or at[0]["params"].get("vendor_algorithm", 0) != 0:
        sys.exit("P = %d, S = %d: %s" % (P, S, at))
PY
check tuner/default-fastest-no-rule /usr/bin/python3 "$TU/library-rules.py" "$TU/default-fastest/a2a-tuning.json" 16 16 64 256 1024 4096 16384
scripts/a2a tuner-report --exhaustive "$DF" --tuned "$TU/default-fastest-tuned.db" --no-figure > "$TU/default-fastest-report.txt" 2>&1
check tuner/default-fastest-report holds 'grep -q "^cells where the tuning file is slower than the library.s default beyond the noise: 0$" "$TU/default-fastest-report.txt"'

# --candidates lists what the search chooses from (one key a line) and records nothing;
# a tuner run of part of the sweep is judged on that part only, not on every configuration
# of the exhaustive database
mpirun_openmpi 1 ./a2atune tune "$SWEEP" --replay "$EXH" --candidates --db "$TU/candidates.db" > "$TU/candidates.txt" 2> /dev/null
check tuner/candidates-listed holds '[ "$(sort -u "$TU/candidates.txt" | wc -l)" = "$runnable" ] && [ "$(sort "$TU/candidates.txt" | comm -23 - <(sql "$EXH" "SELECT config_key FROM results WHERE status <> '"'skipped'"' ORDER BY config_key" | sort) | wc -l)" = 0 ] && [ ! -e "$TU/candidates.db" ]'
sed 's/^P = 8, 16, 32/P = 8, 16/' "$SWEEP" > "$TU/part.ini"
run tuner/replay-part 120 mpirun_openmpi 1 ./a2atune tune "$TU/part.ini" --db "$TU/part.db" --replay "$EXH" --no-files --quiet --budget 25%
part=$(sql "$EXH" "SELECT count(*) FROM results WHERE status <> 'skipped' AND P <= 16")
scripts/a2a tuner-report --exhaustive "$EXH" --tuned "$TU/part.db" --no-figure > "$TU/report-part.txt" 2>&1
check tuner/report-judges-the-tuned-sweep-only holds 'grep -q "^tuner run 1 of $TU/part.db: [0-9]* of $part configurations measured (.*), 12 cells$" "$TU/report-part.txt"'

# a replayed database whose newest run is a smaller launch (a simulation runs one launch of
# exactly P ranks per P): every P of the sweep still counts as runnable
EXH8="$TU/exhaustive-newest-small.db"
cp "$EXH" "$EXH8"
sql "$EXH8" "INSERT INTO runs (started, status, world_size, backend, sweep_text) VALUES ('2026-01-01T00:00:00', 'done', 8, 'simgrid', '; another launch')"
mpirun_openmpi 1 ./a2atune tune "$SWEEP" --db "$TU/t8.db" --replay "$EXH8" --no-files --quiet --budget 25% 2> "$TU/t8.err" > /dev/null
check tuner/replay-sees-every-P holds 'grep -q "^a2atune: tune: $runnable configurations can run" "$TU/t8.err"'
check tuner/report-heatmap holds '[ -s "$TU/figures/tuner-regret-uniform-constant.png" ] && [ -s "$TU/figures/tuner-regret-uniform-constant.svg" ]'
check tuner/report-random-baseline holds 'grep -q "^random search, $n1 measurements, 10 seeds" "$TU/report.txt"'

# ---- bad input: one line, exit 2, nothing recorded -------------------------------------------
bad_tune() { # bad_tune NAME EXPECTED-TEXT ARGS...
    local name=$1 want=$2; shift 2
    mpirun_openmpi 1 ./a2atune tune "$@" --db "$TU/bad.db" --replay "$EXH" --no-files > /dev/null 2> "$TU/bad.err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$TU/bad.err" && [ "$(grep -c "^a2atune" "$TU/bad.err")" -eq 1 ]; then
        pass "tuner/bad-input/$name"
    else
        fail "tuner/bad-input/$name" "exit $rc, wanted '$want', got: $(head -c 300 "$TU/bad.err")"
    fi
}
bad_tune budget-0 "--budget 0%: give a percentage above 0" "$SWEEP" --budget 0%
bad_tune budget-101 "--budget 101%: give a percentage above 0" "$SWEEP" --budget 101%
bad_tune budget-count-0 "--budget 0: give a percentage above 0" "$SWEEP" --budget 0
bad_tune budget-above-sweep "--budget 391, more than the 390 configurations" "$SWEEP" --budget 391
bad_tune budget-negative-time "--budget -3h: give a percentage above 0" "$SWEEP" --budget -3h
bad_tune budget-zero-time "--budget 0s: give a percentage above 0" "$SWEEP" --budget 0s
bad_tune budget-unit "--budget 3d: give a percentage above 0" "$SWEEP" --budget 3d
bad_tune without-unknown "--without design,magic: no rule 'magic'" "$SWEEP" --without design,magic
bad_tune evaluate-needs-replay "--noise 101%: give a percentage" "$SWEEP" --evaluate 2 --noise 101%
printf 'iterations = 2\nwarmup = 1\n[uniform]\nfamily = uniform\nkernels = vendor\nP = 8, 16, 32\nS = 16..16K:*4\n' > "$TU/nothing.ini"
bad_tune replay-of-another-sweep "no result for 12 of the 12 configurations that can run" tests/sweeps/tuner_real.ini
bad_tune nothing-to-tune "nothing.ini: nothing to tune: each (P, S) has at most one configuration" "$TU/nothing.ini"
# a malformed prior file (a2atune tune --prior): one line naming the file and the line
first=$(sql "$EXH" "SELECT config_key FROM results WHERE status <> 'skipped' ORDER BY config_key LIMIT 1")
printf '# platform: hand-made\n%s 1e-6\n' "$first" > "$TU/prior-no-tab.tsv"
printf '%s\tfast\n' "$first" > "$TU/prior-bad-time.tsv"
printf '%s\t1e-6\n\n%s\t2e-6\n' "$first" "$first" > "$TU/prior-twice.tsv"
printf 'uniform|nothing|P=3\t1e-6\n' > "$TU/prior-foreign.tsv"
bad_tune prior-no-tab "$TU/prior-no-tab.tsv:2: expected a configuration key, a tab" "$SWEEP" --prior "$TU/prior-no-tab.tsv"
bad_tune prior-bad-time "$TU/prior-bad-time.tsv:1: 'fast' is not a time in seconds above 0" "$SWEEP" --prior "$TU/prior-bad-time.tsv"
bad_tune prior-twice "$TU/prior-twice.tsv:3: the configuration" "$SWEEP" --prior "$TU/prior-twice.tsv"
bad_tune prior-foreign "$TU/prior-foreign.tsv: none of its 1 lines names a configuration" "$SWEEP" --prior "$TU/prior-foreign.tsv"
bad_tune prior-missing "$TU/no-such.tsv: cannot read the prior file" "$SWEEP" --prior "$TU/no-such.tsv"
check tuner/bad-input/nothing-recorded holds '[ ! -e "$TU/bad.db" ] || [ "$(sql "$TU/bad.db" "SELECT count(*) FROM results")" = 0 ]'

# ---- the evaluation's replay: --evaluate, --without, a budget in time ----------------------
# --evaluate 1 without noise chooses what a replayed tuner run chose, in the same order
mpirun_openmpi 1 ./a2atune tune "$SWEEP" --replay "$EXH" --budget 25% --evaluate 1 > "$TU/eval.tsv" 2> "$TU/eval.err"
check tuner/evaluate-is-the-replay cmp -s <(cut -f4 "$TU/eval.tsv") <(sql "$T1" "SELECT config_key FROM results ORDER BY tuner_step")
# with noise: three seeds, each within the budget, every median moved but by at most 2 %
mpirun_openmpi 1 ./a2atune tune "$SWEEP" --replay "$EXH" --budget 25% --evaluate 3 --noise 2% > "$TU/eval-noise.tsv" 2>&1
check tuner/evaluate-noise-seeds holds '[ "$(cut -f1 "$TU/eval-noise.tsv" | uniq | paste -sd,)" = 1,2,3 ] && [ "$(cut -f1 "$TU/eval-noise.tsv" | sort | uniq -c | awk -v b=$((runnable / 4)) "\$1 > b || \$1 < 1" | wc -l)" = 0 ]'
sql -separator "$(printf '\t')" "$EXH" "SELECT config_key, median_s FROM results" > "$TU/medians.tsv"
check tuner/evaluate-noise-bounded holds 'awk -F"\t" "NR == FNR { m[\$1] = \$2; next } { r = \$5 / m[\$4] - 1; if (r < 0) r = -r; n++; far += r > 0.02 + 1e-9; moved += r > 1e-7 } END { exit !(n > 0 && far == 0 && moved == n) }" "$TU/medians.tsv" "$TU/eval-noise.tsv"'
# a rule switched off changes the choices (without design points the search covers the cells
# from its first measurement on)
mpirun_openmpi 1 ./a2atune tune "$SWEEP" --replay "$EXH" --budget 25% --evaluate 1 --without design > "$TU/eval-without.tsv" 2> "$TU/eval-without.err"; rc=$?
check tuner/without-changes-the-search holds '[ $rc -eq 0 ] && [ -s "$TU/eval-without.tsv" ] && ! cmp -s <(cut -f4 "$TU/eval.tsv") <(cut -f4 "$TU/eval-without.tsv")'
# a budget in time: the search stops at the first measurement that reaches it
mpirun_openmpi 1 ./a2atune tune "$SWEEP" --replay "$EXH" --budget 0.002s --evaluate 1 > "$TU/eval-time.tsv" 2>&1
check tuner/budget-in-time holds 'awk -F"\t" "{ before = spent; spent += \$8 } END { exit !(NR > 1 && before < 0.002 && spent >= 0.002) }" "$TU/eval-time.tsv"'
replay tuner/budget-in-time-run "$TU/time.db" --budget 1m
check tuner/budget-in-time-recorded holds '[ "$(sql "$TU/time.db" "SELECT count(*) FROM results")" -gt 0 ]'
# a time budget spent, then resumed with a larger one: what was measured counts, nothing twice
replay tuner/time-stop "$TU/time-stop.db" --budget 0.001s
ta=$(sql "$TU/time-stop.db" "SELECT count(*) FROM results")
replay tuner/time-resume "$TU/time-stop.db" --budget 0.003s --resume
tb=$(sql "$TU/time-stop.db" "SELECT count(*) FROM results")
check tuner/time-resume-nothing-twice holds '[ "$ta" -ge 1 ] && [ "$tb" -gt "$ta" ] && [ "$(sql "$TU/time-stop.db" "SELECT (SELECT count(DISTINCT config_key) FROM results) || \",\" || (SELECT count(*) FROM runs)")" = "$tb,1" ]'

# ---- screens: a candidate measured with a ninth of its timed calls -------------------------
# An exhaustive real run that keeps its samples (45 timed calls a configuration), replayed by
# the search: each screen is a row of its own (chosen_by 'tuner-screen', it=5 in its key, the
# exhaustive row's first 5 samples and their median), counted as 5/45 of a configuration in the
# budget and never a rule of a2a tune; a run cut short and resumed reloads its screens as
# screens and continues as the uninterrupted run did.
SCR="$TU/screen"
mkdir -p "$SCR"
run tuner/screen-exhaustive 120 mpirun_openmpi 2 ./a2atune run tests/sweeps/tuner_screen.ini --db "$SCR/exh.db" --quiet
nscr=$(sql "$SCR/exh.db" "SELECT count(*) FROM results WHERE status = 'ok'")
run tuner/screen-replay 120 mpirun_openmpi 1 ./a2atune tune tests/sweeps/tuner_screen.ini --db "$SCR/tuned.db" --replay "$SCR/exh.db" --no-files --quiet --budget 50%
check tuner/screen-rows holds '[ "$(sql "$SCR/tuned.db" "SELECT count(*) FROM results WHERE chosen_by = '"'tuner-screen'"' AND iterations = 5 AND config_key LIKE '"'%|it=5|%'"' AND (SELECT count(*) FROM samples WHERE result_id = id) = 5")" -gt 0 ] && [ "$(sql "$SCR/tuned.db" "SELECT count(*) FROM results WHERE chosen_by = '"'tuner-screen'"' AND iterations <> 5")" = 0 ]'
check tuner/screen-first-samples [ "$(sql "$SCR/tuned.db" "ATTACH '$SCR/exh.db' AS x; SELECT count(*) FROM results s JOIN x.results e ON e.config_key = replace(s.config_key, '|it=5|', '|it=45|') WHERE s.chosen_by = 'tuner-screen' AND (s.median_s IS NOT (SELECT seconds FROM (SELECT seconds FROM x.samples WHERE result_id = e.id AND iteration < 5) ORDER BY seconds LIMIT 1 OFFSET 2) OR (SELECT group_concat(seconds) FROM (SELECT seconds FROM samples WHERE result_id = s.id ORDER BY iteration)) IS NOT (SELECT group_concat(seconds) FROM (SELECT seconds FROM x.samples WHERE result_id = e.id AND iteration < 5 ORDER BY iteration)))")" = 0 ]
check tuner/screen-within-budget holds '[ "$(sql "$SCR/tuned.db" "SELECT sum(iterations) <= 45 * $nscr / 2 AND sum(chosen_by = '"'tuner'"') >= 1 FROM results")" = 1 ]'
scripts/a2a tune --db "$SCR/tuned.db" --out "$SCR/with" > "$SCR/with.txt" 2>&1
cp "$SCR/tuned.db" "$SCR/no-screens.db"
sql "$SCR/no-screens.db" "PRAGMA foreign_keys = ON; DELETE FROM results WHERE chosen_by = 'tuner-screen'"
scripts/a2a tune --db "$SCR/no-screens.db" --out "$SCR/without" > "$SCR/without.txt" 2>&1
check tuner/screen-never-a-rule holds '[ -s "$SCR/with/a2a-tuning.json" ] && cmp -s <(grep -v "\"generated\":\|\"database\":" "$SCR/with/a2a-tuning.json") <(grep -v "\"generated\":\|\"database\":" "$SCR/without/a2a-tuning.json")'
scripts/a2a tuner-report --exhaustive "$SCR/exh.db" --tuned "$SCR/tuned.db" --no-figure > "$SCR/report.txt" 2>&1
nsc=$(sql "$SCR/tuned.db" "SELECT count(*) FROM results WHERE chosen_by = 'tuner-screen'")
nme=$(sql "$SCR/tuned.db" "SELECT count(*) FROM results WHERE chosen_by = 'tuner'")
check tuner/screen-report-counts-screens grep -q "^tuner run 1 of .*: $nme of $nscr configurations measured, $nsc screened ($(awk -v n="$nsc" 'BEGIN { printf "%.1f", n * 5 / 45 }') configurations' worth) ($(awk -v m="$nme" -v n="$nsc" -v t="$nscr" 'BEGIN { printf "%.1f", 100 * (m + n * 5 / 45) / t }')% of the configurations)" "$SCR/report.txt"
sql "$SCR/tuned.db" "SELECT tuner_step, config_key FROM results ORDER BY tuner_step" > "$SCR/steps.txt"
cp "$SCR/tuned.db" "$SCR/cut.db"
half=$(( $(wc -l < "$SCR/steps.txt") / 2 ))
sql "$SCR/cut.db" "PRAGMA foreign_keys = ON; DELETE FROM results WHERE tuner_step > $half"
run tuner/screen-resume 120 mpirun_openmpi 1 ./a2atune tune tests/sweeps/tuner_screen.ini --db "$SCR/cut.db" --replay "$SCR/exh.db" --no-files --quiet --budget 50% --resume
check tuner/screen-resume-continues holds '[ "$half" -ge 2 ] && [ "$(sql "$SCR/cut.db" "SELECT count(*) FROM results WHERE chosen_by = '"'tuner-screen'"' AND tuner_step <= $half")" -ge 1 ] && cmp -s "$SCR/steps.txt" <(sql "$SCR/cut.db" "SELECT tuner_step, config_key FROM results ORDER BY tuner_step")'

# ---- the platform's prior (a2atune tune --prior): used and recorded ------------------------
# Without design points the first step covers the first cell with its predicted fastest
# candidate. A prior that names another candidate of that cell as a thousand times faster
# than anything (and prices nothing else) makes that one the first measurement; the run
# records the file, its sha256 and its platform.
replay tuner/prior-none "$TU/prior-none.db" --without design --budget 1
A=$(sql "$TU/prior-none.db" "SELECT config_key FROM results")
B=$(sql "$EXH" "SELECT config_key FROM results WHERE status = 'ok' AND config_key <> '$A' AND P = (SELECT P FROM results WHERE config_key = '$A') AND S = (SELECT S FROM results WHERE config_key = '$A') ORDER BY config_key LIMIT 1")
printf '# a hand-made prior\n# platform: hand-made\n%s\t1e-9\n' "$B" > "$TU/prior.tsv"
replay tuner/prior-given "$TU/prior.db" --without design --budget 1 --prior "$TU/prior.tsv"
check tuner/prior-changes-the-first-step holds '[ -n "$A" ] && [ -n "$B" ] && [ "$(sql "$TU/prior.db" "SELECT config_key FROM results WHERE tuner_step = 1")" = "$B" ]'
check tuner/prior-recorded [ "$(sql "$TU/prior.db" "SELECT tuner_prior FROM runs")" = "$TU/prior.tsv platform=hand-made lines=1 used=1" ]
check tuner/prior-content-recorded [ "$(sql "$TU/prior.db" "SELECT tuner_prior_text = CAST(readfile('$TU/prior.tsv') AS TEXT) FROM runs")" = 1 ]
check tuner/no-prior-recorded-as-null [ "$(sql "$TU/prior-none.db" "SELECT count(*) FROM runs WHERE tuner_prior IS NULL")" = 1 ]

# ---- the evaluation suite on two of its data sets: every table, the ablation, held-out rows ---
scripts/a2a tuner-report --suite --datasets dragonfly-small,fattree-npot --budgets 25 --time-budgets 25 --seeds 2 --ablation --work "$TU/suite" --page "$TU/page.md" > "$TU/suite.md" 2> "$TU/suite.err"; rc=$?
check tuner/suite-runs holds '[ $rc -eq 0 ] && [ "$(grep -c "^| dragonfly-small | 25 % | \(tuner\|tuner+prior\|random\|stratified\|halving\|default\) |" "$TU/suite.md")" = 6 ]'
check tuner/suite-time-budget holds '[ "$(grep -c "^| fattree-npot | 25 % time | \(tuner\|tuner+prior\|random\|stratified\|default\) |" "$TU/suite.md")" = 5 ] && grep -q "^| fattree-npot | [a-z_,()]* | 25 % time |" "$TU/suite.md"'
scripts/a2a tuner-report --suite --time-budgets 101 > /dev/null 2> "$TU/suite-bad.err"; rc=$?
check tuner/suite-bad-time-budget holds '[ $rc -eq 2 ] && [ "$(wc -l < "$TU/suite-bad.err")" = 1 ] && grep -q "time-budgets 101" "$TU/suite-bad.err"'
check tuner/suite-overall holds 'grep -q "^| \*\*overall\*\* | 25 % | tuner |" "$TU/suite.md"'
rules=$(./a2atune tune --help | sed -n 's/^rules of the search (--without): //p' | tr -d ' ' | tr ',' '|')
check tuner/suite-ablation-rows holds '[ -n "$rules" ] && [ "$(grep -cE "^\| ($rules) \|" "$TU/suite.md")" = "$(echo "$rules" | tr "|" "\n" | wc -l)" ]'
check tuner/suite-held-out-rows [ "$(grep -cE "^\| (dragonfly-small|fattree-npot) \| [a-z_,()]*( \+ prior)? \| 25 % \|" "$TU/suite.md")" = 4 ]
check tuner/suite-targets holds 'grep -q "^- \*\*fattree-npot\*\*: .*time <= 25 %" "$TU/suite.md"'
# the page (make tuner-eval's docs/results/tuner-eval.md): the template with every part filled,
# its first line the command; a template naming a part that does not exist is refused
check tuner/suite-page holds 'head -n 1 "$TU/page.md" | grep -q "^Generated by \`scripts/a2a tuner-report --suite --datasets dragonfly-small,fattree-npot .*--page $TU/page.md\`" && ! grep -q "{{" "$TU/page.md" && [ "$(grep -c "^| dragonfly-small | 25 % | tuner |\|^## ablation\|^## targets at 25 %\|^| fattree-npot | [a-z_,()]* | 25 % time |" "$TU/page.md")" = 11 ]'
printf 'Generated by `{{command}}`\n\n{{tables}}\n' > "$TU/bad-template.md"
scripts/a2a tuner-report --suite --datasets fattree-npot --budgets 25 --time-budgets '' --seeds 1 --work "$TU/suite" --page "$TU/bad-page.md" --template "$TU/bad-template.md" > /dev/null 2> "$TU/bad-template.err"; rc=$?
check tuner/suite-page-bad-template holds '[ $rc -eq 2 ] && grep -q "no part {{tables}}" "$TU/bad-template.err" && [ ! -e "$TU/bad-page.md" ]'

# ---- interrupted, then resumed: nothing measured twice ------------------------------------
# (1) stopped by a smaller budget, resumed with a larger one: one run, the earlier rows kept,
#     the steps continue (the design points depend on the budget, so the choices may differ)
T2="$TU/stopped.db"
replay tuner/stop-at-5pct "$T2" --budget 5%
n2a=$(sql "$T2" "SELECT count(*) FROM results")
sql "$T2" "SELECT id, config_key, median_s, tuner_step FROM results ORDER BY id" > "$TU/stopped-before.txt"
replay tuner/resume-to-25pct "$T2" --budget 25% --resume
n2=$(sql "$T2" "SELECT count(*) FROM results")
check tuner/resume-one-run [ "$(sql "$T2" "SELECT count(*) FROM runs")" = 1 ]
check tuner/resume-kept-earlier-rows holds '[ "$n2a" -ge 1 ] && [ "$n2" -gt "$n2a" ] && cmp -s "$TU/stopped-before.txt" <(sql "$T2" "SELECT id, config_key, median_s, tuner_step FROM results ORDER BY id" | head -n "$n2a")'
check tuner/resume-steps-continue [ "$(sql "$T2" "SELECT min(tuner_step) || '..' || max(tuner_step) || ',' || count(DISTINCT tuner_step) || ',' || count(DISTINCT config_key) FROM results")" = "1..$n2,$n2,$n2" ]
# (2) a real run ended by the watchdog: a configuration over its time limit is recorded as
#     `timeout` (chosen by the tuner, measured or screened, with its step) and the launch ends
#     with 3; each --resume continues after it, never measuring a configuration twice, until
#     the run is done
T3="$TU/interrupted.db"
mpirun_openmpi 2 ./a2atune tune tests/sweeps/tuner_timeout.ini --budget 100% --db "$T3" --no-files --quiet > "$TU/interrupted.log" 2>&1; rc=$?
before=$(sql "$T3" "SELECT count(*) FROM results")
check tuner/interrupted-exit-3 holds '[ $rc -eq 3 ] && [ "$(sql "$T3" "SELECT count(*) FROM results WHERE status = '"'timeout'"' AND chosen_by IN ('"'tuner'"', '"'tuner-screen'"') AND tuner_step = $before")" = 1 ]'
sql "$T3" "SELECT id, config_key, status, median_s, tuner_step FROM results ORDER BY id" > "$TU/interrupted-before.txt"
for attempt in 1 2 3 4; do
    mpirun_openmpi 2 ./a2atune tune tests/sweeps/tuner_timeout.ini --budget 100% --db "$T3" --no-files --quiet --resume >> "$TU/interrupted.log" 2>&1; rc=$?
    [ $rc -eq 3 ] || break
done
check tuner/interrupted-resumed-to-the-end holds '[ $rc -eq 0 ] && [ "$(sql "$T3" "SELECT status FROM runs")" = done ] && [ "$(sql "$T3" "SELECT count(*) FROM runs")" = 1 ]'
check tuner/interrupted-kept-earlier-rows cmp -s "$TU/interrupted-before.txt" <(sql "$T3" "SELECT id, config_key, status, median_s, tuner_step FROM results ORDER BY id" | head -n "$before")
n3=$(sql "$T3" "SELECT count(*) FROM results")
check tuner/interrupted-nothing-twice [ "$(sql "$T3" "SELECT count(DISTINCT config_key) || ',' || count(DISTINCT tuner_step) || ',' || max(tuner_step) FROM results")" = "$n3,$n3,$n3" ]
check tuner/interrupted-timeouts-never-chosen [ "$(sql "$T3" "SELECT count(*) FROM results WHERE kernel = 'bruck' AND chosen_by = 'tuner' AND status <> 'timeout'")" = 0 ]

# ---- a real tuner run under mpirun: validated, timed rows marked 'tuner'; tuning files --------
T4="$TU/real.db"
run tuner/real-run 120 mpirun_openmpi 2 ./a2atune tune tests/sweeps/tuner_real.ini --budget 50% --db "$T4" --out "$TU/tuning"
check tuner/real-rows [ "$(sql "$T4" "SELECT count(*) || ',' || sum(status = 'ok') || ',' || sum(chosen_by = 'tuner') || ',' || count(DISTINCT tuner_step) FROM results")" = "6,6,6,6" ]
check tuner/real-samples [ "$(sql "$T4" "SELECT count(*) FROM samples")" = 30 ]
check tuner/real-provenance [ "$(sql "$T4" "SELECT backend || ',' || world_size || ',' || (length(sweep_text) > 0) FROM runs")" = "mpi,2,1" ]
check tuner/real-tuning-files holds '[ -s "$TU/tuning/a2a-tuning.json" ] && grep -q "\"alltoall\"" "$TU/tuning/a2a-tuning.json"'
# an older (schema 2) database opens, gains the columns, keeps its rows
cp tests/data/schema2.db "$TU/old.db"   # written by a2atune before schema 3: 39 results
run tuner/schema2-database 120 mpirun_openmpi 2 ./a2atune tune tests/sweeps/tuner_real.ini --budget 2 --db "$TU/old.db" --no-files --quiet
check tuner/schema2-migrated [ "$(sql "$TU/old.db" "PRAGMA user_version; SELECT count(*), count(chosen_by) FROM results" | paste -sd,)" = "5,41|2" ]
