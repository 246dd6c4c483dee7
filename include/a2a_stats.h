/* a2a_stats.h — what a kernel call did (see the stats contract in a2a.h). Its own header so
 * that a2a.h and the headers it includes at its end (a2a_inplace.h, a2a_sdde.h,
 * a2a_tuned.h, a2a_hint.h) all include it, and none of them includes a2a.h back. */
#ifndef A2A_KERNEL_STATS_H
#define A2A_KERNEL_STATS_H

#include <mpi.h>

/* What one call of a kernel did on the calling rank. Self-copies are not counted. */
typedef struct a2a_stats {
    long long rounds;        /* communication rounds this rank took part in */
    long long rounds_local;  /* of those, rounds of an intra-node layer (hierarchical kernels) */
    long long rounds_global; /* of those, rounds of an inter-node layer (hierarchical kernels) */
    long long blocks;        /* data blocks sent to other ranks (one block = data for one final destination) */
    long long bytes;         /* payload bytes sent to other ranks */
    long long meta_bytes;    /* metadata bytes sent (block sizes of two-phase kernels) */
    long long messages;      /* point-to-point messages sent (payload and metadata) */
    long long temp_bytes;    /* peak bytes of temporary memory the kernel allocated */
} a2a_stats;

#endif
