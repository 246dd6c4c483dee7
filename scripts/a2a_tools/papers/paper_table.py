"""`a2a paper-table`: docs/results/papers.md, the published numbers of the TRA and TuNA papers
beside ours for the same machine, P, S, kernel and radix, their ratio and a verdict.

The data: tests/data/papers-theta-model.sql, the model tier's rows (`a2a model-run`, backend =
model, not simulated) of sweeps/paper/papers_table.ini on platforms/theta.xml, copies free,
with the model's error against SimGrid on the checked-in dragonfly rows recorded in its run;
and tests/data/papers-tuna-model.sql, TuNA's and MPI_Alltoallv's rows on Polaris and Fugaku
(paper_tuna.py). `--remodel` re-runs the TRA sweep and rewrites its .sql (deterministic: the
same platform and kernels give the same rows); `a2a paper-night` re-runs both. Without them
the table is made from the .sql files in about a second. Nothing is fitted to the published
numbers."""
import sys

from . import paper_bands, paper_routing, paper_tuna, tuna_tables
from .paper_rows import (DATA, SWEEP, PLATFORM, CHECK_2048, DEFAULT_OUT, remodel, load, Model,
                         tra_rows, tra2_rows, trend_rows)
from .paper_tuna import (INDETERMINATE, MISSED, NOT_TESTABLE, REPRODUCED, WITHIN, pct)


def add_parser(sub, common):
    """Registers `a2a paper-table`."""
    p = sub.add_parser(
        "paper-table",
        help="docs/results/papers.md: the papers' published numbers beside ours",
        description="Writes a markdown table: each number the TRA and TuNA papers publish "
                    "(issue 33, item 4), the modelled figure for the same machine, P, S, "
                    "kernel and radix (%s on %s, backend = model), their ratio and a "
                    "verdict (within 2x / trend reproduced within one step of S / missed, "
                    "and why). Made from %s and %s (TuNA on Polaris and Fugaku); --remodel "
                    "first re-runs %s into the first (a2a paper-night re-runs both)."
                    % (SWEEP, PLATFORM, DATA, paper_tuna.DATA, SWEEP),
        epilog="example:  a2a paper-table   (make paper-figures runs it)",
        formatter_class=common["formatter"])
    p.add_argument("--out", default=DEFAULT_OUT, metavar="FILE",
                   help="the markdown file (default: %(default)s; - for stdout)")
    p.add_argument("--data", default=DATA, metavar="SQL",
                   help="the TRA model rows (default: %(default)s)")
    p.add_argument("--tuna-data", default=paper_tuna.DATA, metavar="SQL",
                   help="the TuNA model rows (default: %(default)s; a2a paper-night writes it)")
    p.add_argument("--bands", default=paper_bands.DATA, metavar="SQL",
                   help="each row's band over the platform variants (default: %(default)s; "
                        "a2a paper-bands writes it; none: no bands)")
    p.add_argument("--tuna-tables", default=None, metavar="FILE",
                   help="also write every TuNA model row as tables per platform and P "
                        "(docs/results/model-tuna.md)")
    p.add_argument("--remodel", action="store_true",
                   help="re-run the model sweep and rewrite --data first (about 2 minutes)")
    p.add_argument("--section", default=None, metavar="SECTION",
                   help="with --remodel: only these sections of the sweep (comma-separated); "
                        "writes --data only, no table")
    p.set_defaults(func=run, needs_db=False)
    return p


HEADER = ("source (section, figure)", "machine", "P", "S", "claim (kernel, radix)", "published",
          "ours (backend, platform)", "ours / published",
          "band: lowest .. highest over the variants (which)", "margin", "verdict", "why")
VERDICTS = (WITHIN, REPRODUCED, MISSED, INDETERMINATE, NOT_TESTABLE)


def table_text(data, tuna_data, bands=paper_bands.DATA):
    """The markdown text of docs/results/papers.md from the data files."""
    return table(Model(load(data)), paper_tuna.TunaData(paper_tuna.load(tuna_data)),
                 paper_bands.Bands(bands, data, tuna_data))


def all_rows(m, tuna, relative, plain=False):
    """Every row of the table: times held against the worst error of a modelled time on the
    row's platform (where measured there, else on dragonfly_16k.xml), speedups and radix facts
    against the same, or with relative against the worst error of a ratio of two times; with
    plain against none (the verdicts the bands compare)."""
    def errs(e):
        if plain:
            return 0, 0
        return e.time, (e.ratio if relative else e.time)
    err_time, err_rel = errs(m.err)
    return (tra_rows(m, err_time, err_rel) + tra2_rows(m, err_rel) + trend_rows(m, err_rel) +
            paper_tuna.rows(tuna, lambda platform: errs(tuna.error_2048(platform) or m.base)))


