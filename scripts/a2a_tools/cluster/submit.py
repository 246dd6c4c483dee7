"""`a2a submit`: a sweep as Slurm (or PBS) job arrays — one job per node count (or per node count
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

With --scheduler pbs the scripts are PBS ones (OUT/<name>-n<N>.pbs, submitted with qsub
from OUT), in one of two dialects: PBS Pro / OpenPBS (`-l select=N:ncpus=Q:mpiprocs=Q`,
arrays `-J`, index PBS_ARRAY_INDEX) or Torque (`-l nodes=N:ppn=Q`, arrays `-t`, index
PBS_ARRAYID). Only the header and the scheduler's variables differ: the body (tasks,
marker files, the exit-3 resume loop) is the same code for both schedulers, and PBS
jobs launch with the library's mpirun on the hosts of $PBS_NODEFILE.

Every job starts its ranks through a launch template (launch.py): srun --mpi=PLUGIN by
default under Slurm, the library's mpirun (--launcher mpirun, and always under PBS
unless --launch says otherwise), or --launch NAME|TEMPLATE for any other launcher.

With --tune BUDGET every job runs the tuner (`a2atune tune JOBSWEEP --budget BUDGET
--db SHARD --no-files`) on its part of the sweep instead of measuring all of it: the
budget holds per job, the same exit-3 loop resumes it with --resume (the tuner reloads
what it measured and never measures it again), and its shard holds one tuner run whose
rows are marked chosen_by = 'tuner'. The tuner checks the budget itself: the one-process
check of every job asks it (`tune ... --candidates`), so a bad budget is its own one line.
"""
import datetime
import os
import re
import shlex
import shutil
import subprocess
import sys

from ..core import options
from . import launch, slurm
from ..core.common import A2AError, write_rows
from ..core.sweepfile import Sweep, compact_list

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCHEDULERS = ("slurm", "pbs")
PBS_DIALECTS = ("pro", "torque")
RESUME_TRIES = 5          # exit 3 (a configuration timed out): --resume at most this often
PRECHECK_SECONDS = 60

_SAFE = {
    "partition": (re.compile(r"^[A-Za-z0-9_.,-]+$"), "names of letters, digits and _ . , -"),
    "account": (re.compile(r"^[A-Za-z0-9_.-]+$"), "a name of letters, digits and _ . -"),
    "time": (re.compile(r"^((\d+-)?\d+(:\d+){0,2}|UNLIMITED|unlimited|INFINITE|infinite)$"),
             "MINUTES, H:MM:SS or D-HH:MM:SS"),
}


def shell_word(word):
    """word as the shell must see it: shell text (a launch template's word) as it is,
    anything else shell-quoted."""
    return str(word) if isinstance(word, launch.ShellText) else shlex.quote(str(word))


