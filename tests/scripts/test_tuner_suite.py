"""The tuner's evaluation suite (a2a_tools/tuner/tuner_suite.py): its frozen data sets are
the dumps they were when frozen, and a changed one is refused; a2a tune's CELL_DRIFT is what
the development sets measure."""
import json
import math
import os
import re
import shutil
import tempfile
import unittest

from a2a_test_support import REPO

from a2a_tools.core.common import A2AError
from a2a_tools.core.db import open_db
from a2a_tools.tuner import regret, tune, tuner_suite


class FrozenDataSets(unittest.TestCase):
    def test_every_frozen_data_set_hashes_to_its_record(self):
        frozen = [d for d in tuner_suite.SUITE if d.frozen]
        self.assertTrue(frozen, "the suite keeps a frozen data set")
        for d in frozen:
            self.assertRegex(d.frozen, r"^[0-9a-f]{64}$")
            self.assertEqual(tuner_suite.sql_digest(d), d.frozen, d.name)
            tuner_suite.check_frozen(d)   # no error

    def test_a_changed_dump_is_refused(self):
        d = next(d for d in tuner_suite.SUITE if d.frozen)
        with tempfile.TemporaryDirectory(prefix="a2a-frozen.") as tmp:
            copy = os.path.join(tmp, "changed.sql")
            shutil.copyfile(os.path.join(REPO, d.sql[0]), copy)
            with open(copy, "a") as f:
                f.write("-- one more line\n")
            changed = d._replace(sql=[copy])
            with self.assertRaises(A2AError) as e:
                tuner_suite.check_frozen(changed)
            self.assertIn("is frozen", str(e.exception))
            with self.assertRaises(A2AError):
                tuner_suite.load_dataset(changed, tmp)
            self.assertFalse(os.path.exists(os.path.join(tmp, d.name + ".db")))


class Contexts(unittest.TestCase):
    def test_a_normal_distribution_scaled_with_s_is_one_context(self):
        row = lambda S, mean, sd: {"family": "nonuniform", "dist": "normal", "S": S,
                                   "dist_params": '{"mean":%s,"sd":%s}' % (mean, sd),
                                   "payload": "pattern", "datatype": "byte", "gap": 0}
        scaled = [regret.context_of(row(S, S * 1000 / 1024, S * 240 / 1024)) for S in (24, 1536, 49152)]
        self.assertEqual(len(set(scaled)), 1, scaled)
        self.assertNotEqual(regret.context_of(row(1024, 1000, 240)),
                            regret.context_of(row(1024, 500, 240)))


class WhyMissed(unittest.TestCase):
    def test_each_reason(self):
        def row(kernel, median, **params):
            return {"kernel": kernel, "params": json.dumps(params), "median_s": median}
        default, slow, best = row("vendor", 3.0, vendor_algorithm=0), row("tra", 2.0, radix=2), \
            row("tra", 1.0, radix=4)
        cands = {regret.arm_of(r): r for r in (default, slow, best)}
        why = tuner_suite.why_missed
        self.assertEqual(why(cands, [], None), "no measurement in the cell")
        self.assertEqual(why(cands, [default, slow], regret.arm_of(slow)),
                         "the best (tra radix=4) not measured")
        self.assertEqual(why(cands, [slow, best], None),
                         "the library's default kept (not measured here)")
        self.assertEqual(why(cands, [default, slow, best], regret.arm_of(slow)),
                         "the best measured, another chosen within the noise")


class NeverSlowerDrift(unittest.TestCase):
    def test_neighbour_drift_by_hand(self):
        default, other = tune.LibraryDefault.key, ("tra", '{"radix": 2}')
        row = lambda arm, median: {"kernel": arm[0], "params": arm[1], "median_s": median,
                                   "q1_s": median, "q3_s": median}
        cells = {("ctx", 8, 16): {default: row(default, 2.0), other: row(other, 1.0)},   # log 2 faster
                 ("ctx", 8, 64): {default: row(default, 1.0), other: row(other, 1.0)},   # even
                 ("ctx", 16, 16): {default: row(default, 1.0), other: row(other, 2.0)}}  # log 2 slower
        # pairs whose neighbour makes `other` faster: (8,64)<-(8,16): 0 - log 2;
        # (16,16)<-(8,16): -log 2 - log 2
        rms, n = tuner_suite.neighbour_drift(cells)
        self.assertEqual(n, 2)
        self.assertAlmostEqual(rms, math.sqrt((math.log(2) ** 2 + (2 * math.log(2)) ** 2) / 2))

    def test_cell_drift_is_what_the_development_sets_measure(self):
        values = []
        with tempfile.TemporaryDirectory(prefix="a2a-drift.") as tmp:
            for d in tuner_suite.SUITE:
                if d.frozen:
                    continue
                db = open_db(tuner_suite.load_dataset(d, tmp))
                try:
                    rms, n = tuner_suite.neighbour_drift(regret.load_exhaustive(db))
                finally:
                    db.conn.close()
                if n:
                    values.append(rms)
        mean = sum(values) / len(values)
        self.assertLessEqual(abs(mean - tune.CELL_DRIFT), 0.025,
                             "CELL_DRIFT %.2f, the development sets measure %.3f"
                             % (tune.CELL_DRIFT, mean))

    def test_the_search_assumes_the_same_drift(self):
        with open(os.path.join(REPO, "harness", "tuner", "tuner.c")) as f:
            value = re.search(r"#define DEFAULT_DRIFT ([0-9.]+)", f.read()).group(1)
        self.assertEqual(float(value), tune.CELL_DRIFT)


if __name__ == "__main__":
    unittest.main()
