/* kernel_util.h — small helpers shared by the kernels of liba2a (internal). */
#ifndef A2A_KERNEL_UTIL_H
#define A2A_KERNEL_UTIL_H

#include "a2a.h"

#include <stddef.h>

/* Largest byte count one message (or one derived-type element count) may carry: INT_MAX,
 * or the value of A2A_MAX_MESSAGE_BYTES when set (a test hook, so that the large-count
 * paths are exercised at small sizes). Read once per process. */
long long a2a_max_message_bytes(void);

/* Adds one message of `bytes` payload carrying `blocks` blocks to stats (if given). */
static inline void a2a_count_send(a2a_stats *stats, long long blocks, long long bytes)
{
    if (stats) {
        stats->messages += 1;
        stats->blocks += blocks;
        stats->bytes += bytes;
    }
}

/* Adds one metadata message of `bytes` to stats (if given). */
static inline void a2a_count_meta(a2a_stats *stats, long long bytes)
{
    if (stats) {
        stats->messages += 1;
        stats->meta_bytes += bytes;
    }
}

/* Adds `n` communication rounds to stats (if given). */
static inline void a2a_count_rounds(a2a_stats *stats, long long n)
{
    if (stats)
        stats->rounds += n;
}

/* Records that `bytes` of temporary memory are held at once (peak, if given). */
static inline void a2a_count_temp(a2a_stats *stats, long long bytes)
{
    if (stats && bytes > stats->temp_bytes)
        stats->temp_bytes = bytes;
}

#endif
