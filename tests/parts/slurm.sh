# tests/parts/slurm.sh — sourced by tests/run.sh (helpers: run, check, holds, pass, fail, skip,
# sql, $WORK). `a2a submit | status | merge` on a real one-node Slurm started here
# (tests/slurm/local-slurm.sh): a two-job array of tests/slurm/small.ini with MPICH
# (srun --mpi=pmi2), the same with Open MPI (srun --mpi=pmix), one Open MPI job through
# mpirun inside the allocation, one through a launch template of its own (env ... srun),
# a job with the wrong plugin that the singleton guard stops, and the tuner as a job
# (`a2a submit --tune 100%` of tests/sweeps/tuner_timeout.ini: its bruck configurations
# hit their time limit, the job script resumes the tuner after each exit 3), merged and
# turned into tuning files. About 40 s; every daemon is stopped by its
# pid at the end, also on failure.
#   tests/run.sh slurm        (this part alone)

slurm_t0=$SECONDS

# ---- the singleton guard, without Slurm: one process while SLURM_NTASKS says 2 ---------
SLURM_NTASKS=2 SLURM_PROCID=0 build/mpich/a2atune run tests/slurm/small.ini --db "$WORK/guard.db" \
    > /dev/null 2> "$WORK/guard.err"; rc=$?
check slurm/guard-one-line-exit-2 holds '[ $rc -eq 2 ] && [ "$(wc -l < "$WORK/guard.err")" -eq 1 ] \
    && grep -q "^a2atune: MPI_Comm_size is 1 but Slurm started 2 tasks" "$WORK/guard.err" \
    && [ ! -e "$WORK/guard.db" ]'
SLURM_NTASKS=2 SLURM_PROCID=1 build/openmpi/a2atune run tests/slurm/small.ini --db "$WORK/guard.db" \
    > /dev/null 2> "$WORK/guard.err"; rc=$?
check slurm/guard-silent-on-other-tasks holds '[ $rc -eq 2 ] && [ ! -s "$WORK/guard.err" ]'

# ---- a2a submit --tune with bad budgets, without Slurm: the tuner's own line, exit 2 --------
for slurm_b in 0 101% -3h; do
    scripts/a2a submit tests/sweeps/tuner_timeout.ini --nodes 1 --ppn 2 --tune="$slurm_b" --dry-run \
        --out "$WORK/bad-budget" > /dev/null 2> "$WORK/bad-budget.err"; rc=$?
    check "slurm/tune-bad-budget-$slurm_b" holds '[ $rc -eq 2 ] && [ ! -e "$WORK/bad-budget" ] \
        && [ "$(wc -l < "$WORK/bad-budget.err")" -eq 1 ] \
        && grep -q "^a2a: --tune $slurm_b: give a percentage" "$WORK/bad-budget.err"'
done

# slurm_states DIR: the states of a submission's jobs, comma-separated, in job order
slurm_states() {
    scripts/a2a status "$1" --format json | /usr/bin/python3 -c \
        'import json, sys; print(",".join(r["state"] for r in json.load(sys.stdin)))'
}
# slurm_expected DIR: the configurations of every job of DIR (a one-process dry run of each
# job's sweep lists all of them, those above one rank as skipped), summed
slurm_expected() {
    local dir=$1 n=0 k sweep sections c
    while IFS='|' read -r k sweep sections; do
        c=$(build/openmpi/a2atune run "$sweep" --section "$sections" --dry-run | tail -n 1 | cut -d' ' -f1)
        n=$((n + c))
    done < <(/usr/bin/python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "a2a-submit.json")))
for j in m["jobs"]:
    print("%d|%s|%s" % (j["index"], os.path.join(d, j["sweep"]), ",".join(j["sections"])))
