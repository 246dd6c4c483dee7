"""`a2a online-candidates`: how well the online tuner's candidate list (A2A_TUNING=online)
covers the exhaustive data sets checked in under tests/data.

For every cell (data set, collective, distribution, P, S) the list is asked of the library
itself (`a2atune candidates --json`: kernels/tuned/online_candidates.c; no copy of the rule
here). The cell's best is the fastest median among the kernels the online tuner may run
(the MPI library, that is the data's vendor kernel with vendor_algorithm 0, and every
kernel needing neither node groups nor shared buffers); the cell is recalled when some
candidate has a measured median within --within of it. A candidate the data set did not
measure counts as missing, so recall is a lower bound; "upper" counts it as a hit instead
(the recall if every candidate never measured had been within --within), and the truth lies
between the two (--match radix takes a tuna row of the same radix, whatever its
block_count, for a tuna candidate: the data sets measured tuna at block_count 1 only).
The best is the fastest the data measured: a kernel the tuner may run but the data lack is
not in it. Per data set: cells, recall, upper, the mean number of candidates (what
exploring costs in candidates), the share of candidates the data measured, and the mean of
the measured candidates' medians summed over the best's (the calls of one round of every
candidate, in calls of the best)."""
import collections
import json
import os
import subprocess

from ..core import params
from . import tuner_suite
from ..core.common import A2AError

Dataset = collections.namedtuple("Dataset", "name sql part what")

# The data sets (part: "dev" / "held-out", the split of a first trial, fixed before any recall
# was computed; "later": made since, to judge tuna at block_count = radix - 1). The rule is
# now chosen leave-one-data-set-out (bench/candidates_rule_eval.py).
_SUITE = {d.name: d for d in tuner_suite.SUITE}
_PARTS = [("dragonfly-small", "dev"), ("dragonfly", "dev"), ("real-p2", "dev"), ("sim64", "held-out"),
          ("fattree-npot", "held-out"), ("torus-nonuniform", "held-out"),
          ("real-p2-noisy", "held-out")]
# the tuner's suite (its dragonfly with the P = 1024 rows too), then two more
DATASETS = [Dataset(name, _SUITE[name].sql + (["tests/data/tuner-dragonfly-memlink-1024.sql"]
                                              if name == "dragonfly" else []),
                    part, _SUITE[name].what) for name, part in _PARTS] + [
    Dataset("hierarchical-256", ["tests/data/sim-hierarchical-256.sql"], "held-out",
            "SimGrid, P = 256, tra / tuna at 9 radices + vendor"),
    Dataset("online-v64", ["tests/data/online-v64.sql"], "later",
            "SimGrid dragonfly, P = 64, alltoallv, tuna at block_count = radix - 1 + every kernel"),
]

COLLECTIVE = {"uniform": "alltoall", "nonuniform": "alltoallv"}


def add_parser(sub, common):
    """Registers `a2a online-candidates`."""
    p = sub.add_parser(
        "online-candidates",
        help="recall of the online tuner's candidate list on the exhaustive data sets",
        description=__doc__.split("\n\n", 1)[1].replace("\n", " "),
        epilog="example:\n  scripts/a2a online-candidates --before /tmp/a2atune-before "
               "--format markdown",
        formatter_class=common["formatter"])
    p.add_argument("--datasets", metavar="LIST",
                   help="only these data sets (default: all: %s)" %
                        ", ".join(d.name for d in DATASETS))
    p.add_argument("--sql", metavar="FILE", action="append",
                   help="instead of the data sets: this SQL dump (repeatable, loaded in order)")
    p.add_argument("--binary", metavar="A2ATUNE",
                   help="the a2atune whose list is judged (default: the built one)")
    p.add_argument("--before", metavar="A2ATUNE",
                   help="also judge this a2atune's list (another build) side by side")
    p.add_argument("--before-label", default="before", metavar="TEXT",
                   help="the column label of --before's build (default: %(default)s)")
    p.add_argument("--within", type=float, default=5.0, metavar="PCT",
                   help="a candidate within PCT %% of the cell's best recalls it (default: %(default)s)")
    p.add_argument("--match", choices=("exact", "radix"), default="exact",
                   help="exact: a candidate's parameters all measured; radix: a tuna "
                        "candidate matched by radix alone (default: %(default)s)")
    p.add_argument("--cells", action="store_true", help="also one line per cell")
    p.add_argument("--work", default=os.path.join("results", "online-candidates"), metavar="DIR",
                   help="where the data sets are loaded (default: %(default)s)")
    p.add_argument("--format", choices=("table", "markdown"), default="table",
                   help="output format (default: %(default)s)")
    p.set_defaults(func=run, needs_db=False)
    return p


