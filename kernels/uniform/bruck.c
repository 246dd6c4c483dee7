/* bruck.c — classic Bruck all-to-all with radix 2. */
#include <stdlib.h>
#include <string.h>

#include "a2a.h"
#include "bruck_util.h"
#include "kernel_util.h"
#include "private_comm.h"

enum { BRUCK_TAG = 0x2a01 };

/* Guarantees: blocks whose bit `bit` is set, i.e. the runs [start, start + bit) with
 * start = bit, 3*bit, 5*bit, ... below P, copied in that order between `work` and `packed`
 * (pack when `to_packed`, unpack otherwise). Returns the number of blocks moved. */
static long long move_bit_blocks(char *work, char *packed, long long P, long long bit,
                                 size_t block_bytes, int to_packed)
{
    long long moved = 0;
    for (long long start = bit; start < P; start += 2 * bit) {
        long long run = P - start < bit ? P - start : bit;
        char *slot = work + (size_t)start * block_bytes;
        char *dense = packed + (size_t)moved * block_bytes;
        if (to_packed)
            memcpy(dense, slot, (size_t)run * block_bytes);
        else
            memcpy(slot, dense, (size_t)run * block_bytes);
        moved += run;
    }
    return moved;
}

/* Guarantees: the rounds of Bruck on the call's bytes (see A2A_Alltoall_bruck). */
static int bruck_rounds(const a2a_byte_call *c, MPI_Comm comm, a2a_stats *stats)
{
    const long long P = c->size;
    const int rank = c->rank;
    const size_t block_bytes = c->block_bytes;
    char *work = c->recv;

    /* The largest round: bit k set in [0, P) is at most floor(P/2) blocks. */
    long long max_round_blocks = 0;
    for (long long bit = 1; bit < P; bit *= 2) {
        long long full = P / (2 * bit) * bit;
        long long rest = P % (2 * bit) - bit;
        long long blocks = full + (rest > 0 ? rest : 0);
        if (blocks > max_round_blocks)
            max_round_blocks = blocks;
    }

    char *send_pack, *recv_pack;
    char *temp = a2a_rotate_for_rounds(c, max_round_blocks, stats, &send_pack, &recv_pack);
    if (!temp)
        return MPI_ERR_NO_MEM;

    /* Round k: every block with bit k of its distance set moves 2^k ranks forward. */
    for (long long bit = 1; bit < P; bit *= 2) {
        int dest = (int)((rank + bit) % P);
        int source = (int)((rank - bit + P) % P);
        long long blocks = move_bit_blocks(work, send_pack, P, bit, block_bytes, 1);
        int err = a2a_pack_exchange(send_pack, recv_pack, blocks, blocks * (long long)block_bytes,
                                    dest, source, BRUCK_TAG, comm, stats);
        if (err != MPI_SUCCESS) {
            free(temp);
            return err;
        }
        move_bit_blocks(work, recv_pack, P, bit, block_bytes, 0);
        a2a_count_rounds(stats, 1);
    }

    a2a_unrotate_blocks(work, P, rank, block_bytes, send_pack);
    free(temp);
    return MPI_SUCCESS;
}

/* Guarantees: MPI_Alltoall semantics on comm for any P >= 1, in ceil(log2 P) rounds of
 * MPI_Sendrecv (to rank + 2^k, from rank - 2^k); a round of more than
 * a2a_max_message_bytes() is sent as several messages. The receive buffer is the working
 * array, fully written by the rotation before it is read; the temporary memory is two
 * packing buffers of the largest round (at most floor(P/2) blocks each). Any datatypes
 * with matching signatures (a2a_uniform_begin); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_bruck(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    a2a_byte_call c;
    int err = a2a_uniform_begin(&c, sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    if (err != MPI_SUCCESS)
        return err;
    /* kernel traffic never meets the application's */
    err = bruck_rounds(&c, a2a_private_comm(comm), stats);
    return a2a_uniform_end(&c, err);
}
