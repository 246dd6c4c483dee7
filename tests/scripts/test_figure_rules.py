"""The rules of the figures, checked on the data behind them (never on pixels): the
heatmap's colour scale (log, centred on x1, capped, diverging), markers only beyond the
noise and ties drawn as ties, oversubscription per P, radix labels, block_count per radix;
curves' integer radix ticks, error bars above the reference lines, one time unit, the
model's alpha and beta; best-radix and tune flags; sizes written as 16 KiB."""
import argparse
import csv
import io
import json
import math
import os
import unittest

from a2a_test_support import A2ATestCase, out_dir, sql

from a2a_tools.figures import analysis, curves, heatmap  # noqa: E402
from a2a_tools.figures.simruns import baseline_label, simulation_model  # noqa: E402
from a2a_tools.tuner import tune  # noqa: E402
from a2a_tools.core.common import fmt_size  # noqa: E402


def row(radix, median, iqr=0.0, over=0, kernel="tra", **params):
    params = dict(params, radix=radix) if radix is not None else params
    return {"radix": radix, "median_s": median, "q1_s": median - iqr / 2,
            "q3_s": median + iqr / 2, "oversubscribed": over, "kernel": kernel,
            "params": json.dumps(params), "id": 0, "run_id": 1, "family": "uniform"}


def group(P, S, rows, base=None):
    g = analysis.Group((1, "uniform", P, S, "constant", "pattern", "byte", 0))
    for r in rows:
        g.rows.append(r)
        if r["radix"] not in g.by_radix or r["median_s"] < g.by_radix[r["radix"]]["median_s"]:
            g.by_radix[r["radix"]] = r
    g.baseline = base
    return g


class ColourScale(unittest.TestCase):
    def test_one_outlier_does_not_flatten_the_rest(self):
        # the case: cells x1.02 .. x1.68 and one x13.5
        speedups = [1.02, 1.1, 1.15, 1.2, 1.3, 1.35, 1.4, 1.5, 1.6, 1.68, 13.5]
        scale = analysis.colour_scale(speedups)
        self.assertAlmostEqual(scale.vmin * scale.vmax, 1.0)       # centred on x1
        self.assertLess(scale.vmax, 3.0)
        self.assertEqual(scale.beyond, 1)                          # the outlier, at the cap

        def norm(x):     # what LogNorm(vmin, vmax, clip=True) gives
            v = (math.log(x) - math.log(scale.vmin)) / (math.log(scale.vmax) - math.log(scale.vmin))
            return min(1.0, max(0.0, v))
        self.assertAlmostEqual(norm(1.0), 0.5)
        self.assertGreater(norm(1.68) - norm(1.02), 0.3)           # spread over the scale
        self.assertLess(norm(0.7), 0.5)                            # slower: the other half

    def test_caps_and_limits(self):
        self.assertEqual(analysis.colour_scale([]).cap, 1.25)
        self.assertEqual(analysis.colour_scale([1.01, 0.99]).cap, 1.25)   # noise stays pale
        self.assertEqual(analysis.colour_scale([100.0] * 5).cap, 16.0)
        self.assertEqual(analysis.colour_scale([0.3] * 10).cap, 4.0)      # slower counts too

    def test_plan_and_diverging_colours(self):
        g = group(4, 16, [row(2, 1.0), row(3, 2.0), row(4, 0.1)], base=row(None, 1.0))
        plan = heatmap.plan([g], "vendor")
        self.assertAlmostEqual(plan.scale.vmin * plan.scale.vmax, 1.0)
        import matplotlib
        cmap = matplotlib.colormaps["RdBu"]                      # the default --cmap
        fast, slow = cmap(1.0), cmap(0.0)
        self.assertGreater(fast[2], fast[0])                     # faster: blue
        self.assertGreater(slow[0], slow[2])                     # slower: red


