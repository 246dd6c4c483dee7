"""`a2a simulate`: a sweep file on a simulated cluster (SimGrid SMPI), one smpirun per P.

The same sweep files, runner and database as real runs; only the launcher and the clock
differ. Every P of the sweep gets its own smpirun with exactly P ranks (the driver's
sub-communicator scheme would make every P pay for the largest one), placed on the
platform's hosts in order, each host filled up to its cores. Rows are marked
backend = simgrid with the platform's name and sha256, SimGrid's version and the SMPI
options used; above --validate-up-to the payloads live in SMPI shared memory and the rows
say validated = 0."""
import hashlib
import json
import os
import sqlite3
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from ..core import netmodel
from ..core.common import A2AError, fmt_clock
from ..core.sweepfile import Sweep

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
DEFAULT_BINARY = os.path.join(ROOT, "build", "simgrid", "a2atune")
# The vendor baseline: SMPI's own MPI_Alltoall / MPI_Alltoallv algorithms, named (the
# `vendor` rows of a run are these; SMPI has no MPI_T, so vendor_algorithm does nothing).
# SMPI 3.32's MPICH- and Open MPI-like selectors (smpi/coll-selector:mpich|ompi) pick its
# `pair` algorithm, which aborts at P not a power of two; the pairwise exchange both
# libraries use for large blocks at any P is SMPI's `ring` (rank + i, rank - i), MPICH's
# short-block choice is `bruck`, Open MPI's basic linear (all requests at once) is
# `basic_linear` / `ompi_basic_linear` (expensive to simulate: P^2 flows at once).
VENDORS = {
    "ring": ("ring", "ring"),
    "bruck": ("bruck", "bruck"),
    "linear": ("basic_linear", "ompi_basic_linear"),
    "mvapich2": ("mvapich2", "mvapich2"),
}
SELECTORS = tuple(VENDORS)
DEFAULT_COPY_DB = os.path.join(ROOT, "results", "copybench.db")
COPY_SIZES = "1K,16K,256K,1M,16M"   # copybench sizes for the copy-cost model


