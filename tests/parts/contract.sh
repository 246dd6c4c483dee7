# tests/parts/contract.sh — one results contract (scripts/a2a_tools/core/contract.py, the views of
# harness/db/views.c; docs/database.md): on a database of three launches of one launch group, whose
# two sections measure the same data sets, the SQL views, `a2a best-radix`, `a2a heatmap`'s
# numbers and `a2a tune` name the same best, baseline and speedup for every cell (sourced by
# tests/run.sh: `tests/run.sh contract`, about 10 s).
CD="$WORK/contract"
mkdir -p "$CD"
run contract/three-launches 120 scripts/run-sweep.sh --launches 3 4 tests/contract/contract.ini "$CD/c.db" --quiet
# timings made deterministic and varied: launches disagree, radices tie and do not, the vendor
# baseline of one section is faster than the other's
sql "$CD/c.db" "UPDATE results SET median_s = 1e-5 * (1 + ((id * 7919) % 101) / 50.0) WHERE status = 'ok';
                UPDATE results SET q1_s = median_s * (1 - ((id * 31) % 7) / 100.0),
                                   q3_s = median_s * (1 + ((id * 17) % 5) / 100.0) WHERE status = 'ok'"
PY=/usr/bin/python3
$PY scripts/a2a best-radix --db "$CD/c.db" --kernel tra --format csv > "$CD/best.csv" 2> "$CD/best.err"
$PY scripts/a2a heatmap --db "$CD/c.db" --kernel tra --out "$CD/fig" > "$CD/heatmap.out" 2>&1
$PY scripts/a2a tune --db "$CD/c.db" --files a2a --kernel tra --out "$CD/tuning" --format csv > "$CD/tune.csv" 2>&1
$PY tests/contract/check.py "$CD/c.db" "$CD/best.csv" "$(ls "$CD"/fig/*.csv 2>/dev/null | head -1)" "$CD/tune.csv" > "$CD/check.txt" 2>&1
check contract/same-best-baseline-speedup holds 'grep -q "^cells: 6, disagreements: 0$" "$CD/check.txt" || { tail -n 12 "$CD/check.txt" "$CD/best.err" | sed "s/^/    /"; false; }'
# the check can fail: one configuration's medians moved make the views disagree with the tables
sql "$CD/c.db" "UPDATE results SET median_s = median_s / 10 WHERE config_key = (SELECT config_key FROM results
                WHERE id = (SELECT result_id FROM best_radix WHERE kernel = 'tra' ORDER BY P, S LIMIT 1))"
$PY tests/contract/check.py "$CD/c.db" "$CD/best.csv" "$(ls "$CD"/fig/*.csv 2>/dev/null | head -1)" "$CD/tune.csv" > "$CD/stale.txt" 2>&1
check contract/check-can-fail holds 'grep -q "^cells: 6, disagreements: [1-9][0-9]*$" "$CD/stale.txt"'
