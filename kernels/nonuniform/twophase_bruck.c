/* twophase_bruck.c — two-phase non-uniform Bruck (Fan et al., HPDC 2022), radix 2.
 *
 * The baseline TuNA generalises: ceil(log2 P) rounds; round k first exchanges the byte
 * sizes of the blocks it carries (metadata), then the blocks themselves, packed into one
 * contiguous message. Blocks are named by their distance i = (destination - source) mod P;
 * the initial rotation is an index map. Round k (span 2^k) sends every block whose
 * distance has bit k set to rank + 2^k: blocks that have not moved yet come from the send
 * buffer, the others from the temporary buffer T. A received block whose distance has no
 * bit above k has arrived and is unpacked into the receive buffer; the others wait in T.
 * T keeps the layout of the original algorithm: one slot of the largest block for every
 * distance 1..P-1 (TuNA tightens this to the P - K - 1 non-direct distances).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_util.h"
#include "private_comm.h"

enum { TWOPHASE_TAG_META = 0x7a40, TWOPHASE_TAG_DATA = 0x7a41 };

/* Guarantees: the MPI_Alltoallv result on comm for any P >= 1 (MPI_ERR_TYPE for a
 * non-contiguous type; MPI_ERR_COUNT, on every rank alike, when a round of largest blocks
 * could exceed INT_MAX bytes). ceil(log2 P) rounds, each one metadata message and at most
 * one data message (none when all its blocks are empty; they still count as blocks).
 * Temporary memory: T of (P-1) slots, their sizes, the metadata of one round and the
 * packed send and receive data of one round. */
int A2A_Alltoallv_twophase_bruck(const void *sbuf, const int *scounts, const int *sdispls,
                                 MPI_Datatype stype, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                 a2a_stats *stats)
{
    (void)rcounts; /* block sizes travel in the metadata */
    int rank, size, err;
    MPI_Aint sbytes, rbytes;
    if ((err = A2A_Type_bytes(stype, &sbytes)) != MPI_SUCCESS)
        return err;
    if ((err = A2A_Type_bytes(rtype, &rbytes)) != MPI_SUCCESS)
        return err;
    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
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
    if (largest * max_round > INT_MAX)
        return MPI_ERR_COUNT;

    const size_t slot_bytes = (size_t)largest;
    const size_t temp_bytes = (size_t)(size - 1) * slot_bytes;
    const size_t side_bytes = (size_t)size * sizeof(int) + 2 * (size_t)max_round * sizeof(int);
    char *temp = malloc(temp_bytes > 0 ? temp_bytes : 1);
    int *side = malloc(side_bytes);
    if (!temp || !side) {
        free(temp);
        free(side);
        return MPI_ERR_NO_MEM;
    }
    int *temp_sizes = side;                /* bytes waiting in the slot of distance i */
    int *meta_out = side + size;           /* block sizes of the round, in distance order */
    int *meta_in = meta_out + max_round;
    const long long base_bytes = (long long)(temp_bytes + side_bytes);

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
        err = MPI_Sendrecv(meta_out, n, MPI_INT, to, TWOPHASE_TAG_META, meta_in, n, MPI_INT,
                           from, TWOPHASE_TAG_META, comm, MPI_STATUS_IGNORE);
        a2a_count_meta(stats, (long long)n * (long long)sizeof(int));
        if (err != MPI_SUCCESS)
            break;
        for (int b = 0; b < n; b++)
            recv_bytes += meta_in[b];
        if (recv_bytes > (long long)(n * slot_bytes)) {
            err = MPI_ERR_TRUNCATE;
            break;
        }

        char *packed = malloc((size_t)(send_bytes + recv_bytes > 0 ? send_bytes + recv_bytes : 1));
        if (!packed) {
            err = MPI_ERR_NO_MEM;
            break;
        }
        a2a_count_temp(stats, base_bytes + send_bytes + recv_bytes);
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
            err = MPI_Irecv(packed + send_bytes, (int)recv_bytes, MPI_BYTE, from,
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
        offset = (size_t)send_bytes;
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
        free(packed);
        a2a_count_rounds(stats, 1);
    }
    free(temp);
    free(side);
    return err;
}
