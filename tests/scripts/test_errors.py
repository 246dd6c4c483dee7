"""Bad input: exit status 2 and exactly one line 'a2a: ...' on stderr, nothing on stdout."""
import os
import sqlite3
import tempfile

from a2a_test_support import A2ATestCase, run


class BadInput(A2ATestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.TemporaryDirectory(prefix="a2a-bad.")
        cls.text = os.path.join(cls.tmp.name, "notes.txt")
        with open(cls.text, "w") as f:
            f.write("not a database\n")
        cls.foreign = os.path.join(cls.tmp.name, "foreign.db")
        conn = sqlite3.connect(cls.foreign)
        conn.execute("CREATE TABLE results(x)")
        conn.commit()
        conn.close()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def bad(self, *args, want=None):
        p = run(*args)
        self.assertEqual(p.returncode, 2, "%s: %s" % (args, p.stderr))
        self.assertEqual(p.stdout, "")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("a2a: "), lines[0])
        if want:
            self.assertIn(want, lines[0])

    def test_no_a2atune_binary(self):
        """The parameters come from a2atune: without it, one line, not a traceback."""
        import subprocess
        from a2a_test_support import A2A
        env = dict(os.environ, A2ATUNE=os.path.join(self.tmp.name, "no-such-a2atune"))
        p = subprocess.run([A2A, "summary", "--db", self.text], capture_output=True, text=True,
                           env=env, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("no-such-a2atune", lines[0])

    def test_missing_db(self):
        for cmd in ("summary", "query"):
            self.bad(cmd, "--db", os.path.join(self.tmp.name, "nothing.db"), want="no such database")

    def test_default_db_missing(self):
        p = run("summary", cwd=self.tmp.name)
        self.assertEqual(p.returncode, 2)
        self.assertIn("results/a2a.db", p.stderr)

    def test_not_a_database(self):
        self.bad("summary", "--db", self.text, want="not an a2atune database")
        self.bad("query", "--db", self.tmp.name, want="not a regular file")

    def test_foreign_database(self):
        self.bad("query", "--db", self.foreign, want="not an a2atune database")
        self.bad("heatmap", "--db", self.foreign, "--kernel", "tra", want="not an a2atune database")

    def test_unknown_kernel(self):
        for cmd in ("heatmap", "curves", "best-radix", "query"):
            out = ["--out", self.tmp.name] if cmd in ("heatmap", "curves") else []
            self.bad(cmd, "--db", self.db, "--kernel", "nosuch", *out,
                     want="unknown kernel 'nosuch'")
        self.bad("heatmap", "--db", self.db, "--kernel", "tra", "--baseline", "nosuch",
                 "--out", self.tmp.name, want="unknown kernel 'nosuch'")

    def test_kernel_without_radix(self):
        self.bad("heatmap", "--db", self.db, "--kernel", "vendor", "--out", self.tmp.name,
                 want="takes no radix")

    def test_empty_selection(self):
        self.bad("query", "--db", self.db, "--P", "999", want="no results match")
        self.bad("query", "--db", self.db, "--sql", "SELECT * FROM results WHERE 0",
                 want="no rows match")
        self.bad("heatmap", "--db", self.db, "--kernel", "tra", "--S", "3", "--out",
                 self.tmp.name, want="no ok results")
        self.bad("curves", "--db", self.db, "--kernel", "tuna", "--run", "2", "--out",
                 self.tmp.name, want="no ok results")
        self.bad("best-radix", "--db", self.db, "--kernel", "tra", "--P", "64")
        # nothing was written for the failed figures
        self.assertEqual(sorted(os.listdir(self.tmp.name)), ["foreign.db", "notes.txt"])

    def test_unknown_run(self):
        self.bad("summary", "--db", self.db, "--run", "99", want="no run 99")
        self.bad("query", "--db", self.db, "--run", "0")

    def test_bad_arguments(self):
        self.bad("query", "--db", self.db, "--P", "two")
        self.bad("query", "--db", self.db, "--status", "fine")
        self.bad("query", "--db", self.db, "--columns", "kernel,nosuch")
        self.bad("query", "--db", self.db, "--sql", "SELEC 1")
        self.bad("query", "--db", self.db, "--sql", "SELECT 1", "--kernel", "tra")
        self.bad("heatmap", "--db", self.db)                      # --kernel is required
        self.bad("model", "--P", "0")
        self.bad("model", "--P", "8", "--radix", "1")
        self.bad("model", "--P", "8", "--radix", "9")            # a radix above P
        self.bad("nosuch")
        self.bad()

    def test_help(self):
        for cmd in ("query", "summary", "heatmap", "curves", "best-radix", "model"):
            p = run(cmd, "--help")
            self.assertEqual(p.returncode, 0, cmd)
            self.assertIn("usage: a2a %s" % cmd, p.stdout)
            if cmd != "model":
                self.assertIn("--db PATH", p.stdout)
