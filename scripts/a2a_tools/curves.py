"""`a2a curves`: time versus radix per (P, S) (TRA paper, Fig. 7/8).

One figure per P (and data set), one panel per S: the median time per call for every
radix with Q1..Q3 error bars, one line per setting of the kernel's other parameters
(e.g. TuNA's block_count), vertical lines at sqrt(P) and at the model-optimal radix
(least K*alpha + D*S*beta), and the baseline's median as a horizontal dashed line."""
import math
import sys

from . import analysis, model, options
from .analysis import data_label, other_params
from .common import DEFAULT_FIGURES, fmt_size, time_unit

MAX_LINES = 6   # more settings of the other parameters than this: draw the fastest per radix


def add_parser(sub, common):
    p = sub.add_parser(
        "curves", parents=[common["db"], common["select"]],
        help="time vs radix per (P, S) with IQR, sqrt(P), model optimum (TRA Fig. 7/8)",
        description="Time versus radix (TRA paper, Fig. 7/8): one figure per P, one panel per "
                    "S; median with Q1-Q3 error bars, sqrt(P) and the model-optimal radix as "
                    "vertical lines, the baseline median as a horizontal dashed line.",
        epilog="example:  a2a curves --kernel tra --P 8 --S 16,1K,16K",
        formatter_class=common["formatter"])
    p.add_argument("--kernel", required=True, help="the tunable kernel (tra, tuna, ...)")
    p.add_argument("--baseline", default="vendor", help="kernel drawn as a horizontal line "
                   "(default: vendor; 'none' for no line)")
    p.add_argument("--alpha", type=float, default=model.DEFAULT_ALPHA,
                   help="model latency, seconds per round (default: %(default)g)")
    p.add_argument("--beta", type=float, default=model.DEFAULT_BETA,
                   help="model inverse bandwidth, seconds per byte (default: %(default)g)")
    p.add_argument("--log-time", action="store_true", help="logarithmic time axis (default: linear)")
    p.add_argument("--out", default=DEFAULT_FIGURES, metavar="DIR",
                   help="output directory (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def _lines(g):
    """[(label, [rows sorted by radix])]: one line per setting of the other parameters,
    or the fastest per radix when there are too many settings."""
    by_setting = {}
    for row in g.rows:
        by_setting.setdefault(other_params(row), {})
        held = by_setting[other_params(row)].get(row["radix"])
        if held is None or row["median_s"] < held["median_s"]:
            by_setting[other_params(row)][row["radix"]] = row
    if len(by_setting) > MAX_LINES:
        return [("fastest per radix", [g.by_radix[r] for r in sorted(g.by_radix)])]
    return [(label, [rows[r] for r in sorted(rows)]) for label, rows in sorted(by_setting.items())]


def _or(value, default):
    return default if value is None else value


def draw(style, db, run, kernel, baseline, P, groups, oversubscribed, args):
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    n = len(groups)
    ncols = min(4, n)
    nrows = (n + ncols - 1) // ncols
    fig = style.new_figure(2.9 * ncols + 0.6, 2.35 * nrows + 1.3)
    top = max([r["q3_s"] or r["median_s"] for g in groups for r in g.rows] +
              [g.baseline["median_s"] for g in groups if g.baseline])
    scale, unit = time_unit(top)
    axes = []
    for i, g in enumerate(groups):
        ax = fig.add_subplot(nrows, ncols, i + 1, sharex=axes[0] if axes else None)
        axes.append(ax)
        for label, rows in _lines(g):
            xs = [r["radix"] for r in rows]
            ys = [r["median_s"] * scale for r in rows]
            lo = [max(0.0, r["median_s"] - _or(r["q1_s"], r["median_s"])) * scale for r in rows]
            hi = [max(0.0, _or(r["q3_s"], r["median_s"]) - r["median_s"]) * scale for r in rows]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", markersize=3, linewidth=1.2,
                        capsize=2, elinewidth=0.8,
                        label="%s median, %s%s" % (
                            kernel, "range of launch medians" if any(r.get("launches", 1) > 1 for r in rows)
                            else "Q1\u2013Q3", " (%s)" % label if label else ""))
        best = g.best
        if best is not None:
            ax.plot([best["radix"]], [best["median_s"] * scale], marker="*", markersize=9,
                    color="gold", markeredgecolor="black", linestyle="none", zorder=5,
                    label="fastest radix")
        ax.axvline(math.sqrt(P), label="\u221aP = %.2f" % math.sqrt(P), **style.SQRT_STYLE)
        r_model = model.optimal_radix(P, g.S, args.alpha, args.beta)
        ax.axvline(r_model, label="model-optimal radix", **style.MODEL_STYLE)
        ax.text(r_model, 0.98, " r=%d" % r_model, transform=ax.get_xaxis_transform(),
                color=style.MODEL_STYLE["color"], fontsize=6.5, va="top", ha="left")
        if g.baseline is not None:
            ax.axhline(g.baseline["median_s"] * scale, label="%s median" % baseline,
                       **style.BASELINE_STYLE)
        if args.log_time:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        ax.set_title("S = %s B" % fmt_size(g.S))
        ax.grid(True, which="major")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
        if i % ncols == 0:
            ax.set_ylabel("time per call (%s)" % unit)
        if i >= n - ncols:
            ax.set_xlabel("radix r")
    axes[0].set_xlim(min(1.5, math.sqrt(P) - 0.3), P + 0.5)
    legend = {}                       # every label once, from whichever panel has it
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    labels, handles = list(legend), list(legend.values())
    fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), frameon=False,
               bbox_to_anchor=(0.5, 0.035))
    g0 = groups[0]
    fig.suptitle("%s: time per call versus radix, P = %d (%s family, dist = %s)\n%s"
                 % (kernel, P, g0.family, data_label(g0.data_key),
                    style.provenance(run, oversubscribed)),
                 fontsize=9.5)
    style.footer(fig, run, oversubscribed, db.path)
    legend_rows = (len(labels) + 3) // 4
    return fig, 0.25 + 0.2 * legend_rows


def run(args, db):
    baseline = None if args.baseline == "none" else args.baseline
    run_id, groups, _ = analysis.load(db, args.kernel, baseline, args.run,
                                      options.select_filters(args))
    run = db.run(run_id)
    from . import style   # matplotlib is loaded only once there is something to draw
    sets = analysis.split_by_data(groups)
    written = []
    for data_key, gs in sets.items():
        for P in sorted({g.P for g in gs}):
            pg = sorted([g for g in gs if g.P == P], key=lambda g: g.S)
            over = any(r["oversubscribed"] for g in pg for r in g.rows) or \
                any(g.baseline["oversubscribed"] for g in pg if g.baseline)
            fig, bottom = draw(style, db, run, args.kernel, baseline, P, pg, over, args)
            stem = "curves_%s_P%d_run%s_%s" % (args.kernel, P, run_id,
                                               analysis.data_tag(data_key))
            if len({k[1:] for k in sets}) < len(sets):   # one data set in two families
                stem += "_" + data_key[0]
            written += style.save(fig, args.out, style.safe_name(stem), footer_inches=bottom)
    for path in written:
        sys.stdout.write(path + "\n")
    return 0
