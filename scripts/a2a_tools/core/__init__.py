"""What every stage shares: errors and output formats (common), value lists (vlist) and
sweep files (sweepfile) as the driver reads them, the kernel parameters a2atune declares
(params), read-only database access (db), the subcommands' shared options (options), the
results contract (contract) and the network model a simulated run records (netmodel).
Imports nothing else of a2a_tools."""
