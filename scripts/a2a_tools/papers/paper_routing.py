"""The paper rows that rest on minimal routing, priced under both routings of the model tier
(`a2a model-run --routing minimal|adaptive`): tests/data/papers-adaptive-model.sql, and note 6
of docs/results/papers.md made from it (routing_note).

SimGrid routes minimally only (DijkstraCache: one lowest-latency route per pair of nodes);
the model tier prices both: minimal by default (every other row of the page), adaptive on
request (platform_model.ROUTINGS). Made by

    cd scripts && /usr/bin/python3 -m a2a_tools.papers.paper_routing

which runs sweeps/paper/papers_adaptive.ini's sections on their platforms once per routing
(A2A_TRACE_CACHE, when set, keeps the traces) and rewrites the data file, its header saying
what it cost."""
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time

from .paper_rows import RESULT_COLUMNS, RUN_COLUMNS
from .paper_tuna import load_sql, ms
from ..core.common import fmt_size
from ..simulation.platform_model import ROUTINGS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join("tests", "data", "papers-adaptive-model.sql")
SWEEP = os.path.join("sweeps", "paper", "papers_adaptive.ini")
# (platform, the sweep's sections priced on it, ranks per node as the paper ran)
LAUNCHES = (("theta.xml", "tra_2048_routing", 64),
            ("polaris.xml", "tuna_2048_routing,mpich_2048_routing", 32))


def remake(path=DATA):
    """Runs every launch under each routing into one database and writes its rows, with a
    header of how they were made and what that cost, as SQL to path (relative: to ROOT)."""
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "model.db")
        for platform, sections, ranks in LAUNCHES:
            for routing in ROUTINGS:
                cmd = [sys.executable, os.path.join("scripts", "a2a"), "model-run", SWEEP,
                       "--platform", os.path.join("platforms", platform), "--db", db,
                       "--section", sections, "--ranks-per-node", str(ranks),
                       "--routing", routing]
                done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
                if done.returncode != 0:
                    sys.exit("model-run failed: %s" % done.stderr.strip()[-400:])
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
        out = sqlite3.connect(":memory:")
        out.execute("ATTACH ? AS m", (db,))
        out.execute("CREATE TABLE runs AS SELECT %s FROM m.runs ORDER BY id" % RUN_COLUMNS)
        out.execute("CREATE TABLE results AS SELECT %s FROM m.results ORDER BY run_id, "
                    "section, kernel, P, S, radix" % RESULT_COLUMNS)
        # each row says how it was priced (its run's smpi_options say it too)
        out.execute("ALTER TABLE results ADD COLUMN routing TEXT")
        out.execute("UPDATE results SET routing = (SELECT CASE WHEN smpi_options LIKE "
                    "'%routing=adaptive%' THEN 'adaptive' ELSE 'minimal' END FROM runs "
                    "WHERE runs.id = results.run_id)")
        out.commit()
        out.execute("DETACH m")
        lines = _statements(out.iterdump())
    with open(os.path.join(ROOT, path), "w") as f:
        f.write("-- papers-adaptive-model.sql: the model tier's rows (backend = model) of %s\n"
                "-- on %s, each launch once with --routing minimal and once with --routing "
                "adaptive\n-- (the adaptive runs' smpi_options say routing=adaptive); made by `cd "
                "scripts && /usr/bin/python3 -m\n-- a2a_tools.papers.paper_routing`: %.0f s of "
                "wall time on a shared 2-core machine,\n-- peak %.0f MB (traces from "
                "A2A_TRACE_CACHE where kept; each row's tracing cost is in\n-- model-run's "
                "log). docs/results/papers.md's note 6 is made from it.\n"
                % (SWEEP, " and ".join(p for p, _, _ in LAUNCHES), time.time() - t0, peak))
        for line in lines:
            f.write(line + "\n")


def _statements(dump):
    """iterdump's statements a line each, a run's rows of a table one INSERT of several
    rows (one line a run, not a row)."""
    lines, rows = [], {}
    for statement in dump:
        head, _, values = statement.partition(" VALUES(")
        if not statement.startswith("INSERT INTO") or not values:
            lines.append(" ".join(statement.split()))
            continue
        key = (head, values.split(",", 1)[0])
        if key not in rows:
            rows[key] = []
            lines.append(key)
        rows[key].append("(" + values.rstrip(";"))
    return [line if isinstance(line, str) else "%s VALUES%s;" % (line[0], ",".join(rows[line]))
            for line in lines]


def load(path):
    """The rows of the data file in an in-memory database (A2AError if unreadable)."""
    return load_sql(path, ("SELECT %s FROM runs" % RUN_COLUMNS,
                           "SELECT %s, routing FROM results LIMIT 1" % RESULT_COLUMNS),
                    "python3 -m a2a_tools.papers.paper_routing writes it",
                    "the routing rows paper-table reads")


