#!/usr/bin/python3
"""online_bench.py — the online tuner (A2A_TUNING=online) against an exhaustive run of the
same candidates, on an application loop (bench/online_loop.c).

    bench/online_bench.py --launch "mpirun.openmpi -n 2 --bind-to core" \\
        --binary build/openmpi/bench/online_loop --out DIR [--sizes 16,1024,16384]
        [--calls 1000] [--repeats 3] [--explore N,...] [--alltoallv]
        [--record FILE --label TEXT] [--quiet [--a2atune PATH]] [--connect]

For each S: one online run per A2A_TUNING_EXPLORE value (writing DIR/S-E.json, logging
its decision and candidates under A2A_VERBOSE=1), the MPI library alone, every candidate
of the online run fixed from the start (a one-rule tuning file), and a second run that
reads the written file.

--quiet launches the online runs without A2A_VERBOSE: its lines are printed by rank 0
inside the timed call that decides, which on real hardware costs tens of us against calls
of under 1 us (under SimGrid printing costs no simulated time: no need there). The decision
(winner, the call it runs from, calls exploring) then comes from online_loop's `summary:`
line (A2A_Tuning_summary; a shape still exploring or on its warm-up at the end is recorded
as such, with no call it runs from), and the candidates to run fixed from `a2atune
candidates --json` for the run's P, S and collective (--a2atune, default the a2atune beside
--binary's folder: build/openmpi/a2atune for build/openmpi/bench/online_loop; a SimGrid
build's runs only under smpirun), the list the library explores. The record then says "quiet": true, its "candidates" are the labels
without medians, and its drift counts ("drifts", one per launch; counted from the
"drifted from" lines under A2A_VERBOSE) are null: the summary does not count drifts.
--connect gives every launch ONLINE_LOOP_CONNECT=1: the loop first makes one untimed
MPI_Alltoall of the MPI library (not the dispatcher), so that no run's total holds the
MPI library's connection setup (on shared memory 45 to 230 us at P = 2, against calls of
0.2 us); the record says "connect": true. Each is launched --repeats times; the table shows the median over
launches of total_s (the loop's all-to-all time) and of median_us (the per-call max over
ranks, last half of the loop). Under SimGrid the launch is an smpirun command line and
the times are simulated (deterministic: --repeats 1); simulating 1,000 calls at P = 256
costs up to 1.5 s of wall time a call, so there the runs are shorter (--calls for online
runs, --calls-fixed for fixed candidates, --calls-best for the MPI library, the second run
and the fixed candidates within 10 % of the best) and --target N extrapolates every total to
N calls: total + (N - calls) x the mean per-call time of the last half of the run, and
for an online run of the calls from its decision on (ONLINE_LOOP_TIMES; they include the
monitoring windows that fell in them). Prints a markdown table per S;
--record appends one JSON line per S to FILE (the figures of the table, the CPU time of
each launch's simulation, --label naming the platform and selector) for bench/online_table.py.
An smpirun launch that sets no maxmin/precision gets `a2a simulate`'s (1e-2); --record
keeps the launch's --cfg options (give smpirun its options, not a script wrapping it).
--alltoallv runs the loop's alltoallv (blocks of S/2..S bytes) and fixes alltoallv rules.
--reuse FILE takes the MPI library's and the fixed candidates' figures from FILE's record of
the same label, P (the launch's -n, -np, --np or srun's --ntasks), collective and S (a change
of the online tuner alone changes neither) and launches only the online run, the second run
and the fixed candidates that record lacks; the new record says which file it reused and the
A2A_TUNING_EXPLORE of the record it took (reused_E). A fixed run does not depend on
A2A_TUNING_EXPLORE: of the shape's records, the last one of the first --explore value is
taken, else the file's last one of any value (so --explore 30,60 reuses the fixed runs
recorded beside an online run at 120).

--fixed-only launches no online or second run: the MPI library (--calls-library calls,
default --calls-best) and each
kernel of --kernels (a comma-separated list of candidate labels as the online tuner logs
them: "bruck,tra radix=2,tuna radix=4 block_count=3") fixed from the start (--calls-fixed
calls), then those within 10 % of the best --calls-best calls, for a later --reuse of the
record. It appends the shape's record after every launch (the last line of a shape holds
all its launches so far: stopping midway loses none) and, given --reuse, launches only the
kernels that file's record of the shape lacks (or that it ran fewer calls than asked).
--cpu-limit SECONDS ends a fixed launch at that CPU time (RLIMIT_CPU): the record lists it
under over_cpu_limit (a launch that fails: under failed), and a later --reuse (online or
--fixed-only) does not launch it again.
"""
import argparse
import json
import os
import re
import resource
import shlex
import signal
import statistics
import subprocess
import sys