def pbs_walltime(text):
    """A Slurm --time value (MINUTES, MINUTES:SECONDS, H:MM:SS, D-H, D-H:MM, D-H:MM:SS) as
    PBS's HH:MM:SS (hours may exceed 24). A2AError for UNLIMITED/INFINITE (PBS has no such
    walltime) and for anything else that is not one of those forms."""
    m = re.match(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$", text or "")
    if not m:
        raise A2AError("--time '%s': PBS needs a walltime (MINUTES, H:MM:SS or D-HH:MM:SS); "
                       "leave --time out for the queue's default" % comment_safe(text))
    days, a, b, c = m.groups()
    a, b, c = int(a), (int(b) if b is not None else None), (int(c) if c is not None else None)
    if days is not None:                       # D-H, D-H:M, D-H:M:S
        seconds = int(days) * 86400 + a * 3600 + (b or 0) * 60 + (c or 0)
    elif c is not None:                        # H:M:S
        seconds = a * 3600 + b * 60 + c
    elif b is not None:                        # M:S
        seconds = a * 60 + b
    else:                                      # M
        seconds = a * 60
    return "%02d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


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
        "submit", help="split a sweep into Slurm (or PBS) job arrays, one database shard per job",
        description="Splits SWEEP.ini into one job per node count (and, with --per-section, "
                    "per section), writes one readable sbatch script per node count (a job "
                    "array; the exact a2atune command per task; exit 3 resumed with --resume) "
                    "and submits each with `sbatch --parsable` (--scheduler pbs: a PBS script "
                    "each, submitted with qsub) unless --dry-run. Every job "
                    "writes its own SQLite shard (never one file from many jobs); "
                    "`a2a status OUT` follows them and `a2a merge OUT/shards/*.db --into DB` "
                    "merges them. Each P value runs once, in the smallest launch that holds it "
                    "(--p-split all: every P up to each job's launch size). Before anything "
                    "is submitted, a2atune checks every job's sweep in a one-process dry run.",
        epilog="examples:\n"
               "  a2a submit sweeps/quick.ini --nodes 1,2,4,8 --ppn 32 --time 1:00:00\n"
               "  a2a submit sweeps/quick.ini --nodes 1 --ppn 2 --per-section --mpi mpich --dry-run\n"
               "  a2a submit x.ini --nodes 2..16:*2 --ppn 64 --launcher mpirun --partition big\n"
               "  a2a submit x.ini --nodes 1,2,4 --ppn 32 --scheduler pbs --pbs-dialect torque\n"
               "  a2a submit x.ini --nodes 2,4 --ppn 32 --scheduler pbs --mpi mpich --launch mpiexec-pals\n"
               "  a2a submit x.ini --nodes 2 --ppn 8 --launch 'mpiexec -n {ranks} -ppn {ppn} {cmd}'\n"
               "  a2a submit sweeps/quick.ini --nodes 1,2,4 --ppn 32 --tune 25%% --time 2:00:00\n"
               "output: OUT/a2a-submit.json (the manifest), OUT/*.sbatch (OUT/*.pbs), OUT/sweeps,\n"
               "OUT/shards,"
               " OUT/state (one marker per job), OUT/logs. Open MPI as root with\n"
               "mpirun: export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 before\n"
               "submitting (sbatch passes the environment on; under PBS use --env).",
        formatter_class=common["formatter"])
    p.add_argument("sweep", metavar="SWEEP.ini", help="the sweep file")
    p.add_argument("--nodes", required=True, type=options.int_list, metavar="LIST",
                   help="node counts, one job (array) each: 1,2,4 or 1..16:*2")
    p.add_argument("--ppn", required=True, type=_positive, metavar="Q",
                   help="MPI ranks per node")
    p.add_argument("--mpi", choices=("mpich", "openmpi"), default=None,
                   help="which build runs: build/mpich or build/openmpi (default: the library "
                        "of a --launch name such as mpirun-mpich, else openmpi)")
    p.add_argument("--scheduler", choices=SCHEDULERS, default="slurm",
                   help="slurm: sbatch scripts; pbs: qsub scripts (default: %(default)s)")
    p.add_argument("--pbs-dialect", choices=PBS_DIALECTS, default="pro",
                   help="with --scheduler pbs: pro = PBS Pro/OpenPBS (-l select=N:ncpus=Q:"
                        "mpiprocs=Q, -J arrays, PBS_ARRAY_INDEX); torque = Torque "
                        "(-l nodes=N:ppn=Q, -t arrays, PBS_ARRAYID) (default: %(default)s)")
    p.add_argument("--launcher", choices=("srun", "mpirun"), default=None,
                   help="srun --mpi=PLUGIN, or the library's mpirun inside the allocation "
                        "(the templates srun and mpirun-MPI of --launch; default: srun under "
                        "Slurm; PBS jobs use mpirun unless --launch says otherwise)")
    p.add_argument("--launch", metavar="NAME|TEMPLATE",
                   help="how each job starts its ranks: a named launch template (srun, "
                        "srun-plain, mpirun-openmpi, mpirun-mpich, mpirun-openmpi-pbs, "
                        "mpirun-mpich-pbs, mpiexec-pals; `a2a launch-template` shows them) or "
                        "one line of shell text with the placeholders {ranks} {ppn} {nodes} "
                        "{cmd} {mpirun} {srun_mpi}, e.g. 'mpiexec -n {ranks} --ppn {ppn} "
                        "{cmd}' (default: srun under Slurm, mpirun-MPI-pbs under PBS)")
    p.add_argument("--srun-mpi", metavar="PLUGIN",
                   help="srun's --mpi plugin, {srun_mpi} of a launch template (default: pmi2 "
                        "for MPICH, pmix for Open MPI; `srun --mpi=list` shows what the "
                        "cluster has)")
    p.add_argument("--mpirun", metavar="CMD",
                   help="the mpirun command for --launcher mpirun, {mpirun} of a launch "
                        "template, split like a shell does (default: mpirun.mpich / "
                        "mpirun.openmpi when on PATH, else mpirun)")
    p.add_argument("--binary", metavar="PATH",
                   help="the a2atune program (default: build/MPI/a2atune of this checkout)")
    p.add_argument("--section", type=options.word_list, metavar="LIST",
                   help="only these sections (default: all)")
    p.add_argument("--per-section", action="store_true",
                   help="one job per node count and section (default: one per node count)")
    p.add_argument("--p-split", choices=("smallest", "all"), default="smallest",
                   help="smallest: each P once, in the smallest launch holding it; all: every "
                        "P up to the launch size in every job (default: %(default)s)")
    p.add_argument("--partition", metavar="P", help="#SBATCH --partition (PBS: -q, the queue)")
    p.add_argument("--time", metavar="T", help="#SBATCH --time, e.g. 30, 1:00:00, 1-00:00:00 "
                   "(PBS: -l walltime=HH:MM:SS, converted)")
    p.add_argument("--account", metavar="A", help="#SBATCH --account (PBS: -A)")
    p.add_argument("--array-limit", type=_positive, metavar="K",
                   help="at most K tasks of an array run at once (--array=...%%K; Torque "
                        "-t ...%%K; PBS Pro -W max_run_subjobs=K)")
    p.add_argument("--job-name", metavar="NAME",
                   help="job name prefix (default: a2a-<sweep name>)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="export this variable in every job (repeatable)")
    p.add_argument("--out", metavar="DIR",
                   help="where scripts, sweeps, shards, markers and logs go "
                        "(default: results/<scheduler>/<sweep name>-<date>-<time>)")
    p.add_argument("--dry-run", action="store_true",
                   help="write everything, submit nothing; print how to submit")
    p.add_argument("--no-check", action="store_true",
                   help="skip the one-process dry run of each job's sweep (with --tune the "
                        "first job is still checked: the tuner validates the budget)")
    p.add_argument("--tune", metavar="BUDGET",
                   help="each job runs the tuner on its part of the sweep (a2atune tune "
                        "--budget BUDGET, per job: 25%%, a count of configurations, or a "
                        "time such as 2h) instead of measuring all of it; exit 3 resumes "
                        "it with --resume; `a2a tune --db MERGED` writes the tuning files")
    p.add_argument("--platform", metavar="FILE",
                   help="with --tune: the cluster's platform file (a2a platform writes one): "
                        "each job first lists its candidates under its launcher, prices them "
                        "with the model tier on FILE (a2a prior --keys) and searches from those "
                        "times (a2atune tune --prior; the file beside its shard)")
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


def job_argv(cfg, job):
    """The whole command of one job as (head, tail): the launch template's words before
    and including the a2atune command (the program, then run, or with --tune, tune with
    the budget and no tuning files of its own, its sweep, shard, sections), and its words
    after the command (none for the named templates)."""
    before, after = launch.render(cfg["launch"], {
        "ranks": job["ntasks"], "ppn": cfg["ppn"], "nodes": job["nodes"],
        "srun_mpi": cfg["srun_mpi"]}, {"mpirun": cfg["mpirun"]})
    return before + [cfg["binary"]] + driver_words(cfg, job, job["shard_abs"]), after


def prior_of(shard):
    """The platform prior of a job (a2a submit --platform): beside its shard."""
    return os.path.splitext(shard)[0] + ".prior.tsv"


def driver_words(cfg, job, shard):
    """The a2atune command words of one job after the program: `run SWEEP --db SHARD
    --section LIST`, or with --tune `tune SWEEP --budget B --db SHARD --section LIST
    --no-files` (shard None: no --db, for the one-process checks)."""
    words = ["tune" if cfg["tune"] else "run", job["sweep_abs"]]
    if cfg["tune"]:
        words += ["--budget", cfg["tune"]]
    if shard:
        words += ["--db", shard]
        if cfg.get("platform"):
            words += ["--prior", prior_of(shard)]
    words += ["--section", ",".join(job["sections"])]
    return words + (["--no-files"] if cfg["tune"] else [])


def _wrap(words, indent, width=92):
    """The words, shell-quoted (shell text as it is), as lines of about width characters
    joined by ' \\'; an option starting with '--' stays on the line of its value."""
    units, i = [], 0
    while i < len(words):
        w = shell_word(words[i])
        if str(words[i]).startswith("--") and "=" not in str(words[i]) and i + 1 < len(words):
            w += " " + shell_word(words[i + 1])
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


def scheduler_vars(cfg, array):
    """What the shared script body reads from the scheduler, as shell expressions:
    'task' (the array index; under PBS a single-task script is no array and defaults to
    task 0), 'job_id' (the job's id, 'none' outside a job), 'host' (the node running it),
    and 'setup' (lines run first: PBS starts jobs in $HOME, so they cd to the submit
    directory)."""
    if cfg["scheduler"] == "slurm":
        return {"task": "${SLURM_ARRAY_TASK_ID:-}", "job_id": "${SLURM_JOB_ID:-none}",
                "host": "${SLURMD_NODENAME:-$(hostname)}", "setup": []}
    index = "PBS_ARRAY_INDEX" if cfg["pbs_dialect"] == "pro" else "PBS_ARRAYID"
    return {"task": "${%s:-%s}" % (index, "" if len(array["jobs"]) > 1 else "0"),
            "job_id": "${PBS_JOBID:-none}", "host": "$(hostname)",
            "setup": ["# PBS starts a job in $HOME: run where qsub was run (OUT)",
                      'cd "$PBS_O_WORKDIR" || exit 2']}


def slurm_header(cfg, array):
    """The #SBATCH lines of one array (no paths in them)."""
    name = array["name"]
    header = [
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
    return header


def pbs_header(cfg, array):
    """The #PBS lines of one array in the chosen dialect (no paths in them but logs/, which
    qsub takes relative to the directory it is run from, OUT). A script of one task is no
    array (PBS Pro refuses a one-element -J range); stdout and stderr are joined into a file
    of qsub's default name in logs/."""
    pro = cfg["pbs_dialect"] == "pro"
    n, ppn, tasks = array["nodes"], cfg["ppn"], len(array["jobs"])
    header = ["#PBS -N %s" % array["name"], "#PBS -S /bin/bash",
              ("#PBS -l select=%d:ncpus=%d:mpiprocs=%d" % (n, ppn, ppn)) if pro
              else ("#PBS -l nodes=%d:ppn=%d" % (n, ppn))]
    if tasks > 1:
        if pro:
            header.append("#PBS -J 0-%d" % (tasks - 1))
            if cfg["array_limit"]:
                header.append("#PBS -W max_run_subjobs=%d" % cfg["array_limit"])
        else:
            header.append("#PBS -t 0-%d" % (tasks - 1)
                          + ("%%%d" % cfg["array_limit"] if cfg["array_limit"] else ""))
    header += ["#PBS -j oe", "#PBS -o %s/" % slurm.LOGS]
    if cfg["time"]:
        header.append("#PBS -l walltime=%s" % cfg["walltime"])
    if cfg["partition"]:
        header.append("#PBS -q %s" % cfg["partition"])
    if cfg["account"]:
        header.append("#PBS -A %s" % cfg["account"])
    return header


def launch_via(cfg):
    """How a script's first comment says its jobs launch: srun with its plugin, mpirun
    (on the PBS host file), or the launch template's name or text."""
    name = cfg["launch"]["name"]
    if name == "srun":
        return "srun --mpi=" + cfg["srun_mpi"]
    if name in ("mpirun-openmpi", "mpirun-mpich"):
        return "mpirun"
    if name in ("mpirun-openmpi-pbs", "mpirun-mpich-pbs"):
        return "mpirun on $PBS_NODEFILE (%s)" % ("PBS Pro" if cfg["pbs_dialect"] == "pro"
                                                 else "Torque")
    return name or "the launch template " + cfg["launch"]["template"]


def render_script(cfg, array, jobs):
    """The job script of one array: a header of #SBATCH or #PBS lines (no paths in them),
    the environment, one `case` branch per task with its exact a2atune command, the exit-3
    resume loop and the marker file. Guarantees: every path and value from the user is
    shell-quoted in commands and made control-character free in comments; the body is the
    same for both schedulers but for the variables of scheduler_vars."""
    name = array["name"]
    pbs = cfg["scheduler"] == "pbs"
    submit_cmd = "qsub" if pbs else "sbatch --parsable"
    via = launch_via(cfg)
    header = [
        "#!/bin/bash",
        "# %s: a2a submit of %s: %d node(s) x %d ranks per node, %s via %s"
        % (comment_safe(name), comment_safe(cfg["sweep_shown"]), array["nodes"], cfg["ppn"],
           "Open MPI" if cfg["mpi"] == "openmpi" else "MPICH", via),
        "# One array task per job; each job writes its own database shard (a2a merge joins them).",
    ] + ([
        "# Each job runs the tuner on its part of the sweep, budget %s per job (a2atune tune)."
        % comment_safe(cfg["tune"])] if cfg["tune"] else []) + [
        "# Submit from this folder (logs/ is relative to it):",
        "#   cd %s && %s %s" % (comment_safe(shlex.quote(cfg["out"])), submit_cmd,
                               comment_safe(shlex.quote(array["script"]))),
    ] + (pbs_header(cfg, array) if pbs else slurm_header(cfg, array))
    var = scheduler_vars(cfg, array)
    body = ["", "set -u"] + var["setup"]
    if cfg["mpi"] == "openmpi":
        body += ["# Open MPI: a waiting rank yields its core (without it, ranks sharing cores",
                 "# busy-poll and the timings measure the scheduler)",
                 "export OMPI_MCA_mpi_yield_when_idle=1"]
    for name_, value in cfg["env"]:
        body.append("export %s=%s" % (name_, shlex.quote(value)))
    body += ["", 'case "%s" in' % var["task"]]
    for task, k in enumerate(array["jobs"]):
        job = jobs[k]
        what = "; ".join("[%s] P = %s" % (s, compact_list(job["P"][s])) for s in job["sections"])
        body += ["%d)  # job %d: %d rank(s), %s" % (task, k, job["ntasks"], comment_safe(what)),
                 "    job=%d" % k,
                 "    state=%s" % shlex.quote(job["state_abs"])]
        if cfg.get("platform"):
            body += ["    prior=%s" % shlex.quote(prior_of(job["shard_abs"]))]
        body += [
                 "    launch() {"]
        head, tail = job_argv(cfg, job)
        body += _wrap(head, "        ")
        body[-1] += ' "$@"'       # the resume loop's --resume
        if tail:
            body[-1] += " \\"
            body += _wrap(tail, "            ")
        body += ["    }", "    ;;"]
    body += ["*)  echo \"a2a: array task '%s' is not a job of this script\" >&2" % var["task"],
             "    exit 2 ;;",
             "esac",
             "",
             "stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }",
             'mark() { echo "$*" > "$state.tmp" && mv -f "$state.tmp" "$state"; }',
             'mark running "$(stamp)" "%s" "%s"' % (var["job_id"], var["host"]),
             "trap 'mark failed signal \"$(stamp)\" \"%s\"; exit 143' TERM INT" % var["job_id"],
             "# exit 3: a configuration hit its time limit (recorded as timeout); --resume goes on",
             "# after it, at most %d times. The launcher may report the ranks it ended instead" % RESUME_TRIES,
             "# (exit 137), so the driver's own TIMEOUT line (its stderr, kept in $state.err)",
             "# counts as exit 3 too.",
             "attempt() {",
             "    { launch \"$@\" 2>&1 1>&3 3>&- | tee \"$state.err\" >&2; } 3>&1",
             "    rc=${PIPESTATUS[0]}",
             '    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && grep -q "^a2atune: TIMEOUT " "$state.err"; then',
             "        rc=3",
             "    fi",
             "}",
             ] + (prior_lines(cfg) if cfg.get("platform") else []) + [
             "attempt",
             "tries=0",
             'while [ "$rc" -eq 3 ] && [ "$tries" -lt %d ]; do' % RESUME_TRIES,
             "    tries=$((tries + 1))",
             '    echo "a2a: job $job: a configuration timed out; resuming after it ($tries of %d)" >&2'
             % RESUME_TRIES,
             "    attempt --resume",
             "done",
             'if [ "$rc" -eq 0 ]; then word=done; else word=failed; fi',
             'mark "$word" "$rc" "$(stamp)" "%s"' % var["job_id"],
             'exit "$rc"']
    return "\n".join(header + body) + "\n"


def prior_lines(cfg):
    """The job script's lines that make the job's platform prior before its first launch
    (a2a submit --platform): the launch lists its candidates (--candidates: nothing measured,
    the prior not read), the model tier prices them (a2a prior --keys); kept for --resume."""
    return ["# the platform's prior: this launch's candidates priced by the model tier on",
            "# %s before the search starts (a2atune tune --prior)" % comment_safe(cfg["platform"]),
            'if [ ! -s "$prior" ]; then',
            '    if ! { launch --candidates > "$prior.keys" && %s prior --keys "$prior.keys" \\'
            % shlex.quote(os.path.join(REPO, "scripts", "a2a")),
            '            --platform %s --out "$prior"; }; then' % shlex.quote(cfg["platform"]),
            '        mark failed 2 "$(stamp)" "prior"',
            "        exit 2",
            "    fi",
            "fi"]


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
    if args.launch is not None and args.launcher is not None:
        raise A2AError("--launch and --launcher: give one (--launcher srun is --launch srun, "
                       "--launcher mpirun is --launch mpirun-MPI)")
    spec = launch.parse(args.launch) if args.launch is not None else None
    mpi = launch.library(spec, args.mpi) if spec else (args.mpi or "openmpi")
    cfg = {"mpi": mpi, "ppn": args.ppn, "scheduler": args.scheduler,
           "pbs_dialect": args.pbs_dialect if args.scheduler == "pbs" else None,
           "sweep_abs": sweep.path, "sweep_shown": args.sweep, "array_limit": args.array_limit,
           "tune": args.tune}
    if args.tune is not None and (not args.tune or comment_safe(args.tune) != args.tune):
        raise A2AError("--tune '%s': a budget such as 25%%, 40 or 2h" % comment_safe(args.tune))
    cfg["platform"] = None
    if args.platform is not None:
        if args.tune is None:
            raise A2AError("--platform %s: the platform's prior is the tuner's (give --tune)"
                           % comment_safe(args.platform))
        if not os.path.isfile(args.platform):
            raise A2AError("--platform %s: no such file" % comment_safe(args.platform))
        cfg["platform"] = os.path.abspath(args.platform)
    if args.scheduler == "pbs":
        if args.launcher == "srun":
            raise A2AError("--launcher srun: PBS has no srun; --scheduler pbs launches with "
                           "the library's mpirun (leave --launcher out)")
        if args.srun_mpi is not None and spec is None:
            raise A2AError("--srun-mpi: srun only; --scheduler pbs launches with mpirun")
        cfg["launcher"] = "mpirun"
        default = "mpirun-%s-pbs" % mpi
    else:
        cfg["launcher"] = args.launcher or "srun"
        default = "srun" if cfg["launcher"] == "srun" else "mpirun-" + mpi
    if spec is None:
        spec = launch.parse(default)
    else:
        launch.check(spec, args.mpi, args.scheduler, args.mpirun, args.srun_mpi)
        cfg["launcher"] = spec["name"] or "template"
    cfg["launch"] = spec
    for key in ("partition", "time", "account"):
        value = getattr(args, key)
        if value is not None:
            pattern, what = _SAFE[key]
            if not pattern.match(value):
                raise A2AError("--%s '%s': expected %s" % (key, comment_safe(value), what))
        cfg[key] = value
    cfg["walltime"] = pbs_walltime(cfg["time"]) if cfg["time"] and args.scheduler == "pbs" else None
    cfg["mpirun"], cfg["srun_mpi"] = launch.tools(mpi, args.mpirun, args.srun_mpi)
    binary = args.binary or os.path.join(REPO, "build", mpi, "a2atune")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise A2AError("%s: no a2atune program there (build it: make%s, or pass --binary PATH)"
                       % (binary, " MPI=mpich" if mpi == "mpich" else ""))
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
    if args.scheduler == "pbs" and not cfg["name"][0].isalpha():
        raise A2AError("--job-name '%s': a PBS job name starts with a letter" % cfg["name"])
    out = args.out or os.path.join(
        "results", args.scheduler,
        "%s-%s" % (stem, datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
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


def one_process_env():
    """The environment for a one-process check: this one without the variables of a
    scheduler or launcher (a login shell inside an allocation would make the driver
    expect the allocation's tasks)."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("SLURM_", "PMI_", "PMIX_", "PBS_"))}


def precheck(cfg, sweep, jobs, notes):
    """Runs `a2atune run JOBSWEEP --section LIST --dry-run` as one process for every job.

    Guarantees: a job whose sweep the driver rejects (exit 2) raises A2AError with the
    driver's own message (and, when the job's P values are a part of what its launch
    could run, a hint at --p-split all); a dry run that cannot start MPI at all becomes
    a note."""
    env = one_process_env()
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
            msg = users_words(msg, job, cfg["sweep_shown"])
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


def users_words(message, job, shown):
    """A driver message about a job's copy of the sweep, told about the user's file: the
    copy's path (and line) become the user's sweep as given on the command line and the
    line the copied line came from (job['origin'])."""
    path = job["sweep_abs"]
    origin = job.get("origin") or []

    def line_of(m):
        n = int(m.group(1))
        mapped = origin[n - 1] if 0 < n <= len(origin) else None
        return "%s:%d:" % (shown, mapped) if mapped else "%s:" % shown
    message = re.sub(re.escape(path) + r":(\d+):", line_of, message)
    return message.replace(path, shown)


def check_budget(cfg, job):
    """With --tune: asks the tuner itself whether it takes the budget, in one process on
    job's sweep (`a2atune tune JOBSWEEP --budget B --section LIST --candidates`, nothing
    measured or recorded). A2AError with the tuner's own line when it refuses the budget;
    anything else it says (one process cannot run the job's P values) is not about the
    budget and is left to the job's checks."""
    env = one_process_env()
    argv = [cfg["binary"]] + driver_words(cfg, job, None)[:-1] + ["--candidates"]
    try:
        r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, errors="replace", timeout=PRECHECK_SECONDS)
    except subprocess.TimeoutExpired:
        return
    except OSError as e:
        raise A2AError("%s: cannot run it: %s" % (cfg["binary"], e.strerror or e))
    refusal = "a2atune: tune: --budget %s:" % cfg["tune"]
    for line in r.stderr.splitlines():
        if r.returncode == 2 and line.startswith(refusal):
            raise A2AError("--tune %s%s" % (cfg["tune"], line[len(refusal) - 1:].rstrip()))


SUBMIT = {"slurm": ["sbatch", "--parsable"], "pbs": ["qsub"]}
PBS_ID = re.compile(r"^\d+(\[\])?(\.[A-Za-z0-9_.-]+)?$")


def _sbatch(cfg, array):
    """Submits one array script from OUT with sbatch (Slurm) or qsub (PBS); the job id it
    printed: Slurm's number, or PBS's id as given ('123[].server' for an array, '123.server'
    for a one-task script). A2AError if the command fails or prints something else."""
    argv = SUBMIT[cfg["scheduler"]] + [array["script"]]
    try:
        r = subprocess.run(argv, cwd=cfg["out"],
                           capture_output=True, text=True, errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise A2AError("%s %s: %s" % (argv[0], array["script"], e))
    if cfg["scheduler"] == "pbs":
        job_id = (r.stdout.strip().splitlines() or [""])[-1].strip()
        good = bool(PBS_ID.match(job_id))
    else:
        job_id = r.stdout.strip().split(";")[0]
        good = job_id.isdigit()
    if r.returncode != 0 or not good:
        why = (r.stderr.strip().splitlines() or r.stdout.strip().splitlines() or ["no output"])
        raise A2AError("%s %s failed (exit %d): %s" % (argv[0], array["script"], r.returncode,
                                                        why[-1]))
    return job_id


def task_id(cfg, array_id, task, tasks):
    """The scheduler's id of task `task` of an array submitted as array_id: Slurm
    '<array>_<task>'; PBS '<n>[<task>].server' (PBS Pro and Torque name subjobs alike),
    or array_id itself for a one-task PBS script (no array)."""
    if cfg["scheduler"] == "slurm":
        return "%s_%d" % (array_id, task)
    if tasks == 1:
        return array_id
    if "[]" in array_id:
        return array_id.replace("[]", "[%d]" % task, 1)
    number, dot, server = array_id.partition(".")
    return "%s[%d]%s%s" % (number, task, dot, server)


def run(args, db=None):
    """`a2a submit`: plans the jobs, writes the per-job sweeps, the scripts and the manifest,
    checks every job with a one-process dry run, submits (unless --dry-run) and prints
    where every job's shard goes. Exit 0, or A2AError (exit 2) before anything is
    submitted, or after the arrays submitted so far (the manifest records them)."""
    sweep = Sweep(args.sweep)
    cfg = _config(args, sweep)
    cfg["p_split"] = args.p_split
    if not args.dry_run and not shutil.which(SUBMIT[args.scheduler][0]):
        raise A2AError("%s not found on PATH (is this a %s login node? --dry-run only writes "
                       "the scripts)" % (SUBMIT[args.scheduler][0],
                                         "Slurm" if args.scheduler == "slurm" else "PBS"))
    names = args.section or [s.name for s in sweep.sections]
    if not names:
        raise A2AError("%s: no sections" % args.sweep)
    for name in names:
        sweep.section(name)
        if "," in name:
            raise A2AError("section [%s]: a name with a comma cannot be chosen with --section"
                           % comment_safe(name))
    id_key = slurm.id_key(args.scheduler)
    word = "Slurm" if args.scheduler == "slurm" else "PBS"
    ext = ".sbatch" if args.scheduler == "slurm" else ".pbs"
    jobs, notes = plan_jobs(sweep, names, args.nodes, args.ppn, args.per_section, args.p_split)

    out = cfg["out"]
    made = []     # what this submission created, removed again if it fails before the manifest
    try:
        arrays, manifest = _prepare(args, cfg, sweep, names, jobs, notes, made, id_key, ext)
    except BaseException:
        _remove(made)
        raise
    for note in notes:
        sys.stderr.write("a2a: note: %s\n" % note)
    array_key = args.scheduler + "_job"
    if not args.dry_run:
        for array in arrays:
            try:
                array[array_key] = _sbatch(cfg, array)
            except A2AError as e:
                done = ["%s (job %s)" % (a["script"], a[array_key]) for a in arrays if a[array_key]]
                raise A2AError("%s; %s" % (e, "submitted before it: " + ", ".join(done) if done
                                           else "nothing was submitted"))
            for task, k in enumerate(array["jobs"]):
                manifest["jobs"][k][id_key] = task_id(cfg, array[array_key], task,
                                                      len(array["jobs"]))
            slurm.save_manifest(out, manifest)

    rows = [(j["index"], j["nodes"], j["ntasks"],
             "; ".join("%s P=%s" % (s, compact_list(j["P"][s])) for s in j["sections"]),
             j[id_key] or "-", os.path.join(out, j["shard"])) for j in manifest["jobs"]]
    write_rows(("job", "nodes", "ranks", "sections", id_key.replace("_", " "), "shard"), rows,
               "table")
    q = shlex.quote
    print()
    for array in arrays:
        script = os.path.join(out, array["script"])
        if args.dry_run:
            print("script:  %s  (not submitted: cd %s && %s %s)"
                  % (script, q(out), " ".join(SUBMIT[args.scheduler]), q(array["script"])))
        else:
            print("script:  %s  -> %s job %s" % (script, word, array[array_key]))
    print("status:  scripts/a2a status %s" % q(out))
    print("merge:   scripts/a2a merge %s/*.db --into results/a2a.db"
          % q(os.path.join(out, slurm.SHARDS)))
    if cfg["tune"]:
        print("tuning:  scripts/a2a tune --db results/a2a.db --out results/tuning  (after the merge)")
    return 0


def _remove(made):
    """Removes the files and folders in made (created in this order), newest first; a
    folder only when it is empty by then."""
    for path in reversed(made):
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.rmdir(path)
            else:
                os.remove(path)
        except OSError:
            pass


def _prepare(args, cfg, sweep, names, jobs, notes, made, id_key, ext):
    """Writes the job sweeps and the scripts, checks every job (precheck) and saves the
    manifest; every path it creates is appended to made. Returns (arrays, manifest)."""
    out = cfg["out"]
    missing, parent = [], out
    while not os.path.isdir(parent):          # the folders above out that do not exist yet
        missing.insert(0, parent)
        parent = os.path.dirname(parent)
    for path in missing[:-1]:
        os.mkdir(path)
        made.append(path)
    for sub in ("", slurm.SWEEPS, slurm.SHARDS, slurm.STATE, slurm.LOGS):
        path = os.path.join(out, sub) if sub else out
        if not os.path.isdir(path):
            os.makedirs(path)
            made.append(path)
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
            job["origin"] = []
            text = sweep.job_text(job_sweep_header(cfg, k, job), job["P"], job["origin"])
            made.append(job["sweep_abs"])
            with open(job["sweep_abs"], "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
        if not arrays or arrays[-1]["nodes"] != job["nodes"]:
            name = "%s-n%d" % (cfg["name"], job["nodes"])
            arrays.append({"name": name, "nodes": job["nodes"], "script": name + ext,
                           "jobs": [], args.scheduler + "_job": None})
        job["array"] = len(arrays) - 1
        job["task"] = len(arrays[-1]["jobs"])
        job[id_key] = None
        arrays[-1]["jobs"].append(k)
    if cfg["tune"]:
        check_budget(cfg, jobs[0])
    if not args.no_check:
        blocker = precheck_blocker(sweep, names, args.p_split)
        if blocker:
            notes.append("%s: a one-process dry run cannot check the jobs' sweeps; not checked"
                         % blocker)
        else:
            precheck(cfg, sweep, jobs, notes)
    for array in arrays:
        path = os.path.join(out, array["script"])
        made.append(path)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(render_script(cfg, array, jobs))
        os.chmod(path, 0o755)

    manifest = {
        "version": slurm.MANIFEST_VERSION,
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "sweep": sweep.path, "mpi": cfg["mpi"], "launcher": cfg["launcher"],
        "launch": cfg["launch"]["template"], "ppn": cfg["ppn"],
        "scheduler": args.scheduler, "pbs_dialect": cfg["pbs_dialect"],
        "p_split": args.p_split, "binary": cfg["binary"], "dry_run": bool(args.dry_run),
        "tune": cfg["tune"],
        "arrays": arrays,
        "jobs": [{key: job[key] for key in ("index", "nodes", "ntasks", "sections", "P", "sweep",
                                             "shard", "state", "array", "task", id_key)}
                 for job in jobs],
    }
    made.append(slurm.manifest_path(out) + ".tmp")
    slurm.save_manifest(out, manifest)
    return arrays, manifest
