"""`a2a tune`: tuning files from a results database.

For each collective (alltoall: the uniform family; alltoallv: the non-uniform family),
each measured P and each measured S, the candidates are the ok (validated, timed)
configurations, one per kernel and parameter set (the newest run's row when several runs
measured it). The choice is the results contract's (contract.py): the best (fastest)
if no other candidate is within the noise of it, else the simplest candidate within that
noise: the MPI library's own choice, then its forced algorithms (vendor_algorithm), then
kernels by number of parameters. A choice replaces the MPI library's own choice (vendor,
vendor_algorithm 0) only where that was measured at the same (P, S) and the choice beats it
beyond the noise; where it was not measured, only when the neighbouring measured cells
(S and P one measured step away) measured both and make the choice faster with confidence
0.95 (default_confidence: normal in the log ratio, a drift of CELL_DRIFT between cells; the
confidence is written beside the rule); else the rule leaves the call to the library. The
MPICH file and --explicit name an algorithm everywhere (their candidates exclude the
library's own choice), so this applies to the a2a file and the Open MPI rules. Each decision is printed with the baseline (--baseline,
the library's own choice of `vendor` by default) and the choice's speedup over it. A measured S stands for the
block sizes up to the geometric midpoint to the next measured S (the first from 0, the
last without end); a measured P for the communicator sizes up to the next measured P
(the last for itself only). Outside the measured P the files leave the choice to the MPI
library.

Three files (--files), each from the rows of its own MPI library:
  a2a-tuning.json     liba2a's tuned dispatcher A2A_Alltoall(v) and liba2a_preload.so
                      (A2A_TUNING_FILE); any kernel of the two families
  openmpi-rules.conf  Open MPI coll/tuned dynamic rules, classic text format of 4.1/5.0:
                      alltoall id 3, alltoallv id 4, message size = bytes a rank sends in
                      total (block * P); only Open MPI's algorithms (vendor rows, each
                      vendor_algorithm; 0 = Open MPI's fixed decision)
  mpich-tuning.json   MPICH's collective selection tree (MPIR_CVAR_COLL_SELECTION_TUNING_
                      JSON_FILE): MPICH's default tree, read from the installed libmpich,
                      with the alltoall and alltoallv branches for separate send buffers
                      replaced (avg_msg_size = bytes of one block); only MPICH's algorithms
                      (vendor rows with vendor_algorithm >= 1)
Neither library passes a message size to its alltoallv rules, so their alltoallv choice
per P is the algorithm that wins at the most S (ties: the smaller geometric-mean
slowdown).
"""
import datetime
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

from ..core import options, params
from ..core import contract
from ..core.contract import combine_launches, noise, run_groups, within_noise
from ..core.common import A2AError, fmt_size, write_rows
from ..core.db import build_where, describe_filters, short_mpi

COLLECTIVES = (("uniform", "alltoall"), ("nonuniform", "alltoallv"))
LIBRARIES = {"openmpi": "Open MPI", "mpich": "MPICH"}
FILES = {"a2a": "a2a-tuning.json", "openmpi": "openmpi-rules.conf", "mpich": "mpich-tuning.json"}
DEFAULT_OUT = os.path.join("results", "tuning")

# vendor_algorithm numbers per library and family (include/a2a_tuned.h)
VENDOR_ALGORITHMS = {
    "Open MPI": {"uniform": {1: "linear", 2: "pairwise", 3: "modified_bruck", 4: "linear_sync",
                             5: "two_proc"},
                 "nonuniform": {1: "basic_linear", 2: "pairwise"}},
    "MPICH": {"uniform": {1: "brucks", 2: "nb", 3: "pairwise", 4: "scattered"},
              "nonuniform": {1: "nb", 2: "scattered"}},
}
# MPICH's selection-tree names of those algorithms (its csel containers)
MPICH_FUNCTIONS = {
    "uniform": {"brucks": "MPIR_Alltoall_intra_brucks", "nb": "MPIR_Alltoall_allcomm_nb",
                "pairwise": "MPIR_Alltoall_intra_pairwise",
                "scattered": "MPIR_Alltoall_intra_scattered"},
    "nonuniform": {"nb": "MPIR_Alltoallv_allcomm_nb", "scattered": "MPIR_Alltoallv_intra_scattered"},
}
OMPI_COLL_ID = {"uniform": 3, "nonuniform": 4}
# kernels the dispatcher cannot call with a user's buffers (they need A2A_Hint_alloc)
NOT_DISPATCHABLE = {"hint"}
MPICH_LIBRARY_GLOBS = ("/usr/lib/x86_64-linux-gnu/libmpich.so*", "/usr/lib64/libmpich.so*",
                       "/usr/lib/libmpich.so*", "/usr/local/lib/libmpich.so*",
                       "/usr/lib/*/libmpich.so*", "/usr/lib64/mpich/lib/libmpich.so*")


