"""`a2a heatmap`: radix selection against a baseline (TuNA paper, Fig. 9).

x = S (one column per measured size, in order), y = P. Each (P, S) cell holds one bar standing for the full radix range
2..P (left to right), one bordered cell per radix with its number written in it (every
radix up to P = 32, sampled ones above). Where a sweep sampled the radix range (P above
32 and at most SAMPLED_CELLS radices measured, e.g. powers of two, sqrt(P), P-1, P), the
bar holds only the measured radices, in equal cells, each numbered, and the figure says so. A cell's colour is its speedup over the baseline
(baseline median / kernel median) on a diverging logarithmic scale centred on x1: faster
in one hue, slower in the other, capped (colour_scale) so that one outlier does not flatten
the rest; the cap is written on the colour bar. A marker names the fastest radix only when
it beats the runner-up by more than the noise (contract.within_noise, as `a2a tune` decides);
radices within the noise of each other are marked as tied. Bars measured with more ranks
than cores are hatched. Other kernel parameters chosen per radix (TuNA's block_count) are
written under the radix. A small tick under the bar marks sqrt(P). The numbers of every
cell (median, noise, baseline and speedup, as contract.py defines them) are written next to
the figure as a CSV file of the same name.

The decisions are made by plan() on the data alone; draw() only draws a plan."""
import math
import os

from . import analysis
from ..core import contract, options
from .analysis import data_label, fmt_factor
from .simruns import baseline_label
from ..core.common import DEFAULT_FIGURES, A2AError, fmt_size, safe_name

MISSING = "white"
HATCH = "////"
LABEL_ALL_UP_TO = 32          # every radix labelled up to this P, sampled above
SAMPLED_LABELS = 9
SAMPLED_CELLS = 16            # a bar of at most this many measured radices (P > 32) is drawn sampled


class Bar:
    """One (P, S) bar of the heatmap, as decided from the data.

    cells: [(radix, speedup or None, params {name: value})] for radices 2..P, or for the
    measured radices only when sampled; markers: [(radix, 'best' | 'tie')]; label: the text
    under the bar; labelled: the radices written in their cells; oversubscribed: hatched."""

    def __init__(self, group, baseline):
        self.group = group
        self.P, self.S = group.P, group.S
        params = analysis.chosen_params(group)
        measured = sorted(r for r in group.by_radix if r is not None and 2 <= r <= group.P)
        self.sampled = (group.P > LABEL_ALL_UP_TO and 2 <= len(measured) <= SAMPLED_CELLS)
        radices = measured if self.sampled else range(2, group.P + 1)
        self.cells = []
        for r in radices:
            row = group.by_radix.get(r)
            self.cells.append((r, group.speedup(row) if row else None, params.get(r, {})))
        self.oversubscribed = group.oversubscribed
        self.verdict = v = group.verdict
        self.markers = []
        self.label = ""
        if v is not None:
            if v.clear:
                self.markers = [(v.fastest["radix"], "best")]
                head = "r=%d" % v.fastest["radix"]
            else:
                self.markers = [(r, "tie") for r in v.tied_radices]
                rs = v.tied_radices
                head = ("tie r=%s" % ",".join(str(r) for r in rs) if len(rs) <= 4
                        else "tie: %d radices" % len(rs))
            s = group.speedup(v.fastest)
            if s is None:
                tail = "(no %s)" % baseline
            elif v.vs_baseline == "noise":
                tail = "\u2248 %s" % baseline
            else:
                tail = fmt_factor(s)
            self.label = "%s %s" % (head, tail)
        if self.sampled:
            self.labelled = list(measured)
        else:
            most = group.P - 1 if group.P <= LABEL_ALL_UP_TO else SAMPLED_LABELS
            self.labelled = analysis.radix_ticks(group.P, most)

    def slot(self, radix):
        """Where radix stands in the bar, in cells from the left edge to the cell's centre
        (fractional between two sampled cells, e.g. sqrt(P) when it was not measured)."""
        rs = [r for r, _, _ in self.cells]
        if not self.sampled or not rs:
            return radix - 1.5
        if radix <= rs[0]:
            return 0.5
        for i in range(1, len(rs)):
            if radix <= rs[i]:
                return i - 0.5 + (radix - rs[i - 1]) / float(rs[i] - rs[i - 1])
        return len(rs) - 0.5


