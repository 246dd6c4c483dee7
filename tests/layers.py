#!/usr/bin/python3
"""layers.py — the layer checker: which folder's C files may include which, and which
subpackage of the Python tools may import which (stdlib only).

    tests/layers.py [ROOT] [--exception FROM TO]... [--objects DIR]
      ROOT: the tree to check, default the repository; --exception: accept the breach
      FROM -> TO (fnmatch patterns) as if EXCEPTIONS listed it (the tests try the stale
      check with it); --objects: also check the symbols of the objects built under DIR
      (DIR/<folder>/<name>.o is the object of ROOT/<folder>/<name>.c, e.g. build/openmpi)

Every `#include "..."` of every .c/.h file under ROOT (build/ and dot-folders skipped) is
resolved as the compiler does: the including file's own folder first, then the -I folders
of ROOT/Makefile's CPPFLAGS in order; an include that resolves nowhere is a breach. Files
map to their folders, folders to the layers of LAYERS, and every include must go to the
own folder or to a lower layer; RULES and cycles between files add further breaches, each
printed as `file:line: breach: <from> -> <to> (<rule>)`. Last line: `N breaches, M folder
arrows` (arrows: distinct pairs of different folders with an include between them).
With --objects, the arrows declarations hide are checked too: `nm` lists each object's
defined and undefined symbols, and an object that uses a symbol which only objects of
folders above its own (or of another folder of its own layer) define is a breach
`object: breach: <from.c> -> <to.c> (symbol NAME: <rule>)`, exceptions applying as to
includes. The MPI standard's names (MPI_*, PMPI_*) are the MPI library's: an object that
defines one (preload/preload.c) interposes it, which is no arrow.
The Python tools (scripts/a2a_tools) are checked the same way: every import of a module
of the package, at any depth (imports inside functions included), relative or absolute
(`a2a_tools.`), is resolved to the module file it loads (a name that is no module of the
package it is imported from: that package's __init__.py); a module may import from its own
subpackage or a lower layer of PY_LAYERS, an import that resolves to no file is a breach
(unresolved import), and so is every import cycle between modules (`import cycle`).

Exit status 1 if there is a breach (an EXCEPTIONS entry that matches nothing any more
counts as one), 2 for a missing Makefile or a malformed command line, else 0.
"""
import ast
import fnmatch
import os
import re
import subprocess
import sys

# The layers, lowest first. A file may include from its own folder or any lower layer;
# folders of one layer (the kernel families, the test folders) may not include each other.
LAYERS = [
    ["include"],                         # the public API and the registry's table type
    ["kernels/common"],                  # what every kernel shares
    ["kernels/uniform", "kernels/nonuniform", "kernels/inplace", "kernels/sdde",
     "kernels/hint"],                    # the kernel families
    ["kernels"],                         # registry.c: the one table of kernels
    ["kernels/tuned"],                   # the dispatcher, over the registry
    ["preload"],                         # liba2a_preload.so, over the dispatcher
    ["workloads"],                       # block sizes and payloads of the harness
    ["apps"],                            # application workloads
    # a2atune, its folders as its data flows: sweep files -> configurations -> runner ->
    # database; db/ sits below run/ because the runner writes rows, and measure/ below
    # them all because a sweep names counters and a database row holds statistics
    ["harness/measure"],                 # statistics, hardware counters, polite waiting
    ["harness/sweep"],                   # sweep files and their expansion into configurations
    ["harness/db"],                      # the database and the provenance of a launch
    ["harness/run", "harness/tuner"],    # running configurations; the tuner's search
    ["harness/commands", "model"],       # a2atune's commands; a2atrace, the model tier's tracer
    ["tests", "tests/preload", "bench"],  # everything may be tested or benchmarked
]

