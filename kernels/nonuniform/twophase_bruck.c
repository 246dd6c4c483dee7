/* twophase_bruck.c — two-phase non-uniform Bruck (Fan et al., HPDC 2022), radix 2.
 *
 * The baseline TuNA generalises: ceil(log2 P) rounds; round k first exchanges the byte
 * sizes of the blocks it carries (metadata), then the blocks themselves, packed into one
 * contiguous message. The size of the round's first block (distance 2^k, from the
 * sender's send buffer to the receiver's receive buffer) never travels: the receiver has
 * it in rcounts, so a round of that block alone sends no size message. Blocks are named by their distance i = (destination - source) mod P;
 * the initial rotation is an index map. Round k (span 2^k) sends every block whose
 * distance has bit k set to rank + 2^k: blocks that have not moved yet come from the send
 * buffer, the others from the temporary buffer T. A received block whose distance has no
 * bit above k has arrived and is unpacked into the receive buffer; the others wait in T.
 * T keeps the layout of the original algorithm: one slot of the largest block for every
 * distance 1..P-1 (TuNA tightens this to the P - K - 1 non-direct distances).
 */
#include <stdlib.h>
#include <string.h>

#include "kernel_util.h"
#include "private_comm.h"
#include "v_staging.h"

enum { TWOPHASE_TAG_META = 0x7a40, TWOPHASE_TAG_DATA = 0x7a41 };

