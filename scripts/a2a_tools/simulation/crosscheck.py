"""`a2a crosscheck`: does a simulation rank the kernels as the machine it models does?

The same sweep measured for real (e.g. `mpirun -n 2 ./a2atune run
sweeps/paper/crosscheck_p2.ini`) and simulated on a platform calibrated to that machine
(`a2a simulate sweeps/paper/crosscheck_p2.ini --platform platforms/local.xml`). Per cell
(family, distribution, P, S) with S at least --min-S, over the candidates (kernel and
parameters) present in both databases:

- the winner: the real fastest and the simulated fastest; they agree when they are the
  same candidate, and tie when the simulated winner is within the real noise of the real
  one (the real measurements cannot tell them apart);
- the pairwise order: every pair of candidates whose real medians differ by more than
  their noise is decided; the simulation agrees on it when it orders the pair the same way.

The real noise of a candidate is the spread of its launch medians when several runs
measured it, else its interquartile range (`contract.noise`). The `vendor` kernels are
left out: in a simulation they are SMPI's algorithms (a2a simulate --vendor), not the
real library's, so the two rows measure different algorithms.
"""
import itertools
import json
import statistics

from ..core import contract
from ..core.common import A2AError, fmt_seconds, fmt_size, write_rows
from ..core.db import open_db


def add_parser(sub, common):
    """Registers `a2a crosscheck`."""
    p = sub.add_parser(
        "crosscheck",
        help="agreement of a simulated ranking of kernels with a real one (same sweep)",
        description="Per (family, distribution, P, S), S >= --min-S: the real and the "
                    "simulated winner among the candidates in both databases (a tie when "
                    "the simulated winner is within the real noise of the real one) and the "
                    "share of the pairs the real measurements decide (medians apart by more "
                    "than the noise) that the simulation orders the same way. The vendor kernels "
                    "are left out (simulated, they are SMPI's algorithms).",
        epilog="example:\n  a2a crosscheck --real results/crosscheck-real.db "
               "--simulated results/crosscheck-sim.db",
        formatter_class=common["formatter"])
    p.add_argument("--real", required=True, metavar="DB", help="database of the real runs")
    p.add_argument("--simulated", required=True, metavar="DB",
                   help="database of the simulation (a2a simulate) of the same sweep")
    p.add_argument("--min-S", type=int, default=4096, dest="min_S", metavar="BYTES",
                   help="smallest S compared (default: %(default)s)")
    p.add_argument("--format", choices=("table", "csv", "json", "markdown"), default="table",
                   help="format of the per-cell table (default: %(default)s)")
    p.set_defaults(func=run, needs_db=False)
    return p


def load_candidates(db, simulated, min_S):
    """{(family, dist, P, S): {(kernel, params JSON): (median_s, noise_s)}} from the ok
    rows of the real (simulated False) or simulated runs of db: the median of the
    candidate's run medians and its noise."""
    backend = "= 'simgrid'" if simulated else "IS NOT 'simgrid'"
    rows = db.all("SELECT r.* FROM results r JOIN runs u ON u.id = r.run_id WHERE r.status = 'ok'"
                  " AND r.median_s > 0 AND r.family IN ('uniform', 'nonuniform') AND r.S >= ?"
                  " AND r.kernel != 'vendor'"
                  " AND IFNULL(u.backend, 'mpi') %s ORDER BY r.run_id, r.id" % backend,
                  (min_S,))
    if not rows:
        raise A2AError("%s: no ok %s uniform or non-uniform results with S >= %d"
                       % (db.path, "simulated" if simulated else "real", min_S))
    by_candidate = {}
    for r in rows:
        r = dict(r)
        r["noise_s"] = r["q3_s"] - r["q1_s"] if r["q3_s"] is not None else 0.0
        params = json.loads(r["params"] or "{}")
        cell = (r["family"], r["dist"], r["P"], r["S"])
        by_candidate.setdefault(cell, {}).setdefault(
            (r["kernel"], json.dumps(params, sort_keys=True)), []).append(r)
    return {cell: {arm: (statistics.median(x["median_s"] for x in same), contract.noise(same))
                   for arm, same in arms.items()}
            for cell, arms in by_candidate.items()}


def name_of(arm):
    """'tra radix=2' for (kernel, params JSON); vendor_algorithm = 0 left out."""
    kernel, params = arm
    shown = ["%s=%s" % kv for kv in sorted(json.loads(params).items())
             if not (kv[0] == "vendor_algorithm" and kv[1] == 0)]
    return " ".join([kernel] + shown)


def compare(real, sim):
    """Per common cell: a dict of the winners, their verdict and the pair counts."""
    out = []
    for cell in sorted(set(real) & set(sim)):
        arms = sorted(set(real[cell]) & set(sim[cell]))
        if len(arms) < 2:
            continue
        r, s = real[cell], sim[cell]
        real_best = min(arms, key=lambda a: r[a][0])
        sim_best = min(arms, key=lambda a: s[a][0])
        gap = r[sim_best][0] - r[real_best][0]
        verdict = ("agree" if sim_best == real_best else
                   "tie" if gap <= max(r[sim_best][1], r[real_best][1]) else "differ")
        decided = agreeing = 0
        for a, b in itertools.combinations(arms, 2):
            if abs(r[a][0] - r[b][0]) <= max(r[a][1], r[b][1]):
                continue
            decided += 1
            agreeing += (r[a][0] < r[b][0]) == (s[a][0] < s[b][0])
        out.append({"family": cell[0], "dist": cell[1], "P": cell[2], "S": cell[3],
                    "candidates": len(arms), "real_best": name_of(real_best),
                    "real_s": r[real_best][0], "sim_best": name_of(sim_best),
                    "sim_s": s[sim_best][0], "winner": verdict,
                    "sim_best_real_slowdown": gap / r[real_best][0],
                    "pairs_decided": decided, "pairs_agree": agreeing})
    if not out:
        raise A2AError("the two databases have no cell (family, dist, P, S) with two "
                       "candidates in common")
    return out


def run(args, db):
    del db
    real_db, sim_db = open_db(args.real), open_db(args.simulated)
    try:
        cells = compare(load_candidates(real_db, False, args.min_S),
                        load_candidates(sim_db, True, args.min_S))
    finally:
        real_db.conn.close()
        sim_db.conn.close()
    header = ["family", "dist", "P", "S", "n", "real fastest", "real", "simulated fastest",
              "sim", "winner", "its real slowdown", "pairs agree/decided"]
    rows = [[c["family"], c["dist"], str(c["P"]), fmt_size(c["S"]), str(c["candidates"]),
             c["real_best"], fmt_seconds(c["real_s"]), c["sim_best"], fmt_seconds(c["sim_s"]),
             c["winner"], "%+.1f %%" % (100 * c["sim_best_real_slowdown"]),
             "%d/%d" % (c["pairs_agree"], c["pairs_decided"])] for c in cells]
    if args.format == "json":
        print(json.dumps(cells, indent=1))
    else:
        write_rows(header, rows, args.format)
    agree = sum(c["winner"] == "agree" for c in cells)
    tie = sum(c["winner"] == "tie" for c in cells)
    decided = sum(c["pairs_decided"] for c in cells)
    same = sum(c["pairs_agree"] for c in cells)
    print("winners: %d of %d cells agree, %d more within the real noise; pairwise order: %d of "
          "%d pairs the real runs decide (%.0f %%)" % (
              agree, len(cells), tie, same, decided, 100.0 * same / decided if decided else 0))
    return 0
