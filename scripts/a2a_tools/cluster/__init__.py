"""Sweeps on a cluster: `a2a submit` (Slurm or PBS job arrays, one database shard per job),
`a2a status`, and the submission directory both read (slurm). Imports core only; the
shards are merged by database.merge."""