def allowed_kernels():
    """{(family, kernel)} the online tuner may run: those needing no node groups or shared
    buffers (the registry of the built a2atune)."""
    return {(k["family"], k["name"]) for k in params.registry()["kernels"]
            if not k["needs_groups"] and not k["needs_shared"]}


def row_params(row):
    """The parameters of a results row, as a dict of ints (params JSON and the columns)."""
    out = {}
    if row["params"]:
        try:
            out.update({k: v for k, v in json.loads(row["params"]).items() if isinstance(v, int)})
        except ValueError:
            pass
    for col in ("radix", "block_count"):
        if row[col] is not None and col not in out:
            out[col] = row[col]
    return out


def load_cells(db_path, allowed):
    """{(collective, dist, P, S): [(kernel, params, median)]} of a loaded data set: the ok
    rows of the kernels allowed (vendor with vendor_algorithm 0 only), the newest run's row
    per kernel and parameters."""
    import sqlite3
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    rows = conn.execute("SELECT family, kernel, dist, P, S, radix, block_count, params, median_s, "
                        "run_id FROM results WHERE status = 'ok' AND median_s > 0 "
                        "ORDER BY run_id").fetchall()
    conn.close()
    cells = collections.defaultdict(dict)
    for r in rows:
        if r["family"] not in COLLECTIVE or (r["family"], r["kernel"]) not in allowed:
            continue
        p = row_params(r)
        if r["kernel"] == "vendor" and p.get("vendor_algorithm", 0) != 0:
            continue
        key = (COLLECTIVE[r["family"]], r["dist"], r["P"], r["S"])
        cells[key][(r["kernel"], tuple(sorted(p.items())))] = r["median_s"]
    return {k: [(kern, dict(pp), m) for (kern, pp), m in v.items()] for k, v in cells.items()}


def candidate_lists(binary, cells):
    """{(collective, P, S): [candidate dicts]} from `binary candidates --json`."""
    out = {}
    by_coll = collections.defaultdict(set)
    for coll, _, P, S in cells:
        by_coll[coll].add((P, S))
    for coll, shapes in by_coll.items():
        for P in sorted({p for p, _ in shapes}):
            Ss = sorted({s for p, s in shapes if p == P})
            cmd = [binary, "candidates", "--collective", coll, "--P", str(P),
                   "--S", ",".join(str(s) for s in Ss), "--json"]
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                raise A2AError("%s: %s" % (" ".join(cmd), res.stderr.strip() or
                                           "exit %d" % res.returncode))
            for shape in json.loads(res.stdout):
                out[(coll, shape["P"], shape["S"])] = shape["candidates"]
    return out


def measured_median(cand, rows, match):
    """The median the cell measured for candidate cand, or None."""
    best = None
    for kernel, p, median in rows:
        if kernel != cand["kernel"]:
            continue
        want = dict(cand["params"])
        if kernel == "vendor":
            ok = p.get("vendor_algorithm", 0) == 0
        elif match == "radix" and kernel == "tuna":
            ok = p.get("radix") == want.get("radix")
        else:
            ok = all(p.get(k, 0) == v for k, v in want.items())
        if ok and (best is None or median < best):
            best = median
    return best


