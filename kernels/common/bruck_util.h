/* bruck_util.h — steps shared by the Bruck-style uniform kernels (bruck, tra, tra2). */
#ifndef A2A_BRUCK_UTIL_H
#define A2A_BRUCK_UTIL_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "a2a.h"
#include "kernel_util.h"

/* A uniform call of a kernel that copies bytes, after a2a_uniform_begin: the bytes it
 * reads and writes (the user's buffers, or staging buffers when a type is not one
 * ascending run), one destination's block size, this rank and the size. */
typedef struct a2a_byte_call {
    const char *send;
    char *recv;
    size_t block_bytes;
    MPI_Datatype stype, rtype; /* the types of send and recv: the user's, or staged runs */
    int rank, size;
    a2a_staging staging;
} a2a_byte_call;

/* Checks a uniform call and prepares its bytes: the kernel prologue (MPI_ERR_COMM,
 * MPI_ERR_TYPE), non-negative counts (MPI_ERR_COUNT), the same bytes per block on both
 * sides (MPI_ERR_ARG; MPI requires it, so it holds on every rank of a correct program,
 * and the block size is then the same on every rank), then staging (a2a_stage) of any
 * side whose type is not one ascending run. Each error is returned before anything is
 * sent or allocated; after success the kernel ends with a2a_uniform_end. */
static inline int a2a_uniform_begin(a2a_byte_call *c, const void *sbuf, int scount,
                                    MPI_Datatype stype, void *rbuf, int rcount,
                                    MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    int ssize, rsize, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &c->rank, &c->size)) != MPI_SUCCESS)
        return err;
    if (scount < 0 || rcount < 0)
        return MPI_ERR_COUNT;
    MPI_Type_size(stype, &ssize);
    MPI_Type_size(rtype, &rsize);
    if ((long long)scount * ssize != (long long)rcount * rsize)
        return MPI_ERR_ARG;
    c->block_bytes = (size_t)scount * (size_t)ssize;
    a2a_side send = { (void *)sbuf, stype, NULL, NULL, scount };
    a2a_side recv = { rbuf, rtype, NULL, NULL, rcount };
    if ((err = a2a_stage(&c->staging, c->size, &send, &recv, comm, stats)) != MPI_SUCCESS)
        return err;
    c->send = send.buf;
    c->recv = recv.buf;
    c->stype = send.type;
    c->rtype = recv.type;
    return MPI_SUCCESS;
}

/* Ends a call begun by a2a_uniform_begin: unstages (a2a_unstage) and returns err or the
 * unstaging error. */
static inline int a2a_uniform_end(a2a_byte_call *c, int err)
{
    return a2a_unstage(&c->staging, err);
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

/* Two packing buffers of max(max_round_blocks, 1) blocks each, in one allocation:
 * *send_pack at its start, *recv_pack after it; their bytes counted as temporary memory
 * in stats. Returns the allocation (to free), or NULL when out of memory. */
static inline char *a2a_pack_buffers(long long max_round_blocks, size_t block_bytes,
                                     a2a_stats *stats, char **send_pack, char **recv_pack)
{
    size_t pack_bytes = (size_t)(max_round_blocks > 0 ? max_round_blocks : 1) * block_bytes;
    char *temp = malloc(2 * pack_bytes > 0 ? 2 * pack_bytes : 1);
    if (!temp)
        return NULL;
    a2a_count_temp(stats, (long long)(2 * pack_bytes));
    *send_pack = temp;
    *recv_pack = temp + pack_bytes;
    return temp;
}

/* One round's exchange: `bytes` of send_pack (`blocks` blocks) to dest and as many from
 * source into recv_pack (a2a_sendrecv_bytes with tag); on success the pieces sent, the
 * blocks and the bytes added to stats (the round itself is the caller's to count). */
static inline int a2a_pack_exchange(const char *send_pack, char *recv_pack, long long blocks,
                                    long long bytes, int dest, int source, int tag,
                                    MPI_Comm comm, a2a_stats *stats)
{
    long long pieces = 1;
    int err = a2a_sendrecv_bytes(send_pack, bytes, dest, recv_pack, source, tag, comm, &pieces);
    if (err != MPI_SUCCESS)
        return err;
    a2a_count_send(stats, blocks, bytes);
    if (stats)
        stats->messages += pieces - 1;
    return MPI_SUCCESS;
}

/* tra.c: the rounds of TRA with radix r on the call's bytes, its messages tagged `tag`
 * (see A2A_Alltoall_tra): the rotation, one round per non-zero base-r digit value (a
 * MPI_Sendrecv of the packed blocks whose distance has that digit), the final rotation;
 * rounds, blocks, bytes, messages and temporary memory counted in stats. r = 2 is Bruck's
 * schedule (bruck.c). */
int a2a_radix_rounds(const a2a_byte_call *c, long long r, int tag, MPI_Comm comm,
                     a2a_stats *stats);

#endif
