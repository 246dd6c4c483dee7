"""The results contract: what "measurement", "noise", "within the noise", "best",
"baseline", "speedup" and "choice" mean, for every tool that shows or decides on them.

harness/db/views.c states the same definitions as SQL views (measurement, best_radix,
speedup_vs_baseline) and harness/db/app_choice.c's db_best_app_kernel uses them for `a2atune app
--kernel best`; tests/parts/contract.sh checks that the views, `a2a best-radix`, `a2a
heatmap`'s numbers and `a2a tune` agree on a database of several launches. docs/database.md
explains them for users.

- run group: the runs of one launch group (scripts/run-sweep.sh --launches N), else one run
  alone; named by its newest run. The Python figures also draw every simulated run of one
  model as one group (figures/simruns.py, simulation_runs): simulated time is deterministic.
- measurement: one configuration (config_key) in one run group: its ok, timed rows (one per
  launch) combined; median = the median of the launches' medians (one launch: its median).
- noise (seconds): the spread between the launches' medians (largest - smallest); one
  launch: its interquartile range (q3 - q1).
- within the noise: two medians differ by no more than the smaller of their noises.
- best: of a set of measurements (a kernel's radices in one cell, or every candidate), the
  lowest median (ties: the lower radix, then the first recorded). It is clear when no other
  measurement is within the noise of it.
- baseline: the fastest measurement of a named baseline kernel (DEFAULT_BASELINE unless the
  tool is told another) in the same run group and data set, counting only the library's own
  choice (vendor_algorithm 0; forced vendor algorithms are candidates, not baselines).
- speedup of a measurement: baseline median / its median (> 1: faster than the baseline).
- choice (a decision: `a2a tune`, `a2atune app --kernel best`): the best if clear, else the
  simplest measurement within the noise of the best (simplicity)."""

import json

DEFAULT_BASELINE = "vendor"


def noise(rows):
    """The noise of one configuration, in seconds: rows are its ok result rows (mappings with
    median_s, q1_s, q3_s), one per launch. Several launches: the spread between their
    medians (largest - smallest); one: its interquartile range (q3_s - q1_s). A row that
    combine_launches made carries its noise (noise_s). 0.0 when nothing is known."""
    rows = list(rows)
    if len(rows) == 1 and _has(rows[0], "noise_s") and rows[0]["noise_s"] is not None:
        return rows[0]["noise_s"]
    medians = [r["median_s"] for r in rows if r["median_s"] is not None]
    if len(medians) > 1:
        return max(medians) - min(medians)
    if not rows:
        return 0.0
    r = rows[0]
    med = r["median_s"] or 0.0
    q1 = r["q1_s"] if r["q1_s"] is not None else med
    q3 = r["q3_s"] if r["q3_s"] is not None else med
    return max(0.0, q3 - q1)


def _has(row, key):
    return key in (row.keys() if hasattr(row, "keys") else row)


def within_noise(a_median, a_noise, b_median, b_noise):
    """True when two medians differ by no more than the smaller of their noises. A
    difference is noise only when both measurements are that uncertain: a candidate whose
    timings are bimodal (an interquartile range spanning a fast and a slow mode) cannot hide
    how far a tightly measured candidate is ahead of its median."""
    return abs(a_median - b_median) <= min(a_noise, b_noise)


def run_groups(db):
    """{run_id: [run ids of its run group, oldest first]}: a launch group's runs, or a run
    alone (also every run of a database from before launch groups)."""
    if "launch_group" not in db.columns("runs"):
        return {r["id"]: [r["id"]] for r in db.all("SELECT id FROM runs")}
    members = {}
    rows = db.all("SELECT id, launch_group FROM runs ORDER BY id")
    for r in rows:
        if r["launch_group"] is not None:
            members.setdefault(r["launch_group"], []).append(r["id"])
    return {r["id"]: (members[r["launch_group"]] if r["launch_group"] is not None else [r["id"]])
            for r in rows}


def combine_launches(rows, groups):
    """The measurements of rows (ok result rows of any runs; groups: from run_groups): one
    dict per configuration and run group, a copy of the newest launch's row with run_id =
    the group's newest run, median_s = the median of the launches' medians, q1_s / q3_s =
    the lowest / highest of them, noise_s = noise(those rows) and launches = their number.
    A configuration of a single launch keeps its row (as a dict, with noise_s = its IQR and
    launches = 1). Sorted by the newest row's id."""
    by_config = {}
    for r in rows:
        r = dict(r)
        members = groups.get(r["run_id"], [r["run_id"]])
        by_config.setdefault((members[-1], r["config_key"]), []).append(r)
    out = []
    for (newest_run, _), same in by_config.items():
        same.sort(key=lambda r: (r["run_id"], r["id"]))
        row = dict(same[-1])
        row["noise_s"] = noise(same)
        row["launches"] = len(same)
        row["run_id"] = newest_run
        if len(same) > 1:
            medians = sorted(r["median_s"] for r in same)
            mid = len(medians) // 2
            row["median_s"] = (medians[mid] if len(medians) % 2 else
                               (medians[mid - 1] + medians[mid]) / 2)
            row["q1_s"], row["q3_s"] = medians[0], medians[-1]
        out.append(row)
    out.sort(key=lambda r: r["id"])
    return out


def best_key(row):
    """Sort key of "best": the lowest median, then the lower radix, then the first recorded."""
    radix = row["radix"] if _has(row, "radix") and row["radix"] is not None else 0
    return (row["median_s"], radix, row["id"] if _has(row, "id") else 0)


def best(rows):
    """The best of these measurements (None for none)."""
    rows = [r for r in rows if r["median_s"] is not None]
    return min(rows, key=best_key) if rows else None


def is_own_choice(row):
    """True unless the row forced one of the library's algorithms (vendor_algorithm > 0)."""
    try:
        params = json.loads(row["params"] or "{}")
    except (ValueError, TypeError):
        params = {}
    return not (isinstance(params, dict) and int(params.get("vendor_algorithm", 0) or 0))


def baseline(rows, kernel=DEFAULT_BASELINE):
    """The baseline among measurements of one run group and data set: the best of those of
    `kernel` that are the library's own choice (None without any)."""
    return best([r for r in rows if r["kernel"] == kernel and is_own_choice(r)])


def speedup(baseline_row, row):
    """baseline median / the row's median; None without a baseline or a median."""
    if baseline_row is None or not row or not row["median_s"]:
        return None
    return baseline_row["median_s"] / row["median_s"]


def simplicity(kernel, params, label):
    """Sort key of "simplest": the library's own choice, then its forced algorithms (equally
    simple), then kernels by number of parameters, then by label ('tra radix=2')."""
    if kernel == "vendor":
        return (0, 1 if int(params.get("vendor_algorithm", 0) or 0) else 0, "")
    return (1 + len(params), 0, label)