LINE = re.compile(r"S=(\d+) calls=(\d+) total_s=(\S+) median_us=(\S+) q3_us=(\S+) mean_us=(\S+) "
                  r"(ok|WRONG)")
DECISION = re.compile(r"a2a: online MPI_Alltoallv? P=\d+ S=\S+ -> (.*) from call (\d+) .*?"
                      r"(\d+) calls exploring")
CANDIDATES = re.compile(r"a2a: online   candidates: (.*)$", re.M)
# online_loop's line of A2A_Tuning_summary(MPI_COMM_WORLD) (include/a2a_tuned.h); its
# entries are separated by "; " before a shape ("alltoall P=2 S=16..31: ...") or the
# alltoallv agreements' entries ("alltoallv P=2: 12 calls on a prediction ...", "S of
# alltoallv agreed ..."); a still-exploring entry has a "; " of its own inside
SUMMARY = re.compile(r"^summary: (.*)$", re.M)
SUMMARY_SPLIT = re.compile(r"; (?=alltoallv? P=\d+|S of alltoallv agreed)")
SUMMARY_SHAPE = re.compile(r"(alltoallv?) P=(\d+) S=(\d+)\.\.(\d+): (.*)$")
SUMMARY_STATES = (
    ("decided", re.compile(r"(.*) from call (\d+) of \d+ \(\d+ candidates, (\d+) calls exploring\)$")),
    ("single", re.compile(r"(MPI library), \d+ calls \(no other candidate\)$")),
    ("warm-up", re.compile(r"MPI library, \d+ calls \(the shape's warm-up")),
    ("exploring", re.compile(r"still exploring after \d+ calls \((\d+) calls exploring")),
    ("rule", re.compile(r"(.*) by the tuning file's rule, \d+ calls$")))
# the winner's text of a shape the online run left undecided (the record's "online" and
# "choices" carry it, with no call it runs from)
UNDECIDED = {"warm-up": "none (on its warm-up at the end: the MPI library ran every call)",
             "exploring": "none (still exploring at the end)"}
# the max-min solver precision of `a2a simulate` (scripts/a2a_tools/simulation/simulate.py, smpi_options):
# SimGrid 3.32's default and 1e-3 segfault with spread_out at P = 256 on torus_tofud.xml
SOLVER_PRECISION = "maxmin/precision:1e-2"


def launch_words(text):
    """The words of the launch command; an smpirun launch that sets no max-min solver
    precision gets SOLVER_PRECISION, so that it simulates as `a2a simulate` does."""
    words = shlex.split(text)
    if (words and os.path.basename(words[0]) == "smpirun" and
            not any("maxmin/precision" in w for w in words)):
        words[1:1] = ["--cfg=" + SOLVER_PRECISION]
    return words


# the launchers whose rank count launch_ranks reads, and how each spells it: mpirun and
# mpiexec (Open MPI, MPICH's Hydra; with a suffix: mpirun.openmpi), smpirun, srun
MPI_LAUNCHER = re.compile(r"^(mpirun|mpiexec|orterun|prterun|smpirun)([.-][\w.]+)?$")
RANKS_OPTIONS = {"mpi": ("-n", "-np", "--n", "--np"), "srun": ("-n", "--ntasks")}


