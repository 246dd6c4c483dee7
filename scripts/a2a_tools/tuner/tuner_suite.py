"""`a2a tuner-report --suite`: the tuner's evaluation suite (make tuner-eval).

The search (`a2atune tune --replay DB --evaluate SEEDS --noise 2%`) is replayed on every
exhaustive data set of SUITE below, at budgets of 10, 25 and 50 % of the configurations and
of the exhaustive sweep's time (`--budget` in seconds: that share of the time the data set's
timed and warm-up calls took), once per noise seed (each replayed median times a factor drawn uniformly in [0.98, 1.02]).
Its choice in a cell is the tuning file's (`a2a tune`'s rule over the rows it measured,
spread to unmeasured cells as the tuning files are); its regret is the true time of that
choice over the true best, both the stored (noise-free) medians. Three baselines get the
same number of measurements and the same noise: random (uniform without replacement over
the configurations), random stratified by (P, S) cell (the measurements dealt to the cells
in turn, a random candidate in each), successive halving per cell (a method from the
literature, function halving: it needs measurements of lower fidelity, fewer timed calls,
whose noise the replay models as +-noise / sqrt(fidelity); budgets in configurations only;
the search's own screens, a ninth of the timed calls, replay under the same rule, or as the
median of the first samples where a data set kept its samples),
and the MPI library's default
(vendor, its own algorithm: nothing measured). Budget used: the share of the configurations, and of the
time the exhaustive sweep's timed and warm-up calls took (mean x (iterations + warm-up)
per configuration; simulated seconds for simulated data).

Rules: `--ablation` replays the search without each of its switchable rules (`a2atune
tune --without RULE`); what a rule buys on a data set is the share of cells within 5 % (mean
over the budgets in configurations and the seeds) with it less without it; the held-out
search is then replayed at every budget, in configurations and in time. Judged leave-one-data-set-out: with data
set d held out, the rules are removed one at a time over the other data sets (backward
elimination, least useful alone first, so that rules that only work together are judged
together): a rule goes when, with the removals so far, it buys at most EPSILON on average
and at most HARM on every data set, and saves at most EPSILON of the exhaustive time on
average at the budgets in configurations (a rule may earn its place by the time it saves,
as a rule that prefers cheap measurements would); the search with the rules kept is then
judged on d.
The same test over every data set says which rules earn their place in the search. A frozen
data set (SUITE: its SHA-256 recorded when it was made, never looked at while the search was
developed) is checked against that hash, reported in a table of its own, and never chooses
rules: it is judged with the rules the other data sets choose. (The
stricter test "a rule that helps one data set and hurts another goes" removed every rule
but one or none in the folds it was tried on, and the held-out share within 5 % fell from
100 % to 16.7 % on sim64 at 25 %: the rules trade one data set's cells for another's.)
"""
import collections
import concurrent.futures
import contextlib
import functools
import hashlib
import io
import json
import math
import os
import random
import re
import shlex
import statistics
import subprocess
import sys

from ..core import params
from . import regret, tune
from ..core.common import A2AError
from ..core.db import APPLICATION_ID, open_db

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

Dataset = collections.namedtuple("Dataset", "name sql sweep what frozen prior",
                                 defaults=(None, None))
# prior: the platform of the search's prior (`a2atune tune --prior`, made by `a2a prior`), as a
# user would describe the cluster: for simulated data a platform of another topology than the
# one the data was simulated on (dragonfly and fat tree for each other, the torus on Theta's
# Aries, Theta's on the torus, Polaris' Slingshot and the 16k dragonfly on the fat tree,
# Fugaku's Tofu-D on Theta's Aries; the same ranks a node, or more), the library's own choice
# priced as SMPI's ring; for the real data the file that describes this machine (local.xml), the
# library's choice not priced. The method "tuner+prior" of the tables.
Prior = collections.namedtuple("Prior", "platform vendor")
SIM_PRIOR = {"dragonfly.xml": Prior("platforms/fattree_ib.xml", "ring"),
             "fattree_ib.xml": Prior("platforms/dragonfly.xml", "ring"),
             "torus_tofud.xml": Prior("platforms/theta.xml", "ring"),
             "theta.xml": Prior("platforms/torus_tofud.xml", "ring"),
             "polaris.xml": Prior("platforms/fattree_ib.xml", "ring"),
             "fugaku.xml": Prior("platforms/theta.xml", "ring"),
             "dragonfly_16k.xml": Prior("platforms/fattree_ib.xml", "ring"),
             "torus_tofud-3c8ff5e5.xml": Prior("platforms/theta.xml", "ring"),
             "fattree_ib-65ffcbe5.xml": Prior("platforms/dragonfly.xml", "ring")}
REAL_PRIOR = Prior("platforms/local.xml", None)