def add_parser(sub, common):
    """Registers `a2a simulate` and its options."""
    p = sub.add_parser(
        "simulate", help="run a sweep on a simulated cluster (SimGrid SMPI), one smpirun per P",
        description="Runs SWEEP with build/simgrid/a2atune (make MPI=simgrid) under smpirun on "
                    "the platform file, one launch per process count P of the sweep (P ranks "
                    "placed on the platform's hosts in order, each host filled to its cores). "
                    "Simulated time is deterministic: sweeps for simulation use iterations = 1 "
                    "or 2. Up to --validate-up-to ranks every result is compared byte for byte "
                    "as in real runs; above it payloads live in SMPI shared memory (contents "
                    "meaningless) and the rows say validated = 0. The vendor baseline is SMPI's "
                    "algorithms (--vendor). Computation is not simulated "
                    "(smpi/simulate-computation:no: timings are deterministic) except the "
                    "kernels' memory copies, charged at this machine's memcpy bandwidth as "
                    "`a2atune copybench` measured it (--copy-model).",
        epilog="example:  a2a simulate sweeps/paper/tuna_fig9.ini --platform "
               "platforms/dragonfly.xml --db results/sim.db",
        formatter_class=common["formatter"])
    p.add_argument("sweep", metavar="SWEEP", help="the sweep file (any a2atune sweep)")
    p.add_argument("--platform", required=True, help="SimGrid platform file (platforms/*.xml)")
    p.add_argument("--db", required=True, help="results database (created if missing)")
    p.add_argument("--section", help="only these sections (comma-separated)")
    p.add_argument("--P", dest="only_P", help="only these process counts (comma-separated)")
    p.add_argument("--world", type=int, default=0,
                   help="the value of `world` in P lists (default: the platform's cores)")
    p.add_argument("--vendor", default="ring",
                   help="the vendor baseline(s), SMPI's alltoall/alltoallv algorithms: %s; "
                        "the first runs the sweep, each further one adds a launch of the vendor "
                        "kernels only (default: %%(default)s)"
                        % ", ".join("%s (%s/%s)" % (k, a, v) for k, (a, v) in VENDORS.items()))
    p.add_argument("--validate-up-to", type=int, default=64,
                   help="largest P with real, compared payloads (default: %(default)s)")
    p.add_argument("--cfg", action="append", default=[],
                   help="a further SimGrid option, e.g. smpi/async-small-thresh:65536 "
                        "(recorded with every run; may repeat)")
    p.add_argument("--copy-model", default=DEFAULT_COPY_DB, metavar="DB|MODEL|none",
                   help="a database with `a2atune copybench` rows (memcpy, one core): the "
                        "kernels' copies cost n / bandwidth(n); measured into it first (with "
                        "./a2atune copybench --sizes %s) when it has none; or the model itself "
                        "as BYTES:GBPS,... (e.g. 1048576:30.2); `none`: copies are free "
                        "(default: %%(default)s)" % COPY_SIZES)
    p.add_argument("--binary", default=DEFAULT_BINARY, help="the SimGrid build of a2atune")
    p.add_argument("--tune", metavar="BUDGET",
                   help="run the autotuner (`a2atune tune --budget BUDGET`, e.g. 25%%) instead "
                        "of every configuration: one launch at the sweep's largest P, so that "
                        "the search spans every P; the tuning files go to --out")
    p.add_argument("--out", default=os.path.join(ROOT, "results", "tuning"),
                   help="with --tune: the directory of the tuning files (default: %(default)s)")
    p.add_argument("--no-prior", action="store_true",
                   help="with --tune: search without the platform's prior (by default the model "
                        "tier prices every candidate on --platform first, `a2a prior`, and the "
                        "search starts from those times: a2atune tune --prior)")
    p.add_argument("--resume", action="store_true", help="pass --resume to every launch")
    p.add_argument("--dry-run", action="store_true", help="print the launches, run nothing")
    p.set_defaults(func=run, needs_db=False)
    return p


def _radical(text, where):
    """'0-127' or '0-3,8,10-11' -> [0, 1, ...]."""
    out = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            raise A2AError("%s: radical '%s' is not a list of numbers and ranges" % (where, text))
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.extend(range(lo, hi + 1))
    return out