def launch_ranks(words):
    """The number of ranks the launch command asks for, from the options after its
    launcher (the first word that is mpirun, mpiexec, smpirun or srun, so that a wrapper
    such as flock or env may come first): -n N, -np N, --n N, --np N (mpirun, mpiexec,
    smpirun), -n N, -nN, --ntasks N (srun), and --OPTION=N for the long ones; the last one
    given counts, as for the launchers. None when there is no launcher or no such option."""
    kind = None
    ranks = None
    for i, w in enumerate(words):
        if kind is None:
            base = os.path.basename(w)
            kind = "srun" if base == "srun" else "mpi" if MPI_LAUNCHER.match(base) else None
            continue
        name, eq, value = w.partition("=")
        if eq and name.startswith("--") and name in RANKS_OPTIONS[kind]:
            pass
        elif w in RANKS_OPTIONS[kind] and i + 1 < len(words):
            value = words[i + 1]
        elif kind == "srun" and w.startswith("-n") and w[2:].isdigit():
            value = w[2:]
        else:
            continue
        if value.isdigit() and int(value) > 0:
            ranks = int(value)
    return ranks


def simgrid_options(words):
    """The --cfg options of an smpirun launch ('maxmin/precision:1e-2', ...), for --record."""
    return [w[len("--cfg="):] for w in words if w.startswith("--cfg=")]


def simulated(words):
    """Whether the launch command runs under SimGrid (its launcher, or a word after a
    wrapper such as flock or env, is smpirun)."""
    return any(os.path.basename(w) == "smpirun" for w in words)


def run_launch(words, who, env, before_attempt=None, preexec_fn=None):
    """(the completed process, its CPU seconds) of the command words, output captured. A
    SimGrid launch that crashed (SimGrid 3.32 segfaults now and then in SMPI: exit 139; the
    same launch again runs, and its simulated times are deterministic) is launched again, 3
    times at most, each time after before_attempt (which clears what a crashed launch left);
    the CPU seconds are the last launch's alone. Any other launch runs once: a crash of a
    real MPI run is its failure."""
    for attempt in range(3):
        if before_attempt:
            before_attempt()
        t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(words, env=env, capture_output=True, text=True,
                           preexec_fn=preexec_fn)
        t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = t1.ru_utime + t1.ru_stime - t0.ru_utime - t0.ru_stime
        if p.returncode != 139 or not simulated(words):
            break
        sys.stderr.write("%s: the simulation crashed (signal 11, %.0f s CPU); once more\n"
                         % (who, cpu))
    return p, cpu


class LaunchFailed(Exception):
    """A launch that ended without its result line (or with a wrong one)."""


def cpu_limiter(seconds):
    """A preexec_fn that ends the launched processes at seconds of CPU each (None: no limit)."""
    if not seconds:
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_CPU, (int(seconds), int(seconds) + 5))


def launch(args, S, env_extra, calls=None, after_decision=False, cpu_limit=0):
    """(total_s, median_us, stderr, CPU seconds, mean_us, stdout) of one launch; total_s
    extrapolated to --target calls. With cpu_limit, a launch that reached it: None."""
    calls = calls or args.calls
    env = dict(os.environ, **env_extra)
    times_path = os.path.join(args.out, "times.txt")
    if after_decision:
        env["ONLINE_LOOP_TIMES"] = times_path
    for k in ("A2A_TUNING", "A2A_TUNING_FILE", "A2A_TUNING_OUT", "A2A_VERBOSE",
              "A2A_TUNING_EXPLORE", "ONLINE_LOOP_CONNECT"):
        if k not in env_extra:
            env.pop(k, None)
    if args.connect:
        env["ONLINE_LOOP_CONNECT"] = "1"
    p, cpu = run_launch(launch_words(args.launch) + [args.binary, str(S), str(calls)] +
                        (["v"] if args.alltoallv else []), "online_bench", env,
                        preexec_fn=cpu_limiter(cpu_limit))
    m = LINE.search(p.stdout)
    # (ended by SIGXCPU: directly, or as the exit status of smpirun's shell)
    if cpu_limit and p.returncode != 0 and (p.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU)
                                            or cpu >= 0.9 * cpu_limit):
        return None
    if p.returncode != 0 or not m or m.group(7) != "ok":
        raise LaunchFailed("launch failed (exit %d, %.0f s CPU): %s %s"
                           % (p.returncode, cpu, p.stdout[-500:], p.stderr[-1500:]))
    target = args.target or calls
    per_call = float(m.group(6))
    at = decision_call(args, p.stdout, p.stderr, S) if after_decision else None
    if at and at <= calls:
        with open(times_path) as f:
            after = [float(x) for x in f.read().split()][at - 1:]
        per_call = statistics.mean(after)
    return (float(m.group(3)) + (target - calls) * per_call * 1e-6,
            float(m.group(4)), p.stderr, cpu, per_call, p.stdout)


