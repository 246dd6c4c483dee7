"""`a2a query`: rows of the results table through canned filters, or any read-only SQL."""
import sqlite3

from ..core import options
from ..core.common import A2AError, write_rows
from ..core.db import describe_filters, result_columns

STATUSES = ("ok", "wrong", "skipped", "timeout", "error")

_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
            getattr(sqlite3, "SQLITE_RECURSIVE", 33)}


def add_parser(sub, common):
    p = sub.add_parser(
        "query", parents=[common["db"], common["format"]],
        help="rows of the database: canned filters or --sql",
        description="Prints results rows matching the filters (default: ok rows of every run), "
                    "or the rows of one read-only SQL statement (--sql). The database is "
                    "opened read-only and --sql may only read.",
        epilog="examples:\n"
               "  a2a query --kernel tra --P 8 --S 1K\n"
               "  a2a query --status skipped --columns kernel,P,S,status --format csv\n"
               "  a2a query --sql \"SELECT kernel, P, S, radix, speedup FROM speedup_vs_baseline\"",
        formatter_class=common["formatter"])
    p.add_argument("--kernel", type=options.word_list, metavar="LIST", help="kernel names")
    p.add_argument("--family", type=options.word_list, metavar="LIST", help="uniform, nonuniform ...")
    p.add_argument("--P", type=options.int_list, metavar="LIST", help="process counts, e.g. 4,8")
    p.add_argument("--S", type=options.int_list, metavar="LIST", help="block sizes, e.g. 16,1K")
    p.add_argument("--dist", type=options.word_list, metavar="LIST", help="distributions")
    p.add_argument("--radix", type=options.int_list, metavar="LIST", help="radices")
    p.add_argument("--status", default="ok", metavar="LIST",
                   help="ok | wrong | skipped | timeout | error, a list, or 'any' (default: ok)")
    p.add_argument("--columns", metavar="LIST",
                   help="result columns to print, or 'all' (default: %s)" % ",".join(result_columns()))
    p.add_argument("--limit", type=int, metavar="N", help="print at most N rows")
    p.add_argument("--sql", metavar="SELECT", help="one read-only SQL statement instead of filters")
    p.set_defaults(func=run)
    return p


def _authorize(action, *_):
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def run_sql(db, sql):
    db.conn.execute("PRAGMA query_only = 1")
    db.conn.set_authorizer(_authorize)
    try:
        cur = db.conn.execute(sql)
        rows = cur.fetchall()
    except (sqlite3.Error, sqlite3.Warning) as e:
        hint = " (--sql may only read: one SELECT statement)" if (
            "authoriz" in str(e) or "readonly" in str(e) or "read-only" in str(e)) else ""
        raise A2AError("--sql: %s%s" % (e, hint))
    finally:
        db.conn.set_authorizer(None)
    if cur.description is None:
        raise A2AError("--sql: the statement returned no columns (use a SELECT)")
    return [d[0] for d in cur.description], rows


def run(args, db):
    if args.sql is not None:
        used = [o for o in ("kernel", "family", "P", "S", "dist", "radix", "columns", "run")
                if getattr(args, o) is not None]
        if used:
            raise A2AError("--sql cannot be combined with --%s" % used[0])
        columns, rows = run_sql(db, args.sql)
        if not rows:
            raise A2AError("no rows match the --sql statement")
    else:
        db.check_run(args.run)
        if args.kernel:
            db.check_kernels(args.kernel)
        statuses = options.word_list(args.status)
        if statuses != ["any"]:
            for s in statuses:
                if s not in STATUSES:
                    raise A2AError("unknown status '%s' (known: %s, any)" % (s, ", ".join(STATUSES)))
        known = db.columns("results")
        if args.columns in (None, ""):
            columns = [c for c in result_columns() if c in known]
        elif args.columns == "all":
            columns = known
        else:
            columns = options.word_list(args.columns)
            for c in columns:
                if c not in known:
                    raise A2AError("unknown column '%s' (results has: %s)" % (c, ", ".join(known)))
        filters = {"run_id": args.run, "kernel": args.kernel, "family": args.family, "P": args.P,
                   "S": args.S, "dist": args.dist, "radix": args.radix,
                   "status": None if statuses == ["any"] else statuses}
        # column names were checked against the table itself; values are bound parameters (?)
        rows = db.rows_where(filters, columns=", ".join('"%s"' % c for c in columns))
        if not rows:
            raise A2AError("no results match (%s) in %s" % (describe_filters(filters), db.path))
    if args.limit is not None:
        rows = rows[:max(0, args.limit)]
    write_rows(columns, [tuple(r) for r in rows], args.format)
    return 0
