# tests/parts/docs.sh — the README and the guides point at what exists (tests/docs/check.py):
# every relative link resolves (file and heading), and every command shown is one that the
# --help of its tool lists (a2atune, scripts/a2a, make help, tests/run.sh's parts); every
# page of docs/results opens with how it is made and names no commit; then the same check
# on a copy with a broken link, unknown commands, a results page without its line and one
# naming a commit must fail (sourced by tests/run.sh: `tests/run.sh docs`, about 2 s).
DD="$WORK/docs"
mkdir -p "$DD"
docs_files() { find "$1" -name '*.md' -path "$1/docs/*" | sort; echo "$1/README.md"; }
run docs/links-and-commands 60 /usr/bin/python3 tests/docs/check.py $(docs_files .)
mkdir -p "$DD/broken"
cp -r README.md docs "$DD/broken/"
printf '\nSee [the missing guide](docs/missing.md) and [a heading](docs/sweeps.md#no-such-heading).\n\n```sh\nscripts/a2a frobnicate --db results/a2a.db\n./a2atune frobnicate\nmake frobnicate\ntests/run.sh frobnicate\n```\n' >> "$DD/broken/README.md"
printf 'A page that does not say how it is made.\n' > "$DD/broken/docs/results/unlabelled.md"
printf '\nThe figures of commit ead7003.\n' >> "$DD/broken/docs/results/simulation.md"
# and each page allowed to name commits (HASH_EXCEPTIONS) with its commits taken out: the
# exception, no longer needed, must be reported
hash_exceptions=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, "tests/docs"); import check; print(" ".join(sorted(check.HASH_EXCEPTIONS)))')
for page in $hash_exceptions; do
    sed -i -E 's/\b[0-9a-f]{7,40}\b/(a commit)/g' "$DD/broken/docs/results/$page"
done
n_exceptions=$(echo $hash_exceptions | wc -w)
/usr/bin/python3 tests/docs/check.py $(docs_files "$DD/broken") > "$DD/broken.txt" 2>&1
check docs/check-can-fail holds '[ "$(grep -c "README.md:[0-9]*: \(link docs/missing.md: no such file\|link docs/sweeps.md#no-such-heading: no heading\|\`[a-z/.2]* frobnicate\`: .* lists no frobnicate\)" "$DD/broken.txt")" = 6 ] && grep -q "results/unlabelled.md:1: no .how it is made. line" "$DD/broken.txt" && grep -q "results/simulation.md:[0-9]*: commit hash ead7003:" "$DD/broken.txt" && [ "$(grep -c "listed in HASH_EXCEPTIONS .* names no commit any more" "$DD/broken.txt")" = "$n_exceptions" ] && grep -q "problems: $((8 + n_exceptions))$" "$DD/broken.txt" || { cat "$DD/broken.txt" | sed "s/^/    /"; false; }'
# the layout maps, the table of test parts and the figures quoted beside a link to
# docs/results against the tree (tests/docs/maps.py); then a small tree whose maps are wrong
run docs/maps 60 /usr/bin/python3 tests/docs/maps.py
M="$DD/maps"
mkdir -p "$M/kept" "$M/unmapped" "$M/kernels/new" "$M/docs/results" "$M/tests/parts"
touch "$M/kept/f" "$M/unmapped/f" "$M/kernels/new/f" "$M/tests/parts/newpart.sh"
printf '## Layout\n\n```\ndocs/\nkept/\nkernels/\ntests/\ngone/\n```\n\nSee [the page](docs/results/r.md): 12.5 %% faster.\n' > "$M/README.md"
printf 'It is 12.4 %% faster.\n' > "$M/docs/results/r.md"
printf '## Layout\n\n```\ndocs/\nkept/\nunmapped/\nkernels/\ntests/\n```\n\n| `unit` | unit tests |\n| `oldpart` | gone |\n' > "$M/docs/development.md"
printf 'want unit\n' > "$M/tests/run.sh"
/usr/bin/python3 tests/docs/maps.py "$M" > "$DD/maps.txt" 2>&1
check docs/maps-can-fail holds 'for p in "README.md:[0-9]*: the layout map leaves out unmapped/" "README.md:[0-9]*: the layout map names gone/" \
    "development.md:[0-9]*: the layout map leaves out kernels/new/" "leaves out \`newpart\`" "names \`oldpart\`" "12.5 %. is quoted beside a link"; do \
    grep -q "$p" "$DD/maps.txt" || { echo "    missing: $p"; sed "s/^/    /" "$DD/maps.txt"; exit 1; }; done; grep -q "problems: 6$" "$DD/maps.txt" || { sed "s/^/    /" "$DD/maps.txt"; false; }'
# the counts the README shows of `make run` are those of sweeps/quick.ini on 4 ranks
quick_total=$(mpirun_openmpi 4 ./a2atune run sweeps/quick.ini --dry-run 2>/dev/null | tail -1 | cut -d' ' -f1)
check docs/readme-make-run-counts holds '[ -n "$quick_total" ] && [ "$(grep -c "^a2atune: finished in … s: $quick_total ok, 0 wrong\|^run-sweep: 1 launch(es): $quick_total ok, 0 wrong" README.md)" = 2 ]'
# the README's query and best-radix outputs are those of the commands it shows, on the
# dragonfly data set it names
RD="$DD/readme-dragonfly.db"
sqlite3 "$RD" < tests/data/tuner-dragonfly-memlink.sql
/usr/bin/python3 scripts/a2a query --db "$RD" --sql "SELECT b.P, b.S, b.radix, s.speedup
  FROM best_radix b JOIN speedup_vs_baseline s ON s.result_id = b.result_id
  AND s.baseline_kernel = 'vendor' WHERE b.kernel = 'tra' ORDER BY b.P, b.S" > "$DD/readme-query.txt"; rc=$?
check docs/readme-query-output holds '[ $rc -eq 0 ] && n=$(grep -c "^512 " README.md) && [ "$n" -ge 3 ] && grep "^512 " README.md | while read -r line; do grep -qxF "$line" "$DD/readme-query.txt" || { echo "    not in the output: $line"; exit 1; }; done'
/usr/bin/python3 scripts/a2a best-radix --db "$RD" --kernel tra --P 512 --format markdown > "$DD/readme-best.txt"; rc=$?
check docs/readme-best-radix-output holds '[ $rc -eq 0 ] && row=$(grep "^|   3 | tra    | 512 |" README.md) && [ -n "$row" ] && grep -qxF "$row" "$DD/readme-best.txt"'
