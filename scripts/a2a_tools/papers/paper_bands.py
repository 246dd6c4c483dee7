"""`a2a paper-bands`: the band of ours in docs/results/papers.md: every row's figure priced
again with each assumed figure of its platform (platforms.md, platform_table.py) at x1/2 and
x2, one at a time, and at the corners (every rate and cost at once: all x1/2, all x2, costs
x2 with rates x1/2, costs x1/2 with rates x2).

Each variant is a platform file `a2a platform MACHINE --scale FIGURE=FACTOR` writes
(platform_table.scaled) into a temporary directory; the model tier (`a2a model-run`) prices
the rows' own configurations (sweeps/paper/papers_bands.ini) on it, TuNA's traces read back
from A2A_TRACE_CACHE (a schedule does not depend on the platform). Variants whose file is the
base file, or another variant's, are priced once. The rows go to tests/data/papers-bands.sql
with, per figure and scale, the variant that priced it or why none did, and what each
variant cost (CPU seconds and peak memory of its model-run); paper-table reads them back and
holds a verdict indeterminate when it flips inside the band."""
import hashlib
import os
import sqlite3
import sys
import tempfile
import time

from . import paper_rows, paper_tuna
from .progress import launch, say
from ..core.common import A2AError, fmt_clock
from ..simulation.model_run import TRACE_CACHE
from ..simulation.platform import platform_text
from ..simulation.platform_table import KIND_KEYS, MACHINES, PARAMETER_NAMES, scaled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join("tests", "data", "papers-bands.sql")
SWEEP = os.path.join("sweeps", "paper", "papers_bands.ini")
SCALES = ((0.5, "x1/2"), (2.0, "x2"))
# per paper platform: its machine in the table, the sections of SWEEP its rows read (the
# TuNA rows' baselines: MPICH's selection on Polaris, Open MPI's on Fugaku), model-run's
# options (the TuNA paper's 32 ranks per node) and the P priced unless --P says otherwise
PLATFORMS = {
    "theta.xml": ("theta", "tra_trend,tra_2048,tra2_2048,mpich_bruck_2048", (),
                  "2048,4096,8192"),
    "polaris.xml": ("polaris", "tuna_fig7,tuna_fig8,mpich_fig8",
                    ("--ranks-per-node", str(paper_tuna.RANKS_PER_NODE)), "2048,8192"),
    "fugaku.xml": ("fugaku", "tuna_fig7,tuna_fig8,ompi_fig8",
                   ("--ranks-per-node", str(paper_tuna.RANKS_PER_NODE)), "2048,8192"),
}
# assumed figures that get no variant though they are numbers, and why (Polaris' P = 8192
# at 32 a node is 256 nodes, four of its groups of 64: its groups and global links are
# varied)
NOT_VARIED = {
    ("theta", "groups"): "no row leaves the first group (P = 8192 at 64 a node is 128 of its "
                         "384 nodes)",
    ("theta", "global_links"): "no row leaves the first group (P = 8192 at 64 a node is 128 "
                               "of its 384 nodes)",
}
# the corners' two classes: a cost is slower when larger, a rate faster
COSTS = ("link_lat", "nic_lat", "mem_lat", "os", "or", "ois", "lat_factor")
RATES = ("link_bw", "nic_bw", "injection", "mem_bw", "bw_factor")
CORNERS = (("all x1/2", 0.5, 0.5, 0.5), ("all x2", 2.0, 2.0, 2.0),
           ("costs x2, rates x1/2", 2.0, 0.5, 1.0), ("costs x1/2, rates x2", 0.5, 2.0, 1.0))


