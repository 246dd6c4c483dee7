# tests/parts/honest.sh — numbers that hold from launch to launch (sourced by tests/run.sh:
# run, check, holds, sql, pass, fail, skip, $WORK, mpirun_openmpi). Rows measured while idle ranks
# of a larger launch were alive beyond the cores are flagged; --launches N stores N launch
# indices and the tools take the spread between launches as the noise; the speedup view
# gives one row per result; runs record the MPI environment, binding and load; iterations =
# auto follows its time budget; a binary rebuilt after a source edit reports -dirty (after
# an edit of docs alone, not); a
# schema-2 file is migrated. About 20 s.
HD="$WORK/honest"
mkdir -p "$HD"
cores=$(nproc)
ok_rows() { sql "$1" "SELECT count(*) FROM results WHERE status = 'ok' AND $2"; }

# ---- idle ranks: a launch of cores + 1 ranks measures P = 1, 2 with the others alive -------
crowd=$((cores + 1))
run honest/crowded-launch 180 mpirun_openmpi "$crowd" ./a2atune run tests/sweeps/honest.ini --db "$HD/crowd.db" --quiet
check honest/idle-ranks-flagged holds '[ "$(ok_rows "$HD/crowd.db" "P <= '"$cores"'")" -gt 0 ] &&
    [ "$(ok_rows "$HD/crowd.db" "oversubscribed IS NOT 1 OR idle_ranks IS NOT '"$crowd"' - P")" = 0 ]'
# a launch of as many ranks as cores: P = 1 has idle ranks, none beyond the cores
run honest/fitting-launch 180 mpirun_openmpi "$cores" ./a2atune run tests/sweeps/honest.ini --section one --db "$HD/fit.db" --quiet
check honest/idle-within-cores-not-flagged holds '[ "$(ok_rows "$HD/fit.db" "P = 1")" -gt 0 ] &&
    [ "$(ok_rows "$HD/fit.db" "oversubscribed IS NOT 0 OR idle_ranks IS NOT '"$cores"' - P")" = 0 ]'

# ---- the speedup view (the results contract): one row per measurement and baseline kernel;
# the baseline is the fastest own-choice vendor row of the same run group and data set -------
check honest/speedup-one-row-per-result holds '[ "$(sql "$HD/crowd.db" "SELECT count(*) || \",\" || count(DISTINCT result_id) FROM speedup_vs_baseline WHERE baseline_kernel = '\''vendor'\''")" = "$(ok_rows "$HD/crowd.db" "section <> '\''budget'\''"),$(ok_rows "$HD/crowd.db" "section <> '\''budget'\''")" ]'
check honest/speedup-fastest-own-choice-of-data-set [ "$(sql "$HD/crowd.db" "SELECT count(*) FROM speedup_vs_baseline v JOIN result_data r ON r.id = v.result_id
    WHERE v.baseline_kernel = 'vendor' AND v.baseline_median_s IS NOT (SELECT MIN(b.median_s) FROM result_data b WHERE b.run_id = r.run_id AND b.kernel = 'vendor'
      AND b.own_choice AND b.status = 'ok' AND b.data_set = r.data_set)")" = 0 ]

# ---- provenance: MPI environment (with liba2a's own setting), binding, load ----------------
check honest/run-conditions [ "$(sql "$HD/crowd.db" "SELECT (mpi_env LIKE '%\"OMPI_MCA_coll_tuned_use_dynamic_rules\":\"1\"%') || (mpi_env LIKE '%OMPI_MCA_mpi_yield_when_idle%') || (length(binding) > 0) || (load_start IS NOT NULL) || (load_end IS NOT NULL) FROM runs")" = 11111 ]

# ---- iterations = auto: chosen from the time budget, recorded, every sample kept -----------
check honest/iterations-by-budget [ "$(sql "$HD/crowd.db" "SELECT count(*) FROM results r WHERE section = 'budget' AND status = 'ok' AND iterations BETWEEN 10 AND 1000 AND warmup >= 1
    AND iterations = (SELECT count(*) FROM samples s WHERE s.result_id = r.id) AND config_key LIKE '%budget=0.02%'")" = 1 ]

