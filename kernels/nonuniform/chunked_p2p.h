/* chunked_p2p.h — point-to-point messages of any byte size, split into pieces of at most
 * a2a_max_message_bytes() (internal to the non-uniform kernels of liba2a).
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

#endif
