"""`a2a paper-figures`: every figure of docs/results/ from the data checked in under
tests/data/, by one command (`make paper-figures`), each with the numbers it draws beside it.

The data: tests/data/tuner-dragonfly-memlink.sql (the simulated sweep
sweeps/paper/tuner_dragonfly.ini at P = 128..512 on the current platforms/dragonfly.xml) and
tests/data/tuner-dragonfly-memlink-1024.sql (its P = 1024 part up to 4 KiB,
sweeps/paper/tuner_dragonfly_1024.ini), with tests/data/sim-dragonfly-baselines.sql (MPICH's
and Open MPI's selections on the same grid, sweeps/paper/dragonfly_baselines*.ini), loaded
into a temporary database. The figures: the TRA and TuNA radix heatmaps against a
machine-like baseline, MPICH's selection (BASELINE), and against SMPI's ring as an extra (CSV
beside each), the time-versus-radix curves of both at P = 1024 against MPICH's selection (CSV
beside each, the TRA model's alpha and beta fitted on the drawn points) and the tuner's
regret maps (`a2atune tune --budget 25%` replayed on the P = 128..512 sweep, then `a2a
tuner-report`; its per-cell table beside them), and from
tests/data/sim-hierarchical-256.sql (sweeps/paper/hierarchical.ini at P = 256, a simulation
of its own network model) with tests/data/sim-hierarchical-256-baselines.sql (MPICH's
selection at its configurations, sweeps/paper/hierarchical_baselines.ini) the curves of the
two-level kernels against MPICH's selection and hierarchical_P256.md, their best radices
beside the flat kernels' against MPICH's selection and, as an extra, SMPI's ring; from tests/data/sim-inplace-sdde-scaling.sql
(sweeps/paper/inplace_scaling.ini and sdde_scaling.ini) the in-place and SDDE families
against P (family_scaling.py). Same data, same numbers: the CSV and
markdown files are byte-identical from one run to the next (the PNGs may differ bytewise);
tests/parts/paperfigs.sh checks the checked-in ones. --numbers-only writes the numbers and
draws nothing (what the test compares)."""
import argparse
import contextlib
import hashlib
import io
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from ..figures import best_radix, curves, heatmap, model
from ..figures.simruns import baseline_label, simulated_label
from . import family_scaling
from ..core import params
from ..core.common import A2AError, fmt_size, write_rows
from ..core.db import open_db

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = ("tests/data/tuner-dragonfly-memlink.sql", "tests/data/tuner-dragonfly-memlink-1024.sql",
        "tests/data/sim-dragonfly-baselines.sql")
TUNER_SWEEP = "sweeps/paper/tuner_dragonfly.ini"
DATA_NAME = "tuner-dragonfly-memlink.db"  # the temporary database, as figures name it
TUNED_NAME = "tuned.db"
DEFAULT_OUT = os.path.join("docs", "results")

# the machine-like baseline every figure of the dragonfly data divides by: MPI_Alltoall(v) as
# MPICH selects it, on liba2a's kernels (Cray MPICH derives from MPICH)
BASELINE = "mpich_selection"
# (file stem in --out, what draws it, kernel, baseline, filters): each makes exactly one
# figure; the heatmaps against SMPI's ring (the vendor call of these simulations) are extras
FIGURES = (
    ("heatmap_tra_vs_mpich", "heatmap", "tra", BASELINE, {}),
    ("heatmap_tuna_vs_mpich", "heatmap", "tuna", BASELINE, {}),
    ("curves_tra_P1024", "curves", "tra", BASELINE, {"P": [1024]}),
    ("curves_tuna_P1024", "curves", "tuna", BASELINE, {"P": [1024]}),
    ("heatmap_tra_vs_ring", "heatmap", "tra", "vendor", {}),
    ("heatmap_tuna_vs_ring", "heatmap", "tuna", "vendor", {}),
)
REGRET_NUMBERS = "tuner-regret.md"
# the two-level kernels at P = 256 (sweeps/paper/hierarchical.ini), a simulation of their own,
# with MPICH's selection at its configurations (sweeps/paper/hierarchical_baselines.ini)
HIER_DATA = ("tests/data/sim-hierarchical-256.sql", "tests/data/sim-hierarchical-256-baselines.sql")
HIER_FIGURES = (
    ("curves_tra2_P256", "curves", "tra2", BASELINE, {"P": [256]}),
    ("curves_tuna_coalesced_P256", "curves", "tuna_coalesced", BASELINE, {"P": [256]}),
    ("curves_tuna_staggered_P256", "curves", "tuna_staggered", BASELINE, {"P": [256]}),
)
HIER_KERNELS = ("tra", "tra2", "tuna", "tuna_coalesced", "tuna_staggered")
HIER_TABLE = "hierarchical_P256.md"
# the table's extra baseline, beside BASELINE: SMPI's ring, the vendor call of the simulation
HIER_EXTRA = "vendor"


