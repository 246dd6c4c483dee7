"""`a2a status DIR`: where the jobs of an `a2a submit` stand — pending, running, done,
failed — with their shards and rows.

Sources, best first: squeue (a job still queued or running), the job's own marker file
(written by its script: running, then done or failed with the exit code), sacct (the
final Slurm state of a job that left the queue; with accounting disabled, `sacct -c`
over the job-completion log). Without Slurm on this machine the markers alone speak.
A PBS submission (--scheduler pbs) is followed the same way through `qstat -f -t`
(PBS Pro also `-x`, its job history) instead of squeue and sacct; without qstat, the
markers alone."""
import os
import subprocess

from . import slurm
from ..core.common import A2AError, write_rows

SLURM_TIMEOUT = 30
# PBS job_state letters (PBS Pro and Torque) of jobs that have not ended
_PBS_ACTIVE = {"Q": ("pending", ""), "W": ("pending", "waiting for its start time"),
               "H": ("pending", "held"), "T": ("pending", "in transit"),
               "M": ("pending", "moved"), "R": ("running", ""), "E": ("running", "exiting"),
               "B": ("running", ""), "S": ("suspended", ""), "U": ("suspended", "")}
_PBS_ENDED = {"C": "completed", "F": "finished", "X": "finished"}
_ACTIVE = {"RUNNING": "running", "COMPLETING": "running", "CONFIGURING": "running",
           "PENDING": "pending", "REQUEUED": "pending", "RESIZING": "running",
           "SUSPENDED": "suspended", "STOPPED": "suspended"}


def add_parser(sub, common):
    """Registers `a2a status` and its options."""
    p = sub.add_parser(
        "status", help="state of the jobs of an a2a submit: pending/running/done/failed, shards, rows",
        description="For every job of the submission in DIR: its kind (run, or tune BUDGET "
                    "for tuner jobs), its Slurm (or PBS) id, state "
                    "(pending, running, done, failed, not submitted, unknown), the exit code or "
                    "the scheduler's reason, whether its shard exists and how many results (and "
                    "ok results) it holds. Reads squeue, the jobs' marker files (DIR/state) and "
                    "sacct (or `sacct -c` when accounting is off); for a PBS submission qstat "
                    "and the markers; writes nothing.",
        epilog="example:  a2a status results/slurm/quick-20250101-120000",
        formatter_class=common["formatter"])
    p.add_argument("dir", metavar="DIR", help="the --out directory of a2a submit")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output format (default: %(default)s)")
    p.set_defaults(func=run, needs_db=False)
    return p