def platform_hosts(path):
    """[(host name, cores)] of a platform file, in document order; A2AError (file:line)
    when it is missing, not well-formed XML, not a SimGrid platform or has no host."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise A2AError("%s: cannot read the platform file: %s" % (path, e.strerror or e))
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        line, col = e.position
        raise A2AError("%s:%d: not a well-formed platform file (column %d: %s)"
                       % (path, line, col + 1, str(e).split(":")[0]))
    if root.tag != "platform":
        raise A2AError("%s: not a SimGrid platform file (root element <%s>, expected <platform>)"
                       % (path, root.tag))
    hosts = []
    for el in root.iter():
        if el.tag == "host":
            hosts.append((el.get("id"), int(el.get("core", "1"))))
        elif el.tag == "cluster":
            where = "%s: cluster '%s'" % (path, el.get("id"))
            for i in _radical(el.get("radical", ""), where):
                hosts.append(("%s%d%s" % (el.get("prefix", ""), i, el.get("suffix", "")),
                              int(el.get("core", "1"))))
    if not hosts:
        raise A2AError("%s: the platform has no host" % path)
    return hosts


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


# the algorithm SMPI runs the driver's and the kernels' MPI_Allreduce with (smpi_options;
# the model tier prices the non-uniform kernels' own reductions as it)
ALLREDUCE = "rdb"


def smpi_options(P, args, selector):
    """The SimGrid options of one launch (recorded with its run)."""
    alltoall, alltoallv = VENDORS[selector]
    # the driver's own collectives (provenance, communicator splits, agreement) through
    # MVAPICH2's selection: SMPI's default allgather and non-blocking collectives cost
    # O(P^2) simulation work per call (minutes at P = 256). Its node-aware (SMP)
    # algorithms are replaced by flat ones: the first node-aware call on a communicator
    # maps ranks to nodes at ~P^3 simulation work (2 s at P = 512, 16 s at P = 1024, and
    # one split, one duplicate and the provenance allgather each paid it once)
    opts = ["smpi/coll-selector:mvapich2",
            "smpi/allgather:bruck", "smpi/allreduce:%s" % ALLREDUCE, "smpi/bcast:binomial_tree",
            "smpi/reduce:binomial", "smpi/gather:ompi_binomial",
            "smpi/alltoall:%s" % alltoall, "smpi/alltoallv:%s" % alltoallv,
            "smpi/simulate-computation:no",
            # SimGrid 3.32's max-min solver compares a link's usage (the sum over its flows
            # of weight / sharing penalty; penalties are route latencies in seconds) with
            # the ABSOLUTE maxmin/precision (default 1e-5). With thousands of flows on one
            # link the rounding left once every flow is fixed can exceed it; the solver then
            # keeps a link with no flow and its assertion reads index -1: a segfault SMPI
            # blames on privatization. Seen: spread_out at P = 81..160 on fattree_ib.xml
            # (32 ranks x P peers, ~1 us routes: 1.1e-5 left at P = 81, 6.1e-5 at P = 160)
            # and at P = 256 on torus_tofud.xml (48 ranks x P peers, 0.1 us links, usage
            # ~1e11 on a node link: 1.013e-3 left, over 1e-3). 1e-2 is ten times that. Its
            # other use, a link counted full at 99 % of its bandwidth instead of 99.9 %,
            # changed no simulated time of 72 configurations at P = 64 (both platforms) and
            # 6 of 7 at P = 256 on the torus; scattered(32) there moved by 1.2e-5 (commit log)
            "maxmin/precision:1e-2",
            # smpi_execute(seconds) runs seconds x host-speed flops on the simulated host:
            # equal to the platforms' host speed (1Gf), a charged copy takes its seconds
            "smpi/host-speed:1Gf"]
    if P > args.validate_up_to:
        # kernel temporaries above the per-rank metadata arrays (~32 P bytes) are shared
        # too; large blocks keep the mappings under vm.max_map_count at P = 4096
        opts.append("smpi/auto-shared-malloc-thresh:%d" % max(65536, 64 * P))  # = copy skip
        opts.append("smpi/shared-malloc-blocksize:%d" % (64 << 20 if P >= 2048 else 1 << 20))
    return opts + list(args.cfg)


def copy_model(path, dry_run=False):
    """'BYTES:GBPS,...' from the newest copybench run in path (memcpy on one core, the best
    sample of each size: on a shared machine noise only slows a copy down, and a kernel's
    copies of warm buffers match the best, e.g. 1 MiB: 21.0 us in tra at P = 1, 21.0 us
    best in copybench, 34.7 us median under load); runs copybench into path first when it
    has none. '' for `none`."""
    if path == "none":
        return ""
    if re.fullmatch(r"\d+:[\d.]+(,\d+:[\d.]+)*", path):
        return path   # the model itself, BYTES:GBPS,...
    def read():
        if not os.path.exists(path):
            return ""
        try:
            conn = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
            rows = conn.execute(
                "SELECT r.S, m.value FROM results r JOIN metrics m ON m.result_id = r.id"
                " WHERE r.family = 'copy' AND r.kernel = 'memcpy' AND r.P = 1"
                " AND m.name = 'best_GB/s' AND r.run_id = (SELECT max(run_id) FROM results"
                " WHERE family = 'copy' AND kernel = 'memcpy' AND P = 1) ORDER BY r.S").fetchall()
            conn.close()
        except sqlite3.Error as e:
            raise A2AError("--copy-model %s: %s" % (path, e))
        return ",".join("%d:%.4g" % (size, gbps) for size, gbps in rows)
    model = read()
    if model or dry_run:
        return model
    binary = os.path.join(ROOT, "a2atune")
    if not os.access(binary, os.X_OK):
        raise A2AError("--copy-model %s has no copybench rows and %s is not built (make), "
                       "or pass --copy-model none" % (path, binary))
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    sys.stderr.write("a2a simulate: calibrating the copy-cost model: %s copybench --sizes %s "
                     "--threads 1 --db %s\n" % (binary, COPY_SIZES, path))
    rc = subprocess.call([binary, "copybench", "--sizes", COPY_SIZES, "--threads", "1",
                          "--quiet", "--db", path])
    if rc != 0 or not read():
        raise A2AError("copybench failed (exit %d); pass --copy-model none to simulate "
                       "without copy costs" % rc)
    return read()


def vendor_only_text(sweep, names):
    """The sweep's text with `kernels = vendor` in the named sections."""
    lines = list(sweep.lines)
    for name in names:
        s = sweep.setting(sweep.section(name), "kernels")
        if s is not None:
            lines[s.index] = "kernels = vendor\n"
    return "".join(lines)


