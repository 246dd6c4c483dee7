"""a2a model: K and D in Python equal the C model (`a2atune model`) and the paper."""
import os
import subprocess
import unittest

from a2a_test_support import A2ATUNE, call
from a2a_tools.figures import model
from a2a_tools.core import vlist


def brute_force(P, r):
    """K and D by enumerating rounds (x, z) and the blocks whose digit x is z."""
    w = model.digits(P, r)
    K = D = 0
    for x in range(w):
        for z in range(1, r):
            h = sum(1 for i in range(P) if (i // r ** x) % r == z)
            if h:
                K += 1
                D += h
    return K, D


class ModelValues(unittest.TestCase):
    def test_paper_examples(self):
        self.assertEqual(model.rounds(16384, 128), 254)
        self.assertEqual(model.blocks(16384, 128), 32512)
        self.assertEqual(model.blocks(16384, 2), 114688)
        self.assertEqual(model.rounds(16384, 2), 14)

    def test_propositions_1_2_for_powers(self):
        for r in range(2, 9):
            for w in range(1, 6):
                P = r ** w
                self.assertEqual(model.rounds(P, r), w * (r - 1), (P, r))
                self.assertEqual(model.blocks(P, r), w * (r - 1) * r ** (w - 1), (P, r))

    def test_against_brute_force(self):
        for P in range(1, 70):
            for r in range(2, P + 2):
                self.assertEqual((model.rounds(P, r), model.blocks(P, r)), brute_force(P, r),
                                 (P, r))
                w = model.digits(P, r)
                hs = sum(model.round_blocks(P, r, x, z) for x in range(w) for z in range(1, r))
                self.assertEqual(hs, model.blocks(P, r), (P, r))

    def test_optimal_radix(self):
        # latency only: the fewest rounds (r = 2); bandwidth only: the fewest blocks (r = P-1)
        self.assertEqual(model.optimal_radix(64, 0, alpha=1e-6, beta=1e-9), 2)
        self.assertEqual(model.optimal_radix(64, 1 << 30, alpha=1e-6, beta=1e-9), 63)
        r = model.optimal_radix(1024, 256)
        times = {k: model.model_time(1024, k, 256) for k in range(2, 1025)}
        self.assertEqual(times[r], min(times.values()))

    def test_value_lists(self):
        self.assertEqual(vlist.parse("16..16K:*4"), [16, 64, 256, 1024, 4096, 16384])
        self.assertEqual(vlist.parse("2..P", {"P": 5}), [2, 3, 4, 5])
        self.assertEqual(vlist.parse("sqrt, sqrt(P)+1, log2(P), P/3, 2", {"P": 10}), [3, 4, 2])
        self.assertEqual(vlist.parse("1K, 1KiB, 2M, 1G"), [1024, 2 << 20, 1 << 30])
        self.assertEqual(vlist.parse("min(4, P-1), max(2, 1)", {"P": 3}), [2])


@unittest.skipUnless(os.access(A2ATUNE, os.X_OK), "no ./a2atune binary (run make)")
class ModelMatchesC(unittest.TestCase):
    def compare(self, P, radix):
        c = subprocess.run([A2ATUNE, "model", "--P", P, "--radix", radix], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(c.returncode, 0, c.stderr)
        rc, out, err = call("model", "--P", P, "--radix", radix)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, c.stdout)
        return out.count("\n") - 1

    def test_every_radix_small_P(self):
        self.assertEqual(self.compare("1..130", "2..P"), sum(max(0, P - 1) for P in range(1, 131)))

    def test_large_P(self):
        n = self.compare("1000, 1023, 1024, 1025, 4095, 4096, 10000, 16383, 16384, 65537, 1M, "
                         "1000003",
                         "2, 3, 4, 5, 7, 8, 10, 16, 31, 32, 100, 127, 128, 129, 1000, sqrt, "
                         "P/2, P-1, P")
        self.assertGreater(n, 200)

    def test_paper_line(self):
        self.compare("16384", "2,128")
        rc, out, _ = call("model", "--P", "16384", "--radix", "2,128")
        self.assertIn("     16384        128    2          254            32512", out)
        self.assertIn("     16384          2   14           14           114688", out)

    def test_model_time_formats(self):
        rc, out, err = call("model", "--P", "8", "--S", "1K", "--format", "csv")
        self.assertEqual((rc, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0], "P,radix,w,K,D,model_s,optimal")
        self.assertEqual(len(lines), 1 + 7)
        self.assertEqual([l.split(",")[-1] for l in lines[1:]].count("*"), 1)


if __name__ == "__main__":
    unittest.main()