def add_parser(sub, common):
    """Registers `a2a tune` and its options."""
    p = sub.add_parser(
        "tune", parents=[common["db"]],
        help="tuning files: a2a JSON (A2A_TUNING_FILE), Open MPI rules, MPICH JSON",
        description="For each collective, measured P and measured S: the fastest ok configuration, "
                    "if it beats the runner-up by more than the noise, else the simplest one within "
                    "the noise (the library's own choice, its forced algorithms, then kernels by "
                    "number of parameters). Writes the a2a JSON of liba2a's tuned dispatcher, "
                    "Open MPI coll/tuned rules and an MPICH selection file, each from the rows "
                    "of its own library, and prints the decisions.",
        epilog="files (--files, default: every one the database has rows for):\n"
               "  a2a      a2a-tuning.json: A2A_TUNING_FILE for A2A_Alltoall(v) / liba2a_preload.so\n"
               "  openmpi  openmpi-rules.conf: mpirun --mca coll_tuned_use_dynamic_rules 1\n"
               "           --mca coll_tuned_dynamic_rules_filename openmpi-rules.conf\n"
               "  mpich    mpich-tuning.json: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=...\n"
               "The native files need vendor rows with each vendor_algorithm (sweeps/\n"
               "vendor_algorithms.ini, run under that library).\n\n"
               "examples:\n"
               "  a2a tune --db results/a2a.db --out results/tuning\n"
               "  a2a tune --files openmpi --P 2..16 --explicit",
        formatter_class=common["formatter"])
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help="directory for the files (default: %(default)s)")
    p.add_argument("--files", type=options.word_list, metavar="LIST",
                   help="a2a, openmpi, mpich (default: each one the database has rows for)")
    p.add_argument("--mpi", choices=sorted(LIBRARIES),
                   help="library whose rows make the a2a file (default: the newest run's)")
    p.add_argument("--kernel", type=options.word_list, metavar="LIST",
                   help="candidate kernels of the a2a file besides vendor (default: every kernel)")
    p.add_argument("--P", type=options.int_list, metavar="LIST", help="only these process counts")
    p.add_argument("--S", type=options.int_list, metavar="LIST", help="only these block sizes")
    p.add_argument("--dist", metavar="NAME",
                   help="alltoallv data set (default: the distribution with the most rows)")
    p.add_argument("--explicit", action="store_true",
                   help="Open MPI rules: never leave a choice to the library's fixed decision "
                        "(algorithm 0), name one of its algorithms everywhere")
    p.add_argument("--mpich-default", metavar="FILE",
                   help="MPICH's default selection tree (JSON) to start from (default: read "
                        "from the installed libmpich)")
    p.add_argument("--baseline", default=contract.DEFAULT_BASELINE, metavar="KERNEL",
                   help="kernel whose own choice the speedups are over (default: %(default)s)")
    p.add_argument("--format", choices=("table", "csv", "json", "markdown"), default="table",
                   help="format of the decision table on stdout (default: %(default)s)")
    p.set_defaults(func=run)
    return p


# ---- candidates ---------------------------------------------------------------------------

def params_of(row):
    """The row's parameters as a dict (from the params JSON column)."""
    try:
        value = json.loads(row["params"] or "{}")
    except ValueError:
        value = {}
    return value if isinstance(value, dict) else {}


def label(kernel, params):
    """'tra radix=2', 'vendor vendor_algorithm=0'."""
    return " ".join([kernel] + ["%s=%s" % (k, params[k]) for k in sorted(params)])


class Candidate:
    """One configuration measured at one (family, P, S)."""

    def __init__(self, row):
        self.row = row
        self.kernel = row["kernel"]
        self.params = params_of(row)
        self.median = row["median_s"]
        # the spread between launches when several measured it, else the IQR (contract.noise)
        self.noise = noise([row])
        self.key = (self.kernel, json.dumps(self.params, sort_keys=True))

    @property
    def algorithm(self):
        """vendor_algorithm of a vendor row (0: the library's own choice)."""
        return int(self.params.get("vendor_algorithm", 0) or 0)

    def label(self):
        """'tra radix=2'."""
        return label(self.kernel, self.params)


def simplicity(c):
    """Sort key of the simplest candidate (contract.simplicity)."""
    return contract.simplicity(c.kernel, c.params, c.label())


class Decision:
    """The winner of one (P, S), the fastest other candidate, and why the winner won."""

    def __init__(self, winner, runner_up, how, baseline=None):
        self.winner, self.runner_up, self.how = winner, runner_up, how
        self.baseline = baseline   # the baseline Candidate of the cell, or None

    @property
    def speedup(self):
        """The choice's speedup over the baseline (contract.speedup), or None."""
        return contract.speedup(self.baseline.row if self.baseline else None, self.winner.row)


def decide(cands, baseline_kernel=contract.DEFAULT_BASELINE):
    """The choice among candidates (see the module text): a Decision."""
    ranked = sorted(cands, key=lambda c: contract.best_key(c.row))
    fastest = ranked[0]
    base_row = contract.baseline([c.row for c in cands], baseline_kernel)
    base = next((c for c in cands if c.row is base_row), None)
    band = [c for c in ranked if within_noise(fastest.median, fastest.noise, c.median, c.noise)]
    if len(band) == 1:
        runner = ranked[1] if len(ranked) > 1 else None
        how = ("only candidate" if runner is None else
               "faster than the runner-up by more than the noise")
        return Decision(fastest, runner, how, base)
    winner = min(band, key=lambda c: (simplicity(c), c.median))
    runner = min((c for c in ranked if c is not winner), key=lambda c: contract.best_key(c.row))
    how = ("fastest, the others within its noise are not simpler" if winner is fastest else
           "simplest within the noise of the fastest (%s)" % fastest.label())
    return Decision(winner, runner, how, base)


