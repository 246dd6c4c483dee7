"""Tunable-kernel results grouped per (P, S, data) with their baselines.

A *group* is one point of a radix study: run, family, P, S, dist, payload, datatype and
gap. Inside a group every radix keeps its fastest configuration (the minimum median
over the kernel's other parameters, e.g. TuNA's block_count), unless the caller
filters those parameters. The baseline of a group is the fastest ok configuration of
the baseline kernel (e.g. vendor, at vendor_algorithm 0: the library's own choice) with the
same run, family, P, S and data."""
import json
import math

from .common import A2AError, simulation_runs
from .db import describe_filters

DATA_KEYS = ("family", "dist", "payload", "datatype", "gap")
PARAM_KEYS = ("radix2", "block_count", "ppn", "Q")


class Group:
    def __init__(self, key):
        (self.run_id, self.family, self.P, self.S, self.dist, self.payload, self.datatype,
         self.gap) = key
        self.key = key
        self.by_radix = {}      # radix -> fastest ok row (dict)
        self.rows = []          # every ok row of the tunable kernel
        self.baseline = None    # fastest ok row of the baseline kernel, or None

    @property
    def data_key(self):
        return (self.family, self.dist, self.payload, self.datatype, self.gap)

    @property
    def best(self):
        if not self.by_radix:
            return None
        return min(self.by_radix.values(), key=lambda r: (r["median_s"], r["radix"]))

    def speedup(self, row):
        if self.baseline is None or not row or not row["median_s"]:
            return None
        return self.baseline["median_s"] / row["median_s"]

    def sqrt_p(self):
        return math.sqrt(self.P)


def group_key(row):
    return (row["run_id"], row["family"], row["P"], row["S"], row["dist"], row["payload"],
            row["datatype"], row["gap"])


def data_label(data_key):
    """'uniform' or 'uniform, int, zero payload, gap 1' for a (family, dist, payload,
    datatype, gap) tuple: only what differs from the defaults."""
    family, dist, payload, datatype, gap = data_key
    parts = [dist]
    if datatype and datatype != "byte":
        parts.append(datatype)
    if payload and payload != "pattern":
        parts.append("%s payload" % payload)
    if gap:
        parts.append("gap %s" % gap)
    return ", ".join(parts)


def data_tag(data_key):
    """A file-name part for a data set: 'constant', 'uniform-int-zero-gap1'."""
    family, dist, payload, datatype, gap = data_key
    parts = [dist]
    if datatype and datatype != "byte":
        parts.append(datatype)
    if payload and payload != "pattern":
        parts.append(payload)
    if gap:
        parts.append("gap%s" % gap)
    return "-".join(str(p) for p in parts)


def other_params(row):
    """The kernel parameters besides the radix, as 'block_count=1' (from params JSON)."""
    try:
        params = json.loads(row["params"] or "{}")
    except ValueError:
        params = {}
    return ", ".join("%s=%s" % (k, v) for k, v in sorted(params.items()) if k != "radix")


# Rows of radix sweeps: a radix, and a collective family (not an application run or a
# copy measurement, whose rows also name kernels and radices)
SWEPT = "radix IS NOT NULL AND family NOT IN ('app', 'copy')"


def resolve_run(db, kernel, run_id, filters):
    """run_id if given (checked), else the newest run with an ok row of `kernel` that
    has a radix and matches filters."""
    if run_id is not None:
        return db.check_run(run_id)
    from .db import build_where
    where, params = build_where(dict(filters, kernel=kernel))
    where.append(SWEPT)
    newest = db.newest_run(" AND ".join(where), params)
    if newest is None:
        raise A2AError("no ok results with a radix match (%s) in %s"
                       % (describe_filters(dict(filters, kernel=kernel)), db.path))
    return newest


def check_tunable(db, kernel):
    db.check_kernels([kernel])
    if db.execute("SELECT 1 FROM results WHERE kernel = ? AND radix IS NOT NULL LIMIT 1",
                  (kernel,)).fetchone() is None:
        tunable = [r[0] for r in db.all("SELECT DISTINCT kernel FROM results"
                                        " WHERE radix IS NOT NULL ORDER BY kernel")]
        raise A2AError("kernel '%s' takes no radix (kernels with a radix in %s: %s)"
                       % (kernel, db.path, ", ".join(tunable) or "none"))


def load(db, kernel, baseline, run_id, filters):
    """(run_id, groups sorted by data, P, S, oversubscribed_any) for one tunable kernel.

    filters: dict of result columns (P, S, dist, family, block_count, radix2 ...) to a
    value or list. Raises A2AError when nothing matches."""
    check_tunable(db, kernel)
    if baseline:
        db.check_kernels([baseline])
    run_id = resolve_run(db, kernel, run_id, filters)
    runs = simulation_runs(db, run_id)  # a simulation's launches (one per P) draw together
    sel = dict(filters, kernel=kernel, run_id=runs, status="ok")
    rows = [dict(r) for r in db.rows_where(sel, extra=(SWEPT, []))]
    if not rows:
        raise A2AError("no ok results match (%s) in %s" % (describe_filters(sel), db.path))
    groups = {}
    for row in rows:
        g = groups.get(group_key(row))
        if g is None:
            g = groups[group_key(row)] = Group(group_key(row))
        g.rows.append(row)
        held = g.by_radix.get(row["radix"])
        if held is None or row["median_s"] < held["median_s"]:
            g.by_radix[row["radix"]] = row
    over = any(r["oversubscribed"] for r in rows)
    if baseline:
        base_filters = {k: v for k, v in filters.items() if k in ("P", "S", "dist", "family",
                                                                  "payload", "datatype", "gap")}
        base_filters.update(kernel=baseline, run_id=runs, status="ok")
        # the library's own choice only: forced vendor algorithms are candidates, not the baseline
        own_choice = ("IFNULL(json_extract(params, '$.vendor_algorithm'), 0) = 0", [])
        for row in db.rows_where(base_filters, extra=own_choice):
            g = groups.get(group_key(row))
            if g is None:
                continue
            if g.baseline is None or row["median_s"] < g.baseline["median_s"]:
                g.baseline = dict(row)
        over = over or any(g.baseline["oversubscribed"] for g in groups.values() if g.baseline)
    ordered = sorted(groups.values(), key=lambda g: (str(g.data_key), g.P, g.S))
    return run_id, ordered, over


def split_by_data(groups):
    """{data_key: [groups]} keeping order."""
    out = {}
    for g in groups:
        out.setdefault(g.data_key, []).append(g)
    return out
