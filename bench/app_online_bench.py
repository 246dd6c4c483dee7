#!/usr/bin/python3
"""app_online_bench.py — online tuning inside the applications (`a2atune app tc|fft --kernel
tuned` under A2A_TUNING=online) against the MPI library and every candidate fixed.

    bench/app_online_bench.py --launch "smpirun ... build/simgrid/a2atune" \\
        --app tc --args "--graph rmat:9:4" --repetitions 40 --out DIR \\
        [--explore 120,30] [--fixed-repetitions 2] [--again 1] [--record FILE --label TEXT]
        [--reuse FILE]

One launch of the application is --repetitions runs of it (closures or transforms, no
warm-up: every all-to-all counts), and its total all-to-all time is the metric comm_sum_s
(the sum over runs of each run's time inside the all-to-alls, the max over ranks). Per
A2A_TUNING_EXPLORE value: an online run (`--kernel tuned`, A2A_TUNING=online, writing
DIR/APP-E.json, A2A_VERBOSE=1 giving each shape's candidates) and a second run reading the
file (A2A_TUNING=online, A2A_TUNING_FILE); with --again N, N runs after the first, each
reading the file the run before wrote and writing its own (DIR/APP-E-2.json, ...: shapes
still exploring at a run's end resume in the next). Then the MPI library (`--kernel vendor`) and
every candidate any shape of any online run considered, fixed for every call (one kernel
and its parameters for the whole run, as `--kernel NAME` runs it). Under SimGrid every
run of a fixed kernel costs the same simulated time, so fixed kernels run
--fixed-repetitions runs and their total is the median run's time x --repetitions, except
the MPI library and the candidates within 10 % of the best so estimated: those run all
--repetitions runs (a launch's first run costs more: connections and first touches). Prints a markdown table;
--record appends one JSON line per explore value to FILE for bench/online_table.py
(with the CPU seconds of the online run's launch, cpu_online_s).
--reuse FILE takes the fixed totals (the MPI library and every candidate) from FILE's records
of the same --label, application, --args, P (the launch's rank count: -n, -np, --np,
srun's -n/--ntasks) and --repetitions: the online tuner does not touch a fixed run, so only
the online run, the second run and the later runs are launched, and the fixed candidates
those records lack (a candidate the online runs now consider). Per --explore value the
record of that A2A_TUNING_EXPLORE is taken, else the file's first of that launch at any
value (a fixed run does not depend on it: --explore 60 reuses the runs recorded at 120);
the new record names the file it reused and the A2A_TUNING_EXPLORE of the record it took
(reused_E).
A launch under smpirun that SimGrid crashes (exit 139) is launched again, 3 times at most
(its figures and CPU seconds are those of the launch that ran); a crash under any other
launcher ends the benchmark.
"""
import argparse
import json
import os
import re
import shlex
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from online_bench import launch_ranks, run_launch  # noqa: E402  (the same rank count, retry)

CANDIDATES = re.compile(r"a2a: online   candidates: (.*)$", re.M)
CANDIDATE = re.compile(r"^\s*(.*?) (?:[0-9.e+-]+ us \(noise|dropped|not measured)")