# ---- never slower than the library's default -------------------------------------------
# A rule replaces the MPI library's own choice only where that choice was measured in the
# cell and the rule beats it beyond the noise; where it was not measured, only when the
# neighbouring cells measured both and the model below is DEFAULT_CONFIDENCE sure.

DEFAULT_CONFIDENCE = 0.95
CELL_DRIFT = 0.35   # sd of log(default / choice) from a cell to its neighbour: the mean over
                    # the suite's development sets of its RMS there (tuner_suite.neighbour_drift;
                    # make tuner-eval prints it, test_tuner_suite checks it), rounded to 0.05


class LibraryDefault:
    """The MPI library's own choice in a cell where it was not measured: the rule leaves the
    call to the library (vendor, vendor_algorithm 0)."""
    kernel, params, algorithm = "vendor", {"vendor_algorithm": 0}, 0
    key = ("vendor", json.dumps({"vendor_algorithm": 0}, sort_keys=True))
    row, median, noise = None, None, None

    def label(self):
        """'vendor vendor_algorithm=0'."""
        return label(self.kernel, self.params)


def library_default(cands):
    """The candidate that is the MPI library's own choice (vendor, vendor_algorithm 0), or None."""
    return next((c for c in cands if c.kernel == contract.DEFAULT_BASELINE and c.algorithm == 0), None)


def beats_beyond_noise(a, b):
    """True when candidate a is faster than b by more than the noise (contract.within_noise)."""
    return a.median < b.median and not within_noise(a.median, a.noise, b.median, b.noise)


def guard_default(d, cands):
    """Decision d among cands, never slower than the library's default: where d's choice
    (the simplest within the noise of the fastest) does not beat the default beyond the
    noise, the simplest of that band that does. The default itself is in the band, and then
    the choice, unless the fastest beats it beyond the noise (contract.within_noise), so such
    a candidate exists. d.default_measured says whether the default was measured here (when
    not, settle_defaults decides from the neighbours)."""
    lib = library_default(cands)
    d.default_measured = lib is not None
    if lib is None or d.winner is lib or beats_beyond_noise(d.winner, lib):
        return d
    fastest = min(cands, key=lambda c: contract.best_key(c.row))
    beating = [c for c in cands if beats_beyond_noise(c, lib) and
               within_noise(fastest.median, fastest.noise, c.median, c.noise)]
    pick = min(beating or [fastest], key=lambda c: (simplicity(c), c.median))
    chosen = Decision(pick, d.winner, "simplest within the noise of the fastest (%s) that "
                      "beats the library's default beyond the noise" % fastest.label(),
                      d.baseline)
    chosen.default_measured = True
    return chosen


def default_evidence(cells, P, S, key):
    """[(P, S, log(default median / choice median))] at the cells next to (P, S) in the grid
    of cells {(P, S): [Candidate]}: the measured S below and above at P, the measured P below
    and above at S; those where both the choice `key` and the library's default were measured."""
    sizes = sorted(s for (p, s) in cells if p == P)
    procs = sorted(p for (p, s) in cells if s == S)
    near = []
    for values, v, make in ((sizes, S, lambda x: (P, x)), (procs, P, lambda x: (x, S))):
        i = values.index(v)
        near += [make(values[j]) for j in (i - 1, i + 1) if 0 <= j < len(values)]
    out = []
    for cell in near:
        lib = library_default(cells[cell])
        mine = next((c for c in cells[cell] if c.key == key), None)
        if lib is not None and mine is not None and mine.median > 0:
            out.append(cell + (math.log(lib.median / mine.median),))
    return out


def default_confidence(ratios):
    """P(the choice is faster than the library's default in a cell) from the log ratios
    measured at its neighbours: normal, their mean, sd CELL_DRIFT and their spread."""
    if not ratios:
        return 0.0
    mean = sum(ratios) / len(ratios)
    spread = sum((r - mean) ** 2 for r in ratios) / len(ratios)
    return 0.5 * math.erfc(-mean / math.sqrt(2 * (CELL_DRIFT ** 2 + spread)))


def settle_defaults(decisions, cells):
    """{(P, S): Decision} with every decision whose cell lacks the library's default settled
    (new Decisions; the given ones are not changed): its choice kept when the neighbouring
    cells' evidence makes it faster than the default with DEFAULT_CONFIDENCE (stated in
    `how`), else the library's default. cells: {(P, S): [Candidate]}, the measured ones."""
    out = {}
    for (P, S), d in decisions.items():
        if getattr(d, "default_measured", True) or isinstance(d.winner, LibraryDefault):
            out[(P, S)] = d
            continue
        evidence = default_evidence(cells, P, S, d.winner.key)
        confidence = default_confidence([r for _, _, r in evidence])
        seen = ", ".join("%+.0f %% at P = %d, S = %s" % (100 * (math.exp(-r) - 1), p, fmt_size(s))
                         for p, s, r in evidence) or "no neighbouring cell measured both"
        if confidence >= DEFAULT_CONFIDENCE:
            settled = Decision(d.winner, d.runner_up, "%s; the library's default not measured "
                               "here, the choice against it nearby: %s (confidence %.3f)"
                               % (d.how, seen, confidence), d.baseline)
        else:
            settled = Decision(LibraryDefault(), d.winner, "the library's default (not measured "
                               "here; %s against it nearby: %s, confidence %.3f)"
                               % (d.winner.label(), seen, confidence), d.baseline)
        settled.default_measured, settled.default_confidence = False, confidence
        out[(P, S)] = settled
    return out


