/* chunked_p2p.h — point-to-point messages of any byte size, split into pieces of at most
 * a2a_max_message_bytes(), and messages gathered from several places in memory (internal
 * to the non-uniform kernels of liba2a).
 *
 * Used for messages whose size both sides know (a block whose receiver has it in rcounts,
 * or whose size travelled before): both compute the same number of pieces, all pieces
 * carry the same tag, and MPI's non-overtaking order matches them one to one.
 */
#ifndef A2A_CHUNKED_P2P_H
#define A2A_CHUNKED_P2P_H

#include "kernel_util.h"

/* Guarantees: the number of pieces a message of `bytes` bytes takes (0 for none). */
static inline long long a2a_chunk_count(long long bytes)
{
    long long limit = a2a_max_message_bytes();
    return bytes <= 0 ? 0 : (bytes + limit - 1) / limit;
}

/* Guarantees: posts a2a_chunk_count(bytes) MPI_Isend (send != 0) or MPI_Irecv of
 * consecutive pieces of buf to/from peer, appending the requests at requests[*n] (the
 * caller sized the array); returns the first MPI error. */
static inline int a2a_post_chunked(int send, void *buf, long long bytes, int peer, int tag,
                                   MPI_Comm comm, MPI_Request *requests, int *n)
{
    const long long limit = a2a_max_message_bytes();
    char *at = buf;
    for (long long done = 0; done < bytes;) {
        int piece = (int)(bytes - done < limit ? bytes - done : limit);
        int err = send ? MPI_Isend(at + done, piece, MPI_BYTE, peer, tag, comm, &requests[*n])
                       : MPI_Irecv(at + done, piece, MPI_BYTE, peer, tag, comm, &requests[*n]);
        if (err != MPI_SUCCESS)
            return err;
        (*n)++;
        done += piece;
    }
    return MPI_SUCCESS;
}

/* One message gathered from pieces in memory: `bytes` at `buf` as MPI_BYTE, or
 * (type != MPI_BYTE) one item of a committed hindexed type relative to MPI_BOTTOM;
 * bytes 0 = not sent. */
typedef struct a2a_gathered {
    void *buf;
    long long bytes;
    MPI_Datatype type;
} a2a_gathered;

/* Guarantees: msg describes the n pieces (ptrs[s], lengths[s] bytes; none empty, bytes in
 * all) as one message: plain bytes for one, a committed hindexed type of MPI_BYTE at
 * absolute addresses for several (addresses: scratch of n entries), nothing for none.
 * lengths is read only for several pieces. After an error msg holds no type. */
static inline int a2a_describe_gathered(int n, char *const *ptrs, const int *lengths,
                                        MPI_Aint *addresses, long long bytes, a2a_gathered *msg)
{
    msg->buf = n > 0 ? ptrs[0] : NULL;
    msg->bytes = n > 0 ? bytes : 0;
    msg->type = MPI_BYTE;
    if (n <= 1)
        return MPI_SUCCESS;
    for (int s = 0; s < n; s++) {
        int err = MPI_Get_address(ptrs[s], &addresses[s]);
        if (err != MPI_SUCCESS)
            return err;
    }
    int err = MPI_Type_create_hindexed(n, lengths, addresses, MPI_BYTE, &msg->type);
    if (err != MPI_SUCCESS) {
        msg->type = MPI_BYTE;
        msg->bytes = 0;
        return err;
    }
    msg->buf = MPI_BOTTOM;
    return MPI_Type_commit(&msg->type);
}

/* Guarantees: posts msg (if not empty) to/from peer (send != 0: MPI_Isend): plain bytes in
 * pieces of at most a2a_max_message_bytes() (a2a_post_chunked), or the one item of its
 * type; appends the requests at requests[*n]; returns the first MPI error. */
static inline int a2a_post_gathered(int send, a2a_gathered *msg, int peer, int tag,
                                    MPI_Comm comm, MPI_Request *requests, int *n)
{
    if (msg->bytes == 0)
        return MPI_SUCCESS;
    if (msg->type == MPI_BYTE)
        return a2a_post_chunked(send, msg->buf, msg->bytes, peer, tag, comm, requests, n);
    int err = send ? MPI_Isend(msg->buf, 1, msg->type, peer, tag, comm, &requests[*n])
                   : MPI_Irecv(msg->buf, 1, msg->type, peer, tag, comm, &requests[*n]);
    if (err == MPI_SUCCESS)
        (*n)++;
    return err;
}

#endif
