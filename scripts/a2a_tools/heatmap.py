"""`a2a heatmap`: radix selection against a baseline (TuNA paper, Fig. 9).

x = S (log2), y = P. Each (P, S) cell holds one bar standing for the full radix range
2..P (left to right). Radices faster than the baseline are coloured by their speedup
(baseline median / kernel median); slower ones are grey, unmeasured ones white. The
fastest radix carries a marker, and its radix and speedup are written under the bar;
a small tick under the bar marks sqrt(P)."""
import math
import sys

from . import analysis, options
from .analysis import data_label
from .common import DEFAULT_FIGURES, A2AError

SLOWER = "#cfcfcf"
MISSING = "white"


def add_parser(sub, common):
    p = sub.add_parser(
        "heatmap", parents=[common["db"], common["select"]],
        help="radix-selection heatmap vs a baseline (TuNA Fig. 9)",
        description="Radix-selection heatmap (TuNA paper, Fig. 9): x = S, y = P; each cell is "
                    "the radix range 2..P, the radices that beat the baseline coloured by "
                    "speedup, the best radix marked. One PNG and one SVG per data set "
                    "(distribution, datatype, payload).",
        epilog="example:  a2a heatmap --kernel tra --baseline vendor --out results/figures",
        formatter_class=common["formatter"])
    p.add_argument("--kernel", required=True, help="the tunable kernel (tra, tuna, ...)")
    p.add_argument("--baseline", default="vendor", help="kernel to beat (default: vendor)")
    p.add_argument("--cmap", default="viridis", help="matplotlib colormap (default: viridis)")
    p.add_argument("--out", default=DEFAULT_FIGURES, metavar="DIR",
                   help="output directory (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def draw(style, db, run, kernel, baseline, groups, oversubscribed, cmap_name):
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    Ps = sorted({g.P for g in groups})
    Ss = sorted({g.S for g in groups})
    xs = [math.log2(s) if s > 0 else 0.0 for s in Ss]
    dx = min([b - a for a, b in zip(xs, xs[1:])] or [1.0])
    half_w, half_h = 0.42 * dx, 0.22
    speedups = [g.speedup(r) for g in groups for r in g.by_radix.values()]
    top = max([s for s in speedups if s] + [1.0])
    norm = Normalize(vmin=1.0, vmax=max(top, 1.05))
    cmap = matplotlib.colormaps[cmap_name]

    fig = style.new_figure(min(16.0, max(7.0, 0.8 * len(Ss) + 3.2)),
                           min(14.0, max(4.2, 0.85 * len(Ps) + 2.8)))
    ax = fig.add_subplot(1, 1, 1)
    polys, colors = [], []
    label_size = 6.5 if len(Ss) <= 8 else 5.5
    for g in groups:
        x = xs[Ss.index(g.S)]
        y = Ps.index(g.P)
        x0, width = x - half_w, 2 * half_w
        n = max(1, g.P - 1)                           # radices 2..P
        for r in range(2, g.P + 1):
            a = x0 + width * (r - 2) / n
            b = x0 + width * (r - 1) / n
            row = g.by_radix.get(r)
            s = g.speedup(row)
            if row is None or s is None:
                color = MISSING
            elif s > 1.0:
                color = cmap(norm(s))
            else:
                color = SLOWER
            polys.append([(a, y - half_h), (b, y - half_h), (b, y + half_h), (a, y + half_h)])
            colors.append(color)
        ax.add_patch(Rectangle((x0, y - half_h), width, 2 * half_h,
                                                  fill=False, edgecolor="0.2", linewidth=0.6,
                                                  zorder=3))
        # sqrt(P): a tick under the bar, at the centre of radix sqrt(P)'s slot (P >= 4)
        if g.P >= 4:
            sx = x0 + width * (math.sqrt(g.P) - 1.5) / n
            ax.plot([sx, sx], [y - half_h - 0.08, y - half_h], color="0.3", linewidth=0.8,
                    zorder=3)
        best = g.best
        if best is not None:
            r = best["radix"]
            bx = x0 + width * (r - 1.5) / n
            ax.plot([bx], [y + half_h + 0.07], marker="v", markersize=5, color="black", zorder=4,
                    linestyle="none")
            s = g.speedup(best)
            text = "r=%d" % r + (" \u00d7%.2f" % s if s is not None else " (no baseline)")
            ax.text(x, y - half_h - 0.1, text, ha="center", va="top", fontsize=label_size,
                    color="black" if s is not None and s > 1 else "0.35")
    ax.add_collection(PolyCollection(polys, facecolors=colors, edgecolors="none", zorder=2))
    ax.set_xlim(xs[0] - 0.55 * dx, xs[-1] + 0.55 * dx)
    ax.set_ylim(-0.6, len(Ps) - 0.4)
    style.log2_size_axis(ax.xaxis, Ss)
    ax.set_yticks(range(len(Ps)))
    ax.set_yticklabels([str(P) for P in Ps])
    ax.set_xlabel("S: largest block size per destination (bytes, log2 scale)")
    ax.set_ylabel("P (processes)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)

    sm = ScalarMappable(norm=norm, cmap=cmap)
    sm.set_array([])
    cbar = fig.colorbar(sm, ax=ax, fraction=0.04, pad=0.02)
    cbar.set_label("speedup over %s (%s median / %s median)" % (baseline, baseline, kernel))
    handles = [
        Patch(facecolor=cmap(norm(min(top, norm.vmax))), edgecolor="0.2",
              label="radix faster than %s (colour = speedup)" % baseline),
        Patch(facecolor=SLOWER, edgecolor="0.2", label="radix not faster than %s" % baseline),
        Patch(facecolor=MISSING, edgecolor="0.2", label="not measured"),
        Line2D([], [], marker="v", color="black", linestyle="none", markersize=5,
               label="best radix (r=…, \u00d7speedup)"),
        Line2D([], [], color="0.3", marker="|", linestyle="none", markersize=8,
               markeredgewidth=1.2, label="\u221aP (tick under the bar)"),
    ]
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.03), ncol=3,
               frameon=False)
    g0 = groups[0]
    fig.suptitle("%s: radix selection against %s \u2014 each bar spans radix 2..P"
                 % (kernel, baseline), fontsize=10, y=0.995)
    ax.set_title("%s family, dist = %s \u00b7 %s" % (
        g0.family, data_label(g0.data_key), style.provenance(run, oversubscribed)), fontsize=8)
    style.footer(fig, run, oversubscribed, db.path)
    return fig


