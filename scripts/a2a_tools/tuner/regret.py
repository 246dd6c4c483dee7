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
from ..core.common import A2AError


def context_of(row):
    """Everything that shapes the exchange except P and S."""
    return (row["family"], row["dist"], row["dist_params"] or "{}", row["payload"],
            row["datatype"], row["gap"])


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
    """{cell: arm or None}: per cell of all_cells, the arm that `rule` picks from the
    measured rows ({cell: [rows]}), spread to unmeasured cells as the tuning files do."""
    picked = {cell: rule(rows) for cell, rows in measured.items() if rows}
    out = {}
    by_context = {}
    for (ctx, P, S) in picked:
        by_context.setdefault(ctx, {}).setdefault(P, []).append(S)
    # the ranges of the measured P of each context and of the measured S of each of its P
    p_ranges = {ctx: tune.p_bounds(sorted(by_p)) for ctx, by_p in by_context.items()}
    s_ranges = {(ctx, P): list(zip(sorted(sizes), tune.s_bounds(sorted(sizes))))
                for ctx, by_p in by_context.items() for P, sizes in by_p.items()}
    for cell in all_cells:
        ctx, P, S = cell
        # the measured P whose range (up to the next measured P) holds P
        owner = None
        for lo, hi in p_ranges.get(ctx, []):
            if lo <= P <= hi:
                owner = lo
        if owner is None:
            out[cell] = None
            continue
        for s, (lo, hi) in s_ranges[(ctx, owner)]:
            if lo <= S and (hi is None or S <= hi):
                out[cell] = picked[(ctx, owner, s)]
    return out


def tune_rule(rows):
    """`a2a tune`'s decision over these rows."""
    return arm_of(tune.decide([tune.Candidate(r) for r in rows]).winner.row)


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


def evaluate(exhaustive, measured, rule):
    """{cell: (regret, arm)} of `rule` over `measured`."""
    picks = choices(measured, exhaustive, rule)
    return {cell: regret(exhaustive[cell], picks[cell]) for cell in exhaustive}