# The one declaration of the suite: name, checked-in SQL dumps (loaded in order), the sweep
# the search expands, what differs; frozen: for a data set kept apart when it was made and
# never looked at while the search was developed, the SHA-256 of its SQL dumps then (the
# suite refuses it if they change, reports it apart, and never lets it choose the rules).
# A frozen set whose results have been looked at while changing the search joins the
# development sets (theta-mixed, real-p2-mpich, polaris-powerlaw, real-p2-ompi-normal,
# fugaku-normal, real-p2-mpich-normal, dragonfly16k-uniformdist, real-p2-ompi-powerlaw,
# real-p2-ompi-uniformdist, real-p2-mpich-uniformdist, torus-archive-powerlaw,
# real-p2-mpich-powerlaw48: frozen when made, seen since).
SUITE = [
    Dataset("dragonfly-small", ["tests/data/tuner-exhaustive.sql"], "tests/sweeps/tuner.ini",
            "SimGrid, dragonfly, P = 8, 16, 32 (one node), uniform, tra at every radix",
            prior=SIM_PRIOR["dragonfly.xml"]),
    Dataset("sim64", ["tests/data/tuner-sim64.sql"], "sweeps/tuner_sim64.ini",
            "SimGrid, dragonfly, P = 16, 32 (one node), 64 (two), uniform, spread_out from 1-4 KiB",
            prior=SIM_PRIOR["dragonfly.xml"]),
    Dataset("dragonfly", ["tests/data/tuner-dragonfly-memlink.sql"], "sweeps/paper/tuner_dragonfly.ini",
            "SimGrid, dragonfly (shared intra-node link), P = 128..512, uniform and non-uniform (uniform dist)",
            prior=SIM_PRIOR["dragonfly.xml"]),
    Dataset("fattree-npot", ["tests/data/tuner-fattree-npot.sql"], "sweeps/suite/fattree_npot.ini",
            "SimGrid, fat tree, P = 24, 48, 72 (not powers of two), uniform",
            prior=SIM_PRIOR["fattree_ib.xml"]),
    Dataset("torus-nonuniform", ["tests/data/tuner-torus-nonuniform.sql"],
            "sweeps/suite/torus_nonuniform.ini",
            "SimGrid, torus, P = 36, 48 (one node), 60 (two), non-uniform, dists uniform and powerlaw",
            prior=SIM_PRIOR["torus_tofud.xml"]),
    Dataset("real-p2", ["tests/data/tuner-real-p2.sql"], "sweeps/tuner_p2.ini",
            "real, Open MPI, one node, P = 2, every kernel and vendor algorithm", prior=REAL_PRIOR),
    Dataset("real-p2-noisy", ["tests/data/tuner-real-p2-noisy.sql"], "sweeps/tuner_p2.ini",
            "real, Open MPI, one node, P = 2, a noisy run (bimodal vendor at 8-16 KiB)",
            prior=REAL_PRIOR),
    Dataset("theta-mixed", ["tests/data/tuner-theta-mixed.sql"], "sweeps/suite/theta_mixed.ini",
            "SimGrid, Aries dragonfly (theta.xml), P = 24, 48 (one node), 72 (two), uniform and "
            "non-uniform (normal)", prior=SIM_PRIOR["theta.xml"]),
    Dataset("real-p2-mpich", ["tests/data/tuner-real-p2-mpich.sql"], "sweeps/suite/real_p2_mpich.ini",
            "real, MPICH, one node, P = 2, every kernel and vendor algorithm, non-uniform (powerlaw)",
            prior=REAL_PRIOR),
    Dataset("polaris-powerlaw", ["tests/data/tuner-polaris-powerlaw.sql"],
            "sweeps/suite/polaris_powerlaw.ini",
            "SimGrid, Slingshot dragonfly (polaris.xml), P = 20 (one node), 40, 80 (two, three), "
            "uniform and non-uniform (powerlaw)",
            prior=SIM_PRIOR["polaris.xml"]),
    Dataset("real-p2-ompi-normal", ["tests/data/tuner-real-p2-ompi-normal.sql"],
            "sweeps/suite/real_p2_ompi_normal.ini",
            "real, Open MPI, one node, P = 2, every kernel and vendor algorithm, S = 24 B - 48 KiB, "
            "non-uniform (normal)", prior=REAL_PRIOR),
    Dataset("fugaku-normal", ["tests/data/tuner-fugaku-normal.sql"], "sweeps/suite/fugaku_normal.ini",
            "SimGrid, Tofu-D torus (fugaku.xml), P = 16, 48 (one node), 96 (two), uniform "
            "and non-uniform (normal)", prior=SIM_PRIOR["fugaku.xml"]),
    Dataset("real-p2-mpich-normal", ["tests/data/tuner-real-p2-mpich-normal.sql"],
            "sweeps/suite/real_p2_mpich_normal.ini",
            "real, MPICH, one node, P = 2, every kernel and vendor algorithm, S = 40 B - 80 KiB, "
            "non-uniform (normal)", prior=REAL_PRIOR),
    Dataset("dragonfly16k-uniformdist", ["tests/data/tuner-dragonfly16k-uniformdist.sql"],
            "sweeps/suite/dragonfly16k_uniformdist.ini",
            "SimGrid, dragonfly (dragonfly_16k.xml), P = 24 (one node), 56, 112 (two, four), "
            "uniform and non-uniform (uniform)",
            prior=SIM_PRIOR["dragonfly_16k.xml"]),
    Dataset("real-p2-ompi-powerlaw", ["tests/data/tuner-real-p2-ompi-powerlaw.sql"],
            "sweeps/suite/real_p2_ompi_powerlaw.ini",
            "real, Open MPI, one node, P = 2, every kernel and vendor algorithm, S = 56 B - 56 KiB, "
            "non-uniform (powerlaw)",
            prior=REAL_PRIOR),
    Dataset("real-p2-ompi-uniformdist", ["tests/data/tuner-real-p2-ompi-uniformdist.sql"],
            "sweeps/suite/real_p2_ompi_uniformdist.ini",
            "real, Open MPI, one node, P = 2, every kernel and vendor algorithm, S = 88 B - 88 KiB, "
            "non-uniform (uniform), samples kept",
            prior=REAL_PRIOR),
    Dataset("real-p2-mpich-uniformdist", ["tests/data/tuner-real-p2-mpich-uniformdist.sql"],
            "sweeps/suite/real_p2_mpich_uniformdist.ini",
            "real, MPICH, one node, P = 2, every kernel and vendor algorithm, S = 72 B - 72 KiB, "
            "non-uniform (uniform), samples kept",
            prior=REAL_PRIOR),
    Dataset("torus-archive-powerlaw", ["tests/data/tuner-torus-archive-powerlaw.sql"],
            "sweeps/suite/torus_archive_powerlaw.ini",
            "SimGrid, torus (platforms/archive/torus_tofud-3c8ff5e5.xml: SMPI's own network model), "
            "P = 20, 44 (one node), 88 (two), uniform and non-uniform (powerlaw)",
            prior=SIM_PRIOR["torus_tofud-3c8ff5e5.xml"]),
    Dataset("real-p2-mpich-powerlaw48", ["tests/data/tuner-real-p2-mpich-powerlaw48.sql"],
            "sweeps/suite/real_p2_mpich_powerlaw48.ini",
            "real, MPICH, one node, P = 2, every kernel and vendor algorithm, S = 48 B - 48 KiB, "
            "non-uniform (powerlaw), samples kept",
            prior=REAL_PRIOR),
    Dataset("fattree-archive-normal", ["tests/data/tuner-fattree-archive-normal.sql"],
            "sweeps/suite/fattree_archive_normal.ini",
            "SimGrid, fat tree (platforms/archive/fattree_ib-65ffcbe5.xml: SMPI's own network model), "
            "P = 28 (one node), 60, 96 (two, three), uniform and non-uniform (normal)",
            frozen="4c1cf5c531ca97cd5fb20c01a03dc437e3e42c3c98735ca3004dacc7b10b75af",
            prior=SIM_PRIOR["fattree_ib-65ffcbe5.xml"]),
    Dataset("real-p2-mpich-normal96", ["tests/data/tuner-real-p2-mpich-normal96.sql"],
            "sweeps/suite/real_p2_mpich_normal96.ini",
            "real, MPICH, one node, P = 2, every kernel and vendor algorithm, S = 96 B - 96 KiB, "
            "non-uniform (normal), samples kept",
            frozen="91eda1f8551ed846b228b99d06c99224071a154d577ea2e5d961db7266f2ad4e",
            prior=REAL_PRIOR),
    Dataset("real-p2-ompi-powerlaw40", ["tests/data/tuner-real-p2-ompi-powerlaw40.sql"],
            "sweeps/suite/real_p2_ompi_powerlaw40.ini",
            "real, Open MPI, one node, P = 2, every kernel and vendor algorithm, S = 40 B - 40 KiB, "
            "non-uniform (powerlaw), samples kept",
            frozen="9dc5fc7fe5917b211bf64c6f8eb8c9683ac1a55a07102a6d521d2e6531e11d28",
            prior=REAL_PRIOR),
    Dataset("real-p2-mpich-uniform40", ["tests/data/tuner-real-p2-mpich-uniform40.sql"],
            "sweeps/suite/real_p2_mpich_uniform40.ini",
            "real, MPICH, one node, P = 2, every kernel and vendor algorithm, S = 40 B - 40 KiB, "
            "non-uniform (uniform), samples kept",
            frozen="a68a26ef6c8c6f40bc88ba61142d5b9780a94f026ec462e91fd049e50e75b6e1",
            prior=REAL_PRIOR),
]