# The Python tools' subpackages (scripts/a2a_tools), lowest first, as for LAYERS: core is
# what every stage shares; the database and cluster stages use only it; figures and the
# simulation tier also merge/summarise databases; the tuner draws with figures' style, the
# papers draw figures of simulated and modelled data; cli.py, at the top, registers every
# subcommand.
PY_PACKAGE = "scripts/a2a_tools"
PY_LAYERS = [
    [PY_PACKAGE + "/core"],
    [PY_PACKAGE + "/database", PY_PACKAGE + "/cluster"],
    [PY_PACKAGE + "/figures", PY_PACKAGE + "/simulation"],
    [PY_PACKAGE + "/tuner", PY_PACKAGE + "/papers"],
    [PY_PACKAGE],
]

# Rules beyond the order: (files it applies to, what they may not include, files exempt
# from it, why); all fnmatch patterns of paths relative to the root.
RULES = [
    ("kernels/*", "include/a2a_registry.h", ["kernels/registry.c", "kernels/tuned/*"],
     "kernels see the registry only from kernels/registry.c and kernels/tuned/"),
    # the harness reaches the application distributions (dist = graph | fft) only through
    # workloads/dist_provider.h; the app command (`a2atune app`) runs the application
    # libraries: the closure (tc.h, graph.h), the FFT (fft.h) and the graph count cache it
    # records into (graph_counts.h)
    # and the sweep reader installs the application provider of distributions (app_dist.h)
    ("harness/*", "apps/*", ["harness/commands/app_command.c", "harness/sweep/sweep.c"],
     "the harness uses apps/ only through the app command (harness/commands/app_command.c) "
     "and the sweep reader (harness/sweep/sweep.c)"),
    ("harness/*", "apps/tuple_set.h", [],
     "the harness uses the application libraries' headers, not their internals"),
]

# Breaches accepted for now, each with its reason: (from file, to file; both fnmatch
# patterns). Keep this list short: every entry is a known debt.
EXCEPTIONS = [
]

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
MPI_NAME = re.compile(r"^P?MPIX?_")


def folder(path):
    """The folder of a relative path ('' for the root)."""
    return os.path.dirname(path)


def layer_of(fold, layers=LAYERS):
    """The index of the layer of `layers` holding folder `fold`, or None."""
    for i, layer in enumerate(layers):
        if fold in layer:
            return i
    return None


def include_dirs(root):
    """The -I folders of ROOT/Makefile's CPPFLAGS, in order (None without a Makefile)."""
    try:
        with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    dirs = []
    for line in text.splitlines():
        if re.match(r"^\s*CPPFLAGS\s*[+:?]?=", line):
            dirs += [d for d in re.findall(r"(?:^|\s)-I(\S+)", line) if d not in dirs]
    return dirs


def sources(root):
    """Every .c/.h file under root, relative, sorted (build/ and dot-folders skipped)."""
    out = []
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and
                   not (top == root and d == "build")]
        out += [os.path.relpath(os.path.join(top, f), root) for f in files
                if f.endswith((".c", ".h"))]
    return sorted(out)


def includes(root, path, dirs):
    """(line, name, resolved relative path or None) for each quoted include of path."""
    out = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = None
            for d in [folder(path)] + dirs:
                cand = os.path.normpath(os.path.join(d, m.group(1)))
                if not cand.startswith("..") and os.path.isfile(os.path.join(root, cand)):
                    target = cand
                    break
            out.append((n, m.group(1), target))
    return out


def matches(path, pattern):
    """True if path matches the fnmatch pattern."""
    return fnmatch.fnmatchcase(path, pattern)


def layer_rule(src, dst, layers=LAYERS, verb="include"):
    """Why the include (or import: verb) src -> dst breaks the order of `layers`, or None."""
    a, b = folder(src), folder(dst)
    if a == b:
        return None
    la, lb = layer_of(a, layers), layer_of(b, layers)
    if la is None or lb is None:
        return "folder %s not in the layer table" % (a if la is None else b)
    if lb == la:
        return "%s and %s are one layer: they may not %s each other" % (a, b, verb)
    if lb > la:
        return "%s is above %s" % (b, a)
    return None


def extra_rules(src, dst):
    """The `why` of every RULES entry the include src -> dst breaks."""
    return [why for frm, to, exempt, why in RULES
            if matches(src, frm) and matches(dst, to) and not any(matches(src, e) for e in exempt)]


