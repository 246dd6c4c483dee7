#!/usr/bin/python3
"""online_table.py — docs/results/online-sim.md, the online tuner's targets, from the JSON
lines that bench/online_bench.py --record and bench/app_online_bench.py --record wrote.

    bench/online_table.py tests/data/online-sim.jsonl tests/data/online-apps-sim.jsonl \
        --explore tests/data/online-sim-explore.jsonl \
        --explore tests/data/online-apps-sim-explore.jsonl \
        --real tests/data/online-real-p2.jsonl > docs/results/online-sim.md

The page's text is its template, bench/online-sim.md.in, beside this script; the script
fills in what the records give: the tables, the counts of targets met, the lists. In the
template `{{name}}` is replaced by the value of name, and `{{#name}}...{{/name}}` is kept
where name holds (e.g. the applications' records were given) and dropped where it does
not; a name the script does not know is an error (exit 2).

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

--before FILE: records of the same shapes made by another online tuner (to compare a
change of the tuner); a table puts each shape's choice and ratios in FILE and in the
records side by side, and a paragraph says what moved (the choices, the calls exploring,
the totals, the second runs, the targets met). --apps-before FILE does the same for the
applications' records. The page is made without them.

--explore FILE (repeatable): records of the shapes or of the applications (either tool's)
made at other A2A_TUNING_EXPLORE values. A last section compares the values: per shape and
application row, at each value it has, the choice / best per call, online / best fixed,
second run / best fixed and the targets met; per value the targets met and the geometric
means of the ratios; and the value that explore_choice's rule picks, applied to these
records.

--real FILE: records of real launches (bench/online_remake.sh p2), a section of their own
with each launch's choice.
"""
import json
import math
import os
import re
import sys

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "online-sim.md.in")

HEAD = """| platform, selector | P | call | S | online chose (from call; calls exploring) | exhaustive best | chosen / best per call | online / best fixed | MPI library / best fixed | second run / best fixed | targets met | CPU s (online run) |
|---|---|---|---|---|---|---|---|---|---|---|---|"""

BEFORE_HEAD = """| platform | P | call | S | online chose (from call; calls exploring) | chosen / best per call | online / best fixed | MPI library / best fixed | second run / best fixed | CPU s (online run) |
|---|---|---|---|---|---|---|---|---|---|"""

APPS_HEAD = """| platform, selector | application | P | runs (all-to-alls) | A2A_TUNING_EXPLORE | shapes decided online | best fixed (total) | online / best fixed | MPI library / best fixed | second run / best fixed | later runs / best fixed | targets met |
|---|---|---|---|---|---|---|---|---|---|---|---|"""

APPS_BEFORE_HEAD = """| application | A2A_TUNING_EXPLORE | runs (all-to-alls) | shapes decided online | best fixed (total) | online / best fixed | MPI library / best fixed | second run / best fixed | later runs / best fixed | targets met | CPU s (online run) |
|---|---|---|---|---|---|---|---|---|---|---|"""


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


