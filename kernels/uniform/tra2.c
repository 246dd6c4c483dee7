/* tra2.c — TRA2: two-layer tunable-radix all-to-all (intra-node TRA, then inter-node TRA). */
#include <stdlib.h>
#include <string.h>

#include "a2a.h"
#include "bruck_util.h"
#include "kernel_util.h"
#include "private_comm.h"

enum { TRA2_TAG = 0x2a03 };

enum digit_move { DIGIT_COUNT, DIGIT_PACK, DIGIT_UNPACK };

/* The working array seen by one layer: `members` elements per row, `rows` rows.
 * Element e of row c starts at c * row_stride + e * element_bytes and is contiguous. */
typedef struct layer_view {
    long long members;
    long long rows;
    size_t row_stride;
    size_t element_bytes;
    long long blocks_per_element; /* P-blocks one element holds over all rows */
} layer_view;

/* Guarantees: visits the elements e in [0, members) whose base-r digit of weight `unit`
 * (= r^x) is z, as runs of consecutive elements, row by row in a fixed order, so sender
 * and receiver agree on the packed layout. DIGIT_PACK copies them into consecutive bytes
 * of `packed`, DIGIT_UNPACK copies back, DIGIT_COUNT only counts. Returns the number of
 * elements in one row. */
static long long move_digit_elements(char *work, char *packed, const layer_view *view,
                                     long long r, long long unit, long long z,
                                     enum digit_move how)
{
    long long elements = 0;
    size_t offset = 0;
    for (long long row = 0; row < (how == DIGIT_COUNT ? 1 : view->rows); row++) {
        elements = 0;
        for (long long start = z * unit; start < view->members; start += r * unit) {
            long long run = view->members - start < unit ? view->members - start : unit;
            if (how != DIGIT_COUNT) {
                char *slot = work + (size_t)row * view->row_stride +
                             (size_t)start * view->element_bytes;
                size_t bytes = (size_t)run * view->element_bytes;
                if (how == DIGIT_PACK)
                    memcpy(packed + offset, slot, bytes);
                else
                    memcpy(slot, packed + offset, bytes);
                offset += bytes;
            }
            elements += run;
        }
    }
    return elements;
}

/* Guarantees: the largest number of P-blocks one round of this layer sends with radix r. */
static long long largest_round_blocks(const layer_view *view, long long r)
{
    long long largest = 0;
    for (long long unit = 1; unit < view->members; unit *= r)
        for (long long z = 1; z < r && z * unit < view->members; z++) {
            long long elements = move_digit_elements(NULL, NULL, view, r, unit, z, DIGIT_COUNT);
            if (elements * view->blocks_per_element > largest)
                largest = elements * view->blocks_per_element;
        }
    return largest;
}

/* Guarantees: one TRA layer among `members` ranks rank_base + m * rank_stride
 * (m in [0, members), the caller being m = me), radix r: round (x, z) sends every element
 * whose index has base-r digit x equal to z to member me + z*r^x and receives the same
 * slots from me - z*r^x. Rounds without an element are not taken. Adds the rounds taken
 * to *rounds and the sends to stats. */
static int exchange_layer(char *work, char *send_pack, char *recv_pack, const layer_view *view,
                          long long r, long long me, long long rank_base, long long rank_stride,
                          MPI_Comm comm, long long *rounds, a2a_stats *stats)
{
    const long long members = view->members;
    for (long long unit = 1; unit < members; unit *= r) {
        for (long long z = 1; z < r && z * unit < members; z++) {
            long long hop = z * unit;
            int dest = (int)(rank_base + (me + hop) % members * rank_stride);
            int source = (int)(rank_base + (me - hop + members) % members * rank_stride);
            long long elements =
                move_digit_elements(work, send_pack, view, r, unit, z, DIGIT_PACK);
            long long blocks = elements * view->blocks_per_element;
            long long bytes = (long long)view->rows * elements * (long long)view->element_bytes;
            int err = a2a_pack_exchange(send_pack, recv_pack, blocks, bytes, dest, source,
                                        TRA2_TAG, comm, stats);
            if (err != MPI_SUCCESS)
                return err;
            move_digit_elements(work, recv_pack, view, r, unit, z, DIGIT_UNPACK);
            *rounds += 1;
        }
    }
    return MPI_SUCCESS;
}

/* Guarantees: both TRA layers on the call's bytes and the final placement (see
 * A2A_Alltoall_tra2); Q divides P, the radices are valid. */
