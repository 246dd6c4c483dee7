"""Launch templates: how a2atune's ranks are started, as one line of shell text with
placeholders, e.g. `mpiexec -n {ranks} --ppn {ppn} {cmd}`. `a2a submit --launch` writes a
rendered template into each job script; `scripts/run-sweep.sh --launch` asks
`a2a launch-template` for the rendered line. The named templates are declared here once
(NAMED); a --launch value is a name of NAMED or a template.

A template is shell text: its words are written into the script as they are (quotes,
$VARIABLES and all), after the placeholders are filled in. {cmd} (the a2atune command,
every word shell-quoted) stands as a word of its own, exactly once; so does {mpirun}
where it names a program. `${NAME}` is the shell's, not a placeholder."""
import re
import shlex
import shutil

from ..core.common import A2AError, write_rows

# what each placeholder becomes; `a2a launch-template --help` and docs/clusters.md list them
PLACEHOLDERS = {
    "ranks": "the launch's MPI ranks (nodes x ppn)",
    "ppn": "ranks per node",
    "nodes": "nodes",
    "cmd": "the a2atune command line, every word shell-quoted",
    "mpirun": "the library's mpirun: --mpirun CMD, else mpirun.openmpi or mpirun.mpich "
              "(by --mpi) where on PATH, else mpirun",
    "srun_mpi": "srun's --mpi plugin: --srun-mpi, else pmi2 for MPICH and pmix for Open MPI",
}
LIST_PLACEHOLDERS = ("cmd", "mpirun")          # placeholders that stand for several words

SRUN_PLUGIN = {"mpich": "pmi2", "openmpi": "pmix"}   # measured with Debian 12's Slurm 22.05
MPIRUN = {"mpich": "mpirun.mpich", "openmpi": "mpirun.openmpi"}

_SRUN = "--kill-on-bad-exit=1 --nodes={nodes} --ntasks={ranks} --ntasks-per-node={ppn} {cmd}"
# (name, template, MPI library whose options it uses or None, scheduler it belongs to or
# None, what it is for). srun ends the whole step when a rank exits non-zero, so that no
# rank waits in a collective for one ended by its time limit.
NAMED = (
    ("srun", "srun --mpi={srun_mpi} " + _SRUN, None, "slurm",
     "Slurm's srun with an MPI plugin (the default under Slurm)"),
    ("srun-plain", "srun " + _SRUN, None, "slurm",
     "srun with the cluster's default plugin (Cray Slurm)"),
    ("mpirun-openmpi", "{mpirun} -n {ranks} --map-by ppr:{ppn}:node {cmd}", "openmpi", None,
     "Open MPI's mpirun inside the allocation"),
    ("mpirun-mpich", "{mpirun} -n {ranks} -ppn {ppn} {cmd}", "mpich", None,
     "MPICH's mpirun or mpiexec (Hydra) inside the allocation"),
    ("mpirun-openmpi-pbs",
     '{mpirun} --hostfile "$PBS_NODEFILE" -n {ranks} --map-by ppr:{ppn}:node {cmd}',
     "openmpi", "pbs", "Open MPI's mpirun on the PBS hosts (the default for Open MPI under PBS)"),
    ("mpirun-mpich-pbs", '{mpirun} -f "$PBS_NODEFILE" -n {ranks} -ppn {ppn} {cmd}', "mpich",
     "pbs", "MPICH's mpirun on the PBS hosts (the default for MPICH under PBS)"),
    ("mpiexec-pals", "mpiexec -n {ranks} --ppn {ppn} {cmd}", None, None,
     "Cray PALS mpiexec (HPE Cray EX under PBS Pro, e.g. Polaris)"),
)
LIBRARY = {"openmpi": "Open MPI", "mpich": "MPICH"}
SCHEDULER = {"slurm": "Slurm", "pbs": "PBS"}
_PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ShellText(str):
    """Shell text written into a script as it is, unquoted: a word of a launch template or
    fixed text such as "$@"; never a value such as a path (those are shell-quoted)."""


def shell_words(text):
    """The words of a line of shell text, each as written (quotes kept), split at blanks
    outside quotes. A2AError for an unclosed quote or a trailing backslash."""
    words, cur, quote, i = [], "", None, 0
    while i < len(text):
        c = text[i]
        if quote == "'":
            quote = None if c == "'" else quote
        elif c == "\\":
            if i + 1 == len(text):
                raise A2AError("--launch: the template ends with a backslash")
            cur += c
            i += 1
            c = text[i]
        elif quote == '"':
            quote = None if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c in " \t":
            if cur:
                words.append(cur)
            cur = ""
            i += 1
            continue
        cur += c
        i += 1
    if quote:
        raise A2AError("--launch: the template has an unclosed %s quote" % quote)
    return words + ([cur] if cur else [])


