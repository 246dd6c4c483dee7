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
import io
import math
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from . import paper_bands, paper_routing, paper_tuna, tuna_tables
from .paper_tuna import (INDETERMINATE, MISSED, NOT_TESTABLE, REPRODUCED, WITHIN,
                         by_size, errors_2048, facts_verdict, load_sql, ms, pct, radix_fact,
                         ratio_verdict)
from ..core.common import A2AError, fmt_size

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join("tests", "data", "papers-theta-model.sql")
SWEEP = os.path.join("sweeps", "paper", "papers_table.ini")
PLATFORM = os.path.join("platforms", "theta.xml")
CHECK = "tests/data/tuner-dragonfly-memlink.sql,tests/data/tuner-dragonfly-memlink-1024.sql"
# the one SimGrid comparison at the papers' P (tra at P = 2048 on dragonfly_16k.xml): its
# error is the one each verdict's margin is held against (recorded with the TRA rows)
CHECK_2048 = "tests/data/model-p2048.sql"
# and on each paper platform, where simulated (sweeps/paper/model_check_papers_p2048.ini): a
# row's margin is held against its own platform's error where it is measured
CHECK_2048_ON = {p: "tests/data/model-p2048-%s.sql" % p[:-4]
                 for p in ("theta.xml", "polaris.xml", "fugaku.xml")}
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
    p.add_argument("--bands", default=paper_bands.DATA, metavar="SQL",
                   help="each row's band over the platform variants (default: %(default)s; "
                        "a2a paper-bands writes it; none: no bands)")
    p.add_argument("--tuna-tables", default=None, metavar="FILE",
                   help="also write every TuNA model row as tables per platform and P "
                        "(docs/results/model-tuna.md)")
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
    out.execute("UPDATE runs SET smpi_options = smpi_options || ?",
                ("; " + error_2048() + error_2048(os.path.basename(PLATFORM)),))
    out.commit()
    out.execute("DETACH m")
    with open(path, "w") as f:
        for line in out.iterdump():
            f.write(line + "\n")


def error_2048(platform=None):
    """'error at P = 2048 vs simgrid (FILE): median .. %, worst .. % (N cells); of a ratio
    of two times at one (P, S): worst .. %': the model against SimGrid at the papers'
    smallest P (model-check on CHECK_2048, or with a platform's name on its CHECK_2048_ON
    file, '' when that was not simulated; then the text says 'on PLATFORM'), and the worst
    error of the ratio of two of its cells at the same (P, S) (a speedup, one radix against
    another)."""
    from ..simulation.model_run import check_cells, summarize
    path = CHECK_2048_ON[platform] if platform else CHECK_2048
    if not os.path.exists(os.path.join(ROOT, path)):
        return ""
    cells = check_cells(os.path.join(ROOT, path), os.path.join(ROOT, "platforms"))
    overall = summarize(cells, io.StringIO(), quiet=True)
    worst = 0.0
    for a in cells:
        for b in cells:
            if a[1:3] == b[1:3] and a is not b:
                worst = max(worst, abs((a[5] / b[5]) / (a[4] / b[4]) - 1))
    return ("%serror at P = 2048%s vs simgrid (%s): %s; of a ratio of two times at one "
            "(P, S): worst %.1f %%" % ("; " if platform else "", " on " + platform if platform
                                       else "", path, overall, 100 * worst))


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
        found = re.search(r"error vs simgrid \([^)]*\): (median [^;]*cells\))", opts)
        self.error = found.group(1) if found else "not measured"
        errors = errors_2048(opts)
        if None not in errors:
            raise A2AError("the model data records no error at P = 2048 (a2a paper-table "
                           "--remodel records it)")
        # at the papers' P on dragonfly_16k.xml, and on this platform where simulated: the
        # rows are held against the platform's own
        self.base = errors[None]
        self.own = errors.get(self.platform)
        self.err = self.own or self.base

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

    def times(self, kernel, P, S, section, max_radix=None):
        """{radix (tra) or (radix, radix2) (tra2): seconds} of a section's rows at (P, S),
        radix at most max_radix when given."""
        rows = self.conn.execute(
            "SELECT radix, radix2, median_s FROM results WHERE kernel = ? AND P = ? AND S = ? "
            "AND section = ? AND status = 'ok' AND IFNULL(radix, 0) <= ?",
            (kernel, P, S, section, max_radix or P)).fetchall()
        return {(r if r2 is None else (r, r2)): t for r, r2, t in rows}

    def node_size(self, P):
        return self.conn.execute("SELECT max(Q) FROM results WHERE P = ?", (P,)).fetchone()[0]

    def sizes(self, section, P):
        return [s for (s,) in self.conn.execute(
            "SELECT DISTINCT S FROM results WHERE section = ? AND P = ? ORDER BY S", (section, P))]