def add_parser(sub, common):
    """Registers `a2a paper-bands`."""
    p = sub.add_parser(
        "paper-bands",
        help="price papers.md's rows with each assumed platform figure at x1/2 and x2",
        description="Writes %s: for %s, each assumed figure of the platform table at x1/2 "
                    "and x2 (one at a time) and the corners (%s), a platform file in a "
                    "temporary directory and the model tier's rows of %s on it (the papers' "
                    "rows' own configurations; TuNA's traces from %s), with what each "
                    "variant cost; then docs/results/papers.md shows each row's band."
                    % (DATA, ", ".join(PLATFORMS), "; ".join(c[0] for c in CORNERS), SWEEP,
                       TRACE_CACHE),
        epilog="example:  a2a paper-bands --platform theta.xml   (make paper-bands: all)",
        formatter_class=common["formatter"])
    p.add_argument("--platform", default=None, metavar="FILE,...",
                   help="only these platforms (%s); their rows replace theirs in the data, "
                        "the others' stay" % ", ".join(PLATFORMS))
    p.add_argument("--P", dest="only_P", default=None, metavar="P,...",
                   help="only these process counts (default: %s; rows at others get no "
                        "band: the page says so)" % "; ".join(
                            "%s %s" % (k, v[3]) for k, v in PLATFORMS.items()))
    p.add_argument("--add", action="store_true",
                   help="with --P: price these P and keep the platform's rows at the others "
                        "(its variants already in the data, as the table writes them now)")
    p.add_argument("--dry-run", action="store_true",
                   help="list each platform's variants (figure, scale, file); price none")
    p.set_defaults(func=run, needs_db=False)
    p.add_argument("--data", default=DATA, metavar="SQL", help="default: %(default)s")
    return p


def assumed_figures(machine):
    """The keys of the machine's figures the table calls assumed (in whole or in part)."""
    m = MACHINES[machine]
    return [k for k in KIND_KEYS[m["kind"]] if m[k].assumed]


def corner(machine, cost, rate, other):
    """The machine's table with every assumed cost figure times cost, rate figure times
    rate, and other rate-or-cost figure (the eager limit) times other."""
    m = MACHINES[machine]
    for key in assumed_figures(machine):
        factor = cost if key in COSTS else rate if key in RATES else (
            other if PARAMETER_NAMES[key][1] == "B" else None)
        if factor not in (None, 1.0):
            m = scaled(m, key, factor) or m
    return m


def network_text(name, m=None):
    """The platform file of a machine's table without its comment and its a2a/ <prop>s
    (which say the topology for readers, not for SimGrid or the model): two tables that
    differ there only are the same network."""
    text = platform_text(name, m)
    text = text[:text.index("<!--")] + text[text.index("-->") + 3:]
    return "\n".join(l for l in text.split("\n") if '<prop id="a2a/' not in l)


def why_not(value, factor):
    """Why a figure of this value has no variant at this factor (scaled gave None)."""
    if not isinstance(value, (int, float)):
        return "not a number that scales"
    if value == 0:
        return "0: no scale moves it"
    if factor > 1:
        return "at its cap (a payload cannot exceed the link rate)"
    return "a count of %s: not below 1" % value


def variants(machine):
    """(figures, files): figures [(figure, scale label, variant name or None, why none)] for
    each assumed figure and scale; files {variant name: platform text}, each distinct file
    once (a figure whose file is another variant's points to that variant)."""
    name = machine
    base = network_text(name)
    files, by_text, figures = {}, {base: None}, []
    for key in assumed_figures(machine):
        for factor, label in SCALES:
            if (machine, key) in NOT_VARIED:
                figures.append((key, label, None, NOT_VARIED[(machine, key)]))
                continue
            m = scaled(MACHINES[machine], key, factor)
            if m is None:
                figures.append((key, label, None, why_not(MACHINES[machine][key].value,
                                                          factor)))
                continue
            text = network_text(name, m)
            if text == base:
                figures.append((key, label, None, "the network is the same: the figure is "
                                "derived from others or unused in this file"))
                continue
            variant = "%s %s" % (key, label)
            if text not in by_text:
                by_text[text] = variant
                files[variant] = text
            figures.append((key, label, by_text[text], ""))
    for label, cost, rate, other in CORNERS:
        text = network_text(name, corner(machine, cost, rate, other))
        if text not in by_text:
            by_text[text] = label
            files[label] = text
        figures.append(("corner", label, by_text[text], ""))
    return figures, files


