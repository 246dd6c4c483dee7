"""Subcommands over a results database as it is: `a2a query`, `a2a summary`, and
`a2a merge` (shards into one database). Imports core only."""
