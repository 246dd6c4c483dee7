"""`a2a model`: K and D of tunable-radix all-to-all (TRA paper, Section III-A).

For P processes and radix r, block indices 0..P-1 are written with w = ceil(log_r P)
base-r digits; round (x, z), 0 <= x < w, 1 <= z < r, carries every block whose digit x
is z, and rounds that would carry nothing are not taken.
  K = rounds taken                         (Propositions 1 and 3)
  D = blocks one process sends in total     (Propositions 2 and 4)
The same integer arithmetic as kernels/common/radix_model.c, so the output of
`a2a model` equals `a2atune model` line for line. The model time of one call is
K * alpha + D * S * beta; the model-optimal radix minimises it over r = 2..P.
"""
import sys

from ..core import vlist
from ..core.common import A2AError, write_rows

DEFAULT_ALPHA = 1e-6   # seconds per round (latency)
DEFAULT_BETA = 1e-9    # seconds per byte (inverse bandwidth)


def digits(P, r):
    """w = ceil(log_r P): the smallest w >= 0 with r^w >= P (0 for P <= 1)."""
    if P <= 1:
        return 0
    if r < 2:
        raise ValueError("radix %d is below 2" % r)
    w, unit = 1, 1
    while unit <= (P - 1) // r:
        unit *= r
        w += 1
    return w


def round_blocks(P, r, x, z):
    """Proposition 4's h: how many i in [0, P) have base-r digit x equal to z."""
    if P <= 1 or x < 0 or x >= digits(P, r) or z < 1 or z >= r:
        return 0
    unit = r ** x
    groups = P // unit // r
    lc = groups * unit
    lgc = P - groups * r * unit
    t = lgc - z * unit
    if t <= 0:
        return lc
    return lc + unit if t >= unit else lc + t


def rounds(P, r):
    """K = w(r-1) - floor((r^w - P) / r^(w-1)) (Proposition 3; w(r-1) when P = r^w)."""
    if P <= 1:
        return 0
    w = digits(P, r)
    top_unit = r ** (w - 1)
    return (w - 1) * (r - 1) + (P + top_unit - 1) // top_unit - 1


def blocks(P, r):
    """D = sum over rounds of Proposition 4's h (w(r-1)r^(w-1) when P = r^w)."""
    if P <= 1:
        return 0
    total, unit = 0, 1
    for _ in range(digits(P, r)):
        groups = P // unit // r
        lc = groups * unit
        lgc = P - groups * r * unit
        total += (r - 1) * lc + lgc - min(lgc, unit)
        unit *= r
    return total


def model_time(P, r, S, alpha=DEFAULT_ALPHA, beta=DEFAULT_BETA):
    """K * alpha + D * S * beta, in seconds, for blocks of S bytes."""
    return rounds(P, r) * alpha + blocks(P, r) * S * beta


def optimal_radix(P, S, alpha=DEFAULT_ALPHA, beta=DEFAULT_BETA, radices=None):
    """The radix in radices (default 2..P) with the least model time; ties: the smaller."""
    if P < 2:
        return None
    best = None
    for r in (radices if radices is not None else range(2, P + 1)):
        t = model_time(P, r, S, alpha, beta)
        if best is None or t < best[0]:
            best = (t, r)
    return best[1]


def add_parser(sub, common):
    p = sub.add_parser(
        "model", parents=[common["format"]],
        help="K (rounds) and D (blocks) of the TRA model for (P, r)",
        description="K (rounds) and D (blocks sent per process) of tunable-radix all-to-all "
                    "(TRA paper, Propositions 1-4), for every P and radix asked for. Without "
                    "--S the table equals `a2atune model` line for line; with --S it adds the "
                    "model time K*alpha + D*S*beta and marks the model-optimal radix.",
        epilog="examples:  a2a model --P 16384 --radix 2,128\n"
               "           a2a model --P 64 --radix 2..P --S 1K --format csv",
        formatter_class=common["formatter"])
    p.add_argument("--P", "-P", required=True, metavar="LIST",
                   help="process counts, a value list: 16384 | 2..64:*2 | 4,8,16")
    p.add_argument("--radix", default="2..P", metavar="LIST",
                   help="radices, may use P: 2..P (default), 2,4,sqrt(P)")
    p.add_argument("--S", metavar="BYTES", help="block size for the model time, e.g. 1K")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                   help="seconds per round (default %(default)g)")
    p.add_argument("--beta", type=float, default=DEFAULT_BETA,
                   help="seconds per byte (default %(default)g)")
    p.set_defaults(func=run, needs_db=False, format="table")
    return p


def run(args, db=None):
    Ps = vlist.parse(args.P)
    S = None
    if args.S is not None:
        sizes = vlist.parse(args.S)
        if len(sizes) != 1 or sizes[0] < 0:
            raise A2AError("--S takes one block size in bytes, got '%s'" % args.S)
        S = sizes[0]
    rows = []
    for P in Ps:
        if P < 1:
            raise A2AError("model: P must be at least 1")
        radices = vlist.parse(args.radix, {"P": P, "Q": P, "N": 1, "world": P})
        for r in radices:
            if r < 2 or r > P:
                raise A2AError("model: radix %d is outside 2..P at P = %d" % (r, P))
        best = optimal_radix(P, S, args.alpha, args.beta, radices) if S is not None else None
        for r in radices:
            row = [P, r, digits(P, r), rounds(P, r), blocks(P, r)]
            if S is not None:
                row += [model_time(P, r, S, args.alpha, args.beta), "*" if r == best else ""]
            rows.append(row)
    if args.format == "table" and S is None:
        # exactly the layout of `a2atune model`
        sys.stdout.write("%10s %10s %4s %12s %16s\n" % ("P", "radix", "w", "K (rounds)", "D (blocks)"))
        for row in rows:
            sys.stdout.write("%10d %10d %4d %12d %16d\n" % tuple(row))
        return 0
    columns = ["P", "radix", "w", "K", "D"]
    if S is not None:
        columns += ["model_s", "optimal"]
    write_rows(columns, rows, args.format)
    if args.format == "table" and S is not None:
        sys.stdout.write("model_s = K * %g s + D * %d B * %g s/B; * marks the model-optimal radix"
                         " of each P\n" % (args.alpha, S, args.beta))
    return 0