def parse(text):
    """The launch a --launch value names: {'name' (None for a template), 'template',
    'words', 'mpi', 'scheduler', 'uses' (the placeholders it uses)}. Guarantees: every
    placeholder is known, {cmd} is a word of its own exactly once, a list placeholder in a
    word of its own is expanded into words; else A2AError with one line."""
    named = {n[0]: n for n in NAMED}
    name, template, mpi, scheduler = None, text, None, None
    if text in named:
        name, template, mpi, scheduler, _ = named[text]
    elif not _PLACEHOLDER.search(text) and not re.search(r"\s", text.strip()):
        raise A2AError("--launch %s: no such launch template (names: %s; a template holds "
                       "{cmd})" % (_shown(text), ", ".join(named)))
    if re.search(r"[\x00-\x1f\x7f]", template):
        raise A2AError("--launch: a template is one line of shell text without control "
                       "characters")
    uses = _PLACEHOLDER.findall(template)
    unknown = [u for u in uses if u not in PLACEHOLDERS]
    if unknown:
        raise A2AError("--launch: unknown placeholder {%s} (placeholders: %s; ${NAME} is the "
                       "shell's)" % (unknown[0], " ".join("{%s}" % p for p in PLACEHOLDERS)))
    words = shell_words(template)
    if uses.count("cmd") != 1 or words.count("{cmd}") != 1:
        raise A2AError("--launch: the template needs {cmd}, the a2atune command, exactly once "
                       "and as a word of its own: %s" % _shown(template))
    return {"name": name, "template": template, "words": words, "mpi": mpi,
            "scheduler": scheduler, "uses": set(uses)}


def _shown(text):
    """text for a one-line message: control characters as '?'."""
    return re.sub(r"[\x00-\x1f\x7f]", "?", text)


def render(launch, values, lists):
    """(before, after): the words of a parsed launch before and after its {cmd}, the
    placeholders filled in. values: {placeholder: number or safe word}; lists:
    {placeholder: [words]} for {mpirun}. Template words come back as ShellText; a list
    placeholder standing as a word of its own comes back as its words (plain str, for the
    caller to quote); inside a word it becomes its words shell-quoted."""
    def fill(match):
        key = match.group(1)
        if key in lists:
            return " ".join(shlex.quote(str(w)) for w in lists[key])
        return str(values[key])
    out, cut = [], None
    for word in launch["words"]:
        if word == "{cmd}":
            cut = len(out)
        elif word[1:-1] in lists and word == "{%s}" % word[1:-1]:
            out += list(lists[word[1:-1]])
        else:
            out.append(ShellText(_PLACEHOLDER.sub(fill, word)))
    return out[:cut], out[cut:]


def tools(mpi, mpirun, srun_mpi):
    """({mpirun} as words, {srun_mpi}) for the library mpi from the --mpirun and
    --srun-mpi texts (None: the defaults). A2AError for an empty or unsplittable
    --mpirun and for a plugin name that is not a plain word."""
    plugin = srun_mpi or SRUN_PLUGIN[mpi]
    if not re.match(r"^[A-Za-z0-9_]+$", plugin):
        raise A2AError("--srun-mpi '%s': a plugin name such as pmi2 or pmix" % _shown(plugin))
    if mpirun is None:
        return [MPIRUN[mpi] if shutil.which(MPIRUN[mpi]) else "mpirun"], plugin
    try:
        words = shlex.split(mpirun)
    except ValueError as e:
        raise A2AError("--mpirun: %s" % e)
    if not words:
        raise A2AError("--mpirun: an empty command")
    return words, plugin


