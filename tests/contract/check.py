"""tests/parts/contract.sh: do the SQL views, `a2a best-radix`, `a2a heatmap`'s numbers and
`a2a tune` name the same best, baseline and speedup for every cell of tra?

usage: check.py DB BEST_RADIX_CSV HEATMAP_CSV TUNE_CSV
Prints one line per disagreement and, last, "cells: N, disagreements: M"; exit 1 if M > 0."""
import csv
import sqlite3
import sys

db_path, best_csv, heat_csv, tune_csv = sys.argv[1:5]
db = sqlite3.connect(db_path)
db.row_factory = sqlite3.Row
bad = []


def close(a, b, rel=1e-6, absolute=0.0):
    """Equal up to rounding: relative rel, or absolute (the tools round their output)."""
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), absolute)


def num(text):
    return None if text in ("", None) else float(text)


# the views: per (P, S) of tra its best radix, and the best's baseline and speedup
views = {}
try:
    view_rows = db.execute("SELECT b.P, b.S, b.data_set, b.radix, b.median_s, b.noise_s, s.baseline_median_s,"
                    " s.speedup FROM best_radix b LEFT JOIN speedup_vs_baseline s"
                    " ON s.result_id = b.result_id AND s.baseline_kernel = 'vendor'"
                    " WHERE b.kernel = 'tra'").fetchall()
except sqlite3.Error as e:
    view_rows = []
    bad.append("views: %s" % e)
for r in view_rows:
    if (r["P"], r["S"]) in views:
        bad.append("views: two best_radix rows for P = %d, S = %d" % (r["P"], r["S"]))
    views[(r["P"], r["S"])] = r
if not views:
    bad.append("views: no best_radix rows of tra")



def table(path, tool, needed, keep=lambda r: True):
    """{(P, S): row} of a tool's CSV output; a disagreement when it lacks a needed column."""
    try:
        rows = list(csv.DictReader(open(path)))
    except OSError as e:
        bad.append("%s: no numbers (%s)" % (tool, e.strerror))
        return {}
    lacking = [c for c in needed if rows and c not in rows[0]] or ([] if rows else ["rows"])
    if lacking:
        bad.append("%s: prints no %s" % (tool, ", ".join(lacking)))
        return {}
    return {(int(r["P"]), int(r["S"])): r for r in rows if keep(r)}


best_radix = table(best_csv, "best-radix", ["best_radix", "best_median_us", "baseline_median_us",
                                            "speedup"])
heatmap = table(heat_csv, "heatmap", ["radix", "median_s", "baseline_median_s", "speedup", "best"],
                lambda r: r["best"] == "1")
tune = table(tune_csv, "tune", ["collective", "choice", "median_us", "baseline_us", "speedup"],
             lambda r: r["collective"] == "alltoall")

for cell, v in sorted(views.items()):
    where = "P = %d, S = %d" % cell
    b, h, t = best_radix.get(cell), heatmap.get(cell), tune.get(cell)
    if b is None or h is None or t is None:
        bad.append("%s: missing in %s" % (where, ", ".join(
            n for n, x in (("best-radix", b), ("heatmap", h), ("tune", t)) if x is None)))
        continue
    # best: the same radix and median
    if int(b["best_radix"]) != v["radix"] or not close(num(b["best_median_us"]) * 1e-6, v["median_s"], absolute=1e-10):
        bad.append("%s: best-radix says radix %s at %s us, the views radix %d at %.4f us"
                   % (where, b["best_radix"], b["best_median_us"], v["radix"], v["median_s"] * 1e6))
    if int(h["radix"]) != v["radix"] or not close(num(h["median_s"]), v["median_s"]):
        bad.append("%s: heatmap says radix %s at %s s, the views radix %d at %r s"
                   % (where, h["radix"], h["median_s"], v["radix"], v["median_s"]))
    # baseline and speedup of the best
    if not close(num(b["baseline_median_us"]) * 1e-6 if b["baseline_median_us"] else None,
                 v["baseline_median_s"], absolute=1e-10) or \
            not close(num(b["speedup"]), v["speedup"], absolute=1e-4):
        bad.append("%s: best-radix baseline %s us, speedup %s; the views %r s, %r"
                   % (where, b["baseline_median_us"], b["speedup"], v["baseline_median_s"], v["speedup"]))
    if not close(num(h["baseline_median_s"]), v["baseline_median_s"]) or \
            not close(num(h["speedup"]), v["speedup"]):
        bad.append("%s: heatmap baseline %s s, speedup %s; the views %r s, %r"
                   % (where, h["baseline_median_s"], h["speedup"], v["baseline_median_s"], v["speedup"]))
    # a2a tune: the same baseline; its choice is a measurement of the views with the same
    # median and speedup, the best of every candidate (tra's best or the vendor baseline)
    # unless it is within the noise of that best
    if not close(num(t["baseline_us"]) * 1e-6 if t["baseline_us"] else None,
                 v["baseline_median_s"], absolute=1e-9):
        bad.append("%s: tune's baseline %s us, the views %r s" % (where, t["baseline_us"], v["baseline_median_s"]))
    kernel, _, params = t["choice"].partition(" ")
    radix = int(params.split("=")[1]) if kernel == "tra" else None
    chosen = db.execute("SELECT * FROM speedup_vs_baseline WHERE baseline_kernel = 'vendor'"
                        " AND kernel = ? AND data_set = ? AND radix IS ?"
                        " AND (kernel = 'tra' OR json_extract(params, '$.vendor_algorithm') IS NULL"
                        "  OR json_extract(params, '$.vendor_algorithm') = 0)"
                        " ORDER BY median_s LIMIT 1", (kernel, v["data_set"], radix)).fetchone()
    if chosen is None:
        bad.append("%s: tune chose %s, which the views do not hold" % (where, t["choice"]))
        continue
    if not close(num(t["median_us"]) * 1e-6, chosen["median_s"], absolute=1e-9) or \
            not close(num(t["speedup"]), chosen["speedup"], absolute=1e-4):
        bad.append("%s: tune's choice %s at %s us, speedup %s; the views %r s, %r"
                   % (where, t["choice"], t["median_us"], t["speedup"], chosen["median_s"], chosen["speedup"]))
    fastest = min((v["median_s"], v["noise_s"]), (chosen["baseline_median_s"], chosen["baseline_noise_s"]))
    if chosen["median_s"] != fastest[0] and \
            abs(chosen["median_s"] - fastest[0]) > min(chosen["noise_s"], fastest[1]):
        bad.append("%s: tune chose %s (%r s), beyond the noise of the best (%r s)"
                   % (where, t["choice"], chosen["median_s"], fastest[0]))

for line in bad:
    print(line)
print("cells: %d, disagreements: %d" % (len(views), len(bad)))
sys.exit(1 if bad else 0)
