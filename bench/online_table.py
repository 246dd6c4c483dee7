#!/usr/bin/python3
"""online_table.py — the online tuner's targets (issue: A2A_TUNING=online) as a markdown
table, from the JSON lines that bench/online_bench.py --record wrote.

    bench/online_table.py tests/data/online-sim.jsonl tests/data/online-apps-sim.jsonl \
        --before tests/data/online-sim-per-candidate.jsonl \
        --apps-before tests/data/online-apps-sim-240.jsonl \
        --explore tests/data/online-sim-explore.jsonl \
        --explore tests/data/online-apps-sim-explore.jsonl \
        --real tests/data/online-real-p2.jsonl > docs/results/online-sim.md

The text above the table (how the records were made) is part of this script.

One row per shape (platform, P, collective, S; a shape recorded again: its last record,
as for the applications' rows): the candidate the online run chose and the
call it ran from, the exhaustive best of the same candidates run fixed from the start, and
the three targets: the choice within 5 % of the best per-call median; the online run's
total all-to-all time / the best fixed run's (<= 1.10) and, where the best beats the MPI
library, below the MPI library's; the second run (reading the written file) / the best
fixed run's (<= 1.02). Totals are simulated and extrapolated to `target` calls as the
record says; the last column is the CPU time (user + system) the online run's simulation took.

The second file (optional) holds the records of bench/app_online_bench.py --record:
the applications (`a2atune app tc|fft --kernel tuned`), one row per application, workload
and A2A_TUNING_EXPLORE, with the whole run's all-to-all time against the best kernel fixed
for every call, the MPI library's, and a second run's.

--before FILE: records of the same shapes made by an earlier online tuner (the page's: the
tuner of one reduction per candidate and round); a table puts each shape's choice and ratios
before and after side by side, and a paragraph says what moved (the choices, the calls
exploring, the totals, the second runs, the targets met). --apps-before FILE does the same for the applications' records.

--explore FILE (repeatable): records of the shapes or of the applications (either tool's)
made at other A2A_TUNING_EXPLORE values. A last section compares the values: per shape and
application row, at each value it has, the choice / best per call, online / best fixed,
second run / best fixed and the targets met; per value the targets met and the geometric
means of the ratios; and the value that EXPLORE_RULE picks, applied to these records.
"""
import json
import math
import re
import sys

HEAD = """| platform, selector | P | call | S | online chose (from call; calls exploring) | exhaustive best | chosen / best per call | online / best fixed | MPI library / best fixed | second run / best fixed | targets met | CPU s (online run) |
|---|---|---|---|---|---|---|---|---|---|---|---|"""


INTRO = """# Online tuning under SimGrid: the issue's targets

Made by `bench/online_table.py tests/data/online-sim.jsonl
tests/data/online-apps-sim.jsonl --before tests/data/online-sim-per-candidate.jsonl
--apps-before tests/data/online-apps-sim-240.jsonl --explore tests/data/online-sim-explore.jsonl
--explore tests/data/online-apps-sim-explore.jsonl --real tests/data/online-real-p2.jsonl`,
from the records of
`bench/online_bench.py --record` (simulated: SimGrid 3.32 SMPI, deterministic; the
machine that simulated them was shared, which changes the CPU seconds, not the times).
Each record is one shape: the loop `bench/online_loop` (A2A_Alltoall, or
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
second run `calls_best`, adding (1000 - calls) x the mean of their last half. The online
and second runs below were made by the online tuner as it is now
(docs/tuning-files.md: round 0 of a shape's exploration, every candidate's two calls, ends
with one reduction; rounds 1 and 2 with one per candidate), by
`bench/online_remake.sh shapes` (the launches of the table's precisions below); their
MPI library and fixed runs, which the online tuner does not touch, were simulated for the
records of `tests/data/online-sim-two-rounds.jsonl` and are reused since
(`online_bench.py --reuse`): this re-make read them from
`tests/data/online-sim-race.jsonl` (`online_remake.sh`'s default source, the records'
`reused`), which the page no longer shows otherwise.

"""


