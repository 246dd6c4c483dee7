"""Tunable-kernel results grouped per (P, S, data) with their baselines, for the figures
and tables. What a measurement, its noise, the best, the baseline and the speedup are is
the results contract (contract.py); this module groups measurements and applies it.

A *group* is one point of a radix study: a run group and a data set, as the view
result_data of harness/db/views.c defines it (its data_set column: family, P, Q, S, dist and its
parameters, payload, datatype, gap and buffer allocation). Inside a group every radix keeps
its best configuration (over the kernel's other parameters, e.g. TuNA's block_count),
unless the caller filters those parameters; the group's baseline is contract.baseline's."""
import os
import sys
import json
import math
import re

from ..core import contract
from ..core import netmodel
from ..core.common import A2AError, write_rows
from ..core.contract import combine_launches, noise, within_noise
from ..core.contract import run_groups as launch_groups
from ..core.db import describe_filters
from .simruns import simulation_runs

DATA_KEYS = ("family", "dist", "payload", "datatype", "gap")
# the columns of result_data.data_set, in its order (harness/db/views.c)
DATA_SET = ("family", "P", "Q", "S", "dist", "dist_params", "payload", "datatype", "gap",
            "alloc")


class Group:
    def __init__(self, key, row=None):
        """key: group_key(row), the data set's columns read from row. Without a row, key is
        (run_id, family, P, S, dist, payload, datatype, gap): a group of the default Q,
        dist parameters and allocation (unknown Q, none, private)."""
        if row is None:
            run_id, family, P, S, dist, payload, datatype, gap = key
            row = dict(family=family, P=P, Q=None, S=S, dist=dist, dist_params=None,
                       payload=payload, datatype=datatype, gap=gap, alloc="private")
        self.run_id = key[0]
        (self.family, self.P, self.Q, self.S, self.dist, self.dist_params, self.payload,
         self.datatype, self.gap, self.alloc) = (row[c] for c in DATA_SET)
        self.key = key
        self.by_radix = {}      # radix -> fastest ok row (dict)
        self.rows = []          # every ok row of the tunable kernel
        self.baseline = None    # fastest ok row of the baseline kernel, or None

    @property
    def data_key(self):
        return (self.family, self.dist, self.payload, self.datatype, self.gap,
                self.dist_params, self.alloc)

    @property
    def best(self):
        if not self.by_radix:
            return None
        return contract.best(self.by_radix.values())

    def speedup(self, row):
        return contract.speedup(self.baseline, row)

    def sqrt_p(self):
        return math.sqrt(self.P)

    @property
    def verdict(self):
        """The best radix and how sure it is (radix_verdict)."""
        return radix_verdict(self)

    @property
    def oversubscribed(self):
        """True when any row drawn for this (P, S), the baseline's included, ran with more
        ranks than cores (the driver flags it per P)."""
        rows = self.rows + ([self.baseline] if self.baseline else [])
        return any(r.get("oversubscribed") for r in rows)


# ---- decisions behind the figures and tables (testable without drawing) ----------------

class Verdict:
    """Which radix of a group is fastest, and whether that is beyond the noise.

    fastest: the row with the least median; tied: the rows (by radix) within the noise of
    the fastest, the fastest included; clear: only the fastest is there, i.e. it beats the
    runner-up by more than the smaller noise of the two; runner_up: the second fastest row
    or None; vs_baseline: 'faster' / 'slower' beyond the noise, 'noise' within it, None
    without a baseline."""

    def __init__(self, fastest, tied, runner_up, vs_baseline):
        self.fastest, self.tied, self.runner_up = fastest, tied, runner_up
        self.vs_baseline = vs_baseline

    @property
    def clear(self):
        return len(self.tied) == 1

    @property
    def tied_radices(self):
        return [r["radix"] for r in self.tied]


def radix_verdict(group):
    """The Verdict of one group's radices (None without any)."""
    rows = sorted(group.by_radix.values(), key=contract.best_key)
    if not rows:
        return None
    fastest = rows[0]
    tied = sorted((r for r in rows if within_noise(fastest["median_s"], noise([fastest]),
                                                   r["median_s"], noise([r]))),
                  key=lambda r: r["radix"])
    vs = None
    base = group.baseline
    if base is not None:
        if within_noise(fastest["median_s"], noise([fastest]), base["median_s"], noise([base])):
            vs = "noise"
        else:
            vs = "faster" if fastest["median_s"] < base["median_s"] else "slower"
    return Verdict(fastest, tied, rows[1] if len(rows) > 1 else None, vs)


def two_level(groups):
    """True when the kernel's rows carry a ppn parameter: a two-level kernel whose radix is
    the intra-node phase's, which the flat model K*alpha + D*S*beta over 2..P does not
    describe (figures and tables then show no model radix)."""
    for g in groups:
        for row in g.rows:
            try:
                params = json.loads(row.get("params") or "{}")
            except ValueError:
                params = {}
            if isinstance(params, dict) and "ppn" in params:
                return True
    return False


