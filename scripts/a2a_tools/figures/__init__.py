"""Tables and figures of a radix study: `a2a heatmap`, `curves`, `best-radix`, `bandwidth`,
`figures` (all of them in one folder) and `model` (the TRA K/D model they draw against);
analysis (tunable rows grouped with their baselines) and style (the look of every
figure). Imports core and database."""