/* The kernel on run types: see A2A_Alltoallv_twophase_bruck below. */
static int twophase_runs(const void *sbuf, const int *scounts, const int *sdispls,
                         void *rbuf, const int *rcounts, const int *rdispls, MPI_Comm comm,
                         const a2a_v_args *args, a2a_stats *stats)
{
    int err;
    const int rank = args->rank, size = args->size;
    const MPI_Aint sbytes = args->sbytes, rbytes = args->rbytes;
    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    const char *send = sbuf;
    char *recv = rbuf;

    if (scounts[rank] > 0)
        memcpy(recv + (MPI_Aint)rdispls[rank] * rbytes,
               send + (MPI_Aint)sdispls[rank] * sbytes,
               (size_t)((long long)scounts[rank] * sbytes));
    if (size == 1)
        return MPI_SUCCESS;

    long long largest = 0;
    for (int d = 0; d < size; d++)
        if ((long long)scounts[d] * sbytes > largest)
            largest = (long long)scounts[d] * sbytes;
    long long mine = largest;
    if ((err = MPI_Allreduce(&mine, &largest, 1, MPI_LONG_LONG, MPI_MAX, comm)) != MPI_SUCCESS)
        return err;
    long max_round = 0;
    for (long span = 1; span < size; span *= 2) {
        long n = 0;
        for (long start = span; start < size; start += 2 * span)
            n += size - start < span ? size - start : span;
        if (n > max_round)
            max_round = n;
    }
    if (largest * max_round > a2a_max_message_bytes())
        return MPI_ERR_COUNT;

    /* Two allocations per call: the sizes, and the payload (T, then the packed round).
     * They stay apart because under SimGrid large allocations are shared among the
     * simulated ranks (smpi/auto-shared-malloc-thresh), which payload tolerates and sizes
     * do not. */
    const size_t slot_bytes = (size_t)largest;
    const size_t temp_bytes = (size_t)(size - 1) * slot_bytes;
    const size_t side_bytes = (size_t)size * sizeof(int) + 2 * (size_t)max_round * sizeof(int);
    const size_t round_bytes = (size_t)max_round * slot_bytes;
    int *side = malloc(side_bytes);
    char *temp = malloc(temp_bytes + 2 * round_bytes > 0 ? temp_bytes + 2 * round_bytes : 1);
    if (!side || !temp) {
        free(side);
        free(temp);
        return MPI_ERR_NO_MEM;
    }
    int *temp_sizes = side;                /* bytes waiting in the slot of distance i */
    int *meta_out = side + size;           /* block sizes of the round, in distance order */
    int *meta_in = meta_out + max_round;
    char *packed = temp + temp_bytes;      /* the round's data: sent, then received */
    a2a_count_temp(stats, (long long)(side_bytes + temp_bytes + 2 * round_bytes));

    for (long span = 1; span < size && err == MPI_SUCCESS; span *= 2) {
        int to = (int)((rank + span) % size), from = (int)((rank - span + size) % size);
        int n = 0;
        long long send_bytes = 0, recv_bytes = 0;
        for (long start = span; start < size; start += 2 * span)
            for (long i = start; i < start + span && i < size; i++) {
                long long bytes = i % span == 0
                                      ? (long long)scounts[(rank + i) % size] * sbytes
                                      : temp_sizes[i];
                meta_out[n++] = (int)bytes;
                send_bytes += bytes;
            }
        if (n > 1) {
            err = MPI_Sendrecv(meta_out + 1, n - 1, MPI_INT, to, TWOPHASE_TAG_META, meta_in + 1,
                               n - 1, MPI_INT, from, TWOPHASE_TAG_META, comm, MPI_STATUS_IGNORE);
            a2a_count_meta(stats, (long long)(n - 1) * (long long)sizeof(int));
            if (err != MPI_SUCCESS)
                break;
        }
        meta_in[0] = (int)((long long)rcounts[from] * rbytes); /* distance span: direct */
        for (int b = 0; b < n; b++)
            recv_bytes += meta_in[b];
        if (recv_bytes > (long long)round_bytes || meta_in[0] < 0) {
            err = MPI_ERR_TRUNCATE;
            break;
        }
        size_t offset = 0;
        int b = 0;
        for (long start = span; start < size; start += 2 * span)
            for (long i = start; i < start + span && i < size; i++, b++) {
                if (meta_out[b] == 0)
                    continue;
                const char *block = i % span == 0
                                        ? send + (MPI_Aint)sdispls[(rank + i) % size] * sbytes
                                        : temp + (size_t)(i - 1) * slot_bytes;
                memcpy(packed + offset, block, (size_t)meta_out[b]);
                offset += (size_t)meta_out[b];
            }

        MPI_Request requests[2];
        int nreq = 0;
        if (recv_bytes > 0)
            err = MPI_Irecv(packed + round_bytes, (int)recv_bytes, MPI_BYTE, from,
                            TWOPHASE_TAG_DATA, comm, &requests[nreq++]);
        if (send_bytes > 0 && err == MPI_SUCCESS) {
            err = MPI_Isend(packed, (int)send_bytes, MPI_BYTE, to, TWOPHASE_TAG_DATA, comm,
                            &requests[nreq++]);
            a2a_count_send(stats, n, send_bytes);
        } else if (stats) {
            stats->blocks += n;
        }
        if (nreq > 0) {
            int wait_err = MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE);
            if (err == MPI_SUCCESS)
                err = wait_err;
        }

        /* Unpack: arrived blocks (no bit above k) to the receive buffer, others to T. */
        offset = round_bytes;
        b = 0;
        for (long start = span; start < size && err == MPI_SUCCESS; start += 2 * span)
            for (long i = start; i < start + span && i < size; i++, b++) {
                size_t bytes = (size_t)meta_in[b];
                if (i >= 2 * span) {
                    if (bytes > slot_bytes) {
                        err = MPI_ERR_TRUNCATE;
                        break;
                    }
                    temp_sizes[i] = (int)bytes;
                }
                if (bytes == 0)
                    continue;
                char *place = i < 2 * span
                                  ? recv + (MPI_Aint)rdispls[(rank - i + size) % size] * rbytes
                                  : temp + (size_t)(i - 1) * slot_bytes;
                memcpy(place, packed + offset, bytes);
                offset += bytes;
            }
        a2a_count_rounds(stats, 1);
    }
    free(side);
    free(temp);
    return err;
}

/* Guarantees: the MPI_Alltoallv result on comm (any types: those that are not one
 * ascending run are packed through MPI first; MPI_ERR_COMM for an intercommunicator)
 * for any P >= 1 (MPI_ERR_COUNT, on every rank alike and before any data moves, when
 * a round of largest blocks could exceed a2a_max_message_bytes()). ceil(log2 P) rounds,
 * each one size message (the sizes of all blocks but the first: none when that is the
 * only one) and at most one data message (none when all its blocks are empty; they still
 * count as blocks). Temporary memory, allocated once per call: T of (P-1) slots, their
 * sizes, the sizes of one round and the packed send and receive data of a round of
 * largest blocks. */
int A2A_Alltoallv_twophase_bruck(A2A_V_PARAMS, a2a_stats *stats)
{
    const a2a_v_args args = { .radix = 0 };
    return a2a_v_staged(twophase_runs, &args, A2A_V_ARGS, stats);
}
