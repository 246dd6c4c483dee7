"""Errors, number formats and table output shared by every subcommand."""
import csv
import json
import re
import sys


class A2AError(Exception):
    """Bad input (missing database, empty selection, unknown kernel, ...).

    The entry point prints it as one line, "a2a: <message>", on stderr and exits 2."""


EXIT_BAD_INPUT = 2
DEFAULT_FIGURES = "results/figures"   # where heatmap and curves write by default

_SIZE_UNITS = ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def fmt_size(nbytes):
    """Bytes in the one style of every table, figure and tuning output: 16 -> '16 B',
    1024 -> '1 KiB', 1536 -> '1.5 KiB', 16384 -> '16 KiB', 1048576 -> '1 MiB'; a size that
    is no whole (or whole-and-a-tenth) multiple of a unit stays in bytes: 1000 -> '1000 B'."""
    n = int(nbytes)
    for unit, suffix in _SIZE_UNITS:
        if abs(n) >= unit:
            if n % unit == 0:
                return "%d %s" % (n // unit, suffix)
            if (n * 10) % unit == 0:
                return "%.1f %s" % (n / unit, suffix)
    return "%d B" % n


def time_unit(seconds_max):
    """(scale, label) so that seconds * scale reads well for values up to seconds_max."""
    if seconds_max is None or seconds_max < 1e-3:
        return 1e6, "\u00b5s"
    if seconds_max < 1.0:
        return 1e3, "ms"
    return 1.0, "s"


def safe_name(text):
    """text as a file-name part: letters, digits, '-', '_' and '.' kept, anything else '-'."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in str(text))


def fmt_seconds(seconds):
    """A time with a unit chosen for it: '12.3 us', '4.56 ms', '1.20 s'."""
    if seconds is None:
        return ""
    scale, unit = time_unit(seconds)
    return "%.3g %s" % (seconds * scale, unit)


def fmt_clock(seconds):
    """A wall-clock duration as H:MM:SS (whole seconds, hours unbounded)."""
    seconds = int(seconds)
    return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def fmt_cell(value, float_format="%.4g"):
    if value is None:
        return ""
    if isinstance(value, float):
        return float_format % value
    return str(value)


def write_rows(columns, rows, fmt, out=None, float_format="%.4g"):
    """Writes rows (sequences in the order of columns) as table | csv | json | markdown.

    table: aligned columns with a header (numbers right-aligned); csv: RFC 4180 with a
    header, full precision; json: a list of objects; markdown: a GitHub pipe table."""
    out = out or sys.stdout
    rows = [list(r) for r in rows]
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v) for v in r])
        return
    if fmt == "json":
        json.dump([dict(zip(columns, r)) for r in rows], out, indent=1)
        out.write("\n")
        return
    text = [[fmt_cell(v, float_format) for v in r] for r in rows]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows) and rows
               for i in range(len(columns))]
    widths = [max([len(str(c))] + [len(t[i]) for t in text]) for i, c in enumerate(columns)]
    if fmt == "markdown":
        widths = [max(3, w) for w in widths]
        def line(cells):
            return "| " + " | ".join(cells) + " |"
        out.write(line([str(c).ljust(w) for c, w in zip(columns, widths)]) + "\n")
        out.write(line([("-" * (w - 1) + ":") if numeric[i] else "-" * w
                        for i, w in enumerate(widths)]) + "\n")
        for t in text:
            out.write(line([v.rjust(w) if numeric[i] else v.ljust(w)
                            for i, (v, w) in enumerate(zip(t, widths))]) + "\n")
        return
    if fmt != "table":
        raise A2AError("unknown output format '%s'" % fmt)
    out.write("  ".join(str(c).rjust(w) if numeric[i] else str(c).ljust(w)
                        for i, (c, w) in enumerate(zip(columns, widths))).rstrip() + "\n")
    for t in text:
        out.write("  ".join(v.rjust(w) if numeric[i] else v.ljust(w)
                            for i, (v, w) in enumerate(zip(t, widths))).rstrip() + "\n")


# ---- simulated runs (SimGrid backend, `a2a simulate`) ----------------------------------

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


def simulation_model(run):
    """What makes two simulated runs' timings comparable: the platform (its sha256),
    SimGrid's version, the options (cost model, vendor algorithms, copy model,
    validation limit) without the per-P ones and the network model; None for a real run."""
    keys = run.keys()
    if "backend" not in keys or run["backend"] != "simgrid":
        return None
    from . import netmodel
    return (run["platform_sha256"], run["simgrid_version"],
            PER_P_OPTIONS.sub("", run["smpi_options"] or "").strip(),
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
    opts = run["smpi_options"] or ""
    def opt(name):
        m = re.search(r"%s[:=](\S+)" % re.escape(name), opts)
        return m.group(1) if m else "?"
    copies = "free" if opt("copy-model") in ("none", "?") else "copybench"
    from . import netmodel
    return ("simulated on %s \u00b7 SimGrid %s \u00b7 vendor = SMPI %s/%s \u00b7 copies: %s "
            "\u00b7 validated P \u2264 %s\nnetwork: %s" % (
                run["platform"] or "?", run["simgrid_version"] or "?", opt("smpi/alltoall"),
                opt("smpi/alltoallv"), copies, opt("validate-up-to"),
                netmodel.describe(netmodel.recorded(run), intra=False)))