SCHEMA = ("CREATE TABLE figures(platform TEXT, figure TEXT, scale TEXT, variant TEXT, "
          "why TEXT);\n"
          "CREATE TABLE variants(platform TEXT, variant TEXT, platform_sha256 TEXT, "
          "configurations INT, cpu_s REAL, peak_mb REAL);\n"
          "CREATE TABLE results(platform TEXT, variant TEXT, section TEXT, kernel TEXT, "
          "P INT, Q INT, S INT, radix INT, radix2 INT, ppn INT, median_s REAL, status TEXT);")


def load(path):
    """The band data at path in an in-memory database (an empty one if there is no file or
    path is 'none')."""
    if path == "none" or not os.path.exists(os.path.join(ROOT, path)):
        conn = sqlite3.connect(":memory:")
        conn.executescript(SCHEMA)
        return conn
    return paper_tuna.load_sql(os.path.join(ROOT, path),
                               ("SELECT platform, figure, scale, variant, why FROM figures",
                                "SELECT platform, variant, cpu_s, peak_mb FROM variants",
                                "SELECT platform, variant, section, kernel, P, Q, S, radix, "
                                "radix2, ppn, median_s, status FROM results"),
                               "a2a paper-bands writes it", "the band data paper-table reads")


def header(conn):
    """The comment the data file opens with: how it was made and what it cost."""
    lines = ["-- papers-bands.sql: the model tier's rows of %s on every variant of the paper "
             "platforms" % SWEEP,
             "-- (each assumed figure of scripts/a2a_tools/simulation/platform_table.py at "
             "x1/2 and x2, one at a time,",
             "-- and the corners), made by `scripts/a2a paper-bands` (make paper-bands); "
             "docs/results/papers.md reads it.",
             "-- Cost (model-run's CPU time and peak resident memory, on a shared 2-core "
             "machine, traces from A2A_TRACE_CACHE):"]
    for platform, n, configs, cpu, peak in conn.execute(
            "SELECT platform, count(*), sum(configurations), sum(cpu_s), max(peak_mb) FROM "
            "variants GROUP BY platform ORDER BY platform"):
        lines.append("--   %s: %d variants, %d configurations, %.1f min CPU, peak %.0f MB"
                     % (platform, n, configs, cpu / 60, peak))
    return "\n".join(lines) + "\n"


def _sql(value):
    """A value as an SQL literal (floats exact: repr round-trips)."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'%s'" % value.replace("'", "''")
    return repr(value)


def write(conn, path):
    """Writes the band data with its header comment: the schema, then each table's rows of
    one platform and variant as one INSERT (rows in a fixed order)."""
    lines = [header(conn).rstrip("\n"), "BEGIN TRANSACTION;"] + SCHEMA.split("\n")
    for table, order in (("figures", "rowid"), ("variants", "rowid"),
                         ("results", "section, kernel, P, S, radix, radix2")):
        groups = conn.execute("SELECT DISTINCT platform, variant FROM %s ORDER BY platform, "
                              "rowid" % table).fetchall()
        if table == "figures":
            groups = sorted({(p,) for p, _ in groups})
        for group in groups:
            where = " AND ".join(("platform = ?", "variant IS ?")[:len(group)])
            rows = conn.execute("SELECT * FROM %s WHERE %s ORDER BY %s" % (table, where, order),
                                group).fetchall()
            lines.append("INSERT INTO %s VALUES %s;" % (table, ",".join(
                "(%s)" % ",".join(_sql(v) for v in row) for row in rows)))
    lines.append("COMMIT;")
    with open(os.path.join(ROOT, path), "w") as f:
        f.write("\n".join(lines) + "\n")


def price(platform, variant, text, tmp, only_P, t0):
    """Runs model-run on one variant's file; (rows, configurations, CPU s, peak MB)."""
    machine, sections, options, default_P = PLATFORMS[platform]
    where = os.path.join(tmp, hashlib.sha256(variant.encode()).hexdigest()[:12])
    os.makedirs(where, exist_ok=True)
    path = os.path.join(where, platform)
    with open(path, "w") as f:
        f.write(text)
    db = os.path.join(where, "model.db")
    cmd = [sys.executable, os.path.join("scripts", "a2a"), "model-run", SWEEP, "--platform",
           path, "--db", db, "--section", sections, "--P", only_P or default_P] + list(
               options)
    _, peak, cpu = launch(cmd, t0, "%s %s" % (machine, variant), usage=True,
                          prog="paper-bands")
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT section, kernel, P, Q, S, radix, radix2, ppn, median_s, "
                        "status FROM results").fetchall()
    conn.close()
    return rows, len(rows), cpu, peak