OUTRO = """
**Extrapolation checked** (dragonfly.xml, P = 256, alltoall 16 B, with the online tuner of
two rounds: what it checks is the extrapolation, not the tuner): the same online run
simulated for all 1,000 calls. Its first 200 calls are those of the 200-call run; the sum of
its per-call times (max over ranks) is 23.829 ms against 23.816 ms extrapolated from 200
calls (0.05 %). Per 100 calls after the decision the mean is 21.85 .. 22.15 us: constant but
for the monitoring window (one call of ~42 us every ~300 calls, its MPI_Allreduce). The
loop's own total (the largest per-rank sum) of the 1,000-call run is 23.05 ms, 1.068x the
best fixed run's extrapolated 21.59 ms, against 1.092 from the per-call maxima
extrapolated: the table's figure is the conservative one.

**Alltoallv's agreement on S**: an online alltoallv call is keyed by its largest block,
which the ranks agree on with one MPI_Allreduce (their own blocks differ); at P = 64, 16 B
that reduction is ~4.9 us of a ~25 us call (tuna fixed by a file whose choice depends on
S costs 29.66 us a call, by a one-rule file 24.79 us). The dispatcher agrees per call only
without a prediction: a call's shape is predicted from the period of the calls' S buckets
(here one S: the last call's); a shape exploring runs its calls on it, checked by the
reduction that gathers the round's times (round 0's, or in rounds 1 and 2 its candidate's), and a decided shape runs its winner
(or, the choices repeating, the predicted choice), checked with one MPI_Allreduce per
window of 8..64 calls (kernels/tuned/speculate.c), from the call it decided at
(docs/tuning-files.md).
The longest window bounds how late a new S is seen; at P = 64, 16 B the checks of windows
up to 16, 32 and 64 calls added 0.70, 0.40 and 0.26 us a call to a second run: a bound of
32 calls would cost 0.14 us a call more than 64, 3 % of what deferral saves, so the longest
window stays 64. The alltoallv rows run the MPI library, the second run and the candidates
near the best 64 calls (`--calls-best 64`), which shows the windows up to 64 calls.

**Not run, and why** (CPU seconds of one simulation on the shared 2-core machine, where a
simulation got 5-50 % of a core):

- P = 1024: the candidates posting P - 1 messages at once (spread_out, scattered) cost
  ~P^4 CPU under SimGrid 3.32 (its list of in-flight detached sends is scanned at every
  completion). At P = 256, 16 B a 2-call run of either took 11-12 s CPU; x 256 gives
  ~20-25 min CPU a call at P = 1024, and the online run spends at least 2 calls on each,
  the exhaustive comparison 2 more. The cheap candidates at P = 1024 (dragonfly, 16 B,
  4 calls, whole run with start-up): bruck 6.8 s, tra radix 2 7.2 s, tra radix 4 9.1 s,
  the MPI library 7.4 s CPU; there tra radix 4 (190 us a call, mean of 4) beats the MPI
  library (250 us). Alltoallv at P = 1024, 16 B on dragonfly.xml: 2 calls of the MPI
  library alone took 162 s CPU (397 s wall beside other simulations; 918.6 us a call
  simulated), ~78 s CPU a call against ~1.0 s at P = 256 (its 64 calls: 68 s): x 78 for
  4x the ranks, ~P^3.1. At that ratio the P = 256 alltoallv row's launches (measured with
  the online tuner of two rounds: online run 212 s, MPI library 68 s, the other fixed
  candidates' 2 calls 45 s, the second run and tuna radix=4's 64 calls 21 s: 346 s CPU)
  become ~4.6 h, ~1.5 h, ~1.0 h and ~0.5 h: ~7.5 h CPU for one shape, ~15 h of wall time
  at the half core a simulation gets on this shared machine. The candidates with P - 1 messages in flight grow faster: 2 calls of fixed
  spread_out at P = 1024 had not ended after 25 min of wall time alone under the benchmark
  lock (~24 min CPU; ~4 s a call at P = 256): over 12 min CPU a call, x 180 or more for 4x
  the ranks (~P^3.75 and up); at ~P^4 for those candidates one shape is ~25 h CPU. Not run.
  The fixed runs without them are recorded for a later online run to reuse
  (`tests/data/online-sim-large-fixed.jsonl`, `online_bench.py --fixed-only`, dragonfly.xml,
  maxmin/precision 1e-2, under the benchmark lock on the shared machine; per-call medians,
  CPU of the launch). Alltoall, 16 B: the MPI library 228.1 us (16 calls, 18.7 s), bruck
  and tra radix 2 240.2 us, tra radix 4 174.5 us (16 calls, 17.7 s; 184.6 us over 2), 8
  220.9 us, 16 194.2 us and 32 203.0 us (16 calls, 29 and 43 s), 2-5 s CPU for 2 calls:
  tra radix 4 is 0.77x the MPI library. Alltoallv, 16 B: the MPI library 918.8 us (8 calls,
  658 s), twophase_bruck 230.6 us and tuna radix 2 230.0 us (5-6 s), tuna radix 4
  block_count 3 168.0 us (16 calls, 145 s), radix 8 213.8 us (2 calls, 109 s), radix 16
  167.8 us (2 calls, 195 s; its 16 calls not run, ~90 s CPU a call): tuna radix 4 and 16
  are 0.18x the MPI library. Tuna radix 32 not run (the CPU of 2 calls had grown x4 a
  radix doubling up to radix 8: ~25 min at radix 32 by that trend). They hold no
  spread_out, scattered or pairwise run, and an online run's first round gives each of
  these two calls: spread_out's alone had not ended after ~24 min CPU, so one online run
  takes more than 45 min CPU, over the 30 min the re-make of this table could give it.
- P = 256 at 1 KiB and 16 KiB on dragonfly.xml (2 calls each, measured first, under the
  benchmark lock on the shared machine, maxmin/precision 1e-2): the MPI library 4.2 s CPU
  at 1 KiB (521 us a call simulated) and 12.7 s at 16 KiB (7.1 ms a call); fixed scattered
  block_count=32 at 1 KiB 132 s CPU (478.5 us a call: faster than the MPI library, so
  among the candidates an online run keeps past its first round, ~15 calls, ~17 min CPU);
  fixed spread_out at 1 KiB aborts SimGrid 3.32 ("The Impossible Did Happen", Model.cpp:99,
  in its first call: after 83 s CPU at 1e-2, 416 s at 1e-3): the solver leaves a flow with
  no bandwidth when every link of its route has less than maxmin/precision of its bandwidth
  left ([simulation.md](../simulation.md#when-a-configuration-crashes-or-hangs)). The online
  run explores spread_out, so the shape cannot be simulated as the others were. Not run.
  Its fixed runs are recorded (`tests/data/online-sim-large-fixed.jsonl`, as at P = 1024
  above): alltoall, 1 KiB, the MPI library 521.5 us a call (16 calls, 46 s CPU), scattered
  block_count=32 478.5 us (2 calls, 326 s CPU), tra radix 16 579.8 us, 32 691.9 us,
  pairwise 771.3 us, tra radix 4 947.1 us, 8 974.5 us, 64 1065 us, bruck and tra radix 2
  1150 us (0.4-3 s CPU each); spread_out recorded as failed (the abort, after 122 s CPU).
  Scattered's 16 calls were not run (~2.7 min CPU a call), nor the 16 KiB shape.
  Alltoallv, 1 KiB: the MPI library 407.7 us (16 calls, 55 s CPU), tuna radix 8
  block_count 7 507.7 us, radix 4 507.9 us, pairwise 646.8 us, tuna radix 2 872.8 us,
  twophase_bruck 874.1 us (2 calls, 0.6-2.5 s CPU); tuna radix 16 and 32 recorded as
  failed: SimGrid's abort of spread_out at 1e-2, in 1-2 s CPU. At 1e-3 they run, and are the
  fastest measured (2 calls, outside the record: radix 16 316.8 us, 0.78x the MPI library;
  32 390.4 us): this shape needs maxmin/precision 1e-3 (radix 4 and 64 gave the same times
  at both), and its record, made at 1e-2, lacks them; scattered, linear and spread_out not
  run. (An earlier
  session's 8 calls of the MPI library at 1 KiB had taken 140 s CPU and not ended after
  18 min wall.) On
  torus_tofud.xml at 1 KiB, 2 calls of the MPI library alone (2070 us a call, simulated)
  took 3.5 min wall beside another simulation: the online run's 200 calls, hours.
- torus_tofud.xml at P = 256 ran at 16 B only (the table): with maxmin/precision 1e-3
  spread_out crashed SimGrid there (signal 11: the online run, which explores it, 3 times
  of 3); with `a2a simulate`'s 1e-2, which online_bench.py now gives an smpirun launch
  that sets none, every launch ended. CPU: the online run 161 s (spread_out and scattered
  out after their first sample; 177 s with one reduction per candidate and round, 617 s
  when the online tuner of two rounds ran their probes), fixed spread_out 138 s and
  scattered 20 s for 2 calls, every other launch 1-2 s. The online run keeps the MPI
  library (the comparison above), whose calls after the decision average 69.33 us against
  its fixed run's per-call median of 63.46 us and tra radix=4's 62.42 us (16 calls; both
  extrapolated to 1,000 calls, not simulated so long): online / best fixed 1.097. The tuner
  before chose tra radix=4, whose calls after the decision averaged 61.28 us: 0.973, below
  1.
- The alltoallv loop (`online_loop S CALLS v`) ran at P = 64 on dragonfly.xml and at
  P = 256, 16 B on dragonfly.xml (the table), not on torus_tofud.xml. At P = 64, 1 KiB the
  online tuner of `tests/data/online-sim-race.jsonl` chose spread_out (1.069x linear's
  per-call time) while every exploring call agreed on S first: that reduction starts each
  call with the ranks in step, which linear pays for
  (47.4 us a call so, 39.7 us in its own steady state), whatever ran before it. Exploring on
  the predicted S (the online tuner of 4e060da, one reduction per candidate and round),
  linear's calls of a round took 47.4 us (after the reduction before them), 44.3, 40.0,
  39.7 us ..., a median of 39.8 us, and linear was chosen; the table's record (round 0's one
  reduction) has linear's exploring median at 39.8 us again (noise 4.5), and linear
  chosen.

**Alltoallv at P = 256 on dragonfly.xml, 16 B** (maxmin/precision 1e-2, as `a2a
simulate`; the same launch as the torus P = 256 row, with `--alltoallv --calls-best 64`):
the online run chose tuna radix=4 block_count=3 from call 57, the exhaustive best (31.59 us
a call fixed), 6.0x faster than the MPI library (190.6 us); its second run is 1.018x the
best fixed and the online run 1.096x, just within the target: exploring costs nearly 10 %
of the 1,000 calls. Its first 56 calls (55 of them exploring, every one but the first on a
predicted S) take 4.350 ms (the online total less the 944 calls from the decision on at
their mean; 4.415 ms with one reduction per candidate and round) where the best would take
1.769 ms. Round 0 (two calls each, 17 with the warm-up) leaves three candidates: the MPI
library, spread_out, pairwise, linear and scattered are out after their first sample
(191, 128, 552, 127 and 128 us, the record's medians); twophase_bruck (45.4 us) and tuna
radix=2 (44 us), within 1.5x of tuna radix=4 (31.6 us), run their whole blocks. Measured
per call with the online tuner of 4e060da (one reduction per candidate and round), the MPI
library's 3 calls (the warm-up, its last two timed as its round) cost 0.614 ms, 1.9 % of
the best run's 31.59 ms, pairwise's 2 calls 1.124 ms (3.6 %), spread_out, linear and
scattered's 6 calls of ~130 us 0.813 ms (2.6 %). After the decision the calls average
32.08 us (the windows' checks from the decision on), 1.015x the fixed run's median. The
totals are extrapolated from 200 calls (online) and 64 (the MPI library, the second run,
tuna radix=4): the extrapolation of the dragonfly P = 256 alltoall row was checked against a
simulated 1,000-call run (above). CPU: the online run 61 s (112 s with one reduction per
candidate and round), its second run 9 s (the MPI library's 64 calls had taken 68 s, fixed
linear 22 s, spread_out, scattered and tuna radix=4 (64 calls) 8-10 s each, the rest under
3 s).
"""

BEFORE_HEAD = """| platform | P | call | S | online chose (from call; calls exploring) | chosen / best per call | online / best fixed | MPI library / best fixed | second run / best fixed | CPU s (online run) |
|---|---|---|---|---|---|---|---|---|---|"""

BEFORE_INTRO = """
## The online tuner now against one reduction per candidate and round

Before: the records of `tests/data/online-sim-per-candidate.jsonl`, made at 4e060da by the
online tuner of one reduction per candidate and round (in every round of a shape's
exploration each candidate's calls ended with their own `MPI_Allreduce`), as it stood up to
main 24d542b (dragonfly.xml P = 64's six shapes, simulated again by the tuners of 9848935
and 719393a, gave the same totals to the last digit). After: the table above
(docs/tuning-files.md): round 0, every candidate's two calls (a warm-up and a sample), runs
back to back with one `MPI_Allreduce` at its end, and a candidate's warm-up call takes
whatever skew the kernel before it left; rounds 1 and 2 keep one reduction per candidate's
calls. The MPI library and fixed columns are the same runs (reused), so only the online and
second runs differ.

"""

