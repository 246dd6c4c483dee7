"""`a2a tuner-report`: how good is what `a2atune tune` chose, next to an exhaustive sweep.

For every cell (family, data, P, S) of the exhaustive database: the true best (the lowest
median of every configuration measured there), the tuned choice and its regret, the
tuned choice's time / the true best time - 1, both times taken from the exhaustive
database. The tuned choice is what the tuning file says for that (P, S), i.e. `a2a tune`'s
decision over the tuner's rows (the fastest beyond the IQR, else the simplest within
it); cells the tuner did not measure take the rule of the nearest measured S (the
geometric midpoint splits them, as in the tuning files) and P (a measured P covers up to
the next one); a choice whose kernel and parameters were not measured at that (P, S)
falls back to the MPI library's own choice, as the tuned dispatcher does. The column
"fastest measured" is the search alone: the lowest median among the tuner's rows.

Random search with the same number of measurements (10 seeds, uniform without
replacement over the exhaustive configurations) gets the same two decisions, and "a2a
tune, exhaustive" shows what the decision rule gives with every configuration measured.
"""
import json
import math
import os
import random
import re
import statistics
import sys

from . import tune, tuner_suite
from .regret import arm_of, context_of, evaluate, load_exhaustive, slower_than_default, tune_rule
from ..core.common import A2AError, fmt_seconds, fmt_size, write_rows
from ..core.db import open_db

TARGET_NEAR, TARGET_FAR, TARGET_SHARE, TARGET_BUDGET, TARGET_RANDOM = 0.05, 0.15, 0.90, 0.25, 3.0


def add_parser(sub, common):
    """Registers `a2a tuner-report`."""
    p = sub.add_parser(
        "tuner-report",
        help="regret of an a2atune tune run against an exhaustive sweep, vs random search",
        description="Per (P, S): the regret of the tuned choice (its time / the true best "
                    "time - 1, both from the exhaustive database), the fraction of "
                    "configurations measured; random search with the same number of "
                    "measurements (--seeds repetitions); a regret heatmap (PNG + SVG).",
        epilog="example:\n  a2a tuner-report --exhaustive results/exhaustive.db --tuned "
               "results/tuned.db --out results/figures",
        formatter_class=common["formatter"])
    p.add_argument("--exhaustive", metavar="DB",
                   help="database of an exhaustive run of the sweep (required without --suite)")
    p.add_argument("--tuned", metavar="DB", help="database of the tuner's run (required without --suite)")
    p.add_argument("--run", type=int, metavar="ID",
                   help="the tuner run in --tuned (default: its newest run with tuner rows)")
    p.add_argument("--seeds", type=int, metavar="N",
                   help="random-search repetitions (seeds 1..N, default 10); with --suite: noise "
                        "seeds (default 20)")
    p.add_argument("--out", default="results/figures", metavar="DIR",
                   help="directory of the heatmap (default: %(default)s)")
    p.add_argument("--no-figure", action="store_true", help="no heatmap")
    p.add_argument("--check-targets", action="store_true",
                   help="exit 1 unless the tuning file meets every target: at most 25%% measured, "
                        "within 5%% of the true best in 90%% of the cells and within 15%% in all, "
                        "median regret at most a third of random search's, no cell slower than "
                        "the library's default beyond the noise")
    p.add_argument("--format", choices=("table", "csv", "json", "markdown"), default="table",
                   help="format of the per-cell table (default: %(default)s)")
    tuner_suite.add_arguments(p)
    p.set_defaults(func=run, needs_db=False)
    return p


def load_tuned(db, run_id):
    """(run id, {(context, P, S): [rows]}, number of rows, {key: timed calls} of its screens)
    of the tuner run (a screen's key says its own timed calls, it=N)."""
    if "chosen_by" not in db.columns("results"):
        raise A2AError("%s: no tuner rows (a database older than schema 3)" % db.path)
    if run_id is None:
        run_id = db.execute("SELECT max(run_id) FROM results WHERE chosen_by = 'tuner'").fetchone()[0]
        if run_id is None:
            raise A2AError("%s: no rows chosen by the tuner (a2atune tune)" % db.path)
    rows = [dict(r) for r in db.all("SELECT * FROM results WHERE run_id = ? AND chosen_by = 'tuner'"
                                    " ORDER BY id", (run_id,))]
    if not rows:
        raise A2AError("%s: run %s has no rows chosen by the tuner" % (db.path, run_id))
    cells = {}
    for r in rows:
        if r["status"] == "ok" and r["median_s"] is not None:
            cells.setdefault((context_of(r), r["P"], r["S"]), []).append(r)
    screens = {r["config_key"]: r["iterations"] or 0 for r in db.all(
        "SELECT config_key, iterations FROM results WHERE run_id = ? AND chosen_by = 'tuner-screen'",
        (run_id,))}
    return run_id, cells, len(rows), screens