def run(args, db):
    del db
    if args.vendor is None or any(v not in SELECTORS for v in args.vendor.split(",")):
        raise A2AError("--vendor: choose from %s, got '%s'" % (", ".join(SELECTORS), args.vendor))
    selectors = args.vendor.split(",")
    hosts = platform_hosts(args.platform)
    capacity = sum(c for _, c in hosts)
    sweep = Sweep(args.sweep)
    names = [s.name for s in sweep.sections]
    if args.section:
        wanted = [n.strip() for n in args.section.split(",")]
        for n in wanted:
            sweep.section(n)
        names = [n for n in names if n in wanted]
    world = args.world or capacity
    per_P = {}
    for name in names:
        for P in sweep.process_counts(sweep.section(name), world):
            per_P.setdefault(P, []).append(name)
    if args.only_P:
        keep = {int(x) for x in args.only_P.split(",")}
        per_P = {P: v for P, v in per_P.items() if P in keep}
    if not per_P:
        raise A2AError("%s: no process count to simulate" % args.sweep)
    too_big = [P for P in per_P if P > capacity]
    if too_big:
        raise A2AError("%s: P = %d needs more cores than the platform %s has (%d)"
                       % (args.sweep, max(too_big), args.platform, capacity))
    if not args.dry_run and not os.access(args.binary, os.X_OK):
        raise A2AError("%s: not built; run `make MPI=simgrid`" % args.binary)
    platform = os.path.abspath(args.platform)
    digest = sha256(platform)
    model = copy_model(args.copy_model, args.dry_run)
    args.tag = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-%d" % os.getpid()
    env = dict(os.environ, A2A_SIM_COPY_MODEL=model, A2A_SIM_PLATFORM=os.path.basename(platform),
               A2A_SIM_PLATFORM_SHA256=digest, A2A_SIM_VALIDATE_UP_TO=str(args.validate_up_to))
    work = tempfile.mkdtemp(prefix="a2a-simulate.")
    launches = []
    if args.tune:
        # the tuner decides across P: one launch at the largest P holds every P of the sweep
        # (on sub-communicators); payloads are either all compared or all shared
        small, large = min(per_P), max(per_P)
        if small <= args.validate_up_to < large:
            raise A2AError("--tune: %s has P = %d and P = %d, on both sides of --validate-up-to "
                           "%d (one launch cannot compare payloads at one P and share them at "
                           "another): tune them as separate sections, or raise the limit"
                           % (args.sweep, small, large, args.validate_up_to))
        tuned = sorted({name for names in per_P.values() for name in names}, key=names.index)
        launches.append((large, selectors[0], tuned, False))
        args.tune_P = {name: [P for P in sorted(per_P) if name in per_P[P]] for name in tuned}
    else:
        for P in sorted(per_P):
            for k, selector in enumerate(selectors):
                launches.append((P, selector, per_P[P], k > 0))
    t0 = time.time()
    worst = 0
    for i, (P, selector, sections, vendor_only) in enumerate(launches):
        hostfile = os.path.join(work, "hosts-%d" % P)
        with open(hostfile, "w") as f:
            left = P
            for name, cores in hosts:
                take = min(cores, left)
                f.write((name + "\n") * take)
                left -= take
                if left == 0:
                    break
        elapsed = time.time() - t0
        eta = ""
        if i:
            # simulation cost grows with P (messages ~ P^2 at large radices): extrapolate
            done_cost = sum(q * q for q, *_ in launches[:i])
            left_cost = sum(q * q for q, *_ in launches[i:])
            eta = "  ETA %s" % fmt_clock(elapsed / done_cost * left_cost)
        sys.stderr.write("a2a simulate: [%d/%d] P = %d on %s, vendor = %s%s, elapsed %s%s\n"
                         % (i + 1, len(launches), P, os.path.basename(platform), selector,
                            " (vendor only)" if vendor_only else "", fmt_clock(elapsed), eta))
        opts = smpi_options(P, args, selector)
        # the network model the launch runs under, recorded with its runs
        network = netmodel.effective(platform, opts)
        env["A2A_SIM_NETWORK_MODEL"] = json.dumps(network, sort_keys=True)
        if i == 0:
            sys.stderr.write("a2a simulate: network model: %s\n" % netmodel.describe(network))
        # (a tuned launch holds P on one side of the limit only: refused above otherwise)
        skip = max(65536, 64 * P) if P > args.validate_up_to else 0
        env["A2A_SIM_COPY_SKIP"] = str(skip)
        env["A2A_SIM_OPTIONS"] = " ".join(["-no-privatize"] + ["--cfg=" + o for o in opts] +
                                          ["copy-model=" + (model or "none"),
                                           "validate-up-to=%d" % args.validate_up_to] +
                                          (["copy-skip=%d" % skip] if skip else []))
        sections = list(sections)
        resume = False
        while sections:
            cmd = _launch(args, sweep, work, platform, hostfile, P, selector, sections,
                          vendor_only, opts, resume)
            if args.dry_run:
                print(" ".join(shlex.quote(c) for c in cmd))
                break
            if args.tune and not args.no_prior:
                cmd = _with_prior(cmd, env, work, platform, model, selector, prior_path(args.db))
            rows = _result_rows(args.db)
            rc, dropped = _run_launch(cmd, env, work)
            if rc in RESUMED_AFTER and not args.tune and _result_rows(args.db) > rows:
                # the driver recorded the configuration that hung or crashed and ended the
                # launch: it costs that configuration only, the launch goes on after it
                sys.stderr.write("a2a simulate: P = %d: %s; resuming the launch after it\n"
                                 % (P, RESUMED_AFTER[rc]))
                worst = max(worst, rc)
                resume = True
                continue
            if rc == 2 and dropped in sections:
                # a parameter list valid at no P of this launch (radix = 2..P at P = 1):
                # the section has nothing to run at this P
                sections.remove(dropped)
                sys.stderr.write("a2a simulate: P = %d: section [%s] has no valid "
                                 "configuration at this P\n" % (P, dropped))
                continue
            if rc == 2:
                shutil.rmtree(work, ignore_errors=True)
                raise A2AError("smpirun for P = %d failed on bad input (see above)" % P)
            if rc != 0:
                sys.stderr.write("a2a simulate: P = %d ended with exit status %d\n" % (P, rc))
                worst = max(worst, rc)
            break
    shutil.rmtree(work, ignore_errors=True)
    sys.stderr.write("a2a simulate: %d launches in %s -> %s\n"
                     % (len(launches), fmt_clock(time.time() - t0), args.db))
    if args.tune and not args.dry_run and worst == 0:
        worst = write_tuning_files(args)
    return 1 if worst else 0