BEFORE_OUTRO = """
What moved. The choice of one shape: torus_tofud.xml P = 256, alltoall 16 B now keeps the
MPI library (1.017x tra radix=4's per-call median), where the tuner before chose tra
radix=4. The records' exploring medians: the MPI library 65.9 us (noise 7.4) against 73 us
(noise 13) before, tra radix=4 61.7 us (noise 7.3) against 60.6 us (noise 4.4): tra radix=4
is no longer faster beyond the noise, and a kernel replaces the MPI library only then. After
the decision the MPI library's calls average 69.33 us (tra radix=4's 61.28 us before; the
MPI library's fixed run's median is 63.46 us): online 0.973 -> 1.097, within the 1.10x but
no longer below the MPI library's 1.027, and the second run, the MPI library by the file's
rule, 0.997 -> 1.083, over the 2 %: the two targets this table now misses. Both are
extrapolations from a run's last calls (the second run's last 8 of 16, the online run's
from its decision on), and there the MPI library's calls take 61 to 81 us from one call to
the next, with the ranks' skew that whatever ran before leaves: the same 16 calls
simulated again by hand total 0.963 ms under the MPI library alone and under its one-rule
file (the same calls to the last digit), 0.959 ms under the second run's
`A2A_TUNING=online` with its file (its first call 66.7 us against 61.8, and each call
after it differs), and the means of their last 8 calls are 63.68 and 67.22 us: 0.995x over the 16 calls,
1.055x over the last 8. The calls
exploring: the same in 11 shapes; dragonfly.xml P = 64 alltoallv 16 KiB explores 89 calls
instead of 104, deciding from call 91 instead of 106, spread_out again: pairwise's round-0
sample, right after the other candidates' calls, took 1.06 ms, beyond 1.5x spread_out's
531 us, and it is out after it (before, its median was 560 us, noise 2.1, and it stayed
in). The totals of the 11 other shapes are lower in 8, by 0.4 % at most (dragonfly.xml
P = 256 alltoall 16 B, 1.094 -> 1.090) and within 0.05 % in 3: the same choices (from the
same calls but at alltoallv 16 KiB), their calls up to the decision (the total less the
calls from the decision on at their mean) shorter, e.g. 1.123 -> 1.099 ms at dragonfly.xml
P = 64 alltoall 16 B, 3.296 -> 3.241 ms at P = 256 alltoall 16 B, 4.415 -> 4.350 ms at
P = 256 alltoallv 16 B, 58.08 -> 49.71 ms at P = 64 alltoallv 16 KiB (pairwise's calls).
The CPU seconds of the online runs' simulations are lower in all 12 shapes, 1214 -> 974 s
summed (the shared machine's load weighs on them too): P = 256, alltoallv 16 B 112 -> 61 s.

**Why 1.5x on one sample.** The noise rule's band is narrow next to it: on this machine
(Open MPI, P = 2 and 4 oversubscribed on 2 cores shared with other jobs; 54 configurations
of 40 samples, `a2atune run`), the interquartile range is 2.0 % of the median (3.8 % at the
90th percentile). What a single sample risks is a load spike: one sample exceeds 1.5x
another of its own configuration in 5.1 % of the pairs, 1.25x in 5.8 %, 2x in 3.8 % and 3x
still in 2.9 %, so a larger factor hardly avoids the spikes while it keeps clearly slower
candidates longer; a candidate tied with the best is cut by a spike with about that
probability on such a loaded machine (under SimGrid, never). A second sample before the
cut would make that rarer at one more call of every candidate: at P = 256, alltoallv 16 B
about 1.2 ms, 3.8 % of the 1,000-call run.
"""

APPS_HEAD = """| platform, selector | application | P | runs (all-to-alls) | A2A_TUNING_EXPLORE | shapes decided online | best fixed (total) | online / best fixed | MPI library / best fixed | second run / best fixed | later runs / best fixed | targets met |
|---|---|---|---|---|---|---|---|---|---|---|---|"""

APPS_BEFORE_HEAD = """| application | A2A_TUNING_EXPLORE | runs (all-to-alls) | shapes decided online | best fixed (total) | online / best fixed | MPI library / best fixed | second run / best fixed | later runs / best fixed | targets met | CPU s (online run) |
|---|---|---|---|---|---|---|---|---|---|---|"""

APPS_BEFORE_INTRO = """Before -> after (before: the records of `--apps-before`, 40 closures (240
all-to-alls) and 100 transforms (200), made before the direct exchanges skipped empty
blocks and by the online tuner before its drift floor (a monitoring window counts as
slower only beyond the noise and by more than 5 % of the winner's median) and before a
drift tried a challenger in the winner's place (docs/tuning-files.md), their fixed runs
reused from the two rounds' records; after: the table above, every run launched anew):

"""

APPS_INTRO = """
## Inside the applications

Made from `tests/data/online-apps-sim.jsonl`, the records of
`bench/app_online_bench.py --record` made by `bench/online_remake.sh apps
tc-torus` (simulated as above: P = 64 on dragonfly.xml, and tc also on torus_tofud.xml;
SMPI with MPICH's selector, `a2a simulate`'s options and copy model; maxmin/precision 1e-3
for fft, 1e-2 for tc). The rows' online and second runs were made again by the online
tuner as it is now (docs/tuning-files.md: round 0's one reduction, the first table's tuner),
with `REUSE_APPS=tests/data/online-apps-sim.jsonl` (the launches fft, tc and tc-torus,
appended to the file: a row's last record is the one shown), their MPI library's and fixed
runs reused from the file's records before them (`app_online_bench.py --reuse`; the
kernels did not change). One launch of an application is `runs` closures (tc) or forward
transforms (fft) with no warm-up, so every all-to-all of the launch counts: 167 closures of
rmat:9:4 make 1,002 alltoallv calls, 500 transforms of 512x512 1,000 alltoall calls, the
issue's loop of 1,000. Its total is the metric `comm_sum_s` of `a2atune app` (per run the
time inside the all-to-alls, max over ranks; summed over the runs). The online run is
`--kernel tuned` under `A2A_TUNING=online`; the state of the online tuner lasts the launch,
so exploring spreads over the first runs. Fixed: `--kernel NAME` with the MPI library and
every candidate any shape of the online run considered, one kernel for every call of the
launch; a fixed run simulates 2 runs and its total is their median x `runs`, except for the
MPI library and the candidates within 10 % of the best, which run all `runs` (the first run
of a launch costs more); a record made before that rule (marked "2-run estimate") estimated
every fixed total from 2 runs. Second run: `--kernel tuned` under `A2A_TUNING=online` with
`A2A_TUNING_FILE` = the file the online run wrote (shapes with a rule run it; a shape the
online run left exploring resumes from the file's `online_partial` record). Later runs
(records with `later`, `app_online_bench.py --again N` beyond 1): each reads the file the
run before it wrote.

"""

