/* bruck_util.h — steps shared by the Bruck-style uniform kernels (bruck, tra, tra2). */
#ifndef A2A_BRUCK_UTIL_H
#define A2A_BRUCK_UTIL_H

#include <stddef.h>
#include <string.h>
#include "a2a.h"

/* Checks a uniform call: contiguous types, non-negative counts, the same bytes on both
 * sides. On success *block_bytes is the size of one destination's block. */
static inline int a2a_uniform_block_bytes(int scount, MPI_Datatype stype, int rcount,
                                          MPI_Datatype rtype, size_t *block_bytes)
{
    MPI_Aint sbytes, rbytes;
    int err;
    if ((err = A2A_Type_bytes(stype, &sbytes)) != MPI_SUCCESS)
        return err;
    if ((err = A2A_Type_bytes(rtype, &rbytes)) != MPI_SUCCESS)
        return err;
    if (scount < 0 || rcount < 0)
        return MPI_ERR_COUNT;
    if ((long long)scount * sbytes != (long long)rcount * rbytes)
        return MPI_ERR_ARG;
    *block_bytes = (size_t)scount * (size_t)sbytes;
    return MPI_SUCCESS;
}

/* The initial rotation: work[i] = send[(rank + i) % P], the block travelling distance i.
 * Writes all of work (P blocks) before anything reads it. */
static inline void a2a_rotate_blocks(char *work, const char *send, long long P, int rank,
                                     size_t block_bytes)
{
    size_t head = (size_t)(P - rank) * block_bytes;
    memcpy(work, send + (size_t)rank * block_bytes, head);
    memcpy(work + head, send, (size_t)rank * block_bytes);
}

/* The final rotation, in place: work[i] holds the block from rank - i and goes to slot
 * (rank - i) mod P. That map is an involution, so swapping pairs through `scratch`
 * (one block) places every block. */
static inline void a2a_unrotate_blocks(char *work, long long P, int rank, size_t block_bytes,
                                       char *scratch)
{
    for (long long i = 0; i < P; i++) {
        long long j = ((rank - i) % P + P) % P;
        if (i < j) {
            memcpy(scratch, work + (size_t)i * block_bytes, block_bytes);
            memcpy(work + (size_t)i * block_bytes, work + (size_t)j * block_bytes, block_bytes);
            memcpy(work + (size_t)j * block_bytes, scratch, block_bytes);
        }
    }
}

#endif