# why a row has no band (paper-bands did not price its configurations on the variants)
NO_BAND = "not computed: P = %d not priced on the variants (cost, note 7)"


def with_bands(rows, plain, bands):
    """The rows with the band column (after ours / published) and the band's rule: a
    verdict that flips inside the band is indeterminate, and its why says at which
    variants."""
    out = []
    for row, base in zip(rows, plain):
        text, flips = bands.band(row, base)
        verdict, why = row[9], row[10]
        if text is None:
            text = "" if verdict == NOT_TESTABLE else NO_BAND % row[2]
        elif flips and verdict != NOT_TESTABLE:
            to = {}
            for variant, v in flips:
                to.setdefault(v, []).append(variant)
            said = "; ".join("%s at: %s" % (v, "; ".join(vs)) for v, vs in sorted(to.items()))
            verdict = INDETERMINATE
            why = "flips inside the band (%s)" % said + ("; " + why if why else "")
        out.append(tuple(row[:8]) + (text,) + tuple(row[8:9]) + (verdict, why))
    return out


def counts(rows):
    """'6 within 2x, ...' of the rows' verdicts, in VERDICTS' order."""
    got = {}
    for row in rows:
        got[row[10]] = got.get(row[10], 0) + 1
    return ", ".join("%d %s" % (got[k], k) for k in VERDICTS if k in got)


