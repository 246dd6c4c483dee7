"""bench/app_online_bench.py --reuse without MPI: a stand-in launcher (named mpirun)
runs a stand-in a2atune whose `app` command prints P = 4, writes the one result and its
metrics as `a2atune app --db` does, and under A2A_TUNING=online with A2A_VERBOSE the online
tuner's candidate line and tuning file. With records of P = 4 to reuse, the fixed totals
are the records' (not re-launched: the stand-in would give other figures), a candidate the
records lack is launched fixed, and the new record says which file it reused; an explore
value without a record of its own reuses the record of another (a fixed run does not depend
on it), the same value's when there is one. A launch of other P, other repetitions or no
rank count is one line and exit 2, before any launch. A launch that crashes (exit 139) once: under a stand-in smpirun it is launched
again, its figures and CPU seconds the new launch's alone (not the crashed one's result row,
nor its CPU); under mpirun it is the run's failure."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from a2a_test_support import PYTHON, REPO, write_program

BENCH = os.path.join(REPO, "bench", "app_online_bench.py")

# the stand-in launcher: logs its arguments, runs the program (the first argument that is
# the stand-in a2atune) with the rest
LAUNCHER = """#!/usr/bin/python3
import os, sys
args = sys.argv[1:]
at = next(i for i, a in enumerate(args) if a.endswith("fake_a2atune"))
with open(os.environ["FAKE_LAUNCHES"], "a") as f:
    f.write(" ".join(args[at + 1:]) + "\\n")
os.execv(args[at], args[at:])
"""

# the stand-in `a2atune app`: a run of R repetitions costs R x the kernel's time a run
# (tuned 5 us, the MPI library 6, tra 5, bruck 7)
APP = """#!/usr/bin/python3
import json, os, sqlite3, sys
args = sys.argv[1:]
kernel = args[args.index("--kernel") + 1]
reps = int(args[args.index("--repetitions") + 1])
per_run = {"tuned": 5e-6, "vendor": 6e-6, "tra": 5e-6, "bruck": 7e-6}[kernel]
print("a2atune app: P = 4")
if kernel == "tuned" and os.environ.get("A2A_TUNING") == "online":
    if os.environ.get("A2A_VERBOSE"):
        sys.stderr.write("a2a: online   candidates: MPI library 6.0 us (noise 1); "
                         "tra radix=2 5.0 us (noise 1); bruck 7.0 us (noise 1)\\n")
    with open(os.environ["A2A_TUNING_OUT"], "w") as f:
        json.dump({"alltoall": [{"kernel": "tra", "params": {"radix": 2}}], "alltoallv": []}, f)
con = sqlite3.connect(args[args.index("--db") + 1])
con.execute("CREATE TABLE IF NOT EXISTS results (id INTEGER PRIMARY KEY, message TEXT)")
con.execute("CREATE TABLE IF NOT EXISTS metrics (result_id INTEGER, name TEXT, value REAL)")
rid = con.execute("INSERT INTO results (message) VALUES ('stand-in')").lastrowid
con.executemany("INSERT INTO metrics VALUES (?, ?, ?)",
                [(rid, "comm_sum_s", per_run * reps), (rid, "comm_s", per_run)])
con.commit()
# FAKE_CRASH_ONCE=PATH: the first online run (no PATH yet) writes a result 100x too large,
# burns 0.6 s CPU and crashes as SimGrid does (exit 139)
crash = os.environ.get("FAKE_CRASH_ONCE")
if crash and not os.path.exists(crash) and os.environ.get("A2A_TUNING") == "online":
    open(crash, "w").close()
    con.execute("UPDATE metrics SET value = value * 100 WHERE result_id = ?", (rid,))
    con.commit()
    import time
    start = time.process_time()
    while time.process_time() - start < 0.6:
        pass
    sys.exit(139)
