"""docs/results/platforms.md (`a2a platform --page`): every figure of the machines `a2a
platform` writes, with its source or what is assumed in it (platform_table.py), what SimGrid
and the model tier make of each kind of figure, and which checked-in data was made on the
platform files as they are now."""
import glob
import hashlib
import os
import sqlite3

from .platform_table import (ASSUMED, DOCUMENTS, KIND_KEYS, MACHINES, PARAMETER_NAMES,
                             PARAMETERS)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
COMMAND = "scripts/a2a platform --page --out docs/results/platforms.md"

# what each backend does with a kind of figure: (SimGrid: the file's zones under `a2a
# simulate`, the model tier: `a2a model-run` reading the same file, platform_model.py)
BOTH_LINKS = ("the file's links (zones joined by zoneRoutes)",
              "the same links, read as a graph (platform_model.GraphNetwork)")
BACKENDS = {
    "cores": ("each host's `core`; `a2a simulate` fills a host to its cores",
              "the hosts' `core`: the most ranks a node takes"),
    "ranks_per_node": ("not expressed: `a2a simulate` fills each host to its `core` "
                       "(fugaku.xml: 48 a node, not the paper's 32)",
                       "`a2a model-run --ranks-per-node` (the TuNA rows: 32)"),
    "machine_nodes": ("not expressed (the file holds file_nodes)", "not expressed"),
    "file_nodes": ("the hosts of the file", "the hosts of the file"),
    "placement": ("rank r on host r // (ranks a host takes), hosts in file order",
                  "the same (node-circulant schedules: node 0 stands for every node)"),
    "groups": BOTH_LINKS, "rows": BOTH_LINKS, "columns": BOTH_LINKS,
    "nodes_per_switch": BOTH_LINKS, "row_links": BOTH_LINKS, "column_links": BOTH_LINKS,
    "global_links": BOTH_LINKS,
    "global_ports": ("not expressed where the file has no global links (theta.xml: one "
                     "group)", "not expressed"),
    "torus": ("routers joined to the next along each dimension (not SimGrid's TORUS "
              "cluster, whose node has no NIC link of its own)",
              "the same links, read as a graph"),
    "link_bw": BOTH_LINKS, "link_lat": BOTH_LINKS,
    "nics": ("one NIC link of NICs x NIC bandwidth (a rank's flow may take all of it)",
             "the same link"),
    "nic_bw": ("only as the NIC link's share of the injection bandwidth", "the same"),
    "nic_lat": ("the NIC link's latency", "the same"),
    "injection": ("the node's NIC link: every message to another node crosses it",
                  "the same link, shared by the node's ranks in inverse proportion to "
                  "their routes' latency"),
    "routing": ("DijkstraCache: the lowest-latency route, one per pair of nodes (minimal); "
                "adaptive routing is not expressible in SimGrid's zones",
                "the same routes (Dijkstra over the graph) by default; with `a2a model-run "
                "--routing adaptive`, a flow between two routers of one group also over "
                "Valiant's detours through the group's other routers, in the share that "
                "leaves the busiest link least loaded (platforms of explicit routers only)"),
    "mem_bw": ("the node's memory link, its route to itself: shared by the node's "
               "messages to itself", "the same link, shared"),
    "mem_lat": ("the memory link's latency", "the same"),
    "os": ("`smpi/os` in the file's <config>: a blocking send below the eager limit",
           "the same (CostModel.overhead); liba2a's kernels send non-blocking only"),
    "or": ("`smpi/or`: a receive below the eager limit", "the same"),
    "ois": ("`smpi/ois`: each non-blocking send", "the same"),
    "bw_factor": ("`smpi/bw-factor`", "bytes / bw-factor on every link"),
    "lat_factor": ("`smpi/lat-factor`", "route latency x lat-factor"),
    "eager": ("`smpi/send-is-detached-thresh`: a send below it completes at once",
              "the same (a rank waits for its sends only from the limit on)"),
    "sharing": ("`network/weight-S`, `network/crosstraffic` in <config>",
                "Platform.penalty (weight-S) and the cross-traffic share (off here)"),
}
# the machines in the page's order, with the paper rows each carries
ORDER = (("theta", "the TRA paper's rows (tests/data/papers-theta-model.sql) and the model's "
                   "check against SimGrid there (tests/data/model-p2048-theta.sql)"),
         ("polaris", "the TuNA paper's Polaris rows (tests/data/papers-tuna-model.sql) and the "
                     "model's check (tests/data/model-p2048-polaris.sql)"),
         ("fugaku", "the TuNA paper's Fugaku rows (tests/data/papers-tuna-model.sql) and the "
                    "model's check (tests/data/model-p2048-fugaku.sql)"),
         ("dragonfly", "the SimGrid rows of docs/results' figures and the model's error "
                       "against SimGrid (tests/data/tuner-dragonfly-memlink*.sql)"),
         ("dragonfly_16k", "the model tier's dragonfly at P = 2048 ... 16,384 and its check "
                           "against SimGrid at P = 2048 (tests/data/model-p2048.sql)"))


def shown(key, figure):
    """A figure's value with its unit, as the page prints it."""
    unit = PARAMETER_NAMES[key][1]
    v = figure.value
    text = ("{:,}".format(v) if isinstance(v, int) and abs(v) >= 10000 else
            "%g" % v if isinstance(v, (int, float)) else str(v))
    return text + (" " + unit if unit else "")