APPS_OUTRO = """
**Targets, row by row** (the issue's, for a loop of 1,000 all-to-alls): fft with
EXPLORE=120 meets the table's three (online 1.022x the best fixed, below the MPI library's
1.141x, second run 1.000x); fft with EXPLORE=30 meets the total (1.040x) and is below the
MPI library, and misses the second run (1.029x, over 2 %); tc on dragonfly.xml at both
values is below the MPI library (2.438x) and misses the total (1.145x and 1.131x, over
1.10x), and its second run meets 2 % at both (1.015x); tc on torus_tofud.xml meets all
three at both values (EXPLORE=120 1.099x, EXPLORE=30 1.054x, the MPI library 1.714x,
second runs 0.999x). With one reduction per candidate and round the online runs were
1.023x and 1.041x (fft), 1.159x and 1.136x (tc, dragonfly.xml), 1.107x and 1.047x (tc,
torus_tofud.xml: 120 over the 1.10x then). The choice per shape: fft's is within 5 % of the
exhaustive best at both values (scattered block_count=32, the best; spread_out, 1.029x);
tc's is linear, the best fixed kernel, at every shape on dragonfly.xml at both values, and
at S = 2048..4095 on dragonfly.xml tuna radix=8 block_count=7 won in the records before the
prediction of the shape (19.9 us exploring, 25.4 us exploited): its exploring calls no
longer agree on S first (below).

**tc: empty blocks** (dragonfly.xml). A closure of rmat:9:4 at P = 64 has 6 iterations
whose count matrices are sparse (the sparsest iteration's linear call: 2.4 us). The direct
alltoallv exchanges (linear, spread_out, scattered) now post no request for an empty
block, as Open MPI's basic linear and MPICH's scattered do; before, every rank posted one
for each of its P - 1 peers. Fixed linear at 40 closures went from 8.053 ms (1.877x tuna
radix=63, the best then, 4.291 ms) to 4.287 ms, and at 167 closures it is the best: 17.867
ms, with tuna radix=63 block_count=62 1.001x, spread_out 1.023x, scattered block_count=32
1.100x, the MPI library 2.438x (43.559 ms). The online run's candidates per shape (the
EXPLORE=120 run's medians while exploring, `A2A_VERBOSE=1`, with the online tuner of one
reduction per candidate and round): S = 64..127 spread_out, linear and scattered 5.34 us,
the MPI library 43.1 us; 512..1023 linear 12.7 us, spread_out 13.2 us, scattered 13.3 us;
2048..4095 linear and tuna radix=63 23.0 us, spread_out and scattered 23.5 us, tuna
radix=8 block_count=7 25.4 us; 4096..8191 and 8192..16383 linear and tuna radix=63 23.0 us,
spread_out 23.5 us, the MPI library 43.8 and 44.3 us.

**tc: where the online run's time goes** (dragonfly.xml; the same launches again with
`A2A_VERBOSE=1`, and the second run with other files; 167 closures, fixed linear 17.867
ms). Each shape has 167 calls (S = 2048..4095 334: it comes twice a closure) and 8
candidates.

- Exploring. At EXPLORE=120 the five shapes (S = 64..127, 512..1023, 2048..4095,
  4096..8191, 8192..16383) explore 55, 55, 94, 68 and 68 calls (340 of the 1,002) and
  decide from their calls 58, 59, 96, 72 and 72 (linear, all five); the tuner's own
  account of those calls is 1.894 ms over each shape's winner (395, 343, 347, 395 and 414
  us), in 8, 8, 15, 10 and 10 reductions (51; the tuner of one reduction per candidate and
  round made 85: 21, 15, 15, 17 and 17). At EXPLORE=30 they explore 19, 19, 22, 20 and 20
  calls and decide from their calls 22, 22, 23, 24 and 24 (linear, all five): 1.632 ms
  over the winners (395, 330, 238, 326 and 343 us), in 5, 5, 9, 6 and 6 reductions (31;
  before, 65).
- The agreement on S. An alltoallv call is keyed by its largest block, agreed by an
  `MPI_Allreduce` unless the tuner predicts it; one agreement costs 9.3 us here (the five
  rules all linear, by hand with the tuner of ead7003: 27.252 ms under `A2A_TUNING=file`,
  where every call agrees, 18.134 ms under `A2A_TUNING=online`, deferred from call 19:
  9.118 ms over 984 calls), against 2.4 to 23 us for the kernel's call. The tuner predicts
  a call's shape from the period of the calls' S buckets (docs/tuning-files.md): the
  closure's 6 calls over 5 buckets repeat every 6 calls, so from the third closure on every
  call runs on the shape of the call 6 before, an exploring shape's candidate (checked by
  the reduction that gathers its round's times: round 0's, for every candidate's calls, or
  in rounds 1 and 2 its candidate's) or a decided shape's winner (checked by one
  `MPI_Allreduce` per window of 8..64 such calls, from the first decision). Before, the
  shape predicted was the last
  call's: wrong at call 2 of the launch, after which every call agreed on S until every
  shape had decided and the choices repeated. Calls that agreed per call (the summary's
  count): 1 of 1,002 at both values, where the tuner of one reduction per candidate and
  round made 10 (EXPLORE=120) and 11 (30), and the tuner before this prediction (9848935,
  counted with the same summary line) 423 and 149 (~3.8 and ~1.3 ms of agreements).
- The choices. An exploring call that agreed on S first started every rank's call at the
  same time, which some kernels gain from: at S = 2048..4095 tuna radix=8 block_count=7
  timed 19.9 us a call so, and 25.4 us exploited, where linear takes 23.0 us; it won that
  shape, and at EXPLORE=120 its rule stayed (second run 1.040x). Exploring on predictions,
  its calls run as they would exploited: 25.4 us, and linear (23.0 us) wins at both
  values (second runs 1.015x). The other way, S = 64..127's candidates timed 5.34 us a call
  exploring on predictions (the medians above), 2.42 us when the agreement lined the ranks
  up first.
- The rest: at EXPLORE=120 the online run spends 2.582 ms over the best fixed, of which
  exploring 1.894 ms and the 1 agreement ~0.01 ms; at EXPLORE=30 2.342 ms, exploring
  1.632 ms and 1 agreement ~0.01 ms. The remaining ~0.68 and ~0.70 ms are the windows'
  checks, the monitoring windows and the decided shapes' calls that time more in the
  online run than in fixed linear's; the second run, the same five rules without the
  exploring, spends 0.268 ms over it (below).
- The deferred agreement's checks: the second runs of both values read files of the five
  rules all linear and take 18.134 ms under `A2A_TUNING=online`, 1.015x the fixed run (S
  agreed per call in 9 of the 1,002 calls, the summary says, then one `MPI_Allreduce` per
  window of 8..64 calls).

Both EXPLORE values decide all 5 shapes in the first launch, and both files have linear at
every shape. The online runs are 2.582 ms (EXPLORE=120) and 2.342 ms (30) over the best
fixed at 1,002 calls (2.840 and 2.429 ms with one reduction per candidate and round, 6.360
and 3.594 ms with the shape predicted from the last call only), where the 1.10x target
allows 1.787 ms: exploring alone costs 1.894 ms at 120, more than that, and 1.632 ms at
30, within it, where the rest takes the total over (each shape has ~167 calls, S =
2048..4095 334, to spread 8 candidates' exploring over); of the agreement on S one call is
left.

**tc on torus_tofud.xml** (P = 64, the same 167 closures and precision; `online_remake.sh
tc-torus`): fixed linear is the best again, 25.088 ms, tuna radix=63 1.009x, spread_out
1.012x, scattered block_count=32 1.219x, the MPI library 1.714x. At both values the shapes
choose spread_out (S = 64..127), twophase_bruck (512..1023) and linear (2048..4095,
4096..8191 and 8192..16383), and the second runs of these rules are 0.999x. With
EXPLORE=30 the shapes explore 19, 22, 22, 22 and 21 calls and decide by their call 26:
the online run spends 1.344 ms over the best fixed (1.054x); with EXPLORE=120 they explore
55, 94, 107, 94 and 81 calls and decide by their call 109: 2.490 ms (1.099x), every target
met at both. The tuner of one reduction per candidate and round made 1.107x (120; the
tuner's account of its exploring then 2.307 ms of its 2.682 ms over the best fixed) and
1.047x (30, choosing scattered block_count=32 at S = 64..127 and twophase_bruck at
2048..4095: second run 0.988x, a rule per shape beating the one kernel of the best fixed
run). Calls that agreed per call: 1 of 1,002 at both values (10 and 11 with one reduction
per candidate and round), where the tuner before this prediction made 579 and 142 (then
1.196x and 1.076x, 4.929 and 1.915 ms over the best fixed).

**fft** (512x512: one alltoall shape, S = 1 KiB, two calls a transform): 500 transforms
give the shape 1,000 calls; an alltoall's S is known to every rank, so no call agrees on
it. Fixed: scattered block_count=32 54.114 ms, spread_out 1.029x, the MPI library 1.141x,
tra radix=8 1.263x. With EXPLORE=120 the shape decides at call 83 (scattered
block_count=32, the exhaustive best) after 81 calls exploring, as in the 100-transform
launch and with one reduction per candidate and round: the online run spends 1.180 ms over
the best fixed (1.022x; 1.242 ms, 1.023x, with one reduction per candidate and round, of
which exploring was 1.17 ms over the winner's time by the tuner's account, the rest its
monitoring windows: 15 timed calls every 240 calls, one `MPI_Allreduce` each). The
exploring medians of the 100-transform launch (the tuner of then): scattered 54.5 us,
spread_out 55.4, the MPI library 62.7, tra radix=8 68.5, radix=4 81.3; pairwise, bruck
and tra radix=63 out after one sample at 107-138 us. Second run 1.000x: every target met.
With EXPLORE=30 it keeps spread_out from call 21 after 20 calls exploring, as before (its
median then 54.3 us; a 200-call run by hand, with the tuner of then, measured 56.3 us in
its monitoring windows, +3.7 %, within the drift floor's 5 %: no second exploration in the
1,000 calls): online 1.040x (1.041x with one reduction per candidate and round), below the
MPI library, but the second run, the file's spread_out for all 1,000 calls, is 1.029x, over
the 2 % target (spread_out is within the 5 % of the choice target). At 200 calls (the
before records) EXPLORE=120 made the same choice, 1.113x with 81 of 200 calls exploring
against 81 of 1,000 now; EXPLORE=30 explored again after the drift the floor now ignores
and ran scattered block_count=32 from call 143, 1.127x.

**Crashes.** The re-makes of the 100-transform records crashed SimGrid 3.32 (signal 11 in
SMPI, maxmin/precision 1e-3) in 7 of 10 second runs launched by `app_online_bench.py` (0
of 3 by hand) and in 6 of 6 launches of the EXPLORE=120 online run of the drift floor's
re-make (0 of 2 EXPLORE=30 online runs by hand), with the tuner and kernels of then. This
re-make ran 15 fft launches (online, second and fixed runs; 1,000 calls for each but the
2-run fixed ones) and 11 more by hand (the online run and 4 second runs of 100 transforms,
6 launches of 2 transforms of fixed spread_out; the words of `online_remake.sh`, under
`app_online_bench.py`'s subprocess and by hand, output to files and to pipes) without a
crash, and so did 4 second runs of 100 transforms by the a2atune of then (7ef6ffb, built
apart, under the same subprocess call as `app_online_bench.py`'s; 0 of 4 where that code
had crashed 7 of 10): what made it crash then was more than the code, and with no crash to
examine the cause is not known. `app_online_bench.py` still launches a simulation that
crashed up to 3 times.
"""


