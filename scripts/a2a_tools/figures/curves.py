"""`a2a curves`: time versus radix per (P, S) (TRA paper, Fig. 7/8).

One figure per P (and data set), one panel per S: the median time per call for every
radix with Q1..Q3 error bars (drawn above the reference lines), one line per setting of
the kernel's other parameters (e.g. TuNA's block_count), vertical lines at sqrt(P) and at
the model-optimal radix (least K*alpha + D*S*beta, alpha and beta written on the figure:
given with --alpha/--beta, else fitted by least squares on the figure's own points), the
model's time K*alpha + D*S*beta itself over every radix 2..P as a dotted line (it does not
move the time axis), and the baseline's median as a horizontal dashed line. The flat model
is not drawn for two-level kernels (a ppn parameter: tra2, tuna_coalesced, tuna_staggered),
whose radix is the intra-node one. A CSV of the same name holds the numbers drawn. The
radix axis has integer ticks, and is logarithmic (base 2) above P = 64, where radix
sweeps are sampled (powers of two, sqrt(P), P);
every figure of one command uses one time unit. A star marks the fastest radix only when
it beats the runner-up by more than the noise (the smaller IQR
of the two); radices tied within the
noise get hollow stars. A figure measured with more ranks than cores says so in its title
and is shaded."""
import math
import os

from . import analysis, model
from ..core import contract, options
from .analysis import data_label, other_params
from .simruns import baseline_label
from ..core.common import DEFAULT_FIGURES, fmt_size, safe_name, time_unit

MAX_LINES = 6   # more settings of the other parameters than this: draw the fastest per radix
LOG_RADIX_ABOVE = 64   # a radix axis for larger P is logarithmic, base 2


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
    p.add_argument("--baseline", default=contract.DEFAULT_BASELINE, help="kernel drawn as a horizontal line "
                   "(default: vendor; 'none' for no line)")
    p.add_argument("--alpha", type=float, default=None,
                   help="model latency, seconds per round (default: fitted with beta by least "
                        "squares on each figure's points)")
    p.add_argument("--beta", type=float, default=None,
                   help="model inverse bandwidth, seconds per byte (default: fitted)")
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


# drawing order: reference lines under the measured points and their error bars
REFERENCE_Z, DATA_Z, MARKER_Z = 1, 3, 5


def family_unit(groups, baseline=True):
    """(scale, unit) shared by every figure drawn from these groups: chosen for the largest
    Q3 (or median) of any radix or baseline among them."""
    top = max([_or(r["q3_s"], r["median_s"]) for g in groups for r in g.rows] +
              [g.baseline["median_s"] for g in groups if baseline and g.baseline])
    return time_unit(top)


def radix_axis(P):
    """(xlim, ticks) of the radix axis at P: integer ticks only (sampled above 16 radices),
    limits holding radix 2..P and the sqrt(P) line."""
    return (min(1.5, math.sqrt(P) - 0.2), P + 0.5), analysis.radix_ticks(P, 16)


def log_radix_axis(P):
    """(xlim, ticks) of a base-2 logarithmic radix axis at P: the powers of two up to P,
    and P itself, all integers."""
    ticks = [2 ** k for k in range(1, int(math.log2(P)) + 1)]
    if ticks[-1] != P:
        ticks.append(P)
    return (1.8, P * 1.12), ticks


def _engineering(seconds):
    """1e-06 -> '1 \u00b5s', 1e-09 -> '1 ns', 2.5e-10 -> '0.25 ns'."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "\u00b5s"), (1e-9, "ns")):
        if abs(seconds) >= scale or unit == "ns":
            return "%.3g %s" % (seconds / scale, unit)


def model_words(alpha, beta):
    """'alpha = 1 us per round, beta = 1 ns per byte' for the model line's legend."""
    return "\u03b1 = %s per round, \u03b2 = %s per byte" % (_engineering(alpha), _engineering(beta))


class ModelLine:
    """The flat TRA model drawn on one figure: alpha, beta and where they come from
    ('given' or 'fitted on N points')."""

    def __init__(self, alpha, beta, source):
        self.alpha, self.beta, self.source = alpha, beta, source


def fit_model(P, rows):
    """(alpha, beta) >= 0 minimising the squared error of K*alpha + D*S*beta against the
    medians of rows (one P, any radices and sizes); one of them 0 when the unconstrained fit
    would make it negative. None with fewer than two points."""
    pts = [(model.rounds(P, r["radix"]), model.blocks(P, r["radix"]) * r["S"], r["median_s"])
           for r in rows if r["radix"] and 2 <= r["radix"] <= P and r["median_s"]]
    if len(pts) < 2:
        return None
    kk = sum(k * k for k, _, _ in pts)
    dd = sum(d * d for _, d, _ in pts)
    kd = sum(k * d for k, d, _ in pts)
    kt = sum(k * t for k, _, t in pts)
    dt = sum(d * t for _, d, t in pts)
    det = kk * dd - kd * kd
    if det > 0:
        alpha, beta = (kt * dd - dt * kd) / det, (dt * kk - kt * kd) / det
        if alpha >= 0 and beta >= 0:
            return alpha, beta
    one_alpha = (max(0.0, kt / kk), 0.0) if kk else (0.0, 0.0)
    one_beta = (0.0, max(0.0, dt / dd)) if dd else (0.0, 0.0)

    def err(ab):
        return sum((k * ab[0] + d * ab[1] - t) ** 2 for k, d, t in pts)
    return min(one_alpha, one_beta, key=err)


