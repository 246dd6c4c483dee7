"""`a2a paper-table`: docs/results/papers.md, the published numbers of the TRA and TuNA papers
beside ours for the same machine, P, S, kernel and radix, their ratio and a verdict.

The data: tests/data/papers-theta-model.sql, the model tier's rows (`a2a model-run`, backend =
model, not simulated) of sweeps/paper/papers_table.ini on platforms/theta.xml, copies free,
with the model's error against SimGrid on the checked-in dragonfly rows recorded in its run;
and tests/data/papers-tuna-model.sql, TuNA's and MPI_Alltoallv's rows on Polaris and Fugaku
(paper_tuna.py). `--remodel` re-runs the TRA sweep and rewrites its .sql (deterministic: the
same platform and kernels give the same rows); `a2a paper-night` re-runs both. Without them
the table is made from the .sql files in about a second. Nothing is fitted to the published
numbers."""
import math
import os
import sqlite3
import subprocess
import sys
import tempfile

from . import paper_tuna
from .paper_tuna import load_sql, ms, within_2x
from ..core.common import A2AError, fmt_size

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join("tests", "data", "papers-theta-model.sql")
SWEEP = os.path.join("sweeps", "paper", "papers_table.ini")
PLATFORM = os.path.join("platforms", "theta.xml")
CHECK = "tests/data/tuner-dragonfly-memlink.sql,tests/data/tuner-dragonfly-memlink-1024.sql"
DEFAULT_OUT = os.path.join("docs", "results", "papers.md")
TRA = "TRA paper (tra-configurable-alltoall.txt)"
TUNA = "TuNA paper (tuna-nonuniform-alltoall.txt)"
# the columns kept from model-run's rows: what the table reads, nothing that changes per run
RUN_COLUMNS = "id, backend, platform, platform_sha256, smpi_options, network_model"
RESULT_COLUMNS = ("run_id, section, kernel, P, Q, S, radix, radix2, ppn, median_s, status, "
                  "validated")
TREND_P = (2048, 4096, 8192)

def add_parser(sub, common):
    """Registers `a2a paper-table`."""
    p = sub.add_parser(
        "paper-table",
        help="docs/results/papers.md: the papers' published numbers beside ours",
        description="Writes a markdown table: each number the TRA and TuNA papers publish "
                    "(issue 33, item 4), the modelled figure for the same machine, P, S, "
                    "kernel and radix (%s on %s, backend = model), their ratio and a "
                    "verdict (within 2x / trend reproduced within one step of S / missed, "
                    "and why). Made from %s and %s (TuNA on Polaris and Fugaku); --remodel "
                    "first re-runs %s into the first (a2a paper-night re-runs both)."
                    % (SWEEP, PLATFORM, DATA, paper_tuna.DATA, SWEEP),
        epilog="example:  a2a paper-table   (make paper-figures runs it)",
        formatter_class=common["formatter"])
    p.add_argument("--out", default=DEFAULT_OUT, metavar="FILE",
                   help="the markdown file (default: %(default)s; - for stdout)")
    p.add_argument("--data", default=DATA, metavar="SQL",
                   help="the TRA model rows (default: %(default)s)")
    p.add_argument("--tuna-data", default=paper_tuna.DATA, metavar="SQL",
                   help="the TuNA model rows (default: %(default)s; a2a paper-night writes it)")
    p.add_argument("--remodel", action="store_true",
                   help="re-run the model sweep and rewrite --data first (about 2 minutes)")
    p.add_argument("--section", default=None, metavar="SECTION",
                   help="with --remodel: only these sections of the sweep (comma-separated); "
                        "writes --data only, no table")
    p.set_defaults(func=run, needs_db=False)
    return p