EXPLORE_INTRO = """
## How many calls a shape explores: the default, by measurement

`A2A_TUNING_EXPLORE`, the calls a shape may spend exploring
([tuning-files.md](../tuning-files.md#online-tuning-a2atuningonline); each of its candidates gets
A2A_TUNING_EXPLORE / candidates calls, 3..64, and a decided shape's monitoring window is as
many calls every 16 times as many). The shapes of the first table and the applications
again at other values: the rows at 120, and the applications' at 30, are the records
above; the rest, the records of `--explore` (`bench/online_remake.sh` with
`EXPLORE=30,60`, and `EXPLORE=60` for fft and tc), their MPI library's and fixed runs those
of the records above (`online_bench.py --reuse`, `app_online_bench.py --reuse`: a fixed run does
not depend on the value), so only the online and second runs differ. A cell lists the
values of the row's `values` column in that order. An application
of several shapes has no choice target (its fixed runs fix one kernel for every shape).
"""

EXPLORE_RULE = """**The rule** (stated when the applications' rows at 30 and 120 were known, the page's
earlier table, and of the records at 30 and 60 only the first shape's, dragonfly.xml
P = 64 alltoall 16 B; applied by this script): over the rows that have every value, the
value that meets the most targets (the choice within 5 %, the total <= 1.10x, below the MPI
library where the best is, the second run <= 1.02x; an application of several shapes the
last three); ties broken by the lower geometric mean of online / best fixed (to 3
decimals), then by 120, the default as it stood. Rows that lack a value would count for
none (tc at 60 was made after the rule had picked 120 over the other 13 rows: 52, 46 and
42 targets of 52 for 120, 60 and 30; with it the rule still picks 120)."""

EXPLORE_OUTRO = """**Why 120.** With 8 candidates a shape, a candidate gets 3 calls at 30 (A2A_TUNING_EXPLORE
/ candidates, 3 at least), 7 at 60 and 15 at 120. SimGrid has no noise, but a candidate's
first calls after another kernel's are not its steady state, and the direct exchanges
settle slowest: at dragonfly.xml P = 64 alltoallv 1 KiB linear's exploring median is
45.8 us at 30, 42.1 at 60 and 39.8 at 120 (39.72 fixed from the start), so 30 and 60 keep
spread_out (1.069x linear per call; their second runs 1.048x); at torus_tofud.xml P = 64
alltoall 1 KiB spread_out's is 137, 133 and 129 us (124.3 fixed), so 30 keeps tra
radix=63 (1.081x) and 60 the MPI library (1.047x: within the 5 %, but its total is not
below the MPI library's and its second run is 1.047x); at torus_tofud.xml P = 256, 16 B,
30 keeps bruck (1.110x; its second run 1.163x), tra radix=4's 3 calls (62.3 us, noise 5.1)
not beyond bruck's 66.2 us by the noise rule, and 120 the MPI library (1.017x: tra
radix=4's 61.7 us, noise 7.3, not beyond the MPI library's 65.9 us, noise 7.4; the
comparison with one reduction per candidate and round above), where 60 chose tra radix=4;
at dragonfly.xml P = 64 alltoall 1 KiB, 60 keeps scattered block_count=32 (1.151x: 53.1 us
exploring, noise 1.4, against
spread_out's 54.6, noise 1.7; fixed 57.99 against 50.4 us), where at 120 spread_out's
53.4 us (noise 2.9) ties it and the simpler is kept. The misses of 30 and 60 are such choices, the second runs that
inherit them, and the totals of choices no faster than the MPI library (torus_tofud.xml
P = 64 16 KiB at 30: pairwise, 1.003x per call, online 1.005x, the MPI library 1.005x);
120 misses two targets, torus_tofud.xml P = 256 16 B's total below the MPI library's (online
1.097x, the MPI library 1.027x) and its second run (1.083x), and meets every other target
of the loop shapes and of fft.

What the smaller values save is the exploring: dragonfly.xml alltoallv 16 B at P = 64 is
1.025x at 30 against 1.037x at 120, at P = 256 1.083x against 1.096x; fft 1.014x at 60
against 1.022x at 120 (both keep the exhaustive best, scattered block_count=32, from call
37 and 83; 30 keeps spread_out, 1.029x, and its second run misses the 2 %); and tc,
whose ~167 calls a shape make exploring a larger part: 1.131x at 30, 1.137x at 60 and
1.145x at 120 (dragonfly.xml; the exploring alone, by the tuner's account, is 1.894 ms at
120, more than the 1.787 ms the 1.10x allows, and 1.632 ms at 30, within it, where the
rest takes the total over), 1.054x, 1.059x and 1.099x (torus_tofud.xml, within 1.10x at
every value). A smaller value suits an application with few calls a shape
(`A2A_TUNING_EXPLORE=30`, tc's rows); the default stays 120.

Caveats. Simulated (SimGrid 3.32, no noise): on a loaded machine a median of 3 calls is
noisier still, which weighs against the smaller values, not for them. The rows come from
tuners of different revisions. The records at 120 of the loop shapes, and fft's and tc's
at 30 and 120, were made by the online tuner as it is now (round 0's one reduction: the
first table, the applications' table); the loop shapes' at 30 and 60 by that of 9848935,
fft's at 60 by that of 962ed0c and tc's at 60 by that of 719393a (it predicts alltoallv's
S from the period of the calls' buckets, the section above), all three with one reduction
per candidate and round. What round 0's one reduction changed at 120 is the comparison
above: one choice (torus_tofud.xml P = 256 16 B, the MPI library for tra radix=4), the
calls exploring of one shape, the other totals lower by 0.4 % at most or within 0.05 %;
tc's totals 1.159x -> 1.145x and 1.136x -> 1.131x (dragonfly.xml), 1.107x -> 1.099x and
1.047x -> 1.054x (torus_tofud.xml), fft's 1.023x -> 1.022x and 1.041x -> 1.040x. Between
the records
at 120 before it (those of 4e060da, the comparison's before) and the tuner of 9848935 the
changes are in what follows a drift, a candidate dropped (check mode) and the end of a
run, and in the direct alltoallv exchanges' empty blocks (the loop's blocks are S/2..S
bytes), none of which the 120 runs' 200 simulated calls reach: the three dragonfly.xml
P = 64 alltoall shapes simulated again at 120 by the tuner of 9848935 gave those records'
online and second-run totals to the last digit. A decided shape's first monitoring window
comes 16 x 15 = 240 calls after its decision at 120, so the 120 totals, extrapolated from
the calls after the decision, hold no window, where those at 60 hold one (every 112 calls)
and at 30 several (every 48). A window is 3 to 15 timed calls and one `MPI_Allreduce`: at
the 16 B alltoall rows, where the MPI library wins at every value, the calls after the
decision average 11.30 us at 30 against 11.18 at 60 and 120 (dragonfly.xml P = 64; online
1.041x against 1.032x at 60 and 1.030x at 120), a bias of about 1 % in 120's favour that
changes no target met.
"""