def near_sqrt(r, P):
    """A radix within a factor 2 of sqrt(P): one step of the paper's power-of-two sampling."""
    return math.sqrt(P) / 2 <= r <= 2 * math.sqrt(P)


# why the two TRA times at P = 2048 are not firm whatever their ratio (note 6)
MINIMAL = ("theta.xml routes minimally, one rank-1 link between two routers, where Aries "
           "routes adaptively (note 6)")


def tra_rows(m, err_time, err_rel):
    """The TRA paper's absolute times and speedups at P = 2048 (rows of the table)."""
    rows, backend = [], "model, %s" % m.platform
    r2, r46 = m.time("tra", 2048, 128, 2), m.time("tra", 2048, 128, 46)
    for radix, pub, ours in ((2, 16.17e-3, r2), (46, 7.699e-3, r46)):
        ratio = ours / pub
        verdict, margin = ratio_verdict(ratio, err_time)
        rows.append((TRA + ", Sec. V-A, Fig. 8(b)", "Theta", 2048, "128 B", "tra, radix %d" % radix,
                     ms(pub), "%s (%s)" % (ms(ours), backend), "%.2f" % ratio, pct(margin),
                     verdict, ("absolute time: the platform's link and per-message figures "
                               "(note 2); " if verdict == MISSED else "") + MINIMAL))
    pub, ours = 16.17 / 7.699, r2 / r46
    verdict, margin = ratio_verdict(ours / pub, err_rel)
    rows.append((TRA + ", Sec. V-A, Fig. 8(b)", "Theta", 2048, "128 B",
                 "tra radix 2 / radix 46", "%.2fx" % pub, "%.2fx (%s)" % (ours, backend),
                 "%.2f" % (ours / pub), pct(margin), verdict,
                 "" if verdict == WITHIN else
                 "the cost of radix 2's 11 rounds against radix 46's 2 (note 2)"))
    bruck = m.time("bruck", 2048, 32)
    radix2 = m.time("tra", 2048, 32, 2)
    same = abs(bruck / radix2 - 1) < 1e-9
    tra = m.time("tra", 2048, 32, 46)
    tra2 = m.time("tra2", 2048, 32, 8, 32)
    for name, pub, ours in (("tra, radix 46 (= ceil sqrt P)", 3.98, bruck / tra),
                            ("tra2, r1 = 8 (sqrt Q), r2 = 32 (N)", 5.02, bruck / tra2)):
        ratio = ours / pub
        verdict, margin = ratio_verdict(ratio, err_rel)
        rows.append((TRA + ", Sec. V-C, Fig. 10(c)", "Theta", 2048, "32 B",
                     "%s against MPI_Alltoall" % name, "%.2fx" % pub,
                     "%.2fx (%s; baseline: MPICH's selection at 32 B, P >= 8: bruck, %s)"
                     % (ours, backend, ms(bruck)), "%.2f" % ratio, pct(margin), verdict,
                     ("the baseline is one of the compared kernels: MPICH's Bruck is tra at "
                      "radix 2 (the same schedule, %s both), so this row compares %s with tra "
                      "radix 2, not with Cray's MPI_Alltoall (note 1)"
                      % (ms(bruck), name.split(" (")[0]) if same else
                      "baseline: MPICH's selection (note 1)") +
                     ("" if verdict != MISSED else
                      "; Cray's MPI_Alltoall is not MPICH's Bruck, or Bruck's rounds at small "
                      "blocks are priced high (note 2)")))
    return rows