class Plan:
    """What the heatmap shows: process counts, sizes, bars, the colour scale, which
    parameters besides the radix vary (written in the cells) and which are fixed."""

    def __init__(self, groups, baseline):
        self.Ps = sorted({g.P for g in groups})
        self.Ss = sorted({g.S for g in groups})
        self.bars = [Bar(g, baseline) for g in groups]
        self.scale = analysis.colour_scale([s for b in self.bars for _, s, _ in b.cells if s])
        self.oversubscribed = analysis.oversubscribed_by_p(groups)
        values = {}
        for b in self.bars:
            for _, _, params in b.cells:
                for k, v in params.items():
                    values.setdefault(k, set()).add(str(v))
        self.varying = sorted(k for k, vs in values.items() if len(vs) > 1)
        self.fixed = {k: next(iter(vs)) for k, vs in values.items() if len(vs) == 1}


def plan(groups, baseline):
    """The Plan of a heatmap of these groups (one data set) against `baseline`."""
    return Plan(groups, baseline)


def add_parser(sub, common):
    p = sub.add_parser(
        "heatmap", parents=[common["db"], common["select"]],
        help="radix-selection heatmap vs a baseline (TuNA Fig. 9)",
        description="Radix-selection heatmap (TuNA paper, Fig. 9): x = S, y = P; each cell is "
                    "the radix range 2..P, one bordered, numbered cell per radix coloured by "
                    "its speedup over the baseline (log scale centred on x1, capped, faster "
                    "and slower in two hues); the best radix marked only when it beats the "
                    "runner-up by more than the noise (ties marked as ties); oversubscribed "
                    "P hatched. One PNG, one SVG and one CSV of its numbers (median, noise, "
                    "baseline, speedup, best per radix) per data set (distribution, "
                    "datatype, payload).",
        epilog="example:  a2a heatmap --kernel tra --baseline vendor --out results/figures",
        formatter_class=common["formatter"])
    p.add_argument("--kernel", required=True, help="the tunable kernel (tra, tuna, ...)")
    p.add_argument("--baseline", default=contract.DEFAULT_BASELINE,
                   help="kernel whose own choice is the baseline (default: %(default)s)")
    p.add_argument("--cmap", default="RdBu",
                   help="a diverging matplotlib colormap, slower at its low end (default: RdBu)")
    p.add_argument("--out", default=DEFAULT_FIGURES, metavar="DIR",
                   help="output directory (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def factor_words(x):
    """A colour-bar label: '2x faster', 'same', '2x slower' (x = speedup)."""
    if abs(x - 1.0) < 1e-9:
        return "same as baseline"
    f = x if x > 1 else 1.0 / x
    text = ("%.1f" % f).rstrip("0").rstrip(".")
    return "%s\u00d7 %s" % (text, "faster" if x > 1 else "slower")


def _short(name, value):
    short = analysis.PARAM_SHORT.get(name, name)
    return "%s%s" % (short, value)


def _ink(rgba):
    """Black or white text, whichever reads on a cell of this colour."""
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def draw(style, db, run, kernel, baseline, groups, cmap_name):
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    pl = plan(groups, baseline)
    name = baseline_label(baseline, run)
    Ps, Ss = pl.Ps, pl.Ss
    xs = list(range(len(Ss)))      # one column per size: every bar equally wide
    dx = 1.0
    half_w, half_h = 0.42 * dx, 0.24
    norm = LogNorm(vmin=pl.scale.vmin, vmax=pl.scale.vmax, clip=True)
    cmap = matplotlib.colormaps[cmap_name]
    # bars wide enough for a readable number in every labelled cell
    widest = max(min(P, LABEL_ALL_UP_TO + 1) - 1 for P in Ps)
    bar_in = max(1.0, widest * 6.5 / 72)
    width = min(40.0, max(8.5, len(Ss) * bar_in / 0.84 + 3.0))
    height = min(24.0, max(4.8, 0.95 * len(Ps) + 3.4))
    fig = style.new_figure(width, height)
    ax = fig.add_subplot(1, 1, 1)
    label_size = 6.5 if len(Ss) <= 8 else 5.5
    for b in pl.bars:
        x = xs[Ss.index(b.S)]
        y = Ps.index(b.P)
        x0, w = x - half_w, 2 * half_w
        n = max(1, len(b.cells))
        cell_w = w / n
        for r, s, params in b.cells:
            a = x0 + cell_w * (b.slot(r) - 0.5)
            color = MISSING if s is None else cmap(norm(s))
            ax.add_patch(Rectangle((a, y - half_h), cell_w, 2 * half_h, facecolor=color,
                                   edgecolor="0.3", linewidth=0.45, zorder=2))
            if r in b.labelled:
                text = str(r)
                note = " ".join(_short(k, params[k]) for k in pl.varying if k in params)
                if note:
                    text += "\n" + note
                ink = "0.3" if s is None else _ink(color)
                size = 6 if n <= 8 else (5 if n <= 19 else 4.2)
                ax.text(a + cell_w / 2, y, text, ha="center", va="center", fontsize=size,
                        color=ink, zorder=4, linespacing=0.9,
                        rotation=90 if ((n > 8 or len(str(r)) > 3) and not note) else 0)
        if b.oversubscribed:
            ax.add_patch(Rectangle((x0, y - half_h), w, 2 * half_h, fill=False, hatch=HATCH,
                                   edgecolor=(0, 0, 0, 0.28), linewidth=0, zorder=3))
        ax.add_patch(Rectangle((x0, y - half_h), w, 2 * half_h, fill=False, edgecolor="0.1",
                               linewidth=0.8, zorder=5))
        if b.P >= 4:       # sqrt(P): a tick under the bar at radix sqrt(P)'s place
            sx = x0 + cell_w * b.slot(math.sqrt(b.P))
            ax.plot([sx, sx], [y - half_h - 0.07, y - half_h], color="0.2", linewidth=0.9,
                    zorder=5)
        for r, kind in b.markers:
            mx = x0 + cell_w * b.slot(r)
            ax.plot([mx], [y + half_h + 0.08], marker="v", markersize=5.5, linestyle="none",
                    color="black" if kind == "best" else "white", markeredgecolor="black",
                    markeredgewidth=0.8, zorder=6)
        clear = b.verdict is not None and b.verdict.clear
        ax.text(x, y - half_h - 0.09, b.label, ha="center", va="top", fontsize=label_size,
                color="black" if clear else "0.3", fontweight="bold" if clear else "normal")
    ax.set_xlim(xs[0] - 0.55 * dx, xs[-1] + 0.55 * dx)
    ax.set_ylim(-0.7, len(Ps) - 0.35)
    ax.set_xticks(xs)
    ax.set_xticklabels([fmt_size(S) for S in Ss])
    ax.set_yticks(range(len(Ps)))
    ax.set_yticklabels(["%d%s" % (P, " *" if pl.oversubscribed.get(P) else "") for P in Ps])
    ax.set_xlabel("S: largest block size per destination")
    ax.set_ylabel("P (processes; * = oversubscribed)" if any(pl.oversubscribed.values())
                  else "P (processes)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)

    sm = ScalarMappable(norm=norm, cmap=cmap)
    sm.set_array([])
    cbar = fig.colorbar(sm, ax=ax, fraction=0.035, pad=0.02, extend="both")
    cap = pl.scale.cap
    ticks = sorted({1.0 / cap, 1.0, cap, math.sqrt(cap), 1.0 / math.sqrt(cap)})
    cbar.set_ticks(ticks)
    cbar.set_ticklabels([factor_words(t) for t in ticks])
    cbar.minorticks_off()
    cbar.set_label("speedup over %s\n(its median / %s median), log scale; "
                   "colour capped at %s and %s%s" % (
                       name, kernel, factor_words(cap), factor_words(1.0 / cap),
                       " (%d cell%s beyond, drawn at the cap)" % (
                           pl.scale.beyond, "" if pl.scale.beyond == 1 else "s")
                       if pl.scale.beyond else ""), fontsize=7.5)
    handles = [
        Patch(facecolor=cmap(norm(cap)), edgecolor="0.3", label="radix faster than %s" % name),
        Patch(facecolor=cmap(norm(1.0 / cap)), edgecolor="0.3",
              label="radix slower than %s" % name),
        Patch(facecolor=MISSING, edgecolor="0.3",
              label="not measured" if all(b.group.baseline for b in pl.bars)
              else "not measured, or no baseline at that (P, S)"),
        Line2D([], [], marker="v", color="black", linestyle="none", markersize=5.5,
               label="fastest radix, beyond the noise (bold: r, speedup; "
                     "\u2248: within the baseline's noise)"),
        Line2D([], [], marker="v", color="white", markeredgecolor="black", linestyle="none",
               markersize=5.5, label="tied: within the noise (smaller IQR) of the fastest"),
        Line2D([], [], color="0.2", marker="|", linestyle="none", markersize=8,
               markeredgewidth=1.2, label="\u221aP (tick under the bar)"),
    ]
    if any(pl.oversubscribed.values()):
        handles.append(Patch(facecolor="white", edgecolor=(0, 0, 0, 0.4), hatch=HATCH,
                             label="oversubscribed: P > cores (timings include the scheduler)"))
    ncol = 3 if width >= 10 else 2
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.2 / height), ncol=ncol,
               frameon=False)
    g0 = groups[0]
    details = "%s family, dist = %s \u00b7 each bar: radix 2..P left to right, number = radix" % (
        g0.family, data_label(g0.data_key))
    if any(b.sampled for b in pl.bars):
        details += (" \u00b7 radices sampled above P = %d: only the measured ones, in equal cells"
                    % LABEL_ALL_UP_TO)
    if pl.varying:
        details += " (under it: %s chosen)" % ", ".join(
            "%s = %s" % (analysis.PARAM_SHORT.get(k, k) or k, k) for k in pl.varying)
    if pl.fixed:
        details += " \u00b7 " + ", ".join("%s = %s" % kv for kv in sorted(pl.fixed.items()))
    style.titles(fig, "%s: which radix for (P, S)? Speedup of every radix over %s"
                 % (kernel, name), details, run, pl.oversubscribed)
    style.footer(fig, run, pl.oversubscribed, db.path)
    rows = (len(handles) + ncol - 1) // ncol
    return fig, 0.35 + 0.19 * rows


