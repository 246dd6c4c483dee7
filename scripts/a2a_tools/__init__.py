"""a2a_tools — the Python tools over an a2atune results database.

One entry point, scripts/a2a (cli.py), with one module per subcommand, grouped by stage
into subpackages. A subpackage imports from its own modules and from the layers below it,
never from its own layer or above (tests/layers.py checks it, imports inside functions
included, and that no import cycle exists between modules):

    cli         the entry point: every subcommand's parser                    (top)
    tuner       tune, hint-tune, tuner-report (and its suite, over regret),
                online-candidates
    papers      paper-figures, paper-table, paper-night and the data they draw
    figures     heatmap, curves, best-radix, bandwidth, figures, model; the grouping
                of tunable rows (analysis), the look of every figure (style) and
                what a simulated run's figure says (simruns)
    simulation  simulate, platform, model-run / model-check (the model tier), crosscheck
    database    query, summary, merge
    cluster     submit, status and the submission directory they share (slurm)
    core        errors and output formats (common), value lists (vlist), sweep files
                (sweepfile), kernel parameters (params), read-only database access (db),
                shared options, the results contract, a simulated run's network model
                (netmodel)                                                   (bottom)

Layers, lowest first: core; database, cluster; figures, simulation; tuner, papers; cli.
Only the standard library and Debian's matplotlib are used; the database is only read
(merge and the model tier write their own targets).
"""
