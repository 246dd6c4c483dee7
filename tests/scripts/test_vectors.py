"""The Python copies of the driver's readers agree with the C code they copy, on vectors the
C side prints (`a2atune expand`): value lists (scripts/a2a_tools/core/vlist.py against
harness/sweep/vlist.c) and sweep files (sweepfile.py against harness/sweep/sweep.c). The TRA model
(model.py against kernels/common/radix_model.c) is compared the same way in test_model.py
(ModelMatchesC, through `a2atune model`)."""
import glob
import json
import os
import subprocess
import unittest

from a2a_test_support import A2ATUNE, REPO
from a2a_tools.core import sweepfile, vlist
from a2a_tools.core.common import A2AError

# value lists: every syntax form, suffixes, functions, names, and each kind of error
LISTS = [
    "1", "1, 2, 3", "3, 1, 3, 2", "1..8", "8..1", "1..16:+3", "1..1K:*2", "16..16K:*4",
    "2..P", "1..P:*2", "P", "P-1", "P/2", "P/3", "P*2+1", "(P+1)*2", "P/Q", "N", "Q, N, P",
    "world", "2..world", "sqrt", "sqrt(P)", "sqrt(P)+1", "log2(P)", "log2(1)", "log2(P)+1",
    "min(4, P-1)", "max(2, 1)", "min(P, Q), max(P, Q)", "1K", "1KiB", "1KB", "2M", "1G",
    "4Ki", "1B", "3B", "sqrt, P/2, P-1, P", "2..sqrt(P)*2", "1..P:+Q", "Q..P:*2",
    "  7 ,  8 ", "1..3:+1, 2..5", "-1", "0..2", "10-20",
    # errors
    "", "1..", "..3", "1,,2", "x", "P +", "1..3:*1", "1..3:+0", "0..4:*2", "-2..4:*2",
    "1/0", "P/0", "sqrt(0-1)", "log2(0)", "1..2000000", "9223372036854775807+1",
    "99999999999999999999", "2Z", "min(1)", "max", "sqrt(1, 2)", "(1", "1)", "1..3:-1",
]

ENVS = [
    {"P": 1, "Q": 1, "N": 1, "world": 1},
    {"P": 2, "Q": 1, "N": 2, "world": 4},
    {"P": 7, "Q": 3, "N": 3, "world": 8},
    {"P": 16, "Q": 4, "N": 4, "world": 16},
    {"P": 100, "Q": 8, "N": 13, "world": 128},
    {"P": 1024, "Q": 32, "N": 32, "world": 1024},
]

WORLDS = (1, 2, 5, 8, 64)


def c_side(*args):
    """`a2atune expand ARGS` as parsed JSON (its exit status is not checked: errors are in
    the JSON)."""
    out = subprocess.run([A2ATUNE, "expand"] + list(args), capture_output=True, text=True,
                         timeout=120)
    return json.loads(out.stdout)


def py_list(text, env):
    """(values, None) or (None, message) of vlist.parse."""
    try:
        return vlist.parse(text, env), None
    except A2AError as e:
        return None, str(e)


@unittest.skipUnless(os.access(A2ATUNE, os.X_OK), "no ./a2atune binary (run make)")
class ValueListsMatchC(unittest.TestCase):
    def test_every_list_in_every_env(self):
        for env in ENVS:
            args = []
            for name in ("P", "Q", "N", "world"):
                args += ["--" + name, str(env[name])]
            c = c_side(*(args + LISTS))
            self.assertEqual([e["list"] for e in c], LISTS)
            for entry in c:
                values, error = py_list(entry["list"], env)
                where = "%r at %s" % (entry["list"], env)
                if "values" in entry:
                    self.assertIsNone(error, where)
                    self.assertEqual(values, entry["values"], where)
                else:
                    self.assertIsNotNone(error, "%s: C says %s" % (where, entry["error"]))