def run(args, kernel_args, reps, env_extra):
    """(comm_sum_s, median comm_s, message, stderr, CPU seconds of the launch) of one launch
    of the application; sets args.P from what it prints."""
    env = dict(os.environ, **env_extra)
    for k in ("A2A_TUNING", "A2A_TUNING_FILE", "A2A_TUNING_OUT", "A2A_VERBOSE",
              "A2A_TUNING_EXPLORE"):
        if k not in env_extra:
            env.pop(k, None)
    db = os.path.join(args.out, "app.db")
    cmd = (shlex.split(args.launch) + ["app", args.app] + shlex.split(args.args) + kernel_args +
           ["--no-vendor", "--warmup", "0", "--repetitions", str(reps), "--db", db])

    def no_db():
        """(a crashed launch may have written its result: the next one's would follow it)"""
        if os.path.exists(db):
            os.unlink(db)
    p, cpu = run_launch(cmd, "app_online_bench", env, before_attempt=no_db)
    if p.returncode != 0:
        sys.exit("app_online_bench: %s failed (exit %d): %s %s" % (
            " ".join(kernel_args), p.returncode, p.stdout[-800:], p.stderr[-1500:]))
    args.P = int(re.search(r"P = (\d+)", p.stdout).group(1))
    con = sqlite3.connect(db)
    row = con.execute("SELECT r.message, (SELECT value FROM metrics WHERE result_id = r.id AND "
                      "name = 'comm_sum_s'), (SELECT value FROM metrics WHERE result_id = r.id "
                      "AND name = 'comm_s') FROM results r").fetchone()
    con.close()
    return row[1], row[2], row[0] or "", p.stderr, cpu


def kernel_args(name):
    """The --kernel options of a candidate as the online tuner names it."""
    words = name.split()
    if words[:2] == ["MPI", "library"]:
        return ["--kernel", "vendor"]
    out = ["--kernel", words[0]]
    for w in words[1:]:
        key, value = w.split("=", 1)
        out += ["--" + key.replace("_", "-"), value]
    return out


def reused_records(path, args, P):
    """{A2A_TUNING_EXPLORE value of --explore: record} of path's records of this launch
    (label, application, workload, P, repetitions): the first of that value, else the first
    of the launch at any value; ValueError naming what is missing or malformed."""
    found = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
                key = (rec["label"], rec["app"], rec["workload"], rec["P"], rec["repetitions"])
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError("%s:%d: not a record of app_online_bench.py (%s)"
                                 % (path, n, e))
            if key == (args.label, args.app, args.args, P, args.repetitions):
                found.setdefault(rec["E"], rec)
    if not found:
        raise ValueError("--reuse %s has no record of %r %s %s P=%d, %d runs" % (
            path, args.label, args.app, args.args, P, args.repetitions))
    anyE = next(iter(found.values()))
    return {E: found.get(E, anyE) for E in explore_values(args)}


