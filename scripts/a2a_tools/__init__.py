"""a2a_tools — the Python tools over an a2atune results database.

One entry point, scripts/a2a, with one module per subcommand:

    query       rows of the database (canned filters or read-only SQL)
    summary     what a database holds
    heatmap     radix-selection heatmap (TuNA paper, Fig. 9)
    curves      time versus radix per (P, S) (TRA paper, Fig. 7/8)
    best-radix  best radix vs sqrt(P) vs the model, per kernel, P, S
    model       K and D of the tunable-radix model (TRA paper, Propositions 1-4)

Shared pieces: db (read-only access, run selection), analysis (tunable rows and
their baselines), style (figures), common (errors, sizes, output formats), vlist
(value lists such as "2..P" or "16..16K:*2", as in sweep files).
Only the standard library and Debian's matplotlib are used; the database is only read.
"""