def app_figures(r):
    """(best fixed name, its total, online / best, MPI library / best, second / best,
    [later / best], shapes decided, shapes, calls, [total, below library, second] met) of
    one application record."""
    fixed = r["fixed"]
    best = min(fixed, key=fixed.get)
    b, lib = fixed[best], r["library"]
    total, summary = r["online"]
    again = r["again"][0]
    # one entry per shape: "alltoallv P=64 S=..: ..." (an entry may hold "; " itself)
    entries = re.split(r"; (?=alltoallv? P=)", summary.split(": ", 1)[1]) if ": " in summary else []
    shapes = [x for x in entries if "not checked yet" not in x]
    decided = sum(" from call " in x or "no other candidate" in x for x in shapes)
    calls = sum(int(next(g for g in re.search(r"of (\d+) \(|(\d+) calls", x).groups() if g))
                for x in entries)
    ok = [total / b <= 1.10, b >= lib or total < lib, again / b <= 1.02]
    return (best, b, total / b, lib / b, again / b, [t / b for t, _ in r.get("later", [])],
            decided, len(shapes), calls, ok)


def app_key(r):
    """The order and identity of an application record: label, application, workload, E."""
    return (r["label"], r["app"], r["workload"], -r["E"])


def apps_rows(recs, before=None):
    """The applications' table, the targets they meet, per record what ran each shape, and
    with before (an earlier tuner's records) each row's ratios before and after."""
    print(APPS_INTRO + APPS_HEAD)
    notes = []
    counts = [0, 0, 0]
    recs = sorted(recs, key=app_key)
    for r in recs:
        R = r["repetitions"]
        best, b, online, lib, again, later, decided, shapes, calls, ok = app_figures(r)
        summary = r["online"][1]
        counts = [c + o for c, o in zip(counts, ok)]
        missed = [n for n, good in zip(("total", "below library", "second"), ok) if not good]
        print("| " + " | ".join(str(c) for c in [
            r["label"], "%s %s" % (r["app"], r["workload"]), r["P"], "%d (%d)" % (R, calls),
            r["E"], "%d of %d" % (decided, shapes),
            "%s %.3f ms%s" % (best, b * 1e3, "" if "fixed_full" in r else " (2-run estimate)"),
            "%.3f" % online, "%.3f" % lib, "%.3f" % again,
            ", ".join("run %d: %.3f" % (k, t) for k, t in enumerate(later, 3)) or "-",
            "all" if not missed else "missed: " + ", ".join(missed)]) + " |")
        notes.append(re.sub(r"A2A_TUNING_FILE=\S*/", "A2A_TUNING_FILE=",
                            "- %s %s, A2A_TUNING_EXPLORE=%d, online run: %s\n  second run: %s"
                            % (r["app"], r["workload"], r["E"], summary, r["again"][1]) +
                            "".join("\n  run %d: %s" % (k, m)
                                    for k, (_, m) in enumerate(r.get("later", []), 3))))
    print("\n%d application rows: total <= 1.10x the best fixed in %d; below the MPI library "
          "where the best is in %d; second run <= 1.02x in %d." % (len(recs), *counts))
    if before:
        apps_before_after(recs, before)
    print("\nWhat ran each shape (`A2A_Tuning_summary`, in the row's message):\n")
    print("\n".join(notes))
    print(APPS_OUTRO, end="")


def apps_before_after(recs, before):
    """Each application row's shapes decided and ratios in before and in recs."""
    old = {app_key(r): r for r in before}
    print("\n" + APPS_BEFORE_INTRO + APPS_BEFORE_HEAD)
    for r in recs:
        prev = old.get(app_key(r))
        if not prev:
            continue
        x, y = app_figures(prev), app_figures(r)
        later = ["; ".join("run %d: %.3f" % (k, t) for k, t in enumerate(f[5], 3)) or "-"
                 for f in (x, y)]
        met = [", ".join(n for n, good in zip(("total", "below library", "second"), f[9])
                         if not good) for f in (x, y)]
        met = ["missed: " + m if m else "all" for m in met]
        print("| %s %s | %d | %d (%d) -> %d (%d) | %d of %d -> %d of %d | %s %.3f ms -> %s %.3f ms "
              "| %.3f -> %.3f | %.3f -> %.3f | %.3f -> %.3f | %s -> %s | %s -> %s | %s -> %s |" % (
                  r["app"], r["workload"], r["E"], prev["repetitions"], x[8], r["repetitions"],
                  y[8], x[6], x[7], y[6], y[7], x[0], x[1] * 1e3, y[0], y[1] * 1e3, x[2], y[2],
                  x[3], y[3], x[4], y[4], later[0], later[1],
                  met[0], met[1],
                  "%.0f" % prev["cpu_online_s"] if "cpu_online_s" in prev else "-",
                  "%.0f" % r["cpu_online_s"] if "cpu_online_s" in r else "-"))


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
             "%s (%s; %d)" % (chosen, "-" if at is None else at, explored), "%s %.4g us" % (best, fixed[best][1]),
             "%.3f" % per_call, "%.3f" % (total / best_total), "%.3f" % (lib_total / best_total),
             "%.3f" % (rec["again"][0] / best_total), "all" if not met else "missed: " + met,
             "%.0f" % rec["online"][4]]
    return cells, ok


def solver_precision(rec):
    """The maxmin/precision of the record's launch: its recorded SimGrid options say it;
    the records made before they were kept ran with 1e-3 (alltoall) and 1e-2 (alltoallv,
    re-run later), as their launches said."""
    for option in rec.get("simgrid", []):
        if option.startswith("maxmin/precision:"):
            return option.split(":", 1)[1]
    return "1e-2" if rec["coll"] == "alltoallv" else "1e-3"


def before_after(recs, before):
    """The table of each shape's choice and ratios in `before` (an earlier tuner's records)
    and in recs, and the sums of the online runs' CPU seconds."""
    old = {shape_key(r): r for r in before}
    print(BEFORE_INTRO + BEFORE_HEAD)
    cpu = [0.0, 0.0]
    pairs = []
    for rec in recs:
        prev = old.get(shape_key(rec))
        if not prev:
            continue
        cells = []
        for r in (prev, rec):
            c, _ = judge(r)
            cells.append(c)
        pairs.append((prev, rec))
        cpu = [cpu[0] + prev["online"][4], cpu[1] + rec["online"][4]]
        print("| %s | %d | %s | %s | %s -> %s | %s -> %s | %s -> %s | %s -> %s | %s -> %s | %s -> %s |" % (
            rec["label"].split(",")[0], rec["P"], rec["coll"], size_text(rec["S"]),
            cells[0][4], cells[1][4], cells[0][6], cells[1][6], cells[0][7], cells[1][7],
            cells[0][8], cells[1][8], cells[0][9], cells[1][9], cells[0][11], cells[1][11]))
    print("\nCPU seconds of the online runs' simulations, summed: %.0f before, %.0f after "
          "(the shared machine's load changes these, not the simulated times)." % tuple(cpu))
    print("\n" + moved(pairs))
    print(BEFORE_OUTRO, end="")


def shape_name(rec):
    """'dragonfly.xml P = 256 alltoallv 16 B'."""
    return "%s P = %d %s %s" % (rec["label"].split(",")[0], rec["P"], rec["coll"],
                                size_text(rec["S"]))


def moved(pairs):
    """What changed from each (before, after) pair of one shape's records, in words: the
    choices, the online runs' totals / best fixed, the calls exploring (and the decision's
    call), the second runs' totals / best fixed, the targets met."""
    def ratio(rec, key):
        best = min(v[0] for v in rec["fixed"].values())
        return rec[key][0] / best
    changed = ["%s (%s -> %s)" % (shape_name(b), a["online"][1], b["online"][1])
               for a, b in pairs if a["online"][1] != b["online"][1]]
    steps = [(ratio(b, "online") / ratio(a, "online") - 1, a, b) for a, b in pairs]
    lower = [x for x in steps if x[0] < -0.0005]
    higher = [x for x in steps if x[0] > 0.0005]
    text = ("Choices: %d of %d shapes as before%s. The online run's total / best fixed is "
            "lower in %d, within 0.05 %% in %d, higher in %d"
            % (len(pairs) - len(changed), len(pairs),
               "; changed: " + ", ".join(changed) if changed else "",
               len(lower), len(steps) - len(lower) - len(higher), len(higher)))
    for word, group in (("lower", lower), ("higher", higher)):
        if group:
            d, a, b = max(group, key=lambda x: abs(x[0]))
            text += ("; most %s: %s, %.3f -> %.3f (%+.1f %%)"
                     % (word, shape_name(b), ratio(a, "online"), ratio(b, "online"), 100 * d))
    explored = ["%s %d -> %d (from call %s -> %s)" % (shape_name(b), a["online"][3],
                                                       b["online"][3], a["online"][2],
                                                       b["online"][2])
                for a, b in pairs if a["online"][2:4] != b["online"][2:4]]
    text += (". Calls exploring as before in %d of %d%s"
             % (len(pairs) - len(explored), len(pairs),
                "; changed: " + ", ".join(explored) if explored else ""))
    again = ["%s %.3f -> %.3f" % (shape_name(b), ratio(a, "again"), ratio(b, "again"))
             for a, b in pairs if abs(ratio(b, "again") - ratio(a, "again")) >= 0.0005]
    text += (". Second runs that moved: %s." % ("; ".join(again) if again else "none"))
    names = ("the choice within 5 %", "total <= 1.10x", "below the MPI library where the "
             "best is", "second run <= 1.02x")
    counts = [[sum(judge(r)[1][k] for r in side) for k in range(4)]
              for side in zip(*pairs)] if pairs else [[0] * 4, [0] * 4]
    text += " Targets met, before -> after: " + "; ".join(
        "%s %d -> %d" % (n, x, y) for n, x, y in zip(names, counts[0], counts[1])) + "."
    return text


