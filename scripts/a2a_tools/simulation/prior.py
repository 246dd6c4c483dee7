"""`a2a prior`: the platform's prior of `a2atune tune --prior FILE`.

The model tier (model_run: a2atrace's schedule of each kernel, priced on a SimGrid platform
file) predicts the time of every configuration the search chooses from (`a2atune tune SWEEP
--candidates`, at the launch's size or a replayed database's), and writes one line per
configuration it prices: the configuration's key, a tab, its predicted seconds. The first
lines are comments: what made the file, and "# platform: NAME sha256=..." (which
a2atune records with the run). Configurations the model tier does not price (a kernel
a2atrace does not run, the library's own choice of a non-uniform exchange) get no line: the
search keeps the K/D model for them. The file is made before the launch; a2atune never
runs Python (the data flows one way: sweep, configurations, runner, database, scripts)."""
import hashlib
import os
import subprocess
import sys

from ..core.common import A2AError
from . import model_run
from .platform_model import Platform

ROOT = model_run.ROOT


def parse_key(key):
    """(family, kernel, P, Q, S, dist, seed, params) of an a2atune configuration key
    ('uniform|SECTION|tra|P=24|Q=24|S=16|dist=constant()|...|seed=1|radix=2'); A2AError
    for a key of another shape."""
    fields = key.split("|")
    if len(fields) < 4:
        raise A2AError("%s: not an a2atune configuration key" % key)
    family, kernel = fields[0], fields[2]
    named = {}
    for f in fields[3:]:
        name, eq, value = f.partition("=")
        if eq:
            named[name] = value
    try:
        P, Q, S = int(named["P"]), int(named.get("Q", named["P"])), int(named["S"])
        seed = int(named.get("seed", "1"))
    except (KeyError, ValueError):
        raise A2AError("%s: not an a2atune configuration key (P, Q, S)" % key)
    dist = named.get("dist", "constant()").partition("(")[0]
    known = ("P", "Q", "S", "dist", "payload", "type", "gap", "it", "wu", "seed")
    params = {}
    for name, value in named.items():
        if name not in known:
            try:
                params[name] = int(value)
            except ValueError:
                params[name] = value
    return family, kernel, P, Q, S, dist, seed, params


def model_schedule(family, kernel, params, vendor=None):
    """(the a2atrace kernel, its parameters) that prices this configuration, None when the
    model tier has none: the kernel itself, or for the library's own choice of a uniform
    exchange (vendor, vendor_algorithm 0) the schedule `vendor` names (VENDOR_SCHEDULES:
    'ring', SMPI's under a2a simulate; another name or None: not known, not priced)."""
    if kernel == "vendor":
        if vendor in model_run.VENDOR_SCHEDULES and family == "uniform" and not params.get("vendor_algorithm"):
            return model_run.VENDOR_SCHEDULES[vendor], {}
        return None
    if kernel not in model_run.KERNEL_PARAMS or (kernel in model_run.NONUNIFORM) != (family == "nonuniform"):
        return None
    return kernel, {k: v for k, v in params.items() if k in model_run.KERNEL_PARAMS[kernel]}


def candidate_keys(binary, sweep, replay=None, section=None):
    """The keys `a2atune tune SWEEP --candidates` prints (at replay's launch size)."""
    cmd = [binary, "tune", sweep, "--candidates"] + (["--replay", replay] if replay else []) + (
        ["--section", section] if section else [])
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, OMPI_MCA_ess_singleton_isolated="1"))
    if out.returncode != 0:
        raise A2AError("%s: %s" % (" ".join(cmd[:4]), (out.stderr.strip().splitlines() or
                                                      ["exit %d" % out.returncode])[-1]))
    return out.stdout.split()


