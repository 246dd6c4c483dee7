# tests/parts/docs.sh — the README and the guides point at what exists (tests/docs/check.py):
# every relative link resolves (file and heading), and every command shown is one that the
# --help of its tool lists (a2atune, scripts/a2a, make help, tests/run.sh's parts); then
# the same check on a copy with a broken link and unknown commands must fail (sourced by
# tests/run.sh: `tests/run.sh docs`, about 2 s).
DD="$WORK/docs"
mkdir -p "$DD"
docs_files() { find "$1" -name '*.md' -path "$1/docs/*" | sort; echo "$1/README.md"; }
run docs/links-and-commands 60 /usr/bin/python3 tests/docs/check.py $(docs_files .)
mkdir -p "$DD/broken"
cp -r README.md docs "$DD/broken/"
printf '\nSee [the missing guide](docs/missing.md) and [a heading](docs/sweeps.md#no-such-heading).\n\n```sh\nscripts/a2a frobnicate --db results/a2a.db\n./a2atune frobnicate\nmake frobnicate\ntests/run.sh frobnicate\n```\n' >> "$DD/broken/README.md"
/usr/bin/python3 tests/docs/check.py $(docs_files "$DD/broken") > "$DD/broken.txt" 2>&1
check docs/check-can-fail holds '[ "$(grep -c "README.md:[0-9]*: \(link docs/missing.md: no such file\|link docs/sweeps.md#no-such-heading: no heading\|\`[a-z/.2]* frobnicate\`: .* lists no frobnicate\)" "$DD/broken.txt")" = 6 ] && grep -q "problems: 6$" "$DD/broken.txt" || { cat "$DD/broken.txt" | sed "s/^/    /"; false; }'