def remodel(path, section=None):
    """Runs `a2a model-run` on the sweep and writes its rows to path (dump_rows)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "model.db")
        # paths relative to the checkout: the run records them, and the data must not
        # depend on where the checkout is
        cmd = [sys.executable, os.path.join("scripts", "a2a"), "model-run", SWEEP,
               "--platform", PLATFORM, "--db", db, "--check", CHECK]
        if section:
            cmd += ["--section", section]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              cwd=ROOT)
        if done.returncode != 0:
            raise A2AError("model-run failed: %s" % (done.stderr.strip().splitlines() or ["?"])[-1])
        dump_rows(db, path)


def dump_rows(db, path):
    """Writes the rows of a model-run database, reduced to the columns the table reads, as
    SQL to path (rows in a fixed order: same model, same file)."""
    out = sqlite3.connect(":memory:")
    out.execute("ATTACH ? AS m", (db,))
    out.execute("CREATE TABLE runs AS SELECT %s FROM m.runs ORDER BY id" % RUN_COLUMNS)
    out.execute("CREATE TABLE results AS SELECT %s FROM m.results ORDER BY section, kernel, "
                "P, S, radix, radix2" % RESULT_COLUMNS)
    out.commit()
    out.execute("DETACH m")
    with open(path, "w") as f:
        for line in out.iterdump():
            f.write(line + "\n")


def load(path):
    """The rows of the .sql file in an in-memory database."""
    return load_sql(path, ("SELECT platform, smpi_options FROM runs",
                           "SELECT %s FROM results LIMIT 1" % RESULT_COLUMNS),
                    "a2a paper-table --remodel writes it", "the model rows paper-table reads")


class Model:
    """Lookups over the model rows."""

    def __init__(self, conn):
        self.conn = conn
        run = conn.execute("SELECT platform, smpi_options FROM runs").fetchall()
        if len(run) != 1:
            raise A2AError("%d model runs in the data, expected one" % len(run))
        self.platform = run[0][0]
        opts = run[0][1] or ""
        self.error = opts.split("error vs simgrid", 1)[1].split(": ", 1)[1] \
            if "error vs simgrid" in opts else "not measured"

    def time(self, kernel, P, S, radix=None, radix2=None):
        """Seconds of one configuration (the newest row); A2AError if the data lacks it."""
        row = self.conn.execute(
            "SELECT median_s FROM results WHERE kernel = ? AND P = ? AND S = ? AND status = 'ok' "
            "AND IFNULL(radix, 0) = ? AND IFNULL(radix2, 0) = ? ORDER BY rowid DESC LIMIT 1",
            (kernel, P, S, radix or 0, radix2 or 0)).fetchone()
        if not row:
            raise A2AError("the model data has no row of %s P = %d S = %d radix %s %s "
                           "(a2a paper-table --remodel)" % (kernel, P, S, radix, radix2 or ""))
        return row[0]

    def best(self, kernel, P, S, section, max_radix=None):
        """(radix, radix2, seconds) of the fastest row of a section at (P, S), radix at most
        max_radix when given."""
        row = self.conn.execute(
            "SELECT radix, radix2, median_s FROM results WHERE kernel = ? AND P = ? AND S = ? "
            "AND section = ? AND status = 'ok' AND IFNULL(radix, 0) <= ? "
            "ORDER BY median_s, radix LIMIT 1",
            (kernel, P, S, section, max_radix or P)).fetchone()
        if not row:
            raise A2AError("the model data has no row of [%s] %s P = %d S = %d "
                           "(a2a paper-table --remodel)" % (section, kernel, P, S))
        return row

    def node_size(self, P):
        return self.conn.execute("SELECT max(Q) FROM results WHERE P = ?", (P,)).fetchone()[0]

    def sizes(self, section, P):
        return [s for (s,) in self.conn.execute(
            "SELECT DISTINCT S FROM results WHERE section = ? AND P = ? ORDER BY S", (section, P))]


def near_sqrt(r, P):
    """A radix within a factor 2 of sqrt(P): one step of the paper's power-of-two sampling."""
    return math.sqrt(P) / 2 <= r <= 2 * math.sqrt(P)


