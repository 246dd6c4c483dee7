"""Simulated clusters: `a2a simulate` (SimGrid SMPI), `a2a platform` (platform files),
`a2a model-run` / `model-check` (the model tier, with platform_model: the network a
platform file describes) and `a2a crosscheck` (a simulated ranking against a real one).
Imports core and database."""
