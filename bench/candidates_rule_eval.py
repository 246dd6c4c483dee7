#!/usr/bin/python3
"""candidates_rule_eval.py — chooses the online tuner's candidate rule (kernels/tuned/
online_candidates.c) leave-one-data-set-out, on the data sets of `a2a online-candidates`.

    bench/candidates_rule_eval.py [--factors LIST] [--overheads LIST] [--alphas LIST]
        [--tuna-steps LIST] [--rule REV] [--match exact|radix] [--work DIR] [--format table|markdown]

The rule judged against the library's (kernels/tuned/online_candidates.c as it is in the
tree, "old" below) is a cost model, online_candidates.c as of git revision --rule (a commit of
branch wt-cands): a candidate's time is steps * alpha + messages * o + bytes, over a 5 x 5
grid of alpha and o; tra / tuna at the radices cheapest at some grid point; a candidate beyond
KEEP_FACTOR times the cheapest at every point is left out. Its constants (KEEP_FACTOR,
OVERHEAD_LO/HI, ALPHA_LO/HI, TUNA_STEPS_DIGITS) are overridable at compile time: each
combination of the lists is compiled into its own a2atune (-D, linked with build/openmpi's
other objects: run `make` first). For
each data set held out, the combination with the most cells recalled on all the others (then
the fewest candidates on them) is chosen, and judged on the one held out; the table gives,
per data set, the old rule's recall (and upper: a candidate the data never measured
counted as a hit, where a2a online-candidates' recall counts it as a miss) and candidates,
the chosen combination and its recall, upper and candidates there; then the held-out
aggregate and every combination's pooled figures. The choice maximises recall, a lower
bound: it favours rules naming kernels the data measured. Nothing is measured: lists
from the builds, times from tests/data."""
import argparse
import itertools
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from a2a_tools.tuner import online_candidates as oc  # noqa: E402
from a2a_tools.tuner import tuner_suite  # noqa: E402

SOURCE = "kernels/tuned/online_candidates.c"
CFLAGS = ["-O2", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
          "-Iinclude", "-Ikernels/common", "-Ikernels/tuned"]


