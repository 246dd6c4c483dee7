"""a2a best-radix: one row per kernel, P, S; best radix agrees with the data."""
import csv
import io
import math

from a2a_test_support import A2ATestCase, sql
from a2a_tools.figures import model


class BestRadix(A2ATestCase):
    def rows(self, *args):
        return list(csv.DictReader(io.StringIO(self.ok("best-radix", "--format", "csv", *args))))

    def test_rows_and_values(self):
        rows = self.rows("--run", "1")
        self.assertEqual(len(rows), 2 * 3 * 3)      # tra and tuna, P = 2..4, three S
        self.assertEqual({r["kernel"] for r in rows}, {"tra", "tuna"})
        for r in rows:
            P, S = int(r["P"]), int(r["S"])
            best = sql("SELECT radix, median_s FROM results WHERE run_id = 1 AND kernel = ?"
                       " AND P = ? AND S = ? AND status = 'ok' ORDER BY median_s LIMIT 1",
                       (r["kernel"], P, S))[0]
            base = sql("SELECT min(median_s) FROM results WHERE run_id = 1 AND kernel = 'vendor'"
                       " AND family = ? AND P = ? AND S = ? AND status = 'ok'",
                       ("uniform" if r["kernel"] == "tra" else "nonuniform", P, S))[0][0]
            self.assertEqual(int(r["best_radix"]), best[0])
            self.assertAlmostEqual(float(r["best_median_us"]), best[1] * 1e6, places=3)
            self.assertAlmostEqual(float(r["baseline_median_us"]), base * 1e6, places=3)
            self.assertAlmostEqual(float(r["speedup"]), base / best[1], places=3)
            self.assertAlmostEqual(float(r["sqrt_P"]), math.sqrt(P), places=3)
            self.assertEqual(int(r["model_radix"]), model.optimal_radix(P, S))
            self.assertTrue(2 <= int(r["best_radix"]) <= P)

    def test_newest_run_per_kernel(self):
        rows = self.rows()
        tra = [r for r in rows if r["kernel"] == "tra"]
        tuna = [r for r in rows if r["kernel"] == "tuna"]
        self.assertEqual({r["run"] for r in tra}, {"2"})    # run 2 repeated [tra] at P = 2
        self.assertEqual({r["P"] for r in tra}, {"2"})
        self.assertEqual({r["run"] for r in tuna}, {"1"})   # run 2 has no tuna
        self.assertEqual(len(tuna), 9)

    def test_markdown(self):
        out = self.ok("best-radix", "--run", "1", "--kernel", "tuna", "--P", "4")
        lines = out.splitlines()
        self.assertEqual(len(lines), 2 + 3)
        self.assertTrue(lines[0].startswith("| run | kernel | P "))
        self.assertRegex(lines[1], r"^\| -*:? \|")
        self.assertEqual([l.split("|")[4].strip() for l in lines[2:]], ["16 B", "256 B", "4 KiB"])
        self.assertIn("block_count=1", lines[2])

    def test_alpha_beta_change_the_model_radix(self):
        low = self.rows("--run", "1", "--kernel", "tra", "--P", "4", "--beta", "0")
        high = self.rows("--run", "1", "--kernel", "tra", "--P", "4", "--alpha", "0")
        self.assertEqual({r["model_radix"] for r in low}, {"2"})
        self.assertEqual({r["model_radix"] for r in high}, {"3"})