class Markers(unittest.TestCase):
    def test_clear_winner_and_tie(self):
        base = row(None, 30e-6, 1e-6, kernel="vendor")
        clear = group(3, 16, [row(2, 10e-6, 1e-6), row(3, 20e-6, 1e-6)], base)
        tie = group(3, 64, [row(2, 10e-6, 4e-6), row(3, 12e-6, 2.5e-6)], base)
        edge = group(3, 256, [row(2, 10e-6, 2e-6), row(3, 12e-6, 2e-6)], base)  # = both IQRs: tie
        # a bimodal radix 3 (IQR spanning both modes) does not hide radix 2's lead
        wide = group(3, 1024, [row(2, 10e-6, 0.5e-6), row(3, 14e-6, 6e-6)], base)
        bars = {b.S: b for b in heatmap.plan([clear, tie, edge, wide], "vendor").bars}
        self.assertEqual(bars[16].markers, [(2, "best")])
        self.assertTrue(bars[16].label.startswith("r=2 \u00d73.00"), bars[16].label)
        self.assertEqual(bars[64].markers, [(2, "tie"), (3, "tie")])
        self.assertTrue(bars[64].label.startswith("tie r=2,3"), bars[64].label)
        self.assertEqual(bars[256].markers, [(2, "tie"), (3, "tie")])
        self.assertEqual(bars[1024].markers, [(2, "best")])

    def test_same_rule_as_tune(self):
        cases = [[(10, 1), (20, 1)], [(10, 4), (12, 1)], [(10, 2), (12, 0)], [(5, 0), (5, 0)],
                 [(10, 0.5), (11, 0.2), (11.4, 3)], [(10, 1)]]
        for case in cases:
            rows = [row(r + 2, m, i) for r, (m, i) in enumerate(case)]
            v = group(len(case) + 1, 16, rows).verdict
            d = tune.decide([tune.Candidate(r) for r in rows])
            beyond = d.how in ("faster than the runner-up by more than the noise", "only candidate")
            self.assertEqual(v.clear, beyond, case)

    def test_baseline_within_the_noise(self):
        g = group(2, 16, [row(2, 10e-6, 2e-6)], base=row(None, 11e-6, 2e-6, kernel="vendor"))
        self.assertEqual(g.verdict.vs_baseline, "noise")
        self.assertIn("\u2248 vendor", heatmap.plan([g], "vendor").bars[0].label)


class BaselineNames(unittest.TestCase):
    """A figure names its baseline in its title and CSV: a library's selection by that
    library, a simulation's vendor call by SMPI's algorithm, anything else by its kernel."""

    def run_row(self, backend, options=""):
        return {"backend": backend, "smpi_options": options}

    def test_names(self):
        sim = self.run_row("simgrid", "--cfg=smpi/alltoall:ring --cfg=smpi/alltoallv:ring x=1")
        mixed = self.run_row("simgrid", "--cfg=smpi/alltoall:bruck --cfg=smpi/alltoallv:ring")
        real = self.run_row("mpi")
        self.assertEqual(baseline_label("mpich_selection", real),
                         "MPICH's selection (mpich_selection)")
        self.assertEqual(baseline_label("ompi_tuned_selection", sim),
                         "Open MPI's selection (ompi_tuned_selection)")
        self.assertEqual(baseline_label("vendor", sim), "SMPI's ring (vendor)")
        self.assertEqual(baseline_label("vendor", mixed), "SMPI's bruck/ring (vendor)")
        self.assertEqual(baseline_label("vendor", real), "vendor")
        self.assertEqual(baseline_label("bruck", sim), "bruck")


class SimulationModels(unittest.TestCase):
    """Simulated runs draw together when SimGrid ran them alike: the options in effect (a
    --cfg given twice holds its last value, SimGrid's default equals no option), not the
    words recorded."""

    def model(self, options):
        return simulation_model({"backend": "simgrid", "smpi_options": options,
                                 "platform_sha256": "x", "simgrid_version": "3.32.0",
                                 "network_model": None})

    def test_options_in_effect(self):
        plain = self.model("-no-privatize --cfg=smpi/alltoall:ring copy-model=1024:53.47")
        self.assertEqual(self.model("-no-privatize --cfg=smpi/alltoall:ring --cfg=maxmin/precision:"
                                    "1e-2 copy-model=1024:53.47 --cfg=maxmin/precision:1e-5"), plain)
        self.assertNotEqual(self.model("-no-privatize --cfg=smpi/alltoall:ring --cfg=maxmin/"
                                       "precision:1e-2 copy-model=1024:53.47"), plain)
        self.assertNotEqual(self.model("-no-privatize --cfg=smpi/alltoall:ring --cfg=maxmin/"
                                       "precision:1e-5 copy-model=1024:53.47 --cfg=maxmin/"
                                       "precision:1e-2"), plain)
        self.assertNotEqual(self.model("-no-privatize --cfg=smpi/alltoall:ring "
                                       "copy-model=1024:108.4"), plain)


