"""Tunable-kernel results grouped per (P, S, data) with their baselines, and the noise of a
measurement.

Noise (`noise`): a sweep repeated in several launches (scripts/run-sweep.sh --launches N:
runs of one launch group) is judged by the spread between the launches' medians, since a
launch's own interquartile range misses what changes from one launch to the next (ReproMPI's
practice); a configuration measured in one launch only has its interquartile range. The
rows of the launches of one configuration are combined into one row (`combine_launches`)
whose median is the median of the launches' medians, q1_s and q3_s the lowest and highest
launch median (so that error bars show the spread), noise_s the noise and launches their
number; every figure, table and tuning decision reads those rows.

A *group* is one point of a radix study: run, family, P, S, dist, payload, datatype and
gap. Inside a group every radix keeps its fastest configuration (the minimum median
over the kernel's other parameters, e.g. TuNA's block_count), unless the caller
filters those parameters. The baseline of a group is the fastest ok configuration of
the baseline kernel (e.g. vendor, at vendor_algorithm 0: the library's own choice) with the
same run, family, P, S and data."""
import json
import math

from .common import A2AError
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

    def beyond_noise(self):
        """True if the best radix is faster than every other radix by more than the larger
        noise of the two, False if some other radix is within it, None with one radix."""
        best = self.best
        others = [r for r in self.by_radix.values() if r is not best]
        if best is None or not others:
            return None
        return all(r["median_s"] - best["median_s"] > max(noise([best]), noise([r]))
                   for r in others)

    def speedup(self, row):
        if self.baseline is None or not row or not row["median_s"]:
            return None
        return self.baseline["median_s"] / row["median_s"]

    def sqrt_p(self):
        return math.sqrt(self.P)


def noise(rows):
    """The noise of one configuration, in seconds: rows are its ok result rows (mappings with
    median_s, q1_s, q3_s), one per launch. Several launches: the spread between their
    medians (largest - smallest); one: its interquartile range (q3_s - q1_s). A row that
    combine_launches made carries its noise (noise_s). 0.0 when nothing is known."""
    rows = list(rows)
    if len(rows) == 1 and _has(rows[0], "noise_s") and rows[0]["noise_s"] is not None:
        return rows[0]["noise_s"]
    medians = [r["median_s"] for r in rows if r["median_s"] is not None]
    if len(medians) > 1:
        return max(medians) - min(medians)
    if not rows:
        return 0.0
    r = rows[0]
    med = r["median_s"] or 0.0
    q1 = r["q1_s"] if r["q1_s"] is not None else med
    q3 = r["q3_s"] if r["q3_s"] is not None else med
    return max(0.0, q3 - q1)


def _has(row, key):
    return key in (row.keys() if hasattr(row, "keys") else row)


def launch_groups(db):
    """{run_id: [run ids of its launch group, oldest first]}: a run outside any group (or a
    database from before launch groups) is alone in its own."""
    if "launch_group" not in db.columns("runs"):
        return {r["id"]: [r["id"]] for r in db.all("SELECT id FROM runs")}
    members = {}
    rows = db.all("SELECT id, launch_group FROM runs ORDER BY id")
    for r in rows:
        if r["launch_group"] is not None:
            members.setdefault(r["launch_group"], []).append(r["id"])
    return {r["id"]: (members[r["launch_group"]] if r["launch_group"] is not None else [r["id"]])
            for r in rows}


def combine_launches(rows, groups):
    """One row per configuration and launch group: rows (ok result rows of any runs) whose
    runs share a launch group (groups: from launch_groups) and whose config_key is equal
    become one dict, a copy of the newest launch's row with run_id = the group's newest run,
    median_s = the median of the launches' medians, q1_s / q3_s = the lowest / highest of
    them, noise_s = noise(those rows) and launches = their number. A configuration of a
    single launch keeps its row (as a dict, with noise_s = its IQR and launches = 1)."""
    by_config = {}
    for r in rows:
        r = dict(r)
        members = groups.get(r["run_id"], [r["run_id"]])
        by_config.setdefault((members[-1], r["config_key"]), []).append(r)
    out = []
    for (newest_run, _), same in by_config.items():
        same.sort(key=lambda r: (r["run_id"], r["id"]))
        row = dict(same[-1])
        row["noise_s"] = noise(same)
        row["launches"] = len(same)
        if len(same) > 1:
            medians = sorted(r["median_s"] for r in same)
            mid = len(medians) // 2
            row["median_s"] = (medians[mid] if len(medians) % 2 else
                               (medians[mid - 1] + medians[mid]) / 2)
            row["q1_s"], row["q3_s"] = medians[0], medians[-1]
            row["run_id"] = newest_run
        out.append(row)
    out.sort(key=lambda r: r["id"])
    return out


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
    groups_of_runs = launch_groups(db)
    members = groups_of_runs.get(run_id, [run_id])
    run_id = members[-1]    # a launch group is named by its newest launch
    sel = dict(filters, kernel=kernel, run_id=members, status="ok")
    rows = combine_launches(db.rows_where(sel, extra=(SWEPT, [])), groups_of_runs)
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
        base_filters.update(kernel=baseline, run_id=members, status="ok")
        # the library's own choice only: forced vendor algorithms are candidates, not the baseline
        own_choice = ("IFNULL(json_extract(params, '$.vendor_algorithm'), 0) = 0", [])
        for row in combine_launches(db.rows_where(base_filters, extra=own_choice), groups_of_runs):
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