# ---- three launches: three indices, one group, recorded seeds; noise = spread of medians ---
printf 'iterations = 5\nwarmup = 1\n[l]\nfamily = uniform\nkernels = vendor, tra\nP = 2\nS = 16, 1K\nradix = 2\n' > "$HD/launches.ini"
run honest/launches-3 180 scripts/run-sweep.sh --launches 3 2 "$HD/launches.ini" "$HD/launches.db" --quiet
L="$HD/launches.db"
check honest/launches-recorded [ "$(sql "$L" "SELECT group_concat(launch_index || '/' || launches, ' ') || ',' || count(DISTINCT launch_group) || ',' || count(DISTINCT order_seed) FROM (SELECT * FROM runs ORDER BY id)")" = "1/3 2/3 3/3,1,3" ]
/usr/bin/python3 scripts/a2a best-radix --db "$L" --format csv > "$HD/best.csv" 2> "$HD/best.err"
/usr/bin/python3 - "$L" "$HD/best.csv" > "$HD/noise.txt" 2>&1 <<'PY'
import csv, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 2, rows
for r in rows:
    meds = [m for (m,) in db.execute("SELECT median_s FROM results WHERE kernel = 'tra' AND S = ? AND status = 'ok'", (int(r["S"]),))]
    assert len(meds) == 3, meds
    assert abs(float(r["noise_us"]) - (max(meds) - min(meds)) * 1e6) < 1e-3, (r, meds)
    assert abs(float(r["best_median_us"]) - statistics.median(meds) * 1e6) < 1e-3, (r, meds)
    assert r["run"] == str(db.execute("SELECT max(id) FROM runs").fetchone()[0]), r
