"""`make run` ends with figures a person can open, and says where they are (a tiny sweep
in place of sweeps/quick.ini, through the same Makefile target)."""
import os
import shutil
import subprocess
import tempfile
import unittest

from a2a_test_support import REPO

TINY = """; two process counts, two sizes, TRA against the vendor collective
iterations = 3
warmup = 1
seed = 1
timeout = 60

[tra]
family = uniform
kernels = vendor, tra
P = 2..world
S = 16, 1K
radix = 2..P
"""


class MakeRun(unittest.TestCase):
    def setUp(self):
        if not os.access(os.path.join(REPO, "build", "openmpi", "a2atune"), os.X_OK):
            self.skipTest("build/openmpi/a2atune is not built")
        self.tmp = tempfile.mkdtemp(prefix="a2a-make-run.")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_ends_with_figures(self):
        sweep = os.path.join(self.tmp, "tiny.ini")
        with open(sweep, "w") as f:
            f.write(TINY)
        db, figs = os.path.join(self.tmp, "tiny.db"), os.path.join(self.tmp, "figs")
        p = subprocess.run(["make", "--no-print-directory", "run", "NP=3", "SWEEP=" + sweep,
                            "DB=" + db, "FIGURES=" + figs], cwd=REPO, capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
        last = p.stdout.strip().splitlines()[-1]
        self.assertRegex(last, r"^figures: \d+ files in %s; open %s$" % (
            figs, os.path.join(figs, "index.html")))
        names = os.listdir(figs)
        for want in ("summary.txt", "best-radix.md", "index.html",
                     "heatmap_tra_vs_vendor_run1_constant.png",
                     "curves_tra_P2_run1_constant.png", "curves_tra_P3_run1_constant.png"):
            self.assertIn(want, names)
        with open(os.path.join(figs, "summary.txt")) as f:
            self.assertIn("S:         16 B, 1 KiB", f.read())
