"""`a2a submit`: a sweep as Slurm job arrays — one job per node count (or per node count
and section), each job one launch of a2atune writing its own database shard.

Splitting: a job of N nodes launches N x ppn ranks. With --p-split smallest (the
default) every P value of a section runs once, in the smallest launch that holds it and
lists it: the job gets a copy of the sweep (OUT/sweeps/job-K.ini) whose P lines name
exactly its values, with relative matrix/pattern file names made absolute. With
--p-split all every job runs the original sweep, i.e. every listed P up to its launch
size (P values above it are recorded as skipped by the driver).

Jobs of one node count form one job array (Slurm gives every task of an array the same
resources), one readable script per array: OUT/<name>-n<N>.sbatch, each task a `case`
branch with the exact a2atune command. Every path reaches the script through shell
quoting (shlex.quote), so spaces, quotes, '$' or ';' in paths neither break nor inject
anything; #SBATCH lines hold no paths at all (logs go to OUT/logs, relative to the
directory sbatch is run from, which is OUT).
"""
import datetime
import os
import re
import shlex
import shutil
import subprocess
import sys

from . import options, slurm
from .common import A2AError, write_rows
from .sweepfile import Sweep, compact_list

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRUN_PLUGIN = {"mpich": "pmi2", "openmpi": "pmix"}   # measured with Debian 12's Slurm 22.05
MPIRUN = {"mpich": "mpirun.mpich", "openmpi": "mpirun.openmpi"}
RESUME_TRIES = 5          # exit 3 (a configuration timed out): --resume at most this often
PRECHECK_SECONDS = 60

_SAFE = {
    "partition": (re.compile(r"^[A-Za-z0-9_.,-]+$"), "names of letters, digits and _ . , -"),
    "account": (re.compile(r"^[A-Za-z0-9_.-]+$"), "a name of letters, digits and _ . -"),
    "time": (re.compile(r"^((\d+-)?\d+(:\d+){0,2}|UNLIMITED|unlimited|INFINITE|infinite)$"),
             "MINUTES, H:MM:SS or D-HH:MM:SS"),
}


def _positive(text):
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        import argparse
        raise argparse.ArgumentTypeError("a whole number >= 1 is needed, got '%s'" % text)
    return value


