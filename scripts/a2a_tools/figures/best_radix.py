"""`a2a best-radix`: the best radix per kernel, P, S and data set, next to sqrt(P), the
model-optimal radix and the baseline it is compared with (TRA paper's best-r tables); best,
baseline, speedup and noise as contract.py defines them. `noise_us` is the best
radix's noise (contract.noise: the spread between launches, or one launch's IQR);
`within_noise` lists the other radices whose median is within the smaller of their noise
and the best one's (as `a2a tune` decides; empty: the best beats the runner-up beyond the
noise), and `oversubscribed` says whether that P ran with more ranks than cores."""
import math

from . import analysis, model
from ..core import contract, options
from .analysis import data_label, other_params
from ..core.common import A2AError, fmt_size, write_rows

COLUMNS = ["run", "kernel", "P", "S", "dist", "best_radix", "params", "best_median_us",
           "sqrt_P", "model_radix", "baseline", "baseline_median_us", "speedup", "noise_us",
           "within_noise", "oversubscribed"]


def add_parser(sub, common):
    p = sub.add_parser(
        "best-radix", parents=[common["db"], common["select"]],
        help="table: best radix vs sqrt(P) vs model radix, with speedup over a baseline",
        description="Per tunable kernel, P, S and data set: the fastest radix and its median, "
                    "sqrt(P), the model-optimal radix (least K*alpha + D*S*beta) and the "
                    "baseline's median and the speedup over it, the best radix's noise (the "
                    "spread between launches when several launches measured it, else its IQR) "
                    "and the radices within the smaller noise of the two of it. "
                    "Without --run each kernel uses its newest run (with all launches of its "
                    "launch group).",
        epilog="example:  a2a best-radix --kernel tra --format markdown > results/best.md",
        formatter_class=common["formatter"])
    p.add_argument("--kernel", type=options.word_list, metavar="LIST",
                   help="tunable kernels (default: every kernel with a radix)")
    p.add_argument("--baseline", default=contract.DEFAULT_BASELINE,
                   help="kernel whose own choice is the baseline (default: %(default)s)")
    p.add_argument("--alpha", type=float, default=model.DEFAULT_ALPHA,
                   help="model seconds per round (default: %(default)g)")
    p.add_argument("--beta", type=float, default=model.DEFAULT_BETA,
                   help="model seconds per byte (default: %(default)g)")
    p.add_argument("--format", choices=("markdown", "csv", "table", "json"), default="markdown",
                   help="output format (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def rows_for(db, kernel, args):
    filters = options.select_filters(args)
    run_id, groups, _ = analysis.load(db, kernel, args.baseline, args.run, filters)
    out = []
    for g in groups:
        best = g.best
        tied = [r for r in g.verdict.tied_radices if r != best["radix"]]
        base = g.baseline["median_s"] if g.baseline else None
        speedup = g.speedup(best)
        out.append([
            run_id, kernel, g.P, g.S, data_label(g.data_key),
            best["radix"], other_params(best), best["median_s"] * 1e6, math.sqrt(g.P),
            None if analysis.two_level([g]) else model.optimal_radix(g.P, g.S, args.alpha,
                                                                     args.beta),
            args.baseline if base is not None else None,
            base * 1e6 if base is not None else None, speedup,
            contract.noise([best]) * 1e6, ",".join(str(r) for r in tied), g.oversubscribed])
    return out


def run(args, db, out=None):
    """Prints the table on out (default stdout)."""
    if args.kernel:
        kernels = args.kernel
    else:
        kernels = [r[0] for r in db.all("SELECT DISTINCT kernel FROM results WHERE status = 'ok'"
                                        " AND radix IS NOT NULL ORDER BY kernel")]
        if not kernels:
            raise A2AError("no ok results of a kernel with a radix in %s" % db.path)
    db.check_kernels([args.baseline])
    rows = []
    for k in kernels:
        rows += rows_for(db, k, args)
    rows.sort(key=lambda r: (r[1], r[4], r[2], r[3], r[0]))
    human = args.format in ("markdown", "table")
    digits = 2 if human else 4   # microseconds: 0.01 us in tables, 0.1 ns in csv/json
    rows = [[r[0], r[1], r[2], fmt_size(r[3]) if human else r[3], r[4], r[5], r[6],
             round(r[7], digits), round(r[8], digits), r[9], r[10],
             None if r[11] is None else round(r[11], digits),
             None if r[12] is None else round(r[12], digits), round(r[13], digits), r[14],
             ("yes" if r[15] else "no") if human else bool(r[15])] for r in rows]
    write_rows(COLUMNS, rows, args.format, out=out, float_format="%.2f")
    return 0