def add_parser(sub, common):
    """Registers `a2a paper-figures`."""
    p = sub.add_parser(
        "paper-figures",
        help="every figure of docs/results from the checked-in data, numbers beside each",
        description="Loads %s into a temporary database and writes the figures of "
                    "docs/results: heatmap_{tra,tuna}_vs_mpich and curves_{tra,tuna}_P1024 "
                    "against MPICH's selection (mpich_selection), heatmap_{tra,tuna}_vs_ring "
                    "against SMPI's ring (PNG and a CSV of the numbers drawn), "
                    "tuner-regret-*.png with %s "
                    "(the tuner replayed at a 25%% budget); from %s the two-level kernels' "
                    "curves at P = 256 and %s against MPICH's selection (the ring an "
                    "extra); from %s the in-place and SDDE families against P (%s.png, "
                    ".csv, %s). Same data, same numbers."
                    % (" and ".join(DATA), REGRET_NUMBERS, " and ".join(HIER_DATA), HIER_TABLE,
                       family_scaling.DATA[0], family_scaling.STEM, family_scaling.TABLE),
        epilog="example:  a2a paper-figures --out docs/results   (make paper-figures)",
        formatter_class=common["formatter"])
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help="output directory (default: %(default)s)")
    p.add_argument("--numbers-only", action="store_true",
                   help="write the numbers (CSV, markdown) only, draw nothing")
    p.set_defaults(func=run, needs_db=False)
    return p


def load_data(path, data=DATA):
    """Creates the database at path from the checked-in SQL files (data, in order)."""
    conn = sqlite3.connect(path)
    try:
        for name in data:
            src = os.path.join(ROOT, name)
            try:
                with open(src) as f:
                    conn.executescript(f.read())
            except OSError as e:
                raise A2AError("%s: %s" % (src, e.strerror or e))
            except sqlite3.Error as e:
                raise A2AError("%s: %s" % (src, e))
    finally:
        conn.close()


def data_checksum(data):
    """The first 12 hex digits of the sha256 of the checked-in SQL files data (their bytes,
    in order): what a figure is drawn from, whatever the revision its runs recorded."""
    h = hashlib.sha256()
    for name in data:
        with open(os.path.join(ROOT, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


@contextlib.contextmanager
def loaded(work, name, data=DATA):
    """The checked-in SQL files data (in order) loaded into work/name and open as a Database
    that names them and their checksum (the figures name the checked-in data, not the
    temporary file); closed on leaving."""
    path = os.path.join(work, name)
    load_data(path, data)
    db = open_db(path)
    db.path = "%s sha256 %s" % ("+".join(os.path.basename(src) for src in data),
                                data_checksum(data))
    try:
        yield db
    finally:
        db.conn.close()


def one_output(paths, ext):
    """The one path among paths ending in ext (A2AError otherwise: a figure's selection
    must make exactly one figure)."""
    found = [p for p in paths if p.endswith(ext)]
    if len(found) != 1:
        raise A2AError("expected one %s output, got %d: %s" % (ext, len(found), ", ".join(paths)))
    return found[0]


def draw_radix_figures(db, work, out, figures, which=FIGURES):
    """The heatmaps and curves (which) into out, under their stems; returns the paths."""
    written = []
    for stem, tool, kernel, baseline, filters in which:
        tmp = os.path.join(work, stem)
        if tool == "heatmap":
            paths = heatmap.make(db, kernel, baseline, None, filters, tmp, figures=figures)
        else:
            ns = argparse.Namespace(alpha=None, beta=None, log_time=True)
            paths = curves.make(db, kernel, baseline, None, filters, tmp, ns, figures=figures)
        exts = (".csv", ".png") if figures else (".csv",)
        for ext in exts:
            dest = os.path.join(out, stem + ext)
            shutil.copyfile(one_output(paths, ext), dest)
            written.append(dest)
    return written


def regret_figures(work, out, figures):
    """The tuner replayed on the P = 128..512 sweep (a2atune tune --budget 25% --replay),
    then `a2a tuner-report`: its regret maps and its table (REGRET_NUMBERS) into out."""
    exh = os.path.join(work, "regret", DATA_NAME)
    os.makedirs(os.path.dirname(exh))
    conn = sqlite3.connect(exh)
    with open(os.path.join(ROOT, DATA[0])) as f:
        conn.executescript(f.read())
    conn.close()
    here = os.path.dirname(exh)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    tune = subprocess.run([params.binary(), "tune", os.path.join(ROOT, TUNER_SWEEP), "--budget",
                           "25%", "--replay", DATA_NAME, "--db", TUNED_NAME, "--no-files",
                           "--quiet"], cwd=here, env=env, capture_output=True, text=True,
                          timeout=600)
    if tune.returncode != 0:
        raise A2AError("a2atune tune --replay: %s" % (tune.stderr.strip().splitlines()
                                                      or ["exit %d" % tune.returncode])[-1])
    report = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "a2a"),
                             "tuner-report", "--exhaustive", DATA_NAME, "--tuned", TUNED_NAME,
                             "--format", "markdown", "--out", "figs"]
                            + ([] if figures else ["--no-figure"]),
                            cwd=here, capture_output=True, text=True, timeout=600)
    if report.returncode != 0:
        raise A2AError("a2a tuner-report: %s" % (report.stderr.strip().splitlines()
                                                 or ["exit %d" % report.returncode])[-1])
    lines = [l for l in report.stdout.splitlines() if not l.startswith("wrote ")]
    dest = os.path.join(out, REGRET_NUMBERS)
    with open(dest, "w") as f:
        f.write("Generated by `scripts/a2a paper-figures` (`make paper-figures`): the regret of "
                "`a2atune tune --budget 25%%` replayed on %s (%s), from "
                "`a2a tuner-report` (simulated: SimGrid 3.32, platforms/dragonfly.xml; "
                "regret = the tuned choice's time / the true best's - 1):\n\n%s\n"
                % (DATA[0], TUNER_SWEEP, "\n".join(lines).rstrip()))
    written = [dest]
    if figures:
        for name in sorted(os.listdir(os.path.join(here, "figs"))):
            if name.endswith(".png"):
                shutil.copyfile(os.path.join(here, "figs", name), os.path.join(out, name))
                written.append(os.path.join(out, name))
    return written


