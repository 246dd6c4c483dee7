#!/bin/bash
# tests/scripts/run.sh — tests of the Python tools (scripts/a2a).
# Builds the fixture database with a real short sweep (tests/scripts/fixture.ini) under
# Open MPI in a temporary directory, runs the unittest suite with Debian's Python, and
# prints "scripts: N passed, M failed" as its last line; exits non-zero on failure.
#   tests/scripts/run.sh            (about 30 s on 2 cores; builds ./a2atune if missing)
#   KEEP=1 tests/scripts/run.sh     keeps the temporary directory (database, figures)
set -u
cd "$(dirname "$0")/../.."
WORK=$(mktemp -d /tmp/a2a-scripts-test.XXXXXX)
[ -n "${KEEP:-}" ] && echo "work directory: $WORK" || trap 'rm -rf "$WORK"' EXIT
t0=$SECONDS

if ! tests/scripts/make_fixture.sh "$WORK/fixture.db" >"$WORK/fixture.log" 2>&1; then
    echo "FAIL fixture: the sweep of tests/scripts/fixture.ini failed; last lines:"
    tail -n 15 "$WORK/fixture.log" | sed 's/^/    /'
    echo "scripts: 0 passed, 1 failed"
    exit 1
fi
echo "fixture: $(sqlite3 "$WORK/fixture.db" "SELECT count(*) FROM results" 2>/dev/null || echo '?') results in $((SECONDS - t0)) s"

mkdir -p "$WORK/out"
A2A_TEST_DB="$WORK/fixture.db" A2A_TEST_OUT="$WORK/out" PYTHONDONTWRITEBYTECODE=1 \
    timeout -k 5 600 /usr/bin/python3 -m unittest discover -s tests/scripts -t tests/scripts \
    -p 'test_*.py' -v >"$WORK/unittest.log" 2>&1
rc=$?
grep -E '\.\.\. (ok|FAIL|ERROR|skipped)|^(FAIL|ERROR):' "$WORK/unittest.log" | grep -v '^\(FAIL\|ERROR\):' \
    | sed -E 's/^(test_[A-Za-z_0-9]+) \(([^)]*)\)/\2/'
ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in.*/\1/p' "$WORK/unittest.log")
bad=$(sed -n 's/^FAILED (\(.*\))$/\1/p' "$WORK/unittest.log" \
      | tr ',' '\n' | awk -F= '/failures|errors/ { n += $2 } END { print n + 0 }')
skipped=$(grep -c '\.\.\. skipped' "$WORK/unittest.log")
ran=${ran:-0} bad=${bad:-0}
if [ "$rc" -ne 0 ]; then
    sed -n '/^======/,$p' "$WORK/unittest.log" | head -n 80
    [ "$bad" -eq 0 ] && bad=1     # crashed or timed out before the summary
fi
passed=$((ran - bad - skipped))
[ "$skipped" -gt 0 ] && echo "($skipped skipped)"
echo "time: $((SECONDS - t0)) s"
echo "scripts: $passed passed, $bad failed"
[ "$rc" -eq 0 ] && [ "$bad" -eq 0 ]
