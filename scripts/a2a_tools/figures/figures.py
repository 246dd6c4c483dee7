"""`a2a figures`: everything a person opens after a sweep, in one folder.

Writes into --out: summary.txt (a2a summary), best-radix.md (a2a best-radix), for every
kernel with a radix and a baseline in the database its heatmap and its curves (newest run
holding the kernel), and index.html showing all of them; prints where they are. A kernel
that cannot be drawn (no baseline rows beside it) is named in a note, the others are still
drawn. `make run` ends with it, `make plots` runs it."""
import argparse
import html
import io
import os
import sys

from . import best_radix, curves, heatmap, model
from ..core import contract
from ..database import summary
from ..core.common import DEFAULT_FIGURES, A2AError


def add_parser(sub, common):
    p = sub.add_parser(
        "figures", parents=[common["db"]],
        help="summary, best-radix table, heatmaps and curves of a database, in one folder",
        description="Writes the summary (summary.txt), the best-radix table (best-radix.md), "
                    "the heatmap and the curves of every kernel with a radix against the "
                    "baseline, and an index.html showing them all, into --out; prints the "
                    "paths. What `make run` ends with.",
        epilog="example:  a2a figures --db results/a2a.db --out results/figures",
        formatter_class=common["formatter"])
    p.add_argument("--baseline", default=contract.DEFAULT_BASELINE, help="kernel to compare with (default: vendor)")
    p.add_argument("--out", default=DEFAULT_FIGURES, metavar="DIR",
                   help="output directory (default: %(default)s)")
    p.set_defaults(func=run)
    return p


def _write(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise A2AError("--out %s: cannot write %s: %s" % (os.path.dirname(path),
                                                          os.path.basename(path), e.strerror or e))
    return path


def _index(out, db_path, summary_text, table_text, images, notes):
    """index.html: the summary, the table and every PNG, for a browser."""
    parts = ["<!DOCTYPE html>", "<meta charset=\"utf-8\">",
             "<title>a2atune: %s</title>" % html.escape(db_path),
             "<style>body{font-family:sans-serif;margin:1em}img{max-width:100%;"
             "border:1px solid #ccc;margin:0.5em 0}pre{font-size:12px}</style>",
             "<h1>a2atune results: %s</h1>" % html.escape(db_path),
             "<h2>Summary</h2>", "<pre>%s</pre>" % html.escape(summary_text)]
    if table_text:
        parts += ["<h2>Best radix</h2>", "<pre>%s</pre>" % html.escape(table_text)]
    for n in notes:
        parts.append("<p><em>%s</em></p>" % html.escape(n))
    for title, paths in images:
        parts.append("<h2>%s</h2>" % html.escape(title))
        for p in paths:
            name = os.path.basename(p)
            parts.append("<p><a href=\"%s\"><img src=\"%s\" alt=\"%s\"></a></p>"
                         % (html.escape(name), html.escape(name), html.escape(name)))
    return _write(os.path.join(out, "index.html"), "\n".join(parts) + "\n")


def run(args, db):
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise A2AError("--out %s: cannot make the folder: %s" % (args.out, e.strerror or e))
    written, notes, images = [], [], []
    text = io.StringIO()
    summary.run(argparse.Namespace(run=args.run, format="table"), db, out=text)
    summary_text = text.getvalue()
    written.append(_write(os.path.join(args.out, "summary.txt"), summary_text))
    kernels = [r[0] for r in db.all("SELECT DISTINCT kernel FROM results WHERE status = 'ok'"
                                    " AND radix IS NOT NULL AND family NOT IN ('app', 'copy')"
                                    " ORDER BY kernel")]
    table_text = ""
    if kernels and args.baseline in db.kernels():
        drawable = []
        for k in kernels:
            ns = argparse.Namespace(kernel=[k], baseline=args.baseline, run=args.run,
                                    alpha=None, beta=None,
                                    format="markdown", P=None, S=None, dist=None, family=None,
                                    log_time=False)
            try:
                paths = heatmap.make(db, k, args.baseline, args.run, {}, args.out)
                paths += curves.make(db, k, args.baseline, args.run, {}, args.out, ns)
            except A2AError as e:
                notes.append("%s: not drawn: %s" % (k, e))
                continue
            drawable.append(k)
            written += paths
            images.append(("%s against %s" % (k, args.baseline),
                           [p for p in paths if p.endswith(".png")]))
        if drawable:
            text = io.StringIO()
            best_radix.run(argparse.Namespace(kernel=drawable, baseline=args.baseline, run=args.run,
                                              alpha=model.DEFAULT_ALPHA, beta=model.DEFAULT_BETA,
                                              format="markdown", P=None, S=None, dist=None,
                                              family=None),
                           db, out=text)
            table_text = text.getvalue()
            written.append(_write(os.path.join(args.out, "best-radix.md"), table_text))
    elif not kernels:
        notes.append("no kernel with a radix has ok results: no heatmap or curves")
    else:
        notes.append("no results of the baseline '%s': no heatmap or curves" % args.baseline)
    written.append(_index(args.out, db.path, summary_text, table_text, images, notes))
    for note in notes:
        sys.stderr.write("a2a: note: %s\n" % note)
    for path in written:
        sys.stdout.write(path + "\n")
    sys.stdout.write("figures: %d files in %s; open %s\n" % (
        len(written), args.out, os.path.join(args.out, "index.html")))
    return 0
