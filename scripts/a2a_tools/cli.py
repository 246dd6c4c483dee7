"""The entry point: `a2a <subcommand> ...`; bad input is one line on stderr, exit 2."""
import sys

from .cluster import launch, status, submit
from .core import options
from .core.common import EXIT_BAD_INPUT, A2AError
from .database import merge, query, summary
from .figures import bandwidth, best_radix, curves, figures, heatmap, model
from .papers import paper_bands, paper_figures, paper_night, paper_table
from .simulation import crosscheck, model_run, platform, prior, simulate
from .tuner import hint_tune, online_candidates, tune, tuner_report

SUBCOMMANDS = (query, summary, heatmap, curves, best_radix, model, submit, launch, status, merge,
               tune, hint_tune, figures, bandwidth, tuner_report, simulate, crosscheck, platform,
               paper_figures, model_run, prior, paper_table, paper_night, paper_bands,
               online_candidates)


def build_parser():
    common = options.parents()
    parser = options.Parser(
        prog="a2a", formatter_class=common["formatter"],
        description="Tools over a2atune results databases: tables, figures, tuning files, "
                    "Slurm sweeps (submit, status, merge) and the TRA K/D model.",
        epilog="Each subcommand has --help. Exit status: 0 ok, 2 bad input (missing or foreign "
               "database, empty selection, unknown kernel ...).")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND")
    for module in SUBCOMMANDS:
        module.add_parser(sub, common)
    parser.subcommands = sub
    return parser


def main(argv=None):
    try:  # the parameters come from a built a2atune: without one, one line
        parser = build_parser()
    except A2AError as e:
        sys.stderr.write("a2a: %s\n" % e)
        return EXIT_BAD_INPUT
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.error("a subcommand is needed: " + ", ".join(sorted(parser.subcommands.choices)))
    db = None
    try:
        if getattr(args, "needs_db", True):
            from .core.db import open_db
            db = open_db(args.db)
        return args.func(args, db)
    except A2AError as e:
        sys.stderr.write("a2a: %s\n" % str(e).replace("\n", " "))
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        try:
            sys.stdout = None
        finally:
            return 0
    except KeyboardInterrupt:
        return 130
    finally:
        if db is not None:
            db.conn.close()
