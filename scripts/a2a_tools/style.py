"""The shared look of every figure: Agg backend, fonts, S ticks, title, footer, saving."""
import math
import os
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.ticker import FixedLocator, FuncFormatter  # noqa: E402

from .common import fmt_size, simulated_label  # noqa: E402
from .db import short_mpi  # noqa: E402


plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": False,
    "grid.alpha": 0.3,
    "savefig.dpi": 150,
    "svg.fonttype": "none",
    "figure.dpi": 100,
})

BASELINE_STYLE = dict(color="black", linestyle="--", linewidth=1.0)
SQRT_STYLE = dict(color="tab:gray", linestyle="-.", linewidth=1.0)
MODEL_STYLE = dict(color="tab:red", linestyle=":", linewidth=1.4)


def log2_size_axis(axis, sizes):
    """Ticks at log2(S) for every S in sizes, labelled 16, 1K, 16K ..."""
    axis.set_major_locator(FixedLocator([math.log2(s) for s in sizes if s > 0]))
    axis.set_major_formatter(FuncFormatter(lambda x, pos: fmt_size(round(2 ** x))))


def provenance(run, oversubscribed):
    """One line: MPI library + version, host, ranks/cores and oversubscription (for a
    simulated run: the platform and the simulation's settings instead)."""
    simulated = simulated_label(run)
    if simulated:
        return simulated
    parts = [short_mpi(run), "host %s" % (run["host"] or "?")]
    if run["world_size"]:
        ranks = "%d ranks" % run["world_size"]
        if run["cores_per_node"]:
            ranks += " on %d cores" % (run["cores_per_node"] * max(1, run["nodes"] or 1))
        parts.append(ranks)
    parts.append("oversubscribed" if oversubscribed else "not oversubscribed")
    return " \u00b7 ".join(parts)


def footer(fig, run, oversubscribed, db_path):
    text = "a2atune run %s (%s) \u00b7 %s \u00b7 git %s \u00b7 %s" % (
        run["id"], (run["started"] or "?")[:16].replace("T", " "),
        provenance(run, oversubscribed), run["git_revision"] or "?", os.path.basename(db_path))
    fig.text(0.005, 0.004, text, fontsize=6.5, color="0.35", ha="left", va="bottom")


def new_figure(width, height):
    return plt.figure(figsize=(width, height))


def save(fig, out_dir, stem, footer_inches=0.22):
    """Tight layout leaving room for the footer; writes stem.png and stem.svg into
    out_dir (created). Returns the two paths."""
    os.makedirs(out_dir, exist_ok=True)
    height = fig.get_size_inches()[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig.tight_layout(rect=(0, footer_inches / height, 1, 1))
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, "%s.%s" % (stem, ext))
        fig.savefig(path)
        paths.append(path)
    plt.close(fig)
    return paths


def safe_name(text):
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in str(text))
