"""bench/online_bench.py --reuse without MPI: a stand-in launcher (named mpirun,
mpiexec.hydra, smpirun or srun) runs a stand-in online_loop that prints the loop's line and
the online tuner's decision for P = 4. With a record of P = 4 to reuse, every spelling of
the rank count the launchers take (-n, -np, --np, --np=, srun's -n4, --ntasks=) finds it:
the library and the fixed candidates are not launched again, and the new record says
which it reused. A fixed run does not depend on A2A_TUNING_EXPLORE: online runs at other
values reuse the record made at 120 (the one of the same value when there is one), and the
new records name the value they reused. A launch without a rank count is one line and exit
2."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

from a2a_test_support import PYTHON, REPO

BENCH = os.path.join(REPO, "bench", "online_bench.py")

# the stand-in launcher: logs its options, runs the program (the first argument that is
# the stand-in loop) with the rest
LAUNCHER = """#!/usr/bin/python3
import os, sys
args = sys.argv[1:]
at = next(i for i, a in enumerate(args) if a.endswith("fake_loop"))
with open(os.environ["FAKE_LAUNCHES"], "a") as f:
    f.write(os.path.basename(sys.argv[0]) + " " + " ".join(args) + "\\n")
os.execv(args[at], args[at:])
"""

# the stand-in loop at P = 4: under A2A_TUNING=online with A2A_VERBOSE, the decision and
# candidate lines of the online tuner; ONLINE_LOOP_TIMES gets every call's time
LOOP = """#!/usr/bin/python3
import os, sys
S, calls = int(sys.argv[1]), int(sys.argv[2])
if os.environ.get("ONLINE_LOOP_TIMES"):
    with open(os.environ["ONLINE_LOOP_TIMES"], "w") as f:
        f.write("5.0\\n" * calls)
if os.environ.get("A2A_TUNING") == "online" and os.environ.get("A2A_VERBOSE"):
    sys.stderr.write("a2a: online MPI_Alltoall P=4 S=16..31 -> tra radix=2 from call 9 "
                     "(median 5 us; 2 candidates, 8 calls exploring)\\n"
                     "a2a: online   candidates: MPI library 6.0 us; tra radix=2 5.0 us\\n"
                     "a2a: online MPI_Alltoall P=4: tra radix=2 drifted from 5 us to 6.5 us "
                     "(beyond its noise and 5 %) at call 20 [world rank 0]\\n"
                     "a2a: online MPI_Alltoall P=4: MPI library (6 us exploring) runs in its "
                     "place from the next call, its first window deciding at call 20 [world "
                     "rank 0]\\n")
print("S=%d calls=%d total_s=%g median_us=5 q3_us=5 mean_us=5 ok" % (S, calls, calls * 5e-6))
"""


class OnlineBenchReuse(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="a2a-online-bench.")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        for name in ("mpirun", "mpiexec.hydra", "smpirun", "srun"):
            self.script(os.path.join(self.bin, name), LAUNCHER)
        self.loop = self.script(os.path.join(self.dir, "fake_loop"), LOOP)
        self.reuse = os.path.join(self.dir, "earlier.jsonl")
        with open(self.reuse, "w") as f:
            f.write(json.dumps({"label": "t", "P": 4, "coll": "alltoall", "S": 16, "E": 120,
                                "library": [0.006, 6.0, 0.0],
                                "fixed": {"MPI library": [0.006, 6.0, 0.0],
                                          "tra radix=2": [0.005, 5.0, 0.0]}}) + "\n")

    @staticmethod
    def script(path, text):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def bench(self, launch, tag, explore="120"):
        """(exit status, stderr, the launches made, the records written) of one reuse run."""
        launches = os.path.join(self.dir, tag + ".launches")
        record = os.path.join(self.dir, tag + ".jsonl")
        p = subprocess.run([PYTHON, BENCH, "--launch", os.path.join(self.bin, launch),
                            "--binary", self.loop, "--out", os.path.join(self.dir, tag),
                            "--sizes", "16", "--calls", "20", "--repeats", "1",
                            "--explore", explore,
                            "--reuse", self.reuse, "--record", record, "--label", "t"],
                           env=dict(os.environ, FAKE_LAUNCHES=launches),
                           capture_output=True, text=True, timeout=60)
        made = open(launches).read().splitlines() if os.path.exists(launches) else []
        recs = [json.loads(x) for x in open(record)] if os.path.exists(record) else []
        self.table = p.stdout
        return p.returncode, p.stderr, made, recs

    def test_every_spelling_of_the_rank_count_finds_the_record(self):
        for i, launch in enumerate(("mpirun -n 4", "mpirun -np 4", "mpirun --np 4",
                                    "mpirun --np=4",
                                    "mpiexec.hydra -n 4 --bind-to core",
                                    "smpirun -platform p.xml -np 4", "srun --mpi=pmi2 -n 4",
                                    "srun -n4", "srun --ntasks=4",
                                    "srun --ntasks 4")):
            with self.subTest(launch=launch):
                rc, err, made, recs = self.bench(launch, "launch%d" % i)
                self.assertEqual(rc, 0, err)
                # the online run and the second run only: nothing fixed launched again
                self.assertEqual(len(made), 2, made)
                self.assertEqual([(r["P"], r["reused"]) for r in recs], [(4, "earlier.jsonl")])

    def test_other_explore_values_reuse_the_fixed_runs_of_another(self):
        rc, err, made, recs = self.bench("mpirun -n 4", "other", "30,60")
        self.assertEqual(rc, 0, err)
        # per value the online run and the second run: nothing fixed launched
        self.assertEqual(len(made), 4, made)
        self.assertEqual([(r["E"], r["reused"], r["reused_E"]) for r in recs],
                         [(30, "earlier.jsonl", 120), (60, "earlier.jsonl", 120)])
        for r in recs:
            self.assertEqual(r["fixed"]["tra radix=2"], [0.005, 5.0, 0.0])
            self.assertEqual(r["library"], [0.006, 6.0, 0.0])

    def test_the_record_of_the_same_explore_value_is_preferred(self):
        with open(self.reuse, "a") as f:
            f.write(json.dumps({"label": "t", "P": 4, "coll": "alltoall", "S": 16, "E": 30,
                                "library": [0.007, 7.0, 0.0],
                                "fixed": {"MPI library": [0.007, 7.0, 0.0],
                                          "tra radix=2": [0.004, 4.0, 0.0]}}) + "\n")
        # (60 has none: the file's last record of the shape, 30's)
        for explore, reused_E, tra in (("30", 30, 4.0), ("60", 30, 4.0), ("120", 120, 5.0)):
            with self.subTest(explore=explore):
                rc, err, made, recs = self.bench("mpirun -n 4", "prefer" + explore, explore)
                self.assertEqual(rc, 0, err)
                self.assertEqual(len(made), 2, made)
                self.assertEqual([(r["reused_E"], r["fixed"]["tra radix=2"][1]) for r in recs],
                                 [(reused_E, tra)])

    def test_a_drift_is_counted_as_one_not_called_a_restart(self):
        # a drift now tries a challenger first (online_drift.c, end_window): no exploration restarts
        rc, err, made, recs = self.bench("mpirun -n 4", "drift")
        self.assertEqual(rc, 0, err)
        self.assertIn("chose tra radix=2@9+1 drift;", self.table)

    def test_a_launch_without_a_rank_count_is_one_line(self):
        rc, err, made, recs = self.bench("mpirun --bind-to core", "none")
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("no rank count for --reuse", err)
        self.assertEqual((made, recs), ([], []))


if __name__ == "__main__":
    unittest.main()
