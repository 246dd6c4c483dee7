"""bench/online_bench.py --quiet without MPI: the online runs are launched without
A2A_VERBOSE (a stand-in online_loop logs each launch's environment), the decision comes
from the loop's `summary:` line (A2A_Tuning_summary) and the candidates run fixed from a
stand-in `a2atune candidates --json`; the record says "quiet", holds the labels without
medians and null drift counts. A shape still exploring or on its warm-up at the end is
recorded as such, without a call it ran from. The summary parser on the library's entry
kinds (include/a2a_tuned.h)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from a2a_test_support import PYTHON, REPO, write_program

BENCH = os.path.join(REPO, "bench", "online_bench.py")
TABLE = os.path.join(REPO, "bench", "online_table.py")
sys.path.insert(0, os.path.dirname(BENCH))
import online_bench  # noqa: E402

# the stand-in launcher: runs the program (the first argument that is the stand-in loop)
LAUNCHER = """#!/usr/bin/python3
import os, sys
args = sys.argv[1:]
at = next(i for i, a in enumerate(args) if a.endswith("fake_loop"))
os.execv(args[at], args[at:])
"""

# the stand-in loop at P = 2: logs which variables each launch had; an online run prints
# the summary of $FAKE_SUMMARY (and under A2A_VERBOSE the tuner's lines, with a drift)
LOOP = """#!/usr/bin/python3
import json, os, sys
S, calls = int(sys.argv[1]), int(sys.argv[2])
env = {k: v for k, v in os.environ.items() if k.startswith(("A2A_", "ONLINE_LOOP_CONNECT"))}
with open(os.environ["FAKE_LAUNCHES"], "a") as f:
    f.write(json.dumps(env) + "\\n")
if os.environ.get("ONLINE_LOOP_TIMES"):
    with open(os.environ["ONLINE_LOOP_TIMES"], "w") as f:
        f.write("5.0\\n" * calls)
online = env.get("A2A_TUNING") == "online" and "A2A_TUNING_OUT" in env
if online and env.get("A2A_VERBOSE"):
    sys.stderr.write("a2a: online MPI_Alltoall P=2 S=16..31 -> tra radix=2 from call 9 "
                     "(median 5 us; 2 candidates, 8 calls exploring)\\n"
                     "a2a: online   candidates: MPI library 6.0 us; tra radix=2 5.0 us\\n"
                     "a2a: online MPI_Alltoall P=2: tra radix=2 drifted from 5 us to 6.5 us "
                     "(beyond its noise and 5 %) at call 20 [world rank 0]\\n")
print("S=%d calls=%d total_s=%g median_us=5 q3_us=5 mean_us=5 ok" % (S, calls, calls * 5e-6))
if online:
    print("summary: " + os.environ["FAKE_SUMMARY"])
"""

# the stand-in a2atune: `candidates --P 2 --S S --collective C --json`, logged
A2ATUNE = """#!/usr/bin/python3
import json, os, sys
with open(os.environ["FAKE_LAUNCHES"] + ".a2atune", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
a = sys.argv[1:]
assert a[0] == "candidates" and "--json" in a, a
P, S, coll = int(a[a.index("--P") + 1]), int(a[a.index("--S") + 1]), a[a.index("--collective") + 1]
print(json.dumps([{"collective": coll, "P": P, "S": S, "candidates": [
    {"kernel": "vendor", "params": {"vendor_algorithm": 0}, "text": "MPI library"},
    {"kernel": "tra", "params": {"radix": 2}, "text": "tra radix=2"}]}]))
"""

DECIDED = ("alltoall P=2 S=16..31: tra radix=2 from call 9 of 20 (2 candidates, 8 calls "
           "exploring)")
EXPLORING = ("alltoall P=2 S=16..31: still exploring after 20 calls (18 calls exploring; an "
             "exploration gives each of 2 candidates at most 20 calls): the MPI library and "
             "the candidates in turn")
WARMUP = ("alltoall P=2 S=16..31: MPI library, 2 calls (the shape's warm-up: exploring "
          "begins after 4)")


def json_lines(path):
    """The JSON values of the lines of path ([] when there is no such file)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(x) for x in f]


