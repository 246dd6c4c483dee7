"""Options shared by the subcommands (parent parsers) and the argument parser whose
errors are one line on stderr with exit status 2."""
import argparse
import sys

from . import params, vlist
from .common import EXIT_BAD_INPUT
from .db import DEFAULT_DB


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: 'a2a: <prog>: <message> (see --help)', exit 2."""

    def error(self, message):
        name = self.prog.split(" ", 1)
        where = name[1] + ": " if len(name) > 1 else ""
        sys.stderr.write("a2a: %s%s (see %s --help)\n" % (where, message, self.prog))
        sys.exit(EXIT_BAD_INPUT)


class Formatter(argparse.HelpFormatter):
    """Wraps one-paragraph texts; keeps texts with line breaks (examples) as written."""

    def _fill_text(self, text, width, indent):
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def _run_id(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a run id is a whole number, got '%s'" % text)
    if value < 1:
        raise argparse.ArgumentTypeError("a run id is at least 1, got '%s'" % text)
    return value


def int_list(text):
    """'2,4', '2..8', '16..16K:*2', '1K' -> [ints]; errors become argparse errors."""
    from .common import A2AError
    try:
        return vlist.parse(text)
    except A2AError as e:
        raise argparse.ArgumentTypeError(str(e))


def word_list(text):
    words = [w.strip() for w in text.split(",")]
    if not all(words):
        raise argparse.ArgumentTypeError("empty item in '%s'" % text)
    return words


def parents():
    """{'db', 'select', 'format', 'formatter'}: parent parsers to share."""
    db = Parser(add_help=False)
    g = db.add_argument_group("database")
    g.add_argument("--db", default=DEFAULT_DB, metavar="PATH",
                   help="the a2atune database (default: %(default)s)")
    g.add_argument("--run", type=_run_id, metavar="ID",
                   help="use only this run (default: query and summary read every run; "
                        "heatmap, curves and best-radix the newest run holding the kernel)")

    select = Parser(add_help=False)
    g = select.add_argument_group("selection")
    g.add_argument("--P", type=int_list, metavar="LIST", help="process counts, e.g. 4,8 or 2..16")
    g.add_argument("--S", type=int_list, metavar="LIST", help="block sizes, e.g. 16,1K or 16..16K:*4")
    g.add_argument("--dist", type=word_list, metavar="LIST", help="distributions, e.g. uniform")
    g.add_argument("--family", type=word_list, metavar="LIST", help="uniform, nonuniform ...")
    for p in params.selection():  # --radix2, --block-count ... as a2atune declares them
        g.add_argument("--" + p["name"].replace("_", "-"), type=int_list, metavar="LIST",
                       help="only these %s values (%s; default: the fastest per radix)"
                            % (p["name"], p["meaning"]))

    fmt = Parser(add_help=False)
    fmt.add_argument("--format", choices=("table", "csv", "json"), default="table",
                     help="output format (default: %(default)s)")
    return {"db": db, "select": select, "format": fmt, "formatter": Formatter}


def select_filters(args):
    """The selection options as a filter dict for db.rows_where / analysis.load."""
    out = {}
    for col in ("P", "S", "dist", "family") + tuple(p["name"] for p in params.selection()):
        value = getattr(args, col, None)
        if value:
            out[col] = value
    return out
