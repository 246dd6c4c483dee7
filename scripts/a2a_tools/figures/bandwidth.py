"""`a2a bandwidth`: copy rate of the kernels against the machine's copy limit (HINT paper's
view of an intra-node all-to-all as a memory copy).

One definition of the bytes: `bytes_copied` of a result, the payload bytes that arrive in
the receive buffers with every rank's own block included (P^2 S for alltoall) -- what HINT
copies and what any kernel must deliver; `bytes_moved` leaves the own blocks out. A
kernel's rate is bytes_copied / median time (one copy, not read + write as STREAM counts).

The limit is copybench's `GB/s` (family copy, memcpy: one copy per byte, every thread
at once) for as many threads as the rows' ranks per node and the same working set: each
rank copies P S bytes (its P blocks of S), so the copybench size is P S bytes per thread,
interpolated between the measured sizes on log scales. The copy rows may come from the
same database or another (--copy-db)."""
import math
import sys

from ..core import contract, options
from ..core.common import A2AError, DEFAULT_FIGURES, fmt_size, write_rows
from ..core.db import open_db

COLUMNS = ["run", "kernel", "P", "Q", "S", "bytes_copied", "median_us", "GB/s", "limit_GB/s",
           "of_limit", "copy_threads", "copy_size"]


def add_parser(sub, common):
    p = sub.add_parser(
        "bandwidth", parents=[common["db"], common["select"]],
        help="kernels' copy rate (bytes_copied / time) against copybench's limit (HINT)",
        description="Per kernel, P and S: the rate bytes_copied / median (bytes_copied = "
                    "payload bytes arriving in receive buffers, own blocks included: P^2 S "
                    "for alltoall), next to copybench's memcpy rate for as many threads as "
                    "ranks per node at the same working set (P S bytes per rank). A figure "
                    "per P (rate versus S, the limit as a dashed line) and a table.",
        epilog="example:\n  a2atune copybench --db results/copy.db\n"
               "  a2a bandwidth --db results/hint.db --copy-db results/copy.db --kernel hint,vendor",
        formatter_class=common["formatter"])
    p.add_argument("--kernel", type=options.word_list, metavar="LIST",
                   help="kernels (default: every kernel of the run)")
    p.add_argument("--copy-db", metavar="PATH",
                   help="database holding copybench rows (default: --db)")
    p.add_argument("--out", default=DEFAULT_FIGURES, metavar="DIR",
                   help="output directory of the figures (default: %(default)s)")
    p.add_argument("--format", choices=("table", "csv", "markdown", "json"), default="table",
                   help="format of the table on stdout (default: %(default)s)")
    p.add_argument("--no-figures", action="store_true", help="only the table")
    p.set_defaults(func=run)
    return p


def copy_rates(db):
    """{threads: [(bytes per thread, GB/s)] sorted}: copybench's memcpy medians."""
    rows = db.all("SELECT r.P, r.S, m.value FROM results r JOIN metrics m ON m.result_id = r.id"
                  " WHERE r.family = 'copy' AND r.kernel = 'memcpy' AND r.status = 'ok'"
                  " AND m.name = 'GB/s' ORDER BY r.id")
    out = {}
    for threads, size, rate in rows:
        out.setdefault(threads, {})[size] = rate   # the newest measurement of a size wins
    return {t: sorted(v.items()) for t, v in out.items()}


def limit(rates, threads, size):
    """(GB/s, threads used, size) of the copy limit: copybench's rate for `threads` threads
    (else the most threads measured below, else the fewest above) at `size` bytes per
    thread, interpolated log-log between measured sizes (the nearest end outside them)."""
    if not rates or size <= 0:
        return None, None, None
    have = sorted(rates)
    below = [t for t in have if t <= threads]
    t = below[-1] if below else have[0]
    points = rates[t]
    if size <= points[0][0]:
        return points[0][1], t, points[0][0]
    if size >= points[-1][0]:
        return points[-1][1], t, points[-1][0]
    for (s0, r0), (s1, r1) in zip(points, points[1:]):
        if s0 <= size <= s1:
            f = (math.log(size) - math.log(s0)) / (math.log(s1) - math.log(s0))
            return math.exp(math.log(r0) + f * (math.log(r1) - math.log(r0))), t, size
    return points[-1][1], t, points[-1][0]