def explore_values(args):
    """The A2A_TUNING_EXPLORE values of --explore, in order."""
    return [int(x) for x in args.explore.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--launch", required=True, help="the command that runs a2atune")
    ap.add_argument("--app", required=True, choices=["tc", "fft"])
    ap.add_argument("--args", required=True, help="the application's workload options")
    ap.add_argument("--repetitions", type=int, default=40, help="runs of the application")
    ap.add_argument("--fixed-repetitions", type=int, default=2,
                    help="runs simulated for a fixed kernel (deterministic)")
    ap.add_argument("--explore", default="120", help="A2A_TUNING_EXPLORE values")
    ap.add_argument("--again", type=int, default=1,
                    help="runs after the first, each reading the file the one before wrote")
    ap.add_argument("--out", required=True, help="folder for the tuning files")
    ap.add_argument("--record", help="append the figures as JSON lines to this file")
    ap.add_argument("--label", default="", help="the platform and selector, for --record")
    ap.add_argument("--reuse", metavar="FILE",
                    help="take the fixed totals (MPI library, candidates) from FILE's records of "
                    "the same label, application, args, P and repetitions (of the same explore "
                    "value, else of any); launch only the online, second and later runs")
    args = ap.parse_args()
    reused, fixed = {}, {}
    if args.reuse:
        P = launch_ranks(shlex.split(args.launch))
        if P is None:
            ap.exit(2, "app_online_bench: --launch %r: no rank count for --reuse (give the "
                    "launcher's -n/-np/--np N, or srun's -n N/--ntasks=N)\n" % args.launch)
        try:
            reused = reused_records(args.reuse, args, P)
        except (OSError, ValueError) as e:
            ap.exit(2, "app_online_bench: %s\n" % e)
        for E in explore_values(args):
            for name, total in reused[E]["fixed"].items():
                fixed.setdefault(name, total)
    os.makedirs(args.out, exist_ok=True)
    R = args.repetitions
    online = {}
    names = ["MPI library"]
    for E in explore_values(args):
        path = os.path.abspath(os.path.join(args.out, "%s-%d.json" % (args.app, E)))
        total, _, summary, err, cpu = run(args, ["--kernel", "tuned"], R, {
            "A2A_TUNING": "online", "A2A_TUNING_EXPLORE": str(E), "A2A_TUNING_OUT": path,
            "A2A_VERBOSE": "1"})
        if reused and args.P != P:
            sys.exit("app_online_bench: the run had P=%d, --launch asked for %d: the reused "
                     "records are of P=%d" % (args.P, P, P))
        for line in CANDIDATES.findall(err):
            for item in line.split(";"):
                m = CANDIDATE.match(item)
                if m and m.group(1) not in names:
                    names.append(m.group(1))
        with open(path) as f:
            written = json.load(f)
        rules = len(written["alltoall"]) + len(written["alltoallv"])
        later, read = [], path
        for k in range(2, args.again + 2):
            out = os.path.abspath(os.path.join(args.out, "%s-%d-%d.json" % (args.app, E, k)))
            t, _, s, _, _ = run(args, ["--kernel", "tuned"], R, {
                "A2A_TUNING": "online", "A2A_TUNING_EXPLORE": str(E), "A2A_TUNING_FILE": read,
                "A2A_TUNING_OUT": out})
            later.append((t, s))
            read = out
        again, again_summary = later[0]
        online[E] = (total, summary, again, again_summary, rules, later, cpu)
    # a reused record's candidates near the best ran every run already
    done_full = {n for rec in reused.values() for n in rec["fixed_full"]}
    for name in names:
        if name not in fixed:
            _, median, _, _, _ = run(args, kernel_args(name), args.fixed_repetitions, {})
            fixed[name] = median * R
    near = [n for n in fixed if n == "MPI library" or fixed[n] <= 1.10 * min(fixed.values())]
    if args.fixed_repetitions < R:
        for name in near:
            if name not in done_full:
                fixed[name] = run(args, kernel_args(name), R, {})[0]
    best = min(fixed, key=fixed.get)
    print("| %s %s, P = %d, %d runs | total all-to-all (ms) | / best fixed |"
          % (args.app, args.args, args.P, R))
    print("|---|---|---|")
    for name in sorted(fixed, key=fixed.get):
        print("| fixed %s | %.3f | %.3f |" % (name, fixed[name] * 1e3, fixed[name] / fixed[best]))
    for E, (total, summary, again, again_summary, rules, later, cpu) in online.items():
        print("| online, A2A_TUNING_EXPLORE=%d (simulation: %.0f s CPU) | %.3f | %.3f |"
              % (E, cpu, total * 1e3, total / fixed[best]))
        print("| second run (file of %d rules) | %.3f | %.3f |" % (rules, again * 1e3,
                                                                  again / fixed[best]))
        for k, (t, _) in enumerate(later[1:], 3):
            print("| run %d (reading run %d's file) | %.3f | %.3f |" % (k, k - 1, t * 1e3,
                                                                    t / fixed[best]))
        print("\n%s\n%s\n" % (summary, "\n".join(s for _, s in later)))
        if args.record:
            rec = {"label": args.label, "P": args.P, "app": args.app, "workload": args.args,
                   "repetitions": R, "fixed_repetitions": args.fixed_repetitions, "E": E,
                   "fixed": fixed, "fixed_full": near, "best": best,
                   "library": fixed["MPI library"], "online": [total, summary],
                   "again": [again, again_summary], "later": [list(x) for x in later[1:]],
                   "rules": rules, "cpu_online_s": round(cpu, 1)}
            if reused:
                rec["reused"] = os.path.basename(args.reuse)
                rec["reused_E"] = reused[E]["E"]
            with open(args.record, "a") as f:
                f.write(json.dumps(rec, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