def tra_rows(m):
    """The TRA paper's absolute times and speedups at P = 2048 (rows of the table)."""
    rows, backend = [], "model, %s" % m.platform
    r2, r46 = m.time("tra", 2048, 128, 2), m.time("tra", 2048, 128, 46)
    for radix, pub, ours in ((2, 16.17e-3, r2), (46, 7.699e-3, r46)):
        ratio = ours / pub
        rows.append((TRA + ", Sec. V-A, Fig. 8(b)", "Theta", 2048, "128 B", "tra, radix %d" % radix,
                     ms(pub), "%s (%s)" % (ms(ours), backend), "%.2f" % ratio,
                     "within 2x" if within_2x(ratio) else "missed",
                     "" if within_2x(ratio) else
                     "absolute time: the platform's link and per-message figures (note 2)"))
    pub, ours = 16.17 / 7.699, r2 / r46
    ok = within_2x(ours / pub)
    rows.append((TRA + ", Sec. V-A, Fig. 8(b)", "Theta", 2048, "128 B",
                 "tra radix 2 / radix 46", "%.2fx" % pub, "%.2fx (%s)" % (ours, backend),
                 "%.2f" % (ours / pub), "within 2x" if ok else "missed",
                 "" if ok else "the cost of radix 2's 11 rounds against radix 46's 2 (note 2)"))
    bruck = m.time("bruck", 2048, 32)
    tra = m.time("tra", 2048, 32, 46)
    tra2 = m.time("tra2", 2048, 32, 8, 32)
    for name, pub, ours in (("tra, radix 46 (= ceil sqrt P)", 3.98, bruck / tra),
                            ("tra2, r1 = 8 (sqrt Q), r2 = 32 (N)", 5.02, bruck / tra2)):
        ratio = ours / pub
        rows.append((TRA + ", Sec. V-C, Fig. 10(c)", "Theta", 2048, "32 B",
                     "%s against MPI_Alltoall" % name, "%.2fx" % pub,
                     "%.2fx (%s; baseline: mpich_selection's branch at 32 B, P >= 8: bruck, "
                     "%s)" % (ours, backend, ms(bruck)), "%.2f" % ratio,
                     "within 2x" if within_2x(ratio) else "missed",
                     "" if within_2x(ratio) else
                     "the baseline: Cray's MPI_Alltoall is not MPICH's Bruck, or Bruck's "
                     "rounds at small blocks are priced high (note 2)"))
    return rows


def tra2_rows(m):
    """TRA2's best (r1, r2) on the (r1, r2) plane at P = 2048."""
    rows = []
    best = {S: m.best("tra2", 2048, S, "tra2_2048") for S in (32, 256)}
    r1, r2, secs = best[256]
    ok = r2 == 32
    rows.append((TRA + ", Sec. V-B, Fig. 9(c)", "Theta", 2048, "256 B",
                 "tra2, best r2 (N = 32 nodes of Q = 64)", "r2 = 34 (\"r2 = N\")",
                 "r2 = %d (r1 = %d, %s; r2 sampled 2 .. N in powers of two)" % (r2, r1, ms(secs)),
                 "", "trend reproduced" if ok else "missed",
                 "r2 = N: one round of node-aggregated exchanges; 34 > N is not a radix liba2a's "
                 "tra2 takes (2 .. N)" if ok else "the inter-node rounds' cost (note 2)"))
    r1s = ", ".join("%d at %s" % (best[S][0], fmt_size(S)) for S in (32, 256))
    ok = all(4 <= best[S][0] <= 16 for S in best)
    rows.append((TRA + ", Sec. V-B", "Theta", 2048, "32 B, 256 B",
                 "tra2, best r1 (Q = 64)", "r1 = 8 (sqrt Q) \"for most runs\"",
                 "r1 = %s" % r1s, "",
                 "trend reproduced" if ok else "missed",
                 "within a factor 2 of sqrt Q" if ok else
                 "intra-node rounds: the model prices them by the node's shared memory link "
                 "(bandwidth-bound: r1 = Q moves fewest bytes) and smpi/ois + or per message; "
                 "real KNL cores' per-message costs weigh more (note 2)"))
    return rows