PRIOR_METHOD = "tuner+prior"  # the search with the platform's prior (Dataset.prior)
SEARCHES = ("tuner", PRIOR_METHOD)
METHODS = ["tuner", PRIOR_METHOD, "random", "stratified", "halving", "default"]
TIME_METHODS = ["tuner", PRIOR_METHOD, "random", "stratified", "default"]  # halving plans in configurations
HALVING_ETA = 3  # successive halving: a third of the candidates go on, at three times the fidelity
EPSILON = 0.01  # a rule that buys at most this share of cells within 5 % on average...
HARM = 0.02     # ...and at most this on every data set (one cell in a few seeds) goes


def rules(binary):
    """The search's switchable rules, as `a2atune tune --help` lists them (harness/tuner/tuner.c)."""
    for line in run_binary([binary, "tune", "--help"]).splitlines():
        if line.startswith("rules of the search (--without):"):
            return [r.strip() for r in line.split(":", 1)[1].split(",") if r.strip()]
    raise A2AError("%s tune --help lists no rules of the search" % binary)


def add_arguments(p):
    """The suite's options on `a2a tuner-report`."""
    p.add_argument("--suite", action="store_true",
                   help="the evaluation suite: replay the search on every checked-in "
                        "exhaustive data set (a2a_tools/tuner_suite.py), at --budgets, under "
                        "--seeds noise seeds, against random, stratified random and the "
                        "library default")
    p.add_argument("--budgets", default="10,25,50", metavar="LIST",
                   help="with --suite: budgets in %% of the configurations (default: %(default)s)")
    p.add_argument("--time-budgets", default="10,25,50", metavar="LIST",
                   help="with --suite: budgets in %% of each data set's exhaustive time, passed "
                        "to the search as seconds ('' for none; default: %(default)s)")
    p.add_argument("--noise", type=float, default=2.0, metavar="PCT",
                   help="with --suite: multiplicative noise on the stored medians, +-PCT %% "
                        "(default: %(default)s)")
    p.add_argument("--datasets", metavar="LIST",
                   help="with --suite: only these data sets (default: all)")
    p.add_argument("--ablation", action="store_true",
                   help="with --suite: the search without each rule, judged leave-one-data-set-out")
    p.add_argument("--page", metavar="FILE",
                   help="with --suite: also write this Markdown page: --template with its "
                        "{{...}} filled by the report's parts (make tuner-eval writes "
                        "docs/results/tuner-eval.md)")
    p.add_argument("--template", default=os.path.join(ROOT, "docs", "results", "tuner-eval.template.md"),
                   metavar="FILE", help="with --page: the page's text (default: %(default)s)")
    p.add_argument("--work", default=os.path.join("results", "tuner-suite"), metavar="DIR",
                   help="with --suite: where the data sets are loaded (default: %(default)s)")


Budget = collections.namedtuple("Budget", "percent time")  # time: of the exhaustive time


def budget_label(b):
    """'25 %' (of the configurations) or '25 % time' (of the exhaustive time)."""
    return "%g %%%s" % (b.percent, " time" if b.time else "")


def sql_digest(ds):
    """The SHA-256 (hex) of ds's SQL dumps, read in order."""
    digest = hashlib.sha256()
    for s in ds.sql:
        with open(os.path.join(ROOT, s), "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def check_frozen(ds):
    """A2AError unless ds is not frozen or its SQL dumps are the ones frozen (their hash)."""
    if ds.frozen and sql_digest(ds) != ds.frozen:
        raise A2AError("data set %s is frozen (tuner_suite.py: SUITE), but %s no longer hashes "
                       "to %s: a frozen data set is never changed; freeze a new one instead"
                       % (ds.name, ", ".join(ds.sql), ds.frozen))


def load_dataset(ds, work):
    """Path of the SQLite database of ds, loaded from its SQL dumps when missing or older
    (A2AError when a frozen data set's dumps changed)."""
    import sqlite3
    check_frozen(ds)
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, ds.name + ".db")
    sources = [os.path.join(ROOT, s) for s in ds.sql]
    if os.path.exists(path) and all(os.path.getmtime(path) >= os.path.getmtime(s) for s in sources):
        return path
    if os.path.exists(path):
        os.remove(path)
    conn = sqlite3.connect(path)
    for s in sources:
        with open(s) as f:
            conn.executescript(f.read())
    if conn.execute("PRAGMA application_id").fetchone()[0] == 0:
        # a dump without the file's header (sqlite3's .dump of a file opened without it):
        # a2atune's own tables, of the schema whose columns runs has (network_model: 4)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
        conn.execute("PRAGMA application_id = %d" % APPLICATION_ID)
        conn.execute("PRAGMA user_version = %d" % (4 if "network_model" in columns else 3))
    conn.commit()
    conn.close()
    return path


def tune_command(binary, ds, db_path, extra):
    """The a2atune tune command line over ds."""
    return [binary, "tune", os.path.join(ROOT, ds.sweep), "--replay", os.path.abspath(db_path)] + extra


# An Open MPI a2atune started without mpirun (a singleton) forks an orted daemon at MPI_Init:
# half of the CPU of a small replay, which needs no daemon. Ignored by MPICH builds.
SINGLETON_ENV = {"OMPI_MCA_ess_singleton_isolated": "1"}


def run_binary(cmd):
    """stdout of cmd (an Open MPI singleton runs without its daemon); A2AError with its last
    stderr line when it fails."""
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, **SINGLETON_ENV))
    if out.returncode != 0:
        raise A2AError("%s: %s" % (" ".join(cmd[:3]), (out.stderr.strip().splitlines() or
                                                      ["exit %d" % out.returncode])[-1]))
    return out.stdout