def write_tuning_files(args):
    """`scripts/a2a tune` on the newest tuner run of args.db, into args.out (what `a2atune
    tune` does itself under mpirun); its exit status."""
    conn = sqlite3.connect("file:%s?mode=ro" % os.path.abspath(args.db), uri=True)
    row = conn.execute("SELECT max(run_id) FROM results WHERE chosen_by = 'tuner'").fetchone()
    conn.close()
    if not row or row[0] is None:
        sys.stderr.write("a2a simulate: the tuner recorded nothing; no tuning files\n")
        return 1
    cmd = [os.path.join(ROOT, "scripts", "a2a"), "tune", "--db", os.path.abspath(args.db),
           "--run", str(row[0]), "--out", os.path.abspath(args.out)]
    sys.stderr.write("a2a simulate: tuning files: %s\n" % " ".join(shlex.quote(c) for c in cmd))
    return subprocess.call(cmd)


# exit statuses of a launch that recorded its last configuration and ended (a2atune
# --help): what happened, as said when the launch is resumed after it
RESUMED_AFTER = {3: "a configuration hit its time limit (recorded as timeout)",
                 4: "a configuration crashed the simulation (recorded as error, with the "
                    "signal)"}
OUT_OF_RANGE = re.compile(r"is out of range for every P of section \[(.*)\]")
# smpirun's own echo of a non-zero exit (the driver has said why; simulate reports it)
SMPIRUN_ECHO = re.compile(r"SMPI process did not return 0|^Execution failed with code|"
                          r"--cfg=smpi/privatization:no|^results: |^look at them:|"
                          r"^  (scripts/a2a|sqlite3) ")