def table(m, tuna, bands):
    """The markdown text of docs/results/papers.md."""
    plain = all_rows(m, tuna, False, plain=True)
    rows = with_bands(all_rows(m, tuna, False), plain, bands)
    alternative = with_bands(all_rows(m, tuna, True), plain, bands)
    measured = [("theta.xml", m.own)] + [(p, tuna.error_2048(p)) for _, p in paper_tuna.MACHINES]
    on_platforms = "; ".join("on %s: **%s**, of a ratio **worst %s**" % (p, e.text, e.ratio_text)
                             for p, e in measured if e)
    unmeasured = [p for p, e in measured if not e]
    unpriced = {(r[1], r[2]) for r in rows if r[8].startswith("not computed")}
    out = ["# Side by side with the papers: published numbers and ours", "",
           "Generated by `scripts/a2a paper-table` (`make paper-figures`) from `%s` and `%s`: "
           "the model tier's rows (`backend = model`, **modelled, not simulated or measured**) "
           "of `%s` on `%s` (the TRA paper's Theta) and of `%s` on %s (the TuNA paper's "
           "Polaris and Fugaku), copies free, nothing fitted to any published number; the "
           "platforms' figures and their sources (or what is assumed) are in "
           "[platforms.md](platforms.md). The model's error against SimGrid (`a2a "
           "model-check`, recorded with each run): on the checked-in dragonfly rows of the "
           "modelled kernels, P = 128 ... 1024: **%s** (TRA rows), **%s** (TuNA rows); at "
           "P = 2048, tra at radix 2 and sqrt P, 16 B and 1 KiB (and radix 8, 128 on "
           "dragonfly_16k.xml, `%s`): on dragonfly_16k.xml **%s**, of the ratio of two "
           "modelled times at one (P, S) **worst %s**%s%s. "
           "`scripts/a2a paper-night` (`make paper-night`) re-runs the model for every "
           "row and rewrites both data files (about an hour on a shared 2-core machine, "
           "docs/results/model_tier.md); `scripts/a2a paper-table --remodel` the TRA rows "
           "only (a few minutes); tests/parts/paperfigs.sh regenerates this file from the "
           "data and part of the data from the platform files."
           % (DATA, paper_tuna.DATA, SWEEP, PLATFORM, paper_tuna.SWEEP,
              " and ".join("`platforms/%s`" % p for _, p in paper_tuna.MACHINES), m.error,
              tuna.error(paper_tuna.MACHINES[0][1]), CHECK_2048, m.base.text,
              m.base.ratio_text, "; " + on_platforms if on_platforms else "",
              "; not compared on %s" % " or ".join(unmeasured) if unmeasured else ""),
           "",
           "Verdicts, one rule for each kind of claim: a time or a speedup is *within 2x* "
           "(0.5 <= ours / published <= 2) or *missed*; a trend (the best radix against S) is "
           "*trend reproduced* when each of its facts holds (at each S, within one step of S "
           "of the paper's bound, the fastest sampled radix lies in the paper's range, within "
           "a factor 2 of the paper's radix: one step of its power-of-two sampling) and "
           "*missed* when one fails. A verdict is *indeterminate* when the model's error could "
           "flip it: the **margin** (how far ours would have to move to cross the nearer 2x "
           "line; for a fact, how far apart the fastest radix inside the paper's range and "
           "the fastest outside it are) is below the model's worst error of a time at "
           "P = 2048 on the row's platform (on dragonfly_16k.xml, %s, where the platform was "
           "not compared; one measurement at P = 2048 stands for the rows at larger P too), "
           "for speedups and radix facts too. A claim about a P "
           "or sizes the model was not run at is *not testable*. Where the paper says two "
           "things, both are quoted (and tested as separate rows where they differ). The same "
           "rule holds in every row for what the platform assumes: a verdict is also "
           "*indeterminate* when it flips inside the **band** of ours, the row priced again "
           "with each assumed figure of its platform ([platforms.md](platforms.md)) at x1/2 "
           "and at x2, one at a time, and at four corners (every assumed rate and cost at "
           "once: all x1/2; all x2; costs x2 with rates x1/2; costs x1/2 with rates x2). The "
           "band column gives the lowest and the highest ours / published over these "
           "variants (for a trend, how far its facts hold or fail: the margin at err = 0) and "
           "the variant that gives each; the why column names the variants where the verdict "
           "flips (note 7).%s"
           % (pct(m.base.time), " A row whose band was not computed says so, and holds "
              "against the measured error only." if unpriced else ""), "",
           "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    flipped = sum(1 for r in rows if r[11].startswith("flips inside the band"))
    out += ["", "Rows: %s (of these, %d flip inside their band). With the error of a ratio "
            "of two modelled times on each row's platform for the speedup and radix rows "
            "instead: %s." % (counts(rows), flipped, counts(alternative)), "",
            "## Notes", "",
            "1. **The baselines: the machine's own MPI family.** The TRA paper divides by Cray "
            "MPICH's MPI_Alltoall; ours is liba2a's `mpich_selection` at the same (P, S): "
            "MPICH's Bruck for blocks <= 256 B at P >= 8, scattered (block_count 32) to 32 KiB, "
            "pairwise above (kernels/uniform/mpich_selection.c). At P = 2048, S = 32 B that is "
            "`bruck`, which is tra at radix 2: the Fig. 10(c) rows compare two tra radices. "
            "The TuNA paper divides by MPI_Alltoallv of Cray MPICH on Polaris (ours: MPICH's "
            "selection, `mpich_selection`) and of Fujitsu's Open MPI-based MPI on Fugaku "
            "(ours: Open MPI 4.1's selection, `ompi_tuned_selection`: its linear exchange at "
            "P >= 1024; MPICH's is shown beside it). Neither vendor's own tuning is public.",
            "2. **What the model is** (docs/results/model_tier.md): the kernel's own schedule, "
            "each rank's clock carried through its rounds as SMPI runs ranks (a rank starts "
            "its next round once its own messages are in); per message smpi/ois + smpi/or "
            "(SMPI's charges for a non-blocking send and a detached receive); each node's "
            "links shared by its ranks' messages in inverse proportion to their route "
            "latency, as SimGrid shares links; the busiest link of the routes. Its error "
            "against SimGrid on the current dragonfly.xml's rows, P = 128 ... 1024 (%s, the "
            "TRA rows' figure above), is largest where a round's messages all leave at once "
            "(radix P) and at S <= 256 B for small radices, which it overestimates (SimGrid's "
            "ranks overlap their rounds more); at P = 2048 (%s, tra on dragonfly_16k.xml) it "
            "overestimates every cell (%s) and picks SimGrid's best radix: the cells and "
            "their errors are in docs/results/model_tier.md. It has no contention from other "
            "jobs, no OS noise and no Cray MPICH progress engine, which a measurement on Theta "
            "includes." % (m.error, CHECK_2048, m.base.text),
            paper_tuna.cost_note(tuna),
            "4. **The paper's radix range.** The TRA paper sampled r from 2 to P/2 (Sec. V-A); "
            "the best radix of the trend rows is taken over the same range, and where radix P "
            "(outside it) is faster still, the row says so.",
            paper_tuna.baseline_note(tuna),
            # Fig. 8(b)'s two times at 128 B, Fig. 10(c)'s speedup at 32 B (tra_rows)
            paper_routing.routing_note(paper_routing.load(paper_routing.DATA),
                                       {128: (16.17e-3, 7.699e-3), 32: (3.98, None)}),
            paper_bands.note(bands, unpriced), ""]
    return "\n".join(out)


def run(args, db):
    """`a2a paper-table`: writes the table; exit 0, 2 on bad input."""
    del db
    if args.remodel:
        remodel(args.data, args.section)
        if args.section:
            return 0
    text = table_text(args.data, args.tuna_data, args.bands)
    if args.tuna_tables:
        tables = tuna_tables.page(paper_tuna.TunaData(paper_tuna.load(args.tuna_data)))
        with open(args.tuna_tables, "w") as f:
            f.write(tables)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)
    return 0