def load_rows(db, args):
    filters = options.select_filters(args)
    filters = dict(filters, status="ok")
    if args.kernel:
        db.check_kernels(args.kernel)
        filters["kernel"] = args.kernel
    if "bytes_copied" not in db.columns("results"):
        raise A2AError("%s has no bytes_copied (written before schema 3): rerun the sweep"
                       % db.path)
    extra = ("family NOT IN ('copy', 'app') AND bytes_copied > 0 AND median_s > 0", [])
    if filters.get("run_id") is None:
        where = dict(filters)
        where.pop("run_id", None)
        rows = db.rows_where(where, extra=extra)
        if not rows:
            raise A2AError("no ok timed results with bytes_copied match in %s" % db.path)
        filters["run_id"] = max(r["run_id"] for r in rows)
    groups = contract.run_groups(db)
    members = groups.get(filters["run_id"], [filters["run_id"]])
    filters["run_id"] = members
    rows = contract.combine_launches(db.rows_where(filters, extra=extra), groups)
    if not rows:
        raise A2AError("no ok timed results with bytes_copied match in %s" % db.path)
    return rows


def run(args, db):
    rows = load_rows(db, args)
    copy_db = open_db(args.copy_db) if args.copy_db else db
    rates = copy_rates(copy_db)
    if not rates:
        raise A2AError("no copybench rows (family copy, memcpy) in %s: run a2atune copybench"
                       % copy_db.path)
    table = []
    for r in rows:
        ranks_per_node = r["Q"] or r["P"]
        per_rank = r["bytes_copied"] / r["P"]
        rate = r["bytes_copied"] / r["median_s"] / 1e9
        lim, threads, size = limit(rates, ranks_per_node, per_rank)
        table.append([r["run_id"], r["kernel"], r["P"], ranks_per_node, r["S"], r["bytes_copied"],
                      r["median_s"] * 1e6, rate, lim, rate / lim if lim else None, threads, size])
    table.sort(key=lambda t: (t[1], t[2], t[4]))
    human = args.format in ("table", "markdown")
    write_rows(COLUMNS, [t[:4] + [fmt_size(t[4]) if human else t[4]] + t[5:] for t in table],
               args.format, float_format="%.4g")
    if not args.no_figures:
        for path in draw(db, table, args, any(r["oversubscribed"] for r in rows)):
            sys.stderr.write(path + "\n")
    return 0


def log2_size_axis(axis, sizes):
    """Ticks at log2(S) for every S in sizes, labelled 16 B, 1 KiB, 16 KiB ..."""
    from matplotlib.ticker import FixedLocator, FuncFormatter
    axis.set_major_locator(FixedLocator([math.log2(s) for s in sizes if s > 0]))
    axis.set_major_formatter(FuncFormatter(lambda x, pos: fmt_size(round(2 ** x))))


def draw(db, table, args, oversubscribed):
    from . import style
    run = db.run(table[0][0])
    written = []
    for P in sorted({t[2] for t in table}):
        mine = [t for t in table if t[2] == P]
        fig = style.new_figure(6.4, 4.0)
        ax = fig.add_subplot(1, 1, 1)
        for kernel in sorted({t[1] for t in mine}):
            pts = sorted((t[4], t[7]) for t in mine if t[1] == kernel)
            ax.plot([math.log2(max(s, 1)) for s, _ in pts], [v for _, v in pts], marker="o",
                    label=kernel)
        lim = sorted({(t[4], t[8], t[10]) for t in mine if t[8]})
        if lim:
            ax.plot([math.log2(max(s, 1)) for s, _, _ in lim], [v for _, v, _ in lim],
                    label="copy limit (memcpy, %d threads, P·S bytes each)" % lim[0][2],
                    **style.BASELINE_STYLE)
        log2_size_axis(ax.xaxis, sorted({t[4] for t in mine}))
        ax.set_xlabel("S (bytes per block)")
        ax.set_ylabel("GB/s copied (bytes_copied / median)")
        ax.set_title("Copy rate at P = %d against the machine's copy limit\n%s"
                     % (P, style.provenance(run, oversubscribed)), fontsize=8)
        ax.legend(loc="best")
        style.footer(fig, run, oversubscribed, db.path)
        written += style.save(fig, args.out, style.safe_name("bandwidth_P%d_run%s" % (P, run["id"])))
    return written
