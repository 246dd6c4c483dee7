"""Sweep files as the driver reads them (harness/sweep/sweep.c), for `a2a submit`: which sections
a sweep has, which process counts each lists at a given launch size, and per-job copies
whose P lists are restricted to one job.

The reader follows sweep.c line by line: ';' or '#' starts a comment line, '[name]' a
section (the name trimmed of white space), 'key = value' or 'key: value' a setting,
' ;' an inline comment. An indented line after a setting continues its value in the
driver; this reader refuses it (a job copy rewrites a setting as one line), so a file
with one is a file `a2a submit` refuses though the driver reads it. Keys before the
first section are defaults for every section; P defaults to `world`.
tests/scripts/test_vectors.py checks this reader against sweep.c (`a2atune expand
--sweep`).
"""
import os
import re

from . import vlist
from .common import A2AError

MAX_LINE = 198          # libinih reads lines of at most 199 bytes (INI_MAX_LINE 200), '\n' included
PATH_KEYS = ("matrix", "pattern")   # values naming files relative to the sweep's folder


class Setting:
    """One `key = value` line: its index in the file's lines, the key, the value and the
    inline comment (from ';' on, or '')."""

    def __init__(self, index, key, value, comment):
        self.index = index
        self.key = key
        self.value = value
        self.comment = comment

    @property
    def line(self):
        return self.index + 1


class Section:
    """A section: its name, the index of its header line, its settings by key, and the
    index of its last setting line (the header when it has none)."""

    def __init__(self, name, index):
        self.name = name
        self.index = index
        self.settings = {}
        self.last = index


def _find_value_end(text):
    """Where an inline comment (';' after whitespace) starts in text, or len(text)."""
    was_space = False
    for i, ch in enumerate(text):
        if was_space and ch == ";":
            return i
        was_space = ch.isspace()
    return len(text)


