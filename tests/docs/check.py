"""tests/parts/docs.sh: do the README and the guides point at what exists?

usage: check.py FILE.md...
- every relative link and image ([text](path#anchor)) resolves to a file, and its anchor,
  if any, to a heading of that file;
- every command shown in code (fenced blocks and `inline code`) is one that the --help of
  its tool lists: `a2atune SUB` (./a2atune --help), `a2a SUB` / `scripts/a2a SUB`
  (scripts/a2a --help), `make TARGET` (make help; build/... file targets too), and
  `tests/run.sh PART` (the parts tests/run.sh knows).
The tools are asked from the repository this script lies in. Prints one line per problem
(file:line: ...) and, last, "files: N, links: L, commands: C, problems: M"; exit 1 if M > 0."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = "/usr/bin/python3"


def help_text(cmd):
    """The stdout and stderr of a tool's help, run from the repository's root."""
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    return done.stdout


def known_words():
    """{tool: set of the subcommands, targets or parts its help lists}."""
    a2atune = set(re.findall(r"\ba2atune (\w[\w-]*)", help_text(["./a2atune", "--help"])))
    a2a_help = help_text([PYTHON, "scripts/a2a", "--help"])
    a2a = set(re.findall(r"^    ([a-z][\w-]*)", a2a_help, re.M))
    make = set(re.findall(r"^  ([a-z][\w-]*) ", help_text(["make", "-s", "--no-print-directory", "help"]), re.M))
    with open(os.path.join(ROOT, "tests", "run.sh"), encoding="utf-8") as f:
        parts = set(re.findall(r"\bwant ([a-z]+)", f.read()))
    parts |= {name[:-3] for name in os.listdir(os.path.join(ROOT, "tests", "parts"))
              if name.endswith(".sh")}
    return {"a2atune": a2atune, "a2a": a2a, "make": make, "tests/run.sh": parts}


def slug(heading):
    """The anchor a Markdown renderer (GitHub's rule) gives a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            cache[path] = {slug(m) for m in re.findall(r"^#+ (.*)$", f.read(), re.M)}
    return cache[path]


def code_lines(text):
    """(line number, code) of every command line of a ```sh block (without its # comment)
    and every inline code span; other fenced blocks show output, not commands."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = line.strip()[3:] if fence is None else None
            continue
        if fence == "sh":
            yield n, re.sub(r"(^|\s)#.*", "", line)
        elif fence is None:
            for span in re.findall(r"`([^`]+)`", line):
                yield n, span


COMMANDS = [
    ("a2atune", re.compile(r"(?:^|[\s/])a2atune +([a-z][\w-]*)")),
    ("a2a", re.compile(r"(?:^|[\s(])(?:scripts/)?a2a +([a-z][\w-]*)")),
    ("tests/run.sh", re.compile(r"(?:^|\s)tests/run\.sh((?: +[a-z]+)+)")),
]
LISTED_BY = {"a2atune": "./a2atune --help", "a2a": "scripts/a2a --help",
             "tests/run.sh": "tests/run.sh (its parts)"}
MAKE = re.compile(r"(?:^|[\s;&|(])make((?: +[^\s#;&|]+)*)")


def make_targets(args):
    """The targets of one make command line: words that are no option or assignment
    (-j2, -C DIR, MPI=mpich)."""
    words, out, skip = args.split(), [], False
    for w in words:
        if skip:
            skip = False
        elif w in ("-C", "-f"):
            skip = True
        elif not w.startswith("-") and "=" not in w:
            out.append(w)
    return out


def check(paths):
    known = known_words()
    problems, links, commands = [], 0, 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        here = os.path.dirname(os.path.abspath(path))
        # links (outside code): [text](target) and ![alt](target)
        prose = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        for n, line in enumerate(prose.splitlines(), 1):
            for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
                if re.match(r"[a-z]+:", target):
                    continue               # http:, https:, mailto:
                links += 1
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(here, file_part)) if file_part else \
                    os.path.abspath(path)
                if not os.path.exists(dest):
                    problems.append("%s:%d: link %s: no such file" % (path, n, target))
                elif anchor and (not dest.endswith(".md") or anchor not in anchors(dest)):
                    problems.append("%s:%d: link %s: no heading #%s in %s"
                                    % (path, n, target, anchor, file_part or path))
        for n, code in code_lines(text):
            for tool, pattern in COMMANDS:
                for m in pattern.finditer(code):
                    words = m.group(1).split() if tool == "tests/run.sh" else [m.group(1)]
                    for word in words:
                        commands += 1
                        if word not in known[tool]:
                            problems.append("%s:%d: `%s %s`: %s lists no %s"
                                            % (path, n, tool, word, LISTED_BY[tool], word))
            for m in MAKE.finditer(code):
                for target in make_targets(m.group(1)):
                    commands += 1
                    if target not in known["make"] and not target.startswith("build/"):
                        problems.append("%s:%d: `make %s`: make help lists no %s"
                                        % (path, n, target, target))
    for p in problems:
        print(p)
    print("files: %d, links: %d, commands: %d, problems: %d"
          % (len(paths), links, commands, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1:]))
