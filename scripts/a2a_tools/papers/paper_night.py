"""`a2a paper-night`: every paper figure's data regenerated from scratch by one command, with
progress, then docs/results/papers.md from it.

The steps, in order (each a model tier launch, `a2a model-run`, backend = model):
  1. TRA (Fig. 8 radix curves at P = 2048, 4096, 8192; Fig. 9's TRA2 plane and Fig. 10's
     speedups at P = 2048) on platforms/theta.xml: sweeps/paper/papers_table.ini ->
     tests/data/papers-theta-model.sql (what `a2a paper-table --remodel` writes);
  2. TuNA (Fig. 7 radix curves at P = 2048, Fig. 8 against MPI_Alltoallv at P = 8192 and its
     S curve at P = 2048, MPI_Alltoallv as each machine's MPI family selects it) on
     platforms/polaris.xml, then on platforms/fugaku.xml, which prices the traces the first
     made (A2A_TRACE_CACHE): sweeps/paper/papers_tuna.ini -> tests/data/papers-tuna-model.sql,
     with each configuration's tracer wall time and peak memory;
  3. docs/results/papers.md (`a2a paper-table`).
Every model launch stores its error against the checked-in SimGrid rows of its kernels
(--check: paper_rows.CHECK, tests/data/tuner-dragonfly-memlink.sql and -memlink-1024.sql, the
current platforms/dragonfly.xml). That SimGrid data, which the figures of docs/results/ draw at
P <= 1024, is not re-run here: `a2a simulate sweeps/paper/tuner_dragonfly.ini` (P = 128..512,
about 15 minutes) and `a2a simulate sweeps/paper/tuner_dragonfly_1024.ini` (P = 1024, about an
hour) re-make it (docs/simulation.md); SimGrid does not reach the papers' P on this machine.
Each step prints its wall time and the peak resident memory of its processes (wait4, as /usr/bin/time -v)."""
import io
import os
import sqlite3
import sys
import tempfile
import time

from . import paper_rows, paper_table, paper_tuna
from .progress import launch, say
from ..core.common import A2AError, fmt_clock
from ..simulation.model_run import TRACE_CACHE, TRACE_COST, check_cells, summarize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TUNA_PLATFORMS = tuple(os.path.join("platforms", p) for _, p in paper_tuna.MACHINES)


def add_parser(sub, common):
    """Registers `a2a paper-night`."""
    p = sub.add_parser(
        "paper-night",
        help="regenerate every paper figure's data (model tier) and docs/results/papers.md",
        description="Re-runs, from scratch, the model tier on %s (%s: TRA Fig. 8, 9, 10 on "
                    "Theta) and on %s (%s: TuNA Fig. 7 and 8 on Polaris and Fugaku), writes "
                    "their rows to %s and %s and the table to %s, printing each "
                    "configuration as it is priced and each step's wall time and peak memory. "
                    "About an hour on a shared 2-core machine (docs/results/"
                    "model_tier.md)." % (paper_rows.SWEEP, paper_rows.PLATFORM,
                                         paper_tuna.SWEEP, " and ".join(TUNA_PLATFORMS),
                                         paper_rows.DATA, paper_tuna.DATA,
                                         paper_table.DEFAULT_OUT),
        epilog="example:  a2a paper-night   (make paper-night)",
        formatter_class=common["formatter"])
    p.add_argument("--only", choices=("tra", "tuna"), default=None,
                   help="one paper's data only (then the table)")
    p.add_argument("--tuna-dbs", default=None, metavar="DB,...",
                   help="merge these model-run databases of %s (one or more per platform) "
                        "into %s instead of re-running it" % (paper_tuna.SWEEP, paper_tuna.DATA))
    p.add_argument("--out", default=paper_table.DEFAULT_OUT, metavar="FILE",
                   help="the table (default: %(default)s)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the steps and their configuration counts; run none")
    p.set_defaults(func=run, needs_db=False)
    return p


def model_run(sweep, platform, db, t0, label, dry_run=False, check=True, options=()):
    """One model-run launch of sweep on platform into db (check: with its error against
    SimGrid; options: more model-run options)."""
    cmd = [sys.executable, os.path.join("scripts", "a2a"), "model-run", sweep, "--platform",
           platform, "--db", db] + list(options)
    if dry_run:
        return launch(cmd + ["--dry-run"], t0, label)
    return launch(cmd + (["--check", paper_rows.CHECK] if check else []), t0, label)