class Data:
    """One data set: its cells {(context, P, S): {arm: row}}, the configuration of each key
    and the cost of each (mean x (iterations + warm-up))."""

    def __init__(self, ds, binary, work):
        self.ds = ds
        self.path = load_dataset(ds, work)
        keys = set(run_binary(tune_command(binary, ds, self.path, ["--candidates"])).split())
        db = open_db(self.path)
        try:
            self.cells = regret.load_exhaustive(db, keys)
        finally:
            db.conn.close()
        self.by_key = {}
        for cell, cands in self.cells.items():
            for arm, row in cands.items():
                self.by_key[row["config_key"]] = (cell, row)
        self.cost = {k: cost_of(r) for k, (_, r) in self.by_key.items()}
        self.total_cost = sum(self.cost.values())
        self.n = len(self.by_key)
        self.best = {cell: min(r["median_s"] for r in cands.values()) for cell, cands in self.cells.items()}
        self.prior_path = make_prior(ds, binary, self.path, work) if ds.prior else None
        self.amplitude = 0.0  # the replay's noise on each median (run sets it from --noise)
        self.decided = {}  # a2a tune's decision per set of rows seen in a cell (decide)

    def decide(self, rows):
        """regret.tune_rule over rows, remembered: the replays of one seed under
        different rules or budgets see the same rows in most cells."""
        key = tuple(sorted((r["config_key"], r["median_s"], r["q1_s"], r["q3_s"]) for r in rows))
        if key not in self.decided:
            self.decided[key] = regret.tune_rule(rows)
        return self.decided[key]


def make_prior(ds, binary, db_path, work):
    """The prior file of ds (`a2a prior` on ds.prior's platform, at the launch size of its
    database, the copy-cost model its simulated runs recorded), written into work; each
    configuration's schedule traced once and kept in work/traces (A2A_TRACE_CACHE)."""
    import sqlite3
    from ..simulation import prior
    os.environ.setdefault("A2A_TRACE_CACHE", os.path.abspath(os.path.join(work, "traces")))
    conn = sqlite3.connect(db_path)
    try:
        options = " ".join(o or "" for (o,) in conn.execute("SELECT smpi_options FROM runs"))
    finally:
        conn.close()
    copies = re.search(r"copy-model=(\S+)", options)
    path = os.path.join(work, ds.name + ".prior")
    prior.make_prior(binary, os.path.join(ROOT, ds.sweep), os.path.join(ROOT, ds.prior.platform),
                     path, replay=os.path.abspath(db_path),
                     copy_model=copies.group(1) if copies else "", vendor=ds.prior.vendor,
                     made_by="a2a tuner-report --suite (data set %s)" % ds.name, err=io.StringIO())
    return path


def cost_of(row):
    """Seconds of the timed and warm-up calls of one row (as a2atune tune's time budget)."""
    n = row["iterations"] or 0
    return (row["mean_s"] or row["median_s"] or 0) * (n + max(row["warmup"] or 0, 0))


def noisy(row, factor):
    """A copy of row with median and quartiles times factor."""
    out = dict(row)
    for k in ("median_s", "q1_s", "q3_s"):
        if out.get(k) is not None:
            out[k] = out[k] * factor
    return out


def judge(data, picked, screens=()):
    """Metrics of one search: picked = [(key, row as the search saw it)], the configurations
    it measured; screens = [(share of a configuration, seconds)], those it screened (a screen
    counts in the budget used, never in a cell's rule)."""
    measured = {}
    for key, row in picked:
        cell, _ = data.by_key[key]
        measured.setdefault(cell, []).append(row)
    result = regret.evaluate(data.cells, measured, data.decide)
    cells = sorted(data.cells, key=str)
    cost = sum(data.cost[k] for k, _ in picked) + sum(seconds for _, seconds in screens)
    return {"regrets": [result[c][0] for c in cells], "slower": slower_list(data, result),
            "why": [why_missed(data.cells[c], measured.get(c, []), result[c][1]) for c in cells],
            "configs": (len(picked) + sum(share for share, _ in screens)) / data.n,
            "time": cost / data.total_cost if data.total_cost else 0.0}


def why_missed(cands, seen, arm):
    """Why a cell's choice `arm` is not its best (cands: {arm: row}, the exhaustive rows;
    seen: the rows the search measured there): nothing measured in the cell (its rule comes
    from a neighbouring cell); the best never measured (named); the library's default kept
    where it was not measured (a2a tune's never-slower rule); else measured but not chosen
    (the rule's choice within the noise of what it saw)."""
    best = min(cands, key=lambda a: cands[a]["median_s"])
    arms = {regret.arm_of(r) for r in seen}
    if not seen:
        return "no measurement in the cell"
    if best not in arms:
        return "the best (%s) not measured" % tune.label(best[0], json.loads(best[1]))
    if (arm is None or arm == regret.library_choice(cands)) and regret.library_choice(cands) not in arms:
        return "the library's default kept (not measured here)"
    return "the best measured, another chosen within the noise"


def slower_list(data, arms):
    """Per cell (sorted as the regrets): how much slower than the library's default the arm
    run there is beyond the noise (regret.slower_than_default; 0.0: not slower).
    arms: {cell: (regret, arm)}."""
    return [regret.slower_than_default(data.cells[c], arms[c][1], data.amplitude)
            for c in sorted(data.cells, key=str)]


def neighbour_drift(cells):
    """(RMS, count) of how much log(default / choice) changes from a cell to a neighbour that
    a2a tune's never-slower rule reads (tune.default_evidence), over every candidate measured
    in both cells that the neighbour makes faster than the library's default: the spread
    behind tune.CELL_DRIFT. cells: {(context, P, S): {arm: row}} (regret.load_exhaustive)."""
    grids = collections.defaultdict(dict)
    for (ctx, P, S), arms in cells.items():
        grids[ctx][(P, S)] = [tune.Candidate(row) for row in arms.values() if row["median_s"] > 0]
    changes = []
    for grid in grids.values():
        for (P, S), here in grid.items():
            lib = tune.library_default(here)
            for mine in here if lib else []:
                if mine is lib:
                    continue
                changes += [math.log(lib.median / mine.median) - r_there
                            for _, _, r_there in tune.default_evidence(grid, P, S, mine.key)
                            if r_there > 0]
    if not changes:
        return 0.0, 0
    return math.sqrt(sum(c * c for c in changes) / len(changes)), len(changes)


