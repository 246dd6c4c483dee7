"""bench/online_bench.py --fixed-only: the fixed runs recorded for a later --reuse,
launched against a stand-in for the simulation (a program that prints online_loop's line)."""
import json
import os
import subprocess
import tempfile
import textwrap
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(ROOT, "bench", "online_bench.py")

# online_loop's line for the kernel the tuning file names: per-call times by kernel (us);
# 'spin' burns CPU until it is ended, 'broken' fails; every launch is logged to LOG
STAND_IN = textwrap.dedent('''\
    #!/usr/bin/python3
    import json, os, sys
    us = {"vendor": 100.0, "bruck": 90.0, "tra": 80.0, "pairwise": 300.0}
    path = os.environ.get("A2A_TUNING_FILE")
    rule = json.load(open(path))["alltoall"][0] if path else {"kernel": "vendor", "params": {}}
    kernel = rule["kernel"] + "".join(" %s=%d" % kv for kv in sorted(rule["params"].items()))
    S, calls = int(sys.argv[4]), int(sys.argv[5])
    with open(os.environ["STAND_IN_LOG"], "a") as f:
        f.write("%s %d\\n" % (kernel, calls))
    if rule["kernel"] == "spin":
        while True:
            pass
    if rule["kernel"] == "broken":
        sys.exit("The Impossible Did Happen (yet again)")
    t = us[rule["kernel"]] + rule["params"].get("radix", 0)
    print("S=%d calls=%d total_s=%g median_us=%g q3_us=%g mean_us=%g ok"
          % (S, calls, calls * t * 1e-6, t, t, t))
''')


class FixedOnly(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="a2a-online-bench.")
        self.dir = self.tmp.name
        # named as a launcher, so that online_bench.py reads its -np as it reads mpirun's
        self.stand_in = os.path.join(self.dir, "mpirun")
        with open(self.stand_in, "w") as f:
            f.write(STAND_IN)
        os.chmod(self.stand_in, 0o755)
        self.log = os.path.join(self.dir, "launches.txt")
        self.record = os.path.join(self.dir, "fixed.jsonl")

    def tearDown(self):
        self.tmp.cleanup()

    def bench(self, kernels, *extra):
        """online_bench.py --fixed-only over the stand-in at P = 8, S = 16."""
        cmd = ["/usr/bin/python3", BENCH, "--launch", "%s -np 8" % self.stand_in,
               "--binary", "loop", "--out", os.path.join(self.dir, "out"), "--sizes", "16",
               "--calls-fixed", "2", "--calls-best", "16", "--calls-library", "8",
               "--target", "1000", "--fixed-only", "--kernels", kernels, "--label", "stand-in",
               "--record", self.record, "--reuse", self.record] + list(extra)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, STAND_IN_LOG=self.log))
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def launches(self):
        with open(self.log) as f:
            return [line.rsplit(" ", 1) for line in f.read().splitlines()]

    def last_record(self):
        with open(self.record) as f:
            return json.loads(f.read().splitlines()[-1])

    def test_library_candidates_and_the_near_best_longer(self):
        """The library (--calls-library), each kernel (--calls-fixed), then those within
        10 % of the best again (--calls-best); a record after every launch, the last whole."""
        self.bench("bruck,tra radix=2,pairwise")
        self.assertEqual(self.launches(), [["vendor", "8"], ["bruck", "2"], ["tra radix=2", "2"],
                                           ["pairwise", "2"], ["bruck", "16"],
                                           ["tra radix=2", "16"]])
        with open(self.record) as f:
            self.assertEqual(len(f.read().splitlines()), 6)
        rec = self.last_record()
        self.assertEqual((rec["label"], rec["P"], rec["coll"], rec["S"], rec["E"]),
                         ("stand-in", 8, "alltoall", 16, 120))
        self.assertEqual(rec["fixed_calls"], {"MPI library": 8, "bruck": 16, "tra radix=2": 16,
                                              "pairwise": 2})
        self.assertEqual(rec["fixed"]["tra radix=2"][1], 82.0)
        self.assertEqual(rec["library"][1], 100.0)
        # every total extrapolated to --target calls
        self.assertAlmostEqual(rec["fixed"]["pairwise"][0], 1000 * 300e-6, places=9)
        self.assertTrue(rec["fixed_only"])

    def test_reuse_launches_only_what_is_new(self):
        """A second run over the same record launches only the kernel it lacks."""
        self.bench("bruck")
        first = len(self.launches())
        self.bench("bruck,tra radix=4")
        self.assertEqual(self.launches()[first:], [["tra radix=4", "2"], ["tra radix=4", "16"]])
        rec = self.last_record()
        self.assertEqual(sorted(rec["fixed"]), ["MPI library", "bruck", "tra radix=4"])
        self.assertEqual(rec["reused"], "fixed.jsonl")

    def test_cpu_limit_and_failure_are_recorded_and_not_launched_again(self):
        """A launch ended at --cpu-limit and one that fails are recorded as such; the others
        go on, and a later run over the record launches neither again."""
        self.bench("spin,broken,bruck", "--cpu-limit", "1")
        rec = self.last_record()
        self.assertEqual(rec["over_cpu_limit"], {"spin": 1})
        self.assertIn("Impossible", rec["failed"]["broken"])
        self.assertIn("bruck", rec["fixed"])
        before = len(self.launches())
        self.bench("spin,broken,bruck")
        self.assertEqual(len(self.launches()), before)

    def test_kernels_need_fixed_only(self):
        p = subprocess.run(["/usr/bin/python3", BENCH, "--launch", "x -np 2", "--binary", "y",
                            "--out", self.dir, "--kernels", "bruck"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--fixed-only", p.stderr.splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