def read_records(path):
    """The JSON lines of path (exit 2 with path:line on one that is not JSON)."""
    recs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                recs.append(json.loads(line))
            except ValueError as e:
                sys.stderr.write("%s:%d: not a JSON record (%s)\n" % (path, n, e))
                sys.exit(2)
    return recs


def shape_key(rec):
    """The identity of a shape's record: label, P, collective, S."""
    return (rec["label"], rec["P"], rec["coll"], rec["S"])


def latest(recs, key):
    """recs with one record per key, the file's last (a shape or application made again is
    appended after the record it replaces: online_remake.sh), in the order of the keys' first
    records."""
    last = {}
    for rec in recs:
        last.setdefault(key(rec), []).append(rec)
    return [runs[-1] for runs in last.values()]


def app_choice(r):
    """The application's choice / best per call, where it has one shape (the fixed runs fix
    one kernel for every call: a choice per shape of several is not theirs to judge), its
    winner run fixed; None otherwise."""
    chosen = re.findall(r"alltoallv? P=\d+ S=\S+: (.*?) from call ", r["online"][1])
    if len(chosen) != 1 or len(re.findall(r"alltoallv? P=\d+ S=", r["online"][1])) != 1:
        return None
    chosen = chosen[0]
    fixed = r["fixed"]
    best = min(fixed.values())
    return fixed[chosen] / best if chosen in fixed else None


def explore_rows(shapes, apps):
    """[(name, {E: (choice / best or None, online / best, second / best, [targets met])})]
    of the shapes' and the applications' records, each key's last record per E."""
    rows = {}
    for rec in shapes:
        cells, ok = judge(rec)
        best = min(v[0] for v in rec["fixed"].values())
        rows.setdefault(("shape",) + shape_key(rec), {})[rec["E"]] = (
            float(cells[6]), rec["online"][0] / best, rec["again"][0] / best, ok)
    for r in apps:
        f = app_figures(r)
        choice = app_choice(r)
        ok = ([choice <= 1.05] if choice is not None else []) + f[9]
        rows.setdefault(("app", r["label"], r["app"], r["workload"]), {})[r["E"]] = (
            choice, f[2], f[4], ok)
    named = []
    for key in sorted(rows, key=lambda k: (k[0] == "app",) + k[1:]):
        if key[0] == "shape":
            _, label, P, coll, S = key
            name = "%s P = %d %s %s" % (label.split(",")[0], P, coll, size_text(S))
        else:
            name = "%s %s %s" % (key[1].split(",")[0], key[2], key[3])
        named.append((name, rows[key]))
    return named


def geomean(xs):
    """The geometric mean of xs (positive)."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def explore_choice(rows, values):
    """(the value EXPLORE_RULE picks, {E: (targets met, targets, geometric mean of online /
    best fixed)} over the rows that have every value) for the rows of explore_rows."""
    common = [cells for _, cells in rows if all(E in cells for E in values)]
    score = {}
    for E in values:
        met = sum(sum(cells[E][3]) for cells in common)
        count = sum(len(cells[E][3]) for cells in common)
        score[E] = (met, count, geomean([cells[E][1] for cells in common]) if common else 1.0)
    # most targets met; then the lowest geometric mean of online / best fixed; then the
    # default as it stood (120), else the larger value
    pick = min(values, key=lambda E: (-score[E][0], round(score[E][2], 3), E != 120, -E))
    return pick, score, len(common)


def explore_section(shapes, apps):
    """The comparison of A2A_TUNING_EXPLORE values: the table, a summary line per value,
    the rule and the value it picks."""
    rows = explore_rows(shapes, apps)
    values = sorted({E for _, cells in rows for E in cells})
    print(EXPLORE_INTRO)
    print("| shape or application | values | chosen / best per call | online / best fixed | "
          "second run / best fixed | targets met |")
    print("|---|---|---|---|---|---|")
    names = ("choice", "total", "below library", "second")

    def met(cells):
        """'all', or the targets missed; an application of several shapes has no choice."""
        choice, _, _, ok = cells
        kinds = names if len(ok) == 4 else names[1:]
        missed = [n for n, good in zip(kinds, ok) if not good]
        return "all" if not missed else "missed " + ", ".join(missed)
    for name, cells in rows:
        have = [E for E in values if E in cells]
        print("| %s | %s | %s | %s | %s | %s |" % (
            name, "; ".join(str(E) for E in have),
            "; ".join("-" if cells[E][0] is None else "%.3f" % cells[E][0] for E in have),
            "; ".join("%.3f" % cells[E][1] for E in have),
            "; ".join("%.3f" % cells[E][2] for E in have),
            "; ".join(met(cells[E]) for E in have)))
    print("\nPer value, over the rows that have it:\n")
    for E in values:
        mine = [cells[E] for _, cells in rows if E in cells]
        print("- A2A_TUNING_EXPLORE=%d: %d rows, targets met %d of %d, rows with every target "
              "met %d; geometric mean of online / best fixed %.4f, of second run / best fixed %.4f"
              % (E, len(mine), sum(sum(c[3]) for c in mine), sum(len(c[3]) for c in mine),
                 sum(all(c[3]) for c in mine), geomean([c[1] for c in mine]),
                 geomean([c[2] for c in mine])))
    pick, score, common = explore_choice(rows, values)
    print("\n" + EXPLORE_RULE + "\n")
    print("Over the %d of %d rows that have every value (%s): %s. The rule picks **%d**.\n" % (
        common, len(rows), ", ".join(str(E) for E in values),
        "; ".join("%d: %d of %d targets, geometric mean %.4f" % (E, *score[E]) for E in values),
        pick))
    print(EXPLORE_OUTRO, end="")


REAL_INTRO = """
## Real hardware: P = 2