def times(conn, platform, routing, kernel, P, S):
    """{radix (None: the kernel has none): seconds} of the ok rows of one routing."""
    return {r: t for r, t in conn.execute(
        "SELECT s.radix, s.median_s FROM results s JOIN runs u ON u.id = s.run_id WHERE "
        "u.platform = ? AND s.routing = ? AND s.kernel = ? AND s.P = ? AND s.S = ? AND "
        "s.status = 'ok'", (platform, routing, kernel, P, S))}


def routing_note(conn, published):
    """Note 6 of papers.md: which backend routes how, and the rows that rest on minimal
    routing under both routings; published: {S: (radix 2's, radix 46's published seconds or
    None)} of the TRA paper at P = 2048."""
    tra, against = [], {}
    for S in sorted(published):
        got = {k: times(conn, "theta.xml", k, "tra", 2048, S) for k in ROUTINGS}
        pub = published[S]
        if pub[1]:
            against = {k: "%.2f and %.2f" % (got[k][2] / pub[0], got[k][46] / pub[1])
                       for k in ROUTINGS}
        tra.append("at %d B radix 2 / radix 46: minimal %s / %s = %.2fx, adaptive %s / %s = "
                   "%.2fx (%s)"
                   % (S, ms(got["minimal"][2]), ms(got["minimal"][46]),
                      got["minimal"][2] / got["minimal"][46], ms(got["adaptive"][2]),
                      ms(got["adaptive"][46]), got["adaptive"][2] / got["adaptive"][46],
                      "the paper: %s / %s = %.2fx" % (ms(pub[0]), ms(pub[1]), pub[0] / pub[1])
                      if pub[1] else "the paper: %.2fx against Cray's MPI_Alltoall" % pub[0]))
    tuna = []
    for S in (16, 1024):
        parts = []
        for k in ROUTINGS:
            got = times(conn, "polaris.xml", k, "tuna", 2048, S)
            best = min(got, key=got.get)
            parts.append("%s radix %d (%s; %s)" % (k, best, ms(got[best]), ", ".join(
                "radix %d %s" % (r, ms(t)) for r, t in sorted(got.items()) if r != best)))
        tuna.append("at %s the fastest of radix 2, sqrt P and P is %s" % (fmt_size(S),
                                                                         ", ".join(parts)))
    mpich = ", ".join("%s %s and %s" % (k, ms(times(conn, "polaris.xml", k, "mpich_selection",
                                                     2048, 16)[None]),
                                        ms(times(conn, "polaris.xml", k, "mpich_selection",
                                                 2048, 1024)[None])) for k in ROUTINGS)
    return (
        "6. **Routing: SimGrid minimal only, the model tier both.** SimGrid's zones route "
        "minimally (DijkstraCache: one lowest-latency route per pair of nodes) and cannot "
        "express adaptive routing; the model tier reads the same routes by default (every "
        "row above) and, with `a2a model-run --routing adaptive`, spreads a flow between two "
        "routers of one group over its minimal route and Valiant's detours through each other "
        "router of the group (each leg a minimal route), sending on the minimal route the "
        "share of every flow's bytes that leaves the busiest link least loaded and the rest "
        "equally over the detours: uniform traffic stays minimal, a round whose bytes all "
        "cross one router-to-router link spreads, as UGAL routing aims to (Kim, Dally, "
        "Scott, Abts, \"Technology-Driven, Highly-Scalable Dragonfly Topology\", ISCA 2008: "
        "minimal routes under uniform traffic, Valiant's under adversarial; "
        "docs/results/model_tier.md). Aries (Theta) and Slingshot (Polaris) route "
        "adaptively over minimal and non-minimal paths (platforms.md). At P = 2048 "
        "theta.xml's 32 nodes are 8 routers of one chassis, joined pairwise by one 5.25 GB/s "
        "rank-1 link: under minimal routing a round of tra whose partners are on another "
        "router puts all of its bytes on that one link. `%s` (made by paper_routing.py) "
        "prices the rows that rest on it under both routings: on theta.xml, tra %s. Ours / "
        "published for Fig. 8(b)'s two times: %s under minimal routing, %s under adaptive "
        "routing, where a round's bytes reach the other routers over the group's idle links "
        "(no other job loads them in the model): the two times' verdicts rest on the "
        "routing, their ratio is within 2x of the paper's under both. On polaris.xml (TuNA, "
        "P = 2048, 32 ranks a node: 8 switches of one group): %s (the paper: radix about 2 "
        "at small blocks, U-shaped around sqrt P at medium ones); MPICH's MPI_Alltoallv "
        "at 16 B and 1 KiB: %s. The rows above are priced under minimal routing."
        % (DATA, "; ".join(tra), against["minimal"], against["adaptive"], "; ".join(tuna),
           mpich))


if __name__ == "__main__":
    remake()