class Oversubscription(unittest.TestCase):
    def test_per_p(self):
        gs = [group(2, 16, [row(2, 1.0)], row(None, 1.0)),
              group(4, 16, [row(r, 1.0, over=1) for r in (2, 3, 4)], row(None, 1.0, over=1)),
              group(3, 16, [row(r, 1.0) for r in (2, 3)], row(None, 1.0, over=1))]
        plan = heatmap.plan(gs, "vendor")
        self.assertEqual(plan.oversubscribed, {2: False, 3: True, 4: True})
        self.assertEqual({b.P: b.oversubscribed for b in plan.bars}, {2: False, 3: True, 4: True})


class RadixLabels(unittest.TestCase):
    def test_every_radix_up_to_32_sampled_above(self):
        for P in (2, 3, 8, 17, 32):
            b = heatmap.plan([group(P, 16, [row(2, 1.0)])], "vendor").bars[0]
            self.assertEqual(b.labelled, list(range(2, P + 1)))
            self.assertEqual([r for r, _, _ in b.cells], list(range(2, P + 1)))
        for P in (33, 64, 100, 1000, 4096):
            b = heatmap.plan([group(P, 16, [row(2, 1.0)])], "vendor").bars[0]
            self.assertIn(2, b.labelled)
            self.assertIn(P, b.labelled)
            self.assertLessEqual(len(b.labelled), heatmap.SAMPLED_LABELS)
            self.assertEqual(b.labelled, sorted(set(b.labelled)))

    def test_sampled_radices_get_equal_cells(self):
        rs = [2, 4, 8, 16, 32, 64, 128, 1023, 1024]
        g = group(1024, 16, [row(r, 1.0 + r / 1000.0) for r in rs], base=row(None, 1.0))
        b = heatmap.plan([g], "vendor").bars[0]
        self.assertTrue(b.sampled)
        self.assertEqual([r for r, _, _ in b.cells], rs)       # measured ones only
        self.assertEqual(b.labelled, rs)                       # each numbered
        self.assertEqual([b.slot(r) for r in rs], [i + 0.5 for i in range(len(rs))])
        self.assertEqual(b.slot(math.sqrt(1024)), 4.5)          # sqrt(P) = 32: its cell
        self.assertEqual(b.slot(24), 4.0)                      # unmeasured: between 16 and 32
        # a bar with every radix measured (or just one) keeps the full range
        full = heatmap.plan([group(40, 16, [row(r, 1.0) for r in range(2, 41)])], "vendor").bars[0]
        self.assertFalse(full.sampled)
        self.assertEqual(len(full.cells), 39)

    def test_block_count_chosen_per_radix(self):
        g = group(4, 16, [row(2, 2.0, block_count=1), row(2, 1.0, block_count=2),
                          row(3, 1.0, block_count=1), row(4, 1.0, block_count=3)])
        plan = heatmap.plan([g], "vendor")
        self.assertEqual(plan.varying, ["block_count"])
        self.assertEqual({r: p["block_count"] for r, _, p in plan.bars[0].cells},
                         {2: 2, 3: 1, 4: 3})
        fixed = heatmap.plan([group(3, 16, [row(2, 1.0, block_count=1),
                                            row(3, 1.0, block_count=1)])], "vendor")
        self.assertEqual((fixed.varying, fixed.fixed), ([], {"block_count": "1"}))


class HeatmapOfTheFixture(A2ATestCase):
    def test_decisions_agree_with_the_database(self):
        from a2a_tools.core.db import open_db
        db = open_db(self.db)
        try:
            _, groups, _ = analysis.load(db, "tra", "vendor", 1, {})
            plan = heatmap.plan(groups, "vendor")
        finally:
            db.conn.close()
        self.assertAlmostEqual(plan.scale.vmin * plan.scale.vmax, 1.0)
        for b in plan.bars:
            rows = sql("SELECT radix, min(median_s), q1_s, q3_s FROM results WHERE run_id = 1"
                       " AND kernel = 'tra' AND P = ? AND S = ? AND status = 'ok' GROUP BY radix"
                       " ORDER BY 2", (b.P, b.S))
            fastest = rows[0]
            tied = sorted(r[0] for r in rows
                          if r[1] - fastest[1] <= min(fastest[3] - fastest[2], r[3] - r[2]))
            if len(tied) == 1:
                self.assertEqual(b.markers, [(fastest[0], "best")])
            else:
                self.assertEqual(b.markers, [(r, "tie") for r in tied])
            over = sql("SELECT max(oversubscribed) FROM results WHERE run_id = 1 AND P = ?"
                       " AND family = 'uniform' AND kernel IN ('tra', 'vendor') AND status = 'ok'",
                       (b.P,))[0][0]
            self.assertEqual(bool(b.oversubscribed), bool(over), b.P)