PY
)
    echo "$n"
}
# slurm_rows DIR TABLE: rows of TABLE over the shards of DIR
slurm_rows() {
    local n=0 f
    for f in "$1"/shards/*.db; do [ -e "$f" ] && n=$((n + $(sql "$f" "SELECT count(*) FROM $2"))); done
    echo "$n"
}

slurm_bad="results WHERE status NOT IN ('ok', 'skipped')"
# slurm_provenance SHARD...: "COUNT LIBRARY:WORLD:STATUS" over the shards' runs, comma-separated
slurm_provenance() {
    local f
    for f in "$@"; do
        sql "$f" "SELECT mpi_library || ':' || world_size || ':' || status FROM runs"
    done | sort | uniq -c | awk '{ $1 = $1; print }' | paste -sd,
}

if ! slurm_why=$(tests/slurm/local-slurm.sh check 2>&1); then
    skip "slurm/*" "the Slurm tests did not run: ${slurm_why#local-slurm: }"
else
SL="$WORK/slurm-cluster"
slurm_prev_trap=$(trap -p EXIT)
trap 'tests/slurm/local-slurm.sh stop "$SL"; rm -rf "$WORK"' EXIT
if ! tests/slurm/local-slurm.sh start "$SL" > "$WORK/slurm-start.log" 2>&1; then
    fail slurm/cluster-up "$(tail -n 8 "$WORK/slurm-start.log" | tr '\n' ' ')"
else
    pass slurm/cluster-up "($((SECONDS - slurm_t0)) s)"
    export SLURM_CONF="$SL/slurm.conf"
    # the output folders themselves are hostile to shells: space, quote, $, backquote, ;
    SM="$WORK/it's MPICH \$HOME \`true\`; x"
    SO="$WORK/openmpi srun"
    SR="$WORK/openmpi-mpirun"
    SG="$WORK/wrong-plugin"
    SC="$WORK/openmpi template"
    slurm_submit=(scripts/a2a submit tests/slurm/small.ini --nodes 1 --ppn 2)
    run slurm/submit-mpich-pmi2 30 "${slurm_submit[@]}" --per-section --mpi mpich --array-limit 1 \
        --time 5 --job-name a2a-mpich --out "$SM"
    run slurm/submit-openmpi-pmix 30 "${slurm_submit[@]}" --per-section --mpi openmpi \
        --job-name a2a-ompi --out "$SO"
    run slurm/submit-openmpi-mpirun 30 "${slurm_submit[@]}" --mpi openmpi --launcher mpirun \
        --job-name a2a-ompi-mpirun --out "$SR"
    run slurm/submit-openmpi-template 30 "${slurm_submit[@]}" --mpi openmpi --launch \
        'env A2A_LAUNCHED_BY="a template" srun --mpi={srun_mpi} --ntasks={ranks} --ntasks-per-node={ppn} {cmd}' \
        --job-name a2a-ompi-template --out "$SC"
    run slurm/submit-mpich-wrong-plugin 30 "${slurm_submit[@]}" --mpi mpich --srun-mpi none \
        --job-name a2a-guard --out "$SG"
    # the tuner as a job: every configuration (100 %), the three bruck ones over their limit
    ST="$WORK/tuner job"
    run slurm/submit-tune 30 scripts/a2a submit tests/sweeps/tuner_timeout.ini --nodes 1 --ppn 2 \
        --mpi openmpi --tune 100% --job-name a2a-tune --out "$ST"
    squeue -r > "$WORK/squeue.txt" 2>&1
    slurm_jobs_listed() { grep -c "^  *[01]  *1  *2 " "$WORK/slurm_submit-$1.log"; }
    check slurm/two-job-arrays holds '[ "$(slurm_jobs_listed mpich-pmi2)" -eq 2 ] \
        && [ "$(slurm_jobs_listed openmpi-pmix)" -eq 2 ]'
    # wait for the queue to empty (this cluster runs only these jobs)
    slurm_end=$((SECONDS + 90))
    while [ -n "$(squeue -h 2>/dev/null)" ] && [ $SECONDS -lt $slurm_end ]; do sleep 0.5; done
    check slurm/queue-drained [ -z "$(squeue -h 2>&1)" ]

    check slurm/mpich-jobs-done [ "$(slurm_states "$SM")" = "done,done" ]
    check slurm/openmpi-pmix-jobs-done [ "$(slurm_states "$SO")" = "done,done" ]
    check slurm/openmpi-mpirun-job-done [ "$(slurm_states "$SR")" = "done" ]
    check slurm/openmpi-template-job-done holds '[ "$(slurm_states "$SC")" = "done" ] \
        && grep -q "^        env A2A_LAUNCHED_BY=\"a template\" srun --mpi=pmix --ntasks=2 --ntasks-per-node=2 " \
           "$SC"/a2a-ompi-template-n1.sbatch \
        && [ "$(slurm_provenance "$SC"/shards/*.db)" = "1 Open MPI:2:done" ]'
    for slurm_d in "$SM" "$SO" "$SR" "$SC"; do
        check "slurm/rows-$(basename "$slurm_d" | tr -c 'A-Za-z0-9\n-' '_')" holds \
            '[ "$(slurm_rows "$slurm_d" results)" = "$(slurm_expected "$slurm_d")" ] \
             && [ "$(slurm_rows "$slurm_d" results)" -gt 0 ] \
             && [ "$(slurm_rows "$slurm_d" "$slurm_bad")" = 0 ]'
    done
    # each job's run saw its two ranks and the library it was built with
    check slurm/provenance [ "$(slurm_provenance "$SM"/shards/*.db "$SO"/shards/*.db "$SR"/shards/*.db)" \
                             = "2 MPICH:2:done,3 Open MPI:2:done" ]

    # the tuner job: done after resuming; one tuner run, every row chosen by the tuner (a
    # measurement or a screen), no configuration measured twice, the bruck ones recorded as
    # timeout (each one a resume); merged twice (the second adds nothing); tuning files from
    # the merged database
    check slurm/tune-job-done [ "$(scripts/a2a status "$ST" --format json | /usr/bin/python3 -c \
        'import json, sys; print(",".join(r["kind"] + ":" + r["state"] for r in json.load(sys.stdin)))')" \
        = "tune 100%:done" ]
    slurm_tuned() {   # runs, results, tuner rows, distinct keys, timeouts, distinct steps, max step
        sql "$1" "SELECT (SELECT count(*) FROM runs) || ',' || count(*) || ',' || sum(chosen_by IN ('tuner', 'tuner-screen'))
                  || ',' || count(DISTINCT config_key) || ',' || sum(status = 'timeout')
                  || ',' || count(DISTINCT tuner_step) || ',' || max(tuner_step) FROM results"
    }
    slurm_n=$(sql "$ST"/shards/job-0-n1.db "SELECT count(*) FROM results")
    slurm_to=$(sql "$ST"/shards/job-0-n1.db "SELECT count(*) FROM results WHERE status = 'timeout'")
    slurm_tune_want="1,$slurm_n,$slurm_n,$slurm_n,$slurm_to,$slurm_n,$slurm_n"
    # srun reports the ranks it ended (137), the script reads the driver's TIMEOUT line:
    # one resume per timed-out configuration
    check slurm/tune-resumed-after-each-timeout holds '[ "$slurm_to" -ge 1 ] \
        && [ "$(grep -c "timed out; resuming after it" "$ST"/logs/*.out)" -eq "$slurm_to" ]'
    check slurm/tune-shard-nothing-twice holds '[ "$slurm_n" -ge 9 ] \
        && [ "$(slurm_tuned "$ST"/shards/job-0-n1.db)" = "$slurm_tune_want" ] \
        && [ "$(sql "$ST"/shards/job-0-n1.db "SELECT status FROM runs")" = done ]'
    run slurm/tune-merge 60 scripts/a2a merge "$ST"/shards/*.db --into "$WORK/tuned.db"
    run slurm/tune-merge-again 60 scripts/a2a merge "$ST"/shards/*.db --into "$WORK/tuned.db"
    check slurm/tune-merged-rows holds '[ "$(slurm_tuned "$WORK/tuned.db")" = "$slurm_tune_want" ] \
        && grep -q "runs +0, results +0; 0 conflict" "$WORK/slurm_tune-merge-again.log"'
    run slurm/tune-files 60 scripts/a2a tune --db "$WORK/tuned.db" --out "$WORK/tuning"
    check slurm/tune-files-written [ -s "$WORK/tuning/a2a-tuning.json" ]

    # the wrong plugin: P singletons, stopped by the guard with one line and exit 2
    slurm_guard_state() {
        scripts/a2a status "$SG" --format json | /usr/bin/python3 -c 'import json, sys
r = json.load(sys.stdin)[0]
print(r["state"], r["detail"], r["shard_exists"])'
    }
    check slurm/guard-job-failed [ "$(slurm_guard_state)" = "failed exit 2 False" ]
    check slurm/guard-job-one-line holds \
        '[ "$(cat "$SG"/logs/*.out | grep -c "MPI_Comm_size is 1 but Slurm started 2 tasks")" -eq 1 ]'

    # merge: everything, then everything again (adds nothing)
    slurm_shards=("$SM"/shards/*.db "$SO"/shards/*.db "$SR"/shards/*.db)
    run slurm/merge 60 scripts/a2a merge "${slurm_shards[@]}" --into "$WORK/merged.db"
    slurm_sum() { echo $(( $(slurm_rows "$SM" "$1") + $(slurm_rows "$SO" "$1") + $(slurm_rows "$SR" "$1") )); }
    slurm_want="5,$(slurm_sum results),$(slurm_sum samples)"
    slurm_merged() {
        sql "$WORK/merged.db" "SELECT (SELECT count(*) FROM runs) || ',' || (SELECT count(*) FROM results)
                               || ',' || (SELECT count(*) FROM samples)"
    }
    check slurm/merged-rows [ "$(slurm_merged)" = "$slurm_want" ]
    run slurm/merge-again 60 scripts/a2a merge "${slurm_shards[@]}" --into "$WORK/merged.db"
    check slurm/merge-again-adds-nothing holds '[ "$(slurm_merged)" = "$slurm_want" ] \
        && grep -q "runs +0, results +0; 0 conflict" "$WORK/slurm_merge-again.log"'
    check slurm/merged-readable holds 'scripts/a2a summary --db "$WORK/merged.db" > /dev/null'

    echo "    squeue -r right after the submissions:"
    sed 's/^/      /' "$WORK/squeue.txt"
    echo "    sacct -c (the job-completion log; array tasks get job ids of their own):"
    sacct -c -o JobID,JobName%20,Partition,NNodes,NCPUS,State,ExitCode,Start,End 2>/dev/null \
        | sed 's/^/      /'
    echo "    a2a status of the MPICH submission:"
    scripts/a2a status "$SM" | sed 's/^/      /'
    echo "    rows per shard (results, samples) and merged (runs, results, samples):"
    for slurm_f in "${slurm_shards[@]}"; do
        printf '      %-56s %s\n' "${slurm_f#$WORK/}" "$(sql "$slurm_f" \
            "SELECT (SELECT count(*) FROM results) || ' ' || (SELECT count(*) FROM samples)")"
    done
    printf '      %-56s %s\n' "merged.db" "$(slurm_merged | tr , ' ')"
    unset SLURM_CONF
fi
tests/slurm/local-slurm.sh stop "$SL"
# every daemon recorded at start is gone (zombies count as gone)
slurm_alive() {
    local name pid
    while read -r name pid; do
        [ -r "/proc/$pid/stat" ] && [ "$(sed 's/^.*) \(.\).*/\1/' "/proc/$pid/stat")" != Z ] \
            && echo "$name $pid"
    done < "$SL/pids.stopped"
}
check slurm/daemons-stopped holds '[ -e "$SL/pids.stopped" ] && [ -z "$(slurm_alive)" ]'
eval "${slurm_prev_trap:-trap - EXIT}"
# how long the part took is reported, never asserted (tests do not judge speed)
printf '      slurm part: %d s\n' "$((SECONDS - slurm_t0))"
fi