def make(db, kernel, baseline, run_id, filters, out, cmap="RdBu", figures=True):
    """Draws the heatmaps of one kernel (one per data set) into out, each with the CSV of
    its numbers (figures=False: the CSVs only); returns the paths."""
    run_id, groups, _ = analysis.load(db, kernel, baseline, run_id, filters)
    run = db.run(run_id)
    if figures:
        from . import style   # matplotlib is loaded only once there is something to draw
        import matplotlib
        if cmap not in matplotlib.colormaps:
            raise A2AError("unknown colormap '%s' (try RdBu, PuOr, BrBG)" % cmap)
    written = []
    sets = analysis.split_by_data(groups)
    for data_key, gs in sets.items():
        with_base = [g for g in gs if g.baseline is not None]
        if not with_base:
            raise A2AError("no ok results of baseline '%s' in run %s for %s %s blocks"
                           % (baseline, run_id, kernel, data_label(data_key)))
        stem = "heatmap_%s_vs_%s_run%s_%s" % (kernel, baseline, run_id,
                                              analysis.data_tag(data_key))
        if len({k[1:] for k in sets}) < len(sets):       # one data set in two families
            stem += "_" + data_key[0]
        stem = safe_name(stem)
        if figures:
            fig, bottom = draw(style, db, run, kernel, baseline, gs, cmap)
            written += style.save(fig, out, stem, footer_inches=bottom)
        else:
            os.makedirs(out, exist_ok=True)
        written.append(write_numbers(os.path.join(out, stem + ".csv"),
                                     run_id, kernel, baseline_label(baseline, run), gs))
    return written


NUMBER_COLUMNS = ["run", "kernel", "P", "S", "radix", "params", "median_s", "noise_s",
                  "baseline", "baseline_median_s", "speedup", "best"]


def write_numbers(path, run_id, kernel, baseline, groups):
    """Writes the numbers behind one heatmap (one row per drawn radix cell; best = 1 for the
    group's best radix; baseline: its name as the figure gives it, baseline_label) as CSV;
    returns the path."""
    rows = []
    for g in groups:
        top = g.best
        for radix in sorted(g.by_radix):
            r = g.by_radix[radix]
            rows.append([run_id, kernel, g.P, g.S, radix, analysis.other_params(r), r["median_s"],
                         contract.noise([r]), baseline if g.baseline else None,
                         g.baseline["median_s"] if g.baseline else None, g.speedup(r),
                         int(r is top)])
    return analysis.write_csv(path, NUMBER_COLUMNS, rows)


def run(args, db):
    return analysis.print_paths(make(db, args.kernel, args.baseline, args.run,
                                     options.select_filters(args), args.out, args.cmap))