class Curves(A2ATestCase):
    def test_radix_axis_has_integer_ticks(self):
        for P in list(range(2, 70)) + [128, 1000]:
            (lo, hi), ticks = curves.radix_axis(P)
            self.assertTrue(all(isinstance(t, int) for t in ticks), P)
            self.assertEqual((ticks[0], ticks[-1]), (2, P))
            self.assertLessEqual(lo, min(2, math.sqrt(P)))
            self.assertGreaterEqual(hi, P)

    def test_log_radix_axis_above_64(self):
        for P in (65, 128, 1000, 1024, 4096):
            (lo, hi), ticks = curves.log_radix_axis(P)
            self.assertTrue(all(isinstance(t, int) for t in ticks), P)
            self.assertEqual((ticks[0], ticks[-1]), (2, P))
            self.assertTrue(lo < 2 and hi > P)
            self.assertTrue(all(t & (t - 1) == 0 for t in ticks[:-1]))    # powers of two

    def test_one_time_unit(self):
        small = group(2, 16, [row(2, 20e-6)])
        large = group(8, 16, [row(2, 4e-3)])
        self.assertEqual(curves.family_unit([small, large]), (1e3, "ms"))

    def test_model_fitted_on_the_points(self):
        """Without --alpha/--beta the curves' model is fitted: points made by the model
        itself give back its alpha and beta; a two-level kernel (ppn) gets no flat model."""
        from a2a_tools.figures import model
        P, alpha, beta = 64, 3e-6, 2e-9
        rows = [row(r, model.model_time(P, r, S, alpha, beta)) for S in (16, 4096)
                for r in (2, 4, 8, 16, 64)]
        for r, S in zip(rows, [16] * 5 + [4096] * 5):
            r["S"] = S
        fit = curves.fit_model(P, rows)
        self.assertAlmostEqual(fit[0] / alpha, 1.0, places=9)
        self.assertAlmostEqual(fit[1] / beta, 1.0, places=9)
        g = group(P, 16, rows[:5])
        none = argparse.Namespace(alpha=None, beta=None)
        self.assertIn("fitted on 5 points", curves.model_line(P, [g], none).source)
        hier = group(P, 16, [row(2, 1e-5, ppn=0), row(8, 2e-5, ppn=0)])
        self.assertIsNone(curves.model_line(P, [hier], none))

    def test_drawn_figure(self):
        from a2a_tools.figures import style
        from a2a_tools.core.db import open_db
        db = open_db(self.db)
        try:
            _, groups, _ = analysis.load(db, "tra", "vendor", 1, {"P": [2]})
            args = argparse.Namespace(alpha=2e-6, beta=5e-10, log_time=False)
            fig, _ = curves.draw(style, db, db.run(1), "tra", "vendor", 2, groups,
                                 curves.family_unit(groups), args)
        finally:
            db.conn.close()
        try:
            for ax in fig.axes:
                ticks = list(ax.get_xticks())
                self.assertTrue(ticks and all(float(t).is_integer() for t in ticks), ticks)
                lines = [l for l in ax.get_lines() if l.get_label() in (
                    "vendor median",) or l.get_label().startswith(("\u221aP", "model-optimal"))]
                self.assertTrue(lines)
                data = [c for c in ax.collections] + [l for l in ax.get_lines()
                                                      if l.get_label().startswith("tra median")]
                self.assertTrue(data)
                self.assertGreater(min(a.get_zorder() for a in data),
                                   max(l.get_zorder() for l in lines))
            texts = [t.get_text() for t in fig.legends[0].get_texts()]
            self.assertTrue(any("\u03b1 = 2 \u00b5s" in t and "\u03b2 = 0.5 ns" in t for t in texts),
                            texts)
        finally:
            import matplotlib.pyplot as plt
            plt.close(fig)

    def test_every_figure_of_a_command_in_one_unit(self):
        d = out_dir("curves-unit")
        paths = [p for p in self.ok("curves", "--kernel", "tra", "--run", "1", "--out", d).split()
                 if p.endswith(".svg")]
        self.assertEqual(len(paths), 3)
        units = set()
        for p in paths:
            with open(p, encoding="utf-8") as f:
                text = f.read()
            units.update(u for u in ("(s)", "(ms)", "(\u00b5s)") if "time per call " + u in text)
        self.assertEqual(len(units), 1, units)