class SummaryParsing(unittest.TestCase):

    def parse(self, text, coll="alltoall", S=16):
        return online_bench.summary_decision("S=16 calls=20 ok\nsummary: %s\n" % text, coll, S)

    def test_decided_among_other_entries(self):
        text = ("alltoall P=2 S=1024..2047: bruck from call 30 of 60 (5 candidates, 25 calls "
                "exploring); alltoallv P=2 S=512..1023: tuna radix=2 block_count=1 from call "
                "46 of 60 (6 candidates, 40 calls exploring); alltoallv P=2: 12 calls on a "
                "prediction, not checked yet; S of alltoallv agreed per call in 3 of 60 calls")
        self.assertEqual(self.parse(text, "alltoallv", 1000),
                         {"P": 2, "state": "decided", "winner": "tuna radix=2 block_count=1",
                          "at": 46, "explored": 40})
        self.assertEqual(self.parse(text, "alltoall", 1024)["winner"], "bruck")
        self.assertIsNone(self.parse(text, "alltoall", 16))  # no entry of that bucket

    def test_still_exploring_and_warm_up_have_no_call(self):
        # (the still-exploring entry's own "; " does not split it)
        d = self.parse(EXPLORING + "; " + WARMUP.replace("S=16..31", "S=64..127"))
        self.assertEqual((d["state"], d["at"], d["explored"]), ("exploring", None, 18))
        self.assertIn("still exploring", d["winner"])
        d = self.parse(WARMUP)
        self.assertEqual((d["state"], d["at"], d["explored"]), ("warm-up", None, 0))
        self.assertIn("warm-up", d["winner"])

    def test_single_candidate_and_no_summary(self):
        d = self.parse("alltoall P=2 S=16..31: MPI library, 20 calls (no other candidate)")
        self.assertEqual((d["state"], d["winner"], d["at"]), ("single", "MPI library", 1))
        self.assertIsNone(online_bench.summary_decision("S=16 calls=20 ok\n", "alltoall", 16))