def screens_share(screens, exhaustive):
    """The configurations' worth of screens ({key: timed calls}): each its calls over the
    timed calls of its configuration in exhaustive (the same key but for it=N)."""
    calls = {re.sub(r"\|it=-?\d+\|", "|", r["config_key"]): r["iterations"] or 1
             for cands in exhaustive.values() for r in cands.values()}
    return sum(n / calls.get(re.sub(r"\|it=-?\d+\|", "|", key), n or 1)
               for key, n in screens.items())


def fastest(rows):
    """The search alone: the arm with the lowest median."""
    return arm_of(min(rows, key=lambda r: (r["median_s"], r["id"])))


def summary(regrets):
    """(share within 5 %, share within 15 %, median, max) of a list of regrets."""
    n = len(regrets)
    return (sum(r <= TARGET_NEAR + 1e-12 for r in regrets) / n,
            sum(r <= TARGET_FAR + 1e-12 for r in regrets) / n,
            statistics.median(regrets), max(regrets))


def label(arm):
    """'tra radix=2'."""
    return tune.label(arm[0], json.loads(arm[1])) if arm else "MPI library"


def pct(x):
    return "inf" if x == math.inf else "%.1f%%" % (100 * x)


def style_provenance(run, oversubscribed):
    """The figure library's provenance line (imported late: matplotlib is slow to load)."""
    from ..figures import style
    return style.provenance(run, oversubscribed)


def heatmap(path_dir, exhaustive, tuned_regret, fast_regret, title, footer_text):
    """One figure per context: x = S, y = P, colour = regret; two panels (tuning file,
    fastest measured). Returns the paths written."""
    from ..figures import style
    from matplotlib.colors import LinearSegmentedColormap, Normalize
    paths = []
    contexts = sorted({cell[0] for cell in exhaustive}, key=str)
    cmap = LinearSegmentedColormap.from_list("regret", ["#1a9850", "#fee08b", "#d73027", "#67001f"])
    norm = Normalize(vmin=0.0, vmax=30.0)     # regret in percent, as the cells and the bar read
    for ctx in contexts:
        cells = [c for c in exhaustive if c[0] == ctx]
        Ps = sorted({c[1] for c in cells})
        Ss = sorted({c[2] for c in cells})
        fig = style.new_figure(min(16.0, 2 * (0.7 * len(Ss) + 1.5) + 1.6), max(2.8, 0.45 * len(Ps) + 2.2))
        grid_spec = fig.add_gridspec(1, 3, width_ratios=[1, 1, 0.035])
        for panel, (name, data) in enumerate((("tuning file (a2a tune's rule)", tuned_regret),
                                              ("fastest measured (the search alone)", fast_regret))):
            ax = fig.add_subplot(grid_spec[0, panel])
            grid = [[data[(ctx, P, S)][0] if (ctx, P, S) in data else math.nan for S in Ss] for P in Ps]
            shown = [[min(100 * v, 30.0) if v == v else math.nan for v in row] for row in grid]
            im = ax.imshow(shown, cmap=cmap, norm=norm, aspect="auto", origin="lower")
            for i, row in enumerate(grid):
                for j, v in enumerate(row):
                    if v == v:
                        ax.text(j, i, "%.0f" % (100 * v) if v != math.inf else "-", ha="center",
                                va="center", fontsize=6.5, color="white" if v > 0.15 else "black")
            ax.set_xticks(range(len(Ss)))
            ax.set_xticklabels([fmt_size(s) for s in Ss], rotation=45)
            ax.set_yticks(range(len(Ps)))
            ax.set_yticklabels([str(p) for p in Ps])
            ax.set_xlabel("S (bytes per block)")
            ax.set_ylabel("P")
            ax.set_title("%s\n%s %s: regret %%" % (name, ctx[0], ctx[1]))
        fig.colorbar(im, cax=fig.add_subplot(grid_spec[0, 2]), label="regret (%), capped at 30 %")
        fig.suptitle(title, fontsize=8)
        fig.text(0.005, 0.004, footer_text, fontsize=6.5, color="0.35", ha="left", va="bottom")
        paths += style.save(fig, path_dir, style.safe_name("tuner-regret-%s-%s" % (ctx[0], ctx[1])))
    return paths