The issue's targets on this machine: Open MPI, P = 2 on 2 cores (`mpirun -n 2 --bind-to
core`), records of `bench/online_remake.sh p2` (`online_bench.py` with 1,000 calls
of every run, no extrapolation, 5 launches of each run alternated, under the benchmark lock;
the figures are medians over the 5 launches). Real and noisy: a total is the sum of 1,000
per-call maxima over the ranks, which a load spike of the shared machine can double, and
the per-call medians of these calls (0.2 to 4 us) differ by less than that noise between
most candidates, so "chosen / best per call" within 1.05 is as far as the noise lets one
tell; the choices of the 5 launches are listed. Every call of a run through the library's
dispatcher (the fixed runs under a one-rule tuning file, the online and second runs under
`A2A_TUNING=online`) pays its overhead; the MPI library alone does not.
"""

# how the real records' online runs learned their choices: all without A2A_VERBOSE, all
# with it, or some of each (the shapes named)
REAL_QUIET = """
The online runs are launched without `A2A_VERBOSE` (`online_bench.py --quiet`): their
choices come from the loop's summary line (`A2A_Tuning_summary`, taken after the loop),
the candidates run fixed from `a2atune candidates` (the list the library explores), and
their drifts are not counted ("-" below: the summary does not count them).
"""
REAL_VERBOSE = """
The online runs of these records were launched with `A2A_VERBOSE=1`: rank 0 prints the
decision lines inside the application's call that decides, a cost the fixed runs do not
pay (measured below). `online_remake.sh p2` launches them without it
(`online_bench.py --quiet`: the choices from the loop's summary line).
"""
REAL_MIXED = """
The online runs of %s were launched without `A2A_VERBOSE` (`online_bench.py --quiet`: the
choices from the loop's summary line, drifts not counted: "-"); the others with
`A2A_VERBOSE=1`, whose decision lines rank 0 prints inside the call that decides (measured
below).
"""
# the records made with online_bench.py --connect (all of them, or the shapes named)
REAL_CONNECT = """%s first makes one untimed `MPI_Alltoall` of the MPI library (not the
dispatcher) and a barrier (`online_bench.py --connect`): the process's first exchange pays
the MPI library's connection setup (45 to 230 us here, below), the same in every kind of
run, and no total holds it.
"""


REAL_OUTRO = """
Read with the noise in mind. The second run and the fixed MPI library run take the same
path (a tuning file's rule); a row's gap between them is launch-to-launch noise. At 16 KiB
a launch's per-call median is about 3.6 us or 7 to 11 us whatever runs, one or the other
for the whole launch (the MPI library alone and under its one-rule file, alternated, 3
launches each: 7.05 / 6.87, 7.77 / 3.60, 4.06 / 9.54 us), so those rows say which mode the
launches fell in more than which kernel is faster.

Where the MPI library wins (16 B and 1 KiB), what the online run pays that the fixed MPI
library run does not, measured (Open MPI, P = 2, `--bind-to core`, under the benchmark
lock; alltoall of 16 B, the per-call maximum over the ranks from `ONLINE_LOOP_TIMES`):

- `A2A_VERBOSE`'s decision lines, printed by rank 0 (to stderr, through mpirun's I/O
  forwarding) inside the application's call that decides: in one launch the calls around
  the decision took 34.7, 82.8 and 49.6 us, the calls around them 0.2 to 0.3 us. A
  1,000-call run of 16 B totals about 0.25 to 0.45 ms: those lines alone are 20 to 40 % of
  it. Hence `online_bench.py --quiet`. (Under SimGrid printing costs no simulated time.)
- First calls: the first call of any run took about 45 to 230 us; a liba2a kernel's first
  call on a communicator 63 to 71 us (its private duplicate of the communicator,
  `MPI_Comm_dup`, made once per communicator: kernels/common/private_comm.c; a process's
  first `MPI_Comm_dup` alone takes 50 us, 125 us once in 4 launches, its second 9 us). An
  online run pays it at the first candidate it explores that is not the MPI library; the
  fixed MPI library run never does. A 1,000-call run of 16 B, ~0.19 ms, allows 19 us over
  the best for the 1.10x target: where the MPI library is the best, exploring any liba2a
  kernel costs more than that by its duplicate communicator alone.
- Steady state, 20,000 calls, 4 launches each (medians of the per-call times): the MPI
  library alone 0.181 to 0.19 us, under a one-rule file naming it 0.191 to 0.20 us, the
  online run after its decision 0.21 us, spread_out fixed 0.31 to 0.32 us.
- The sum of the first 1,000 calls of those 20,000-call launches, without `A2A_VERBOSE`:
  the MPI library under its one-rule file 334 to 405 us, the online run 409 to 464 us.
- The table's records (`online_remake.sh p2`: `--quiet --connect`, the online tuner of
  round 0's one reduction, 5 launches of each run alternated under the benchmark lock on a
  machine shared with other jobs; medians over the launches): where the MPI library is the
  best per call (16 B and 1 KiB, both calls), the online runs chose it in 17 of 20 launches
  (alltoall 16 B: bruck in 2, tra radix=2 in 1, from call 59), and total 1.059x (alltoallv
  16 B, every target met) to 1.605x (alltoall 16 B) the best fixed run, the MPI library
  under its one-rule file; their second runs, reading the files they wrote, 0.884x to
  1.723x.
  The MPI library alone, outside the dispatcher, is 0.635x to 0.805x of that best fixed
  run in those four rows (alltoall 16 B: 0.201 ms against 0.280 ms, per-call medians 0.19
  and 0.2 us): no online or second run's total in them comes below the MPI library
  alone's, and the table counts "below library" met there only because the best fixed run
  is slower than the MPI library alone. At 16 KiB the fixed runs' per-call medians are 3.6
  to 4.7 us (bruck's 6.6 us) and the choices spread: alltoall pairwise in 4 launches and spread_out in 1, from call 103
  (pairwise 1.115x the MPI library per call; online 1.357x, every target missed);
  alltoallv the MPI library in 2, tuna radix=2 block_count=1 in 2, pairwise in 1 (online
  1.038x, the second run 1.225x).
"""


def shape_rows(recs):
    """The rows of the shapes' table (after its head), then how many meet each target."""
    counts = [0, 0, 0, 0]
    for rec in recs:
        cells, ok = judge(rec)
        counts = [c + o for c, o in zip(counts, ok)]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print("\n%d shapes: the choice within 5 %% of the exhaustive best in %d; total <= 1.10x the "
          "best fixed in %d; below the MPI library where the best is in %d; second run "
          "<= 1.02x in %d." % (len(recs), *counts))


def real_section(recs):
    """The real rows: the main table's columns, and each launch's choice."""
    print(REAL_INTRO, end="")
    quiet = [r for r in recs if r.get("quiet")]
    if len(quiet) == len(recs):
        print(REAL_QUIET)
    elif not quiet:
        print(REAL_VERBOSE)
    else:
        print(REAL_MIXED % ", ".join("%s %s" % (r["coll"], size_text(r["S"])) for r in quiet))
    connected = [r for r in recs if r.get("connect")]
    if connected:
        print(REAL_CONNECT % ("Every launch" if len(connected) == len(recs) else
                              "Every launch of " + ", ".join("%s %s" % (r["coll"], size_text(r["S"]))
                                                             for r in connected)))
    print(HEAD.replace("platform, selector", "machine"))
    shape_rows(recs)
    counted = any("drifts" in r for r in recs)
    print("\nWhat the online runs chose (winner@call it ran from, one per launch%s):\n"
          % ("; then the drifts after the choice per launch, \"-\" not counted" if counted
             else ""))
    for rec in recs:
        drifts = rec.get("drifts")
        print("- %s %s: %s%s" % (rec["coll"], size_text(rec["S"]),
                                 ", ".join(rec.get("choices", [rec["online"][1]])),
                                 "" if drifts is None else "; drifts: " +
                                 ", ".join("-" if d is None else str(d) for d in drifts)))
    print(REAL_OUTRO, end="")


def main():
    args = sys.argv[1:]
    before, apps_before, explore = None, None, []
    for option in ("--before", "--apps-before"):
        if option in args:
            i = args.index(option)
            if i + 1 >= len(args):
                args = []
                break
            if option == "--before":
                before = read_records(args[i + 1])
            else:
                apps_before = read_records(args[i + 1])
            del args[i:i + 2]
    real = []
    if "--real" in args:
        i = args.index("--real")
        if i + 1 >= len(args):
            args = []
        else:
            real = read_records(args[i + 1])
            del args[i:i + 2]
    while "--explore" in args:
        i = args.index("--explore")
        if i + 1 >= len(args):
            args = []
            break
        explore += read_records(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (1, 2) or (apps_before and len(args) != 2):
        sys.stderr.write("usage: online_table.py RECORDS.jsonl [APP-RECORDS.jsonl] "
                         "[--before OLD-RECORDS.jsonl] [--apps-before OLD-APP-RECORDS.jsonl] "
                         "[--explore OTHER-EXPLORE-RECORDS.jsonl ...] [--real REAL-RECORDS.jsonl]\n")
        sys.exit(2)
    recs = sorted(latest(read_records(args[0]), shape_key), key=shape_key)
    print(INTRO + HEAD)
    shape_rows(recs)
    calls = sorted({(r["label"], r["P"], r["calls"], r["calls_fixed"], r["calls_best"], r["target"])
                    for r in recs})
    print("\nCalls run (online; fixed; near the best, MPI library and second run) -> totals "
          "of:\n")
    for c in calls:
        print("- %s, P = %d: %d; %d; %d -> %d" % c)
    print("\nSimGrid's max-min solver precision (`maxmin/precision`; 1e-2 and 1e-3 gave the "
          "same simulated times at P = 64 on both platforms):\n")
    for label, P, coll, precision in sorted({(r["label"], r["P"], r["coll"], solver_precision(r))
                                             for r in recs}):
        print("- %s, P = %d, %s: %s" % (label, P, coll, precision))
    if before:
        before_after(recs, before)
    print(OUTRO, end="")
    apps = latest(read_records(args[1]), app_key) if len(args) == 2 else []
    if apps:
        apps_rows(apps, apps_before)
    if explore:
        shapes = [r for r in explore if "app" not in r]
        more_apps = [r for r in explore if "app" in r]
        explore_section(latest(recs + shapes, lambda r: shape_key(r) + (r["E"],)),
                        latest(apps + more_apps, app_key))
    if real:
        real_section(sorted(latest(real, shape_key), key=shape_key))


if __name__ == "__main__":
    main()
