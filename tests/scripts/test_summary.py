"""a2a summary: runs, kernels, P, S, distributions, status counts."""
import json

from a2a_test_support import A2ATestCase, sql


class Summary(A2ATestCase):
    def test_text(self):
        out = self.ok("summary")
        self.assertIn("runs:", out)
        self.assertIn("kernels:", out)
        self.assertIn("P:         2, 3, 4", out)
        self.assertIn("S:         16 B, 256 B, 4 KiB", out)
        self.assertIn("dist:      constant, uniform", out)
        ok, skipped = (sql("SELECT count(*) FROM results WHERE status = ?", (s,))[0][0]
                       for s in ("ok", "skipped"))
        self.assertIn("status:    ok %d, skipped %d" % (ok, skipped), out)
        runs = out.split("runs:\n")[1].split("\n\n")[0].splitlines()
        self.assertEqual(len(runs), 1 + 2)
        self.assertIn("Open MPI", runs[1])
        self.assertIn("yes", runs[1])    # 4 ranks on 2 cores
        self.assertIn(" no ", runs[2])   # 2 ranks on 2 cores

    def test_json_one_run(self):
        info = json.loads(self.ok("summary", "--run", "2", "--format", "json"))
        self.assertEqual([r["id"] for r in info["runs"]], [2])
        self.assertEqual(info["runs"][0]["world_size"], 2)
        self.assertFalse(info["runs"][0]["oversubscribed"])
        self.assertEqual(sorted(k["kernel"] for k in info["kernels"]),
                         ["bruck", "pairwise", "tra", "vendor"])
        self.assertEqual(info["status"], {
            s: n for s, n in sql("SELECT status, count(*) FROM results WHERE run_id = 2"
                                 " GROUP BY status")})
        self.assertEqual(info["P"], [2, 3, 4])