class Tables(A2ATestCase):
    def test_best_radix_ties_and_oversubscription(self):
        rows = list(csv.DictReader(io.StringIO(self.ok("best-radix", "--run", "1", "--format",
                                                       "csv"))))
        self.assertTrue(rows)
        for r in rows:
            over = sql("SELECT max(oversubscribed) FROM results WHERE run_id = 1 AND P = ?"
                       " AND kernel IN (?, 'vendor') AND status = 'ok' AND dist = ?",
                       (int(r["P"]), r["kernel"], r["dist"]))[0][0]
            self.assertEqual(r["oversubscribed"], str(bool(over)))
            best = sql("SELECT median_s, q3_s - q1_s FROM results WHERE run_id = 1 AND kernel = ?"
                       " AND P = ? AND S = ? AND radix = ? AND status = 'ok' ORDER BY median_s"
                       " LIMIT 1", (r["kernel"], int(r["P"]), int(r["S"]),
                                    int(r["best_radix"])))[0]
            for radix in filter(None, r["within_noise"].split(",")):
                other = sql("SELECT min(median_s), q3_s - q1_s FROM results WHERE run_id = 1"
                            " AND kernel = ? AND P = ? AND S = ? AND radix = ? AND status = 'ok'",
                            (r["kernel"], int(r["P"]), int(r["S"]), int(radix)))[0]
                self.assertLessEqual(other[0] - best[0], min(best[1], other[1]) + 1e-15)

    def test_tune_warns_per_oversubscribed_p(self):
        out = self.ok("tune", "--out", out_dir("tune-over"), "--files", "a2a")
        # tune decides on the newest run's row of each configuration
        over = sorted(p for (p,) in sql("SELECT DISTINCT P FROM results r WHERE status = 'ok'"
                                        " AND family = 'uniform' AND oversubscribed = 1"
                                        " AND run_id = (SELECT max(run_id) FROM results r2"
                                        " WHERE r2.config_key = r.config_key"
                                        " AND r2.status = 'ok')"))
        warnings = [l for l in out.splitlines() if l.startswith("warning: ")]
        mine = [l for l in warnings if " alltoall: " in l]
        if over:
            self.assertEqual(len(mine), 1, warnings)
            self.assertIn("P = %s measured oversubscribed" % ", ".join(map(str, over)), mine[0])
        else:
            self.assertEqual(mine, [])
        rows = list(csv.DictReader(io.StringIO(self.ok("tune", "--out", out_dir("tune-csv"),
                                                       "--files", "a2a", "--format", "csv"))))
        for r in rows:
            if r["collective"] == "alltoall":
                self.assertEqual(r["oversubscribed"], str(int(r["P"]) in over))


class Units(A2ATestCase):
    def test_one_style(self):
        self.assertEqual([fmt_size(n) for n in (0, 16, 1000, 1024, 1536, 16384, 1 << 20, 3 << 30)],
                         ["0 B", "16 B", "1000 B", "1 KiB", "1.5 KiB", "16 KiB", "1 MiB", "3 GiB"])
        self.assertIn("S:         16 B, 256 B, 4 KiB", self.ok("summary"))
        md = self.ok("best-radix", "--run", "1", "--kernel", "tra", "--P", "2")
        self.assertEqual([l.split("|")[4].strip() for l in md.splitlines()[2:]],
                         ["16 B", "256 B", "4 KiB"])
        out = self.ok("tune", "--out", out_dir("tune-units"), "--files", "a2a")
        self.assertRegex(out, r"\n(a2a\s+alltoall\s+\d+\s+4 KiB\s+[0-9.]+ (B|KiB)\.\.)")


class Figures(A2ATestCase):
    def test_everything_in_one_folder(self):
        d = out_dir("figures-all")
        out = self.ok("figures", "--out", d)
        last = out.splitlines()[-1]
        self.assertEqual(last, "figures: %d files in %s; open %s" % (
            len(out.splitlines()) - 1, d, os.path.join(d, "index.html")))
        names = sorted(os.listdir(d))
        for want in ("summary.txt", "best-radix.md", "index.html"):
            self.assertIn(want, names)
        pngs = [n for n in names if n.endswith(".png")]
        self.assertTrue(any(n.startswith("heatmap_tra_vs_vendor") for n in pngs))
        self.assertTrue(any(n.startswith("heatmap_tuna_vs_vendor") for n in pngs))
        self.assertTrue(any(n.startswith("curves_tra_P2") for n in pngs))
        with open(os.path.join(d, "index.html"), encoding="utf-8") as f:
            index = f.read()
        for n in pngs:
            self.assertIn('src="%s"' % n, index)
