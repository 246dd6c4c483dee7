"""Tuning: `a2a tune` (tuning files), `a2a hint-tune`, `a2a tuner-report` (the regret of
`a2atune tune`'s choices; with --suite the evaluation suite, tuner_suite; both over regret,
which defines a choice's regret in a cell) and `a2a online-candidates` (the online tuner's
candidate list against the exhaustive data sets). Imports core and figures (style)."""