class Sweep:
    """A parsed sweep file. Guarantees: `lines` are the file's lines exactly (line ends
    kept), `sections` in file order, `defaults` the settings before the first section;
    a file the driver would reject for its shape (no ']', no '=', a key or section
    given twice, NUL bytes) raises A2AError naming file:line, and so does a continuation
    line, which the driver would read."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.shown = path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise A2AError("%s: cannot read the sweep file: %s" % (path, e.strerror or e))
        if b"\0" in data:
            raise A2AError("%s: not a text file (contains NUL bytes)" % path)
        self.text = data.decode("utf-8", "surrogateescape")
        self.lines = self.text.splitlines(keepends=True)
        self.defaults = {}
        self.sections = []
        self._parse()

    def _fail(self, index, message):
        raise A2AError("%s:%d: %s" % (self.shown, index + 1, message))

    def _parse(self):
        current = None
        prev_name = ""
        for i, raw in enumerate(self.lines):
            line = raw.rstrip("\r\n")
            if i == 0 and line.startswith("\ufeff"):
                line = line[1:]
            body = line.strip()
            if body == "" or body[0] in ";#":
                continue
            if prev_name and line[0].isspace():
                self._fail(i, "an indented line continues '%s' (the driver joins it to the "
                              "value; a2a submit cannot rewrite it); write one setting per line"
                           % prev_name)
            if body[0] == "[":
                end = body.find("]")
                cut = _find_value_end(body[1:]) + 1
                if end < 0 or end > cut:
                    self._fail(i, "a section header needs ']'")
                name = body[1:end].strip()
                if any(s.name == name for s in self.sections):
                    self._fail(i, "section [%s] appears twice" % name)
                current = Section(name, i)
                self.sections.append(current)
                prev_name = ""
                continue
            cut = _find_value_end(body)
            m = re.search(r"[=:]", body[:cut])
            if not m:
                self._fail(i, "expected 'key = value' or a [section]")
            key = body[:m.start()].rstrip()
            rest = body[m.end():]
            vcut = _find_value_end(rest)
            value, comment = rest[:vcut].strip(), rest[vcut:]
            settings = current.settings if current else self.defaults
            if key in settings:
                self._fail(i, "key '%s' given twice (first at line %d)" % (key, settings[key].line))
            settings[key] = Setting(i, key, value, comment)
            if current:
                current.last = i
            prev_name = key

    def section(self, name):
        """The section called name, or A2AError listing the sections there are."""
        for s in self.sections:
            if s.name == name:
                return s
        raise A2AError("%s: no section [%s] (sections: %s)"
                       % (self.shown, name, ", ".join(s.name for s in self.sections) or "none"))

    def setting(self, section, key):
        """The Setting that applies to key in section (its own, else the default), or None."""
        return section.settings.get(key) or self.defaults.get(key)

    def process_counts(self, section, world):
        """The P values section lists at launch size `world`, in sweep order (no duplicates).

        Raises A2AError naming file:line when the list does not evaluate or holds a
        process count below 1 (the driver rejects both)."""
        s = self.setting(section, "P")
        text, where = (s.value, s.line) if s else ("world", section.index + 1)
        try:
            values = vlist.parse(text, {"world": world})
        except A2AError as e:
            raise A2AError("%s:%d: P = %s: %s" % (self.shown, where, text, e))
        for v in values:
            if v < 1:
                raise A2AError("%s:%d: P = %s: process counts start at 1" % (self.shown, where, text))
        return values

    def _absolute_paths(self, key, value):
        """value with its relative file names made absolute against the sweep's folder, the
        way the driver resolves them (matrix: the file; pattern: mtx:FILE and *.mtx items);
        value itself when it names no relative file. A2AError when the folder's name cannot
        stand in a sweep line (a newline, ' ;' that would start a comment, a comma that
        would split a pattern list)."""
        folder = os.path.dirname(self.path)
        changed = False
        if key == "matrix":
            name = value.lstrip(" ")
            changed = not name.startswith("/")
            result = folder + "/" + name if changed else value
        else:
            items = []
            for item in value.split(","):
                item = item.strip(" ")
                prefixed = item.startswith("mtx:")
                name = item[4:] if prefixed else item
                if (prefixed or (len(item) > 4 and item.endswith(".mtx"))) and not name.startswith("/"):
                    item = "mtx:" + folder + "/" + name
                    changed = True
                items.append(item)
            result = ", ".join(items) if changed else value
        if changed and (re.search(r"\s;|[\r\n]", folder) or (key == "pattern" and "," in folder)):
            raise A2AError("%s: %s = %s names a file relative to the sweep's folder, whose name "
                           "cannot stand in a sweep line (a newline, ' ;' or a comma); give an "
                           "absolute path there" % (self.shown, key, value))
        return result

    def job_text(self, header, process_counts, origin=None):
        """The text of a per-job copy of this sweep.

        header: comment lines put first; process_counts: {section name: [P values]};
        origin: a list that receives, per line of the copy, the number of the line of
        this file it comes from (None for the header; an added P line counts as its
        section's header line), so that errors about the copy can name this file.
        Guarantees: each named section gets exactly `P = <its values>` (replacing its own
        P line, or added after its last setting), every relative matrix/pattern file
        becomes absolute (so the copy may live in another folder), every other line is
        kept byte for byte; a line longer than libinih reads raises A2AError."""
        out = list(self.lines)
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        added = {}

        def rewrite(setting, value):
            text = "%s = %s" % (setting.key, value)
            if setting.comment:
                text += "  " + setting.comment
            if len(text.encode("utf-8", "surrogateescape")) > MAX_LINE:
                raise A2AError("%s:%d: the rewritten line '%s' would exceed the %d characters "
                               "a sweep line may have" % (self.shown, setting.line, text[:60] + "...",
                                                          MAX_LINE))
            out[setting.index] = text + "\n"

        for s in [None] + self.sections:
            settings = self.defaults if s is None else s.settings
            for key in PATH_KEYS:
                if key in settings:
                    new = self._absolute_paths(key, settings[key].value)
                    if new != settings[key].value:
                        rewrite(settings[key], new)
        for name, values in process_counts.items():
            sec = self.section(name)
            text = compact_list(values)
            own = sec.settings.get("P")
            if own:
                rewrite(own, text)
            else:
                line = "P = %s" % text
                if len(line) > MAX_LINE:
                    raise A2AError("%s: section [%s]: the line '%s...' would exceed the %d "
                                   "characters a sweep line may have" % (self.shown, name,
                                                                         line[:60], MAX_LINE))
                added[sec.last] = added.get(sec.last, "") + line + "\n"
        if origin is not None:
            origin[:] = [None] * len(header)
            owner = {}
            for sec in self.sections:
                owner[sec.last] = sec.index + 1
            for i in range(len(out)):
                origin.append(i + 1)
                origin.extend([owner.get(i, i + 1)] * added.get(i, "").count("\n"))
        for index, text in added.items():
            out[index] = out[index] + text
        return "".join(header) + "".join(out)


def compact_list(values):
    """A sweep value list for exactly these integers in this order, as short as ranges
    make it: [1, 2, 3, 4] -> '1..4', [2, 4, 8, 16] -> '2..16:*2', [3, 5, 7] -> '3..7:+2',
    [6] -> '6'. Guarantees: vlist.parse(compact_list(v)) == v for distinct positive v."""
    items, i, n = [], 0, len(values)
    while i < n:
        best = (1, str(values[i]))
        if i + 2 < n:
            d = values[i + 1] - values[i]
            j = i + 1
            while j + 1 < n and values[j + 1] - values[j] == d:
                j += 1
            if d > 0 and j - i >= 2:
                text = "%d..%d" % (values[i], values[j]) + ("" if d == 1 else ":+%d" % d)
                best = (j - i + 1, text)
            if values[i] > 0 and values[i + 1] % values[i] == 0 and values[i + 1] > values[i]:
                r = values[i + 1] // values[i]
                j = i + 1
                while j + 1 < n and values[j + 1] == values[j] * r:
                    j += 1
                if j - i >= 2 and j - i + 1 > best[0]:
                    best = (j - i + 1, "%d..%d:*%d" % (values[i], values[j], r))
        items.append(best[1])
        i += best[0]
    return ", ".join(items)