def oversubscribed_by_p(groups):
    """{P: True/False}: whether the rows drawn at that P ran oversubscribed."""
    out = {}
    for g in groups:
        out[g.P] = out.get(g.P, False) or g.oversubscribed
    return out


def radix_ticks(P, most=12):
    """Integer radices to label on an axis or bar of radices 2..P: every one while they
    are at most `most`, else 2, P and every k-th radix between, k the smallest of 2, 4, 5,
    8, 10, 20, 40 ... giving at most `most` labels."""
    if P < 2:
        return []
    every = list(range(2, P + 1))
    if len(every) <= most:
        return every
    steps = [2, 4, 5, 8, 10]
    i = 0
    while True:
        k = steps[i] if i < len(steps) else steps[-1] * 2 ** (i - len(steps) + 1)
        picked = [r for r in every if r % k == 0]
        if len(picked) + 2 <= most:
            break
        i += 1
    out = sorted(set([2, P] + picked))
    # no label crowding the last one
    return [r for r in out if r == P or P - r >= k / 2]


NICE_CAPS = (1.25, 1.5, 2.0, 3.0, 4.0, 8.0, 16.0)


class ColourScale:
    """The heatmap's colour scale of speedups: logarithmic, centred on x1 (vmin * vmax = 1),
    capped at x`cap` and /`cap` (faster and slower), `beyond` cells past the cap."""

    def __init__(self, cap, beyond):
        self.cap, self.beyond = cap, beyond
        self.vmin, self.vmax = 1.0 / cap, cap


def colour_scale(speedups):
    """The ColourScale for these speedups: the cap is the smallest of NICE_CAPS reaching the
    90th percentile of |log speedup| (so one outlier does not flatten every other cell into
    one colour), at least x1.25 (noise-sized differences stay pale), at most x16."""
    logs = sorted(abs(math.log(s)) for s in speedups if s and s > 0)
    if not logs:
        return ColourScale(NICE_CAPS[0], 0)
    q90 = logs[min(len(logs) - 1, int(math.ceil(0.9 * len(logs))) - 1)]
    cap = next((c for c in NICE_CAPS if math.log(c) >= q90 - 1e-12), NICE_CAPS[-1])
    beyond = sum(1 for v in logs if v > math.log(cap) + 1e-12)
    return ColourScale(cap, beyond)


def fmt_factor(x):
    """A speedup for labels: x1.35, x13.5 (with the multiplication sign)."""
    return "\u00d7%.2f" % x if x < 9.995 else "\u00d7%.1f" % x


# parameters besides the radix, and their short names in figure cells
PARAM_SHORT = {"block_count": "b", "radix2": "r2", "ppn": "ppn", "order": "", "threshold": "t"}


def chosen_params(group):
    """{radix: {param: value}}: the kernel parameters besides the radix of the configuration
    each radix cell shows (its fastest), read from the params JSON."""
    out = {}
    for r, row in group.by_radix.items():
        try:
            params = json.loads(row.get("params") or "{}")
        except ValueError:
            params = {}
        if not isinstance(params, dict):
            params = {}
        out[r] = {k: v for k, v in params.items() if k != "radix"}
    return out


def group_key(row):
    """A row of result_data's group: its run and data set (the data_set column)."""
    return (row["run_id"], row["data_set"])


def _data_parts(data_key, payload_word, gap_word, alloc_word):
    """What of a Group.data_key differs from the defaults, in label order; the words format
    the payload, gap and allocation."""
    family, dist, payload, datatype, gap, dist_params, alloc = data_key
    parts = [dist]
    if dist_params_text(dist_params):
        parts.append(dist_params_text(dist_params))
    if datatype and datatype != "byte":
        parts.append(datatype)
    if payload and payload != "pattern":
        parts.append(payload_word % payload)
    if gap:
        parts.append(gap_word % gap)
    if alloc and alloc != "private":
        parts.append(alloc_word % alloc)
    return parts


def dist_params_text(dist_params):
    """Stored dist parameters (JSON object text) as 'alpha=1.5 seed=2'; '' for none or {}."""
    try:
        params = json.loads(dist_params) if dist_params else {}
    except ValueError:
        return str(dist_params)
    if not isinstance(params, dict):
        return str(params)
    return " ".join("%s=%s" % (k, v) for k, v in sorted(params.items()))


def data_label(data_key):
    """'uniform' or 'uniform, int, zero payload, gap 1' for a Group.data_key: only what
    differs from the defaults (dist parameters as stored, a shared allocation as 'shared
    buffers')."""
    return ", ".join(str(p) for p in _data_parts(data_key, "%s payload", "gap %s",
                                                 "%s buffers"))


def data_tag(data_key):
    """A file-name part for a data set: 'constant', 'uniform-int-zero-gap1' (dist
    parameters reduced to letters, digits, '_' and '.')."""
    parts = _data_parts(data_key, "%s", "gap%s", "%s")
    if dist_params_text(data_key[5]):
        parts[1] = re.sub(r"[^A-Za-z0-9_.]+", "_", str(parts[1])).strip("_")
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
    from ..core.db import build_where
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