def tuned_candidates(db, run_id, replay_path):
    """(keys, None): the configuration keys tuner run run_id of db chose from, as `a2atune
    tune --candidates` expands its recorded sweep at the launch size of the run replay_path
    holds (the tuner's own database, or an exhaustive run of the same sweep); or (None, why)
    when they cannot be had."""
    row = db.execute("SELECT sweep_text, section FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None or not row["sweep_text"]:
        return None, "the tuner run recorded no sweep text"
    try:
        binary = params.binary()
        with tempfile.TemporaryDirectory(prefix="a2a-tune.") as tmp:
            path = os.path.join(tmp, "tuned-sweep.ini")
            with open(path, "w") as f:
                f.write(row["sweep_text"])
            out = subprocess.run([binary, "tune", path, "--replay", os.path.abspath(replay_path),
                                  "--candidates"] + (["--section", row["section"]] if row["section"] else []),
                                 capture_output=True, text=True, timeout=600, cwd=tmp)
    except (A2AError, OSError, subprocess.SubprocessError) as e:
        return None, str(e)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1]
    return {line for line in out.stdout.splitlines() if line}, None


def key_cell(key):
    """(family, dist name, P, S) of a configuration key (harness/sweep/configs.c: make_key)."""
    parts = key.split("|")
    fields = dict(p.split("=", 1) for p in parts[3:] if "=" in p)
    return parts[1], fields["dist"].split("(", 1)[0], int(fields["P"]), int(fields["S"])


def tuner_grid(db, rows):
    """({(family, dist): {(P, S)}}, None): every cell the newest tuner run among rows could
    have measured (its sweep's grid), for the cells it did not measure to stay the library's
    ("a rule replaces the default only where it was measured"); ({}, None) when no row was
    chosen by the tuner; ({}, why) when the grid cannot be had."""
    runs = sorted({r["run_id"] for r in rows if r.get("chosen_by") == "tuner"})
    if not runs:
        return {}, None
    keys, why = tuned_candidates(db, runs[-1], db.path)
    if keys is None:
        return {}, why
    grid = {}
    for key in keys:
        family, dist, P, S = key_cell(key)
        grid.setdefault((family, dist), set()).add((P, S))
    return grid, None


def s_bounds(sizes):
    """[(lo, hi)] per measured S: from the geometric midpoint to the previous S (0 for the
    first) to the one before the midpoint to the next (None: no end for the last)."""
    cuts = [int(math.ceil(math.sqrt(max(a, 1) * max(b, 1)))) for a, b in zip(sizes, sizes[1:])]
    cuts = [max(c, a + 1) for c, a in zip(cuts, sizes)]
    los = [0] + cuts
    his = [c - 1 for c in cuts] + [None]
    return list(zip(los, his))


def p_bounds(ps):
    """[(lo, hi)] per measured P: up to the next measured P; the last for itself only."""
    return [(p, ps[i + 1] - 1 if i + 1 < len(ps) else p) for i, p in enumerate(ps)]


class Table:
    """Decisions of one collective for one file: {P: [(S, Decision)]}, with P and S ranges."""

    def __init__(self, family, groups, allowed=None, baseline=contract.DEFAULT_BASELINE,
                 guard=True, grid=()):
        """groups: {P: {S: [Candidate]}}; allowed(c, P_lo, P_hi) filters candidates;
        baseline: the kernel each decision's speedup is over; guard: never slower than the
        library's default (guard_default, settle_defaults; for a file that can leave a
        call to the library); grid: {(P, S)} a tuner run could have measured, each one it
        did not measure left to the library (with guard)."""
        self.family = family
        self.points = {}
        self.candidates = {}
        grid = set(grid) if guard else set()
        ps = sorted(set(groups) | {P for P, _ in grid})
        self.p_range = dict(zip(ps, p_bounds(ps)))
        for P in ps:
            lo, hi = self.p_range[P]
            for S, cands in groups.get(P, {}).items():
                cands = [c for c in cands if allowed is None or allowed(c, lo, hi)]
                if cands:
                    self.candidates[(P, S)] = cands
        decisions = {cell: decide(cands, baseline) for cell, cands in self.candidates.items()}
        if guard:
            decisions = settle_defaults({cell: guard_default(d, self.candidates[cell])
                                         for cell, d in decisions.items()}, self.candidates)
        for cell in grid - set(self.candidates):
            d = Decision(LibraryDefault(), None, "not measured by the tuner: the library decides")
            d.default_measured, d.default_confidence = False, 0.0
            decisions[cell] = d
        for P in ps:
            sizes = sorted({S for (p, S) in self.candidates if p == P} |
                           {S for (p, S) in grid - set(self.candidates) if p == P})
            if sizes:
                self.points[P] = [(S, s_lo, s_hi, decisions[(P, S)])
                                  for S, (s_lo, s_hi) in zip(sizes, s_bounds(sizes))]

    def comm_sizes(self):
        """[(lo, hi, P or None)]: the measured P with their ranges, and the gaps between and
        after them (None: not measured), from 1 on; the last gap has hi None."""
        out, next_lo = [], 1
        for P in sorted(self.points):
            lo, hi = self.p_range[P]
            if lo > next_lo:
                out.append((next_lo, lo - 1, None))
            out.append((lo, hi, P))
            next_lo = hi + 1
        out.append((next_lo, None, None))
        return out

    def ranges(self, P):
        """[(s_lo, s_hi, Decision, [(S, Decision)...])]: adjacent measured S with the same
        winner merged into one range."""
        out = []
        for S, lo, hi, d in self.points[P]:
            if out and out[-1][2].winner.key == d.winner.key:
                prev = out[-1]
                out[-1] = (prev[0], hi, prev[2], prev[3] + [(S, d)])
            else:
                out.append((lo, hi, d, [(S, d)]))
        return out

    def per_p_choice(self, P):
        """One winner for all S at this P (alltoallv of the native files): the candidate
        winning at the most S; ties: the smaller geometric-mean slowdown, then simpler."""
        wins, cands = {}, {}
        for S, _, _, d in self.points[P]:
            wins[d.winner.key] = wins.get(d.winner.key, 0) + 1
            cands[d.winner.key] = d.winner

        def slowdown(key):
            """Mean log of the candidate's median over the fastest median, over its S."""
            logs = []
            for S, _, _, _ in self.points[P]:
                cands = self.candidates.get((P, S))
                if not cands:
                    continue
                fastest = min(c.median for c in cands)
                mine = [c.median for c in cands if c.key == key]
                if mine and fastest > 0:
                    logs.append(math.log(mine[0] / fastest))
            return sum(logs) / len(logs) if logs else 0.0
        best = min(wins, key=lambda k: (-wins[k], slowdown(k), simplicity(cands[k])))
        return cands[best], wins[best], len(self.points[P])


