"""`a2a hint-tune`: the hint kernel's offline tuning file (HINT paper, V-C) from a database.

The candidates are the ok rows of kernel hint (uniform family) of one run (--run, or the
newest run holding such rows) with a fixed order (row, column, hilbert; tuned and auto
rows are results of a choice, not candidates) on the real node (ppn = 0). Per P and
measured block size S the (order, threshold) with the least median wins. Consecutive sizes
with the same winner form one rule; a rule reaches from the geometric midpoint to the
previous measured size (0 for the first) to the midpoint to the next one (no end for the
last: S_max null).

The file is what kernels/hint/hint_tuning.h reads:
  {"format": "a2atune-hint-tuning", "version": 1, "rules": [{"P", "S_min", "S_max",
   "order", "threshold", "measured": [{"S", "median_s", "vendor_median_s"}, ...]}, ...],
   "source": {database, run, host, MPI, CPU, oversubscribed}}
The kernel uses it with order = tuned and A2A_HINT_TUNING_FILE naming the file.
"""
import datetime
import json
import math
import os

from ..core import options
from ..core.common import A2AError, fmt_size, write_rows
from ..core.db import short_mpi

FORMAT_NAME = "a2atune-hint-tuning"
FORMAT_VERSION = 1
ORDERS = ("row", "column", "hilbert")
DEFAULT_OUT = os.path.join("results", "hint-tuning.json")
COLUMNS = ["P", "S_min", "S_max", "order", "threshold", "measured_S", "median_us", "vendor_us"]


def add_parser(sub, common):
    p = sub.add_parser(
        "hint-tune", parents=[common["db"]],
        help="the hint kernel's tuning file: best order and threshold per P and S range",
        description="Writes the offline tuning file of the hint kernel (order = tuned reads "
                    "it through A2A_HINT_TUNING_FILE): for every P, ranges of block sizes "
                    "with the fastest fixed order and threshold measured there. Prints the "
                    "rules.",
        epilog="example:\n"
               "  mpirun -n 4 ./a2atune run sweeps/hint.ini --db results/hint.db\n"
               "  scripts/a2a hint-tune --db results/hint.db --out results/hint-tuning.json\n"
               "  A2A_HINT_TUNING_FILE=results/hint-tuning.json mpirun -n 4 ./a2atune run ...  "
               "(order = tuned)",
        formatter_class=common["formatter"])
    p.add_argument("--P", type=options.int_list, metavar="LIST",
                   help="only these process counts (default: every measured one)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="PATH",
                   help="the tuning file to write (default: %(default)s); - for none")
    p.add_argument("--format", choices=("table", "markdown", "csv", "json"), default="table",
                   help="format of the printed rules (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def _params(row):
    try:
        value = json.loads(row["params"] or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def load(db, run_id, P_filter):
    """(run id, {P: {S: [(median, order, threshold)]}}, {(P, S): vendor median})."""
    where = "family = 'uniform' AND kernel = 'hint' AND status = 'ok' AND median_s IS NOT NULL"
    if run_id is None:
        run_id = db.newest_run("family = 'uniform' AND kernel = 'hint'")
        if run_id is None:
            raise A2AError("no ok results of kernel hint in %s (run sweeps/hint.ini first)"
                           % db.path)
    else:
        db.check_run(run_id)
    rows = db.all("SELECT P, S, params, median_s FROM results WHERE run_id = ? AND " + where,
                  (run_id,))
    table = {}
    for r in rows:
        p = _params(r)
        if p.get("order") not in ORDERS or p.get("ppn", 0) not in (0, None):
            continue
        if P_filter and r["P"] not in P_filter:
            continue
        threshold = p.get("threshold", 0)
        if not isinstance(threshold, int) or threshold < 0:
            continue
        table.setdefault(r["P"], {}).setdefault(r["S"], []).append(
            (r["median_s"], p["order"], threshold))
    if not table:
        raise A2AError("run %s of %s has no ok hint rows with order row, column or hilbert "
                       "and ppn = 0%s" % (run_id, db.path,
                                          " at P = %s" % ",".join(str(p) for p in P_filter) if P_filter else ""))
    vendor = {}
    for r in db.all("SELECT P, S, min(median_s) AS m FROM results WHERE run_id = ? AND "
                    "family = 'uniform' AND kernel = 'vendor' AND status = 'ok' AND median_s "
                    "IS NOT NULL GROUP BY P, S", (run_id,)):
        vendor[(r["P"], r["S"])] = r["m"]
    return run_id, table, vendor


def _midpoint(a, b):
    return int(math.floor(math.sqrt(a * b)))


def rules_for(P, sizes, vendor):
    """Rules of one P from {S: candidates}: the winner per S, merged over runs of S."""
    measured = sorted(sizes)
    best = {}
    for S in measured:
        median, order, threshold = min(sizes[S], key=lambda c: (c[0], ORDERS.index(c[1]), c[2]))
        best[S] = (order, threshold, median)
    rules = []
    for i, S in enumerate(measured):
        order, threshold, median = best[S]
        evidence = {"S": S, "median_s": median, "vendor_median_s": vendor.get((P, S))}
        if rules and (rules[-1]["order"], rules[-1]["threshold"]) == (order, threshold):
            rules[-1]["measured"].append(evidence)
        else:
            lo = 0 if i == 0 else _midpoint(measured[i - 1], S) + 1
            if rules:
                rules[-1]["S_max"] = lo - 1
            rules.append({"P": P, "S_min": lo, "S_max": None, "order": order,
                          "threshold": threshold, "measured": [evidence]})
    return rules


def run(args, db):
    run_id, table, vendor = load(db, args.run, args.P)
    rules = []
    for P in sorted(table):
        rules += rules_for(P, table[P], vendor)
    info = db.run(run_id)
    document = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "source": {"database": os.path.abspath(db.path), "run": run_id, "host": info["host"],
                   "mpi": short_mpi(info), "cpu_model": info["cpu_model"],
                   "oversubscribed": bool(info["oversubscribed"]),
                   "criterion": "least median per (P, S) among fixed orders and thresholds"},
        "rules": rules,
    }
    if args.out != "-":
        folder = os.path.dirname(args.out)
        try:
            if folder:
                os.makedirs(folder, exist_ok=True)
            with open(args.out, "w") as f:
                json.dump(document, f, indent=1)
                f.write("\n")
        except OSError as e:
            raise A2AError("cannot write %s: %s" % (args.out, e.strerror or e))
    human = args.format in ("table", "markdown")
    out_rows = []
    for r in rules:
        sizes = [m["S"] for m in r["measured"]]
        medians = [m["median_s"] * 1e6 for m in r["measured"]]
        vendors = [m["vendor_median_s"] for m in r["measured"]]
        out_rows.append([
            r["P"], fmt_size(r["S_min"]) if human else r["S_min"],
            ("-" if human else None) if r["S_max"] is None else (fmt_size(r["S_max"]) if human else r["S_max"]),
            r["order"], r["threshold"],
            ",".join(fmt_size(s) for s in sizes),
            ",".join("%.2f" % m for m in medians),
            ",".join("-" if v is None else "%.2f" % (v * 1e6) for v in vendors)])
    write_rows(COLUMNS, out_rows, args.format)
    if args.out != "-" and args.format in ("table", "markdown"):
        print("\n%d rules for P = %s -> %s (use: A2A_HINT_TUNING_FILE=%s, order = tuned)"
              % (len(rules), ",".join(str(p) for p in sorted(table)), args.out, args.out))
    return 0