def summary_decision(stdout, coll, S):
    """The online run's outcome for the loop's shape (coll, S) from online_loop's summary
    line: {"P", "state", "winner", "at", "explored"}, state one of decided, single (the MPI
    library the only candidate: from call 1, none exploring), warm-up and exploring (winner
    UNDECIDED's text, at None), rule (a tuning file's rule ran it: at 1, none exploring);
    None when the summary has no entry of the shape."""
    lines = SUMMARY.findall(stdout)
    for entry in SUMMARY_SPLIT.split(lines[-1]) if lines else []:
        m = SUMMARY_SHAPE.match(entry)
        if not m or m.group(1) != coll or not int(m.group(3)) <= S <= int(m.group(4)):
            continue
        for state, pattern in SUMMARY_STATES:
            d = pattern.match(m.group(5))
            if not d:
                continue
            out = {"P": int(m.group(2)), "state": state, "winner": UNDECIDED.get(state),
                   "at": None, "explored": 0}
            if state == "decided":
                out.update(winner=d.group(1), at=int(d.group(2)), explored=int(d.group(3)))
            elif state in ("single", "rule"):
                out.update(winner=d.group(1), at=1)
            elif state == "exploring":
                out["explored"] = int(d.group(1))
            return out
    return None


def decision_call(args, stdout, stderr, S):
    """The call from which the online run's last decision ran (its A2A_VERBOSE lines, or
    with --quiet its summary line); None when it decided nothing."""
    if args.quiet:
        d = summary_decision(stdout, "alltoallv" if args.alltoallv else "alltoall", S)
        return d["at"] if d else None
    d = list(DECISION.finditer(stderr))[-1:]
    return int(d[0].group(2)) if d else None