def model_line(P, groups, args):
    """The ModelLine of one figure (groups: one P): --alpha/--beta when given, else fitted
    on the figure's points (the fastest per radix and size); None for a two-level kernel or
    without two points to fit."""
    if analysis.two_level(groups):
        return None
    if args.alpha is not None and args.beta is not None:
        return ModelLine(args.alpha, args.beta, "given")
    rows = [r for g in groups for r in g.by_radix.values()]
    fit = fit_model(P, rows)
    if fit is None:
        return None
    alpha = args.alpha if args.alpha is not None else fit[0]
    beta = args.beta if args.beta is not None else fit[1]
    return ModelLine(alpha, beta, "fitted on %d points" % len(rows))


def draw(style, db, run, kernel, baseline, P, groups, unit_of_family, args):
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator

    n = len(groups)
    ncols = min(4, n)
    nrows = (n + ncols - 1) // ncols
    fig = style.new_figure(2.9 * ncols + 0.6, 2.35 * nrows + 1.6)
    scale, unit = unit_of_family
    over = analysis.oversubscribed_by_p(groups)
    log_x = P > LOG_RADIX_ABOVE
    (x_lo, x_hi), ticks = log_radix_axis(P) if log_x else radix_axis(P)
    every_radix = list(range(2, P + 1))
    line = model_line(P, groups, args)
    axes = []
    for i, g in enumerate(groups):
        ax = fig.add_subplot(nrows, ncols, i + 1, sharex=axes[0] if axes else None)
        axes.append(ax)
        for label, rows in _lines(g):
            xs = [r["radix"] for r in rows]
            ys = [r["median_s"] * scale for r in rows]
            lo = [max(0.0, r["median_s"] - _or(r["q1_s"], r["median_s"])) * scale for r in rows]
            hi = [max(0.0, _or(r["q3_s"], r["median_s"]) - r["median_s"]) * scale for r in rows]
            spread = ("range of launch medians" if any(r.get("launches", 1) > 1 for r in rows)
                      else "Q1\u2013Q3")
            bars = ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", markersize=3, linewidth=1.2,
                               capsize=2, elinewidth=0.8, zorder=DATA_Z,
                               label="%s median, %s%s" % (
                                   kernel, spread, " (%s)" % label if label else ""))
            for artist in bars.lines[1] + bars.lines[2]:     # caps and bars above the lines
                artist.set_zorder(DATA_Z)
        v = g.verdict
        if v is not None and v.clear:
            ax.plot([v.fastest["radix"]], [v.fastest["median_s"] * scale], marker="*",
                    markersize=10, color="gold", markeredgecolor="black", linestyle="none",
                    zorder=MARKER_Z, label="fastest radix, beyond the noise")
        elif v is not None:
            ax.plot([r["radix"] for r in v.tied], [r["median_s"] * scale for r in v.tied],
                    marker="*", markersize=9, color="white", markeredgecolor="black",
                    linestyle="none", zorder=MARKER_Z,
                    label="tied within the noise: no radix is the fastest")
        ax.axvline(math.sqrt(P), label="\u221aP = %.2f" % math.sqrt(P), zorder=REFERENCE_Z,
                   **style.SQRT_STYLE)
        if line is not None:
            r_model = model.optimal_radix(P, g.S, line.alpha, line.beta)
            ax.axvline(r_model, label="model-optimal radix (%s, %s)" % (
                model_words(line.alpha, line.beta), line.source),
                zorder=REFERENCE_Z, **style.MODEL_STYLE)
            ax.text(r_model, 0.98, " r=%d" % r_model, transform=ax.get_xaxis_transform(),
                    color=style.MODEL_STYLE["color"], fontsize=6.5, va="top", ha="left")
        if g.baseline is not None:
            ax.axhline(g.baseline["median_s"] * scale,
                       label="%s median" % baseline_label(baseline, run),
                zorder=REFERENCE_Z, **style.BASELINE_STYLE)
        if line is not None and P >= 2:
            ax.plot(every_radix, [model.model_time(P, r, g.S, line.alpha, line.beta) * scale
                                  for r in every_radix],
                    color=style.MODEL_STYLE["color"], linestyle=":", linewidth=1.0, alpha=0.8,
                    zorder=REFERENCE_Z, scalex=False, scaley=False,
                    label="model time K\u00b7\u03b1 + D\u00b7S\u00b7\u03b2 (same \u03b1, \u03b2)")
        if over.get(P):
            ax.set_facecolor("#f4f0e8")
        if args.log_time:
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        ax.set_title("S = %s" % fmt_size(g.S))
        ax.grid(True, which="major")
        if log_x:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d" % round(v)))
            ax.xaxis.set_minor_locator(FixedLocator([]))
            ax.tick_params(axis="x", labelsize=7, labelrotation=45)
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        if i % ncols == 0:
            ax.set_ylabel("time per call (%s)" % unit)
        if i >= n - ncols:
            ax.set_xlabel("radix r")
    axes[0].set_xlim(x_lo, x_hi)
    legend = {}                       # every label once, from whichever panel has it
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    labels, handles = list(legend), list(legend.values())
    ncol = min(3 if ncols >= 3 else 2, len(labels))
    height = fig.get_size_inches()[1]
    fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False,
               bbox_to_anchor=(0.5, 0.2 / height))
    g0 = groups[0]
    details = "%s family, dist = %s" % (g0.family, data_label(g0.data_key))
    if log_x:
        measured = sorted({r["radix"] for g in groups for r in g.rows})
        if len(measured) < P - 1:
            details += " \u00b7 radices sampled: %s" % ", ".join(str(r) for r in measured)
    if line is None and analysis.two_level(groups):
        details += " \u00b7 two-level kernel: no flat model drawn"
    if over.get(P):
        details += " \u00b7 P = %d is oversubscribed: more ranks than cores (shaded panels)" % P
    title = "%s: time per call versus radix, P = %d" % (kernel, P)
    if any(g.baseline is not None for g in groups):
        title += ", against %s" % baseline_label(baseline, run)
    style.titles(fig, title, details, run, over)
    style.footer(fig, run, over, db.path)
    legend_rows = (len(labels) + ncol - 1) // ncol
    return fig, 0.3 + 0.19 * legend_rows