def link_command():
    """make's link command of build/openmpi/a2atune, as a list."""
    out = subprocess.run(["make", "-n", "-W", "harness/commands/main.c", "build/openmpi/a2atune"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.endswith("-o build/openmpi/a2atune"):
            return line.split()
    sys.exit("candidates_rule_eval.py: no link command of build/openmpi/a2atune in make -n")


def build(name, source_text, defines, work, link):
    """An a2atune whose candidate rule is source_text compiled with defines; its path."""
    src = os.path.join(work, name + ".c")
    with open(src, "w") as f:
        f.write(source_text)
    obj, exe = src[:-2] + ".o", src[:-2]
    subprocess.run(["mpicc.openmpi"] + CFLAGS + ["-D%s=%s" % d for d in defines] +
                   ["-c", src, "-o", obj], cwd=ROOT, check=True)
    cmd = [link[0], "-pthread", obj] + [a for a in link[1:-2] if a != "-pthread"] + ["-o", exe]
    subprocess.run(cmd, cwd=ROOT, check=True)
    return exe


# the cost-model rule's compile-time constants, each set per combination (-D)
RULE_CONSTANTS = ("KEEP_FACTOR", "OVERHEAD_LO", "OVERHEAD_HI", "ALPHA_LO", "ALPHA_HI",
                  "TUNA_STEPS_DIGITS")


def rule_source(revision):
    """The text of SOURCE at git revision `revision`, a cost-model rule (it names every
    constant of RULE_CONSTANTS); one line and exit 2 when the tree has no such revision, is
    not a git checkout, or SOURCE there is another rule (compiled with -D it would be judged
    as itself, silently). The rule lives only in the history: a squashed or rebased merge
    drops the commit, and --rule must then name the new one."""
    try:
        res = subprocess.run(["git", "show", "%s:%s" % (revision, SOURCE)], cwd=ROOT,
                             capture_output=True, text=True)
    except OSError as e:
        res = None
        why = str(e)
    if res is not None and res.returncode == 0:
        if all(name in res.stdout for name in RULE_CONSTANTS):
            return res.stdout
        why = "no %s in it" % ", ".join(n for n in RULE_CONSTANTS if n not in res.stdout)
    elif res is not None:
        why = (res.stderr.strip().splitlines() or ["exit %d" % res.returncode])[-1]
    sys.stderr.write("candidates_rule_eval.py: --rule %s: no cost-model rule in %s there (%s); "
                     "name the commit that holds it (git log --oneline -- %s)\n"
                     % (revision, SOURCE, why, SOURCE))
    sys.exit(2)


def lists_of(pairs):
    """'a:b,c:d' -> [(a, b), (c, d)]."""
    return [tuple(x.split(":")) for x in pairs.split(",")]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--factors", default="1.5,2,3,1e9", help="KEEP_FACTOR values (default: %(default)s)")
    p.add_argument("--overheads", default="16:512,64:2048,256:8192",
                   help="OVERHEAD_LO:HI ranges, bytes (default: %(default)s)")
    p.add_argument("--alphas", default="512:8192,1024:16384",
                   help="ALPHA_LO:HI ranges, bytes (default: %(default)s)")
    p.add_argument("--tuna-steps", default="digits,rounds",
                   help="tuna's serial steps: digits, rounds (default: %(default)s)")
    p.add_argument("--rule", default="08b44c0", help="git revision of the cost-model rule (default: %(default)s)")
    p.add_argument("--match", choices=("exact", "radix"), default="exact",
                   help="as a2a online-candidates --match (default: %(default)s)")
    p.add_argument("--work", default=os.path.join(ROOT, "results", "candidates-rule"))
    p.add_argument("--format", choices=("table", "markdown"), default="table")
    a = p.parse_args()
    rule_text = rule_source(a.rule)
    os.makedirs(a.work, exist_ok=True)
    link = link_command()
    with open(os.path.join(ROOT, SOURCE)) as f:
        old_text = f.read()
    variants = {"old": build("old", old_text, [], a.work, link)}
    for x, o, al, steps in itertools.product(a.factors.split(","), lists_of(a.overheads),
                                             lists_of(a.alphas), a.tuna_steps.split(",")):
        name = "X%s-o%s-%s-a%s-%s-%s" % (x, o[0], o[1], al[0], al[1], steps)
        defines = [("KEEP_FACTOR", x), ("OVERHEAD_LO", o[0] + ".0"), ("OVERHEAD_HI", o[1] + ".0"),
                   ("ALPHA_LO", al[0] + ".0"), ("ALPHA_HI", al[1] + ".0"),
                   ("TUNA_STEPS_DIGITS", "1" if steps == "digits" else "0")]
        variants[name] = build(name, rule_text, defines, a.work, link)
    allowed = oc.allowed_kernels()
    judged = {}  # (variant, data set) -> {cell: judgement}
    for ds in oc.DATASETS:
        cells = oc.load_cells(tuner_suite.load_dataset(
            tuner_suite.Dataset(ds.name, ds.sql, "", ds.what), a.work), allowed)
        for v, exe in variants.items():
            judged[(v, ds.name)] = oc.judge(cells, oc.candidate_lists(exe, cells), 5.0, a.match)

    def pooled(v, names):
        """(cells recalled, cells, mean candidates, cells recalled if every unmeasured
        candidate were a hit) of variant v over the data sets names."""
        js = [j for n in names for j in judged[(v, n)].values()]
        return (sum(j[0] for j in js), len(js), sum(j[1] for j in js) / max(1, len(js)),
                sum(j[6] for j in js))

    names = [d.name for d in oc.DATASETS]
    rows, tot_new, tot_old, tot_new_up, tot_old_up, tot = [], 0, 0, 0, 0, 0
    for d in names:
        others = [n for n in names if n != d]
        best = max((v for v in variants if v != "old"),
                   key=lambda v: (pooled(v, others)[0], -pooled(v, others)[2]))
        rn, n, cn, un = pooled(best, [d])
        ro, _, co, uo = pooled("old", [d])
        tot_new, tot_old, tot = tot_new + rn, tot_old + ro, tot + n
        tot_new_up, tot_old_up = tot_new_up + un, tot_old_up + uo
        rows.append([d, str(n), "%.1f %%" % (100.0 * ro / n), "%.1f %%" % (100.0 * uo / n),
                     "%.2f" % co, best, "%.1f %%" % (100.0 * rn / n),
                     "%.1f %%" % (100.0 * un / n), "%.2f" % cn])
    rows.append(["held out, all", str(tot), "%.1f %%" % (100.0 * tot_old / tot),
                 "%.1f %%" % (100.0 * tot_old_up / tot), "", "",
                 "%.1f %%" % (100.0 * tot_new / tot), "%.1f %%" % (100.0 * tot_new_up / tot), ""])
    head = ["held out", "cells", "old recall", "old upper", "old candidates",
            "chosen on the others", "recall", "upper", "candidates"]
    show(head, rows, a.format)
    print()
    rows = []
    for v in variants:
        r, n, c, u = pooled(v, names)
        rows.append([v, "%.1f %%" % (100.0 * r / n), "%.1f %%" % (100.0 * u / n), "%.2f" % c] +
                    ["%.0f" % (100.0 * pooled(v, [d])[0] / pooled(v, [d])[1]) for d in names])
    show(["rule (all data sets)", "recall", "upper", "candidates"] + names, rows, a.format)


def show(head, rows, fmt):
    """Prints a table as text or markdown."""
    if fmt == "markdown":
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    w = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(c.ljust(x) for c, x in zip(r, w)).rstrip())


if __name__ == "__main__":
    main()