"""


class AppOnlineBenchReuse(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="a2a-app-online-bench.")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.launcher = write_program(os.path.join(self.dir, "mpirun"), LAUNCHER)
        self.app = write_program(os.path.join(self.dir, "fake_a2atune"), APP)

    def earlier(self, fixed, E=120, mode="w"):
        """A file of one earlier record at P = 4, EXPLORE E, with these fixed totals (far
        from what the stand-in gives, so that a reused total is told from a re-launched one);
        mode "a" appends the record to the file."""
        path = os.path.join(self.dir, "earlier.jsonl")
        with open(path, mode) as f:
            f.write(json.dumps({"label": "t", "P": 4, "app": "fft", "workload": "--n 8x8",
                                "repetitions": 10, "fixed_repetitions": 2, "E": E,
                                "fixed": fixed, "fixed_full": ["MPI library", "tra radix=2"],
                                "best": "tra radix=2", "library": fixed["MPI library"]}) + "\n")
        return path

    def bench(self, reuse, ranks="-n 4", explore="120", launcher=None, env=None,
              repetitions="10"):
        """(exit status, stderr, the a2atune commands launched, the records written)."""
        launches = os.path.join(self.dir, "launches")
        record = os.path.join(self.dir, "new.jsonl")
        for path in (launches, record):
            if os.path.exists(path):
                os.unlink(path)
        p = subprocess.run([PYTHON, BENCH, "--launch", "%s %s %s" % (launcher or self.launcher,
                                                                     ranks, self.app),
                            "--app", "fft", "--args", "--n 8x8", "--repetitions", repetitions,
                            "--explore", explore, "--out", os.path.join(self.dir, "out"),
                            "--reuse", reuse, "--record", record, "--label", "t"],
                           env=dict(os.environ, FAKE_LAUNCHES=launches, **(env or {})),
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stderr, self.lines(launches), [json.loads(x) for x in
                                                              self.lines(record)]

    @staticmethod
    def lines(path):
        """The lines of path ([] when it was not written)."""
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().splitlines()

    def test_fixed_totals_reused_and_only_the_missing_candidate_launched(self):
        reuse = self.earlier({"MPI library": 6.5e-5, "tra radix=2": 5.5e-5})
        rc, err, made, recs = self.bench(reuse)
        self.assertEqual(rc, 0, err)
        kernels = [m.split("--kernel ")[1].split()[0] for m in made]
        # the online run, the second run, then bruck (which the record lacks), 2 runs
        self.assertEqual(kernels, ["tuned", "tuned", "bruck"], made)
        self.assertIn("--repetitions 2", made[2])
        self.assertEqual(len(recs), 1)
        rec = recs[0]
        self.assertEqual(rec["reused"], "earlier.jsonl")
        self.assertEqual((rec["fixed"]["MPI library"], rec["fixed"]["tra radix=2"]),
                         (6.5e-5, 5.5e-5))
        # a fixed estimate: the median run x --repetitions
        self.assertAlmostEqual(rec["fixed"]["bruck"], 7e-6 * 10)
        self.assertAlmostEqual(rec["online"][0], 5e-5)

    def test_every_candidate_in_the_record_launches_the_online_runs_only(self):
        reuse = self.earlier({"MPI library": 6.5e-5, "tra radix=2": 5.5e-5, "bruck": 7.5e-5})
        rc, err, made, recs = self.bench(reuse)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(made), 2, made)
        self.assertTrue(all("--kernel tuned" in m for m in made), made)
        self.assertEqual(recs[0]["fixed"], {"MPI library": 6.5e-5, "tra radix=2": 5.5e-5,
                                            "bruck": 7.5e-5})

    def test_another_explore_value_reuses_the_fixed_totals(self):
        reuse = self.earlier({"MPI library": 6.5e-5, "tra radix=2": 5.5e-5, "bruck": 7.5e-5})
        self.earlier({"MPI library": 6.6e-5, "tra radix=2": 5.6e-5, "bruck": 7.6e-5}, E=30,
                     mode="a")
        rc, err, made, recs = self.bench(reuse, explore="60,30")
        self.assertEqual(rc, 0, err)
        # per value the online run and the second run: nothing fixed launched
        self.assertEqual(len(made), 4, made)
        self.assertTrue(all("--kernel tuned" in m for m in made), made)
        # 60 has no record: the file's first of the launch (120's); 30 its own
        self.assertEqual([(r["E"], r["reused_E"]) for r in recs], [(60, 120), (30, 30)])
        self.assertEqual(recs[0]["fixed"]["tra radix=2"], 5.5e-5)
        # the totals of both values' records, the first value's where both have one
        self.assertEqual(recs[1]["fixed"]["tra radix=2"], 5.5e-5)

    def test_no_matching_record_is_one_line_before_any_launch(self):
        reuse = self.earlier({"MPI library": 6.5e-5, "tra radix=2": 5.5e-5})
        for ranks, repetitions, says in (("-n 8", "10", "no record of"),
                                         ("-n 4", "12", "P=4, 12 runs"),
                                         ("--bind-to core", "10", "no rank count for --reuse")):
            with self.subTest(ranks=ranks, repetitions=repetitions):
                rc, err, made, recs = self.bench(reuse, ranks, repetitions=repetitions)
                self.assertEqual(rc, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(says, err)
                self.assertEqual((made, recs), ([], []))

    def test_a_crashed_simulation_is_launched_again_and_counted_once(self):
        reuse = self.earlier({"MPI library": 6.5e-5, "tra radix=2": 5.5e-5, "bruck": 7.5e-5})
        os.makedirs(os.path.join(self.dir, "bin"))
        smpirun = write_program(os.path.join(self.dir, "bin", "smpirun"), LAUNCHER)
        rc, err, made, recs = self.bench(reuse, launcher=smpirun, env={
            "FAKE_CRASH_ONCE": os.path.join(self.dir, "crashed")})
        self.assertEqual(rc, 0, err)
        self.assertIn("the simulation crashed (signal 11", err)
        # the crashed online run, it again, the second run
        self.assertEqual(len(made), 3, made)
        self.assertAlmostEqual(recs[0]["online"][0], 5e-5)
        self.assertLess(recs[0]["cpu_online_s"], 0.4)

    def test_a_crash_outside_simgrid_is_the_runs_failure(self):
        reuse = self.earlier({"MPI library": 6.5e-5, "tra radix=2": 5.5e-5, "bruck": 7.5e-5})
        rc, err, made, recs = self.bench(reuse, env={
            "FAKE_CRASH_ONCE": os.path.join(self.dir, "crashed")})
        self.assertEqual(rc, 1, err)
        self.assertIn("failed (exit 139)", err)
        self.assertEqual((len(made), recs), (1, []))


if __name__ == "__main__":
    unittest.main()
