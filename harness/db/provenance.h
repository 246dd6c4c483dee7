/* provenance.h — where and how a run is measured: hosts, cores, MPI, caches, revision. */
#ifndef A2A_PROVENANCE_H
#define A2A_PROVENANCE_H

#include "db.h"

/* Collective over world. Fills info (complete on rank 0: with the MPI environment, the
 * binding of every rank and the load average), node_ranks = ranks on the first node, and
 * oversubscribed_at[P] for P = 1..world: 1 if a node of the first P ranks holds more ranks
 * of the launch than cores (the ranks beyond P stay alive, waiting, while the first P are
 * measured; oversubscribed_at has world + 1 entries). */
void collect_provenance(MPI_Comm world, run_info *info, int *node_ranks, int *oversubscribed_at);

/* The command line argv[0..argc) joined by single spaces into out (truncated to len). */
void join_command_line(int argc, char **argv, char *out, size_t len);

/* The 1-minute load average of this machine, or -1 if unknown. */
double load_average(void);

/* Bytes of memory available for buffers on this node (MemAvailable), 0 if unknown. */
double memory_available(void);

#endif