# ---- loading --------------------------------------------------------------------------------

def load(db, args):
    """(rows, runs by id): ok, timed rows of the two families matching the options; not the
    tuner's screens (a configuration measured with a ninth of its timed calls to guide the
    search: a rule stands on measurements)."""
    filters = {"run_id": args.run, "P": args.P, "S": args.S, "status": "ok",
               "family": [f for f, _ in COLLECTIVES]}
    where, params = build_where(filters)
    where.append("median_s IS NOT NULL")
    if "chosen_by" in db.columns("results"):
        where.append("chosen_by IS NOT 'tuner-screen'")
    rows = combine_launches(db.all("SELECT * FROM results WHERE %s ORDER BY run_id, id"
                                   % " AND ".join(where), params), run_groups(db))
    if not rows:
        raise A2AError("no ok timed results of alltoall (uniform) or alltoallv (nonuniform) "
                       "kernels match (%s) in %s" % (describe_filters(filters), db.path))
    runs = {r["id"]: dict(r) for r in db.runs()}
    for r in rows:
        r["mpi_library"] = runs[r["run_id"]]["mpi_library"] or "other"
    return rows, runs


def choose_dist(rows, family, wanted):
    """The data set of a family: uniform blocks for alltoall; for alltoallv --dist or the
    distribution with the most rows."""
    dists = {}
    for r in rows:
        if r["family"] == family:
            dists[r["dist"]] = dists.get(r["dist"], 0) + 1
    if not dists:
        return None
    if wanted and family == "nonuniform":
        if wanted not in dists:
            raise A2AError("--dist %s: no ok alltoallv results with it (distributions: %s)"
                           % (wanted, ", ".join(sorted(dists))))
        return wanted
    return max(sorted(dists), key=lambda d: (dists[d], d == "uniform"))


def group(rows, family, dist, keep):
    """{P: {S: [Candidate]}} of the rows of `family` and `dist` that keep(row) accepts; one
    candidate per configuration: the newest run group's measurement, and of several in it
    (the same configuration in several sections) the best (contract.best_key)."""
    newest = {}
    for r in rows:
        if r["family"] != family or r["dist"] != dist or not keep(r):
            continue
        c = Candidate(r)
        slot = (r["P"], r["S"], c.key)
        held = newest.get(slot)
        if held is None or r["run_id"] > held.row["run_id"] or (
                r["run_id"] == held.row["run_id"] and
                contract.best_key(r) < contract.best_key(held.row)):
            newest[slot] = c
    groups = {}
    for (P, S, _), c in newest.items():
        groups.setdefault(P, {}).setdefault(S, []).append(c)
    return groups


# ---- the a2a file ------------------------------------------------------------------------

def provenance(db, rows, runs, library):
    """Where a file's numbers come from: database, runs, library, hosts, oversubscription."""
    mine = sorted({r["run_id"] for r in rows})
    versions = sorted({short_mpi(runs[i]) for i in mine})
    return {
        "generated_by": "a2a tune", "generated": datetime.datetime.now().isoformat(timespec="seconds"),
        "database": os.path.abspath(db.path), "runs": mine, "mpi_library": library,
        "mpi_version": ", ".join(versions),
        "hosts": sorted({runs[i]["host"] or "?" for i in mine}),
        "oversubscribed": any(r["oversubscribed"] for r in rows),
    }


def sig(x):
    """x to 4 significant digits (timings are not more precise than that)."""
    return None if x is None else float("%.4g" % x)


def decision_json(d):
    """The measured numbers behind one decision, for the a2a file."""
    w = d.winner
    if w.row is None:   # the library's default, not measured here
        out = {"median_s": None, "decided": d.how}
    else:
        out = {"median_s": sig(w.median), "q1_s": sig(w.row["q1_s"]), "q3_s": sig(w.row["q3_s"]),
               "result_id": w.row["id"], "decided": d.how}
    if d.runner_up is not None:
        out["runner_up"] = d.runner_up.label()
        out["runner_up_median_s"] = sig(d.runner_up.median)
    if getattr(d, "default_confidence", None) is not None:
        out["default_confidence"] = round(d.default_confidence, 3)
    return out