def print_drift(datas, development):
    """The page's drift part: neighbour_drift per data set, and the development sets' mean
    against tune.CELL_DRIFT."""
    print("## never slower than the default: the drift between neighbouring cells\n")
    print("Where the library's default was not measured in a cell, `a2a tune` keeps a rule only "
          "when the neighbouring cells make it faster than the default with confidence %.2f, "
          "taking log(default / choice) to drift from a cell to its neighbour with sd CELL_DRIFT "
          "= %.2f (tune.py). Measured on each exhaustive data set (RMS of that change over every "
          "neighbouring pair and candidate the neighbour makes faster than the default):\n"
          % (tune.DEFAULT_CONFIDENCE, tune.CELL_DRIFT))
    print("| data set | pairs | RMS of the change (log) |")
    print("|---|---|---|")
    values = []
    for name in datas:
        rms, n = neighbour_drift(datas[name].cells)
        print("| %s%s | %d | %.3f |" % (name, " (frozen)" if datas[name].ds.frozen else "", n, rms))
        if name in development and n:
            values.append(rms)
    if values:
        print("\nmean over the development sets: %.3f (CELL_DRIFT %.2f)\n"
              % (sum(values) / len(values), tune.CELL_DRIFT))


def replay_command(data, binary, budget, seeds, noise, without=(), prior=False):
    """The a2atune tune --evaluate command of the search at a Budget (without these rules;
    with the data set's platform prior)."""
    given = ("%.9gs" % (budget.percent / 100.0 * data.total_cost) if budget.time
             else "%g%%" % budget.percent)
    extra = ["--budget", given, "--evaluate", str(seeds), "--noise", "%g%%" % noise]
    if without:
        extra += ["--without", ",".join(sorted(without))]
    if prior:
        extra += ["--prior", data.prior_path]
    return tune_command(binary, data.ds, data.path, extra)


def judge_replay(data, seeds, output):
    """[metrics per seed] of the output of a replay_command."""
    per_seed, screens = collections.defaultdict(list), collections.defaultdict(list)
    for line in output.splitlines():
        seed, _step, _phase, key, median, q1, q3, cost, share = line.split("\t")
        if float(share) < 1:  # a screen: its key says its timed calls
            screens[int(seed)].append((float(share), float(cost)))
            continue
        _, row = data.by_key[key]
        seen = dict(row, median_s=float(median), q1_s=float(q1), q3_s=float(q3))
        per_seed[int(seed)].append((key, seen))
    return [judge(data, per_seed.get(s, []), screens.get(s, [])) for s in range(1, seeds + 1)]