def merge_tuna(dbs, path):
    """Writes the TuNA data file (paper_tuna.DATA's form) from model-run databases: one run
    per platform (the first launch's record on it, with the model's error against the
    checked-in SimGrid rows of these kernels: model-check, about a minute), every row of the
    sweep's sections, its trace cost read back from the row's message; rows in a fixed
    order. Returns the number of rows."""
    out = sqlite3.connect(":memory:")
    out.execute("CREATE TABLE runs(id INT, backend TEXT, platform TEXT, platform_sha256 TEXT, "
                "smpi_options TEXT, network_model TEXT)")
    out.execute("CREATE TABLE results(run_id INT, section TEXT, kernel TEXT, P INT, Q INT, "
                "S INT, radix INT, median_s REAL, status TEXT, validated INT, trace_s REAL, "
                "trace_peak_mb REAL)")
    runs, rows = {}, {}
    for db in dbs:
        if not os.path.exists(db):
            raise A2AError("%s: no such database" % db)
        conn = sqlite3.connect(db)
        try:
            found = conn.execute("SELECT %s FROM runs WHERE backend = 'model' ORDER BY id"
                                 % paper_tuna.RUN_COLUMNS).fetchall()
            for run in found:
                platform = run[2]
                if platform not in runs:
                    runs[platform] = (len(runs) + 1,) + tuple(run[1:])
                elif runs[platform][3] != run[3]:
                    raise A2AError("%s: two %s files (sha256 %s and %s) in the TuNA data"
                                   % (db, platform, runs[platform][3][:12], run[3][:12]))
                for r in conn.execute(
                        "SELECT section, kernel, P, Q, S, radix, median_s, status, validated, "
                        "message FROM results WHERE run_id = ?", (run[0],)):
                    cost = TRACE_COST.search(r[9] or "")
                    key = (platform,) + r[:3] + (r[4], r[5] or 0)
                    rows[key] = (runs[platform][0],) + tuple(r[:9]) + (
                        (float(cost.group(1)), float(cost.group(2))) if cost else (None, None))
        except sqlite3.Error as e:
            raise A2AError("%s: not a model-run database (%s)" % (db, e))
        finally:
            conn.close()
    if not rows:
        raise A2AError("no model rows in %s" % ", ".join(dbs))
    # the model's error against SimGrid on the checked-in rows of these kernels, with each run
    kernels = {k[2] for k in rows}
    cells = check_cells(paper_rows.CHECK, os.path.join(ROOT, "platforms"), kernels=kernels)
    error = summarize(cells, io.StringIO(), quiet=True)
    # and at P = 2048 on the run's own platform, where simulated (paper_rows.CHECK_2048_ON)
    runs = {p: r[:4] + ("%s; error vs simgrid (%s): %s%s" % (
        r[4].split("; error vs simgrid")[0], paper_rows.CHECK, error,
        paper_rows.error_2048(p) if p in paper_rows.CHECK_2048_ON else ""),) + r[5:]
            for p, r in runs.items()}
    out.executemany("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                    sorted(runs.values()))
    out.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (rows[k] for k in sorted(rows)))
    out.commit()
    with open(os.path.join(ROOT, path), "w") as f:
        for line in out.iterdump():
            f.write(line + "\n")
    return len(rows)


def run(args, db):
    """`a2a paper-night`: exit 0, 2 on bad input or a failed launch."""
    del db
    t0 = time.time()
    steps = []
    if args.only in (None, "tra"):
        say(t0, "step TRA: %s on %s -> %s" % (paper_rows.SWEEP, paper_rows.PLATFORM,
                                               paper_rows.DATA))
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "theta.db")
            wall, peak = model_run(paper_rows.SWEEP, paper_rows.PLATFORM, db, t0, "TRA",
                                   args.dry_run)
            if not args.dry_run:
                paper_rows.dump_rows(db, os.path.join(ROOT, paper_rows.DATA))
                steps.append(("TRA %s" % os.path.basename(paper_rows.PLATFORM), wall, peak))
    if args.only in (None, "tuna"):
        if args.tuna_dbs:
            dbs = [d.strip() for d in args.tuna_dbs.split(",") if d.strip()]
        else:
            dbs = []
            with tempfile.TemporaryDirectory() as tmp:
                # a schedule does not depend on the platform: the second platform prices the
                # traces the first made (model_run.TRACE_CACHE), unless a cache is given
                os.environ.setdefault(TRACE_CACHE, os.path.join(tmp, "traces"))
                for platform in TUNA_PLATFORMS:
                    label = "TuNA %s" % os.path.basename(platform)
                    say(t0, "step %s: %s -> %s" % (label, paper_tuna.SWEEP, paper_tuna.DATA))
                    dbs.append(os.path.join(tmp, os.path.basename(platform) + ".db"))
                    # the error against SimGrid: once, when the rows are merged
                    wall, peak = model_run(paper_tuna.SWEEP, platform, dbs[-1], t0, label,
                                           args.dry_run, check=False, options=(
                                               "--ranks-per-node",
                                               str(paper_tuna.RANKS_PER_NODE), "--section",
                                               paper_tuna.SECTIONS[os.path.basename(platform)]))
                    steps.append((label, wall, peak))
                if not args.dry_run:
                    n = merge_tuna(dbs, paper_tuna.DATA)
                    say(t0, "%d TuNA rows -> %s" % (n, paper_tuna.DATA))
                dbs = []
        if dbs and not args.dry_run:
            n = merge_tuna(dbs, paper_tuna.DATA)
            say(t0, "%d TuNA rows (from %s) -> %s" % (n, ", ".join(dbs), paper_tuna.DATA))
    if args.dry_run:
        return 0
    start = time.time()
    text = paper_table.table_text(paper_rows.DATA, paper_tuna.DATA)
    with open(os.path.join(ROOT, args.out) if not os.path.isabs(args.out) else args.out,
              "w") as f:
        f.write(text)
    steps.append(("table -> %s" % args.out, time.time() - start, None))
    for name, wall, peak in steps:
        say(t0, "%-40s %s%s" % (name, fmt_clock(wall),
                                ", peak %.0f MB" % peak if peak is not None else ""))
    say(t0, "done in %s" % fmt_clock(time.time() - t0))
    return 0