def run(args, db):
    filters = options.select_filters(args)
    run_id, groups, _ = analysis.load(db, args.kernel, args.baseline, args.run, filters)
    run = db.run(run_id)
    from . import style   # matplotlib is loaded only once there is something to draw
    import matplotlib
    if args.cmap not in matplotlib.colormaps:
        raise A2AError("unknown colormap '%s' (try viridis, magma, YlGnBu)" % args.cmap)
    written = []
    sets = analysis.split_by_data(groups)
    for data_key, gs in sets.items():
        with_base = [g for g in gs if g.baseline is not None]
        if not with_base:
            raise A2AError("no ok results of baseline '%s' in run %s for %s %s blocks"
                           % (args.baseline, run_id, args.kernel, data_label(data_key)))
        over = any(r["oversubscribed"] for g in gs for r in g.rows) or \
            any(g.baseline["oversubscribed"] for g in with_base)
        fig = draw(style, db, run, args.kernel, args.baseline, gs, over, args.cmap)
        stem = "heatmap_%s_vs_%s_run%s_%s" % (args.kernel, args.baseline, run_id,
                                              analysis.data_tag(data_key))
        if len({k[1:] for k in sets}) < len(sets):       # one data set in two families
            stem += "_" + data_key[0]
        written += style.save(fig, args.out, style.safe_name(stem), footer_inches=0.75)
    for path in written:
        sys.stdout.write(path + "\n")
    return 0
