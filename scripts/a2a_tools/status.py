"""`a2a status DIR`: where the jobs of an `a2a submit` stand — pending, running, done,
failed — with their shards and rows.

Sources, best first: squeue (a job still queued or running), the job's own marker file
(written by its script: running, then done or failed with the exit code), sacct (the
final Slurm state of a job that left the queue; with accounting disabled, `sacct -c`
over the job-completion log). Without Slurm on this machine the markers alone speak."""
import os
import subprocess

from . import slurm
from .common import A2AError, write_rows

SLURM_TIMEOUT = 30
_ACTIVE = {"RUNNING": "running", "COMPLETING": "running", "CONFIGURING": "running",
           "PENDING": "pending", "REQUEUED": "pending", "RESIZING": "running",
           "SUSPENDED": "suspended", "STOPPED": "suspended"}


def add_parser(sub, common):
    """Registers `a2a status` and its options."""
    p = sub.add_parser(
        "status", help="state of the jobs of an a2a submit: pending/running/done/failed, shards, rows",
        description="For every job of the submission in DIR: its Slurm id, state (pending, "
                    "running, done, failed, not submitted, unknown), the exit code or Slurm's "
                    "reason, whether its shard exists and how many results (and ok results) it "
                    "holds. Reads squeue, the jobs' marker files (DIR/state) and sacct (or "
                    "`sacct -c` when accounting is off); writes nothing.",
        epilog="example:  a2a status results/slurm/quick-20250101-120000",
        formatter_class=common["formatter"])
    p.add_argument("dir", metavar="DIR", help="the --out directory of a2a submit")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output format (default: %(default)s)")
    p.set_defaults(func=run, needs_db=False)
    return p


def _slurm(argv):
    """stdout of a Slurm client command, or None when it is missing or fails."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                           timeout=SLURM_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def queue_states(job_ids):
    """{'<array>_<task>': (STATE, reason)} for the given array job ids still in the queue
    (every task listed one by one); {} without squeue."""
    if not job_ids:
        return {}
    text = _slurm(["squeue", "-h", "-r", "-o", "%i|%T|%r"])
    out = {}
    for line in (text or "").splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3 and parts[0].split("_")[0] in job_ids:
            out[parts[0]] = (parts[1], parts[2])
    return out


def finished_states(array_ids, raw_ids):
    """{id: (STATE, 'exit:signal')} from sacct: array ids ('123_4') through the accounting
    database, or raw job ids (from the markers) through `sacct -c` (the completion log)."""
    out = {}
    fields = ["-n", "-P", "-o", "JobID,State,ExitCode"]
    if array_ids:
        text = _slurm(["sacct", "-X", "-j", ",".join(array_ids)] + fields)
        for line in (text or "").splitlines():
            parts = line.split("|")
            if len(parts) == 3:
                out[parts[0]] = (parts[1].split()[0] if parts[1] else "", parts[2])
    if raw_ids and not any(i in out for i in array_ids):
        text = _slurm(["sacct", "-c", "-j", ",".join(raw_ids)] + fields)
        for line in (text or "").splitlines():
            parts = line.split("|")
            if len(parts) == 3:
                out[parts[0]] = (parts[1].split()[0] if parts[1] else "", parts[2])
    return out


def job_state(job, queued, marker, finished):
    """(state, detail) of one job from what squeue, its marker and sacct say.

    Guarantees: 'pending'/'running' only while Slurm lists it (or, without any Slurm
    answer, its marker says running); 'done' only with the marker's exit 0; 'failed'
    when the marker says so or Slurm ended it without a marker of success."""
    sid = job.get("slurm_id")
    if sid and sid in queued:
        state, reason = queued[sid]
        word = _ACTIVE.get(state, state.lower())
        return word, ("" if reason in ("None", "") else reason)
    if marker and marker["state"] == "done":
        return "done", "exit 0"
    if marker and marker["state"] == "failed":
        rc = marker.get("rc", "?")
        return "failed", "signal (time limit or scancel)" if rc == "signal" else "exit %s" % rc
    final = finished.get(sid) if sid else None
    if final is None and marker and marker.get("job_id"):
        final = finished.get(marker["job_id"])
    if final:
        return "failed", "Slurm: %s %s, no success marker" % final
    if marker and marker["state"] == "running":
        return "running", "marker only (%s)" % marker.get("host", "?")
    if not sid:
        return "not submitted", ""
    return "unknown", "not in squeue, no marker, no sacct record"


def collect(directory):
    """One dict per job: index, nodes, ranks, sections, slurm_id, state, detail, shard,
    shard_exists, results, ok."""
    manifest = slurm.load_manifest(directory)
    jobs = manifest["jobs"]
    array_jobs = sorted({j["slurm_id"].split("_")[0] for j in jobs if j.get("slurm_id")})
    queued = queue_states(set(array_jobs))
    markers = {j["index"]: slurm.read_marker(os.path.join(directory, j["state"])) for j in jobs}
    unsettled = [j for j in jobs if j.get("slurm_id") and j["slurm_id"] not in queued
                 and (markers[j["index"]] or {}).get("state") not in ("done", "failed")]
    finished = {}
    if unsettled:
        raw = [m["job_id"] for m in (markers[j["index"]] for j in unsettled)
               if m and m.get("job_id", "").isdigit()]
        finished = finished_states([j["slurm_id"] for j in unsettled], raw)
    rows = []
    for j in jobs:
        state, detail = job_state(j, queued, markers[j["index"]], finished)
        shard = os.path.join(directory, j["shard"])
        try:
            counts = slurm.shard_rows(shard)
        except A2AError as e:
            counts, detail = None, (detail + "; " if detail else "") + str(e)
        rows.append({"job": j["index"], "nodes": j["nodes"], "ranks": j["ntasks"],
                     "sections": ",".join(j["sections"]), "slurm_id": j.get("slurm_id") or "",
                     "state": state, "detail": detail, "shard": j["shard"],
                     "shard_exists": counts is not None,
                     "results": counts[0] if counts else None, "ok": counts[1] if counts else None})
    return manifest, rows


def run(args, db=None):
    """`a2a status DIR`: one line per job and a tally (or CSV/JSON rows); exit 0, or
    A2AError (exit 2) when DIR holds no submission."""
    manifest, rows = collect(args.dir)
    columns = ("job", "nodes", "ranks", "sections", "slurm_id", "state", "detail", "shard",
               "shard_exists", "results", "ok")
    if args.format == "table":
        table = [(r["job"], r["nodes"], r["ranks"], r["sections"], r["slurm_id"] or "-",
                  r["state"], r["detail"] or "-", r["shard"] if r["shard_exists"] else "(none)",
                  r["results"], r["ok"]) for r in rows]
        write_rows(("job", "nodes", "ranks", "sections", "slurm id", "state", "detail", "shard",
                    "rows", "ok"), table, "table")
        tally = {}
        for r in rows:
            tally[r["state"]] = tally.get(r["state"], 0) + 1
        print("%d job(s): %s; %d shard(s), %d rows" % (
            len(rows), ", ".join("%d %s" % (n, s) for s, n in sorted(tally.items())),
            sum(r["shard_exists"] for r in rows), sum(r["results"] or 0 for r in rows)))
    else:
        write_rows(columns, [[r[c] for c in columns] for r in rows], args.format)
    return 0
