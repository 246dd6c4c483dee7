"""`a2a tune`: the decision rule, the three file formats, and bad input.

The fixture database (tests/scripts/fixture.ini) has TRA/TuNA and baselines but no forced
vendor algorithms: it makes the a2a file; the native files are built here from synthetic
decisions and read back the way the libraries read them (tests/preload/expect.py). That
the libraries obey real files is shown by tests/parts/tune.sh."""
import importlib.util
import json
import math
import os
import sqlite3
import tempfile
import unittest

from a2a_test_support import REPO, A2ATestCase, call, run, sql

from a2a_tools.tuner import tune

_spec = importlib.util.spec_from_file_location(
    "expect", os.path.join(REPO, "tests", "preload", "expect.py"))
expect = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(expect)


def candidate(kernel, median, iqr=0.0, family="uniform", rid=1, **params):
    """A Candidate from a synthetic results row."""
    return tune.Candidate({"kernel": kernel, "params": json.dumps(params), "median_s": median,
                           "q1_s": median - iqr / 2, "q3_s": median + iqr / 2, "family": family,
                           "run_id": 1, "id": rid})


class Decisions(unittest.TestCase):
    def test_clear_winner_beats_runner_up_by_more_than_the_iqr(self):
        d = tune.decide([candidate("vendor", 10e-6, 1e-6, vendor_algorithm=0),
                         candidate("tra", 5e-6, 1e-6, radix=2)])
        self.assertEqual(d.winner.kernel, "tra")
        self.assertEqual(d.runner_up.kernel, "vendor")
        self.assertIn("more than the noise", d.how)

    def test_within_the_iqr_the_simpler_wins(self):
        d = tune.decide([candidate("vendor", 10e-6, 4e-6, vendor_algorithm=0),
                         candidate("tra", 9.5e-6, 1e-6, radix=2)])
        self.assertEqual(d.winner.kernel, "vendor")       # 0.5 us faster: inside both noises
        self.assertEqual(d.runner_up.kernel, "tra")
        d = tune.decide([candidate("tuna", 9e-6, 3e-6, radix=2, block_count=1),
                         candidate("spread_out", 10e-6, 3e-6),
                         candidate("vendor", 20e-6, 1e-6, vendor_algorithm=0)])
        self.assertEqual(d.winner.kernel, "spread_out")   # fewer parameters; vendor is too slow

    def test_a_wide_iqr_does_not_hide_a_tight_lead(self):
        # measured at P = 2, 16 KiB: the library's choice is bimodal (first quartile 5.96 us,
        # median 8.50 us, third quartile 8.70 us); tra's IQR is 0.24 us. The larger IQR
        # would call the 42 % gap noise and pick the library's choice.
        d = tune.decide([candidate("vendor", 8.50e-6, 2.74e-6, vendor_algorithm=0),
                         candidate("tra", 5.99e-6, 0.24e-6, radix=2)])
        self.assertEqual(d.winner.kernel, "tra")
        self.assertIn("more than the noise", d.how)
        d = tune.decide([candidate("vendor", 6.20e-6, 2.74e-6, vendor_algorithm=0),
                         candidate("tra", 5.99e-6, 0.24e-6, radix=2)])
        self.assertEqual(d.winner.kernel, "vendor")       # 0.21 us: within both noises

    def test_forced_algorithms_rank_after_the_library_choice(self):
        d = tune.decide([candidate("vendor", 10e-6, 2e-6, vendor_algorithm=2),
                         candidate("vendor", 11e-6, 2e-6, vendor_algorithm=0),
                         candidate("vendor", 10.5e-6, 2e-6, vendor_algorithm=1)])
        self.assertEqual(d.winner.algorithm, 0)
        d = tune.decide([candidate("vendor", 10e-6, 2e-6, vendor_algorithm=3),
                         candidate("vendor", 10.5e-6, 2e-6, vendor_algorithm=1)])
        self.assertEqual(d.winner.algorithm, 3)           # equally simple: the faster

    def test_s_and_p_ranges(self):
        self.assertEqual(tune.s_bounds([16, 256, 4096]), [(0, 63), (64, 1023), (1024, None)])
        self.assertEqual(tune.s_bounds([1024]), [(0, None)])
        self.assertEqual(tune.p_bounds([2, 3, 4, 8]), [(2, 2), (3, 3), (4, 7), (8, 8)])