def _slurm(argv, any_exit=False):
    """stdout of a Slurm (or PBS) client command, or None when it is missing, times out or
    (unless any_exit: qstat fails when one of several ids is gone) exits non-zero."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                           timeout=SLURM_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 or any_exit else None


def short_id(job_id):
    """A job id without its server part ('12[3].pbs1' -> '12[3]'): qstat may print a longer
    or shorter server name than qsub did. Slurm ids stay as they are."""
    return job_id.split(".", 1)[0]


def pbs_states(array_ids, dialect):
    """(queued, finished) from `qstat -f -t` on the given PBS ids (PBS Pro: with -x, so
    ended jobs are still listed): queued = {short id: (state word as squeue's, detail)}
    for jobs that have not ended, finished = {short id: (state, 'exit N')} for those that
    have. ({}, {}) without qstat; ids qstat no longer knows are simply absent."""
    if not array_ids:
        return {}, {}
    argv = ["qstat", "-f", "-t"] + (["-x"] if dialect == "pro" else []) + sorted(array_ids)
    text = _slurm(argv, any_exit=True)
    blocks, cur = [], None
    for line in (text or "").splitlines():
        if line.startswith("Job Id:"):
            cur = {"id": line.split(":", 1)[1].strip()}
            blocks.append(cur)
        elif cur is not None and " = " in line and line[:1] in (" ", "\t"):
            key, _, value = line.strip().partition(" = ")
            cur[key.strip().lower()] = value.strip()
    queued, finished = {}, {}
    for b in blocks:
        letter = b.get("job_state", "")
        if letter in _PBS_ACTIVE:
            word, detail = _PBS_ACTIVE[letter]
            queued[short_id(b["id"])] = (word.upper(), detail or "None")
        elif letter in _PBS_ENDED:
            finished[short_id(b["id"])] = (_PBS_ENDED[letter],
                                           "exit %s" % b.get("exit_status", "?"))
    return queued, finished


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


def job_state(job, queued, marker, finished, label="Slurm"):
    """(state, detail) of one job from what squeue (qstat), its marker and sacct say.

    queued and finished are keyed by short_id (the same as the id for Slurm); label names
    the scheduler in details. Guarantees: 'pending'/'running' only while the scheduler
    lists it (or, without any scheduler answer, its marker says running); 'done' only with
    the marker's exit 0; 'failed' when the marker says so or the scheduler ended it
    without a marker of success."""
    sid = job.get("slurm_id") or job.get("pbs_id")
    sid = short_id(sid) if sid else None
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
        final = finished.get(short_id(marker["job_id"]))
    if final:
        return "failed", "%s: %s %s, no success marker" % ((label,) + tuple(final))
    if marker and marker["state"] == "running":
        return "running", "marker only (%s)" % marker.get("host", "?")
    if not sid:
        return "not submitted", ""
    return "unknown", ("not in squeue, no marker, no sacct record" if label == "Slurm"
                       else "not in qstat, no marker")


def collect(directory):
    """(manifest, rows): one dict per job: index, kind ('run', or 'tune BUDGET' for a
    submission of tuner jobs), nodes, ranks, sections, slurm_id (pbs_id
    for a PBS submission), state, detail, shard, shard_exists, results, ok."""
    manifest = slurm.load_manifest(directory)
    jobs = manifest["jobs"]
    scheduler = slurm.scheduler_of(manifest)
    key = slurm.id_key(scheduler)
    markers = {j["index"]: slurm.read_marker(os.path.join(directory, j["state"])) for j in jobs}
    if scheduler == "pbs":
        label = "PBS"
        arrays = {a.get("pbs_job") for a in manifest.get("arrays", []) if a.get("pbs_job")}
        queued, finished = pbs_states(arrays, manifest.get("pbs_dialect") or "pro")
    else:
        label = "Slurm"
        array_jobs = sorted({j["slurm_id"].split("_")[0] for j in jobs if j.get("slurm_id")})
        queued = queue_states(set(array_jobs))
        unsettled = [j for j in jobs if j.get("slurm_id") and j["slurm_id"] not in queued
                     and (markers[j["index"]] or {}).get("state") not in ("done", "failed")]
        finished = {}
        if unsettled:
            raw = [m["job_id"] for m in (markers[j["index"]] for j in unsettled)
                   if m and m.get("job_id", "").isdigit()]
            finished = finished_states([j["slurm_id"] for j in unsettled], raw)
    kind = "tune %s" % manifest["tune"] if manifest.get("tune") else "run"
    rows = []
    for j in jobs:
        state, detail = job_state(j, queued, markers[j["index"]], finished, label)
        shard = os.path.join(directory, j["shard"])
        try:
            counts = slurm.shard_rows(shard)
        except A2AError as e:
            counts, detail = None, (detail + "; " if detail else "") + str(e)
        rows.append({"job": j["index"], "kind": kind, "nodes": j["nodes"], "ranks": j["ntasks"],
                     "sections": ",".join(j["sections"]), key: j.get(key) or "",
                     "state": state, "detail": detail, "shard": j["shard"],
                     "shard_exists": counts is not None,
                     "results": counts[0] if counts else None, "ok": counts[1] if counts else None})
    return manifest, rows


def run(args, db=None):
    """`a2a status DIR`: one line per job and a tally (or CSV/JSON rows); exit 0, or
    A2AError (exit 2) when DIR holds no submission."""
    manifest, rows = collect(args.dir)
    key = slurm.id_key(slurm.scheduler_of(manifest))
    columns = ("job", "kind", "nodes", "ranks", "sections", key, "state", "detail", "shard",
               "shard_exists", "results", "ok")
    if args.format == "table":
        table = [(r["job"], r["kind"], r["nodes"], r["ranks"], r["sections"], r[key] or "-",
                  r["state"], r["detail"] or "-", r["shard"] if r["shard_exists"] else "(none)",
                  r["results"], r["ok"]) for r in rows]
        write_rows(("job", "kind", "nodes", "ranks", "sections", key.replace("_", " "), "state", "detail",
                    "shard", "rows", "ok"), table, "table")
        tally = {}
        for r in rows:
            tally[r["state"]] = tally.get(r["state"], 0) + 1
        print("%d job(s): %s; %d shard(s), %d rows" % (
            len(rows), ", ".join("%d %s" % (n, s) for s, n in sorted(tally.items())),
            sum(r["shard_exists"] for r in rows), sum(r["results"] or 0 for r in rows)))
    else:
        write_rows(columns, [[r[c] for c in columns] for r in rows], args.format)
    return 0
