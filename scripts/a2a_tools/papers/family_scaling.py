"""The in-place and SDDE families as P grows (docs/results/inplace_sdde_scaling.md), drawn by
`a2a paper-figures` from tests/data/sim-inplace-sdde-scaling.sql: per family, each kernel's
simulated time against P (log-log, one panel per family), the numbers in
scaling_inplace_sdde.csv and the table inplace_sdde_scaling.md (time per kernel and P, and
each kernel's time over the family's reference algorithm: MPICH's order for in-place, the
personalized exchange for SDDE). Same data, same numbers: both files are byte-identical
from one run to the next."""
import io
import os
import re

from ..core.common import write_rows
from ..figures.simruns import simulated_label
from ..figures import style

DATA = ("tests/data/sim-inplace-sdde-scaling.sql",)
STEM = "scaling_inplace_sdde"
TABLE = "inplace_sdde_scaling.md"
# (family, reference kernel, kernels in drawing order, what the paper calls them)
FAMILIES = (
    ("inplace", "mpich_order",
     ("mpich_order", "linear_shift", "hier_sets", "vendor"),
     {"mpich_order": "MPICH order", "linear_shift": "LSA", "hier_sets": "HSA",
      "vendor": "SMPI MPI_Alltoallv(MPI_IN_PLACE)"}),
    ("sdde", "personalized",
     ("personalized", "nonblocking", "rma", "locality_personalized", "locality_nonblocking"),
     {"personalized": "personalized", "nonblocking": "non-blocking (NBX)", "rma": "RMA",
      "locality_personalized": "locality-aware personalized",
      "locality_nonblocking": "locality-aware NBX"}),
)


def standing(db, family):
    """{(kernel, P): (kernel, P, median_s, messages, rounds_global, the run's smpi_options)}
    of the family's ok rows; the newest row of a configuration stands."""
    got = {}
    for r in db.conn.execute(
            "SELECT kernel, P, median_s, messages, rounds_global, runs.smpi_options "
            "FROM results JOIN runs ON runs.id = results.run_id "
            "WHERE family = ? AND results.status = 'ok' ORDER BY results.id", (family,)):
        got[(r[0], r[1])] = r
    return got


def rows(db):
    """[family, kernel, P, median_us, over_reference, messages, rounds_global] for every
    ok row of FAMILIES' kernels, ordered by family, kernel order, P; the newest row of a
    configuration stands."""
    out = []
    for family, reference, kernels, _names in FAMILIES:
        got = standing(db, family)
        for kernel in kernels:
            for P in sorted(p for k, p in got if k == kernel):
                r = got[(kernel, P)]
                ref = got.get((reference, P))
                out.append([family, kernel, P, round(r[2] * 1e6, 2),
                            None if ref is None else round(r[2] / ref[2], 3), r[3], r[4]])
    return out


def probe_costs(run):
    """'smpi/iprobe 1e-6, ...': the SMPI probe and test costs the run set (the SDDE sweep
    does: sweeps/paper/sdde_scaling.ini), or ''."""
    return ", ".join("%s %s" % m for m in re.findall(
        r"(smpi/(?:iprobe|test|grow-injected-times)):(\S+)", run["smpi_options"] or ""))


def precisions(db, family):
    """'max-min solver precision 1e-3 at P = 256/512, 1e-2 at P = 1024': which
    maxmin/precision the family's standing rows were simulated with, when not all the same
    (the value moves a link's saturation point: simulated times differ by up to about 1 %
    between them); '' when one value covers every row. A run given the option twice (a
    --cfg after `a2a simulate`'s own) ran with the last: SimGrid applies them in order."""
    at = {}
    for r in standing(db, family).values():
        given = re.findall(r"maxmin/precision:(\S+)", r[5] or "")
        at.setdefault(given[-1] if given else "SimGrid's default", set()).add(r[1])
    if len(at) < 2:
        return ""
    return "max-min solver precision " + ", ".join(
        "%s at P = %s" % (value, "/".join(str(P) for P in sorted(Ps)))
        for value, Ps in sorted(at.items(), key=lambda item: min(item[1])))