def sweep_files():
    """Every sweep file of the tree: the examples, the tests' and the rejected ones."""
    patterns = ("sweeps/*.ini", "sweeps/*/*.ini", "tests/sweeps/*.ini", "tests/bad/*.ini",
                "tests/data/*.ini", "tests/scripts/*.ini")
    return sorted(f for p in patterns for f in glob.glob(os.path.join(REPO, p)))


@unittest.skipUnless(os.access(A2ATUNE, os.X_OK), "no ./a2atune binary (run make)")
class SweepFilesMatchC(unittest.TestCase):
    def check(self, path):
        """What sweepfile.py reads of path agrees with sweep.c: a file the Python reader
        refuses for its shape is refused by the driver too; a file the driver reads has the
        same sections, header lines and process counts at every launch size."""
        try:
            py = sweepfile.Sweep(path)
        except A2AError as e:
            if "an indented line" not in str(e):   # refused here only (sweepfile.py says why)
                self.assertIn("error", c_side("--sweep", path), "%s: Python says %s" % (path, e))
            return
        for world in WORLDS:
            c = c_side("--sweep", path, "--world", str(world))
            if "error" in c:
                return    # refused for what it says (kernels, files ...), not its shape
            self.assertEqual([(s["name"], s["line"]) for s in c["sections"]],
                             [(s.name, s.index + 1) for s in py.sections], path)
            for cs, ps in zip(c["sections"], py.sections):
                try:
                    counts = py.process_counts(ps, world)
                except A2AError as e:
                    counts = None
                    self.assertTrue("error" in cs or any(v < 1 for v in cs.get("values", [])),
                                    "%s [%s] at world %d: Python says %s" % (path, ps.name,
                                                                             world, e))
                if counts is not None:
                    self.assertEqual(counts, cs.get("values"),
                                     "%s [%s] at world %d" % (path, ps.name, world))

    def test_tree_sweeps(self):
        files = sweep_files()
        self.assertGreater(len(files), 20)
        for path in files:
            self.check(path)

    def test_shapes(self):
        """Line shapes libinih and sweepfile.py must read alike."""
        shapes = {
            "colon": "[a]\nfamily: uniform\nkernels: vendor\nP: 1..world\n",
            "inline-comment": "[a]\nfamily = uniform ; a comment\nkernels = vendor\nP = 2 ; two\n",
            "defaults": "P = 1..world:*2\nfamily = uniform\n[a]\nkernels = vendor\n[b]\nkernels = bruck\nP = 1\n",
            "comments": "; top\n# hash\n[a]\n  ; indented comment\nfamily = uniform\nkernels = vendor\n",
            "bom": "\ufeff[a]\nfamily = uniform\nkernels = vendor\n",
            "crlf": "[a]\r\nfamily = uniform\r\nkernels = vendor\r\nP = 1, world\r\n",
            "no-newline": "[a]\nfamily = uniform\nkernels = vendor\nP = 3",
            "twice-key": "[a]\nfamily = uniform\nfamily = uniform\nkernels = vendor\n",
            "twice-section": "[a]\nfamily = uniform\nkernels = vendor\n[a]\nkernels = bruck\n",
            "continuation": "[a]\nfamily = uniform\nkernels = vendor,\n  bruck\n",
            "no-bracket": "[a\nfamily = uniform\nkernels = vendor\n",
            "no-equals": "[a]\nfamily uniform\n",
            "spaced-header": "[ a b ]\nfamily = uniform\nkernels = vendor\n",
        }
        folder = os.environ.get("A2A_TEST_OUT") or "/tmp"
        os.makedirs(folder, exist_ok=True)
        for name, text in shapes.items():
            bom = "\ufeff" if text.startswith("\ufeff") else ""
            text = bom + "S = 8\n" + text[len(bom):]     # every section then sets S
            path = os.path.join(folder, "shape-%s-%d.ini" % (name, os.getpid()))
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            try:
                self.check(path)
            finally:
                os.unlink(path)


if __name__ == "__main__":
    unittest.main()