def write_a2a(path, tables, prov, dists):
    """Writes the a2a tuning file (format in kernels/tuned/dispatch.c and docs/tuning-files.md)."""
    doc = {"format": "a2a-tuning", "version": 1}
    doc.update(prov)
    doc["data"] = {coll: dists[family] for family, coll in COLLECTIVES if family in dists}
    doc["rule"] = ("per (P, S): the fastest ok configuration if it beats the runner-up by more "
                   "than the noise, else the simplest within the noise; S = bytes of one block "
                   "(alltoall) or of the largest block (alltoallv)")
    for family, coll in COLLECTIVES:
        rules = []
        t = tables.get(family)
        for P in sorted(t.points) if t else []:
            p_lo, p_hi = t.p_range[P]
            for s_lo, s_hi, d, measured in t.ranges(P):
                rule = {"P": [p_lo, p_hi], "S": [s_lo, s_hi], "kernel": d.winner.kernel,
                        "params": d.winner.params,
                        "measured": [dict({"P": P, "S": S}, **decision_json(dd))
                                     for S, dd in measured]}
                rules.append(rule)
        doc[coll] = rules
    # one line per top-level field and per rule, so the file reads as a table
    parts = []
    for key, value in doc.items():
        if key in ("alltoall", "alltoallv"):
            inner = ",\n".join("  " + json.dumps(r) for r in value)
            parts.append(' "%s": [%s]' % (key, "\n" + inner + "\n " if value else ""))
        else:
            parts.append(" %s: %s" % (json.dumps(key), json.dumps(value)))
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(parts) + "\n}\n")


# ---- Open MPI rules ------------------------------------------------------------------------

