"""tests/paperfigs/check.py DB HIER_DB DIR: the numbers docs/results' figures draw (DIR's CSVs
and hierarchical_P256.md, written by `a2a paper-figures`) against independent SQL over the
same data (DB and HIER_DB, loaded from the checked-in SQL files): every heatmap cell's median
and speedup over the baseline its CSV names, every curves panel's star on the radix with the
least median and its baseline's median, and every row of the hierarchical table (the least
median of its kernel and S, the speedup over its baseline and over its extra baseline). The
heatmaps heatmap_*_vs_mpich, the curves and the hierarchical table's baseline must name a
machine-like baseline (MPICH's or Open MPI's selection), the heatmaps heatmap_*_vs_ring and
the table's extra baseline SMPI's ring. Prints each disagreement and 'cells: N,
disagreements: M'."""
import csv
import os
import sqlite3
import sys

FAMILY = {"tra": "uniform", "tuna": "nonuniform"}
# the baselines' names in the CSVs (figures/simruns.baseline_label) and their kernels
MACHINE_LIKE = {"MPICH's selection (mpich_selection)": "mpich_selection",
                "Open MPI's selection (ompi_tuned_selection)": "ompi_tuned_selection"}
RING = {"SMPI's ring (vendor)": "vendor"}


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def hierarchical(db_path, out_dir):
    """(cells, disagreements) of hierarchical_P256.md against HIER_DB: its baseline must be
    machine-like, its extra baseline SMPI's ring; each speedup is over the one named."""
    db = sqlite3.connect(db_path)
    sizes = {"16 B": 16, "1 KiB": 1024, "16 KiB": 16384}
    cells, bad = 0, []
    with open(os.path.join(out_dir, "hierarchical_P256.md")) as f:
        lines = [l for l in f if l.startswith("| ") and not l.startswith(("| kernel", "| ---"))]
    for line in lines:
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        kernel, S = cols[0], sizes[cols[1]]
        best = float(cols[4])
        family, m = db.execute("SELECT family, min(median_s) FROM results WHERE status = 'ok'"
                               " AND kernel = ? AND P = 256 AND S = ?", (kernel, S)).fetchone()
        cells += 1
        if abs(best - m * 1e6) > 0.006:
            bad.append("hierarchical %s S=%d: %.2f us drawn, %.2f us in the data"
                       % (kernel, S, best, m * 1e6))
        for name, speedup, allowed in ((cols[5], cols[7], MACHINE_LIKE), (cols[8], cols[10], RING)):
            if name and name not in allowed:
                bad.append("hierarchical %s S=%d: baseline %s, expected one of %s"
                           % (kernel, S, name, ", ".join(sorted(allowed))))
                continue
            base_kernel = allowed.get(name) or next(iter(allowed.values()))
            base = db.execute("SELECT median_s FROM results WHERE status = 'ok' AND kernel = ?"
                              " AND family = ? AND P = 256 AND S = ?",
                              (base_kernel, family, S)).fetchone()
            want = base[0] / m if base else None
            if (want is None) != (not speedup) or (want and abs(float(speedup) - want) > 0.006):
                bad.append("hierarchical %s S=%d: %.2f us x%s over %s drawn, x%s in the data"
                           % (kernel, S, best, speedup or "-", base_kernel,
                              "%.2f" % want if want else "-"))
    return cells, bad


def baseline_of(name, rows, allowed, bad):
    """The kernel of the one baseline the CSV rows name (None for an unknown name), or when
    no row names one the first kernel allowed names (then the data must have none of it); a
    disagreement in bad unless it is one that allowed names."""
    names = sorted({r["baseline"] for r in rows if r["baseline"]})   # cells without one left out
    if not names:
        return next(iter(allowed.values()))
    if len(names) != 1 or names[0] not in allowed:
        bad.append("%s: baseline %s, expected one of %s" % (name, " / ".join(names),
                                                           ", ".join(sorted(allowed))))
    return dict(MACHINE_LIKE, **RING).get(names[0]) if len(names) == 1 else None


def main(db_path, hier_path, out_dir):
    db = sqlite3.connect(db_path)
    median = {}
    for kernel, P, S, radix, m in db.execute(
            "SELECT kernel, P, S, radix, median_s FROM results WHERE status = 'ok'"
            " AND kernel IN ('tra', 'tuna')"):
        median[(kernel, P, S, radix)] = m
    base_median = {(k, fam, P, S): m for k, fam, P, S, m in db.execute(
        "SELECT kernel, family, P, S, median_s FROM results WHERE status = 'ok' AND radix IS NULL"
        " AND coalesce(json_extract(params, '$.vendor_algorithm'), 0) = 0")}
    cells, bad = 0, []
    for kernel in ("tra", "tuna"):
        for against, allowed in (("mpich", MACHINE_LIKE), ("ring", RING)):
            name = "heatmap_%s_vs_%s.csv" % (kernel, against)
            with open(os.path.join(out_dir, name)) as f:
                rows = list(csv.DictReader(f))
            base_kernel = baseline_of(name, rows, allowed, bad)
            for row in rows:
                P, S, r = int(row["P"]), int(row["S"]), int(row["radix"])
                m = median.get((kernel, P, S, r))
                base = base_median.get((base_kernel, FAMILY[kernel], P, S))
                drawn_speedup = float(row["speedup"]) if row["speedup"] else None
                cells += 1
                if not close(float(row["median_s"]), m):
                    bad.append("heatmap %s P=%d S=%d r=%d: median %s drawn, %s in the data"
                               % (kernel, P, S, r, row["median_s"], m))
                want = base / m if base and m else None
                if (want is None) != (drawn_speedup is None) or (want and not close(drawn_speedup,
                                                                                  want)):
                    bad.append("%s P=%d S=%d r=%d: speedup %s drawn, %s in the data"
                               % (name, P, S, r, row["speedup"], want))
        name = "curves_%s_P1024.csv" % kernel
        with open(os.path.join(out_dir, name)) as f:
            rows = list(csv.DictReader(f))
        base_kernel = baseline_of(name, rows, MACHINE_LIKE, bad)
        for S in sorted({int(r["S"]) for r in rows}):
            cells += 1
            stars = [int(r["radix"]) for r in rows if int(r["S"]) == S and r["marker"] == "best"]
            fastest = min((m, r) for (k, P, s, r), m in median.items()
                          if k == kernel and P == 1024 and s == S)[1]
            if stars != [fastest]:
                bad.append("curves %s P=1024 S=%d: star at %s, fastest radix in the data %d"
                           % (kernel, S, stars, fastest))
            drawn = {r["baseline_median_s"] for r in rows if int(r["S"]) == S}
            base = base_median.get((base_kernel, FAMILY[kernel], 1024, S))
            value = drawn.pop() if len(drawn) == 1 else "several"
            if not (close(float(value), base) if value not in ("", "several")
                    else value == "" and base is None):
                bad.append("curves %s P=1024 S=%d: baseline median drawn other than the data's %s"
                           % (kernel, S, base))
    for kernel in ("tra2", "tuna_coalesced", "tuna_staggered"):
        name = "curves_%s_P256.csv" % kernel
        with open(os.path.join(out_dir, name)) as f:
            baseline_of(name, list(csv.DictReader(f)), MACHINE_LIKE, bad)
    more_cells, more_bad = hierarchical(hier_path, out_dir)
    cells, bad = cells + more_cells, bad + more_bad
    for line in bad:
        print(line)
    print("cells: %d, disagreements: %d" % (cells, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
