#!/usr/bin/python3
"""online_table.py — the online tuner's targets (issue: A2A_TUNING=online) as a markdown
table, from the JSON lines that sweeps/bench/online_bench.py --record wrote.

    sweeps/bench/online_table.py tests/data/online-sim.jsonl > docs/results/online-sim.md

The text above the table (how the records were made) is part of this script.

One row per shape (platform, P, collective, S): the candidate the online run chose and the
call it ran from, the exhaustive best of the same candidates run fixed from the start, and
the three targets: the choice within 5 % of the best per-call median; the online run's
total all-to-all time / the best fixed run's (<= 1.10) and, where the best beats the MPI
library, below the MPI library's; the second run (reading the written file) / the best
fixed run's (<= 1.02). Totals are simulated and extrapolated to `target` calls as the
record says; the last column is the CPU time (user + system) the online run's simulation took.
"""
import json
import sys

HEAD = """| platform, selector | P | call | S | online chose (from call; calls exploring) | exhaustive best | chosen / best per call | online / best fixed | MPI library / best fixed | second run / best fixed | targets met | CPU s (online run) |
|---|---|---|---|---|---|---|---|---|---|---|---|"""


INTRO = """# Online tuning under SimGrid: the issue's targets

Made by `sweeps/bench/online_table.py tests/data/online-sim.jsonl`, from the records of
`sweeps/bench/online_bench.py --record` (simulated: SimGrid 3.32 SMPI, deterministic; the
machine that simulated them was shared, which changes the CPU seconds, not the times).
Each record is one shape: the loop `sweeps/bench/online_loop` (A2A_Alltoall, or
A2A_Alltoallv with blocks of S/2..S bytes) under `A2A_TUNING=online` with the default
`A2A_TUNING_EXPLORE` (120), the MPI library alone, every candidate of the online run fixed
from the start by a one-rule tuning file, and a second run reading the file the online run
wrote. The MPI library is SimGrid's model of MPICH's choice of algorithm
(`--cfg=smpi/coll-selector:mpich`), not SMPI's default ring; the SMPI collectives the
tuner itself uses (allreduce and the like) as `a2a simulate` sets them; kernel copies charged by the copy
model `1024:108.4,16384:116.7,262144:95.3,1048576:41.48,16777216:23.39` (GB/s by size).

Totals are of 1,000 calls, extrapolated: the online run simulates `calls` calls and adds
(1000 - calls) x the mean per-call time of its calls after the decision; a fixed run
simulates `calls_fixed` calls, and those within 10 % of the best, the MPI library and the
second run `calls_best`, adding (1000 - calls) x the mean of their last half.

"""


def size_text(S):
    """16 -> '16 B', 1024 -> '1 KiB'."""
    return "%d KiB" % (S // 1024) if S >= 1024 and S % 1024 == 0 else "%d B" % S


def judge(rec):
    """The row's figures and which targets hold: (cells, [choice, total, below library,
    second run])."""
    fixed = rec["fixed"]
    best = min(fixed, key=lambda k: (fixed[k][1], fixed[k][0]))
    best_total = min(v[0] for v in fixed.values())
    lib_total = rec["library"][0]
    total, chosen, at, explored = rec["online"][:4]
    per_call = fixed[chosen][1] / fixed[best][1] if chosen in fixed else float("inf")
    ok = [per_call <= 1.05,
          total / best_total <= 1.10,
          best_total >= lib_total or total < lib_total,
          rec["again"][0] / best_total <= 1.02]
    met = ", ".join(n for n, good in zip(("choice", "total", "below library", "second"), ok)
                    if not good)
    cells = [rec["label"], rec["P"], rec["coll"], size_text(rec["S"]),
             "%s (%d; %d)" % (chosen, at, explored), "%s %.4g us" % (best, fixed[best][1]),
             "%.3f" % per_call, "%.3f" % (total / best_total), "%.3f" % (lib_total / best_total),
             "%.3f" % (rec["again"][0] / best_total), "all" if not met else "missed: " + met,
             "%.0f" % rec["online"][4]]
    return cells, ok


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: online_table.py RECORDS.jsonl")
    recs = []
    with open(sys.argv[1]) as f:
        for n, line in enumerate(f, 1):
            try:
                recs.append(json.loads(line))
            except ValueError as e:
                sys.stderr.write("%s:%d: not a JSON record (%s)\n" % (sys.argv[1], n, e))
                sys.exit(2)
    recs.sort(key=lambda r: (r["label"], r["P"], r["coll"], r["S"]))
    print(INTRO + HEAD)
    counts = [0, 0, 0, 0]
    for rec in recs:
        cells, ok = judge(rec)
        counts = [c + o for c, o in zip(counts, ok)]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print("\n%d shapes: the choice within 5 %% of the exhaustive best in %d; total <= 1.10x the "
          "best fixed in %d; below the MPI library where the best is in %d; second run "
          "<= 1.02x in %d." % (len(recs), *counts))
    calls = sorted({(r["label"], r["P"], r["calls"], r["calls_fixed"], r["calls_best"], r["target"])
                    for r in recs})
    print("\nCalls run (online; fixed; near the best, MPI library and second run) -> totals "
          "of:\n")
    for c in calls:
        print("- %s, P = %d: %d; %d; %d -> %d" % c)


if __name__ == "__main__":
    main()