class NeverSlowerThanTheDefault(unittest.TestCase):
    """A choice replaces the library's default only where the default was measured and is
    beaten beyond the noise, or where the neighbouring cells make it sure (tune.py)."""

    def test_a_default_within_the_noise_of_the_fastest_is_the_choice(self):
        # tra's wide noise takes spread_out and the default into its band: the default is the
        # simplest of the band, so it stays, although spread_out has fewer parameters
        cands = [candidate("tra", 1.0e-6, 20e-6, radix=2), candidate("spread_out", 1.5e-6, 1e-6),
                 candidate("vendor", 1.05e-6, 0.1e-6, vendor_algorithm=0)]
        g = tune.guard_default(tune.decide(cands), cands)
        self.assertEqual(g.winner.kernel, "vendor")
        self.assertTrue(g.default_measured)

    def test_the_fastest_beats_the_default_where_the_simpler_choice_does_not(self):
        # as above, but tra is 0.2 us ahead of the default, beyond the default's 0.1 us: the
        # rule is the simplest of the fastest's band that beats the default (tra here), never
        # the default, which the views and `a2a best-radix` call slower beyond the noise
        cands = [candidate("tra", 1.0e-6, 20e-6, radix=2), candidate("spread_out", 1.5e-6, 1e-6),
                 candidate("vendor", 1.2e-6, 0.1e-6, vendor_algorithm=0)]
        d = tune.decide(cands)
        self.assertEqual(d.winner.kernel, "spread_out")
        g = tune.guard_default(d, cands)
        self.assertEqual((g.winner.kernel, g.runner_up.kernel), ("tra", "spread_out"))
        self.assertTrue(g.default_measured)
        self.assertIn("beats the library's default beyond the noise", g.how)

    def test_a_choice_beyond_the_noise_stays(self):
        cands = [candidate("tra", 5e-6, 0.1e-6, radix=2), candidate("vendor", 10e-6, 0.1e-6, vendor_algorithm=0)]
        g = tune.guard_default(tune.decide(cands), cands)
        self.assertEqual(g.winner.kernel, "tra")

    def neighbours(self, vendor_at_16):
        """Cells P = 8, S = 16 (tra 5 us, vendor as given) and S = 64 (tra alone, settled)."""
        cells = {(8, 16): [candidate("tra", 5e-6, 0.0, radix=2),
                           candidate("vendor", vendor_at_16, 0.0, vendor_algorithm=0)],
                 (8, 64): [candidate("tra", 6e-6, 0.0, radix=2)]}
        decisions = {c: tune.guard_default(tune.decide(v), v) for c, v in cells.items()}
        self.assertFalse(decisions[(8, 64)].default_measured)
        return tune.settle_defaults(decisions, cells)[(8, 64)]

    def test_an_unmeasured_default_beaten_2x_next_door_is_replaced_with_the_confidence(self):
        d = self.neighbours(10e-6)   # log(2) = 0.69 = 1.98 drifts of 0.35: confidence 0.976
        expected = 0.5 * math.erfc(-math.log(2) / tune.CELL_DRIFT / math.sqrt(2))
        self.assertGreater(expected, 0.95)
        self.assertEqual(d.winner.kernel, "tra")
        self.assertAlmostEqual(d.default_confidence, expected)
        self.assertIn("-50 %% at P = 8, S = 16 B (confidence %.3f)" % expected, d.how)

    def test_an_unmeasured_default_beaten_by_5_percent_next_door_stays(self):
        d = self.neighbours(5.25e-6)  # log(1.05) = 0.049 = 0.14 drifts: confidence 0.56 < 0.95
        self.assertIsInstance(d.winner, tune.LibraryDefault)
        self.assertAlmostEqual(d.default_confidence,
                               0.5 * math.erfc(-math.log(1.05) / tune.CELL_DRIFT / math.sqrt(2)))
        self.assertEqual(d.runner_up.kernel, "tra")

    def test_no_neighbour_measured_the_default(self):
        cells = {(8, 64): [candidate("tra", 6e-6, 0.0, radix=2)]}
        d = tune.settle_defaults({c: tune.guard_default(tune.decide(v), v) for c, v in cells.items()},
                                 cells)[(8, 64)]
        self.assertIsInstance(d.winner, tune.LibraryDefault)
        self.assertIn("no neighbouring cell measured both", d.how)

    def test_the_a2a_file_leaves_an_unsettled_cell_to_the_library(self):
        groups = {8: {16: [candidate("tra", 5e-6, 0.0, radix=2, rid=1),
                           candidate("vendor", 5.25e-6, 0.0, vendor_algorithm=0, rid=2)],
                      64: [candidate("tra", 6e-6, 0.0, radix=2, rid=3)]}}
        t = tune.Table("uniform", groups)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "a2a-tuning.json")
            tune.write_a2a(path, {"uniform": t}, {"mpi_library": "Open MPI"}, {"uniform": "constant"})
            rules = json.load(open(path))["alltoall"]
        self.assertEqual([(r["S"], r["kernel"]) for r in rules], [([0, 31], "tra"), ([32, None], "vendor")])
        self.assertIsNone(rules[1]["measured"][0]["median_s"])
        self.assertLess(rules[1]["measured"][0]["default_confidence"], 0.95)
        # the native Open MPI file names algorithm 0 (the library's fixed decision) there
        self.assertEqual(t.points[8][1][3].winner.algorithm, 0)

    def test_a_cell_the_tuner_did_not_measure_stays_the_librarys(self):
        # tra beats the measured default at 16 B; the tuner's grid also held 128 B and P = 16,
        # never measured: the rule at 16 B stops before 128 B (the geometric midpoint, 46),
        # and 128 B and P = 16 are the library's
        groups = {8: {16: [candidate("tra", 5e-6, 0.0, radix=2, rid=1),
                           candidate("vendor", 8e-6, 0.0, vendor_algorithm=0, rid=2)]}}
        grid = {(8, 16), (8, 128), (16, 16)}
        t = tune.Table("uniform", groups, grid=grid)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "a2a-tuning.json")
            tune.write_a2a(path, {"uniform": t}, {"mpi_library": "Open MPI"}, {"uniform": "constant"})
            with open(path) as f:
                rules = json.load(f)["alltoall"]
        self.assertEqual([(r["P"], r["S"], r["kernel"]) for r in rules],
                         [([8, 15], [0, 45], "tra"), ([8, 15], [46, None], "vendor"),
                          ([16, 16], [0, None], "vendor")])
        self.assertEqual(t.points[8][1][3].how, "not measured by the tuner: the library decides")
        # without the grid the rule at 16 B covers every S of P = 8 and up (the old reach)
        plain = tune.Table("uniform", groups)
        self.assertEqual([(S, lo, hi, d.winner.kernel) for S, lo, hi, d in plain.points[8]],
                         [(16, 0, None, "tra")])
        # the evaluation reads the tuning file the same way (regret.choices)
        from a2a_tools.tuner import regret
        rows = {(("uniform",), 8, 16): [{"config_key": "a"}]}
        picks = regret.choices(rows, [(("uniform",), 8, 16), (("uniform",), 8, 128)],
                               lambda r: ("tra", "{}"))
        self.assertEqual(picks, {(("uniform",), 8, 16): ("tra", "{}"), (("uniform",), 8, 128): None})



