"""Errors, number formats and table output shared by every subcommand."""
import csv
import json
import sys


class A2AError(Exception):
    """Bad input (missing database, empty selection, unknown kernel, ...).

    The entry point prints it as one line, "a2a: <message>", on stderr and exits 2."""


EXIT_BAD_INPUT = 2
DEFAULT_FIGURES = "results/figures"   # where heatmap and curves write by default

_SIZE_UNITS = ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def fmt_size(nbytes):
    """Bytes in the one style of every table, figure and tuning output: 16 -> '16 B',
    1024 -> '1 KiB', 1536 -> '1.5 KiB', 16384 -> '16 KiB', 1048576 -> '1 MiB'; a size that
    is no whole (or whole-and-a-tenth) multiple of a unit stays in bytes: 1000 -> '1000 B'."""
    n = int(nbytes)
    for unit, suffix in _SIZE_UNITS:
        if abs(n) >= unit:
            if n % unit == 0:
                return "%d %s" % (n // unit, suffix)
            if (n * 10) % unit == 0:
                return "%.1f %s" % (n / unit, suffix)
    return "%d B" % n


def time_unit(seconds_max):
    """(scale, label) so that seconds * scale reads well for values up to seconds_max."""
    if seconds_max is None or seconds_max < 1e-3:
        return 1e6, "\u00b5s"
    if seconds_max < 1.0:
        return 1e3, "ms"
    return 1.0, "s"


def safe_name(text):
    """text as a file-name part: letters, digits, '-', '_' and '.' kept, anything else '-'."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in str(text))


def fmt_seconds(seconds):
    """A time with a unit chosen for it: '12.3 us', '4.56 ms', '1.20 s'."""
    if seconds is None:
        return ""
    scale, unit = time_unit(seconds)
    return "%.3g %s" % (seconds * scale, unit)


def fmt_clock(seconds):
    """A wall-clock duration as H:MM:SS (whole seconds, hours unbounded)."""
    seconds = int(seconds)
    return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def fmt_cell(value, float_format="%.4g"):
    if value is None:
        return ""
    if isinstance(value, float):
        return float_format % value
    return str(value)


def write_rows(columns, rows, fmt, out=None, float_format="%.4g"):
    """Writes rows (sequences in the order of columns) as table | csv | json | markdown.

    table: aligned columns with a header (numbers right-aligned); csv: RFC 4180 with a
    header, full precision; json: a list of objects; markdown: a GitHub pipe table."""
    out = out or sys.stdout
    rows = [list(r) for r in rows]
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v) for v in r])
        return
    if fmt == "json":
        json.dump([dict(zip(columns, r)) for r in rows], out, indent=1)
        out.write("\n")
        return
    text = [[fmt_cell(v, float_format) for v in r] for r in rows]
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in rows) and rows
               for i in range(len(columns))]
    widths = [max([len(str(c))] + [len(t[i]) for t in text]) for i, c in enumerate(columns)]
    if fmt == "markdown":
        widths = [max(3, w) for w in widths]
        def line(cells):
            return "| " + " | ".join(cells) + " |"
        out.write(line([str(c).ljust(w) for c, w in zip(columns, widths)]) + "\n")
        out.write(line([("-" * (w - 1) + ":") if numeric[i] else "-" * w
                        for i, w in enumerate(widths)]) + "\n")
        for t in text:
            out.write(line([v.rjust(w) if numeric[i] else v.ljust(w)
                            for i, (v, w) in enumerate(zip(t, widths))]) + "\n")
        return
    if fmt != "table":
        raise A2AError("unknown output format '%s'" % fmt)
    out.write("  ".join(str(c).rjust(w) if numeric[i] else str(c).ljust(w)
                        for i, (c, w) in enumerate(zip(columns, widths))).rstrip() + "\n")
    for t in text:
        out.write("  ".join(v.rjust(w) if numeric[i] else v.ljust(w)
                            for i, (v, w) in enumerate(zip(t, widths))).rstrip() + "\n")

