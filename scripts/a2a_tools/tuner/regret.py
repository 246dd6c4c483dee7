"""Regret: how far a choice is from the best of an exhaustive sweep, cell by cell. Shared by
`a2a tuner-report` (tuner_report.py) and its evaluation suite (tuner_suite.py).

A cell is (context, P, S): the context everything that shapes the exchange except P and S
(context_of); an arm is one candidate, its kernel and parameters (arm_of). A choice's
regret in a cell is its median there / the cell's best median - 1; a choice whose arm was
not measured in the cell falls back to the MPI library's own choice, as the tuned
dispatcher does. A rule picks an arm from a cell's measured rows; evaluate spreads its
picks to the unmeasured cells as the tuning files do (the nearest measured S, the
measured P below) and gives every cell's regret.
"""
import json
import math

from . import tune
from ..core import contract
from ..core.common import A2AError


def context_of(row):
    """Everything that shapes the exchange except P and S. A normal distribution's mean and
    sd are taken per byte of S: their defaults scale with S, and a2a tune writes one table
    per family and distribution, so every S of such a sweep is one context (as a2atune
    tune's contexts are)."""
    params = row["dist_params"] or "{}"
    if row["dist"] == "normal" and row["S"]:
        try:
            values = json.loads(params)
            params = json.dumps({k: "%.4g" % (v / row["S"]) for k, v in sorted(values.items())})
        except (ValueError, TypeError, AttributeError):
            pass
    return (row["family"], row["dist"], params, row["payload"], row["datatype"], row["gap"])


def arm_of(row):
    """(kernel, parameters as sorted JSON): one candidate."""
    return (row["kernel"], json.dumps(tune.params_of(row), sort_keys=True))


def load_exhaustive(db, keys=None):
    """{(context, P, S): {arm: row}}: the newest ok row of each configuration (of those whose
    config_key is in keys, when given)."""
    cells = {}
    for r in db.all("SELECT * FROM results WHERE status = 'ok' AND median_s IS NOT NULL"
                    " AND family IN ('uniform', 'nonuniform') ORDER BY run_id, id"):
        r = dict(r)
        if keys is not None and r["config_key"] not in keys:
            continue
        cells.setdefault((context_of(r), r["P"], r["S"]), {})[arm_of(r)] = r
    if not cells:
        raise A2AError("%s: no ok timed alltoall or alltoallv results%s"
                       % (db.path, " of the tuned sweep" if keys is not None else ""))
    return cells


def choices(measured, all_cells, rule):
    """{cell: arm or None}: per cell of all_cells (the grid the search chose from), the arm
    that `rule` picks from its measured rows ({cell: [rows]}), None (the library's) where
    nothing was measured: what the tuning files say there (tune.Table's grid)."""
    picked = {cell: rule(rows) for cell, rows in measured.items() if rows}
    if any(isinstance(d, tune.Decision) for d in picked.values()):
        picked = settled_arms(picked, measured)
    return {cell: picked.get(cell) for cell in all_cells}


def tune_rule(rows):
    """`a2a tune`'s decision over these rows, before settle_defaults (a tune.Decision:
    choices settles it with the neighbouring cells)."""
    cands = [tune.Candidate(r) for r in rows]
    return tune.guard_default(tune.decide(cands), cands)


def settled_arms(picked, measured):
    """{cell: arm or None} of tune_rule's decisions {cell: Decision}, settled per context as
    `a2a tune` settles them (tune.settle_defaults); None: the library's default."""
    by_context = {}
    for (ctx, P, S), d in picked.items():
        by_context.setdefault(ctx, {})[(P, S)] = d
    out = {}
    for ctx, decisions in by_context.items():
        cells = {(P, S): [tune.Candidate(r) for r in measured[(ctx, P, S)]] for (P, S) in decisions}
        for (P, S), d in tune.settle_defaults(decisions, cells).items():
            out[(ctx, P, S)] = arm_of(d.winner.row) if d.winner.row is not None else None
    return out


def library_choice(cands):
    """The MPI library's own choice in a cell (vendor, vendor_algorithm 0), or None."""
    for arm in cands:
        if arm[0] == "vendor" and json.loads(arm[1]).get("vendor_algorithm", 0) in (0, "0", None):
            return arm
    return None


def regret(cell_cands, arm):
    """(regret, arm actually run) of choosing `arm` in a cell."""
    best = min(r["median_s"] for r in cell_cands.values())
    if arm not in cell_cands:
        arm = library_choice(cell_cands)
    if arm is None:
        return math.inf, None
    return cell_cands[arm]["median_s"] / best - 1, arm


def slower_than_default(cell_cands, arm, amplitude=0.0):
    """How much slower the choice `arm` runs than the library's default in a cell (its time
    over the default's - 1, both from the exhaustive rows) when it is slower beyond the
    noise: the results contract's noise of the two (the smaller) plus `amplitude` of each
    median (the noise a replay added to what the search saw); 0.0 otherwise, and in a cell
    without a default."""
    lib = library_choice(cell_cands)
    if lib is None or arm is None or arm == lib or arm not in cell_cands:
        return 0.0
    mine, default = cell_cands[arm], cell_cands[lib]
    t, t_default = mine["median_s"], default["median_s"]
    beyond = min(contract.noise([mine]), contract.noise([default])) + amplitude * (t + t_default)
    return t / t_default - 1 if t - t_default > beyond else 0.0


def evaluate(exhaustive, measured, rule):
    """{cell: (regret, arm)} of `rule` over `measured`."""
    picks = choices(measured, exhaustive, rule)
    return {cell: regret(exhaustive[cell], picks[cell]) for cell in exhaustive}
