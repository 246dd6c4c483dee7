"""`a2a prior` (a2a_tools/simulation/prior.py): the keys it reads, what the model tier prices,
the file it writes for a2atune tune --prior; and the suite's priors, each on a platform other
than the one its data set was simulated on."""
import hashlib
import os
import sqlite3
import tempfile
import unittest

from a2a_test_support import REPO

from a2a_tools.core.common import A2AError
from a2a_tools.simulation import prior
from a2a_tools.tuner import tuner_suite

TUNA = ("nonuniform|nonuniform|tuna|P=60|Q=48|S=4096|dist=powerlaw(exponent=0.95)|payload=pattern|"
        "type=byte|gap=0|it=1|wu=1|seed=3|radix=8|block_count=2")
VENDOR = ("uniform|uniform|vendor|P=24|Q=24|S=16|dist=constant()|payload=pattern|type=byte|gap=0|"
          "it=1|wu=1|seed=1|vendor_algorithm=0")


class Keys(unittest.TestCase):
    def test_a_key_gives_its_exchange_and_parameters(self):
        self.assertEqual(prior.parse_key(TUNA), ("nonuniform", "tuna", 60, 48, 4096, "powerlaw", 3,
                                                 {"radix": 8, "block_count": 2}))
        self.assertEqual(prior.parse_key(VENDOR)[:6], ("uniform", "vendor", 24, 24, 16, "constant"))

    def test_a_foreign_key_is_refused(self):
        for bad in ("tra", "uniform|x|tra|P=two|S=16"):
            with self.assertRaises(A2AError):
                prior.parse_key(bad)

    def test_what_the_model_tier_prices(self):
        self.assertEqual(prior.model_schedule("uniform", "tra", {"radix": 4}), ("tra", {"radix": 4}))
        self.assertEqual(prior.model_schedule("nonuniform", "tuna", {"radix": 8, "block_count": 2}),
                         ("tuna", {"radix": 8, "block_count": 2}))
        # the library's own choice: SMPI's ring is the pairwise schedule; a real library's not known
        self.assertEqual(prior.model_schedule("uniform", "vendor", {"vendor_algorithm": 0}, "ring"),
                         ("pairwise", {}))
        self.assertIsNone(prior.model_schedule("uniform", "vendor", {"vendor_algorithm": 0}))
        self.assertIsNone(prior.model_schedule("uniform", "vendor", {"vendor_algorithm": 3}, "ring"))
        self.assertIsNone(prior.model_schedule("nonuniform", "vendor", {"vendor_algorithm": 0}, "ring"))
        self.assertIsNone(prior.model_schedule("nonuniform", "linear", {}))


class File(unittest.TestCase):
    def test_one_line_per_configuration_and_the_platform_named(self):
        with tempfile.TemporaryDirectory(prefix="a2a-prior.") as tmp:
            platform = os.path.join(tmp, "cluster.xml")
            with open(platform, "w") as f:
                f.write("<platform/>\n")
            out = os.path.join(tmp, "prior.tsv")
            prior.write_prior(out, {VENDOR: 2.5e-6, TUNA: 1e-3}, platform, "a test")
            with open(out) as f:
                lines = f.read().splitlines()
            digest = hashlib.sha256(b"<platform/>\n").hexdigest()
            self.assertIn("# platform: cluster.xml sha256=%s" % digest, lines)
            data = [line for line in lines if not line.startswith("#")]
            self.assertEqual(data, ["%s\t0.001" % TUNA, "%s\t2.5e-06" % VENDOR])
            self.assertFalse(os.path.exists(out + ".part"))


class SuitePriors(unittest.TestCase):
    def test_every_simulated_data_set_is_priced_on_another_platform(self):
        with tempfile.TemporaryDirectory(prefix="a2a-prior-suite.") as tmp:
            for d in tuner_suite.SUITE:
                self.assertIsNotNone(d.prior, d.name)
                self.assertTrue(os.path.exists(os.path.join(REPO, d.prior.platform)), d.name)
                path = tuner_suite.load_dataset(d, tmp)
                conn = sqlite3.connect(path)
                used = {p for (p,) in conn.execute("SELECT DISTINCT platform FROM runs") if p}
                conn.close()
                self.assertNotIn(os.path.basename(d.prior.platform), used, d.name)


if __name__ == "__main__":
    unittest.main()
