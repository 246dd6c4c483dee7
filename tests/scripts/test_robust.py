"""Databases the scripts must still read: text that is not UTF-8 (older a2atune versions
stored sweep text verbatim), a file on a read-only mount, a schema newer than the scripts;
figures into a folder that cannot be written; a2a submit with a bad sweep."""
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from a2a_test_support import REPO, A2ATestCase, call, fixture_db

from a2a_tools.core import db as db_mod  # noqa: E402

DRIVER = os.path.join(REPO, "build", "openmpi", "a2atune")
# bytes that are not UTF-8 in every text column a reader shows or compares
DAMAGE = ("UPDATE runs SET sweep_text = sweep_text || CAST(X'3B20E90A' AS TEXT),"
          " sweep_file = 'caf' || CAST(X'E9' AS TEXT) || '.ini',"
          " command_line = command_line || CAST(X'20FF' AS TEXT),"
          " host = host || CAST(X'C3' AS TEXT) WHERE id = 1;"
          "UPDATE results SET message = CAST(X'E92062616420' AS TEXT)"
          " WHERE id = (SELECT min(id) FROM results);")


def copy_fixture(folder, name="copy.db"):
    """A private copy of the fixture database (checkpointed, so one file)."""
    src = sqlite3.connect(fixture_db())
    path = os.path.join(folder, name)
    dst = sqlite3.connect(path)
    src.backup(dst)
    src.close()
    dst.execute("PRAGMA journal_mode = WAL")
    dst.commit()
    dst.close()
    return path


def one_line_error(test, rc, err, want=None):
    test.assertEqual(rc, 2, err)
    lines = err.splitlines()
    test.assertEqual(len(lines), 1, err)
    test.assertTrue(lines[0].startswith("a2a: "), lines[0])
    test.assertNotIn("Traceback", err)
    if want:
        test.assertIn(want, lines[0])