def halving(data, budget, seed, noise):
    """Successive halving per cell (Jamieson and Talwalkar, AISTATS 2016; the inner loop of
    Hyperband), a method from the literature as a baseline for the search. In each cell, m
    candidates (all, or as many as the cell's share of the budget allows, drawn at random)
    are measured at a fidelity f: a share f of the timed calls, at least one, plus the
    warm-up calls, counting f of a configuration; its median off by up to noise / sqrt(f),
    as a median of fewer samples is. The best third goes on at three times the fidelity,
    until one is left or the fidelity reaches 1; the cell's choice is the best of the last
    rung. A simulated data set (one timed call) leaves no lower fidelity: there halving is
    random search within the cell."""
    rng = random.Random("%s|halving|%d|%g" % (data.ds.name, seed, budget.percent))
    per_cell = budget.percent / 100.0 * data.n / len(data.cells)
    regrets, arms, used, cost = [], {}, 0.0, 0.0
    for cell in sorted(data.cells, key=str):
        rows = sorted(data.cells[cell].values(), key=lambda r: r["config_key"])
        lowest = 1.0 / max(min(r["iterations"] or 1 for r in rows), 1)

        def plan(m):
            """(first fidelity, cost in configurations) of halving m candidates."""
            rungs = 1
            while HALVING_ETA ** (rungs - 1) < m:
                rungs += 1
            f = max(lowest, min(1.0 / HALVING_ETA ** (rungs - 1), per_cell / (rungs * m)))
            total, n, g = 0.0, m, f
            while True:
                total += n * g
                if n == 1 or g * HALVING_ETA > 1.0 + 1e-9:
                    return f, total
                n, g = max(1, n // HALVING_ETA), g * HALVING_ETA
        m = len(rows)
        while m > 1 and plan(m)[1] > per_cell + 1e-9:
            m -= 1
        alive = rng.sample(rows, m)
        fidelity = plan(m)[0]
        while True:
            seen = []
            for r in alive:
                amplitude = noise / 100.0 / math.sqrt(fidelity)
                seen.append((r["median_s"] * (1 + amplitude * (2 * rng.random() - 1)), r["config_key"], r))
                used += fidelity
                iterations, warmup = r["iterations"] or 1, max(r["warmup"] or 0, 0)
                cost += data.cost[r["config_key"]] * (warmup + fidelity * iterations) / (warmup + iterations)
            seen.sort(key=lambda x: (x[0], x[1]))
            if len(alive) == 1 or fidelity * HALVING_ETA > 1.0 + 1e-9:
                break
            alive = [x[2] for x in seen[:max(1, len(alive) // HALVING_ETA)]]
            fidelity *= HALVING_ETA
        regrets.append(seen[0][2]["median_s"] / data.best[cell] - 1)
        arms[cell] = (regrets[-1], regret.arm_of(seen[0][2]))
    return {"regrets": regrets, "slower": slower_list(data, arms), "configs": used / data.n,
            "time": cost / data.total_cost if data.total_cost else 0.0}


def baseline(data, method, budget, seed, noise):
    """Metrics of a baseline (random, stratified, halving, default) with the same budget and
    noise. Under a budget in time, random and stratified measure until the time is spent
    (the last measurement may overrun it, as the search's does)."""
    if method == "halving":
        return halving(data, budget, seed, noise)
    if method == "default":
        regrets = [regret.regret(data.cells[c], None)[0] for c in sorted(data.cells, key=str)]
        return {"regrets": regrets, "slower": [0.0] * len(regrets), "configs": 0.0, "time": 0.0}
    n = max(1, int(math.floor(budget.percent / 100.0 * data.n + 1e-9)))
    seconds = budget.percent / 100.0 * data.total_cost
    rng = random.Random("%s|%s|%d|%g%s" % (data.ds.name, method, seed, budget.percent,
                                           "t" if budget.time else ""))
    if method == "random":
        order = rng.sample(sorted(data.by_key), data.n if budget.time else n)
    else:  # stratified: the measurements dealt to the cells in a random order, in turn
        cells = sorted(data.cells, key=str)
        rng.shuffle(cells)
        pools = {c: rng.sample(sorted(r["config_key"] for r in data.cells[c].values()),
                               len(data.cells[c])) for c in cells}
        order = []
        while len(order) < data.n:
            for c in cells:
                if pools[c]:
                    order.append(pools[c].pop())
    keys, spent = [], 0.0
    for k in order:
        if (len(keys) >= n) if not budget.time else (spent >= seconds):
            break
        keys.append(k)
        spent += data.cost[k]
    picked = [(k, noisy(data.by_key[k][1], noise_factor(seed, k, noise))) for k in keys]
    return judge(data, picked)


@functools.lru_cache(maxsize=None)
def noise_factor(seed, key, noise):
    """The baselines' noise on one configuration in one seed: a factor in [1 - noise %,
    1 + noise %], the same at every budget and for every baseline."""
    return 1 + noise / 100.0 * (2 * random.Random("%d|%s" % (seed, key)).random() - 1)


def quantile(values, q):
    """The q-quantile (linear interpolation)."""
    v = sorted(values)
    if not v:
        return math.nan
    x = q * (len(v) - 1)
    lo = int(math.floor(x))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (x - lo)


def stats(m):
    """Per-seed figures of one search."""
    r = m["regrets"]
    return {"near": sum(x <= 0.05 + 1e-12 for x in r) / len(r),
            "far": sum(x <= 0.15 + 1e-12 for x in r) / len(r),
            "worst": max(r), "median": statistics.median(r), "p90": quantile(r, 0.9),
            "configs": m["configs"], "time": m["time"], "slower": sum(x > 0 for x in m["slower"])}


def meets(s):
    """Whether one seed meets the per-seed targets: >= 90 % of cells within 5 %, none beyond 15 %."""
    return s["near"] >= 0.90 - 1e-12 and s["worst"] <= 0.15 + 1e-12


def summarise(runs):
    """{figure: median over seeds} plus 'seeds_met' of a list of per-seed metrics."""
    per = [stats(m) for m in runs]
    out = {k: statistics.median(p[k] for p in per) for k in per[0]}
    out["seeds_met"] = sum(meets(p) for p in per)
    out["slower_max"] = max(p["slower"] for p in per)
    out["seeds_safe"] = sum(p["slower"] == 0 for p in per)
    out["seeds"] = len(per)
    return out


def pooled(runs_by_ds):
    """Per-seed metrics of the data sets pooled (cells of all of them together)."""
    n = len(next(iter(runs_by_ds.values())))
    out = []
    for i in range(n):
        regrets, slower, configs, time = [], [], [], []
        for runs in runs_by_ds.values():
            regrets += runs[i]["regrets"]
            slower += runs[i]["slower"]
            configs.append(runs[i]["configs"])
            time.append(runs[i]["time"])
        out.append({"regrets": regrets, "slower": slower, "configs": statistics.mean(configs),
                    "time": statistics.mean(time)})
    return out


def pct(x):
    return "inf" if x == math.inf else "%.1f" % (100 * x)


HEADER = ("| data set | budget | method | within 5 % | within 15 % | worst | median regret | "
          "p90 regret | configs used | time used | seeds meeting 90 %/15 % | slower than default: "
          "cells (median / most) | seeds with none slower |")


def table_line(name, budget, method, s):
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d | %g / %d | %d/%d |" % (
        name, budget_label(budget), method, pct(s["near"]), pct(s["far"]), pct(s["worst"]), pct(s["median"]),
        pct(s["p90"]), pct(s["configs"]), pct(s["time"]), s["seeds_met"], s["seeds"],
        s["slower"], s["slower_max"], s["seeds_safe"], s["seeds"])


def targets(s_tuner, s_strat):
    """The issue's targets at one budget for one data set: [(name, met, value)]."""
    return [
        (">= 90 % within 5 % and none beyond 15 % in >= 90 % of the seeds (18 of 20)",
         s_tuner["seeds_met"] >= math.ceil(0.9 * s_tuner["seeds"]),
         "%d/%d seeds" % (s_tuner["seeds_met"], s_tuner["seeds"])),
        ("median regret <= stratified random's p90 / 3", s_tuner["median"] <= s_strat["p90"] / 3 + 1e-12,
         "%s %% vs %s %%" % (pct(s_tuner["median"]), pct(s_strat["p90"] / 3))),
        ("time <= 25 % of the exhaustive sweep's", s_tuner["time"] <= 0.25 + 1e-12,
         "%s %%" % pct(s_tuner["time"])),
        ("no cell slower than the library's default beyond the noise in >= 90 % of the seeds",
         s_tuner["seeds_safe"] >= math.ceil(0.9 * s_tuner["seeds"]),
         "%d/%d seeds" % (s_tuner["seeds_safe"], s_tuner["seeds"])),
    ]


def run(args):
    """`a2a tuner-report --suite [--ablation]`: prints markdown tables; exit 0."""
    binary = params.binary()
    budgets = []
    for option, text, time in (("--budgets", args.budgets, False), ("--time-budgets", args.time_budgets, True)):
        try:
            values = [float(b) for b in text.split(",") if b.strip()]
        except ValueError:
            values = [-1.0]
        if any(not (0 < b <= 100) for b in values):
            raise A2AError("%s %s: give percentages above 0 and at most 100" % (option, text))
        budgets += [Budget(b, time) for b in values]
    if not budgets:
        raise A2AError("--budgets and --time-budgets are both empty: give at least one budget")
    if args.seeds < 1:
        raise A2AError("--seeds %d: at least 1" % args.seeds)
    chosen = SUITE
    if args.datasets:
        names = args.datasets.split(",")
        unknown = [n for n in names if n not in {d.name for d in SUITE}]
        if unknown:
            raise A2AError("--datasets: no data set %s (known: %s)"
                           % (unknown[0], ", ".join(d.name for d in SUITE)))
        chosen = [d for d in SUITE if d.name in names]
    template = read_template(args.template) if args.page else None
    datas = {ds.name: Data(ds, binary, args.work) for ds in chosen}
    for d in datas.values():
        d.amplitude = args.noise / 100.0
    parts = Parts()
    with parts.part("title"):
        print_title(datas, budgets, args)
    with parts.part("data_sets"):
        print_data_sets(datas)
    cache, outputs = {}, {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)  # the replays, two at a time

    def prefetch(keys):
        """Starts the replays of keys (name, budget, rules without[, with the prior])."""
        for key in keys:
            key = tuple(key) + (False,) * (4 - len(key))
            if key not in cache and key not in outputs:
                outputs[key] = pool.submit(run_binary, replay_command(
                    datas[key[0]], binary, key[1], args.seeds, args.noise, key[2], key[3]))

    def tuner_runs(name, budget, without=frozenset(), prior=False):
        key = (name, budget, frozenset(without), prior)
        if key not in cache:
            prefetch([key])
            cache[key] = judge_replay(datas[name], args.seeds, outputs.pop(key).result())
        return cache[key]

    prefetch([(n, b, frozenset(), p) for p in (False, True) for b in budgets for n in datas
              if not p or datas[n].prior_path])
    if args.ablation:
        prefetch([(n, b, frozenset([r])) for r in rules(binary) for b in budgets if not b.time
                  for n in datas if not datas[n].ds.frozen])

    base = {(name, b, m): [baseline(datas[name], m, b, s, args.noise) for s in range(1, args.seeds + 1)]
            for name in datas for b in budgets for m in methods(b) if m not in SEARCHES}
    development = [n for n in datas if not datas[n].ds.frozen]
    frozen = [n for n in datas if datas[n].ds.frozen]

    def runs_of(name, b, m):
        """Per-seed metrics of method m on data set name at budget b."""
        return tuner_runs(name, b, prior=m == PRIOR_METHOD) if m in SEARCHES else base[(name, b, m)]

    def print_table(names, overall):
        """The rows of these data sets at every budget, and their pooled row (overall)."""
        print(HEADER)
        print("|" + "---|" * 13)
        for b in budgets:
            for name in names:
                for m in methods(b):
                    if m != PRIOR_METHOD or datas[name].prior_path:
                        print(table_line(name, b, m, summarise(runs_of(name, b, m))))
            for m in methods(b) if len(names) > 1 else []:
                with_m = [n for n in names if m != PRIOR_METHOD or datas[n].prior_path]
                if with_m:
                    runs_by = {n: runs_of(n, b, m) for n in with_m}
                    print(table_line(overall, b, m, summarise(pooled(runs_by))))
        print()

    with parts.part("table"):
        if development:
            print_table(development, "**overall**")
    with parts.part("frozen"):
        if frozen:
            print("## frozen data sets: never looked at while the search was developed\n")
            print("%s: each checked against the SHA-256 of its SQL dumps when it was frozen "
                  "(tuner_suite.py: SUITE); judged by the search as it is, its rules chosen on "
                  "the other data sets (--ablation)\n" % ", ".join(frozen))
            print_table(frozen, "**frozen, overall**")
        else:
            print("(no frozen data set in this run)\n")
    with parts.part("slower"):
        print_slower(datas, budgets, tuner_runs)
        print_slower(datas, budgets, lambda n, b: tuner_runs(n, b, prior=True), " (the search "
                     "with the platform's prior)", [n for n in datas if datas[n].prior_path])
    with parts.part("drift"):
        print_drift(datas, development)
    with parts.part("targets"):
        for b in budgets:
            if b.percent == 25.0:
                print("## targets at %s (the search with every rule)\n" % budget_label(b))
                print_targets(datas, lambda n: tuner_runs(n, b), base, b)
                print("## targets at %s, the search with the platform's prior\n" % budget_label(b))
                print_targets({n: d for n, d in datas.items() if d.prior_path},
                              lambda n: tuner_runs(n, b, prior=True), base, b)
    with parts.part("ablation"):
        if args.ablation:
            ablation(datas, budgets, tuner_runs, base, rules(binary), prefetch)
        else:
            print("(not run: --ablation)\n")
    if args.page:
        write_page(args.page, template, parts.text, command_line())
    return 0


class Parts:
    """The report's parts as they are printed, kept by name for the page (--page)."""

    def __init__(self):
        self.text = {}

    @contextlib.contextmanager
    def part(self, name):
        """Prints what the block prints, and keeps it as part `name`."""
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            yield
        self.text[name] = buffer.getvalue()
        sys.stdout.write(buffer.getvalue())
        sys.stdout.flush()


PAGE_PARTS = ("command", "title", "data_sets", "table", "frozen", "slower", "drift", "targets",
              "ablation")


def read_template(path):
    """The page's text (--template), with a {{part}} for parts of PAGE_PARTS; A2AError when it
    cannot be read or names another part."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise A2AError("--template %s: %s" % (path, e.strerror or e))
    unknown = sorted(set(re.findall(r"{{(\w+)}}", text)) - set(PAGE_PARTS))
    if unknown:
        raise A2AError("--template %s: no part {{%s}} (parts: %s)" % (path, unknown[0], ", ".join(PAGE_PARTS)))
    return text


def command_line():
    """This report's command, as the page's first line says it."""
    return "scripts/a2a " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def write_page(path, template, parts, command):
    """Writes the page: the template with every {{part}} replaced by that part of the report."""
    values = dict(parts, command=command)
    text = re.sub(r"{{(\w+)}}", lambda m: values[m.group(1)].rstrip("\n"), template)
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise A2AError("--page %s: %s" % (path, e.strerror or e))


def print_title(datas, budgets, args):
    """The report's first line: what was replayed, at which budgets, under which noise."""
    print("# tuner evaluation suite: %d data sets, budgets %s (%% time: of the exhaustive sweep's "
          "time), %d noise seeds of +-%g %% (regret: true time of the tuning file's choice / true "
          "best - 1, in %%)\n" % (len(datas), ", ".join(budget_label(b) for b in budgets),
                                  args.seeds, args.noise))


def print_data_sets(datas):
    """The table of the data sets: cells, configurations, what differs."""
    print("| data set | cells | configurations | what |")
    print("|---|---|---|---|")
    for name, d in datas.items():
        print("| %s | %d | %d | %s%s |" % (name, len(d.cells), d.n, d.ds.what,
                                           " (frozen: never looked at while developing)" if d.ds.frozen else ""))
    print()


def methods(budget):
    """The search and the baselines replayed at a Budget."""
    return TIME_METHODS if budget.time else METHODS


def cell_name(cell):
    """'uniform/constant P=64 S=256'."""
    return "%s/%s P=%d S=%d" % (cell[0][0], cell[0][1], cell[1], cell[2])


def print_slower(datas, budgets, tuner_runs, variant="", names=None):
    """Per data set (names: all) and budget, the cells where the tuning file is slower than
    the library's default beyond the noise (the target: none), with the seeds where it is
    and the most; variant: what the title adds (the search with the prior)."""
    print("## cells where the tuning file%s is slower than the library's default (beyond the "
          "noise: the results contract's, plus the replay's +-noise on each median)\n" % variant)
    lines = 0
    for b in budgets:
        for name, d in datas.items():
            if names is not None and name not in names:
                continue
            cells = sorted(d.cells, key=str)
            seeds, most = collections.Counter(), {}
            for m in tuner_runs(name, b):
                for cell, x in zip(cells, m["slower"]):
                    if x > 0:
                        seeds[cell] += 1
                        most[cell] = max(most.get(cell, 0.0), x)
            if seeds:
                lines += 1
                print("- %s at %s: %s" % (name, budget_label(b), ", ".join(
                    "%s (%d seeds, up to +%s %%)" % (cell_name(c), k, pct(most[c]))
                    for c, k in seeds.most_common())))
    print("- none, at every budget\n" if not lines else "")


def print_targets(datas, runs_of, base, budget):
    """One line per data set: each target met or not at budget, and the cells beyond 5 %."""
    for name, d in datas.items():
        s_t = summarise(runs_of(name))
        s_s = summarise(base[(name, budget, "stratified")])
        checks = targets(s_t, s_s)
        cells = sorted(d.cells, key=str)
        misses, reasons = collections.Counter(), collections.defaultdict(collections.Counter)
        for m in runs_of(name):
            for cell, r, why in zip(cells, m["regrets"], m["why"]):
                if r > 0.05 + 1e-12:
                    misses[cell] += 1
                    reasons[cell][why] += 1
        worst = ", ".join("%s (%d seeds; %s)" % (cell_name(c), k, reasons[c].most_common(1)[0][0])
                          for c, k in misses.most_common(4))
        print("- **%s**%s: %s%s" % (name, " (frozen)" if d.ds.frozen else "",
                                    "; ".join("%s: %s (%s)" % (n, "met" if ok else "NOT met", v)
                                              for n, ok, v in checks),
                                    "; cells beyond 5 %%: %s" % worst if worst else ""))
    print()


def score(runs):
    """Mean share of cells within 5 % over the seeds."""
    return statistics.mean(stats(m)["near"] for m in runs)


def ablation(datas, budgets, tuner_runs, base, rule_list, prefetch):
    """The ablation table (every rule removed in turn, per data set) and the
    leave-one-data-set-out table (rules chosen on the others, judged on the held-out). The
    frozen data sets never choose rules: each is judged with the rules chosen on all the
    others."""
    names = [n for n in datas if not datas[n].ds.frozen]
    frozen = [n for n in datas if datas[n].ds.frozen]

    by_count = [b for b in budgets if not b.time] or budgets  # the rules are judged on these

    def ds_score(name, without=frozenset()):
        return statistics.mean(score(tuner_runs(name, b, without)) for b in by_count)

    def ds_time(name, without=frozenset()):
        """Mean share of the exhaustive time used at the budgets in configurations."""
        return statistics.mean(statistics.mean(m["time"] for m in tuner_runs(name, b, without))
                               for b in by_count)

    full = {n: ds_score(n) for n in names}
    delta = {r: {n: full[n] - ds_score(n, frozenset([r])) for n in names} for r in rule_list}
    saved = {r: statistics.mean(ds_time(n, frozenset([r])) - ds_time(n) for n in names) for r in rule_list}
    print("## ablation: what each rule buys (share of cells within 5 %%, mean over budgets %s "
          "and seeds; + = the rule helps, in points; time saved: points of the exhaustive time, "
          "mean over the data sets at the budgets in configurations)\n"
          % ", ".join(budget_label(b) for b in by_count))
    print("| rule | " + " | ".join(names) + " | mean | time saved |")
    print("|---|" + "---|" * (len(names) + 2))
    print("| (every rule: the share itself) | " + " | ".join(pct(full[n]) for n in names) +
          " | %s | |" % pct(statistics.mean(full.values())))
    for r in rule_list:
        print("| %s | " % r + " | ".join("%+.1f" % (100 * delta[r][n]) for n in names) +
              " | %+.1f | %+.1f |" % (100 * statistics.mean(delta[r].values()), 100 * saved[r]))
    print()

    def kept_on(dev):
        """Backward elimination over the data sets dev: the rules in order of what they buy
        alone (least first), each removed when, with the removals so far, it buys at most
        EPSILON on average and at most HARM on every data set, and saves at most EPSILON of
        the exhaustive time on average."""
        removed = frozenset()
        for r in sorted(rule_list, key=lambda r: (statistics.mean(delta[r][n] for n in dev), r)):
            trial = removed | {r}
            prefetch([(n, b, w) for w in (removed, trial) for n in dev for b in by_count])
            gain = [ds_score(n, removed) - ds_score(n, trial) for n in dev]
            time_saved = statistics.mean(ds_time(n, trial) - ds_time(n, removed) for n in dev)
            if statistics.mean(gain) <= EPSILON and max(gain) <= HARM and time_saved <= EPSILON:
                removed = trial
        return [r for r in rule_list if r not in removed]

    print("## leave one data set out: rules chosen on the others, judged on the held-out one\n")
    print("| held out | rules kept | budget | within 5 % | within 15 % | worst | median regret | "
          "p90 regret | configs used | time used | seeds meeting 90 %/15 % | stratified p90 / 3 | "
          "slower than default: cells (median / most) | seeds with none slower |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    held = {}
    kept_all = kept_on(names)
    for n in names + frozen:
        kept = kept_on([m for m in names if m != n]) if n in names else kept_all
        without = frozenset(rule_list) - frozenset(kept)
        held[n] = without
        if datas[n].prior_path:
            prefetch([(n, b, without, True) for b in budgets])
        for b in budgets:
            s_s = summarise(base[(n, b, "stratified")])
            for with_prior in (False, True) if datas[n].prior_path else (False,):
                s = summarise(tuner_runs(n, b, without, with_prior))
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d | %s | %g / %d | %d/%d |" % (
                    n + (" (frozen)" if n in frozen else ""),
                    (",".join(kept) or "(none)") + (" + prior" if with_prior else ""),
                    budget_label(b), pct(s["near"]), pct(s["far"]), pct(s["worst"]),
                    pct(s["median"]), pct(s["p90"]), pct(s["configs"]), pct(s["time"]),
                    s["seeds_met"], s["seeds"], pct(s_s["p90"] / 3), s["slower"], s["slower_max"],
                    s["seeds_safe"], s["seeds"]))
    print()
    for b in budgets:
        if b.percent == 25.0:
            print("## targets at %s, each data set held out (its rules chosen on the others)\n"
                  % budget_label(b))
            print_targets(datas, lambda n: tuner_runs(n, b, held[n]), base, b)
            print("## targets at %s, each data set held out, with the platform's prior\n"
                  % budget_label(b))
            print_targets({n: d for n, d in datas.items() if d.prior_path},
                          lambda n: tuner_runs(n, b, held[n], True), base, b)
    print("rules that earn their place on the whole suite: %s; rules that do not: %s"
          % (", ".join(kept_all) or "(none)", ", ".join(r for r in rule_list if r not in kept_all) or "(none)"))
    sys.stdout.flush()