def run(args, _db):
    """`a2a tuner-report`: prints the table and the summary, writes the heatmap."""
    if args.suite:
        args.seeds = 20 if args.seeds is None else args.seeds
        return tuner_suite.run(args)
    if not args.exhaustive or not args.tuned:
        raise A2AError("--exhaustive DB and --tuned DB are needed (or --suite)")
    args.seeds = 10 if args.seeds is None else args.seeds
    if args.seeds < 1:
        raise A2AError("--seeds %d: at least 1" % args.seeds)
    exh_db, tuned_db = open_db(args.exhaustive), open_db(args.tuned)
    try:
        run_id, measured, n_rows, screens = load_tuned(tuned_db, args.run)
        keys, why = tune.tuned_candidates(tuned_db, run_id, args.exhaustive)
        if keys is None:  # stderr: stdout may be a CSV or JSON table
            sys.stderr.write("a2a: note: every configuration of %s is counted, not only the "
                             "tuned sweep's (%s)\n" % (args.exhaustive, why))
        exhaustive = load_exhaustive(exh_db, keys)
        exhaustive_run = dict(exh_db.runs()[-1])
        oversubscribed = any(r["oversubscribed"] for cands in exhaustive.values() for r in cands.values())
        outside = [c for c in measured if c not in exhaustive]
        if outside:
            raise A2AError("%s run %s measured (P, S) cells that %s lacks (first: %s P=%d S=%d): "
                           "not the same sweep" % (args.tuned, run_id, args.exhaustive,
                                                   "/".join(map(str, outside[0][0][:2])),
                                                   outside[0][1], outside[0][2]))
        n_configs = sum(len(c) for c in exhaustive.values())
        used = n_rows + screens_share(screens, exhaustive)
        tuned = evaluate(exhaustive, measured, tune_rule)
        fast = evaluate(exhaustive, measured, fastest)
        everything = {cell: list(cands.values()) for cell, cands in exhaustive.items()}
        reference = evaluate(exhaustive, everything, tune_rule)
        # random search: as many measurements, the same decisions
        pool = [(cell, r) for cell, cands in sorted(exhaustive.items(), key=str)
                for _, r in sorted(cands.items())]
        random_tuned, random_fast = [], []
        for seed in range(1, args.seeds + 1):
            sample = random.Random(seed).sample(pool, min(int(round(used)), len(pool)))
            got = {}
            for cell, r in sample:
                got.setdefault(cell, []).append(r)
            random_tuned.append(evaluate(exhaustive, got, tune_rule))
            random_fast.append(evaluate(exhaustive, got, fastest))
    finally:
        exh_db.conn.close()
        tuned_db.conn.close()

    rows = []
    for cell in sorted(exhaustive, key=lambda c: (str(c[0]), c[1], c[2])):
        ctx, P, S = cell
        cands = exhaustive[cell]
        best_arm = min(cands, key=lambda a: cands[a]["median_s"])
        t_reg, t_arm = tuned[cell]
        f_reg, _ = fast[cell]
        slower = slower_than_default(cands, t_arm)
        rows.append([ctx[0], ctx[1], P, S, label(best_arm), fmt_seconds(cands[best_arm]["median_s"]),
                     label(t_arm), pct(t_reg), pct(f_reg), pct(reference[cell][0]),
                     "%d/%d" % (len(measured.get(cell, [])), len(cands)),
                     "+" + pct(slower) if slower else ""])
    write_rows(["family", "dist", "P", "S", "true best", "time", "tuned choice", "regret",
                "fastest measured", "a2a tune exhaustive", "measured", "slower than default"],
               rows, args.format)
    slower_cells = [(cell, slower_than_default(exhaustive[cell], tuned[cell][1]))
                    for cell in sorted(exhaustive, key=lambda c: (str(c[0]), c[1], c[2]))]
    slower_cells = [(c, x) for c, x in slower_cells if x > 0]

    def line(name, stats):
        near, far, med, worst = stats
        return "%-36s within 5%%: %5.1f%% of cells, within 15%%: %5.1f%%, median %s, max %s" % (
            name, 100 * near, 100 * far, pct(med), pct(worst))
    share = used / n_configs
    t_stats = summary([v[0] for v in tuned.values()])
    f_stats = summary([v[0] for v in fast.values()])
    r_t = [summary([v[0] for v in e.values()]) for e in random_tuned]
    r_f = [summary([v[0] for v in e.values()]) for e in random_fast]
    r_t_median = statistics.median(s[2] for s in r_t)
    r_f_median = statistics.median(s[2] for s in r_f)
    print()
    print("tuner run %s of %s: %d of %d configurations measured%s (%.1f%% of the configurations), "
          "%d cells" % (run_id, args.tuned, n_rows, n_configs,
                        ", %d screened (%.1f configurations' worth)" % (len(screens), used - n_rows)
                        if screens else "", 100 * share, len(exhaustive)))
    print(line("tuning file (a2a tune's rule):", t_stats))
    print(line("fastest measured (the search):", f_stats))
    print(line("a2a tune on the exhaustive sweep:", summary([v[0] for v in reference.values()])))
    print("cells where the tuning file is slower than the library's default beyond the noise: "
          "%d%s" % (len(slower_cells), "".join(
              "%s %s/%s P=%d S=%s (+%s)" % ("," if i else ":", c[0][0], c[0][1], c[1], fmt_size(c[2]), pct(x))
              for i, (c, x) in enumerate(slower_cells))))
    print("random search, %d measurements, %d seeds (median over seeds):" % (int(round(used)), args.seeds))
    print(line("  tuning file (a2a tune's rule):", tuple(statistics.median(s[i] for s in r_t) for i in range(4))))
    print(line("  fastest measured:", tuple(statistics.median(s[i] for s in r_f) for i in range(4))))
    checks = [
        ("at most 25% measured", share <= TARGET_BUDGET + 1e-12, "%.1f%%" % (100 * share)),
        ("within 5% in >= 90% of cells", t_stats[0] >= TARGET_SHARE, "%.1f%%" % (100 * t_stats[0])),
        ("within 15% in every cell", t_stats[1] >= 1.0, "max %s" % pct(t_stats[3])),
        ("median regret <= random's / 3", t_stats[2] <= r_t_median / TARGET_RANDOM + 1e-12,
         "%s vs %s" % (pct(t_stats[2]), pct(r_t_median))),
        ("no cell slower than the default", not slower_cells, "%d" % len(slower_cells)),
    ]
    print("targets (tuning file):", "; ".join("%s: %s (%s)" % (n, "yes" if ok else "NO", v)
                                              for n, ok, v in checks))
    search_checks = [
        ("within 5% in >= 90% of cells", f_stats[0] >= TARGET_SHARE, "%.1f%%" % (100 * f_stats[0])),
        ("within 15% in every cell", f_stats[1] >= 1.0, "max %s" % pct(f_stats[3])),
        ("median regret <= random's / 3", f_stats[2] <= r_f_median / TARGET_RANDOM + 1e-12,
         "%s vs %s" % (pct(f_stats[2]), pct(r_f_median))),
    ]
    print("targets (fastest measured):", "; ".join("%s: %s (%s)" % (n, "yes" if ok else "NO", v)
                                                   for n, ok, v in search_checks))
    if not args.no_figure:
        title = ("a2atune tune vs exhaustive: %d of %d configurations measured%s (%.1f%%); numbers: "
                 "regret %% (tuned choice's time / true best - 1, exhaustive medians)"
                 % (n_rows, n_configs, ", %d screened" % len(screens) if screens else "", 100 * share))
        footer_text = "tuned: %s run %s \u00b7 exhaustive: %s (%s, backend %s)" % (
            os.path.basename(args.tuned), run_id, os.path.basename(args.exhaustive), style_provenance(exhaustive_run, oversubscribed),
            exhaustive_run["backend"] or "?")
        for path in heatmap(args.out, exhaustive, tuned, fast, title, footer_text):
            print("wrote %s" % path)
    if args.check_targets and not all(ok for _, ok, _ in checks):
        return 1
    return 0
