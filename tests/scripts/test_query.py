"""a2a query: canned filters, formats, read-only SQL."""
import csv
import io
import json
import os
import sqlite3

from a2a_test_support import A2ATestCase, sql


class Query(A2ATestCase):
    def test_default_is_every_ok_row(self):
        out = self.ok("query")
        (n,) = sql("SELECT count(*) FROM results WHERE status = 'ok'")[0]
        lines = out.splitlines()
        self.assertEqual(len(lines), 1 + n)
        self.assertTrue(lines[0].split()[:5] == ["id", "run_id", "section", "family", "kernel"])

    def test_table_is_aligned(self):
        lines = self.ok("query", "--kernel", "tra", "--run", "1", "--P", "4").splitlines()
        self.assertEqual(len(lines), 1 + 3 * 3)     # radix 2..4 at three S
        # every row has the same width up to the last column (status, left-aligned 'ok')
        col = lines[0].index("status")
        self.assertTrue(all(l[col:col + 2] == "ok" for l in lines[1:]), lines)

    def test_filters_csv(self):
        out = self.ok("query", "--kernel", "tra,vendor", "--family", "uniform", "--P", "2..3",
                      "--S", "16,4K", "--run", "1", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out)))
        expected = sql("SELECT count(*) FROM results WHERE run_id = 1 AND family = 'uniform'"
                       " AND kernel IN ('tra', 'vendor') AND P IN (2, 3) AND S IN (16, 4096)"
                       " AND status = 'ok'")[0][0]
        self.assertEqual(len(rows), expected)
        self.assertEqual(len(rows), 2 * (1 + 2) + 2 * 2)    # tra: 1 + 2 radices, vendor: 1 each
        self.assertEqual({r["kernel"] for r in rows}, {"tra", "vendor"})
        self.assertEqual({r["S"] for r in rows}, {"16", "4096"})
        for r in rows:
            self.assertLessEqual(float(r["q1_s"]), float(r["median_s"]))
            self.assertLessEqual(float(r["median_s"]), float(r["q3_s"]))

    def test_json_and_columns(self):
        out = self.ok("query", "--kernel", "tuna", "--S", "256", "--P", "3", "--columns",
                      "kernel,P,S,radix,block_count,median_s", "--format", "json")
        rows = json.loads(out)
        self.assertEqual([(r["kernel"], r["P"], r["S"], r["radix"]) for r in rows],
                         [("tuna", 3, 256, 2), ("tuna", 3, 256, 3)])
        self.assertEqual(set(rows[0]), {"kernel", "P", "S", "radix", "block_count", "median_s"})

    def test_status_and_run(self):
        out = self.ok("query", "--status", "skipped", "--run", "2", "--format", "csv",
                      "--columns", "P,status")
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(len(rows), sql("SELECT count(*) FROM results WHERE run_id = 2"
                                        " AND status = 'skipped'")[0][0])
        self.assertGreater(len(rows), 0)
        self.assertEqual({r["P"] for r in rows}, {"3", "4"})
        out = self.ok("query", "--status", "any", "--columns", "all", "--format", "csv", "--limit", "5")
        self.assertEqual(len(out.splitlines()), 6)
        self.assertIn("config_key", out.splitlines()[0])

    def test_sql(self):
        out = self.ok("query", "--sql", "SELECT kernel, count(*) AS n FROM results WHERE run_id = 1"
                      " GROUP BY kernel ORDER BY kernel", "--format", "csv")
        got = {r["kernel"]: int(r["n"]) for r in csv.DictReader(io.StringIO(out))}
        self.assertEqual(got, {"bruck": 9, "pairwise": 9, "scattered": 9, "tra": 18, "tuna": 18,
                               "vendor": 18})

    def test_sql_views(self):
        out = self.ok("query", "--sql", "SELECT kernel, P, S, radix, speedup FROM speedup_vs_baseline"
                      " WHERE kernel = 'tra' AND run_id = 1 AND baseline_kernel = 'vendor'")
        self.assertEqual(len(out.splitlines()), 1 + 18)

    def test_sql_cannot_write(self):
        before = os.path.getmtime(self.db)
        for statement in ("DELETE FROM results", "DROP TABLE samples",
                          "UPDATE runs SET host = 'x'", "PRAGMA user_version = 7",
                          "ATTACH DATABASE ':memory:' AS other"):
            rc, out, err = self._call("query", "--sql", statement)
            self.assertEqual(rc, 2, statement)
            self.assertTrue(err.startswith("a2a: --sql:"), err)
            self.assertEqual(len(err.splitlines()), 1)
        self.assertEqual(os.path.getmtime(self.db), before)
        conn = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        self.assertGreater(conn.execute("SELECT count(*) FROM results").fetchone()[0], 0)
        conn.close()

    def _call(self, *args):
        from a2a_test_support import call
        return call(*args[:1], "--db", self.db, *args[1:])