class NotUtf8(A2ATestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp(prefix="a2a-text.")
        cls.bad = copy_fixture(cls.tmp, "latin1.db")
        conn = sqlite3.connect(cls.bad)
        conn.executescript(DAMAGE)
        conn.commit()
        types = conn.execute("SELECT typeof(sweep_text) FROM runs WHERE id = 1").fetchone()
        conn.close()
        assert types == ("text",)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def works(self, *args):
        rc, out, err = call(*args)
        self.assertEqual(rc, 0, "%s: %s" % (args, err))
        self.assertNotIn("Traceback", err)
        return out

    def test_every_reading_subcommand(self):
        out = self.works("summary", "--db", self.bad)
        self.assertIn("caf\ufffd.ini", out)
        self.works("summary", "--db", self.bad, "--format", "json")
        self.works("query", "--db", self.bad, "--status", "any", "--columns", "all")
        self.works("query", "--db", self.bad, "--sql", "SELECT sweep_text, host FROM runs")
        self.works("best-radix", "--db", self.bad)
        self.works("tune", "--db", self.bad, "--out", os.path.join(self.tmp, "tuning"))
        self.works("heatmap", "--db", self.bad, "--kernel", "tra", "--run", "1",
                   "--out", os.path.join(self.tmp, "fig"))
        self.works("curves", "--db", self.bad, "--kernel", "tuna", "--P", "4",
                   "--out", os.path.join(self.tmp, "fig"))
        self.works("figures", "--db", self.bad, "--out", os.path.join(self.tmp, "all"))
        rc, out, err = call("hint-tune", "--db", self.bad, "--out", "-")
        one_line_error(self, rc, err, "no ok results of kernel hint")

    def test_merge_copies_the_bytes_and_stays_idempotent(self):
        target = os.path.join(self.tmp, "merged.db")
        rc, out, err = call("merge", self.bad, "--into", target)
        self.assertEqual(rc, 0, err)
        self.assertIn("runs +2", out)
        rc, out, err = call("merge", self.bad, "--into", target)
        self.assertEqual(rc, 0, err)
        self.assertIn("runs +0 (2 already there), results +0", out)
        self.assertIn("0 conflict(s)", out)
        query = ("SELECT typeof(sweep_text), hex(sweep_text), hex(sweep_file), hex(host),"
                 " hex(command_line) FROM runs ORDER BY id")
        have, want = (sqlite3.connect(p).execute(query).fetchall() for p in (target, self.bad))
        self.assertEqual(have, want)
        self.works("summary", "--db", target)


class ReadOnly(A2ATestCase):
    """A database on a read-only mount (a bind mount; skipped where mounting is not allowed)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp(prefix="a2a-ro.")
        cls.src = os.path.join(cls.tmp, "src")
        cls.mnt = os.path.join(cls.tmp, "mnt")
        os.makedirs(os.path.join(cls.src, "figures"))
        os.makedirs(cls.mnt)
        copy_fixture(cls.src, "a.db")
        cls.mounted = False
        ok = subprocess.run(["mount", "--bind", cls.src, cls.mnt], capture_output=True).returncode == 0
        if ok:
            cls.mounted = True
            ok = subprocess.run(["mount", "-o", "remount,bind,ro", cls.mnt],
                                capture_output=True).returncode == 0
        cls.readonly = ok and _really_readonly(cls.mnt)

    @classmethod
    def tearDownClass(cls):
        if cls.mounted:
            subprocess.run(["umount", cls.mnt], capture_output=True)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        if not self.readonly:
            self.skipTest("cannot make a read-only bind mount here (needs root)")

    def test_database_on_a_read_only_mount(self):
        path = os.path.join(self.mnt, "a.db")
        for args in (("summary",), ("best-radix",), ("query", "--kernel", "tra")):
            rc, out, err = call(args[0], "--db", path, *args[1:])
            self.assertEqual(rc, 0, "%s: %s" % (args, err))
            self.assertEqual(err, "")
        rc, out, err = call("summary", "--db", path, "--format", "json")
        self.assertIn('"results": %d' % sqlite3.connect(fixture_db()).execute(
            "SELECT count(*) FROM results").fetchone()[0], out)

    def test_figures_into_a_read_only_folder(self):
        for sub in ("figures", "new"):
            rc, out, err = call("heatmap", "--db", self.db, "--kernel", "tra", "--run", "1",
                                "--out", os.path.join(self.mnt, sub))
            one_line_error(self, rc, err, "cannot write figures there")


def _really_readonly(folder):
    try:
        with open(os.path.join(folder, ".probe"), "w"):
            pass
    except OSError:
        return True
    os.remove(os.path.join(folder, ".probe"))
    return False


class Unwritable(A2ATestCase):
    def test_out_below_a_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            blocker = os.path.join(tmp, "file")
            open(blocker, "w").close()
            for cmd in ("heatmap", "curves"):
                rc, out, err = call(cmd, "--db", self.db, "--kernel", "tra", "--run", "1",
                                    "--out", os.path.join(blocker, "figs"))
                one_line_error(self, rc, err, "--out %s" % os.path.join(blocker, "figs"))


class SchemaVersion(A2ATestCase):
    def test_scripts_know_the_drivers_schema(self):
        with open(os.path.join(REPO, "harness", "db", "db.c")) as f:
            version = int(re.search(r"#define A2A_SCHEMA_VERSION (\d+)", f.read()).group(1))
        self.assertEqual(db_mod.SCHEMA_VERSION, version,
                         "harness/db/db.c writes schema %d: teach scripts/a2a_tools/core/db.py "
                         "(SCHEMA_VERSION) what changed" % version)

    def test_newer_schema_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            newer = copy_fixture(tmp, "newer.db")
            conn = sqlite3.connect(newer)
            conn.execute("PRAGMA user_version = %d" % (db_mod.SCHEMA_VERSION + 1))
            conn.commit()
            conn.close()
            for args in (("summary", "--db", newer), ("tune", "--db", newer, "--out", tmp),
                         ("heatmap", "--db", newer, "--kernel", "tra", "--out", tmp),
                         ("merge", newer, "--into", os.path.join(tmp, "m.db")),
                         ("merge", self.db, "--into", newer)):
                rc, out, err = call(*args)
                one_line_error(self, rc, err, "newer than these scripts know")
            self.assertFalse(os.path.exists(os.path.join(tmp, "m.db")))


class SubmitBadSweep(unittest.TestCase):
    """The pre-check of a2a submit runs the real driver on each job's copy of the sweep."""

    def setUp(self):
        if not os.access(DRIVER, os.X_OK):
            self.skipTest("build/openmpi/a2atune is not built")
        self.tmp = tempfile.mkdtemp(prefix="a2a-submit-bad.")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def submit(self, text, *extra):
        sweep = os.path.join(self.tmp, "mine.ini")
        with open(sweep, "w") as f:
            f.write(text)
        rc, out, err = call("submit", sweep, "--nodes", "1,2", "--ppn", "2",
                            "--dry-run", *extra)
        return sweep, rc, err

    def test_names_the_users_line_and_leaves_nothing(self):
        # line 8 of the user's file; the job copy has a header and a rewritten P line
        sweep, rc, err = self.submit("; mine\niterations = 2\n\n[a]\nfamily = uniform\n"
                                     "kernels = tra\nS = 16\nradix = 99\n", "--out", self.out)
        one_line_error(self, rc, err, "%s:8: radix = 99 is out of range" % sweep)
        self.assertNotIn("job-", err)
        self.assertFalse(os.path.exists(self.out), os.listdir(self.tmp))

    def test_an_existing_out_folder_keeps_only_what_was_there(self):
        os.makedirs(self.out)
        keep = os.path.join(self.out, "notes.txt")
        open(keep, "w").close()
        sweep, rc, err = self.submit("[a]\nfamily = uniform\nkernels = tra\nP = 1..world\n"
                                     "S = 16\nradix = 99\n", "--out", self.out)
        one_line_error(self, rc, err, "%s:6: radix = 99" % sweep)
        self.assertEqual(os.listdir(self.out), ["notes.txt"])

    def test_default_out_folder_is_not_left_behind(self):
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            sweep, rc, err = self.submit("[a]\nfamily = uniform\nkernels = tra\nS = 16\n"
                                         "radix = 99\n")
        finally:
            os.chdir(cwd)
        one_line_error(self, rc, err, "mine.ini:5: radix = 99")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["mine.ini"])