def make(db, kernel, baseline, run_id, filters, out, args, figures=True):
    """Draws the curves of one kernel (one figure per data set and P) into out, all in one
    time unit, each with a CSV of its numbers (write_numbers); args holds alpha, beta and
    log_time. figures=False: the CSVs only. Returns the paths."""
    run_id, groups, _ = analysis.load(db, kernel, baseline, run_id, filters)
    run = db.run(run_id)
    if figures:
        from . import style   # matplotlib is loaded only once there is something to draw
    sets = analysis.split_by_data(groups)
    written = []
    unit = family_unit(groups)        # one time unit for every figure of this command
    for data_key, gs in sets.items():
        for P in sorted({g.P for g in gs}):
            pg = sorted([g for g in gs if g.P == P], key=lambda g: g.S)
            stem = "curves_%s_P%d_run%s_%s" % (kernel, P, run_id, analysis.data_tag(data_key))
            if len({k[1:] for k in sets}) < len(sets):   # one data set in two families
                stem += "_" + data_key[0]
            stem = safe_name(stem)
            if figures:
                fig, bottom = draw(style, db, run, kernel, baseline, P, pg, unit, args)
                written += style.save(fig, out, stem, footer_inches=bottom)
            written.append(write_numbers(os.path.join(out, stem + ".csv"), run_id, kernel,
                                         baseline_label(baseline, run), P, pg, args))
    return written


NUMBER_COLUMNS = ["run", "kernel", "P", "S", "radix", "params", "median_s", "q1_s", "q3_s",
                  "noise_s", "baseline", "baseline_median_s", "marker", "model_radix",
                  "model_alpha_s", "model_beta_s_per_byte"]


def write_numbers(path, run_id, kernel, baseline, P, groups, args):
    """Writes the numbers one curves figure draws (one row per point of every line; marker:
    'best' for the clear fastest radix, 'tie' for radices tied with it; the model-optimal
    radix and the model's alpha and beta, empty when no model is drawn) as CSV; returns the
    path. A2AError (one line) when it cannot be written."""
    line = model_line(P, groups, args)
    rows = []
    for g in groups:
        v = g.verdict
        marks = {}
        if v is not None:
            for r in v.tied:
                marks[r["radix"]] = "best" if v.clear else "tie"
        r_model = model.optimal_radix(P, g.S, line.alpha, line.beta) if line else None
        for _, points in _lines(g):
            for r in points:
                top = g.by_radix.get(r["radix"])
                rows.append([run_id, kernel, P, g.S, r["radix"], other_params(r), r["median_s"],
                             r["q1_s"], r["q3_s"], contract.noise([r]),
                             baseline if g.baseline else None,
                             g.baseline["median_s"] if g.baseline else None,
                             marks.get(r["radix"], "") if top is r else "", r_model,
                             line.alpha if line else None, line.beta if line else None])
    return analysis.write_csv(path, NUMBER_COLUMNS, rows, make_folder=True)


def run(args, db):
    baseline = None if args.baseline == "none" else args.baseline
    return analysis.print_paths(make(db, args.kernel, baseline, args.run,
                                     options.select_filters(args), args.out, args))