def tra2_rows(m, err_rel):
    """TRA2's best (r1, r2) on the (r1, r2) plane at P = 2048."""
    rows = []
    times = {S: m.times("tra2", 2048, S, "tra2_2048") for S in (32, 256)}
    best = {S: min(times[S], key=lambda k: (times[S][k], k)) for S in times}
    fact = radix_fact(times[256], lambda k: k[1] == 32)
    verdict, margin = facts_verdict([fact], err_rel)
    r1, r2 = best[256]
    rows.append((TRA + ", Sec. V-B, Fig. 9(c)", "Theta", 2048, "256 B",
                 "tra2, best r2 (N = 32 nodes of Q = 64)", "r2 = 34 (\"r2 = N\")",
                 "r2 = %d (r1 = %d, %s; r2 sampled 2 .. N in powers of two)"
                 % (r2, r1, ms(times[256][best[256]])), "", pct(margin), verdict,
                 "r2 = N: one round of node-aggregated exchanges; 34 > N is not a radix liba2a's "
                 "tra2 takes (2 .. N)" if verdict == REPRODUCED else
                 "the best r2 = N and the best other r2 are within the model's error"
                 if verdict == INDETERMINATE else "the inter-node rounds' cost (note 2)"))
    facts = {S: radix_fact(times[S], lambda k: 4 <= k[0] <= 16) for S in times}
    verdict, margin = facts_verdict(list(facts.values()), err_rel)
    rows.append((TRA + ", Sec. V-B", "Theta", 2048, "32 B, 256 B",
                 "tra2, best r1 (Q = 64)", "r1 = 8 (sqrt Q) \"for most runs\"",
                 "r1 = %s" % ", ".join("%d at %s (margin %s)" % (best[S][0], fmt_size(S),
                                                                  pct(facts[S][1]))
                                       for S in times), "", pct(margin), verdict,
                 "within a factor 2 of sqrt Q" if verdict == REPRODUCED else
                 "r1 within a factor 2 of sqrt Q and the best other r1 are within the model's "
                 "error" if verdict == INDETERMINATE else
                 "intra-node rounds: the model prices them by the node's shared memory link "
                 "(bandwidth-bound: r1 = Q moves fewest bytes) and smpi/ois + or per message; "
                 "real KNL cores' per-message costs weigh more (note 2)"))
    return rows


