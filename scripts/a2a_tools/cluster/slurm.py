"""What `a2a submit` leaves in its directory and `a2a status` reads back: the manifest
(a2a-submit.json), the layout of the directory, the jobs' marker files, and shard row
counts. Nothing here talks to Slurm or PBS.

The manifest records the scheduler ('slurm' or 'pbs'; a manifest without it is a Slurm
one) and keeps each job's scheduler id under id_key(scheduler)."""
import json
import os
import sqlite3

from ..core.common import A2AError
from ..core.db import connect_readonly

MANIFEST = "a2a-submit.json"
MANIFEST_VERSION = 1
# sub-directories of a submission: per-job sweeps, database shards, marker files, job logs
SWEEPS, SHARDS, STATE, LOGS = "sweeps", "shards", "state", "logs"


def scheduler_of(manifest):
    """'slurm' or 'pbs': the scheduler a manifest's jobs were written for."""
    return manifest.get("scheduler") or "slurm"


def id_key(scheduler):
    """The key of a manifest job (and of a2a status rows) holding its scheduler id:
    'slurm_id' (e.g. '123_4') or 'pbs_id' (e.g. '123[4].server')."""
    return "pbs_id" if scheduler == "pbs" else "slurm_id"


def manifest_path(directory):
    """Where the manifest of a submission directory is."""
    return os.path.join(directory, MANIFEST)


def save_manifest(directory, manifest):
    """Writes the manifest atomically (a reader sees the old or the new file, never half)."""
    path = manifest_path(directory)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def load_manifest(directory):
    """The manifest of a submission directory, or A2AError saying why there is none."""
    path = manifest_path(directory)
    if not os.path.isdir(directory):
        raise A2AError("%s: no such directory (the --out of a2a submit)" % directory)
    try:
        with open(path) as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise A2AError("%s: not a submission directory (no %s; made by a2a submit)"
                       % (directory, MANIFEST))
    except (OSError, ValueError) as e:
        raise A2AError("%s: unreadable: %s" % (path, e))
    if not isinstance(manifest, dict) or manifest.get("version") != MANIFEST_VERSION \
            or not isinstance(manifest.get("jobs"), list):
        raise A2AError("%s: not a manifest of this a2a submit (version %r)"
                       % (path, manifest.get("version") if isinstance(manifest, dict) else None))
    return manifest


def read_marker(path):
    """The marker a job script writes: {'state': running|done|failed, 'rc', 'time',
    'job_id', 'host'} from its one line, or None when the file is missing or empty.

    The line is `running TIME JOB_ID HOST` while the job runs, then `done 0 TIME JOB_ID`
    or `failed RC TIME JOB_ID` (RC `signal` when the job was ended by a signal, e.g. its
    time limit); JOB_ID is $SLURM_JOB_ID or $PBS_JOBID, `none` outside a job."""
    try:
        with open(path) as f:
            words = f.readline().split()
    except OSError:
        return None
    if not words:
        return None
    out = {"state": words[0]}
    if words[0] == "running":
        keys = ("time", "job_id", "host")
    else:
        keys = ("rc", "time", "job_id")
    out.update(zip(keys, words[1:]))
    return out


def shard_rows(path):
    """(results, ok results) of a shard, or None when it does not exist; a file that is
    not an a2atune database gives A2AError. Opened read-only."""
    if not os.path.exists(path):
        return None
    try:
        conn = connect_readonly(path, timeout=10)
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if app_id == 0 and objects == 0:
                return (0, 0)          # created, the schema not written yet
            if app_id != 0x61326174:
                raise A2AError("%s: not an a2atune database" % path)
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'results'").fetchone():
                return (0, 0)
            return tuple(conn.execute(
                "SELECT count(*), coalesce(sum(status = 'ok'), 0) FROM results").fetchone())
        finally:
            conn.close()
    except sqlite3.Error as e:
        raise A2AError("%s: %s" % (path, e))