def note_other_network_models(db, run_id, out=sys.stderr):
    """One line on `out` when the database holds simulated runs of other network models
    than run_id's: they are not drawn with it (simulation_runs keeps one model)."""
    drawn = netmodel.identity(netmodel.recorded(db.run(run_id)))
    if drawn is None:
        return
    others = {}
    for row in db.all("SELECT * FROM runs WHERE backend IS NOT NULL AND backend <> 'mpi'"):
        ident = netmodel.identity(netmodel.recorded(row))
        if ident is not None and ident != drawn:
            others.setdefault(ident, []).append(row["id"])
    if others:
        runs = sorted(r for ids in others.values() for r in ids)
        out.write("a2a: drawing network model '%s' (run %s); %d run(s) of %d other network "
                  "model(s) left out, one model per figure (runs %s; pick one with --run)\n"
                  % (netmodel.describe(netmodel.recorded(db.run(run_id)), intra=False), run_id,
                     len(runs), len(others), ",".join(str(r) for r in runs[:10]) +
                     (",..." if len(runs) > 10 else "")))


def load(db, kernel, baseline, run_id, filters):
    """(run_id, groups sorted by data, P, S, oversubscribed_any) for one tunable kernel.

    filters: dict of result columns (P, S, dist, family, block_count, radix2 ...) to a
    value or list. Raises A2AError when nothing matches."""
    check_tunable(db, kernel)
    db.require_views()
    if baseline:
        db.check_kernels([baseline])
    run_id = resolve_run(db, kernel, run_id, filters)
    groups_of_runs = launch_groups(db)
    # a simulation's launches (one per P) draw together, and so do a launch group's runs
    members = []
    simulated = simulation_runs(db, run_id)
    note_other_network_models(db, run_id)
    for r in simulated:
        members += [m for m in groups_of_runs.get(r, [r]) if m not in members]
    run_id = groups_of_runs.get(run_id, [run_id])[-1]  # a launch group: its newest launch

    def as_one_simulation(rows):
        """Rows of one simulated model as if of one run: its configurations may have been
        simulated by several `a2a simulate` calls (--P, --resume), one run per P each. A
        configuration simulated again stands as its newest run simulated it (the kernels'
        code may have changed between the runs): never the fastest of both, which would
        divide one run's kernel by another run's baseline."""
        if len(simulated) <= 1:
            return rows
        newest = {}
        for row in rows:
            held = newest.get(row["config_key"])
            if held is None or (row["run_id"], row["id"]) > (held["run_id"], held["id"]):
                newest[row["config_key"]] = row
        kept = [row for row in rows if newest[row["config_key"]] is row]
        for row in kept:
            row["run_id"] = run_id
        return kept

    sel = dict(filters, kernel=kernel, run_id=members, status="ok")
    rows = as_one_simulation(combine_launches(db.rows_where(sel, extra=(SWEPT, []),
                                                            table="result_data"),
                                              groups_of_runs))
    if not rows:
        raise A2AError("no ok results match (%s) in %s" % (describe_filters(sel), db.path))
    groups = {}
    for row in rows:
        g = groups.get(group_key(row))
        if g is None:
            g = groups[group_key(row)] = Group(group_key(row), row)
        g.rows.append(row)
        held = g.by_radix.get(row["radix"])
        if held is None or contract.best_key(row) < contract.best_key(held):
            g.by_radix[row["radix"]] = row
    over = any(r["oversubscribed"] for r in rows)
    if baseline:
        base_filters = {k: v for k, v in filters.items() if k in ("P", "S", "dist", "family",
                                                                  "payload", "datatype", "gap")}
        base_filters.update(kernel=baseline, run_id=members, status="ok")
        # the library's own choice only: forced vendor algorithms are candidates, not the baseline
        own_choice = ("own_choice", [])
        for row in as_one_simulation(combine_launches(db.rows_where(base_filters, extra=own_choice,
                                                                    table="result_data"),
                                                      groups_of_runs)):
            g = groups.get(group_key(row))
            if g is None:
                continue
            if g.baseline is None or contract.best_key(row) < contract.best_key(g.baseline):
                g.baseline = dict(row)
        over = over or any(g.baseline["oversubscribed"] for g in groups.values() if g.baseline)
    ordered = sorted(groups.values(), key=lambda g: (str(g.data_key), g.P, g.S, str(g.Q)))
    return run_id, ordered, over


def split_by_data(groups):
    """{data_key: [groups]} keeping order."""
    out = {}
    for g in groups:
        out.setdefault(g.data_key, []).append(g)
    return out


def write_csv(path, columns, rows, make_folder=False):
    """Writes rows under columns to path as CSV (write_rows), creating its folder first
    when make_folder; returns path. An OSError becomes an A2AError naming the file."""
    try:
        if make_folder:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            write_rows(columns, rows, "csv", out=f)
    except OSError as e:
        raise A2AError("%s: %s" % (path, e.strerror or e))
    return path


def print_paths(paths):
    """Prints each path on its own line (the output of the figure commands); returns 0,
    the commands' exit code."""
    for path in paths:
        sys.stdout.write(path + "\n")
    return 0