static int tra2_layers(const a2a_byte_call *c, int Q, int node, int local, int radix_local,
                       int radix_global, MPI_Comm comm, a2a_stats *stats)
{
    const int N = c->size / Q;
    const size_t block_bytes = c->block_bytes;
    int err;
    const size_t row_bytes = (size_t)Q * block_bytes;
    const char *send = c->send;
    char *work = c->recv;

    /* work[e][d] (slot e*Q + d) holds the block for node (node + e) % N, local rank
     * (local + d) % Q. The local layer moves column d as one element (N blocks, one per
     * row); the global layer moves row e as one element (Q contiguous blocks). */
    const layer_view local_view = { Q, N, row_bytes, block_bytes, N };
    const layer_view global_view = { N, 1, 0, row_bytes, Q };

    long long max_round_blocks = largest_round_blocks(&local_view, radix_local);
    long long global_round_blocks = largest_round_blocks(&global_view, radix_global);
    if (global_round_blocks > max_round_blocks)
        max_round_blocks = global_round_blocks;

    size_t head = (size_t)(Q - local) * block_bytes;
    for (int e = 0; e < N; e++) {
        const char *dest_node = send + (size_t)((node + e) % N) * row_bytes;
        char *row = work + (size_t)e * row_bytes;
        memcpy(row, dest_node + (size_t)local * block_bytes, head);
        memcpy(row + head, dest_node, (size_t)local * block_bytes);
    }

    char *send_pack, *recv_pack;
    char *temp = a2a_pack_buffers(max_round_blocks, block_bytes, stats, &send_pack, &recv_pack);
    if (!temp)
        return MPI_ERR_NO_MEM;

    long long rounds_local = 0, rounds_global = 0;
    err = exchange_layer(work, send_pack, recv_pack, &local_view, radix_local, local,
                         (long long)node * Q, 1, comm, &rounds_local, stats);
    if (err == MPI_SUCCESS)
        err = exchange_layer(work, send_pack, recv_pack, &global_view, radix_global, node,
                             local, Q, comm, &rounds_global, stats);
    if (err != MPI_SUCCESS) {
        free(temp);
        return err;
    }
    if (stats) {
        stats->rounds += rounds_local + rounds_global;
        stats->rounds_local += rounds_local;
        stats->rounds_global += rounds_global;
    }

    /* Slot (e, d) now holds the block from node - e, local rank local - d: it belongs at
     * recv[((node - e) % N) * Q + (local - d) % Q]. That map is an involution on slots,
     * so swapping pairs places every block. */
    for (long long slot = 0; slot < (long long)c->size; slot++) {
        long long e = slot / Q, d = slot % Q;
        long long target = (node - e + N) % N * Q + (local - d + Q) % Q;
        if (slot < target) {
            char *a = work + (size_t)slot * block_bytes, *b = work + (size_t)target * block_bytes;
            memcpy(send_pack, a, block_bytes);
            memcpy(a, b, block_bytes);
            memcpy(b, send_pack, block_bytes);
        }
    }
    free(temp);
    return MPI_SUCCESS;
}

/* Guarantees: MPI_Alltoall semantics on comm. With Q ranks per node (ppn, or the real node
 * size for ppn == 0; ranks numbered node by node) and N = P/Q nodes: first a TRA among the
 * Q ranks of each node with radix_local r1 in [2, max(2, Q)] brings every block to the
 * rank of its node whose local rank is the destination's; then a TRA among the N ranks with
 * the same local rank (one per node) with radix_global r2 in [2, max(2, N)] carries bundles
 * of Q blocks to the destination node. MPI_ERR_ARG, before any point-to-point message,
 * for ppn < 0, P % Q != 0 or a radix out of range. stats: rounds_local = K(Q, r1),
 * rounds_global = K(N, r2), blocks = N*D(Q, r1) + Q*D(N, r2). Peers are computed in comm;
 * no communicator is created (except by A2A_Node_layout when ppn == 0). The receive buffer
 * is the working array, fully written before it is read; temporary memory is two packing
 * buffers of the largest round, allocated once. A round of more than
 * a2a_max_message_bytes() goes as several messages. Any datatypes with matching
 * signatures (a2a_uniform_begin); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_tra2(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm, int radix_local,
                      int radix_global, int ppn, a2a_stats *stats)
{
    a2a_byte_call c;
    int Q, node, local;
    int err = a2a_uniform_begin(&c, sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    if (err != MPI_SUCCESS)
        return err;
    if (ppn < 0)
        return a2a_uniform_end(&c, MPI_ERR_ARG);
    if ((err = A2A_Node_layout(comm, ppn, &Q, &node, &local)) != MPI_SUCCESS)
        return a2a_uniform_end(&c, err);
    const int N = c.size / Q;
    if (radix_local < 2 || radix_local > (Q > 2 ? Q : 2) || radix_global < 2 ||
        radix_global > (N > 2 ? N : 2))
        return a2a_uniform_end(&c, MPI_ERR_ARG);
    /* kernel traffic never meets the application's */
    err = tra2_layers(&c, Q, node, local, radix_local, radix_global, a2a_private_comm(comm),
                      stats);
    return a2a_uniform_end(&c, err);
}