def cycles(graph):
    """(src, line, dst, cycle text) for every back edge of a depth-first walk of graph
    ({file: [(line, file)]}, in sorted order): together they break every include cycle."""
    state, stack, found = {}, [], []

    def visit(node):
        """Walks everything reachable from node not walked yet."""
        state[node] = 1
        stack.append(node)
        for line, nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                loop = stack[stack.index(nxt):] + [nxt]
                found.append((node, line, nxt, " -> ".join(loop)))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def python_sources(root):
    """Every .py file of the Python tools' package under root, relative, sorted."""
    out = []
    for top, dirs, files in os.walk(os.path.join(root, PY_PACKAGE)):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        out += [os.path.relpath(os.path.join(top, f), root) for f in files if f.endswith(".py")]
    return sorted(out)


def python_target(root, base, dotted, names):
    """The files that `from <base>.<dotted> import <names>` loads, base a folder relative
    to root: each name that is a module of the package, else the package's __init__.py (or
    the module <dotted> itself); [] when <dotted> is no module or package under base."""
    path = os.path.normpath(os.path.join(base, *dotted.split("."))) if dotted else base
    if os.path.isfile(os.path.join(root, path + ".py")):
        return [path + ".py"]
    init = os.path.join(path, "__init__.py")
    if not os.path.isfile(os.path.join(root, init)):
        return []
    out = []
    for name in names:
        mod = os.path.join(path, name + ".py")
        target = mod if os.path.isfile(os.path.join(root, mod)) else init
        if target not in out:
            out.append(target)
    return out


def python_imports(root, path):
    """(line, what, [files]) for each import of path (a module of PY_PACKAGE) that names a
    module of the package, wherever it stands (in a function too): what it says, and the
    files it loads (empty: unresolved)."""
    with open(os.path.join(root, path), encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    top = os.path.dirname(PY_PACKAGE)          # where the package's own name resolves
    name = os.path.basename(PY_PACKAGE)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            base = folder(path)
            for _ in range(node.level - 1):
                base = folder(base)
            names = [a.name for a in node.names]
            out.append((node.lineno, "%s%s" % ("." * node.level, node.module or ""),
                        python_target(root, base, node.module or "", names)))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == name:
            out.append((node.lineno, node.module,
                        python_target(root, top, node.module, [a.name for a in node.names])))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == name:
                    out.append((node.lineno, alias.name,
                                python_target(root, top, alias.name, [])))
    return sorted(out)


def object_symbols(objdir, root):
    """{source path: (defined symbols, undefined symbols)} for every .o under objdir whose
    source (same relative path, .c) exists under root; None when nm fails."""
    out = {}
    for top, _, files in os.walk(objdir):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            obj = os.path.join(top, f)
            src = os.path.relpath(obj, objdir)[:-2] + ".c"
            if not os.path.isfile(os.path.join(root, src)):
                continue
            try:
                text = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                                      check=True).stdout
            except (OSError, subprocess.CalledProcessError):
                return None
            defined, undefined = set(), set()
            for line in text.splitlines():
                parts = line.split()
                if len(parts) < 2:
                    continue
                if parts[1] in ("U", "w", "v"):
                    undefined.add(parts[0])
                else:
                    defined.add(parts[0])
            out[src] = (defined, undefined)
    return out


def symbol_breaches(symbols):
    """(src, dst, symbol, rule) for each symbol src uses that no object of its own folder
    or of a lower layer defines, but an object dst of another folder does."""
    definers = {}
    for src, (defined, _) in symbols.items():
        for name in defined:
            definers.setdefault(name, []).append(src)
    found = []
    for src in sorted(symbols):
        for name in sorted(symbols[src][1]):
            where = definers.get(name, [])
            if MPI_NAME.match(name) or not where or \
                    any(layer_rule(src, d) is None for d in where):
                continue
            dst = sorted(where)[0]
            found.append((src, dst, name, layer_rule(src, dst)))
    return found