def hierarchical_table(db, out):
    """HIER_TABLE: per kernel of HIER_KERNELS and S, the best radix, its parameters and
    median, and the speedup over MPICH's selection (BASELINE) at the same configuration and,
    as an extra, over the vendor call of the same simulation (HIER_EXTRA, SMPI's ring)."""
    def best_rows(kernel, baseline):
        ns = argparse.Namespace(P=[256], S=None, dist=None, family=None, radix2=None,
                                block_count=None, ppn=None, run=None, baseline=baseline,
                                alpha=model.DEFAULT_ALPHA, beta=model.DEFAULT_BETA)  # model unused
        return best_radix.rows_for(db, kernel, ns)
    rows, run = [], None
    for kernel in HIER_KERNELS:
        for r, x in zip(best_rows(kernel, BASELINE), best_rows(kernel, HIER_EXTRA)):
            run = run or db.run(r[0])
            rows.append([r[1], fmt_size(r[3]), r[5], r[6], round(r[7], 2)]
                        + [c for b in (r, x) for c in (
                            b[10] and baseline_label(b[10], run),
                            None if b[11] is None else round(b[11], 2),
                            None if b[12] is None else round(b[12], 2))])
    dest = os.path.join(out, HIER_TABLE)
    text = io.StringIO()
    write_rows(["kernel", "S", "best_radix", "params", "best_median_us", "baseline",
                "baseline_median_us", "speedup", "extra_baseline", "extra_median_us",
                "extra_speedup"], rows, "markdown", out=text, float_format="%.2f")
    with open(dest, "w") as f:
        f.write("Generated by `scripts/a2a paper-figures` (`make paper-figures`): the two-level "
                "kernels at P = 256 (8 nodes of Q = 32; `%s`), beside the flat "
                "ones of the same simulation, against %s at the same configurations (`%s`) "
                "and, as an extra, against %s: %s.\n\n%s" % (
                    HIER_DATA[0], baseline_label(BASELINE, run), HIER_DATA[1],
                    baseline_label(HIER_EXTRA, run), simulated_label(run).replace("\n", "; "),
                    text.getvalue()))
    return dest


def hierarchical(work, out, figures):
    """The curves of the two-level kernels and HIER_TABLE, from HIER_DATA."""
    with loaded(work, "hierarchical.db", HIER_DATA) as db:
        written = draw_radix_figures(db, work, out, figures, HIER_FIGURES)
        written.append(hierarchical_table(db, out))
    return written


def scaling(work, out, figures):
    """The in-place and SDDE families against P (family_scaling), from its data."""
    with loaded(work, "scaling.db", family_scaling.DATA) as db:
        return family_scaling.make(db, work, out, figures)


def run(args, _db=None):
    """`a2a paper-figures`: writes the figures (or only their numbers) and prints the paths."""
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise A2AError("--out %s: %s" % (args.out, e.strerror or e))
    with tempfile.TemporaryDirectory(prefix="a2a-paper-figures.") as work:
        with loaded(work, DATA_NAME) as db:
            written = draw_radix_figures(db, work, args.out, not args.numbers_only)
        written += regret_figures(work, args.out, not args.numbers_only)
        written += hierarchical(work, args.out, not args.numbers_only)
        written += scaling(work, args.out, not args.numbers_only)
    for p in written:
        sys.stdout.write(p + "\n")
    return 0
