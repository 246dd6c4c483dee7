#!/usr/bin/python3
"""tuna_ratios.py — the ratio table of sweeps/bench/tuna.ini: TuNA against its own floor.

For every P and S of the newest run of the sweep in a database (or --run ID): the median
time (microseconds, each sample the maximum over ranks) of tuna at radix P and of
spread_out, and of tuna at radix 2 and of twophase_bruck, and the ratios
tuna(r=P) / spread_out and tuna(r=2) / twophase_bruck, one column per distribution.
With --before DB (a run of the same sweep with older code), also the ratios there.
With several databases (repeated launches), each ratio is the median over them.
Rows with P above the cores of the machine are marked oversubscribed (*).

  bench/tuna_ratios.py --db results/bench.db [--before old.db] [--target 1.05]

Exit status: 0, or 2 for a missing database or a database without the sweep's rows.
"""
import argparse
import os
import statistics
import sqlite3
import sys

KERNELS = ("tuna", "spread_out", "twophase_bruck")


def load(path, run):
    """{(kernel, radix or None, P, S, dist): (median_s, oversubscribed)} of one run."""
    if not os.path.exists(path):
        print(f"tuna_ratios: {path}: no such database", file=sys.stderr)
        sys.exit(2)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    if run is None:
        row = db.execute("SELECT max(run_id) FROM results WHERE family = 'nonuniform' AND "
                         "kernel = 'tuna' AND section LIKE 'tuna_floor%'").fetchone()
        run = row[0]
    if run is None:
        print(f"tuna_ratios: {path}: no run of sweeps/bench/tuna.ini", file=sys.stderr)
        sys.exit(2)
    rows = db.execute("SELECT kernel, radix, P, S, dist, median_s, oversubscribed FROM results "
                      "WHERE run_id = ? AND section LIKE 'tuna_floor%' AND status = 'ok'",
                      (run,)).fetchall()
    out = {}
    for kernel, radix, P, S, dist, median, over in rows:
        if kernel in KERNELS:
            out[(kernel, radix if kernel == "tuna" else None, P, S, dist)] = (median, over)
    return run, out


def ratio(runs, P, S, dist, radix, baseline):
    """Median over the runs of tuna / baseline, or None."""
    values = []
    for data in runs:
        t = data.get(("tuna", radix, P, S, dist))
        b = data.get((baseline, None, P, S, dist))
        if t and b and b[0]:
            values.append(t[0] / b[0])
    return statistics.median(values) if values else None


def median_time(runs, key):
    values = [data[key][0] for data in runs if key in data]
    return statistics.median(values) if values else None


def size_text(S):
    return f"{S // 1024}K" if S >= 1024 and S % 1024 == 0 else str(S)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", nargs="+", default=["results/bench.db"],
                    help="one or more databases (the median over them)")
    ap.add_argument("--run", type=int, help="run id (with one --db)")
    ap.add_argument("--before", nargs="+",
                    help="databases of the same sweep with older code (newest run each)")
    ap.add_argument("--target", type=float, default=1.05,
                    help="mark ratios above this (default 1.05)")
    args = ap.parse_args()
    loaded = [load(path, args.run) for path in args.db]
    runs = [data for _, data in loaded]
    before = [load(path, None)[1] for path in args.before] if args.before else None
    dists = sorted({k[4] for data in runs for k in data})
    cells = sorted({(k[2], k[3]) for data in runs for k in data if k[0] == "tuna"})
    if not cells:
        print(f"tuna_ratios: {' '.join(args.db)}: no ok tuna rows", file=sys.stderr)
        sys.exit(2)

    def fmt(x):
        if x is None:
            return "-"
        return f"{x:.2f}" + ("!" if x > args.target else "")

    head = ["P", "S"]
    for name in ("r=P/spread_out", "r=2/twophase"):
        for d in dists:
            head.append(f"{name} {d}")
            if before:
                head.append("before")
    head += [f"tuna r=P us ({dists[0]})", f"spread_out us", f"tuna r=2 us", "twophase us"]
    where = ", ".join(f"{path} run {run}" for path, (run, _) in zip(args.db, loaded))
    print(f"# {where}: ratios of medians (each sample the max over ranks)"
          f"{', median over the databases' if len(runs) > 1 else ''}; "
          f"! above {args.target}; * oversubscribed")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for P, S in cells:
        over = any(v[1] for data in runs for k, v in data.items() if k[2] == P and k[3] == S)
        row = [f"{P}{'*' if over else ''}", size_text(S)]
        for radix, base in ((P, "spread_out"), (2, "twophase_bruck")):
            for d in dists:
                row.append(fmt(ratio(runs, P, S, d, radix, base)))
                if before:
                    row.append(fmt(ratio(before, P, S, d, radix, base)))
        d = dists[0]
        for kernel, radix in (("tuna", P), ("spread_out", None), ("tuna", 2),
                              ("twophase_bruck", None)):
            v = median_time(runs, (kernel, radix, P, S, d))
            row.append(f"{v * 1e6:.1f}" if v is not None else "-")
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
