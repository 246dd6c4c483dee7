"""The tuner's evaluation suite (a2a_tools/tuner/tuner_suite.py): its frozen data sets are
the dumps they were when frozen, and a changed one is refused."""
import os
import shutil
import tempfile
import unittest

from a2a_test_support import REPO

from a2a_tools.core.common import A2AError
from a2a_tools.tuner import tuner_suite


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


if __name__ == "__main__":
    unittest.main()
