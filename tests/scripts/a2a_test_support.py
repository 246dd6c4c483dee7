"""Shared by the tests of scripts/a2a: the fixture database, and two ways to call a2a.

The fixture comes from $A2A_TEST_DB (tests/scripts/run.sh builds it); without it the
first test that needs it builds one with make_fixture.sh into a temporary directory."""
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
A2A = os.path.join(REPO, "scripts", "a2a")
PYTHON = "/usr/bin/python3"
A2ATUNE = os.path.join(REPO, "a2atune")
sys.path.insert(0, os.path.join(REPO, "scripts"))

from a2a_tools import cli  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_state = {}


def write_program(path, text):
    """Writes text to path as a program its owner may run (a stand-in for a launcher or a
    binary); returns path."""
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def _tempdir():
    if "tmp" not in _state:
        _state["tmp"] = tempfile.mkdtemp(prefix="a2a-scripts-test.")
        import atexit
        atexit.register(shutil.rmtree, _state["tmp"], True)
    return _state["tmp"]


def fixture_db():
    """Path of the fixture database (two runs of tests/scripts/fixture.ini)."""
    path = os.environ.get("A2A_TEST_DB")
    if path:
        return path
    if "db" not in _state:
        path = os.path.join(_tempdir(), "fixture.db")
        subprocess.run([os.path.join(HERE, "make_fixture.sh"), path], check=True,
                       stdout=subprocess.DEVNULL)
        _state["db"] = path
    return _state["db"]


def out_dir(name):
    """A fresh directory for figures."""
    base = os.environ.get("A2A_TEST_OUT") or _tempdir()
    path = os.path.join(base, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def call(*args):
    """Runs a2a in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main([str(a) for a in args])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def run(*args, cwd=REPO):
    """Runs scripts/a2a as a program: CompletedProcess with text stdout/stderr."""
    return subprocess.run([A2A] + [str(a) for a in args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def sql(query, params=()):
    """Rows of a query on the fixture, read-only, independent of a2a_tools."""
    import sqlite3
    conn = sqlite3.connect("file:%s?mode=ro" % fixture_db(), uri=True)
    try:
        return conn.execute(query, params).fetchall()
    finally:
        conn.close()


class A2ATestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.db = fixture_db()

    def ok(self, *args):
        """Calls a2a in process with --db fixture; asserts exit 0 and no stderr; stdout."""
        rc, out, err = call(*args[:1], "--db", self.db, *args[1:])
        self.assertEqual(rc, 0, "a2a %s: exit %s, stderr: %s" % (" ".join(map(str, args)), rc, err))
        self.assertEqual(err, "")
        return out

    def assertPng(self, path, min_bytes=10000):
        self.assertTrue(os.path.isfile(path), path)
        with open(path, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], PNG_SIGNATURE, path)
        self.assertEqual(head[12:16], b"IHDR")
        width = int.from_bytes(head[16:20], "big")
        height = int.from_bytes(head[20:24], "big")
        self.assertGreater(width, 400)
        self.assertGreater(height, 300)
        self.assertGreater(os.path.getsize(path), min_bytes, path)
        return width, height
