"""a2a heatmap and a2a curves: PNG and SVG files that exist and hold a picture."""
import os

from a2a_test_support import A2ATestCase, out_dir


class Figures(A2ATestCase):
    def figures(self, *args):
        out = self.ok(*args).split()
        for path in out:
            self.assertTrue(os.path.isfile(path), path)
        return out

    def assertSvg(self, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("<svg", text[:2000])
        self.assertGreater(len(text), 10000)
        return text

    def test_heatmap_tra(self):
        d = out_dir("heatmap")
        paths = self.figures("heatmap", "--kernel", "tra", "--baseline", "vendor", "--run", "1",
                             "--out", d)
        self.assertEqual([os.path.basename(p) for p in paths],
                         ["heatmap_tra_vs_vendor_run1_constant.png",
                          "heatmap_tra_vs_vendor_run1_constant.svg",
                          "heatmap_tra_vs_vendor_run1_constant.csv"])
        with open(paths[2], encoding="utf-8") as f:
            numbers = f.read().splitlines()
        self.assertTrue(numbers[0].startswith("run,kernel,P,S,radix,"), numbers[0])
        self.assertIn(",vendor,", numbers[1])
        self.assertPng(paths[0])
        svg = self.assertSvg(paths[1])
        for text in ("Open MPI", "oversubscribed", "P (processes", "block size per destination", "4 KiB",
                     "speedup over vendor", "git "):
            self.assertIn(text, svg)

    def test_heatmap_tuna_default_run(self):
        d = out_dir("heatmap-tuna")
        paths = self.figures("heatmap", "--kernel", "tuna", "--out", d)
        self.assertEqual(os.path.basename(paths[0]), "heatmap_tuna_vs_vendor_run1_uniform.png")
        self.assertPng(paths[0])

    def test_curves(self):
        d = out_dir("curves")
        paths = self.figures("curves", "--kernel", "tra", "--run", "1", "--out", d)
        self.assertEqual(sorted(os.path.basename(p) for p in paths if p.endswith(".png")),
                         ["curves_tra_P2_run1_constant.png", "curves_tra_P3_run1_constant.png",
                          "curves_tra_P4_run1_constant.png"])
        for p in paths:
            if p.endswith(".png"):
                self.assertPng(p)
        svg = self.assertSvg(os.path.join(d, "curves_tra_P4_run1_constant.svg"))
        for text in ("radix r", "time per call", "vendor median", "model-optimal radix",
                     "S = 4 KiB", "Open MPI"):
            self.assertIn(text, svg)

    def test_curves_tuna_one_P(self):
        d = out_dir("curves-tuna")
        paths = self.figures("curves", "--kernel", "tuna", "--P", "4", "--S", "256,4K",
                             "--log-time", "--out", d)
        self.assertEqual([os.path.basename(p) for p in paths],
                         ["curves_tuna_P4_run1_uniform.png", "curves_tuna_P4_run1_uniform.svg",
                          "curves_tuna_P4_run1_uniform.csv"])
        self.assertPng(paths[0])