def parse_args(argv):
    """(root, extra exceptions, object folder or None) from the command line, or None
    when it is malformed."""
    root, extra, objdir, args = None, [], None, argv[1:]
    while args:
        if args[0] == "--exception" and len(args) >= 3:
            extra.append((args[1], args[2], "given on the command line"))
            args = args[3:]
        elif args[0] == "--objects" and len(args) >= 2 and objdir is None:
            objdir, args = os.path.abspath(args[1]), args[2:]
        elif not args[0].startswith("--") and root is None:
            root, args = args[0], args[1:]
        else:
            return None
    if root is None:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    return os.path.abspath(root), extra, objdir


def main(argv):
    parsed = parse_args(argv)
    if parsed is None:
        print("usage: layers.py [ROOT] [--exception FROM TO]... [--objects DIR]",
              file=sys.stderr)
        return 2
    root, extra, objdir = parsed
    exceptions = EXCEPTIONS + extra
    dirs = include_dirs(root)
    if dirs is None:
        print("layers.py: no Makefile in %s" % root, file=sys.stderr)
        return 2
    breaches, arrows, graph, used = [], set(), {}, set()

    def breach(src, line, frm, to, why):
        """Records the breach unless an EXCEPTIONS entry covers it (marked as used)."""
        for i, (e_src, e_dst, _) in enumerate(exceptions):
            if matches(src, e_src) and matches(to, e_dst):
                used.add(i)
                return
        breaches.append("%s:%d: breach: %s -> %s (%s)" % (src, line, frm, to, why))

    for src in sources(root):
        for line, name, dst in includes(root, src, dirs):
            if dst is None:
                breaches.append('%s:%d: breach: %s -> "%s" (unresolved include)'
                                % (src, line, src, name))
                continue
            graph.setdefault(src, []).append((line, dst))
            if folder(src) != folder(dst):
                arrows.add((folder(src), folder(dst)))
            why = layer_rule(src, dst)
            if why:
                breach(src, line, src, dst, why)
            for why in extra_rules(src, dst):
                breach(src, line, src, dst, why)
    if objdir is not None:
        symbols = object_symbols(objdir, root)
        if not symbols:
            print("layers.py: no objects of %s under %s (or nm failed)" % (root, objdir),
                  file=sys.stderr)
            return 2
        for src, dst, name, why in symbol_breaches(symbols):
            obj = os.path.relpath(os.path.join(objdir, src[:-2] + ".o"))
            for i, (e_src, e_dst, _) in enumerate(exceptions):
                if matches(src, e_src) and matches(dst, e_dst):
                    used.add(i)
                    break
            else:
                breaches.append("%s: breach: %s -> %s (symbol %s: %s)"
                                % (obj, src, dst, name, why))
    for src, line, dst, loop in cycles(graph):
        breaches.append("%s:%d: breach: %s -> %s (include cycle: %s)" % (src, line, src, dst,
                                                                          loop))
    py_graph = {}
    for src in python_sources(root):
        for line, what, targets in python_imports(root, src):
            if not targets:
                breaches.append('%s:%d: breach: %s -> "%s" (unresolved import)'
                                % (src, line, src, what))
            for dst in targets:
                py_graph.setdefault(src, []).append((line, dst))
                if folder(src) != folder(dst):
                    arrows.add((folder(src), folder(dst)))
                why = layer_rule(src, dst, PY_LAYERS, "import")
                if why:
                    breach(src, line, src, dst, why)
    for src, line, dst, loop in cycles(py_graph):
        breaches.append("%s:%d: breach: %s -> %s (import cycle: %s)" % (src, line, src, dst,
                                                                         loop))
    graph.update(py_graph)
    for i, (e_src, e_dst, why) in enumerate(exceptions):
        if i not in used and any(matches(f, e_src) for f in graph):
            breaches.append("tests/layers.py:1: breach: %s -> %s (stale exception: %s)"
                            % (e_src, e_dst, why))
    for b in breaches:
        print(b)
    print("%d breaches, %d folder arrows" % (len(breaches), len(arrows)))
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