def predict(keys, platform_path, copy_model="", vendor=None, err=None):
    """{key: predicted seconds} of the keys the model tier prices on the platform file (each
    on nodes of its own Q ranks; where Q does not divide P, on nodes of P / ceil(P / Q)
    ranks: a2atrace traces whole nodes), and the number it does not price."""
    platform = Platform(platform_path)
    threshold = model_run.cpu_threshold(platform_path)
    models, out, unpriced = {}, {}, 0
    for key in keys:
        family, kernel, P, Q, S, dist, seed, params = parse_key(key)
        schedule = model_schedule(family, kernel, params, vendor)
        if schedule is None or model_run._valid(schedule[0], P, schedule[1], platform.cores):
            unpriced += 1
            continue
        name, given = schedule
        if name in model_run.NONUNIFORM:
            given = dict(given, dist=dist, seed=seed)
        nodes = -(-P // Q)
        Q = P // nodes if P % nodes == 0 else Q
        if Q > platform.cores or P > platform.nodes * platform.cores:
            raise A2AError("%s: P = %d at %d ranks a node does not fit on %s (%d nodes of %d "
                           "cores)" % (key, P, Q, platform_path, platform.nodes, platform.cores))
        model = models.setdefault(Q, model_run.CostModel(platform, Q))
        traced, why = model_run.trace(name, P, S, model.node_size(P), given, copy_model, threshold)
        if not traced:
            unpriced += 1
            if err:
                err.write("a2a prior: %s: not priced: %s\n" % (key, why))
            continue
        out[key] = model.seconds(traced, P)[0]
    return out, unpriced


def platform_line(platform_path):
    """'NAME sha256=HEX': the platform a prior file is of."""
    with open(platform_path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return "%s sha256=%s" % (os.path.basename(platform_path), digest)


def write_prior(path, predicted, platform_path, made_by):
    """Writes the prior file (the format of harness/tuner/tuner_prior.h), whole or not at all."""
    with open(path + ".part", "w") as f:
        f.write("# a2atune prior: predicted seconds per configuration, by the model tier\n")
        f.write("# made by: %s\n" % made_by)
        f.write("# platform: %s\n" % platform_line(platform_path))
        for key in sorted(predicted):
            f.write("%s\t%.9g\n" % (key, predicted[key]))
    os.replace(path + ".part", path)


def read_keys(path):
    """The configuration keys a launch's `a2atune tune ... --candidates` wrote into path (the
    launcher's own lines, which hold spaces or no field separators, left out)."""
    try:
        with open(path) as f:
            return [line.strip() for line in f
                    if line.count("|") >= 3 and " " not in line.strip()]
    except OSError as e:
        raise A2AError("--keys %s: %s" % (path, e.strerror))


def make_prior(binary, sweep, platform_path, out, replay=None, section=None, copy_model="",
               vendor=None, made_by="", err=sys.stderr, keys=None):
    """Writes the prior file of SWEEP's candidates (or of keys, when given) on the platform
    into out (the library's own choice priced as `vendor`'s schedule, or not); returns
    (priced, not priced)."""
    if keys is None:
        keys = candidate_keys(binary, sweep, replay, section)
    predicted, unpriced = predict(keys, platform_path, copy_model, vendor, err)
    if not predicted:
        raise A2AError("%s: the model tier prices none of the %d configurations on %s"
                       % (sweep or "--keys", len(keys), platform_path))
    write_prior(out, predicted, platform_path, made_by or " ".join(sys.argv))
    return len(predicted), unpriced


def add_parser(sub, common):
    """Registers `a2a prior`."""
    p = sub.add_parser(
        "prior", formatter_class=common["formatter"],
        help="the platform's prior for a2atune tune --prior: each configuration priced by "
             "the model tier",
        description="Prices every configuration a2atune tune SWEEP chooses from with the model "
                    "tier on the platform file (as a2a model-run does) and writes the prior "
                    "file of a2atune tune --prior: a configuration key, a tab and its "
                    "predicted seconds a line (docs/tuner.md).",
        epilog="example:  a2a prior sweeps/tuner_sim64.ini --platform platforms/dragonfly.xml "
               "--out results/prior.tsv")
    p.add_argument("sweep", metavar="SWEEP", nargs="?",
                   help="the sweep (its candidates: a2atune tune SWEEP --candidates)")
    p.add_argument("--keys", metavar="FILE",
                   help="instead of SWEEP: the candidates a launch listed (a2atune tune ... "
                        "--candidates under the job's launcher: a2a submit --platform)")
    p.add_argument("--platform", required=True, help="SimGrid platform file (a2a platform writes "
                                                     "one for a cluster)")
    p.add_argument("--out", required=True, help="the prior file to write")
    p.add_argument("--replay", metavar="DB", help="the configurations at this database's "
                   "launch size (as a2atune tune --replay DB)")
    p.add_argument("--section", help="only these sections (comma-separated)")
    p.add_argument("--copy-model", default="none", metavar="MODEL|DB|none",
                   help="the copy-cost model of a2a simulate (default: %(default)s)")
    p.add_argument("--vendor", metavar="NAME",
                   help="the MPI library's own choice runs this SMPI algorithm (a2a simulate's "
                        "--vendor): priced where the model tier has its schedule (%s); "
                        "default: not known, left to the K/D model"
                        % ", ".join(sorted(model_run.VENDOR_SCHEDULES)))
    p.add_argument("--binary", default=os.path.join(ROOT, "a2atune"), help="a2atune")
    p.set_defaults(func=run, needs_db=False)
    return p


def run(args, db):
    """`a2a prior`: exit 0."""
    del db
    from .simulate import copy_model
    if (args.sweep is None) == (args.keys is None):
        raise A2AError("give a sweep or --keys FILE (one of them)")
    priced, unpriced = make_prior(args.binary, args.sweep, args.platform, args.out, args.replay,
                                  args.section, copy_model(args.copy_model), args.vendor,
                                  keys=read_keys(args.keys) if args.keys else None)
    sys.stderr.write("a2a prior: %d configurations priced on %s (%d left to the K/D model) -> "
                     "%s\n" % (priced, args.platform, unpriced, args.out))
    return 0
