# tests/parts/registry.sh — the one declaration of kernels (A2A_KERNELS, kernels/registry.c)
# and of parameters (A2A_PARAMS, include/a2a_registry.h) reach the table and the database:
# tests/registry_check.py finds every public kernel function called by the compiled table,
# and every parameter declared with a column in the results table and the views of a fresh
# database and of one written by an older a2atune (a column declared since is added when an
# a2atune opens it), and every kernel's block_count, with its range and what it counts, in
# the table of docs/sweeps.md. Each check also runs on a planted omission (the table
# compiled without bruck's line; a database whose radix2 column is renamed; the guide
# without linear_sync's row and with tuna's meaning changed), which it must report, so
# that it can fail. Sourced by tests/run.sh. About 3 s.
G="$WORK/registry"
mkdir -p "$G"

# kernels: the table of the tree, then the table compiled without bruck's line
tests/registry_check.py kernels include build/openmpi/kernels/registry.o > "$G/kernels.txt" 2>&1; rc=$?
check registry/kernels-all-in-table holds '[ $rc -eq 0 ] && [ "$(tail -n 1 "$G/kernels.txt")" = "0 missing" ]'
sed '/^    X(uniform, bruck, /,/)  *\\$/d' kernels/registry.c > "$G/registry.c"
if ! grep -q "A2A_Alltoall_bruck" "$G/registry.c" && mpicc.openmpi -std=c11 -D_GNU_SOURCE -Wall \
        -Wextra -Werror -Iinclude -Ikernels/common -Ikernels/hint -c "$G/registry.c" \
        -o "$G/registry.o" 2> "$G/cc.txt"; then
    tests/registry_check.py kernels include "$G/registry.o" > "$G/planted.txt" 2>&1; rc=$?
    check registry/kernel-omission-found holds '[ $rc -eq 1 ] && grep -q "^kernel A2A_Alltoall_bruck: declared" "$G/planted.txt" && [ "$(tail -n 1 "$G/planted.txt")" = "1 missing" ]'
else
    fail registry/kernel-omission-found "(could not plant: bruck's line not removed, or the table did not compile)"
    sed 's/^/    /' "$G/cc.txt"
fi

# parameters: a fresh database, and tests/data/schema2.db after an a2atune opened it
printf '%s\n' 'iterations = 0' 'warmup = 0' '[one]' 'family = uniform' 'kernels = tra' \
    'P = 1' 'S = 0' 'radix = 2' > "$G/one.ini"
cp tests/data/schema2.db "$G/old.db"
mpirun_openmpi 1 ./a2atune run "$G/one.ini" --db "$G/fresh.db" --quiet > "$G/run.txt" 2>&1; rc_fresh=$?
mpirun_openmpi 1 ./a2atune run "$G/one.ini" --db "$G/old.db" --quiet >> "$G/run.txt" 2>&1; rc_old=$?
check registry/params-dbs-written holds '[ $rc_fresh -eq 0 ] && [ $rc_old -eq 0 ]'
[ $rc_fresh -eq 0 ] && [ $rc_old -eq 0 ] || grep "^a2atune:" "$G/run.txt" | sed "s/^/    /"
tests/registry_check.py params ./a2atune "$G/fresh.db" "$G/old.db" > "$G/params.txt" 2>&1; rc=$?
check registry/params-all-columns holds '[ $rc -eq 0 ] && [ "$(tail -n 1 "$G/params.txt")" = "0 missing" ]'
[ "$(tail -n 1 "$G/params.txt")" = "0 missing" ] || sed 's/^/    /' "$G/params.txt"
# a file written before a parameter with a column was declared (here: ppn's column and the
# views naming it taken away) gets the column back when an a2atune opens it
cp "$G/fresh.db" "$G/before.db"
sql "$G/before.db" "DROP VIEW speedup_vs_baseline; DROP VIEW best_radix; DROP VIEW measurement;
    ALTER TABLE results DROP COLUMN ppn"
mpirun_openmpi 1 ./a2atune run "$G/one.ini" --db "$G/before.db" --quiet > "$G/before.txt" 2>&1; rc=$?
check registry/param-column-added-on-open holds '[ $rc -eq 0 ] && tests/registry_check.py params ./a2atune "$G/before.db" > /dev/null && [ "$(sql "$G/before.db" "SELECT count(*) FROM results")" = 2 ]'
cp "$G/fresh.db" "$G/renamed.db"
# (the views naming radix2 go first: SQLite cannot rename a column under them)
sql "$G/renamed.db" "DROP VIEW speedup_vs_baseline; DROP VIEW best_radix; DROP VIEW measurement;
    ALTER TABLE results RENAME COLUMN radix2 TO radix_two"
tests/registry_check.py params ./a2atune "$G/renamed.db" > "$G/renamed.txt" 2>&1; rc=$?
check registry/param-omission-found holds '[ $rc -eq 1 ] && grep -q "renamed.db: results has no column radix2" "$G/renamed.txt" && [ "$(grep -c "renamed.db: results has" "$G/renamed.txt")" = 1 ]'

# block_count: the guide's table against the registry, then a copy of the guide without
# linear_sync's row and with another meaning for tuna's block_count
tests/registry_check.py block_count ./a2atune docs/sweeps.md > "$G/block_count.txt" 2>&1; rc=$?
check registry/block-count-table-in-guide holds '[ $rc -eq 0 ] && [ "$(tail -n 1 "$G/block_count.txt")" = "0 missing" ]'
[ $rc -eq 0 ] || sed 's/^/    /' "$G/block_count.txt"
sed -e '/^| uniform | linear_sync | /d' \
    -e 's/^\(| nonuniform | tuna | [^|]*| \).*/\1rounds in flight |/' docs/sweeps.md > "$G/sweeps.md"
tests/registry_check.py block_count ./a2atune "$G/sweeps.md" > "$G/block_count_planted.txt" 2>&1; rc=$?
check registry/block-count-omission-found holds '[ $rc -eq 1 ] && grep -q "sweeps.md: no row for kernel uniform linear_sync " "$G/block_count_planted.txt" && grep -q "sweeps.md: kernel nonuniform tuna gives block_count 1..radix-1: rounds in flight, the registry" "$G/block_count_planted.txt" && [ "$(tail -n 1 "$G/block_count_planted.txt")" = "2 missing" ]'
[ $rc -eq 1 ] || sed 's/^/    /' "$G/block_count_planted.txt"
