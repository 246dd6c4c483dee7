"""Tables and figures of a radix study: `a2a heatmap`, `curves`, `best-radix`, `bandwidth`,
`figures` (all of them in one folder) and `model` (the TRA K/D model they draw against);
analysis (tunable rows grouped with their baselines), style (the look of every figure)
and simruns (which simulated runs draw together, and what their figures say). Imports
core and database."""
