"""The shared look of every figure: Agg backend, fonts, title block, footer, saving."""
import os
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from ..core.common import A2AError, safe_name  # noqa: E402,F401 (safe_name: style's)
from ..core.db import short_mpi  # noqa: E402
from .simruns import simulated_label  # noqa: E402


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


def fmt_ps(ps):
    """'3..8' or '3, 5, 8' for a sorted list of process counts."""
    ps = sorted(ps)
    if len(ps) > 2 and ps == list(range(ps[0], ps[-1] + 1)):
        return "%d..%d" % (ps[0], ps[-1])
    return ", ".join(str(p) for p in ps)


def oversubscription_text(oversubscribed, cores=None):
    """What a figure says about oversubscription: oversubscribed is a bool for the whole
    figure or {P: bool} per process count."""
    if isinstance(oversubscribed, dict):
        over = [p for p, o in oversubscribed.items() if o]
        if not over:
            return "not oversubscribed"
        where = "P = %s" % fmt_ps(over)
        if len(oversubscribed) == 1:
            return "oversubscribed%s" % (" (more ranks than the %d cores)" % cores if cores else "")
        if len(over) == len(oversubscribed):
            where = "every P"
        return "oversubscribed at %s%s" % (
            where, " (more ranks than the %d cores)" % cores if cores else "")
    return "oversubscribed" if oversubscribed else "not oversubscribed"


def provenance(run, oversubscribed):
    """One line: MPI library + version, host, ranks/cores and oversubscription (a bool, or
    {P: bool} per process count); for a simulated run: the platform and the simulation's
    settings instead."""
    simulated = simulated_label(run)
    if simulated:
        return simulated
    parts = [short_mpi(run), "host %s" % (run["host"] or "?")]
    cores = None
    if run["world_size"]:
        ranks = "%d ranks" % run["world_size"]
        if run["cores_per_node"]:
            cores = run["cores_per_node"] * max(1, run["nodes"] or 1)
            ranks += " on %d cores" % cores
        parts.append(ranks)
    parts.append(oversubscription_text(oversubscribed))
    launches = run["launches"] if "launches" in run.keys() else None
    if launches and launches > 1:
        parts.append("%d launches" % launches)
    return " \u00b7 ".join(parts)


def titles(fig, headline, details, run, oversubscribed, size=9.5):
    """The title block of every figure, in one place: the headline, then one line of
    details (what is drawn: family, data, P) and the provenance (library, host, ranks,
    where it was oversubscribed)."""
    fig.suptitle("%s\n%s\n%s" % (headline, details, provenance(run, oversubscribed)),
                 fontsize=size, y=0.995)


def revision_text(revision):
    """A run's git revision in words: 'abc1234', or 'abc1234 + uncommitted changes' for one
    recorded as abc1234-dirty (its sources differed from the revision when it ran)."""
    if revision and revision.endswith("-dirty"):
        return revision[:-len("-dirty")] + " + uncommitted changes"
    return revision or "?"


def footer(fig, run, oversubscribed, db_path):
    """The line at the bottom of every figure: the run drawn (id, start), its provenance,
    the git revision it ran (revision_text) and the database."""
    text = "a2atune run %s (%s) \u00b7 %s \u00b7 git %s \u00b7 %s" % (
        run["id"], (run["started"] or "?")[:16].replace("T", " "),
        provenance(run, oversubscribed), revision_text(run["git_revision"]),
        os.path.basename(db_path))
    fig.text(0.005, 0.004, text, fontsize=6.5, color="0.35", ha="left", va="bottom")


def new_figure(width, height):
    return plt.figure(figsize=(width, height))


def save(fig, out_dir, stem, footer_inches=0.22):
    """Tight layout leaving room for the footer; writes stem.png and stem.svg into
    out_dir (created). Returns the two paths; A2AError (one line) when out_dir cannot be
    made or written (a read-only directory, a file in the way)."""
    height = fig.get_size_inches()[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig.tight_layout(rect=(0, footer_inches / height, 1, 1))
    paths = []
    try:
        os.makedirs(out_dir, exist_ok=True)
        for ext in ("png", "svg"):
            path = os.path.join(out_dir, "%s.%s" % (stem, ext))
            fig.savefig(path)
            paths.append(path)
    except OSError as e:
        raise A2AError("--out %s: cannot write figures there: %s" % (
            out_dir, e.strerror or e))
    finally:
        plt.close(fig)
    return paths