def judge(cells, lists, within, match):
    """Per cell: (recalled, candidates, measured candidates, sum of measured medians / best,
    best kernel text, candidate texts, recalled if every unmeasured candidate were a hit)."""
    out = {}
    for key, rows in sorted(cells.items()):
        coll, _, P, S = key
        best_kernel, best_params, best = min(rows, key=lambda r: r[2])
        cands = lists[(coll, P, S)]
        medians = [measured_median(c, rows, match) for c in cands]
        known = [m for m in medians if m is not None]
        recalled = any(m <= best * (1 + within / 100.0) for m in known)
        text = best_kernel + "".join(" %s=%s" % kv for kv in sorted(best_params.items())
                                     if best_kernel != "vendor")
        out[key] = (recalled, len(cands), len(known), sum(known) / best, text,
                    [c["text"] for c in cands], recalled or len(known) < len(cands))
    return out


def summarise(judged):
    """(cells, recall %, upper recall %, mean candidates, % of candidates measured, mean
    cost)."""
    n = len(judged)
    if not n:
        return (0, 0.0, 0.0, 0.0, 0.0, 0.0)
    v = list(judged.values())
    return (n, 100.0 * sum(j[0] for j in v) / n, 100.0 * sum(j[6] for j in v) / n,
            sum(j[1] for j in v) / n,
            100.0 * sum(j[2] for j in v) / max(1, sum(j[1] for j in v)), sum(j[3] for j in v) / n)


def summary_columns(judged):
    """The table's columns of one build: recall, upper, candidates, measured, round cost."""
    _, recall, upper, ncand, known, cost = summarise(judged)
    return ["%.1f %%" % recall, "%.1f %%" % upper, "%.2f" % ncand, "%.0f %%" % known,
            "%.1f" % cost]


def cell_verdict(j):
    """recalled, MISSED (every candidate measured), or MISSED? when some candidate was
    never measured (it might have recalled the cell)."""
    if j[0]:
        return "recalled"
    return "MISSED? (%d of %d candidates unmeasured)" % (j[1] - j[2], j[1]) if j[6] else "MISSED"


def run(args, _db):
    binary = args.binary or params.binary()
    allowed = allowed_kernels()
    if args.sql:
        chosen = [Dataset(os.path.basename(args.sql[0]).rsplit(".", 1)[0], args.sql, "given", "")]
    else:
        names = args.datasets.split(",") if args.datasets else [d.name for d in DATASETS]
        unknown = [n for n in names if n not in {d.name for d in DATASETS}]
        if unknown:
            raise A2AError("unknown data set %s (known: %s)" % (
                ", ".join(unknown), ", ".join(d.name for d in DATASETS)))
        chosen = [d for d in DATASETS if d.name in names]
    builds = [(args.before_label, args.before)] if args.before else []
    builds.append(("now", binary))
    md = args.format == "markdown"
    head = ["data set", "part", "cells"]
    for label, _ in builds:
        head += ["recall (%s)" % label, "upper (%s)" % label, "candidates (%s)" % label,
                 "measured (%s)" % label, "round cost (%s)" % label]
    table, totals, cell_lines = [], collections.defaultdict(list), []
    for ds in chosen:
        suite_ds = tuner_suite.Dataset(ds.name, ds.sql, "", ds.what)
        cells = load_cells(tuner_suite.load_dataset(suite_ds, args.work), allowed)
        if not cells:
            raise A2AError("%s: no cell with a kernel the online tuner may run" % ds.name)
        line = [ds.name, ds.part, str(len(cells))]
        for label, b in builds:
            judged = judge(cells, candidate_lists(b, cells), args.within, args.match)
            totals[(ds.part, label)].append(judged)
            line += summary_columns(judged)
            if args.cells:
                for (coll, dist, P, S), j in judged.items():
                    cell_lines.append("%s %s %s %s P=%d S=%d: %s; best %s; %s" % (
                        ds.name, label, coll, dist, P, S, cell_verdict(j), j[4],
                        "; ".join(j[5])))
        table.append(line)
    for part in sorted({d.part for d in chosen}):
        line = ["all " + part, part, ""]
        for label, _ in builds:
            merged = {}
            for i, judged in enumerate(totals[(part, label)]):
                merged.update({(i,) + k: v for k, v in judged.items()})
            line[2] = str(len(merged))
            line += summary_columns(merged)
        table.append(line)
    if md:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for line in table:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(r[i]) for r in [head] + table) for i in range(len(head))]
        for r in [head] + table:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    for line in cell_lines:
        print(("- " if md else "") + line)
    return 0