sys.path.insert(0, "scripts")
from a2a_tools.figures import analysis
one = {"median_s": 2.0, "q1_s": 1.5, "q3_s": 3.0}
assert analysis.noise([one]) == 1.5
assert analysis.noise([one, dict(one, median_s=5.0), dict(one, median_s=2.5)]) == 3.0
print("noise = spread of %d launch medians" % len(meds))
PY
check honest/noise-is-between-launch-spread holds 'grep -q "^noise = spread of 3 launch medians" "$HD/noise.txt" || { cat "$HD/best.err" "$HD/noise.txt" | tail -n 8 | sed "s/^/    /"; false; }'
/usr/bin/python3 scripts/a2a tune --db "$L" --files a2a --out "$HD/tuning" --format csv > "$HD/tune.csv" 2>&1
check honest/tune-uses-launch-spread holds '/usr/bin/python3 -c "
import csv, sqlite3, sys
db = sqlite3.connect(\"$L\")
rows = list(csv.DictReader(open(\"$HD/tune.csv\")))
assert len(rows) == 2, rows
for r in rows:
    kernel = r[\"choice\"].split()[0]
    meds = [m for (m,) in db.execute(\"SELECT median_s FROM results WHERE kernel = ? AND S = ?\", (kernel, int(r[\"S\"])))]
    assert len(meds) == 3 and abs(float(r[\"noise_us\"]) - round((max(meds) - min(meds)) * 1e6, 3)) < 2e-3, (r, meds)
"'
curves_out="$HD/fig"
check honest/curves-with-launches holds '/usr/bin/python3 scripts/a2a curves --db "$L" --kernel tra --out "$curves_out" > /dev/null 2>&1 && ls "$curves_out"/*.png > /dev/null 2>&1'

# ---- bytes copied (own blocks included: P^2 S) against copybench's rate at the same working set
check honest/bytes-copied [ "$(sql "$HD/crowd.db" "SELECT count(*) FROM results WHERE status = 'ok' AND family = 'uniform' AND (bytes_copied IS NOT P * P * S OR bytes_moved IS NOT P * (P - 1) * S)")" = 0 ]
./a2atune copybench --db "$HD/copy.db" --sizes 4K..64K:*4 --samples 3 --min-time 0.001 --quiet > /dev/null 2>&1
/usr/bin/python3 scripts/a2a bandwidth --db "$HD/crowd.db" --copy-db "$HD/copy.db" --kernel vendor --P 2 --format csv --out "$HD/bw" > "$HD/bw.csv" 2> "$HD/bw.err"
check honest/bandwidth-limit holds '/usr/bin/python3 -c "
import csv, sqlite3
rows = list(csv.DictReader(open(\"$HD/bw.csv\")))
assert rows and all(float(r[\"limit_GB/s\"]) > 0 and abs(float(r[\"GB/s\"]) - int(r[\"bytes_copied\"]) / float(r[\"median_us\"]) / 1e3) < 1e-3 * float(r[\"GB/s\"]) for r in rows), rows
" && ls "$HD"/bw/bandwidth_P2_*.png > /dev/null || { tail -n 5 "$HD/bw.err" | sed "s/^/    /"; false; }'

# ---- a rebuilt binary after a source edit reports -dirty (a clone reusing this build) -------
if git rev-parse --git-dir > /dev/null 2>&1 && [ -f build/openmpi/liba2a.a ]; then
    CL="$HD/clone"
    git clone --quiet --shared --no-checkout "$PWD" "$CL" && git -C "$CL" checkout --quiet "$(git rev-parse HEAD)"
    mkdir -p "$CL/build" && cp -a build/openmpi "$CL/build/" && rm -f "$CL/build/openmpi/git-revision"
    find "$CL/build" -type f -exec touch {} +
    make -C "$CL" -j2 build/openmpi/a2atune > "$HD/clone-make1.log" 2>&1
    clean=$("$CL/build/openmpi/a2atune" --version)
    # an edit of a guide alone (as when data is simulated before its commit): still clean
    echo "an edit" >> "$CL/docs/sweeps.md"
    make -C "$CL" -j2 build/openmpi/a2atune > "$HD/clone-make-docs.log" 2>&1
    docs_only=$("$CL/build/openmpi/a2atune" --version)
    echo "/* an edit */" >> "$CL/kernels/uniform/tra.c"
    make -C "$CL" -j2 build/openmpi/a2atune > "$HD/clone-make2.log" 2>&1
    edited=$("$CL/build/openmpi/a2atune" --version)
    check honest/rebuilt-after-edit-is-dirty holds '[ -n "$clean" ] && [ "${clean%-dirty}" = "$clean" ] && [ "$docs_only" = "$clean" ] && [ "$edited" = "$clean-dirty" ] || { echo "    clean: $clean, docs edited: $docs_only, source edited: $edited"; false; }'
else
    skip honest/rebuilt-after-edit-is-dirty "not a git checkout with build/openmpi"
fi

# ---- a schema-2 file gains the schema-3 columns and view ------------------------------------
cp tests/data/schema2.db "$HD/old.db"
run honest/schema2-append 120 mpirun_openmpi 2 ./a2atune run "$HD/launches.ini" --db "$HD/old.db" --quiet
check honest/schema2-migrated [ "$(sql "$HD/old.db" "SELECT (SELECT user_version FROM pragma_user_version) || ',' || (SELECT count(*) FROM pragma_table_info('runs') WHERE name IN ('launch_group', 'launch_index', 'launches', 'order_seed', 'mpi_env', 'binding', 'load_start', 'load_end')) || ',' || (SELECT count(*) FROM pragma_table_info('results') WHERE name IN ('idle_ranks', 'bytes_copied')) || ',' || (SELECT count(*) = count(DISTINCT result_id) FROM speedup_vs_baseline WHERE baseline_kernel = 'vendor')")" = "5,8,2,1" ]