def _result_rows(path):
    """The number of rows in the results table of the database at path (0 when there is
    none yet): a launch that ends early has recorded something when this grew."""
    if not os.path.exists(path):
        return 0
    try:
        conn = sqlite3.connect("file:%s?mode=ro" % os.path.abspath(path), uri=True)
        try:
            return conn.execute("SELECT count(*) FROM results").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def _launch(args, sweep, work, platform, hostfile, P, selector, sections, vendor_only, opts,
            resume=False):
    """The smpirun command of one launch; writes its copy of the sweep (its sections at
    exactly this P; only the vendor kernel for a further selector). resume: the launch
    goes on after what an earlier launch of the same sweep recorded (--resume)."""
    sweep_path = os.path.join(work, "P%d-%s.ini" % (P, selector))
    # the first line tags the runs of one simulation (figures draw them together)
    where = ", tuned in one launch of %d ranks" if args.tune else " at P = %d"
    text = sweep.job_text(["; a2a simulate %s/%s: %s%s\n" % (args.tag, selector, sweep.shown,
                                                             where % P)],
                          args.tune_P if args.tune else {name: [P] for name in sections})
    with open(sweep_path, "w") as f:
        f.write(text)
    if vendor_only:
        text = vendor_only_text(Sweep(sweep_path), sections)
        with open(sweep_path, "w") as f:
            f.write(text)
    return (["smpirun", "-no-privatize", "-platform", platform, "-hostfile", hostfile,
             "-np", str(P)] + ["--cfg=" + o for o in opts] +
            ["--log=root.thresh:warning", os.path.abspath(args.binary),
             "tune" if args.tune else "run", sweep_path,
             "--db", os.path.abspath(args.db), "--section", ",".join(sections)] +
            # the tuning files are written after the launch, by this process: inside the
            # simulation /proc/self/exe is SMPI's, which hides where scripts/a2a is
            (["--budget", args.tune, "--no-files"] if args.tune else []) +
            (["--resume"] if args.resume or resume else []))


def _descendants(pid):
    """pid and every process below it (from /proc; [] where /proc is not readable)."""
    out, pending = [], [pid]
    while pending:
        p = pending.pop()
        out.append(p)
        try:
            for task in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, task)) as f:
                    pending += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    return out