def trend_rows(m, err_rel, ps=TREND_P):
    """TRA's best radix against S at P = 2048, 4096, 8192 over the paper's range (2 .. P/2),
    three claims per P (Sec. V-A's text says the second and third of them in one paragraph;
    Sec. VII gives the first's bound as 128 B): approx sqrt(P) from 512 B (a fact at each
    S from 1 KiB: one step of S); "many times smaller than sqrt P" below (a fact at each S
    under 256 B); radix 2 not the best, "typically close to sqrt P" below 512 B."""
    rows = []
    for P in ps:
        sizes = m.sizes("tra_trend", P)
        times = {S: m.times("tra", P, S, "tra_trend", P // 2) for S in sizes}
        best = {S: min(times[S], key=lambda r: (times[S][r], r)) for S in sizes}
        beyond = [S for S in sizes if m.best("tra", P, S, "tra_trend")[0] > P // 2]
        facts = {S: radix_fact(times[S], lambda r: near_sqrt(r, P)) for S in sizes if S >= 1024}
        verdict, margin = facts_verdict(list(facts.values()), err_rel)
        rows.append((TRA + ", Sec. V-A, Fig. 8", "Theta", P, ">= 512 B",
                     "tra, best radix in 2 .. P/2 (sqrt P = %.1f)" % math.sqrt(P),
                     "approx sqrt P \"for large-sized data-blocks (S >= 512)\" (Sec. V-A; Sec. "
                     "VII: \">= 128 bytes\")",
                     "best by S (margin): %s" % by_size(best, facts, sizes), "", pct(margin),
                     verdict, trend_why(P, facts, verdict, beyond, err_rel)))
        small = [S for S in sizes if S < 256]
        facts = {S: radix_fact(times[S], lambda r: r < math.sqrt(P) / 2) for S in small}
        verdict, margin = facts_verdict(list(facts.values()), err_rel)
        rows.append((TRA + ", Sec. V-A, Fig. 8", "Theta", P, "< 512 B",
                     "tra, best radix in 2 .. P/2", "\"many times smaller than sqrt P\"",
                     "best by S (margin): %s" % by_size(best, facts,
                                                        [S for S in sizes if S < 512]),
                     "", pct(margin), verdict,
                     "" if verdict == REPRODUCED else small_why(m, best, P, facts, verdict)))
        small = [S for S in sizes if S < 512]
        facts = {S: radix_fact(times[S], lambda r: r != 2) for S in small}
        verdict, margin = facts_verdict(list(facts.values()), err_rel)
        close = [S for S in small if near_sqrt(best[S], P)]
        rows.append((TRA + ", Sec. V-A, Fig. 8", "Theta", P, "< 512 B",
                     "tra, best radix in 2 .. P/2",
                     "radix 2 \"does not yield peak performance\"; the best \"typically close "
                     "to sqrt P\"",
                     "best by S (margin of radix 2): %s; near sqrt P at %d of %d sizes"
                     % (by_size(best, facts, small), len(close), len(small)), "",
                     pct(margin), verdict,
                     "" if verdict == REPRODUCED else
                     "radix 2 and the best other radix are within the model's error"
                     if verdict == INDETERMINATE else
                     "radix 2 fastest: the model's per-message overheads are too small "
                     "(note 2)"))
    return rows


def trend_why(P, facts, verdict, beyond, err):
    """Why the sqrt(P) trend is missed or indeterminate (from its facts), and where radix P,
    outside the paper's sampled range, is faster still."""
    why = []
    if verdict == MISSED:
        why.append("best radix leaves sqrt P at %s: the model's bandwidth term (shared node "
                   "links, bw-factor) favours a larger radix there (fewer bytes)"
                   % ", ".join(fmt_size(S) for S in facts if not facts[S][0]))
    elif verdict == INDETERMINATE:
        why.append("the best radix near sqrt P and the best other are within the model's "
                   "error at %s" % ", ".join(fmt_size(S) for S in facts if facts[S][1] < err))
    if beyond:
        why.append("radix P (outside the paper's 2 .. P/2) is faster still from %s: in the "
                   "model, bandwidth-bound, the exchange that moves fewest bytes wins; its P - 1 "
                   "messages a rank cost only smpi/ois + or each, with no NIC message-rate limit "
                   "or congestion of P - 1 flows (note 2)" % fmt_size(min(beyond)))
    return "; ".join(why)


def small_why(m, best, P, facts, verdict):
    """Why 'many times smaller than sqrt P' is missed or indeterminate, with the evidence
    that the model is bandwidth-bound there (time nearly doubles with S at the best radix)."""
    sizes = sorted(facts)
    near = [S for S in sizes if near_sqrt(best[S], P)]
    if verdict == INDETERMINATE or not near:
        return "the best radix below sqrt P / 2 and the best other are within the model's error"
    r = best[sizes[0]]
    growth = m.time("tra", P, sizes[1], r) / m.time("tra", P, sizes[0], r)
    return ("best radix already near sqrt P at %s: the model is bandwidth-bound from 16 B "
            "(radix %d: %s takes %.2fx the time of %s): the %d ranks of a node share its link, "
            "and radix 2's extra bytes cost more than its extra rounds; on Theta, per-round "
            "costs weigh more against bytes than in theta.xml (0.2 + 0.3 us ois + or, 0.7 us "
            "node to node under one router, assumed)"
            % (", ".join(fmt_size(S) for S in near), r, fmt_size(sizes[1]), growth,
               fmt_size(sizes[0]), m.node_size(P)))


HEADER = ("source (section, figure)", "machine", "P", "S", "claim (kernel, radix)", "published",
          "ours (backend, platform)", "ours / published",
          "band: lowest .. highest over the variants (which)", "margin", "verdict", "why")
VERDICTS = (WITHIN, REPRODUCED, MISSED, INDETERMINATE, NOT_TESTABLE)


def table_text(data, tuna_data, bands=paper_bands.DATA):
    """The markdown text of docs/results/papers.md from the data files."""
    return table(Model(load(data)), paper_tuna.TunaData(paper_tuna.load(tuna_data)),
                 paper_bands.Bands(bands, data, tuna_data))


def all_rows(m, tuna, relative, plain=False):
    """Every row of the table: times held against the worst error of a modelled time on the
    row's platform (where measured there, else on dragonfly_16k.xml), speedups and radix facts
    against the same, or with relative against the worst error of a ratio of two times; with
    plain against none (the verdicts the bands compare)."""
    def errs(e):
        if plain:
            return 0, 0
        return e.time, (e.ratio if relative else e.time)
    err_time, err_rel = errs(m.err)
    return (tra_rows(m, err_time, err_rel) + tra2_rows(m, err_rel) + trend_rows(m, err_rel) +
            paper_tuna.rows(tuna, lambda platform: errs(tuna.error_2048(platform) or m.base)))


# why a row has no band (paper-bands did not price its configurations on the variants)
NO_BAND = "not computed: P = %d not priced on the variants (cost, note 7)"


def with_bands(rows, plain, bands):
    """The rows with the band column (after ours / published) and the band's rule: a
    verdict that flips inside the band is indeterminate, and its why says at which
    variants."""
    out = []
    for row, base in zip(rows, plain):
        text, flips = bands.band(row, base)
        verdict, why = row[9], row[10]
        if text is None:
            text = "" if verdict == NOT_TESTABLE else NO_BAND % row[2]
        elif flips and verdict != NOT_TESTABLE:
            to = {}
            for variant, v in flips:
                to.setdefault(v, []).append(variant)
            said = "; ".join("%s at: %s" % (v, "; ".join(vs)) for v, vs in sorted(to.items()))
            verdict = INDETERMINATE
            why = "flips inside the band (%s)" % said + ("; " + why if why else "")
        out.append(tuple(row[:8]) + (text,) + tuple(row[8:9]) + (verdict, why))
    return out


def counts(rows):
    """'6 within 2x, ...' of the rows' verdicts, in VERDICTS' order."""
    got = {}
    for row in rows:
        got[row[10]] = got.get(row[10], 0) + 1
    return ", ".join("%d %s" % (got[k], k) for k in VERDICTS if k in got)


def table(m, tuna, bands):
    """The markdown text of docs/results/papers.md."""
    plain = all_rows(m, tuna, False, plain=True)
    rows = with_bands(all_rows(m, tuna, False), plain, bands)
    alternative = with_bands(all_rows(m, tuna, True), plain, bands)
    measured = [("theta.xml", m.own)] + [(p, tuna.error_2048(p)) for _, p in paper_tuna.MACHINES]
    on_platforms = "; ".join("on %s: **%s**, of a ratio **worst %s**" % (p, e.text, e.ratio_text)
                             for p, e in measured if e)
    unmeasured = [p for p, e in measured if not e]
    out = ["# Side by side with the papers: published numbers and ours", "",
           "Generated by `scripts/a2a paper-table` (`make paper-figures`) from `%s` and `%s`: "
           "the model tier's rows (`backend = model`, **modelled, not simulated or measured**) "
           "of `%s` on `%s` (the TRA paper's Theta) and of `%s` on %s (the TuNA paper's "
           "Polaris and Fugaku), copies free, nothing fitted to any published number; the "
           "platforms' figures and their sources (or what is assumed) are in "
           "[platforms.md](platforms.md). The model's error against SimGrid (`a2a "
           "model-check`, recorded with each run): on the checked-in dragonfly rows of the "
           "modelled kernels, P = 128 ... 1024: **%s** (TRA rows), **%s** (TuNA rows); at "
           "P = 2048, tra at radix 2 and sqrt P, 16 B and 1 KiB (and radix 8, 128 on "
           "dragonfly_16k.xml, `%s`): on dragonfly_16k.xml **%s**, of the ratio of two "
           "modelled times at one (P, S) **worst %s**%s%s. "
           "`scripts/a2a paper-night` (`make paper-night`) re-runs the model for every "
           "row and rewrites both data files (about an hour on a shared 2-core machine, "
           "docs/results/model_tier.md); `scripts/a2a paper-table --remodel` the TRA rows "
           "only (a few minutes); tests/parts/paperfigs.sh regenerates this file from the "
           "data and part of the data from the platform files."
           % (DATA, paper_tuna.DATA, SWEEP, PLATFORM, paper_tuna.SWEEP,
              " and ".join("`platforms/%s`" % p for _, p in paper_tuna.MACHINES), m.error,
              tuna.error(paper_tuna.MACHINES[0][1]), CHECK_2048, m.base.text,
              m.base.ratio_text, "; " + on_platforms if on_platforms else "",
              "; not compared on %s" % " or ".join(unmeasured) if unmeasured else ""),
           "",
           "Verdicts, one rule for each kind of claim: a time or a speedup is *within 2x* "
           "(0.5 <= ours / published <= 2) or *missed*; a trend (the best radix against S) is "
           "*trend reproduced* when each of its facts holds (at each S, within one step of S "
           "of the paper's bound, the fastest sampled radix lies in the paper's range, within "
           "a factor 2 of the paper's radix: one step of its power-of-two sampling) and "
           "*missed* when one fails. A verdict is *indeterminate* when the model's error could "
           "flip it: the **margin** (how far ours would have to move to cross the nearer 2x "
           "line; for a fact, how far apart the fastest radix inside the paper's range and "
           "the fastest outside it are) is below the model's worst error of a time at "
           "P = 2048 on the row's platform (on dragonfly_16k.xml, %s, where the platform was "
           "not compared; one measurement at P = 2048 stands for the rows at larger P too), "
           "for speedups and radix facts too. A claim about a P "
           "or sizes the model was not run at is *not testable*. Where the paper says two "
           "things, both are quoted (and tested as separate rows where they differ). The same "
           "rule holds in every row for what the platform assumes: a verdict is also "
           "*indeterminate* when it flips inside the **band** of ours, the row priced again "
           "with each assumed figure of its platform ([platforms.md](platforms.md)) at x1/2 "
           "and at x2, one at a time, and at four corners (every assumed rate and cost at "
           "once: all x1/2; all x2; costs x2 with rates x1/2; costs x1/2 with rates x2). The "
           "band column gives the lowest and the highest ours / published over these "
           "variants (for a trend, how far its facts hold or fail: the margin at err = 0) and "
           "the variant that gives each; the why column names the variants where the verdict "
           "flips (note 7). A row whose band was not computed says so, and holds against the "
           "measured error only."
           % pct(m.base.time), "",
           "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    flipped = sum(1 for r in rows if r[11].startswith("flips inside the band"))
    unpriced = {(r[1], r[2]) for r in rows if r[8].startswith("not computed")}
    out += ["", "Rows: %s (of these, %d flip inside their band). With the error of a ratio "
            "of two modelled times on each row's platform for the speedup and radix rows "
            "instead: %s." % (counts(rows), flipped, counts(alternative)), "",
            "## Notes", "",
            "1. **The baselines: the machine's own MPI family.** The TRA paper divides by Cray "
            "MPICH's MPI_Alltoall; ours is liba2a's `mpich_selection` at the same (P, S): "
            "MPICH's Bruck for blocks <= 256 B at P >= 8, scattered (block_count 32) to 32 KiB, "
            "pairwise above (kernels/uniform/mpich_selection.c). At P = 2048, S = 32 B that is "
            "`bruck`, which is tra at radix 2: the Fig. 10(c) rows compare two tra radices. "
            "The TuNA paper divides by MPI_Alltoallv of Cray MPICH on Polaris (ours: MPICH's "
            "selection, `mpich_selection`) and of Fujitsu's Open MPI-based MPI on Fugaku "
            "(ours: Open MPI 4.1's selection, `ompi_tuned_selection`: its linear exchange at "
            "P >= 1024; MPICH's is shown beside it). Neither vendor's own tuning is public.",
            "2. **What the model is** (docs/results/model_tier.md): the kernel's own schedule, "
            "each rank's clock carried through its rounds as SMPI runs ranks (a rank starts "
            "its next round once its own messages are in); per message smpi/ois + smpi/or "
            "(SMPI's charges for a non-blocking send and a detached receive); each node's "
            "links shared by its ranks' messages in inverse proportion to their route "
            "latency, as SimGrid shares links; the busiest link of the routes. Its error "
            "against SimGrid on the current dragonfly.xml's rows, P = 128 ... 1024 (%s, the "
            "TRA rows' figure above), is largest where a round's messages all leave at once "
            "(radix P) and at S <= 256 B for small radices, which it overestimates (SimGrid's "
            "ranks overlap their rounds more); at P = 2048 (%s, tra on dragonfly_16k.xml) it "
            "overestimates every cell (%s) and picks SimGrid's best radix: the cells and "
            "their errors are in docs/results/model_tier.md. It has no contention from other "
            "jobs, no OS noise and no Cray MPICH progress engine, which a measurement on Theta "
            "includes." % (m.error, CHECK_2048, m.base.text),
            paper_tuna.cost_note(tuna),
            "4. **The paper's radix range.** The TRA paper sampled r from 2 to P/2 (Sec. V-A); "
            "the best radix of the trend rows is taken over the same range, and where radix P "
            "(outside it) is faster still, the row says so.",
            paper_tuna.baseline_note(tuna),
            # Fig. 8(b)'s two times at 128 B, Fig. 10(c)'s speedup at 32 B (tra_rows)
            paper_routing.routing_note(paper_routing.load(paper_routing.DATA),
                                       {128: (16.17e-3, 7.699e-3), 32: (3.98, None)}),
            paper_bands.note(bands, unpriced), ""]
    return "\n".join(out)


def run(args, db):
    """`a2a paper-table`: writes the table; exit 0, 2 on bad input."""
    del db
    if args.remodel:
        remodel(args.data, args.section)
        if args.section:
            return 0
    text = table_text(args.data, args.tuna_data, args.bands)
    if args.tuna_tables:
        tables = tuna_tables.page(paper_tuna.TunaData(paper_tuna.load(args.tuna_data)))
        with open(args.tuna_tables, "w") as f:
            f.write(tables)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)
    return 0