def synthetic_table(family, points, allowed=None):
    """A Table from {P: {S: [(algorithm, median)]}} of vendor candidates, decided without the
    library's default guard (these tests are of the files' formats)."""
    groups = {P: {S: [candidate("vendor", m, 0.0, family, vendor_algorithm=a) for a, m in cands]
                  for S, cands in by_s.items()} for P, by_s in points.items()}
    return tune.Table(family, groups, allowed, guard=False)


PROV = {"database": "/x.db", "runs": [1], "mpi_version": "Open MPI v4.1.4", "hosts": ["h"],
        "oversubscribed": False}


class NativeFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="a2a-tune.")

    def tearDown(self):
        self.tmp.cleanup()

    def test_openmpi_rules_read_back(self):
        uniform = synthetic_table("uniform", {
            2: {16: [(5, 1e-6), (2, 2e-6)], 4096: [(2, 1e-6), (5, 3e-6)]},
            3: {16: [(0, 1e-6), (4, 2e-6)]},
            4: {16: [(3, 1e-6), (1, 2e-6)], 1024: [(1, 1e-6), (3, 2e-6)],
                65536: [(1, 1e-6), (2, 2e-6)]}},
            allowed=lambda c, lo, hi: c.algorithm != 5 or (lo, hi) == (2, 2))
        nonuniform = synthetic_table("nonuniform", {
            4: {16: [(2, 1e-6), (1, 2e-6)], 1024: [(2, 1e-6), (1, 2e-6)],
                4096: [(1, 1e-6), (2, 2e-6)]}})
        path = os.path.join(self.tmp.name, "rules.conf")
        tune.write_openmpi(path, {"uniform": uniform, "nonuniform": nonuniform}, PROV)
        rules = expect.read_openmpi(path)
        self.assertEqual([c[0] for c in rules["alltoall"]], [1, 2, 3, 4, 5])
        look = expect.openmpi_choice
        self.assertEqual(look(rules, "alltoall", 1, 16), 0)       # below the measured P
        self.assertEqual(look(rules, "alltoall", 2, 16), 5)       # two_proc: P range [2, 2]
        self.assertEqual(look(rules, "alltoall", 2, 100000), 2)
        self.assertEqual(look(rules, "alltoall", 3, 16), 0)       # its fixed decision won
        self.assertEqual(look(rules, "alltoall", 4, 16), 3)
        self.assertEqual(look(rules, "alltoall", 4, 127), 3)      # up to the geometric midpoint
        self.assertEqual(look(rules, "alltoall", 4, 128), 1)      # (total bytes: block * P)
        self.assertEqual(look(rules, "alltoall", 4, 10 ** 6), 1)  # merged with the last S
        self.assertEqual(look(rules, "alltoall", 5, 16), 0)       # above the measured P
        self.assertEqual(look(rules, "alltoallv", 4, 16), 2)      # wins at 2 of 3 S
        with open(path) as f:
            numbers = [x for line in f for x in line.split("#")[0].split()]
        self.assertEqual(numbers[:3], ["2", "3", "5"])         # collectives, alltoall, sizes
        self.assertEqual([c[0] for c in rules["alltoallv"]], [1, 4, 5])

    def test_two_proc_only_for_p_2_alone(self):
        t = synthetic_table("uniform", {2: {16: [(5, 1e-6), (2, 2e-6)]}, 4: {16: [(1, 1e-6)]}},
                            allowed=lambda c, lo, hi: c.algorithm != 5 or (lo, hi) == (2, 2))
        self.assertEqual(t.points[2][0][3].winner.algorithm, 2)  # P 2 stands for 2..3 here

    def test_mpich_tree_keeps_the_rest_of_the_default(self):
        default = {
            "collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}},
            "collective=alltoall": {
                "comm_type=intra": {"is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
                                    "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoall_intra_scattered": {}}},
                "comm_type=inter": {"algorithm=MPIR_Alltoall_inter_pairwise_exchange": {}}},
            "collective=alltoallv": {
                "comm_type=intra": {"algorithm=MPIR_Alltoallv_intra_scattered": {}}}}
        uniform = synthetic_table("uniform", {4: {16: [(1, 1e-6), (3, 2e-6)],
                                                  4096: [(3, 1e-6), (1, 2e-6)]}})
        nonuniform = synthetic_table("nonuniform", {4: {16: [(1, 1e-6), (2, 2e-6)]}})
        path = os.path.join(self.tmp.name, "mpich.json")
        tune.write_mpich(path, {"uniform": uniform, "nonuniform": nonuniform}, PROV, default, "test")
        with open(path) as f:
            tree = json.load(f)
        self.assertEqual(tree["collective=bcast"], default["collective=bcast"])
        self.assertEqual(tree["collective=alltoall"]["comm_type=inter"],
                         default["collective=alltoall"]["comm_type=inter"])
        choice = expect.mpich_choice
        self.assertEqual(choice(tree, "alltoall", 4, 16), "MPIR_Alltoall_intra_brucks")
        self.assertEqual(choice(tree, "alltoall", 4, 255), "MPIR_Alltoall_intra_brucks")
        self.assertEqual(choice(tree, "alltoall", 4, 256), "MPIR_Alltoall_intra_pairwise")
        self.assertEqual(choice(tree, "alltoall", 3, 16), "MPIR_Alltoall_intra_scattered")  # default
        self.assertEqual(choice(tree, "alltoall", 8, 16), "MPIR_Alltoall_intra_scattered")
        self.assertEqual(choice(tree, "alltoallv", 4, 16), "MPIR_Alltoallv_allcomm_nb")
        self.assertEqual(choice(tree, "alltoallv", 5, 16), "MPIR_Alltoallv_intra_scattered")
        intra = tree["collective=alltoall"]["comm_type=intra"]
        self.assertEqual(list(intra), ["is_sendbuf_inplace=no", "is_sendbuf_inplace=yes"])

    def test_default_tree_of_the_installed_mpich(self):
        tree, source = tune.mpich_default_tree(None)
        if tree is None:
            self.skipTest("no libmpich installed")
        self.assertIn("collective=alltoall", tree)
        self.assertIn("collective=barrier", tree)
        self.assertIn("libmpich", source)


