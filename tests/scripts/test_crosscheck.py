"""a2a crosscheck: winners and pairwise order of a simulated ranking against a real one."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from a2a_tools.simulation import crosscheck  # noqa: E402
from a2a_tools.core.common import A2AError  # noqa: E402

CELL = ("uniform", "constant", 2, 4096)
A, B, C = ("tra", '{"radix": 2}'), ("pairwise", "{}"), ("bruck", "{}")


class Compare(unittest.TestCase):
    def test_same_order_agrees(self):
        real = {CELL: {A: (1.0, 0.01), B: (2.0, 0.01), C: (3.0, 0.01)}}
        sim = {CELL: {A: (5.0, 0.0), B: (6.0, 0.0), C: (7.0, 0.0)}}
        c = crosscheck.compare(real, sim)[0]
        self.assertEqual((c["winner"], c["pairs_decided"], c["pairs_agree"]), ("agree", 3, 3))
        self.assertEqual(c["real_best"], "tra radix=2")

    def test_winner_within_the_real_noise_is_a_tie(self):
        real = {CELL: {A: (1.0, 0.2), B: (1.1, 0.2), C: (3.0, 0.01)}}
        sim = {CELL: {A: (6.0, 0.0), B: (5.0, 0.0), C: (7.0, 0.0)}}
        c = crosscheck.compare(real, sim)[0]
        # A and B are not told apart by the real runs: no decided pair between them
        self.assertEqual((c["winner"], c["pairs_decided"], c["pairs_agree"]), ("tie", 2, 2))

    def test_reversed_order_differs(self):
        real = {CELL: {A: (1.0, 0.01), B: (2.0, 0.01)}}
        sim = {CELL: {A: (2.0, 0.0), B: (1.0, 0.0)}}
        c = crosscheck.compare(real, sim)[0]
        self.assertEqual((c["winner"], c["pairs_decided"], c["pairs_agree"]), ("differ", 1, 0))
        self.assertAlmostEqual(c["sim_best_real_slowdown"], 1.0)

    def test_nothing_in_common_is_bad_input(self):
        with self.assertRaises(A2AError):
            crosscheck.compare({CELL: {A: (1.0, 0.0)}}, {CELL: {B: (1.0, 0.0)}})


if __name__ == "__main__":
    unittest.main()