def apps_rows(recs):
    """The applications' table, the targets they meet ([total, below library, second]) and
    per record what ran each shape: (table, counts, notes)."""
    rows, notes = [APPS_HEAD], []
    counts = [0, 0, 0]
    for r in recs:
        R = r["repetitions"]
        best, b, online, lib, again, later, decided, shapes, calls, ok = app_figures(r)
        summary = r["online"][1]
        counts = [c + o for c, o in zip(counts, ok)]
        missed = [n for n, good in zip(("total", "below library", "second"), ok) if not good]
        rows.append("| " + " | ".join(str(c) for c in [
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
    return "\n".join(rows), counts, "\n".join(notes)


def apps_before_after(recs, before):
    """The table of each application row's shapes decided and ratios in before and in recs."""
    old = {app_key(r): r for r in before}
    rows = [APPS_BEFORE_HEAD]
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
        rows.append("| %s %s | %d | %d (%d) -> %d (%d) | %d of %d -> %d of %d | %s %.3f ms -> "
                    "%s %.3f ms | %.3f -> %.3f | %.3f -> %.3f | %.3f -> %.3f | %s -> %s | %s -> %s "
                    "| %s -> %s |" % (
                        r["app"], r["workload"], r["E"], prev["repetitions"], x[8],
                        r["repetitions"], y[8], x[6], x[7], y[6], y[7], x[0], x[1] * 1e3, y[0],
                        y[1] * 1e3, x[2], y[2], x[3], y[3], x[4], y[4], later[0], later[1],
                        met[0], met[1],
                        "%.0f" % prev["cpu_online_s"] if "cpu_online_s" in prev else "-",
                        "%.0f" % r["cpu_online_s"] if "cpu_online_s" in r else "-"))
    return "\n".join(rows)


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
    a record without them ran with 1e-3 (alltoall) or 1e-2 (alltoallv)."""
    for option in rec.get("simgrid", []):
        if option.startswith("maxmin/precision:"):
            return option.split(":", 1)[1]
    return "1e-2" if rec["coll"] == "alltoallv" else "1e-3"


def before_after(recs, before):
    """The table of each shape's choice and ratios in `before` (another tuner's records)
    and in recs, the sums of the online runs' CPU seconds in each, and what moved:
    (table, cpu before, cpu after, words)."""
    old = {shape_key(r): r for r in before}
    rows = [BEFORE_HEAD]
    cpu = [0.0, 0.0]
    pairs = []
    for rec in recs:
        prev = old.get(shape_key(rec))
        if not prev:
            continue
        cells = [judge(r)[0] for r in (prev, rec)]
        pairs.append((prev, rec))
        cpu = [cpu[0] + prev["online"][4], cpu[1] + rec["online"][4]]
        rows.append("| %s | %d | %s | %s | %s -> %s | %s -> %s | %s -> %s | %s -> %s | %s -> %s "
                    "| %s -> %s |" % (
                        rec["label"].split(",")[0], rec["P"], rec["coll"], size_text(rec["S"]),
                        cells[0][4], cells[1][4], cells[0][6], cells[1][6], cells[0][7],
                        cells[1][7], cells[0][8], cells[1][8], cells[0][9], cells[1][9],
                        cells[0][11], cells[1][11]))
    return "\n".join(rows), "%.0f" % cpu[0], "%.0f" % cpu[1], moved(pairs)


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
    """The comparison of A2A_TUNING_EXPLORE values: the template's values of the table, a
    line per value, and the rule's scores and pick."""
    rows = explore_rows(shapes, apps)
    values = sorted({E for _, cells in rows for E in cells})
    names = ("choice", "total", "below library", "second")

    def met(cells):
        """'all', or the targets missed; an application of several shapes has no choice."""
        choice, _, _, ok = cells
        kinds = names if len(ok) == 4 else names[1:]
        missed = [n for n, good in zip(kinds, ok) if not good]
        return "all" if not missed else "missed " + ", ".join(missed)
    table = ["| shape or application | values | chosen / best per call | online / best fixed | "
             "second run / best fixed | targets met |", "|---|---|---|---|---|---|"]
    for name, cells in rows:
        have = [E for E in values if E in cells]
        table.append("| %s | %s | %s | %s | %s | %s |" % (
            name, "; ".join(str(E) for E in have),
            "; ".join("-" if cells[E][0] is None else "%.3f" % cells[E][0] for E in have),
            "; ".join("%.3f" % cells[E][1] for E in have),
            "; ".join("%.3f" % cells[E][2] for E in have),
            "; ".join(met(cells[E]) for E in have)))
    per_value = []
    for E in values:
        mine = [cells[E] for _, cells in rows if E in cells]
        per_value.append(
            "- A2A_TUNING_EXPLORE=%d: %d rows, targets met %d of %d, rows with every target "
            "met %d; geometric mean of online / best fixed %.4f, of second run / best fixed %.4f"
            % (E, len(mine), sum(sum(c[3]) for c in mine), sum(len(c[3]) for c in mine),
               sum(all(c[3]) for c in mine), geomean([c[1] for c in mine]),
               geomean([c[2] for c in mine])))
    pick, score, common = explore_choice(rows, values)
    return {"explore_table": "\n".join(table), "explore_values": "\n".join(per_value),
            "explore_common": str(common), "explore_rows": str(len(rows)),
            "explore_list": ", ".join(str(E) for E in values),
            "explore_scores": "; ".join("%d: %d of %d targets, geometric mean %.4f"
                                        % (E, *score[E]) for E in values),
            "explore_pick": str(pick)}


def shape_rows(recs):
    """The shapes' table and how many meet each target ([choice, total, below library,
    second])."""
    rows, counts = [HEAD], [0, 0, 0, 0]
    for rec in recs:
        cells, ok = judge(rec)
        counts = [c + o for c, o in zip(counts, ok)]
        rows.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(rows), counts


def shape_names(recs):
    """'alltoall 16 B, alltoallv 1 KiB': the records' shapes, in words."""
    return ", ".join("%s %s" % (r["coll"], size_text(r["S"])) for r in recs)


def real_section(recs):
    """The real rows: the template's values (the main table's columns, the targets met,
    each launch's choice) and its flags (how the online runs were launched)."""
    quiet = [r for r in recs if r.get("quiet")]
    connected = [r for r in recs if r.get("connect")]
    table, counts = shape_rows(recs)
    choices = []
    for rec in recs:
        drifts = rec.get("drifts")
        choices.append("- %s %s: %s%s" % (rec["coll"], size_text(rec["S"]),
                                          ", ".join(rec.get("choices", [rec["online"][1]])),
                                          "" if drifts is None else "; drifts: " +
                                          ", ".join("-" if d is None else str(d) for d in drifts)))
    values = {"real_table": table.replace("platform, selector", "machine", 1),
              "real_count": str(len(recs)), "real_choices": "\n".join(choices),
              "real_quiet_shapes": shape_names(quiet),
              "real_connect_who": "Every launch" if len(connected) == len(recs) else
                                  "Every launch of " + shape_names(connected)}
    values.update(zip(("real_choice", "real_total", "real_below", "real_second"),
                      map(str, counts)))
    flags = {"real_quiet": len(quiet) == len(recs), "real_verbose": not quiet,
             "real_mixed": 0 < len(quiet) < len(recs), "real_connect": bool(connected),
             "real_drifts": any("drifts" in r for r in recs)}
    return values, flags


BLOCK = re.compile(r"\{\{#(\w+)\}\}\n?(.*?)\{\{/\1\}\}\n?", re.S)
FIELD = re.compile(r"\{\{(\w+)\}\}")


def fill(template, values, flags):
    """The template with each {{#flag}}...{{/flag}} block kept or dropped as flags say
    (a block's own line breaks go with its markers) and each {{name}} replaced by
    values[name]; exit 2 on a name neither knows."""
    def unknown(name):
        sys.stderr.write("online_table.py: %s: {{%s}} is not a name of the script\n"
                         % (TEMPLATE, name))
        sys.exit(2)
    text = template
    while True:
        m = BLOCK.search(text)
        if not m:
            break
        if m.group(1) not in flags:
            unknown("#" + m.group(1))
        text = text[:m.start()] + (m.group(2) if flags[m.group(1)] else "") + text[m.end():]
    return FIELD.sub(lambda m: values[m.group(1)] if m.group(1) in values
                     else unknown(m.group(1)), text)


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
    table, counts = shape_rows(recs)
    values = {"shapes_table": table, "shapes_count": str(len(recs))}
    values.update(zip(("shapes_choice", "shapes_total", "shapes_below", "shapes_second"),
                      map(str, counts)))
    calls = sorted({(r["label"], r["P"], r["calls"], r["calls_fixed"], r["calls_best"], r["target"])
                    for r in recs})
    values["calls_run"] = "\n".join("- %s, P = %d: %d; %d; %d -> %d" % c for c in calls)
    values["precisions"] = "\n".join(
        "- %s, P = %d, %s: %s" % x
        for x in sorted({(r["label"], r["P"], r["coll"], solver_precision(r)) for r in recs}))
    flags = {"before": bool(before)}
    if before:
        (values["before_table"], values["before_cpu"], values["before_cpu_after"],
         values["before_moved"]) = before_after(recs, before)
    apps = sorted(latest(read_records(args[1]), app_key), key=app_key) if len(args) == 2 else []
    flags["apps"], flags["apps_before"] = bool(apps), bool(apps and apps_before)
    if apps:
        values["apps_table"], app_counts, values["apps_notes"] = apps_rows(apps)
        values["apps_count"] = str(len(apps))
        values.update(zip(("apps_total", "apps_below", "apps_second"), map(str, app_counts)))
        if apps_before:
            values["apps_before_table"] = apps_before_after(apps, apps_before)
    flags["explore"] = bool(explore)
    if explore:
        shapes = [r for r in explore if "app" not in r]
        more_apps = [r for r in explore if "app" in r]
        values.update(explore_section(latest(recs + shapes, lambda r: shape_key(r) + (r["E"],)),
                                      latest(apps + more_apps, app_key)))
    flags["real"] = bool(real)
    if real:
        real_values, real_flags = real_section(sorted(latest(real, shape_key), key=shape_key))
        values.update(real_values)
        flags.update(real_flags)
    with open(TEMPLATE, encoding="utf-8") as f:
        sys.stdout.write(fill(f.read(), values, flags))


if __name__ == "__main__":
    main()