def _pss_bytes(pid):
    """The proportional set size of pid and its descendants, in bytes: what the
    simulation holds in memory. (RSS counts SMPI's shared payload pages once per rank
    mapping them, many times what is resident.)"""
    total = 0
    for p in _descendants(pid):
        try:
            with open("/proc/%d/smaps_rollup" % p) as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError):
            pass
    return total


class _PeakMemory:
    """Samples the launch's PSS on a thread, every 0.2 s or, where reading it takes long
    (a simulation of thousands of ranks maps much), at intervals 20 times a sample's own
    time, so that sampling never takes more than 5 % of a core; .peak is the largest."""

    def __init__(self, pid):
        import threading
        self.pid, self.peak = pid, 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self):
        interval = 0.2
        while not self.done.wait(interval):
            t0 = time.time()
            self.peak = max(self.peak, _pss_bytes(self.pid))
            interval = max(0.2, 20 * (time.time() - t0))

    def stop(self):
        self.done.set()
        self.thread.join()
        return self.peak


def prior_path(db):
    """Where a2a simulate --tune keeps the prior it searched with: beside the database,
    results/tune.db -> results/tune.prior.tsv."""
    return os.path.splitext(os.path.abspath(db))[0] + ".prior.tsv"


def _with_prior(cmd, env, work, platform, copies, selector, path):
    """The tuned launch cmd with --prior path: its candidates (the same launch with
    --candidates, nothing measured) priced by the model tier on the platform into path
    (`a2a prior --keys`, a process of its own: the model tier sits above this module; the
    vendor rows as SMPI's `selector` where the model tier has that schedule); cmd itself
    when they cannot be priced (said on stderr)."""
    listing = [c for c in cmd if c not in ("--resume", "--no-files")]
    at = listing.index("--budget")
    listing = listing[:at] + listing[at + 2:] + ["--candidates"]
    keys = os.path.join(work, "candidates.txt")
    with open(keys, "w") as out:
        listed = subprocess.run(listing, env=env, cwd=work, stdout=out, stderr=subprocess.DEVNULL)
    pricing = [sys.executable, os.path.join(ROOT, "scripts", "a2a"), "prior", "--keys", keys,
               "--platform", platform, "--out", path, "--copy-model", copies or "none",
               "--vendor", selector]
    priced = subprocess.run(pricing, capture_output=True, text=True) if listed.returncode == 0 else None
    if not priced or priced.returncode != 0:
        why = (priced.stderr.strip().splitlines() or ["?"])[-1] if priced else "no candidates listed"
        sys.stderr.write("a2a simulate: no platform prior (%s); the search starts from the K/D "
                         "model\n" % why)
        return cmd
    sys.stderr.write(priced.stderr.replace("a2a prior:", "a2a simulate: platform prior:"))
    return cmd + ["--prior", path]


def _run_launch(cmd, env, work):
    """Runs one launch, its stderr passed through, and says at its end what it cost
    (wall time, peak PSS); (exit status, the section a 'valid at no P' error names or
    None)."""
    t0 = time.time()
    proc = subprocess.Popen(cmd, env=env, cwd=work, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    memory = _PeakMemory(proc.pid)
    dropped = None
    for line in proc.stdout:
        m = OUT_OF_RANGE.search(line)
        if m:
            dropped = m.group(1)
            continue
        if not SMPIRUN_ECHO.search(line):
            sys.stderr.write(line)
    rc = proc.wait()
    peak = memory.stop()
    sys.stderr.write("a2a simulate: launch of %s ranks: %s wall, peak memory %.2f GiB (PSS, "
                     "sampled every 0.2 s or more)\n" % (cmd[cmd.index("-np") + 1],
                                                 fmt_clock(time.time() - t0), peak / 2.0 ** 30))
    return rc, dropped