def write_openmpi(path, tables, prov):
    """Writes Open MPI coll/tuned rules in the classic text format (4.1/5.0)."""
    lines = [
        "# Open MPI coll/tuned dynamic rules (classic format, 4.1/5.0), written by a2a tune",
        "# from %s, runs %s (%s; hosts %s%s)" % (prov["database"], ",".join(map(str, prov["runs"])),
                                                 prov["mpi_version"], ",".join(prov["hosts"]),
                                                 "; oversubscribed" if prov["oversubscribed"] else ""),
        "# use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE",
        "# algorithm 0 = Open MPI's fixed decision; alltoall: 1 linear, 2 pairwise, 3 modified_bruck,",
        "# 4 linear_sync, 5 two_proc; alltoallv: 1 basic_linear, 2 pairwise",
        "%d # collectives" % len(tables),
    ]
    for family, coll in COLLECTIVES:
        t = tables.get(family)
        if not t:
            continue
        sizes = t.comm_sizes()
        lines.append("%d # %s%s" % (OMPI_COLL_ID[family], coll,
                                    " (message size = block * P bytes)" if family == "uniform"
                                    else " (no message size: one rule per P)"))
        lines.append("%d # communicator sizes" % len(sizes))
        names = VENDOR_ALGORITHMS["Open MPI"][family]
        for lo, hi, P in sizes:
            if P is None:
                lines += ["%d # P %d..%s: not measured, Open MPI decides" % (
                    lo, lo, "" if hi is None else hi), "1", "0 0 0 0"]
                continue
            lines.append("%d # P %d..%d" % (lo, lo, hi))
            if family == "uniform":
                ranges = t.ranges(P)
                lines.append("%d # message sizes" % len(ranges))
                for s_lo, s_hi, d, measured in ranges:
                    a = d.winner.algorithm
                    why = d.how if len(measured) == 1 else "chosen at S = %s" % ", ".join(
                        fmt_size(S) for S, _ in measured)
                    lines.append("%d %d 0 0 # block %s..%s B: %s (%s)" % (
                        s_lo * P, a, s_lo, "" if s_hi is None else s_hi,
                        names.get(a, "fixed decision"), why))
            else:
                w, won, of = t.per_p_choice(P)
                lines += ["1 # message sizes", "0 %d 0 0 # %s, fastest at %d of %d S" % (
                    w.algorithm, names.get(w.algorithm, "fixed decision"), won, of)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- MPICH JSON -------------------------------------------------------------------------

def mpich_default_tree(path):
    """MPICH's default MPIR selection tree: from a JSON file, or from the string compiled
    into libmpich (the object whose alltoall branch names MPIR_ algorithms)."""
    if path:
        try:
            with open(path) as f:
                return json.load(f), path
        except (OSError, ValueError) as e:
            raise A2AError("--mpich-default %s: %s" % (path, e))
    for pattern in MPICH_LIBRARY_GLOBS:
        for lib in sorted(glob.glob(pattern)):
            try:
                with open(lib, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            start = data.find(b'{"collective=')
            while start >= 0:
                end = data.find(b"\0", start)
                text = data[start:end]
                if b'"collective=alltoall"' in text and b"algorithm=MPIR_Alltoall" in text:
                    try:
                        return json.loads(text.decode()), lib
                    except ValueError:
                        pass
                start = data.find(b'{"collective=', end)
    return None, None


def mpich_branch(t, family, old):
    """The comm_size / avg_msg_size subtree of our choices; `old` (MPICH's own subtree)
    outside the measured P."""
    names = VENDOR_ALGORITHMS["MPICH"][family]
    funcs = MPICH_FUNCTIONS[family]

    def leaf(c):
        """The tree leaf naming candidate c's MPICH algorithm."""
        return {"algorithm=%s" % funcs[names[c.algorithm]]: {}}
    tree = {}
    for lo, hi, P in t.comm_sizes():
        if hi is None:
            break
        if P is None:
            tree["comm_size<=%d" % hi] = old
        elif family == "uniform":
            tree["comm_size<=%d" % hi] = {
                "avg_msg_size=any" if s_hi is None else "avg_msg_size<=%d" % s_hi: leaf(d.winner)
                for s_lo, s_hi, d, _ in t.ranges(P)}
        else:
            tree["comm_size<=%d" % hi] = leaf(t.per_p_choice(P)[0])
    tree["comm_size=any"] = old
    return tree


def write_mpich(path, tables, prov, base, base_source):
    """Writes MPICH's selection tree: `base` with our alltoall(v) branches for separate
    send buffers (in-place calls and inter-communicators keep MPICH's own choices)."""
    tree = json.loads(json.dumps(base))
    for family, coll in COLLECTIVES:
        t = tables.get(family)
        if not t:
            continue
        key = "collective=%s" % coll
        branch = tree.get(key)
        if not isinstance(branch, dict):
            raise A2AError("MPICH's default selection tree (%s) has no %s branch" % (base_source, key))
        old = branch.get("comm_type=intra")
        if not isinstance(old, dict) or not old:
            raise A2AError("MPICH's default selection tree (%s) has no %s intra-communicator "
                           "branch" % (base_source, key))
        # outside the measured P: MPICH's own choice for separate send buffers
        own = old.get("is_sendbuf_inplace=no", old)
        branch["comm_type=intra"] = {
            "is_sendbuf_inplace=no": mpich_branch(t, family, own),
            "is_sendbuf_inplace=yes": old,   # MPICH 4.0 has no "is_sendbuf_inplace=any"
        }
        # keep the collective's other branches (inter-communicators) after the intra one
        tree[key] = dict([("comm_type=intra", branch["comm_type=intra"])] +
                         [(k, v) for k, v in branch.items() if k != "comm_type=intra"])
    # ours first (MPICH matches the collective by name: the order does not matter to it)
    ours = ["collective=%s" % coll for family, coll in COLLECTIVES if family in tables]
    tree = dict([(k, tree[k]) for k in ours] + [(k, v) for k, v in tree.items() if k not in ours])
    with open(path, "w") as f:
        json.dump(tree, f, indent=1)
        f.write("\n")


# ---- the subcommand -----------------------------------------------------------------------

def table_rows(tables_by_file):
    """The decision table printed on stdout: one row per file, collective, P and S."""
    out = []
    for fmt, tables in tables_by_file:
        for family, coll in COLLECTIVES:
            t = tables.get(family)
            for P in sorted(t.points) if t else []:
                for S, s_lo, s_hi, d in t.points[P]:
                    r = d.runner_up
                    out.append([fmt, coll, P, S, "%s..%s" % (fmt_size(s_lo), "" if s_hi is None
                                                             else fmt_size(s_hi)),
                                d.winner.label(), micro(d.winner.median),
                                micro(d.winner.noise), r.label() if r else "",
                                round(r.median * 1e6, 3) if r else None, d.how,
                                d.baseline.label() if d.baseline else "",
                                round(d.baseline.median * 1e6, 3) if d.baseline else None,
                                round(d.speedup, 4) if d.speedup is not None else None,
                                oversubscribed_at(t, P)])
    return out


def micro(seconds):
    """Seconds in microseconds to 3 decimals; None stays None (not measured)."""
    return None if seconds is None else round(seconds * 1e6, 3)


def oversubscribed_at(table, P):
    """True when a candidate measured at P (any S) ran with more ranks than cores."""
    return any(c.row.get("oversubscribed") for (p, _), cands in table.candidates.items()
               if p == P for c in cands)


def oversubscription_warnings(tables_by_file):
    """One line per file and collective whose decisions rest on oversubscribed runs."""
    lines = []
    for fmt, tables in tables_by_file:
        for family, coll in COLLECTIVES:
            t = tables.get(family)
            over = [P for P in sorted(t.points) if oversubscribed_at(t, P)] if t else []
            if over:
                lines.append("warning: %s %s: P = %s measured oversubscribed (more ranks than "
                             "cores): these decisions time the scheduler as much as the "
                             "collective; measure again with one rank per core"
                             % (FILES[fmt], coll, ", ".join(str(P) for P in over)))
    return lines


def run(args, db):
    """`a2a tune`: decides, writes the files, prints the decisions; A2AError on bad input."""
    db.check_run(args.run)
    if args.kernel:
        db.check_kernels(args.kernel)
    wanted = args.files or list(FILES)
    for f in wanted:
        if f not in FILES:
            raise A2AError("--files: unknown file '%s' (a2a, openmpi, mpich)" % f)
    rows, runs = load(db, args)
    libraries = sorted({r["mpi_library"] for r in rows})
    dists = {f: choose_dist(rows, f, args.dist) for f, _ in COLLECTIVES}
    dists = {f: d for f, d in dists.items() if d}
    made, skipped = [], []   # (file, tables, provenance); (file, why not written)
    grid, why = tuner_grid(db, rows)
    if why:
        sys.stderr.write("a2a: note: the cells the tuner run did not measure are not known (%s): "
                         "each measured (P, S) covers its range\n" % why)

    def tables_for(keep, allowed=None, guard=True):
        """Tables of both collectives from the rows keep(row, family) accepts."""
        out = {}
        for family, _ in COLLECTIVES:
            if family in dists:
                groups = group(rows, family, dists[family], lambda r, fam=family: keep(r, fam))
                t = (Table(family, groups, allowed, args.baseline, guard,
                           grid.get((family, dists[family]), ())) if groups else None)
                if t and t.points:
                    out[family] = t
        return out

    def lacking(fmt, why):
        """A file that cannot be made: bad input if asked for by name, else a note."""
        if args.files:   # asked for by name: bad input
            raise A2AError(why)
        skipped.append((fmt, why))

    # the a2a file: any kernel, the rows of one library
    if "a2a" in wanted:
        library = LIBRARIES[args.mpi] if args.mpi else runs[max(r["run_id"] for r in rows)]["mpi_library"]
        if library not in libraries:
            raise A2AError("--mpi %s: no ok results of %s in %s (libraries: %s)"
                           % (args.mpi, library, db.path, ", ".join(libraries)))
        kernels = set(args.kernel or [])
        tables = tables_for(lambda r, fam: r["mpi_library"] == library and
                            r["kernel"] not in NOT_DISPATCHABLE and
                            (not kernels or r["kernel"] in kernels or r["kernel"] == "vendor"))
        if not tables:
            lacking("a2a", "no ok results of dispatchable kernels of %s" % library)
        else:
            mine = [r for r in rows if r["mpi_library"] == library]
            made.append(("a2a", tables, provenance(db, mine, runs, library)))

    # native files: the library's own algorithms, forced
    def forced_only(lib, need_forced):
        """Row filter: vendor rows of library `lib` (only forced ones if need_forced)."""
        def keep(r, fam):
            """True for a vendor row of `lib` with an algorithm this file may name."""
            if r["mpi_library"] != lib or r["kernel"] != "vendor":
                return False
            a = int(params_of(r).get("vendor_algorithm", 0) or 0)
            return (a >= 1 or not need_forced) and (a == 0 or a in VENDOR_ALGORITHMS[lib][fam])
        return keep

    def ompi_allowed(c, p_lo, p_hi):
        """Open MPI candidates valid over a whole P range: two_proc exchanges with rank ^ 1
        only, so a rule may name it for P = 2 alone."""
        return not (c.row["family"] == "uniform" and c.algorithm == 5 and (p_lo, p_hi) != (2, 2))

    for fmt in ("openmpi", "mpich"):
        if fmt not in wanted:
            continue
        lib = LIBRARIES[fmt]
        need_forced = fmt == "mpich" or args.explicit
        # a file that names an algorithm everywhere cannot leave a call to the library
        tables = tables_for(forced_only(lib, need_forced), ompi_allowed if fmt == "openmpi" else None,
                            guard=not need_forced)
        forced = any(c.algorithm for t in tables.values() for cands in t.candidates.values()
                     for c in cands)
        if not forced:  # without forced rows there is nothing to choose between
            lacking(fmt, "no ok %s results of vendor with vendor_algorithm >= 1 in %s: run "
                    "sweeps/vendor_algorithms.ini under %s" % (lib, db.path, lib))
            continue
        mine = [r for r in rows if r["mpi_library"] == lib]
        made.append((fmt, tables, provenance(db, mine, runs, lib)))

    base = source = None
    if any(fmt == "mpich" for fmt, _, _ in made):
        base, source = mpich_default_tree(args.mpich_default)
        if base is None:
            lacking("mpich", "MPICH's default selection tree was not found (no libmpich here): "
                             "pass --mpich-default FILE")
            made = [m for m in made if m[0] != "mpich"]
    if not made:
        raise A2AError("nothing to write: %s" % "; ".join(why for _, why in skipped))
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise A2AError("--out %s: %s" % (args.out, e.strerror or e))
    written = []
    for fmt, tables, prov in made:
        path = os.path.join(args.out, FILES[fmt])
        try:
            if fmt == "a2a":
                write_a2a(path, tables, prov, dists)
            elif fmt == "openmpi":
                write_openmpi(path, tables, prov)
            else:
                write_mpich(path, tables, prov, base, source)
        except OSError as e:
            raise A2AError("%s: %s" % (path, e.strerror or e))
        written.append(path)
    columns = ["file", "collective", "P", "S", "covers", "choice", "median_us", "noise_us",
               "runner_up", "runner_up_us", "decided", "baseline", "baseline_us", "speedup",
               "oversubscribed"]
    shown = [(f, t) for f, t, _ in made if os.path.join(args.out, FILES[f]) in written]
    human = args.format in ("table", "markdown")
    rows = table_rows(shown)
    if human:
        rows = [r[:3] + [fmt_size(r[3])] + r[4:-1] + ["yes" if r[-1] else "no"] for r in rows]
    write_rows(columns, rows, args.format, float_format="%.3f")
    if human:
        for line in oversubscription_warnings(shown):
            print(line)
        for path in written:
            print("wrote %s" % path)
        for fmt, why in skipped:
            print("%s: not written (%s)" % (FILES[fmt], why))
    return 0