def library_candidates(a2atune, P, S, coll):
    """The labels of the candidates the library explores for (P, S, coll), in its order
    (`a2atune candidates --json`: the list online tuning makes)."""
    p = subprocess.run([a2atune, "candidates", "--P", str(P), "--S", str(S), "--collective",
                        coll, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise LaunchFailed("%s candidates failed (exit %d; a SimGrid build's a2atune runs "
                           "only under smpirun: give --a2atune another build's): %s"
                           % (a2atune, p.returncode, p.stderr.strip()[-500:]))
    return [c["text"] for c in json.loads(p.stdout)[0]["candidates"]]


def online_outcome(args, res, S, coll, known):
    """What one online run (launch's result res) decided: (winner, the call it runs from or
    None, drifts or None, calls exploring, the record's candidates text, the candidates'
    labels, P). Verbose: the run's last decision and candidates lines (after a drift a
    challenger kept or a new exploration decides again); --quiet: its summary line and
    `a2atune candidates` (known caches the labels by P). Exits when neither says."""
    if args.quiet:
        d = summary_decision(res[5], coll, S)
        if not d:
            sys.exit("online_bench: no %s S=%d in the online run's summary line: %s"
                     % (coll, S, res[5][-800:]))
        if d["winner"] in UNDECIDED.values():
            sys.stderr.write("online_bench: %s S=%d: the online run ended %s\n"
                             % (coll, S, d["winner"][len("none ("):-1]))
        if d["P"] not in known:
            known[d["P"]] = library_candidates(args.a2atune, d["P"], S, coll)
        labels = known[d["P"]]
        return (d["winner"], d["at"], None, d["explored"], "; ".join(labels), labels, d["P"])
    d = list(DECISION.finditer(res[2]))[-1:] or [None]
    c = list(CANDIDATES.finditer(res[2]))[-1:] or [None]
    if not d[0] or not c[0]:
        sys.exit("online_bench: no decision in the log: " + res[2][-800:])
    labels = [re.sub(r" [0-9.e+-]+ us.*$", "", part.strip()) for part in c[0].group(1).split(";")]
    return (d[0].group(1), int(d[0].group(2)), res[2].count("drifted from"), int(d[0].group(3)),
            c[0].group(1).strip(), labels, int(re.search(r"P=(\d+)", res[2]).group(1)))


def choice_text(winner, at):
    """'tra radix=2@46': the winner and the call it ran from (an undecided run: its text)."""
    return winner if at is None else "%s@%d" % (winner, at)


def drift_text(drifts):
    """The drifts of an online run after its choice in the table: '+1 drift', '' for none,
    ' (drifts -)' when not known (--quiet)."""
    if drifts is None:
        return " (drifts -)"
    return "+%d drift%s" % (drifts, "s" * (drifts > 1)) if drifts else ""


def reused_record(reused, label, P, coll, S, E, connect=False):
    """The record of --reuse (reused: shape key -> its records in file order) that gives the
    shape's MPI library and fixed runs: the last one of A2A_TUNING_EXPLORE E, else the last
    one of any E (a fixed run does not depend on it); None when the shape has none. Exits
    (2, one line) when that record's launches differ from these in --connect: their totals
    would hold the connection setup on one side only."""
    recs = reused.get((label, P, coll, S), [])
    same = [r for r in recs if r["E"] == E]
    rec = (same or recs or [None])[-1]
    if rec and bool(rec.get("connect")) != connect:
        sys.stderr.write("online_bench: the reused record of %s P=%d %s S=%d was made %s "
                         "--connect: launch it %s too, or do not reuse it\n"
                         % (label, P, coll, S, "with" if rec.get("connect") else "without",
                            "with it" if rec.get("connect") else "without it"))
        sys.exit(2)
    return rec


def candidate_rule(label):
    """'tra radix=2' -> ('tra', {'radix': 2}); 'MPI library' -> vendor."""
    if label.startswith("MPI library"):
        return "vendor", {"vendor_algorithm": 0}
    words = label.split()
    return words[0], {k: int(v) for k, v in (w.split("=") for w in words[1:])}


def fixed_file(path, kernel, params, alltoallv):
    """A tuning file with one rule: every P and S of the collective to kernel."""
    with open(path, "w") as f:
        json.dump({"format": "a2a-tuning", "version": 1, "mpi_library": "any",
                   "alltoallv" if alltoallv else "alltoall":
                   [{"P": [0, None], "S": [0, None], "kernel": kernel, "params": params}]}, f)


def fixed_only(args, P, coll, reused):
    """--fixed-only: per S, the MPI library and each kernel of --kernels fixed from the start,
    then those within 10 % of the best longer; the shape's record appended after each launch
    (the launches of --reuse's record of the shape kept, not launched again)."""
    labels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    args.target = args.target or args.calls  # every total of the record at the same N calls
    best_calls = args.calls_best or args.calls_fixed or args.calls
    few_calls = args.calls_fixed or args.calls
    E0 = int(args.explore.split(",")[0])
    for S in [int(s) for s in args.sizes.split(",")]:
        old = reused_record(reused, args.label, P, coll, S, E0, args.connect) or {}
        rec = {"label": args.label, "P": P, "coll": coll, "S": S, "E": E0, "fixed_only": True,
               "calls_fixed": few_calls, "calls_best": best_calls,
               "target": args.target or args.calls, "fixed": {}, "fixed_calls": {},
               "over_cpu_limit": dict(old.get("over_cpu_limit", {})),
               "simgrid": simgrid_options(launch_words(args.launch))}
        if args.connect:
            rec["connect"] = True
        for label, v in old.get("fixed", {}).items():
            rec["fixed"][label] = v
            rec["fixed_calls"][label] = old.get("fixed_calls", {}).get(label, old["calls_fixed"])
        if "library" in old:
            rec["library"] = old["library"]
            rec["library_calls"] = old.get("library_calls", old["calls_best"])
        if old:
            rec["reused"] = os.path.basename(args.reuse)
            rec["reused_E"] = old["E"]

        def run(label, calls):
            """Launch label fixed for calls calls (the MPI library: no file), record it."""
            kernel, params = candidate_rule(label)
            env = {}
            if kernel != "vendor":
                path = os.path.join(args.out, "fixed-%s.json" % re.sub(r"[ =]", "_", label))
                fixed_file(path, kernel, params, args.alltoallv)
                env = {"A2A_TUNING_FILE": path}
            try:
                res = launch(args, S, env, calls, cpu_limit=args.cpu_limit)
            except LaunchFailed as e:
                # (SimGrid 3.32 aborts on some shapes: the cause goes in the record)
                why = [w for w in str(e).splitlines() if w.strip()]
                rec.setdefault("failed", {})[label] = " | ".join(why[:1] + why[-3:])[:600]
                print("P=%d %s S=%d %s, %d calls: %s" % (P, coll, S, label, calls, why[0]))
                res = False
            if res is False:
                pass
            elif res is None:
                rec["over_cpu_limit"][label] = args.cpu_limit
                print("P=%d %s S=%d %s, %d calls: over --cpu-limit %d s, not recorded"
                      % (P, coll, S, label, calls, args.cpu_limit))
            else:
                rec["fixed"][label] = [round(res[0], 9), res[1], round(res[3], 1)]
                rec["fixed_calls"][label] = calls
                if label == "MPI library":
                    rec["library"] = rec["fixed"][label]
                    rec["library_calls"] = calls
                print("P=%d %s S=%d %s, %d calls: %.4g us a call (median), total %.6g s, "
                      "%.1f s CPU" % (P, coll, S, label, calls, res[1], res[0], res[3]))
            if args.record:
                with open(args.record, "a") as f:
                    f.write(json.dumps(rec, sort_keys=True) + "\n")
            sys.stdout.flush()

        library_calls = args.calls_library or best_calls
        for label, calls in [("MPI library", library_calls)] + [(k, few_calls) for k in labels]:
            if label in rec["over_cpu_limit"] or label in old.get("failed", {}):
                print("P=%d %s S=%d %s: over the CPU limit or failed in %s, not launched"
                      % (P, coll, S, label, args.reuse))
                if label in old.get("failed", {}):
                    rec.setdefault("failed", {})[label] = old["failed"][label]
            elif rec["fixed_calls"].get(label, 0) < calls:
                run(label, calls)
        top = min((v[1] for v in rec["fixed"].values()), default=0)
        for label in [k for k in ["MPI library"] + labels if k in rec["fixed"]]:
            wanted = library_calls if label == "MPI library" else best_calls
            if (rec["fixed"][label][1] <= 1.10 * top and rec["fixed_calls"][label] < wanted
                    and label not in rec["over_cpu_limit"]):
                run(label, wanted)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--launch", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="16,1024,16384")
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--calls-fixed", type=int, default=0, help="default: --calls")
    ap.add_argument("--calls-best", type=int, default=0,
                    help="run the MPI library, the second run and the fixed candidates within "
                    "10%% of the best this many calls (the others: --calls-fixed)")
    ap.add_argument("--target", type=int, default=0, help="extrapolate totals to N calls")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--explore", default="120")
    ap.add_argument("--alltoallv", action="store_true")
    ap.add_argument("--record", help="append one JSON line per S to this file")
    ap.add_argument("--label", default="", help="the platform and selector, for --record")
    ap.add_argument("--reuse", help="take the MPI library's and the fixed runs from this "
                    "file's record of the same shape, of the first --explore value or else of "
                    "any (launch the online and second runs)")
    ap.add_argument("--fixed-only", action="store_true",
                    help="launch only the MPI library and the --kernels fixed (for --reuse)")
    ap.add_argument("--kernels", default="",
                    help="with --fixed-only: the candidates to fix, comma-separated labels "
                    "('bruck,tra radix=2,tuna radix=4 block_count=3')")
    ap.add_argument("--calls-library", type=int, default=0,
                    help="with --fixed-only: the MPI library's calls (default: --calls-best)")
    ap.add_argument("--quiet", action="store_true",
                    help="launch the online runs without A2A_VERBOSE (whose lines rank 0 prints "
                    "inside the timed call that decides): the decision from online_loop's "
                    "summary line, the candidates from `a2atune candidates`; the record says "
                    "\"quiet\": true, its drift counts null")
    ap.add_argument("--a2atune", help="with --quiet: the a2atune whose `candidates` lists the "
                    "candidates (default: the a2atune beside --binary's folder)")
    ap.add_argument("--connect", action="store_true",
                    help="every launch makes one untimed MPI_Alltoall of the MPI library "
                    "before its loop (ONLINE_LOOP_CONNECT=1): no total holds the MPI library's "
                    "connection setup; the record says \"connect\": true")
    ap.add_argument("--cpu-limit", type=int, default=0, metavar="SECONDS",
                    help="with --fixed-only: end a fixed launch at SECONDS of CPU; recorded "
                    "as over the limit, and not launched again by --reuse")
    args = ap.parse_args()
    if (args.kernels or args.cpu_limit or args.calls_library) and not args.fixed_only:
        ap.error("--kernels, --calls-library and --cpu-limit go with --fixed-only")
    if args.a2atune and not args.quiet:
        ap.error("--a2atune goes with --quiet")
    if args.quiet and not args.fixed_only:
        args.a2atune = args.a2atune or os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(args.binary))), "a2atune")
        if not os.access(args.a2atune, os.X_OK):
            ap.error("--quiet: no a2atune program at %s (give --a2atune PATH)" % args.a2atune)
    words = launch_words(args.launch)
    P = launch_ranks(words)
    if args.reuse and P is None:
        ap.exit(2, "online_bench: --launch %r: no rank count for --reuse (give the launcher's "
                "-n/-np/--np N, or srun's -n N/--ntasks=N)\n" % args.launch)
    reused = {}
    if args.reuse and not os.path.exists(args.reuse) and not args.fixed_only:
        ap.error("--reuse %s: no such file" % args.reuse)
    if args.reuse and os.path.exists(args.reuse):  # (--fixed-only: none recorded yet)
        with open(args.reuse) as f:
            for line in f:
                rec = json.loads(line)
                key = (rec["label"], rec["P"], rec["coll"], rec["S"])
                reused.setdefault(key, []).append(rec)
    coll = "alltoallv" if args.alltoallv else "alltoall"
    os.makedirs(args.out, exist_ok=True)
    if args.fixed_only:
        if not P:
            ap.error("--fixed-only needs the launch's rank count (-np N or -n N)")
        fixed_only(args, P, coll, reused)
        return
    med = statistics.median
    for S in [int(s) for s in args.sizes.split(",")]:
        # every repeat runs every configuration once, so that the load of a shared machine
        # falls on all of them alike
        default, online, fixed, files, known = [], {}, {}, {}, {}
        E0 = int(args.explore.split(",")[0])
        old = reused_record(reused, args.label, P, coll, S, E0, args.connect)
        if args.reuse and not old:
            sys.exit("online_bench: --reuse %s has no record of %s P=%d %s S=%d (of any "
                     "A2A_TUNING_EXPLORE)" % (args.reuse, args.label, P, coll, S))
        for r in range(args.repeats):
            if old:  # (total, median, stderr, CPU) as launch gives them
                default.append((old["library"][0], old["library"][1], "", old["library"][2]))
                for label, v in old["fixed"].items():
                    fixed.setdefault(label, []).append((v[0], v[1], "", v[2]))
            else:
                default.append(launch(args, S, {}, args.calls_best or args.calls_fixed))
            for E in args.explore.split(","):
                out = os.path.join(args.out, "%d-%s-%d.json" % (S, E, r))
                env = {"A2A_TUNING": "online", "A2A_TUNING_OUT": out, "A2A_TUNING_EXPLORE": E}
                if not args.quiet:
                    env["A2A_VERBOSE"] = "1"
                res = launch(args, S, env, after_decision=True)
                winner, at, drifts, explored, cands, labels, ran = online_outcome(
                    args, res, S, coll, known)
                if old and ran != P:
                    sys.exit("online_bench: the run had P=%d, --launch asked for %d: the "
                             "reused record is of P=%d" % (ran, P, P))
                over = dict((old or {}).get("over_cpu_limit", {}), **(old or {}).get("failed", {}))
                for label in labels:
                    if label in over and label not in files:
                        files[label] = None
                        sys.stderr.write("online_bench: fixed %s was over the CPU limit or failed "
                                         "in %s: not launched\n" % (label, args.reuse))
                    if label not in files and not label.endswith(("dropped", "not measured")):
                        kernel, params = candidate_rule(label)
                        files[label] = os.path.join(args.out, "fixed-%s.json" % re.sub(r"[ =]", "_", label))
                        fixed_file(files[label], kernel, params, args.alltoallv)
                again = launch(args, S, {"A2A_TUNING": "online", "A2A_TUNING_FILE": out},
                               args.calls_best or args.calls_fixed)
                online.setdefault(E, []).append((winner, at, drifts, res, again, explored,
                                                 cands, ran))
            for label, path in files.items():
                if path and len(fixed.get(label, [])) <= r:
                    fixed.setdefault(label, []).append(launch(args, S, {"A2A_TUNING_FILE": path},
                                                              args.calls_fixed))
            if args.calls_best:
                # the candidates near the best again, longer: their means decide the ratios
                # (a reused record's were)
                top = min(runs[-1][1] for runs in fixed.values())
                for label, path in files.items():
                    if path and fixed[label][-1][1] <= 1.10 * top and label not in (old or {}).get("fixed", {}):
                        fixed[label][-1] = launch(args, S, {"A2A_TUNING_FILE": path},
                                                  args.calls_best)
        fmed = {k: (med([v[0] for v in runs]), med([v[1] for v in runs])) for k, runs in fixed.items()}
        dmed = (med([v[0] for v in default]), med([v[1] for v in default]))
        best = min(fmed, key=lambda k: fmed[k][1])
        best_total = min(v[0] for v in fmed.values())
        print("\n### S = %d B, %d calls (fixed: %d)%s, %d launch(es) each (medians)\n"
              % (S, args.calls, args.calls_fixed or args.calls,
                 ", totals extrapolated to %d calls" % args.target if args.target else "", args.repeats))
        print("| run | total all-to-all s | per-call median us |")
        print("|---|---|---|")
        print("| MPI library alone | %.6g | %.4g |" % dmed)
        for label, v in sorted(fmed.items(), key=lambda kv: kv[1][1]):
            print("| fixed %s%s | %.6g | %.4g |" % (label, " (exhaustive best)" if label == best else "",
                                                 v[0], v[1]))
        for E, runs in online.items():
            chosen = ", ".join(choice_text(w, at) + drift_text(rs) for w, at, rs, *_ in runs)
            within = sum(1 for w, *_ in runs if w in fmed and fmed[w][1] <= 1.05 * fmed[best][1])
            tot = med([x[3][0] for x in runs])
            again = med([x[4][0] for x in runs])
            print("| online E=%s: chose %s; within 5%% of the best in %d of %d | %.6g | %.4g |"
                  % (E, chosen, within, len(runs), tot, med([x[3][1] for x in runs])))
            print("| online E=%s: total / best fixed total %.3f, / MPI library %.3f | | |"
                  % (E, tot / best_total, tot / dmed[0]))
            print("| second run reading the file (E=%s) | %.6g | %.4g |"
                  % (E, again, med([x[4][1] for x in runs])))
            print("| second run: total / best fixed total %.3f | | |" % (again / best_total))
            if args.record:
                first = runs[0]
                rec = {"label": args.label, "P": first[7],
                       "coll": "alltoallv" if args.alltoallv else "alltoall", "S": S, "E": int(E),
                       "calls": args.calls, "calls_fixed": args.calls_fixed or args.calls,
                       "calls_best": args.calls_best or args.calls_fixed or args.calls,
                       "target": args.target or args.calls,
                       "library": [round(dmed[0], 9), dmed[1], round(default[0][3], 1)],
                       "fixed": {k: [round(v[0], 9), v[1], round(fixed[k][0][3], 1)]
                                 for k, v in fmed.items()},
                       "online": [round(tot, 9), first[0], first[1], first[5],
                                  round(first[3][3], 1), first[3][4]],
                       "candidates": first[6],
                       "choices": [choice_text(w, at) for w, at, *_ in runs],
                       "drifts": [rs for _, _, rs, *_ in runs],
                       "again": [round(again, 9), round(first[4][3], 1)],
                       "simgrid": simgrid_options(launch_words(args.launch))}
                if old:
                    rec["reused"] = os.path.basename(args.reuse)
                    rec["reused_E"] = old["E"]
                if args.quiet:
                    rec["quiet"] = True
                if args.connect:
                    rec["connect"] = True
                with open(args.record, "a") as f:
                    f.write(json.dumps(rec, sort_keys=True) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except LaunchFailed as e:
        sys.exit("online_bench: %s" % e)