class A2aFile(A2ATestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.TemporaryDirectory(prefix="a2a-tune.")
        rc, cls.out, err = call("tune", "--db", cls.db, "--out", cls.tmp.name, "--files", "a2a",
                                "--format", "csv")
        assert rc == 0 and not err, err
        with open(os.path.join(cls.tmp.name, "a2a-tuning.json")) as f:
            cls.doc = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_header(self):
        self.assertEqual((self.doc["format"], self.doc["version"]), ("a2a-tuning", 1))
        self.assertEqual(self.doc["mpi_library"], "Open MPI")
        self.assertEqual(self.doc["runs"], [1, 2])
        self.assertEqual(self.doc["data"], {"alltoall": "constant", "alltoallv": "uniform"})

    def test_rules_cover_every_measured_p_and_all_sizes(self):
        for coll, family in (("alltoall", "uniform"), ("alltoallv", "nonuniform")):
            ps = [r[0] for r in sql("SELECT DISTINCT P FROM results WHERE family = ? AND "
                                    "status = 'ok' ORDER BY P", (family,))]
            rules = self.doc[coll]
            self.assertEqual(sorted({r["P"][0] for r in rules}), ps)
            for P in ps:
                mine = [r for r in rules if r["P"][0] == P]
                self.assertEqual(mine[0]["S"][0], 0)
                self.assertIsNone(mine[-1]["S"][1])
                for a, b in zip(mine, mine[1:]):
                    self.assertEqual(a["S"][1] + 1, b["S"][0])
                    self.assertNotEqual((a["kernel"], a["params"]), (b["kernel"], b["params"]))

    def test_each_rule_is_a_measured_ok_row(self):
        for coll in ("alltoall", "alltoallv"):
            for rule in self.doc[coll]:
                for m in rule["measured"]:
                    kernel, params, P, S, median = sql(
                        "SELECT kernel, params, P, S, median_s FROM results WHERE id = ? "
                        "AND status = 'ok'", (m["result_id"],))[0]
                    self.assertEqual((kernel, json.loads(params)), (rule["kernel"], rule["params"]))
                    self.assertEqual((P, S), (m["P"], m["S"]))
                    self.assertAlmostEqual(median, m["median_s"], delta=median * 1e-3)

    def test_decision_table_rows(self):
        lines = self.out.splitlines()
        self.assertEqual(lines[0].split(",")[:6], ["file", "collective", "P", "S", "covers", "choice"])
        n = sql("SELECT count(*) FROM (SELECT DISTINCT family, P, S FROM results WHERE status = 'ok'"
                " AND dist IN ('constant', 'uniform'))")[0][0]
        self.assertEqual(len(lines) - 1, n)

    def test_kernel_choice_is_restricted(self):
        with tempfile.TemporaryDirectory() as d:
            self.ok("tune", "--out", d, "--files", "a2a", "--kernel", "tra", "--format", "json")
            with open(os.path.join(d, "a2a-tuning.json")) as f:
                doc = json.load(f)
        self.assertLessEqual({r["kernel"] for r in doc["alltoall"]}, {"tra", "vendor"})

    def test_default_files_say_what_was_not_written(self):
        with tempfile.TemporaryDirectory() as d:
            out = self.ok("tune", "--out", d)
            self.assertEqual(os.listdir(d), ["a2a-tuning.json"])
        self.assertIn("openmpi-rules.conf: not written (no ok Open MPI results of vendor with "
                      "vendor_algorithm >= 1", out)
        self.assertIn("mpich-tuning.json: not written", out)


class BadInput(A2ATestCase):
    def bad(self, *args, want):
        with tempfile.TemporaryDirectory() as d:
            p = run("tune", "--out", d, *args)
            self.assertEqual(os.listdir(d), [])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertTrue(lines[0].startswith("a2a: "))
        self.assertIn(want, lines[0])

    def test_missing_and_foreign_databases(self):
        with tempfile.TemporaryDirectory() as d:
            self.bad("--db", os.path.join(d, "none.db"), want="no such database")
            foreign = os.path.join(d, "foreign.db")
            conn = sqlite3.connect(foreign)
            conn.execute("CREATE TABLE results(x)")
            conn.commit()
            conn.close()
            self.bad("--db", foreign, want="not an a2atune database")

    def test_empty_selection(self):
        self.bad("--db", self.db, "--P", "99", want="no ok timed results")
        self.bad("--db", self.db, "--dist", "powerlaw", want="--dist powerlaw")

    def test_unknown_kernel(self):
        self.bad("--db", self.db, "--kernel", "nosuch", want="unknown kernel 'nosuch'")

    def test_files_the_database_cannot_make(self):
        self.bad("--db", self.db, "--files", "openmpi", want="vendor_algorithm >= 1")
        self.bad("--db", self.db, "--files", "mpich", want="no ok MPICH results")
        self.bad("--db", self.db, "--files", "a2a,gcc", want="unknown file 'gcc'")
        self.bad("--db", self.db, "--files", "a2a", "--mpi", "mpich", want="--mpi mpich")

    def test_in_process_exit_status(self):
        rc, out, err = call("tune", "--db", self.db, "--kernel", "nosuch")
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(len(err.splitlines()), 1)
