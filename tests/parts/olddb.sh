# tests/parts/olddb.sh — a database written by an older a2atune (schema 2, checked in as
# tests/data/schema2.db with the sweep that made it, tests/data/schema2.ini) still opens:
# the scripts read it as it is, and a new run appends to it (the schema is migrated in
# place) without touching a recorded row. Sourced by tests/run.sh. About 5 s.
OD="$WORK/olddb"
mkdir -p "$OD"
cp tests/data/schema2.db "$OD/old.db"
old_rows=$(sql "$OD/old.db" "SELECT count(*) || '/' || sum(median_s) FROM results")
old_samples=$(sql "$OD/old.db" "SELECT count(*) FROM samples")

# the scripts, on the file exactly as the old version left it
for cmd in "summary" "best-radix --format markdown" \
           "query --sql 'SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM speedup_vs_baseline)'" \
           "heatmap --kernel tra --out $OD/fig" "curves --kernel tra --out $OD/fig" \
           "tune --out $OD/tuning"; do
    name="olddb/scripts/${cmd%% *}"
    if eval scripts/a2a "$cmd" --db "$OD/old.db" > "$OD/out.txt" 2>&1; then
        pass "$name"
    else
        fail "$name" "(exit $?; last lines below)"
        tail -n 5 "$OD/out.txt" | sed 's/^/    /'
    fi
done
check olddb/views-left-as-they-were [ "$(sql "$OD/old.db" "SELECT count(*) FROM sqlite_master WHERE type = 'view'")" = 2 ]
check olddb/figures-drawn holds '[ -n "$(ls "$OD"/fig/*.png 2>/dev/null)" ]'
# the app command reads the results contract's views of the file as it is (no graph rows:
# it says so, rather than failing to read the views of a file from before launch groups)
mpirun_openmpi 1 ./a2atune app tc --graph rmat:4 --kernel best --db "$OD/old.db" --no-db > "$OD/best.txt" 2>&1
check olddb/app-best-reads-old-file grep -q "has no timed dist = graph results for rmat:4:8:1" "$OD/best.txt"

# a new run into the old file: migrated, appended, nothing recorded changed
sed -e 's/^kernels = vendor, bruck, tra$/kernels = vendor, tra/' -e 's/^S = 16, 1K$/S = 32/' \
    tests/data/schema2.ini > "$OD/new.ini"
run olddb/append-run 120 mpirun_openmpi 2 ./a2atune run "$OD/new.ini" --db "$OD/old.db" --quiet
check olddb/old-rows-unchanged [ "$(sql "$OD/old.db" "SELECT count(*) || '/' || sum(median_s) FROM results WHERE run_id IN (1, 2)")" = "$old_rows" ]
check olddb/old-samples-kept holds '[ "$(sql "$OD/old.db" "SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id WHERE r.run_id IN (1, 2)")" = "$old_samples" ]'
check olddb/new-rows-ok holds '[ "$(sql "$OD/old.db" "SELECT count(*) FROM results WHERE run_id > 2 AND status = '\''ok'\''")" -gt 0 ]'
check olddb/schema-current holds '[ "$(sql "$OD/old.db" "PRAGMA user_version")" -ge 2 ]'
check olddb/views-replaced [ "$(sql "$OD/old.db" "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name)")" = "best_radix,measurement,result_data,speedup_vs_baseline" ]
check olddb/best-radix-by-data-set [ "$(sql "$OD/old.db" "SELECT count(*) FROM best_radix WHERE data_set IS NOT NULL AND run_id IN (1, 2)")" -gt 0 ]
check olddb/integrity [ "$(sql "$OD/old.db" "PRAGMA integrity_check")" = ok ]
if scripts/a2a summary --db "$OD/old.db" > "$OD/out.txt" 2>&1; then pass olddb/scripts-after-append
else fail olddb/scripts-after-append "(exit $?)"; tail -n 5 "$OD/out.txt" | sed 's/^/    /'; fi
# schema 4: the runs table gains network_model, NULL for real runs (a measured network has none)
check olddb/network-model-column [ "$(sql "$OD/old.db" "SELECT (SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'network_model') || ',' || count(*) || ',' || count(network_model) FROM runs")" = "1,$(sql "$OD/old.db" "SELECT count(*) FROM runs"),0" ]