class QuietLaunch(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="a2a-online-quiet.")
        self.addCleanup(shutil.rmtree, self.dir, True)
        write_program(os.path.join(self.dir, "mpirun"), LAUNCHER)
        self.loop = write_program(os.path.join(self.dir, "fake_loop"), LOOP)
        self.a2atune = write_program(os.path.join(self.dir, "a2atune"), A2ATUNE)

    def bench(self, tag, summary, *extra):
        """(exit status, stderr, each launch's A2A_ variables, the records written)."""
        launches = os.path.join(self.dir, tag + ".launches")
        record = os.path.join(self.dir, tag + ".jsonl")
        p = subprocess.run([PYTHON, BENCH, "--launch", os.path.join(self.dir, "mpirun") + " -n 2",
                            "--binary", self.loop, "--out", os.path.join(self.dir, tag),
                            "--sizes", "16", "--calls", "20", "--repeats", "1",
                            "--record", record, "--label", "real: stand-in"] + list(extra),
                           env=dict(os.environ, FAKE_LAUNCHES=launches, FAKE_SUMMARY=summary),
                           capture_output=True, text=True, timeout=60)
        made, recs = json_lines(launches), json_lines(record)
        self.table = p.stdout
        return p.returncode, p.stderr, made, recs

    def test_quiet_online_run_has_no_verbose_and_records_the_summary(self):
        rc, err, made, recs = self.bench("quiet", DECIDED, "--quiet", "--a2atune", self.a2atune)
        self.assertEqual(rc, 0, err)
        online = [e for e in made if "A2A_TUNING_OUT" in e]
        self.assertEqual(len(online), 1, made)
        self.assertNotIn("A2A_VERBOSE", online[0])
        self.assertTrue(all("A2A_VERBOSE" not in e for e in made), made)
        self.assertTrue(all("ONLINE_LOOP_CONNECT" not in e for e in made), made)
        # the fixed runs: the stand-in a2atune's candidates, the MPI library's by a file
        fixed = sorted(os.path.basename(e["A2A_TUNING_FILE"]) for e in made
                       if "A2A_TUNING_FILE" in e and "A2A_TUNING" not in e)
        self.assertEqual(fixed, ["fixed-MPI_library.json", "fixed-tra_radix_2.json"])
        with open(os.path.join(self.dir, "quiet.launches.a2atune")) as f:
            self.assertEqual(f.read(), "candidates --P 2 --S 16 --collective alltoall --json\n")
        rec, = recs
        self.assertTrue(rec["quiet"])
        self.assertEqual((rec["P"], rec["candidates"], rec["choices"], rec["drifts"]),
                         (2, "MPI library; tra radix=2", ["tra radix=2@9"], [None]))
        self.assertEqual(rec["online"][1:4], ["tra radix=2", 9, 8])
        self.assertIn("chose tra radix=2@9 (drifts -);", self.table)
        # the page's real section: "-" for the drift count not known, the quiet prose
        p = subprocess.run([PYTHON, TABLE, os.path.join(self.dir, "quiet.jsonl"), "--real",
                            os.path.join(self.dir, "quiet.jsonl")], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        section = p.stdout[p.stdout.index("## Real hardware: P = 2"):]
        self.assertIn("- alltoall 16 B: tra radix=2@9; drifts: -\n", section)
        self.assertIn("The online runs are launched without `A2A_VERBOSE`", section)

    def test_connect_reaches_every_launch_and_the_record(self):
        rc, err, made, recs = self.bench("connect", DECIDED, "--quiet", "--a2atune", self.a2atune,
                                         "--connect")
        self.assertEqual(rc, 0, err)
        self.assertGreaterEqual(len(made), 4, made)  # library, online, fixed, second run
        self.assertTrue(all(e.get("ONLINE_LOOP_CONNECT") == "1" for e in made), made)
        rec, = recs
        self.assertTrue(rec["connect"])
        p = subprocess.run([PYTHON, TABLE, os.path.join(self.dir, "connect.jsonl"), "--real",
                            os.path.join(self.dir, "connect.jsonl")], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Every launch first makes one untimed `MPI_Alltoall`", p.stdout)

    def test_reuse_across_connect_is_refused(self):
        rc, err, made, recs = self.bench("plain", DECIDED, "--quiet", "--a2atune", self.a2atune)
        self.assertEqual(rc, 0, err)
        rc, err, made, recs = self.bench("mixed", DECIDED, "--quiet", "--a2atune", self.a2atune,
                                         "--connect", "--reuse",
                                         os.path.join(self.dir, "plain.jsonl"))
        self.assertEqual(rc, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("made without --connect", err)
        self.assertEqual(recs, [])

    def test_verbose_run_keeps_its_lines_and_counts_drifts(self):
        rc, err, made, recs = self.bench("verbose", DECIDED)
        self.assertEqual(rc, 0, err)
        online = [e for e in made if "A2A_TUNING_OUT" in e]
        self.assertEqual([e.get("A2A_VERBOSE") for e in online], ["1"])
        rec, = recs
        self.assertNotIn("quiet", rec)
        self.assertEqual((rec["drifts"], rec["candidates"]),
                         ([1], "MPI library 6.0 us; tra radix=2 5.0 us"))

    def test_a_shape_left_undecided_is_recorded_as_such(self):
        for tag, summary, words in (("exploring", EXPLORING, "still exploring"),
                                    ("warmup", WARMUP, "on its warm-up")):
            with self.subTest(tag=tag):
                rc, err, made, recs = self.bench(tag, summary, "--quiet", "--a2atune",
                                                 self.a2atune)
                self.assertEqual(rc, 0, err)
                self.assertIn(words, err)
                rec, = recs
                self.assertIn(words, rec["choices"][0])
                self.assertIsNone(rec["online"][2])
                p = subprocess.run([PYTHON, TABLE, os.path.join(self.dir, tag + ".jsonl")],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn(words, p.stdout)

    def test_quiet_without_a2atune_is_one_line(self):
        rc, err, made, recs = self.bench("none", DECIDED, "--quiet")
        self.assertEqual(rc, 2)
        self.assertIn("--quiet: no a2atune program at", err.strip().splitlines()[-1])
        self.assertEqual((made, recs), ([], []))


if __name__ == "__main__":
    unittest.main()
