"""tests/parts/docs.sh: do the maps of the code say what the tree holds?

usage: maps.py [ROOT]
- the README's "## Layout" block names exactly the top-level folders git tracks (a line
  `folder/` at the start of a line of its code block);
- docs/development.md's "## Layout" block names exactly the top-level folders and every
  folder below kernels/, harness/ and scripts/ that holds a tracked file (indented under its
  parent, two spaces a level);
- docs/development.md's table of test parts names exactly the parts tests/run.sh runs:
  its own sections (`want NAME`) and tests/parts/NAME.sh;
- a paragraph (or list item) of the README or a guide (docs/*.md) that links to a page of
  docs/results/ quotes no figure (a percentage, a ×factor, a decimal time, rate or factor with its unit) that
  the page does not hold.
Prints one line per problem (file:line: ...) and, last, "maps: N, problems: M"; exit 1 if
M > 0. ROOT defaults to the repository this script lies in."""
import os
import re
import subprocess
import sys

DEEP = ("kernels", "harness", "scripts")


def tracked_folders(root):
    """Every folder of the tree that holds a tracked file (or, outside git, any file)."""
    try:
        files = subprocess.run(["git", "ls-files"], cwd=root, check=True, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, universal_newlines=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), root)
                 for d, _, names in os.walk(root) for f in names]
    folders = set()
    for path in files:
        if not os.path.exists(os.path.join(root, path)):
            continue
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folders.add("/".join(parts[:i]))
    return {f for f in folders if not any(p.startswith(".") or p == "__pycache__"
                                          for p in f.split("/"))}


def section_block(text, heading):
    """(first line number, lines) of the first fenced block under the heading `heading`."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip() == heading), None)
    if start is None:
        return None, []
    i = start + 1
    while i < len(lines) and not lines[i].startswith("```"):
        if lines[i].startswith("## "):
            return None, []
        i += 1
    body = []
    j = i + 1
    while j < len(lines) and not lines[j].startswith("```"):
        body.append(lines[j])
        j += 1
    return i + 2, body


def mapped_folders(first, lines):
    """{folder path: line number} of a layout block: `name/` at the start of a line (after
    its indentation, two spaces a level) names a folder below the one above it."""
    stack, found = [], {}
    for n, line in enumerate(lines, first):
        m = re.match(r"^( *)([\w.-]+)/(\s|$)", line)
        if not m:
            continue
        level = len(m.group(1)) // 2
        stack = stack[:level] + [m.group(2)]
        found["/".join(stack)] = n
    return found


def compare(problems, path, first, mapped, wanted, what):
    for folder in sorted(set(wanted) - set(mapped)):
        problems.append("%s:%d: the layout map leaves out %s/ (%s)" % (path, first, folder, what))
    for folder in sorted(set(mapped) - set(wanted)):
        problems.append("%s:%d: the layout map names %s/, which the tree does not hold"
                        % (path, mapped[folder], folder))


def check_layouts(root, problems):
    folders = tracked_folders(root)
    top = {f for f in folders if "/" not in f}
    deep = top | {f for f in folders if f.split("/")[0] in DEEP}
    maps = 0
    for name, wanted, what in (("README.md", top, "a top-level folder"),
                               ("docs/development.md", deep,
                                "a folder at the top or below kernels/, harness/, scripts/")):
        with open(os.path.join(root, name), encoding="utf-8") as f:
            first, lines = section_block(f.read(), "## Layout")
        if first is None:
            problems.append("%s:1: no code block under a heading '## Layout'" % name)
            continue
        maps += 1
        mapped = mapped_folders(first, lines)
        if name == "README.md":
            mapped = {k: v for k, v in mapped.items() if "/" not in k}
        compare(problems, name, first, mapped, wanted, what)
    return maps


def check_parts(root, problems):
    """The table of parts in docs/development.md (rows "| `NAME` | ... |") against
    tests/run.sh's own sections and tests/parts/*.sh."""
    with open(os.path.join(root, "tests", "run.sh"), encoding="utf-8") as f:
        parts = set(re.findall(r"^(?:if )?want ([a-z0-9]+)", f.read(), re.M))
    parts |= {n[:-3] for n in os.listdir(os.path.join(root, "tests", "parts")) if n.endswith(".sh")}
    path = os.path.join(root, "docs", "development.md")
    rows = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"^\| `([a-z0-9]+)` \|", line)
            if m:
                rows[m.group(1)] = n
    for part in sorted(parts - set(rows)):
        problems.append("docs/development.md:1: the table of test parts leaves out `%s`" % part)
    for part in sorted(set(rows) - parts):
        problems.append("docs/development.md:%d: the table of test parts names `%s`, which "
                        "tests/run.sh does not run" % (rows[part], part))


FIGURE = re.compile(r"(?:×\s?\d+(?:\.\d+)?|\d+(?:\.\d+)?\s?%|\d+\.\d+\s?(?:×|x\b|ms\b|µs\b|us\b|ns\b|s\b|GB/s\b|MB/s\b))")


def normal(figure):
    return re.sub(r"\s", "", figure)


def check_quotes(root, problems):
    """A paragraph that links to docs/results/PAGE quotes only figures PAGE holds."""
    guides = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(root, "docs"))
                                    if n.endswith(".md"))
    for guide in guides:
        with open(os.path.join(root, guide), encoding="utf-8") as f:
            lines = f.read().splitlines()
        here = os.path.dirname(guide)
        paragraph, start, fence = [], 1, False
        for n, line in enumerate(lines + [""], 1):
            if line.startswith("```"):
                fence = not fence
            item = re.match(r"^\s*(?:[-*]|\d+\.) ", line)
            if line.strip() and not fence and not (item and paragraph):
                if not paragraph:
                    start = n
                paragraph.append(line)
                continue
            text, first = " ".join(paragraph), start
            paragraph = [line] if item and line.strip() and not fence else []
            start = n
            pages = {os.path.normpath(os.path.join(here, m.split("#")[0]))
                     for m in re.findall(r"\]\(([^)\s]+\.md)(?:#[^)]*)?\)", text)}
            pages = {p for p in pages if p.startswith("docs/results/")
                     and os.path.exists(os.path.join(root, p))}
            if not pages:
                continue
            held = set()
            for page in pages:
                with open(os.path.join(root, page), encoding="utf-8") as f:
                    held |= {normal(x) for x in FIGURE.findall(f.read())}
            for figure in FIGURE.findall(re.sub(r"\]\([^)]*\)|`[^`]*`", "]", text)):
                if normal(figure) not in held:
                    problems.append("%s:%d: '%s' is quoted beside a link to %s, which does "
                                    "not hold it" % (guide, first, figure, ", ".join(sorted(pages))))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    problems = []
    maps = check_layouts(root, problems)
    check_parts(root, problems)
    check_quotes(root, problems)
    for p in problems:
        print(p)
    print("maps: %d, problems: %d" % (maps, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
