/* tra.c — TRA: tunable-radix (Bruck-style) all-to-all, radix r in [2, max(2, P)]. */
#include <stdlib.h>
#include <string.h>

#include "a2a.h"
#include "bruck_util.h"
#include "kernel_util.h"
#include "private_comm.h"

enum { TRA_TAG = 0x2a02 };

enum digit_move { DIGIT_COUNT, DIGIT_PACK, DIGIT_UNPACK };

/* Guarantees: visits, in increasing order, the blocks i in [0, P) whose base-r digit of
 * weight `unit` (= r^x) equals z: runs [start, start + unit) with start = z*unit plus
 * multiples of r*unit. DIGIT_PACK copies them from `work` into consecutive slots of
 * `packed`, DIGIT_UNPACK copies back, DIGIT_COUNT only counts. Returns the block count. */
static long long move_digit_blocks(char *work, char *packed, long long P, long long r,
                                   long long unit, long long z, size_t block_bytes,
                                   enum digit_move how)
{
    long long moved = 0;
    for (long long start = z * unit; start < P; start += r * unit) {
        long long run = P - start < unit ? P - start : unit;
        if (how != DIGIT_COUNT) {
            char *slot = work + (size_t)start * block_bytes;
            char *dense = packed + (size_t)moved * block_bytes;
            size_t bytes = (size_t)run * block_bytes;
            if (how == DIGIT_PACK)
                memcpy(dense, slot, bytes);
            else
                memcpy(slot, dense, bytes);
        }
        moved += run;
    }
    return moved;
}

/* Guarantees: see bruck_util.h. */
int a2a_radix_rounds(const a2a_byte_call *c, long long r, int tag, MPI_Comm comm,
                     a2a_stats *stats)
{
    const long long P = c->size;
    const int rank = c->rank;
    const size_t block_bytes = c->block_bytes;
    char *work = c->recv;

    long long max_round_blocks = 0;
    for (long long unit = 1; unit < P; unit *= r)
        for (long long z = 1; z < r && z * unit < P; z++) {
            long long blocks = move_digit_blocks(NULL, NULL, P, r, unit, z, 0, DIGIT_COUNT);
            if (blocks > max_round_blocks)
                max_round_blocks = blocks;
        }

    a2a_rotate_blocks(work, c->send, P, rank, block_bytes);

    char *send_pack, *recv_pack;
    char *temp = a2a_pack_buffers(max_round_blocks, block_bytes, stats, &send_pack, &recv_pack);
    if (!temp)
        return MPI_ERR_NO_MEM;

    /* A block keeps its slot i; it has reached rank + i once all its digits are used. */
    for (long long unit = 1; unit < P; unit *= r) {
        for (long long z = 1; z < r && z * unit < P; z++) {
            long long hop = z * unit;
            int dest = (int)((rank + hop) % P);
            int source = (int)((rank - hop + P) % P);
            long long blocks =
                move_digit_blocks(work, send_pack, P, r, unit, z, block_bytes, DIGIT_PACK);
            int err = a2a_pack_exchange(send_pack, recv_pack, blocks,
                                        blocks * (long long)block_bytes, dest, source, tag, comm,
                                        stats);
            if (err != MPI_SUCCESS) {
                free(temp);
                return err;
            }
            move_digit_blocks(work, recv_pack, P, r, unit, z, block_bytes, DIGIT_UNPACK);
            a2a_count_rounds(stats, 1);
        }
    }

    a2a_unrotate_blocks(work, P, rank, block_bytes, send_pack);
    free(temp);
    return MPI_SUCCESS;
}

/* Guarantees: MPI_Alltoall semantics on comm for any P >= 1 and radix r in
 * [2, max(2, P)] (MPI_ERR_ARG otherwise, before any communication). Round (x, z) sends
 * every block whose distance has base-r digit x equal to z to rank + z*r^x and receives
 * from rank - z*r^x; rounds without a block are not taken, so the rounds and blocks
 * counted in stats are the model's K(P, r) and D(P, r); a round of more than
 * a2a_max_message_bytes() goes as several messages. The send buffer is only read; the
 * receive buffer is the working array, fully written by the rotation before it is read.
 * Temporary memory: two packing buffers of the largest round, allocated once. Any
 * datatypes with matching signatures (a2a_uniform_begin); MPI_ERR_COMM for an
 * intercommunicator. */
int A2A_Alltoall_tra(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     int rcount, MPI_Datatype rtype, MPI_Comm comm, int radix,
                     a2a_stats *stats)
{
    a2a_byte_call c;
    int err = a2a_uniform_begin(&c, sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    if (err != MPI_SUCCESS)
        return err;
    if (radix < 2 || radix > (c.size > 2 ? c.size : 2))
        return a2a_uniform_end(&c, MPI_ERR_ARG);
    /* kernel traffic never meets the application's */
    err = a2a_radix_rounds(&c, radix, TRA_TAG, a2a_private_comm(comm), stats);
    return a2a_uniform_end(&c, err);
}
