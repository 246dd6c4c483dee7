"""Simulated and modelled runs in figures: which runs draw together, and the label a
figure prints for them instead of the MPI library and oversubscription.

A simulated run (`a2a simulate`, backend simgrid) is comparable with another when they
share a model (simulation_model: platform, SimGrid version, options, network model); a
modelled run (`a2a model-run`, backend model) says how far the model tier is from SimGrid.
"""
import re

from ..core import netmodel


def modelled_label(run):
    """'modelled on dragonfly.xml, not simulated · error vs SimGrid: median 4.6 %, worst
    40.3 % (172 cells)' for a run of `a2a model-run`: its figures always say how far the
    model is from SimGrid where both run."""
    opts = run["smpi_options"] or ""
    m = re.search(r"error vs simgrid \([^)]*\): (.*)$", opts)
    error = ("error vs SimGrid: %s" % m.group(1) if m
             else "error vs SimGrid not measured (a2a model-run --check SIMDB)")
    return "modelled on %s, not simulated \u00b7 %s" % (run["platform"] or "?", error)


SIMULATION_TAG = re.compile(r"^; a2a simulate (\S+): ")
# the parts of a simulated run's options that `a2a simulate` sets per P (shared-memory
# thresholds and block sizes): they change what a simulation costs, not what it computes
PER_P_OPTIONS = re.compile(r"\s*(--cfg=smpi/auto-shared-malloc-thresh:\d+|"
                           r"--cfg=smpi/shared-malloc-blocksize:\d+|copy-skip=\d+)")


# SimGrid 3.32's own value of an option `a2a simulate` may set: a run that sets it to this
# value ran as a run that does not set it
SIMGRID_DEFAULTS = {"maxmin/precision": "1e-5"}
CFG_OPTION = re.compile(r"^--cfg=([^:]+):(.*)$")


def options_in_effect(options):
    """A run's recorded options (run.smpi_options) as SimGrid applied them: a --cfg given
    twice holds its last value (SimGrid applies them in order), one equal to SimGrid's
    default (SIMGRID_DEFAULTS) is left out, the per-P ones (PER_P_OPTIONS) too; the other
    words in their order, then the --cfg options by name."""
    words, cfg = [], {}
    for word in PER_P_OPTIONS.sub("", options or "").split():
        m = CFG_OPTION.match(word)
        if m:
            cfg.pop(m.group(1), None)
            cfg[m.group(1)] = m.group(2)
        else:
            words.append(word)
    return " ".join(words + ["--cfg=%s:%s" % (name, value) for name, value in sorted(cfg.items())
                             if SIMGRID_DEFAULTS.get(name) != value])


def simulation_model(run):
    """What makes two simulated runs' timings comparable: the platform (its sha256),
    SimGrid's version, the options in effect (options_in_effect: cost model, vendor
    algorithms, copy model, validation limit, without the per-P ones) and the network
    model; None for a real run."""
    keys = run.keys()
    if "backend" not in keys or run["backend"] != "simgrid":
        return None
    return (run["platform_sha256"], run["simgrid_version"],
            options_in_effect(run["smpi_options"]),
            netmodel.identity(netmodel.recorded(run)))


def simulation_runs(db, run_id):
    """The runs drawn together with run_id: for a run of `a2a simulate` (one smpirun per
    P) every simulated run of the same model (simulation_model: platform, SimGrid version,
    options), whichever `a2a simulate` call made it — simulated time is deterministic, so
    a sweep simulated in parts (--P, --resume) draws as one; for anything else run_id
    alone. Simulated and real runs never share a model, so a figure never mixes them."""
    model = simulation_model(db.run(run_id))
    if model is None or not SIMULATION_TAG.match(db.run(run_id)["sweep_text"] or ""):
        return [run_id]
    return [r[0] for r in db.all("SELECT id FROM runs WHERE backend = 'simgrid' ORDER BY id")
            if simulation_model(db.run(r[0])) == model]


def smpi_option(run, name):
    """The value a simulated run recorded for one of its options (run.smpi_options:
    '--cfg=NAME:VALUE' or 'NAME=VALUE'), '?' when it has none."""
    m = re.search(r"%s[:=](\S+)" % re.escape(name), run["smpi_options"] or "")
    return m.group(1) if m else "?"


# the kernels that run an MPI library's own selection on liba2a's kernels, by whose choice
SELECTIONS = {"mpich_selection": "MPICH's selection", "ompi_tuned_selection": "Open MPI's selection"}


def baseline_label(baseline, run):
    """How a figure names its baseline kernel, in its title and CSV: a library's selection
    by that library ("MPICH's selection (mpich_selection)"), the vendor call of a simulated
    run by SMPI's algorithm ("SMPI's ring (vendor)"; "SMPI's ring/bruck (vendor)" when
    MPI_Alltoall's and MPI_Alltoallv's differ), anything else (a real run's vendor call
    included) by its kernel name."""
    if baseline in SELECTIONS:
        return "%s (%s)" % (SELECTIONS[baseline], baseline)
    keys = run.keys() if run is not None else ()
    if baseline == "vendor" and "backend" in keys and run["backend"] == "simgrid":
        algos = [smpi_option(run, "smpi/alltoall"), smpi_option(run, "smpi/alltoallv")]
        return "SMPI's %s (vendor)" % (algos[0] if algos[0] == algos[1] else "/".join(algos))
    return baseline


def simulated_label(run):
    """'simulated on dragonfly.xml · SimGrid 3.32.0 · vendor = SMPI ring/ring · copies:
    copybench · validated P <= 64' and, on a second line, 'network: ...' (its network
    model, netmodel.describe) for a simulated run (vendor: SMPI's alltoall/alltoallv
    algorithms; copies: the copy-cost model or free; P up to which payloads were compared),
    None for a real one: figures print it instead of the MPI library and oversubscription."""
    keys = run.keys()
    if "backend" in keys and run["backend"] == "model":
        return modelled_label(run)
    if "backend" not in keys or run["backend"] != "simgrid":
        return None
    def opt(name):
        return smpi_option(run, name)
    copies = "free" if opt("copy-model") in ("none", "?") else "copybench"
    return ("simulated on %s \u00b7 SimGrid %s \u00b7 vendor = SMPI %s/%s \u00b7 copies: %s "
            "\u00b7 validated P \u2264 %s\nnetwork: %s" % (
                run["platform"] or "?", run["simgrid_version"] or "?", opt("smpi/alltoall"),
                opt("smpi/alltoallv"), copies, opt("validate-up-to"),
                netmodel.describe(netmodel.recorded(run), intra=False)))