def label(run, precision=""):
    """The simulation's one-line label, with its probe costs when set and the solver
    precisions when they differ between rows (precisions)."""
    text = simulated_label(run).replace("\n", "; ").replace(" \u00b7 vendor = SMPI ring/ring", "")
    return text + "".join("; " + extra for extra in (probe_costs(run), precision) if extra)


def family_runs(db):
    """{family: its newest run} (the families are simulated with different SMPI options)."""
    return {family: db.run(db.newest_run("family = ?", (family,)))
            for family, _r, _k, _n in FAMILIES}


def table(numbers, runs, solver):
    """The markdown of TABLE: per family and P, each kernel's time and its ratio to the
    family's reference."""
    text = io.StringIO()
    text.write("The in-place and SDDE families as P grows, from `%s` (`a2a paper-figures`), "
               "simulated, not measured. Time of one call in microseconds; in brackets, over "
               "the family's reference (in-place: MPICH's order; SDDE: the personalized "
               "exchange).\n" % DATA[0])
    for family, _reference, kernels, names in FAMILIES:
        present = [k for k in kernels if any(n[0] == family and n[1] == k for n in numbers)]
        Ps = sorted({n[2] for n in numbers if n[0] == family})
        cells = {(n[1], n[2]): n for n in numbers if n[0] == family}
        table_rows = []
        for P in Ps:
            line = [P]
            for k in present:
                n = cells.get((k, P))
                line.append("" if n is None else "%.2f (%.2f)" % (n[3], n[4])
                            if n[4] is not None else "%.2f" % n[3])
            table_rows.append(line)
        text.write("\n%s (%s):\n\n" % (family, label(runs[family], solver[family])))
        write_rows(["P"] + [names[k] for k in present], table_rows, "markdown", out=text)
    return text.getvalue()


def figure(numbers, runs, solver, work, out):
    """The PNG: one log-log panel of time against P per family, each panel's probe costs
    and solver precisions (precisions) under its axis."""
    fig = style.new_figure(10, 4.4)
    for i, (family, _reference, kernels, names) in enumerate(FAMILIES):
        ax = fig.add_subplot(1, len(FAMILIES), i + 1)
        for k in kernels:
            pts = [(n[2], n[3]) for n in numbers if n[0] == family and n[1] == k]
            if pts:
                ax.plot([p for p, _ in pts], [t for _, t in pts], marker="o", label=names[k])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        notes = [n for n in (probe_costs(runs[family]),
                             solver[family].replace("precision ", "precision\n", 1)) if n]
        ax.set_xlabel("\n".join(["P (ranks)"] + notes))
        ax.set_ylabel("time of one call (us, simulated)")
        ax.set_title("in-place symmetric alltoallv (T = 1 MiB per rank)" if family == "inplace"
                     else "SDDE, MPIX_Alltoall_crs (stencil3d 32^3, regions of 32)")
        ax.grid(True, which="both")
        ax.legend()
    style.titles(fig, "In-place and SDDE families as P grows (simulated, not measured)",
                 "data: %s" % DATA[0], runs["inplace"], False)
    paths = style.save(fig, work, STEM)
    dest = os.path.join(out, STEM + ".png")
    with open([p for p in paths if p.endswith(".png")][0], "rb") as src, open(dest, "wb") as f:
        f.write(src.read())
    return dest


def make(db, work, out, figures):
    """Writes STEM.csv, TABLE and (figures) STEM.png into out; returns their paths."""
    numbers = rows(db)
    runs = family_runs(db)
    solver = {family: precisions(db, family) for family, _r, _k, _n in FAMILIES}
    csv_path = os.path.join(out, STEM + ".csv")
    with open(csv_path, "w") as f:
        write_rows(["family", "kernel", "P", "median_us", "over_reference", "messages",
                    "rounds_global"], numbers, "csv", out=f)
    table_path = os.path.join(out, TABLE)
    with open(table_path, "w") as f:
        f.write(table(numbers, runs, solver))
    written = [csv_path, table_path]
    if figures:
        written.append(figure(numbers, runs, solver, work, out))
    return written