def trend_rows(m):
    """TRA's best radix against S at P = 2048, 4096, 8192 over the paper's range (2 .. P/2):
    approx sqrt(P) from 512 B (within one step of S: from 1 KiB at the latest), smaller than
    sqrt(P) but not 2 below (256 B may already be near sqrt(P): one step of S)."""
    rows = []
    for P in TREND_P:
        sizes = m.sizes("tra_trend", P)
        best = {S: m.best("tra", P, S, "tra_trend", P // 2)[0] for S in sizes}
        per_s = ", ".join("%s: %d" % (fmt_size(S), best[S]) for S in sizes)
        # the smallest S from which every larger S has its best radix near sqrt(P)
        start = None
        for S in reversed(sizes):
            if not near_sqrt(best[S], P):
                break
            start = S
        ok = start is not None and start <= 1024
        beyond = [S for S in sizes if m.best("tra", P, S, "tra_trend")[0] > P // 2]
        rows.append((TRA + ", Sec. V-A, Fig. 8", "Theta", P, ">= 512 B",
                     "tra, best radix in 2 .. P/2 (sqrt P = %.1f)" % math.sqrt(P),
                     "approx sqrt P for S >= 512 B",
                     "near sqrt P from %s; best by S: %s" % (fmt_size(start) if start else "no S",
                                                             per_s),
                     "", "trend reproduced" if ok else "missed",
                     trend_why(best, P, start, beyond)))
        small = [S for S in sizes if S < 512]
        lower = [S for S in small if 2 < best[S] < math.sqrt(P) / 2]
        two = [S for S in small if best[S] == 2]
        ok = not two and all(S in lower for S in small if S < 256)
        rows.append((TRA + ", Sec. V-A, Fig. 8", "Theta", P, "< 512 B",
                     "tra, best radix in 2 .. P/2", "smaller than sqrt P, not 2",
                     "smaller and not 2 at %s; 2 at %s" % (
                         ", ".join(fmt_size(S) for S in lower) or "no S",
                         ", ".join(fmt_size(S) for S in two) or "no S"),
                     "", "trend reproduced" if ok else "missed",
                     "" if ok else small_why(m, best, P, small)))
    return rows


def trend_why(best, P, start, beyond):
    """Why the sqrt(P) trend is missed (from the sizes where it fails), and where radix P,
    outside the paper's sampled range, is faster still."""
    far = [S for S in best if S >= 512 and not near_sqrt(best[S], P)]
    why = []
    if far:
        why.append("best radix leaves sqrt P at %s: the model's bandwidth term (shared node "
                   "links, bw-factor) favours a larger radix there (fewer bytes)"
                   % ", ".join(fmt_size(S) for S in far))
    elif start and start > 512:
        why.append("from %s: within one step of S of 512 B" % fmt_size(start))
    if beyond:
        why.append("radix P (outside the paper's 2 .. P/2) is faster still from %s: in the "
                   "model, bandwidth-bound, the exchange that moves fewest bytes wins; its P - 1 "
                   "messages a rank cost only smpi/ois + or each, with no NIC message-rate limit "
                   "or congestion of P - 1 flows (note 2)" % fmt_size(min(beyond)))
    return "; ".join(why)


def small_why(m, best, P, small):
    """Why the small-block trend is missed, with the evidence that the model is
    bandwidth-bound there (time nearly doubles with S at the best radix)."""
    near = [S for S in small if near_sqrt(best[S], P)]
    if near:
        r = best[small[0]]
        growth = m.time("tra", P, small[1], r) / m.time("tra", P, small[0], r)
        return ("best radix already near sqrt P at %s: the model is bandwidth-bound from "
                "16 B (radix %d: %s takes %.2fx the time of %s): the %d ranks of a node share "
                "its link, and radix 2's extra bytes cost more than its extra rounds; on Theta, "
                "per-round costs weigh more against bytes than in theta.xml (0.3 us os/or, "
                "1.3 us node to node)" % (", ".join(fmt_size(S) for S in near), r,
                                          fmt_size(small[1]), growth, fmt_size(small[0]),
                                          m.node_size(P)))
    return "best radix 2 at some S: the model's per-message overheads are too small (note 2)"


HEADER = ("source (section, figure)", "machine", "P", "S", "kernel, radix", "published",
          "ours (backend, platform)", "ours / published", "verdict", "why")


def table_text(data, tuna_data):
    """The markdown text of docs/results/papers.md from the two data files."""
    return table(Model(load(data)), paper_tuna.TunaData(paper_tuna.load(tuna_data)))


def table(m, tuna):
    """The markdown text of docs/results/papers.md."""
    rows = tra_rows(m) + tra2_rows(m) + trend_rows(m) + paper_tuna.rows(tuna)
    out = ["# Side by side with the papers: published numbers and ours", "",
           "Generated by `scripts/a2a paper-table` (`make paper-figures`) from `%s` and `%s`: "
           "the model tier's rows (`backend = model`, **modelled, not simulated or measured**) "
           "of `%s` on `%s` (the TRA paper's Theta) and of `%s` on %s (the TuNA paper's "
           "Polaris and Fugaku), copies free, nothing fitted to any published number. The "
           "model's error against SimGrid (`a2a model-check` on the checked-in dragonfly rows "
           "of the modelled kernels, recorded with each run): **%s** (TRA rows); **%s** (TuNA "
           "rows). `scripts/a2a paper-night` (`make paper-night`) re-runs the model for every "
           "row and rewrites both data files (about an hour on a shared 2-core machine, "
           "docs/results/model_tier.md); "
           "`scripts/a2a paper-table --remodel` the TRA rows only (under a minute); "
           "tests/parts/paperfigs.sh regenerates this file from the data and part of the data "
           "from the platform files."
           % (DATA, paper_tuna.DATA, SWEEP, PLATFORM, paper_tuna.SWEEP,
              " and ".join("`platforms/%s`" % p for _, p in paper_tuna.MACHINES), m.error,
              tuna.error(paper_tuna.MACHINES[0][1])), "",
           "Verdicts: *within 2x* (an absolute time or a speedup: 0.5 <= ours / published <= "
           "2); *trend reproduced* (within one step of S; a radix within a factor 2 of the "
           "paper's, one step of its power-of-two sampling); *missed*, with the part of the "
           "model that misses.", "",
           "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    counts = {}
    for row in rows:
        counts[row[8]] = counts.get(row[8], 0) + 1
    out += ["", "Rows: %s." % ", ".join("%d %s" % (counts[k], k) for k in sorted(counts)), "",
            "## Notes", "",
            "1. **The baseline.** The TRA paper divides by Cray MPICH's MPI_Alltoall; ours is "
            "liba2a's `mpich_selection` at the same (P, S): MPICH's Bruck for blocks <= 256 B at "
            "P >= 8, scattered (block_count 32) to 32 KiB, pairwise above "
            "(kernels/uniform/mpich_selection.c). At P = 2048, S = 32 B that is `bruck`, "
            "modelled as such.",
            "2. **What the model is** (docs/results/model_tier.md): the kernel's own schedule, "
            "each rank's clock carried through its rounds as SMPI runs ranks (a rank starts "
            "its next round once its own messages are in); per message smpi/ois + smpi/or "
            "(SMPI's charges for a non-blocking send and a detached receive); each node's "
            "link shared by its ranks' messages in inverse proportion to their route "
            "latency, as SimGrid shares links; the busiest link of the dragonfly's routes; "
            "theta.xml's figures are Aries' published link rates and latencies, not fitted. "
            "Its error against SimGrid on the current dragonfly.xml's rows, P = 128 ... 1024 "
            "(%s, the TRA rows' figure above), is largest where a round's messages all leave "
            "at once (radix P) and at S <= 256 B for small radices, which it overestimates "
            "(SimGrid's ranks overlap their rounds more); at P = 2048 "
            "(tests/data/model-p2048.sql, tra on dragonfly_16k.xml) it overestimates every "
            "cell and picks SimGrid's best radix: the cells and their errors are in "
            "docs/results/model_tier.md. It has no contention from other jobs, no OS noise and "
            "no Cray MPICH progress engine, which a measurement on Theta includes." % m.error,
            paper_tuna.cost_note(tuna),
            "4. **The paper's radix range.** The TRA paper sampled r from 2 to P/2 (Sec. V-A); "
            "the best radix of the trend rows is taken over the same range, and where radix P "
            "(outside it) is faster still, the row says so.",
            paper_tuna.baseline_note(tuna),
            ""]
    return "\n".join(out)


def run(args, db):
    """`a2a paper-table`: writes the table; exit 0, 2 on bad input."""
    del db
    if args.remodel:
        remodel(args.data, args.section)
        if args.section:
            return 0
    text = table_text(args.data, args.tuna_data)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)
    return 0