def check(launch, given_mpi, scheduler=None, mpirun=None, srun_mpi=None):
    """Refuses, with one line, a launch that does not fit: a named template of one MPI
    library with --mpi naming the other (given_mpi: the --mpi given, None if left out),
    a named template of one scheduler under the other (scheduler None: no scheduler), and
    --mpirun or --srun-mpi given for a template without {mpirun} or {srun_mpi}."""
    name = launch["name"]
    if launch["mpi"] and given_mpi and given_mpi != launch["mpi"]:
        raise A2AError("--launch %s: %s's launcher, but --mpi %s (leave --mpi out, or give "
                       "--mpi %s)" % (name, LIBRARY[launch["mpi"]], given_mpi, launch["mpi"]))
    if scheduler and launch["scheduler"] and launch["scheduler"] != scheduler:
        raise A2AError("--launch %s: a %s launcher, but --scheduler %s"
                       % (name, SCHEDULER[launch["scheduler"]], scheduler))
    for option, given, key in (("--mpirun", mpirun, "mpirun"), ("--srun-mpi", srun_mpi,
                                                                "srun_mpi")):
        if given is not None and key not in launch["uses"]:
            raise A2AError("%s: the launch template has no {%s} (%s)"
                           % (option, key, launch["template"]))


def library(launch, given_mpi):
    """The MPI library a launch runs: --mpi as given, else the named template's, else
    Open MPI."""
    return given_mpi or launch["mpi"] or "openmpi"


# ---- a2a launch-template ---------------------------------------------------------------------

def add_parser(sub, common):
    """Registers `a2a launch-template`."""
    p = sub.add_parser(
        "launch-template", help="the launch templates: list them, or render one as a shell line",
        description="Without TEMPLATE: the named launch templates of a2a submit --launch and "
                    "scripts/run-sweep.sh --launch. With a name or a template: the template "
                    "(checked). With --ranks: the template rendered as one line of shell "
                    "text for a launch of that size, {cmd} written as \"$@\" (run-sweep.sh "
                    "evaluates it with the a2atune command as its arguments). Placeholders: "
                    + "; ".join("{%s}: %s" % kv for kv in PLACEHOLDERS.items()) + ".",
        epilog="examples:\n"
               "  a2a launch-template\n"
               "  a2a launch-template mpiexec-pals\n"
               "  a2a launch-template srun --ranks 64 --nodes 2\n"
               "  a2a launch-template 'mpiexec -n {ranks} --ppn {ppn} {cmd}' --ranks 8 --nodes 2",
        formatter_class=common["formatter"])
    p.add_argument("template", nargs="?", metavar="NAME|TEMPLATE",
                   help="a named template or a template of your own")
    p.add_argument("--ranks", type=_count, metavar="N", help="render for N ranks")
    p.add_argument("--nodes", type=_count, default=1, metavar="M",
                   help="... on M nodes (default: %(default)s)")
    p.add_argument("--ppn", type=_count, metavar="Q",
                   help="... Q ranks per node (default: N / M rounded up)")
    p.add_argument("--mpi", choices=tuple(MPIRUN), default=None,
                   help="the MPI library, for {mpirun} and {srun_mpi} (default: the named "
                        "template's, else openmpi)")
    p.add_argument("--mpirun", metavar="CMD", help="{mpirun}, split like a shell does")
    p.add_argument("--srun-mpi", metavar="PLUGIN", help="{srun_mpi}")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="format of the list (default: %(default)s)")
    p.set_defaults(func=run, needs_db=False)
    return p


def _count(text):
    """argparse type: an integer >= 1."""
    if not re.match(r"^[0-9]+$", text) or int(text) < 1:
        import argparse
        raise argparse.ArgumentTypeError("a whole number >= 1 is needed, got '%s'" % text)
    return int(text)


def run(args, db=None):
    """`a2a launch-template`: lists NAMED, prints one template, or renders one (with
    --ranks). Exit 0, or A2AError (exit 2) for a bad template or option."""
    if args.template is None:
        write_rows(("name", "template", "for"), [(n, t, what) for n, t, _, _, what in NAMED],
                   args.format)
        return 0
    launch = parse(args.template)
    mpi = library(launch, args.mpi)
    check(launch, args.mpi, mpirun=args.mpirun, srun_mpi=args.srun_mpi)
    if args.ranks is None:
        print(launch["template"])
        return 0
    ppn = args.ppn or -(-args.ranks // args.nodes)
    mpirun, plugin = tools(mpi, args.mpirun, args.srun_mpi)
    before, after = render(launch, {"ranks": args.ranks, "ppn": ppn, "nodes": args.nodes,
                                    "srun_mpi": plugin}, {"mpirun": mpirun})
    quoted = [w if isinstance(w, ShellText) else shlex.quote(w) for w in before + after]
    print(" ".join(quoted[:len(before)] + ['"$@"'] + quoted[len(before):]))
    return 0