def missing_sources(machines=None):
    """[(machine, key, why)] of every figure a machine's kind needs that has neither a
    document (a DOCUMENTS key) nor something assumed; empty when the table is complete."""
    bad = []
    for name, m in sorted((machines or MACHINES).items()):
        for key in KIND_KEYS[m["kind"]]:
            f = m.get(key)
            if f is None:
                bad.append((name, key, "no figure"))
            elif not f.sources and not f.assumed:
                bad.append((name, key, "neither a source nor 'assumed'"))
            elif any(k not in DOCUMENTS for k in f.sources):
                bad.append((name, key, "cites a document the table does not list"))
    return bad


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def data_platforms(root=ROOT):
    """[(data file, backend, platform, state)] of every checked-in .sql data file's runs
    whose platform is a file of platforms/ by name: state 'current' when the run recorded
    the sha256 of that file as it is now, else where the file it ran on is kept
    (platforms/archive) or that it is not."""
    current = {os.path.basename(p): _sha256(p)
               for p in glob.glob(os.path.join(root, "platforms", "*.xml"))}
    archived = {_sha256(p): os.path.relpath(p, root)
                for p in glob.glob(os.path.join(root, "platforms", "archive", "*.xml"))}
    out = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "*.sql"))):
        conn = sqlite3.connect(":memory:")
        try:
            with open(path) as f:
                conn.executescript(f.read())
            rows = conn.execute("SELECT DISTINCT backend, platform, platform_sha256 FROM runs "
                                "WHERE platform IS NOT NULL").fetchall()
        except sqlite3.Error:
            rows = []
        finally:
            conn.close()
        for backend, platform, sha in rows:
            name = os.path.basename(platform)
            if name not in current:
                continue
            state = ("current" if sha == current[name] else
                     "made on an older file: %s" % archived[sha] if sha in archived else
                     "made on an older file, not kept")
            out.append((os.path.relpath(path, root), backend, name, state))
    return out


def page(root=ROOT):
    """The markdown text of docs/results/platforms.md."""
    cites = {name: sum(1 for k in KIND_KEYS[m["kind"]] if not m[k].assumed)
             for name, m in MACHINES.items()}
    out = ["Generated by `%s` from scripts/a2a_tools/simulation/platform_table.py (do not edit)." % COMMAND,
           "",
           "# The platforms' figures and their sources", "",
           "The papers' machines and the generic dragonflies are written by `scripts/a2a "
           "platform MACHINE` from one table: every figure (link and NIC rates and "
           "latencies, NICs per node, injection bandwidth, group and switch counts, global "
           "links, routing, the memory link, SMPI's per-message costs and factors, the eager "
           "limit, ranks per node) has its value and either the document it comes from or "
           "*assumed* with what is assumed. Only documents named by the papers, by the "
           "issue that asked for this table or by the platform comments before it are "
           "cited. tests/parts/netmodel.sh regenerates this page and every platform file and "
           "fails on a figure with neither a document nor *assumed*.", "",
           "Figures per machine (cited / assumed in part or whole): %s." % ", ".join(
               "%s %d / %d" % (name, cites[name], len(KIND_KEYS[MACHINES[name]["kind"]]) -
                                cites[name]) for name, _ in ORDER), "",
           "## What each backend makes of a figure", "",
           "SimGrid runs the file's zones (`a2a simulate`); the model tier (`a2a model-run`, "
           "[model_tier.md](model_tier.md)) reads the same file. Both take every "
           "generated platform as explicit hosts, routers and links; SimGrid routes "
           "minimally only, the model tier minimally by default and adaptively on request "
           "(the routing row; a row priced so says routing=adaptive in its run's options); "
           "neither models a per-NIC limit on one rank's flow. Each machine's routing row "
           "below is the file's (minimal).", "",
           "| figure | SimGrid (the file's zones) | model tier |", "|---|---|---|"]
    for key, what, _ in PARAMETERS:
        simgrid, model = BACKENDS[key]
        out.append("| %s | %s | %s |" % (what, simgrid, model))
    for name, rows in ORDER:
        m = MACHINES[name]
        out += ["", "## %s.xml" % name, "", "Carries %s." % rows, "",
                "| figure | value | source |", "|---|---|---|"]
        for key in KIND_KEYS[m["kind"]]:
            f = m[key]
            source = f.source_text()
            if f.note:
                source += " (%s)" % f.note
            if f.assumed:
                source = source.replace(ASSUMED, "**%s**" % ASSUMED, 1)
            out.append("| %s | %s | %s |" % (PARAMETER_NAMES[key][0], shown(key, f), source))
    out += ["", "## Which data was made on the files as they are now", "",
            "The checked-in data files whose runs name a platform of `platforms/` (each run "
            "records its file's sha256): *current* when that is the file now; otherwise the "
            "rows were made on an older file (kept in `platforms/archive/` when named), and "
            "what the table above says of the platform does not hold for them.", "",
            "| data | backend | platform | made on |", "|---|---|---|---|"]
    for data, backend, platform, state in data_platforms(root):
        out.append("| %s | %s | %s | %s |" % (data, backend, platform, state))
    out += ["", "Not in the table: `torus_tofud.xml`, `fattree_ib.xml` and `local.xml` are "
            "written by hand (their comments give their figures); they carry no paper row.",
            ""]
    return "\n".join(out)