def start_adding(conn, platform, shas, only_P):
    """--add: the platform's rows at the P of only_P are priced again, the others kept; the
    data's variants must be those the table writes now (shas: {variant: sha256})."""
    if not only_P:
        raise A2AError("--add goes with --P")
    stored = dict(conn.execute("SELECT variant, platform_sha256 FROM variants WHERE "
                               "platform = ?", (platform,)).fetchall())
    if stored != shas:
        raise A2AError("--add: %s's variants in the data are not those the table writes now: "
                       "price them without --add" % platform)
    Ps = [int(P) for P in only_P.split(",") if P.strip()]
    conn.execute("DELETE FROM results WHERE platform = ? AND P IN (%s)"
                 % ", ".join("?" * len(Ps)), [platform] + Ps)


def run(args, db):
    """`a2a paper-bands`: exit 0, 2 on bad input or a failed launch."""
    del db
    t0 = time.time()
    chosen = [p.strip() for p in (args.platform or ",".join(PLATFORMS)).split(",") if p.strip()]
    for p in chosen:
        if p not in PLATFORMS:
            raise A2AError("--platform %s: not a paper platform (%s)" % (p, ", ".join(PLATFORMS)))
    conn = load(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault(TRACE_CACHE, os.path.join(tmp, "traces"))
        for platform in chosen:
            machine = PLATFORMS[platform][0]
            figures, files = variants(machine)
            if args.dry_run:
                for key, label, variant, why in figures:
                    print("%s %s %s: %s" % (platform, key, label, variant or why))
                print("%s: %d variant files" % (platform, len(files)))
                continue
            shas = {v: hashlib.sha256(t.encode()).hexdigest() for v, t in files.items()}
            if args.add:
                start_adding(conn, platform, shas, args.only_P)
            else:
                for table in ("figures", "variants", "results"):
                    conn.execute("DELETE FROM %s WHERE platform = ?" % table, (platform,))
                conn.executemany("INSERT INTO figures VALUES (?, ?, ?, ?, ?)",
                                 [(platform,) + f for f in figures])
                conn.executemany("INSERT INTO variants VALUES (?, ?, ?, 0, 0.0, 0.0)",
                                 [(platform, v, shas[v]) for v in files])
            for i, (variant, text) in enumerate(files.items()):
                say(t0, "%s: variant %d/%d, %s" % (platform, i + 1, len(files), variant),
                    "paper-bands")
                rows, n, cpu, peak = price(platform, variant, text, tmp, args.only_P, t0)
                conn.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                 "?)", [(platform, variant) + r for r in rows])
                # the cost of making the data: every launch that priced its rows
                conn.execute("UPDATE variants SET configurations = (SELECT count(*) FROM "
                             "results WHERE platform = ?1 AND variant = ?2), cpu_s = cpu_s + "
                             "?3, peak_mb = max(peak_mb, ?4) WHERE platform = ?1 AND "
                             "variant = ?2", (platform, variant, cpu, peak))
                # what is priced so far stays, should a later variant fail
                write(conn, args.data)
    if args.dry_run:
        return 0
    write(conn, args.data)
    say(t0, "done in %s -> %s" % (fmt_clock(time.time() - t0), args.data), "paper-bands")
    return 0


