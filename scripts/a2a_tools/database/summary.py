"""`a2a summary`: what a database holds — runs, kernels, P, S, distributions, statuses."""
import json
import sys

from ..core.common import A2AError, fmt_size, write_rows
from ..core.db import short_mpi


def add_parser(sub, common):
    p = sub.add_parser(
        "summary", parents=[common["db"]],
        help="what the database holds: runs, kernels, P, S, distributions, statuses",
        description="Lists the runs (id, start, MPI, host, world size, oversubscribed, "
                    "status), the kernels, P and S values, distributions and the number of "
                    "results per status (all runs, or --run ID).",
        formatter_class=common["formatter"])
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="output format (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def collect(db, run_id):
    where, params = ("WHERE run_id = ?", (run_id,)) if run_id is not None else ("", ())
    runs = [r for r in db.runs() if run_id is None or r["id"] == run_id]
    counts = {}
    for r in db.all("SELECT run_id, status, count(*) AS n FROM results GROUP BY run_id, status"):
        counts.setdefault(r["run_id"], {})[r["status"]] = r["n"]
    run_rows = []
    for r in runs:
        c = counts.get(r["id"], {})
        run_rows.append({
            "id": r["id"], "started": r["started"], "ended": r["ended"], "status": r["status"],
            "mpi": short_mpi(r), "host": r["host"], "world_size": r["world_size"],
            "cores": r["cores_per_node"], "oversubscribed": bool(r["oversubscribed"]),
            "git": r["git_revision"], "sweep": r["sweep_file"],
            "results": sum(c.values()), "ok": c.get("ok", 0)})

    def distinct(col):
        return [x[0] for x in db.all("SELECT DISTINCT %s FROM results %s ORDER BY 1" % (col, where),
                                     params)]
    kernels = [dict(k) for k in db.all(
        "SELECT family, kernel, count(*) AS results, sum(status = 'ok') AS ok,"
        " count(DISTINCT radix) AS radices FROM results %s GROUP BY family, kernel"
        " ORDER BY family, kernel" % where, params)]
    status = {r[0]: r[1] for r in db.all(
        "SELECT status, count(*) FROM results %s GROUP BY status ORDER BY status" % where, params)}
    samples = db.execute("SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id %s"
                         % where.replace("run_id", "r.run_id"), params).fetchone()[0]
    return {"database": db.path, "runs": run_rows, "kernels": kernels, "P": distinct("P"),
            "S": distinct("S"), "dist": distinct("dist"), "datatype": distinct("datatype"),
            "status": status, "results": sum(status.values()), "samples": samples}


def run(args, db, out=None):
    """Prints the summary (table or JSON) on out (default stdout)."""
    out = out or sys.stdout
    if args.run is not None:
        db.check_run(args.run)
    info = collect(db, args.run)
    if not info["runs"]:
        raise A2AError("%s holds no runs" % db.path)
    if args.format == "json":
        json.dump(info, out, indent=1)
        out.write("\n")
        return 0
    out.write("database: %s (%d results, %d samples%s)\n\n" % (
        info["database"], info["results"], info["samples"],
        ", run %d" % args.run if args.run is not None else ""))
    out.write("runs:\n")
    cols = ["id", "started", "status", "mpi", "host", "world_size", "cores", "oversubscribed",
            "git", "sweep", "results", "ok"]
    write_rows(cols, [[("yes" if r[c] else "no") if c == "oversubscribed" else
                       (r[c] or "")[:19].replace("T", " ") if c == "started" else r[c]
                       for c in cols] for r in info["runs"]], "table", out=out)
    out.write("\nkernels:\n")
    write_rows(["family", "kernel", "results", "ok", "radices"],
               [[k["family"], k["kernel"], k["results"], k["ok"], k["radices"]]
                for k in info["kernels"]], "table", out=out)
    out.write("\nP:         %s\n" % ", ".join(str(p) for p in info["P"]))
    out.write("S:         %s\n" % ", ".join(fmt_size(s) for s in info["S"]))
    out.write("dist:      %s\n" % ", ".join(info["dist"]))
    out.write("datatype:  %s\n" % ", ".join(str(d) for d in info["datatype"]))
    out.write("status:    %s\n" % (", ".join("%s %d" % kv for kv in info["status"].items())
                                   or "no results"))
    return 0