def add_parser(sub, common):
    """Registers `a2a submit` and its options."""
    p = sub.add_parser(
        "submit", help="split a sweep into Slurm job arrays, one database shard per job",
        description="Splits SWEEP.ini into one job per node count (and, with --per-section, "
                    "per section), writes one readable sbatch script per node count (a job "
                    "array; the exact a2atune command per task; exit 3 resumed with --resume) "
                    "and submits each with `sbatch --parsable` unless --dry-run. Every job "
                    "writes its own SQLite shard (never one file from many jobs); "
                    "`a2a status OUT` follows them and `a2a merge OUT/shards/*.db --into DB` "
                    "merges them. Each P value runs once, in the smallest launch that holds it "
                    "(--p-split all: every P up to each job's launch size). Before anything "
                    "is submitted, a2atune checks every job's sweep in a one-process dry run.",
        epilog="examples:\n"
               "  a2a submit sweeps/quick.ini --nodes 1,2,4,8 --ppn 32 --time 1:00:00\n"
               "  a2a submit sweeps/quick.ini --nodes 1 --ppn 2 --per-section --mpi mpich --dry-run\n"
               "  a2a submit x.ini --nodes 2..16:*2 --ppn 64 --launcher mpirun --partition big\n"
               "output: OUT/a2a-submit.json (the manifest), OUT/*.sbatch, OUT/sweeps, OUT/shards,\n"
               "OUT/state (one marker per job), OUT/logs. Open MPI as root with --launcher\n"
               "mpirun: export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 before\n"
               "submitting (sbatch passes the environment on).",
        formatter_class=common["formatter"])
    p.add_argument("sweep", metavar="SWEEP.ini", help="the sweep file")
    p.add_argument("--nodes", required=True, type=options.int_list, metavar="LIST",
                   help="node counts, one job (array) each: 1,2,4 or 1..16:*2")
    p.add_argument("--ppn", required=True, type=_positive, metavar="Q",
                   help="MPI ranks per node")
    p.add_argument("--mpi", choices=("mpich", "openmpi"), default="openmpi",
                   help="which build runs: build/mpich or build/openmpi (default: %(default)s)")
    p.add_argument("--launcher", choices=("srun", "mpirun"), default="srun",
                   help="srun --mpi=PLUGIN, or the library's mpirun inside the allocation "
                        "(default: %(default)s)")
    p.add_argument("--srun-mpi", metavar="PLUGIN",
                   help="srun's --mpi plugin (default: pmi2 for MPICH, pmix for Open MPI; "
                        "`srun --mpi=list` shows what the cluster has)")
    p.add_argument("--mpirun", metavar="CMD",
                   help="the mpirun command for --launcher mpirun, split like a shell does "
                        "(default: mpirun.mpich / mpirun.openmpi when on PATH, else mpirun)")
    p.add_argument("--binary", metavar="PATH",
                   help="the a2atune program (default: build/MPI/a2atune of this checkout)")
    p.add_argument("--section", type=options.word_list, metavar="LIST",
                   help="only these sections (default: all)")
    p.add_argument("--per-section", action="store_true",
                   help="one job per node count and section (default: one per node count)")
    p.add_argument("--p-split", choices=("smallest", "all"), default="smallest",
                   help="smallest: each P once, in the smallest launch holding it; all: every "
                        "P up to the launch size in every job (default: %(default)s)")
    p.add_argument("--partition", metavar="P", help="#SBATCH --partition")
    p.add_argument("--time", metavar="T", help="#SBATCH --time, e.g. 30, 1:00:00, 1-00:00:00")
    p.add_argument("--account", metavar="A", help="#SBATCH --account")
    p.add_argument("--array-limit", type=_positive, metavar="K",
                   help="at most K tasks of an array run at once (--array=...%%K)")
    p.add_argument("--job-name", metavar="NAME",
                   help="job name prefix (default: a2a-<sweep name>)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="export this variable in every job (repeatable)")
    p.add_argument("--out", metavar="DIR",
                   help="where scripts, sweeps, shards, markers and logs go "
                        "(default: results/slurm/<sweep name>-<date>-<time>)")
    p.add_argument("--dry-run", action="store_true",
                   help="write everything, submit nothing; print how to submit")
    p.add_argument("--no-check", action="store_true",
                   help="skip the one-process dry run of each job's sweep")
    p.set_defaults(func=run, needs_db=False)
    return p


# ---- planning ------------------------------------------------------------------------

def plan_jobs(sweep, names, nodes, ppn, per_section, p_split):
    """(jobs, notes): the jobs in submission order, smallest node count first.

    Each job is {'nodes', 'ntasks', 'sections', 'P'} with P = {section: [values]} holding
    only sections with at least one value. Guarantees: every value is at most the job's
    launch size (nodes x ppn); with p_split 'smallest' no (section, P) is in two jobs;
    notes say which listed P values run in no job. A2AError when no job is left."""
    sizes = sorted(set(nodes))
    if not sizes or sizes[0] < 1:
        raise A2AError("--nodes: node counts start at 1")
    taken = {n: [] for n in names}
    listed = {n: set() for n in names}
    jobs = []
    for count in sizes:
        world = count * ppn
        own = []
        for name in names:
            values = sweep.process_counts(sweep.section(name), world)
            listed[name].update(values)
            mine = [v for v in values if v <= world and (p_split == "all" or v not in taken[name])]
            taken[name].extend(v for v in mine if v not in taken[name])
            if mine:
                own.append((name, mine))
        groups = [[x] for x in own] if per_section else ([own] if own else [])
        for group in groups:
            jobs.append({"nodes": count, "ntasks": world, "sections": [n for n, _ in group],
                         "P": {n: v for n, v in group}})
    notes = []
    for name in names:
        left = sorted(listed[name] - set(taken[name]))
        if left:
            notes.append("section [%s]: P = %s runs in no job (the largest launch has %d ranks)"
                         % (name, compact_list(left), sizes[-1] * ppn))
    if not jobs:
        raise A2AError("nothing to run: no section lists a P that fits a launch of %s node(s) "
                       "x %d ranks" % (",".join(map(str, sizes)), ppn))
    return jobs, notes


# ---- the scripts -------------------------------------------------------------------------

def comment_safe(text):
    """text for a '#' or ';' comment line: control characters (a newline could end the
    comment) become '?'."""
    return "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in str(text))


def launch_argv(cfg, job):
    """The launcher words before the a2atune program for one job."""
    nodes, ntasks, ppn = job["nodes"], job["ntasks"], cfg["ppn"]
    if cfg["launcher"] == "srun":
        return ["srun", "--mpi=" + cfg["srun_mpi"], "--nodes=%d" % nodes, "--ntasks=%d" % ntasks,
                "--ntasks-per-node=%d" % ppn]
    if cfg["mpi"] == "openmpi":
        return cfg["mpirun"] + ["-n", str(ntasks), "--map-by", "ppr:%d:node" % ppn]
    return cfg["mpirun"] + ["-n", str(ntasks), "-ppn", str(ppn)]


def job_argv(cfg, job):
    """The whole command of one job: launcher, a2atune, run, its sweep, shard, sections."""
    return launch_argv(cfg, job) + [cfg["binary"], "run", job["sweep_abs"], "--db",
                                    job["shard_abs"], "--section", ",".join(job["sections"])]


def _wrap(words, indent, width=92):
    """The words, shell-quoted, as lines of about width characters joined by ' \\'; an
    option starting with '--' stays on the line of its value."""
    units, i = [], 0
    while i < len(words):
        w = shlex.quote(str(words[i]))
        if str(words[i]).startswith("--") and "=" not in str(words[i]) and i + 1 < len(words):
            w += " " + shlex.quote(str(words[i + 1]))
            i += 1
        units.append(w)
        i += 1
    lines, cur = [], indent
    for piece in units:
        if cur.strip() and len(cur) + 1 + len(piece) > width:
            lines.append(cur + " \\")
            cur = indent + "    " + piece
        else:
            cur = cur + (" " if cur.strip() else "") + piece
    lines.append(cur)
    return lines


def render_script(cfg, array, jobs):
    """The sbatch script of one array: a header of #SBATCH lines (no paths in them), the
    environment, one `case` branch per task with its exact a2atune command, the exit-3
    resume loop and the marker file. Guarantees: every path and value from the user is
    shell-quoted in commands and made control-character free in comments."""
    name = array["name"]
    header = [
        "#!/bin/bash",
        "# %s: a2a submit of %s: %d node(s) x %d ranks per node, %s via %s"
        % (comment_safe(name), comment_safe(cfg["sweep_shown"]), array["nodes"], cfg["ppn"],
           "Open MPI" if cfg["mpi"] == "openmpi" else "MPICH",
           "srun --mpi=" + cfg["srun_mpi"] if cfg["launcher"] == "srun" else "mpirun"),
        "# One array task per job; each job writes its own database shard (a2a merge joins them).",
        "# Submit from this folder (logs/ is relative to it):",
        "#   cd %s && sbatch --parsable %s" % (comment_safe(shlex.quote(cfg["out"])),
                                              comment_safe(shlex.quote(array["script"]))),
        "#SBATCH --job-name=%s" % name,
        "#SBATCH --nodes=%d" % array["nodes"],
        "#SBATCH --ntasks-per-node=%d" % cfg["ppn"],
        "#SBATCH --array=%s" % (("0-%d" % (len(array["jobs"]) - 1)) if len(array["jobs"]) > 1 else "0")
        + ("%%%d" % cfg["array_limit"] if cfg["array_limit"] else ""),
        "#SBATCH --output=%s/%s-%%A_%%a.out" % (slurm.LOGS, name),
    ]
    for key in ("partition", "time", "account"):
        if cfg[key]:
            header.append("#SBATCH --%s=%s" % (key, cfg[key]))
    body = ["", "set -u"]
    if cfg["mpi"] == "openmpi":
        body += ["# Open MPI: a waiting rank yields its core (without it, ranks sharing cores",
                 "# busy-poll and the timings measure the scheduler)",
                 "export OMPI_MCA_mpi_yield_when_idle=1"]
    for name_, value in cfg["env"]:
        body.append("export %s=%s" % (name_, shlex.quote(value)))
    body += ["", 'case "${SLURM_ARRAY_TASK_ID:-}" in']
    for task, k in enumerate(array["jobs"]):
        job = jobs[k]
        what = "; ".join("[%s] P = %s" % (s, compact_list(job["P"][s])) for s in job["sections"])
        body += ["%d)  # job %d: %d rank(s), %s" % (task, k, job["ntasks"], comment_safe(what)),
                 "    job=%d" % k,
                 "    state=%s" % shlex.quote(job["state_abs"]),
                 "    launch() {"]
        body += _wrap(job_argv(cfg, job), "        ")
        body[-1] += ' "$@"'
        body += ["    }", "    ;;"]
    body += ["*)  echo \"a2a: array task '${SLURM_ARRAY_TASK_ID:-}' is not a job of this script\" >&2",
             "    exit 2 ;;",
             "esac",
             "",
             "stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }",
             'mark() { echo "$*" > "$state.tmp" && mv -f "$state.tmp" "$state"; }',
             'mark running "$(stamp)" "${SLURM_JOB_ID:-none}" "${SLURMD_NODENAME:-$(hostname)}"',
             "trap 'mark failed signal \"$(stamp)\" \"${SLURM_JOB_ID:-none}\"; exit 143' TERM INT",
             "# exit 3: a configuration hit its time limit (recorded as timeout); --resume goes on",
             "# after it, at most %d times" % RESUME_TRIES,
             "launch",
             "rc=$?",
             "tries=0",
             'while [ "$rc" -eq 3 ] && [ "$tries" -lt %d ]; do' % RESUME_TRIES,
             "    tries=$((tries + 1))",
             '    echo "a2a: job $job: a configuration timed out; resuming after it ($tries of %d)" >&2'
             % RESUME_TRIES,
             "    launch --resume",
             "    rc=$?",
             "done",
             'if [ "$rc" -eq 0 ]; then word=done; else word=failed; fi',
             'mark "$word" "$rc" "$(stamp)" "${SLURM_JOB_ID:-none}"',
             'exit "$rc"']
    return "\n".join(header + body) + "\n"


def job_sweep_header(cfg, k, job):
    """The comment lines put first in job k's copy of the sweep."""
    return ["; a2a submit: job %d of %s, %d node(s) x %d ranks per node = %d ranks.\n"
            % (k, comment_safe(cfg["sweep_abs"]), job["nodes"], cfg["ppn"], job["ntasks"]),
            "; Each P value runs once, in the smallest launch of the submission that lists it,\n",
            "; so the P lines of this job's sections name only its values; relative matrix and\n",
            "; pattern files were made absolute. Every other line is the original sweep's.\n"]


# ---- checks and submission ------------------------------------------------------------

def _config(args, sweep):
    """The validated settings of the submission (A2AError on any bad value)."""
    cfg = {"mpi": args.mpi, "launcher": args.launcher, "ppn": args.ppn,
           "sweep_abs": sweep.path, "sweep_shown": args.sweep, "array_limit": args.array_limit}
    for key in ("partition", "time", "account"):
        value = getattr(args, key)
        if value is not None:
            pattern, what = _SAFE[key]
            if not pattern.match(value):
                raise A2AError("--%s '%s': expected %s" % (key, comment_safe(value), what))
        cfg[key] = value
    cfg["srun_mpi"] = args.srun_mpi or SRUN_PLUGIN[args.mpi]
    if not re.match(r"^[A-Za-z0-9_]+$", cfg["srun_mpi"]):
        raise A2AError("--srun-mpi '%s': a plugin name such as pmi2 or pmix"
                       % comment_safe(cfg["srun_mpi"]))
    if args.mpirun is not None:
        try:
            cfg["mpirun"] = shlex.split(args.mpirun)
        except ValueError as e:
            raise A2AError("--mpirun: %s" % e)
        if not cfg["mpirun"]:
            raise A2AError("--mpirun: an empty command")
    else:
        cfg["mpirun"] = [MPIRUN[args.mpi] if shutil.which(MPIRUN[args.mpi]) else "mpirun"]
    binary = args.binary or os.path.join(REPO, "build", args.mpi, "a2atune")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise A2AError("%s: no a2atune program there (build it: make%s, or pass --binary PATH)"
                       % (binary, " MPI=mpich" if args.mpi == "mpich" else ""))
    cfg["binary"] = os.path.abspath(binary)
    cfg["env"] = []
    for item in args.env:
        name, eq, value = item.partition("=")
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            raise A2AError("--env '%s': expected NAME=VALUE with a shell variable name"
                           % comment_safe(item))
        cfg["env"].append((name, value))
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.splitext(os.path.basename(sweep.path))[0])
    cfg["name"] = args.job_name or "a2a-" + stem
    if not re.match(r"^[A-Za-z0-9_.-]+$", cfg["name"]):
        raise A2AError("--job-name '%s': letters, digits and _ . - only" % comment_safe(cfg["name"]))
    out = args.out or os.path.join(
        "results", "slurm", "%s-%s" % (stem, datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
    cfg["out"] = os.path.abspath(out)
    if os.path.exists(slurm.manifest_path(cfg["out"])):
        raise A2AError("%s already holds a submission (%s); choose another --out"
                       % (out, slurm.MANIFEST))
    if os.path.exists(cfg["out"]) and not os.path.isdir(cfg["out"]):
        raise A2AError("--out %s: exists and is not a directory" % out)
    return cfg


def precheck_blocker(sweep, names, p_split):
    """Why a one-process dry run (world = 1) of the jobs' sweeps would not tell the truth,
    or None: a setting other than P mentions `world`, or (with --p-split all, where jobs
    run the original P lines) a P line of a chosen section does."""
    groups = [sweep.defaults] + [s.settings for s in sweep.sections]
    if any(key != "P" and re.search(r"\bworld\b", s.value) for g in groups for key, s in g.items()):
        return "the sweep uses 'world' outside P lines"
    if p_split == "all":
        for name in names:
            s = sweep.setting(sweep.section(name), "P")
            if s is None or re.search(r"\bworld\b", s.value):
                return "with --p-split all, section [%s] has P depend on 'world'" % name
    return None


def precheck(cfg, sweep, jobs, notes):
    """Runs `a2atune run JOBSWEEP --section LIST --dry-run` as one process for every job.

    Guarantees: a job whose sweep the driver rejects (exit 2) raises A2AError with the
    driver's own message (and, when the job's P values are a part of what its launch
    could run, a hint at --p-split all); a dry run that cannot start MPI at all becomes
    a note."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "PMI_", "PMIX_"))}
    for k, job in enumerate(jobs):
        argv = [cfg["binary"], "run", job["sweep_abs"], "--section", ",".join(job["sections"]),
                "--dry-run"]
        try:
            r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, errors="replace", timeout=PRECHECK_SECONDS)
        except subprocess.TimeoutExpired:
            notes.append("job %d: the one-process dry run did not end in %d s; not checked"
                         % (k, PRECHECK_SECONDS))
            continue
        except OSError as e:
            raise A2AError("%s: cannot run it: %s" % (cfg["binary"], e.strerror or e))
        if r.returncode == 2:
            lines = [ln for ln in r.stderr.splitlines() if ln.startswith("a2atune: ")]
            msg = lines[0][len("a2atune: "):] if lines else r.stderr.strip()[:300]
            hint = ""
            if "out of range for every P" in msg and cfg["p_split"] == "smallest":
                full = {s: [v for v in sweep.process_counts(sweep.section(s), job["ntasks"])
                            if v <= job["ntasks"]] for s in job["sections"]}
                if full != job["P"]:
                    hint = (" (job %d runs only %s; --p-split all gives every job every P up to "
                            "its launch size)" % (k, "; ".join(
                                "[%s] P = %s" % (s, compact_list(v)) for s, v in job["P"].items())))
            raise A2AError("job %d (%d rank(s)): %s%s" % (k, job["ntasks"], msg, hint))
        if r.returncode != 0:
            notes.append("job %d: the one-process dry run failed (exit %d: %s); not checked"
                         % (k, r.returncode, (r.stderr.strip().splitlines() or ["?"])[-1][:200]))


def _sbatch(cfg, array):
    """Submits one array script from OUT; its Slurm job id (A2AError if sbatch fails)."""
    try:
        r = subprocess.run(["sbatch", "--parsable", array["script"]], cwd=cfg["out"],
                           capture_output=True, text=True, errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise A2AError("sbatch %s: %s" % (array["script"], e))
    job_id = r.stdout.strip().split(";")[0]
    if r.returncode != 0 or not job_id.isdigit():
        why = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["no output"])
        raise A2AError("sbatch %s failed (exit %d): %s" % (array["script"], r.returncode, why[-1]))
    return job_id


def run(args, db=None):
    """`a2a submit`: plans the jobs, writes the per-job sweeps, the scripts and the manifest,
    checks every job with a one-process dry run, submits (unless --dry-run) and prints
    where every job's shard goes. Exit 0, or A2AError (exit 2) before anything is
    submitted, or after the arrays submitted so far (the manifest records them)."""
    sweep = Sweep(args.sweep)
    cfg = _config(args, sweep)
    cfg["p_split"] = args.p_split
    if not args.dry_run and not shutil.which("sbatch"):
        raise A2AError("sbatch not found on PATH (is this a Slurm login node? --dry-run only "
                       "writes the scripts)")
    names = args.section or [s.name for s in sweep.sections]
    if not names:
        raise A2AError("%s: no sections" % args.sweep)
    for name in names:
        sweep.section(name)
        if "," in name:
            raise A2AError("section [%s]: a name with a comma cannot be chosen with --section"
                           % comment_safe(name))
    jobs, notes = plan_jobs(sweep, names, args.nodes, args.ppn, args.per_section, args.p_split)

    out = cfg["out"]
    for sub in ("", slurm.SWEEPS, slurm.SHARDS, slurm.STATE, slurm.LOGS):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    arrays = []
    for k, job in enumerate(jobs):
        tag = "job-%d" % k
        job["index"] = k
        job["sweep"] = (os.path.join(slurm.SWEEPS, tag + ".ini") if args.p_split == "smallest"
                        else None)
        job["shard"] = os.path.join(slurm.SHARDS, "%s-n%d.db" % (tag, job["nodes"]))
        job["state"] = os.path.join(slurm.STATE, tag)
        job["sweep_abs"] = os.path.join(out, job["sweep"]) if job["sweep"] else sweep.path
        job["shard_abs"] = os.path.join(out, job["shard"])
        job["state_abs"] = os.path.join(out, job["state"])
        if job["sweep"]:
            text = sweep.job_text(job_sweep_header(cfg, k, job), job["P"])
            with open(job["sweep_abs"], "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
        if not arrays or arrays[-1]["nodes"] != job["nodes"]:
            name = "%s-n%d" % (cfg["name"], job["nodes"])
            arrays.append({"name": name, "nodes": job["nodes"], "script": name + ".sbatch",
                           "jobs": [], "slurm_job": None})
        job["array"] = len(arrays) - 1
        job["task"] = len(arrays[-1]["jobs"])
        job["slurm_id"] = None
        arrays[-1]["jobs"].append(k)
    if not args.no_check:
        blocker = precheck_blocker(sweep, names, args.p_split)
        if blocker:
            notes.append("%s: a one-process dry run cannot check the jobs' sweeps; not checked"
                         % blocker)
        else:
            precheck(cfg, sweep, jobs, notes)
    for array in arrays:
        path = os.path.join(out, array["script"])
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(render_script(cfg, array, jobs))
        os.chmod(path, 0o755)

    manifest = {
        "version": slurm.MANIFEST_VERSION,
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "sweep": sweep.path, "mpi": cfg["mpi"], "launcher": cfg["launcher"], "ppn": cfg["ppn"],
        "p_split": args.p_split, "binary": cfg["binary"], "dry_run": bool(args.dry_run),
        "arrays": arrays,
        "jobs": [{key: job[key] for key in ("index", "nodes", "ntasks", "sections", "P", "sweep",
                                             "shard", "state", "array", "task", "slurm_id")}
                 for job in jobs],
    }
    slurm.save_manifest(out, manifest)
    for note in notes:
        sys.stderr.write("a2a: note: %s\n" % note)
    if not args.dry_run:
        for array in arrays:
            try:
                array["slurm_job"] = _sbatch(cfg, array)
            except A2AError as e:
                done = ["%s (job %s)" % (a["script"], a["slurm_job"]) for a in arrays if a["slurm_job"]]
                raise A2AError("%s; %s" % (e, "submitted before it: " + ", ".join(done) if done
                                           else "nothing was submitted"))
            for task, k in enumerate(array["jobs"]):
                manifest["jobs"][k]["slurm_id"] = "%s_%d" % (array["slurm_job"], task)
            slurm.save_manifest(out, manifest)

    rows = [(j["index"], j["nodes"], j["ntasks"],
             "; ".join("%s P=%s" % (s, compact_list(j["P"][s])) for s in j["sections"]),
             j["slurm_id"] or "-", os.path.join(out, j["shard"])) for j in manifest["jobs"]]
    write_rows(("job", "nodes", "ranks", "sections", "slurm id", "shard"), rows, "table")
    q = shlex.quote
    print()
    for array in arrays:
        script = os.path.join(out, array["script"])
        if args.dry_run:
            print("script:  %s  (not submitted: cd %s && sbatch --parsable %s)"
                  % (script, q(out), q(array["script"])))
        else:
            print("script:  %s  -> Slurm job %s" % (script, array["slurm_job"]))
    print("status:  scripts/a2a status %s" % q(out))
    print("merge:   scripts/a2a merge %s/*.db --into results/a2a.db"
          % q(os.path.join(out, slurm.SHARDS)))
    return 0