# ---- reading the bands back (paper-table)

def _plain_value(row):
    """A row's figure whose band the page shows: ours / published for a time or a speedup,
    else its facts' margin, negative when the claim fails (row: a table row, err = 0)."""
    from .paper_tuna import MISSED
    if row[7]:
        return float(row[7])
    margin = float("inf") if row[8] == "n/a" else float(row[8].rstrip(" %")) / 100
    return -margin if row[9] == MISSED else margin


def row_key(row):
    """What names a row of the table whatever the figures in it."""
    return tuple(row[:6])


def variant_rows(platform, results, tra_path, tuna_path):
    """The table's rows (verdicts at err = 0) that a variant's results price: the TRA rows
    on theta.xml, the TuNA rows of a machine on its platform (Fig. 7's regimes; Fig. 8's
    rows where P = 8192 was priced)."""
    if platform == os.path.basename(paper_rows.PLATFORM):
        conn = paper_rows.load(tra_path)
        run_id = conn.execute("SELECT id FROM runs").fetchone()[0]
        conn.execute("DELETE FROM results")
        conn.executemany("INSERT INTO results(%s) VALUES (%s)" % (
            paper_rows.RESULT_COLUMNS, ", ".join("?" * 12)),
            [(run_id,) + tuple(r) + (0,) for r in results])
        m = paper_rows.Model(conn)
        ps = [P for P in paper_rows.TREND_P if m.sizes("tra_trend", P)]
        return (paper_rows.tra_rows(m, 0, 0) + paper_rows.tra2_rows(m, 0) +
                paper_rows.trend_rows(m, 0, ps))
    conn = paper_tuna.load(tuna_path)
    d = paper_tuna.TunaData(conn)
    run_id = d.run_id(platform)
    conn.execute("DELETE FROM results WHERE run_id = ?", (run_id,))
    conn.executemany("INSERT INTO results(%s) VALUES (%s)" % (
        paper_tuna.RESULT_COLUMNS, ", ".join("?" * 12)),
        [(run_id, s, k, P, Q, S, r, t, status, 0, None, None)
         for s, k, P, Q, S, r, _, _, t, status in results])
    machine = dict((p, mc) for mc, p in paper_tuna.MACHINES)[platform]
    out = paper_tuna.regime_rows(d, platform, machine, 0)
    if d.sizes(platform, "tuna_fig8", 8192):
        out += paper_tuna.fig8_rows(d, platform, machine, 0, 0)
    return out


class Bands:
    """Each row's band over the variants of its platform: {row key: [(variant, verdict at
    err = 0, figure)]}, and the base rows' verdicts at err = 0."""

    def __init__(self, path, tra_path, tuna_path):
        self.conn = load(path)
        self.by_row = {}
        self.platforms = {}
        for platform, variant in self.conn.execute(
                "SELECT platform, variant FROM variants ORDER BY platform, rowid").fetchall():
            results = self.conn.execute(
                "SELECT section, kernel, P, Q, S, radix, radix2, ppn, median_s, status FROM "
                "results WHERE platform = ? AND variant = ?", (platform, variant)).fetchall()
            if not results:   # not priced yet
                continue
            for row in variant_rows(platform, results, tra_path, tuna_path):
                if row[9] == paper_tuna.NOT_TESTABLE:
                    continue
                self.by_row.setdefault(row_key(row), []).append(
                    (variant, row[9], _plain_value(row)))
            self.platforms.setdefault(platform, []).append(variant)

    def band(self, row, plain):
        """(band text, [(variant, its verdict) where it differs from plain's]) of a row, or
        (None, []) when no variant priced it. plain: the row at err = 0 on the platform."""
        got = self.by_row.get(row_key(row))
        if not got:
            return None, []
        low = min(got, key=lambda g: g[2])
        high = max(got, key=lambda g: g[2])
        fact = not row[7]

        def show(g):
            if not fact:
                return "%.2f (%s)" % (g[2], g[0])
            return "%s by %s (%s)" % ("fails" if g[1] == paper_tuna.MISSED else "holds",
                                      paper_tuna.pct(abs(g[2])), g[0])
        flips = [(g[0], g[1]) for g in got if g[1] != plain[9]]
        return "%s .. %s" % (show(low), show(high)), flips



def note(bands, unpriced):
    """Note 7 of the table: how the bands are made, per platform what was varied, what not
    and why, and what it cost (from the band data); unpriced: the P whose rows have none."""
    conn = bands.conn
    parts = []
    for platform in PLATFORMS:
        cost = conn.execute("SELECT count(*), sum(configurations), sum(cpu_s), max(peak_mb) "
                            "FROM variants WHERE platform = ?", (platform,)).fetchone()
        if not cost[0]:
            parts.append("%s: no variant priced" % platform)
            continue
        varied = []
        for figure, scale, variant in conn.execute(
                "SELECT figure, scale, variant FROM figures WHERE platform = ? AND variant IS "
                "NOT NULL AND figure != 'corner' ORDER BY rowid", (platform,)):
            same = variant.split(" ")[0]
            shown = figure if same == figure else "%s (the network of %s)" % (figure, same)
            if shown not in varied:
                varied.append(shown)
        why = {}
        for figure, scale, reason in conn.execute(
                "SELECT figure, scale, why FROM figures WHERE platform = ? AND variant IS NULL "
                "ORDER BY rowid", (platform,)):
            why.setdefault(reason, []).append("%s %s" % (figure, scale))
        parts.append("%s: %d variant files (%d configurations, %.1f min CPU, peak %.0f MB): "
                     "%s at x1/2 and x2, and the corners; no variant for %s"
                     % (platform, cost[0], cost[1], cost[2] / 60, cost[3], ", ".join(varied),
                        "; ".join("%s (%s)" % (", ".join(_merged(fs)), r)
                                  for r, fs in why.items())))
    return ("7. **The bands** (%s, `scripts/a2a paper-bands`, `make paper-bands`): each "
            "variant is the platform table with one assumed figure scaled "
            "(`scripts/a2a platform MACHINE --scale FIGURE=FACTOR`: counts rounded, a "
            "torus by its first dimension, bw-factor at most 1, a NIC's bandwidth with the "
            "injection it makes), priced by the model tier on the rows' own configurations "
            "(`%s`), TuNA's traces read back from `A2A_TRACE_CACHE` (the CPU time and peak "
            "below are the variants' model-runs: a trace already in the cache costs them "
            "nothing, its own cost is note 3's); variants that write the same network are "
            "priced once. %s.%s"
            % (DATA, SWEEP, "; ".join(parts), unpriced_text(unpriced)))


def unpriced_text(unpriced):
    """' Rows without a band: ...' of {(machine, P)} whose rows no variant priced, and why."""
    if not unpriced:
        return ""
    return (" Rows without a band (%s): the variants were not priced at their P (`a2a "
            "paper-bands --P` named others; by default every P of the rows is priced, "
            "TuNA's at P = 8192 after their traces, note 3)."
            % ", ".join("%s at P = %d" % mp for mp in sorted(unpriced)))


def _merged(items):
    """'os x1/2', 'os x2' -> 'os'; other items as they are."""
    names = [i.split(" ")[0] for i in items]
    out = []
    for item, name in zip(items, names):
        whole = names.count(name) == len(SCALES)
        label = name if whole else item
        if label not in out:
            out.append(label)
    return out
