/* sdde_common.c — argument checks, byte-message bookkeeping and result arrays shared by
 * the SDDE kernels (see sdde_internal.h). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdde_internal.h"
#include "private_comm.h"

/* ---- call numbering ------------------------------------------------------------------ */

static int seq_keyval = MPI_KEYVAL_INVALID;

/* Guarantees: the number of SDDE calls made on comm before this one, modulo
 * SDDE_SEQ_MOD, and the counter advanced. Every rank of comm makes the same calls in the
 * same order, so all ranks get the same number. The counter lives in an attribute of
 * comm (not copied by MPI_Comm_dup, released with comm). */
static int next_seq(MPI_Comm comm, int *seq)
{
    int err;
    if (seq_keyval == MPI_KEYVAL_INVALID) {
        err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                     &seq_keyval, NULL);
        if (err != MPI_SUCCESS)
            return err;
    }
    void *value = NULL;
    int found = 0;
    err = MPI_Comm_get_attr(comm, seq_keyval, &value, &found);
    if (err != MPI_SUCCESS)
        return err;
    intptr_t count = found ? (intptr_t)value : 0;
    *seq = (int)(count % SDDE_SEQ_MOD);
    return MPI_Comm_set_attr(comm, seq_keyval, (void *)((count + 1) % SDDE_SEQ_MOD));
}

/* Guarantees: a tag in [0x4000, 0x4fff] (below the MPI minimum of MPI_TAG_UB, 32767),
 * distinct for each (seq in 0..127, algorithm in 0..7, phase in 0..3). The range is
 * reserved for the SDDE kernels: the other liba2a kernels use 0x2a01..0x2a03 and
 * 0x7a10..0x7a41, so a rank already in another kernel cannot be taken for a sender. */
int sdde_tag(const sdde_call *call, int algorithm, int phase)
{
    return 0x4000 | (call->seq << 5) | ((algorithm & 7) << 2) | (phase & 3);
}

/* ---- accounted memory ----------------------------------------------------------------- */

/* Guarantees: a block of max(bytes, 1) bytes or NULL; bytes added to the running total. */
void *sdde_alloc(sdde_call *call, size_t bytes)
{
    void *ptr = malloc(bytes ? bytes : 1);
    if (ptr) {
        call->temp_now += (long long)bytes;
        a2a_count_temp(call->stats, call->temp_now);
    }
    return ptr;
}

/* Guarantees: as sdde_alloc, zero-filled. */
void *sdde_calloc(sdde_call *call, size_t bytes)
{
    void *ptr = calloc(bytes ? bytes : 1, 1);
    if (ptr) {
        call->temp_now += (long long)bytes;
        a2a_count_temp(call->stats, call->temp_now);
    }
    return ptr;
}

/* Guarantees: ptr (from sdde_alloc of `bytes`) released and unaccounted; NULL is a no-op. */
void sdde_free(sdde_call *call, void *ptr, size_t bytes)
{
    if (ptr) {
        free(ptr);
        call->temp_now -= (long long)bytes;
    }
}

/* Guarantees: *ptr holds `want` bytes (contents of the first `have` kept); the running
 * total follows. MPI_ERR_NO_MEM leaves *ptr as it was. */
static int grow(sdde_call *call, void **ptr, size_t have, size_t want)
{
    void *bigger = realloc(*ptr, want);
    if (!bigger)
        return MPI_ERR_NO_MEM;
    *ptr = bigger;
    call->temp_now += (long long)(want - have);
    a2a_count_temp(call->stats, call->temp_now);
    return MPI_SUCCESS;
}

/* Guarantees: msg appended to list (capacity doubled as needed). */
int sdde_list_push(sdde_call *call, sdde_list *list, const sdde_msg *msg)
{
    if (list->n == list->cap) {
        int cap = list->cap ? 2 * list->cap : 16;
        void *msgs = list->msgs;
        int err = grow(call, &msgs, (size_t)list->cap * sizeof(sdde_msg),
                       (size_t)cap * sizeof(sdde_msg));
        if (err != MPI_SUCCESS)
            return err;
        list->msgs = msgs;
        list->cap = cap;
    }
    list->msgs[list->n++] = *msg;
    return MPI_SUCCESS;
}

/* Guarantees: the list's storage released; the list is empty again. */
void sdde_list_free(sdde_call *call, sdde_list *list)
{
    sdde_free(call, list->msgs, (size_t)list->cap * sizeof(sdde_msg));
    list->msgs = NULL;
    list->n = list->cap = 0;
}

/* Guarantees: pool->data has room for `bytes` more at *offset (the pool's old end); the
 * pool's data pointer may move, offsets stay valid. pool->data is never NULL after it. */
int sdde_pool_reserve(sdde_call *call, sdde_pool *pool, size_t bytes, size_t *offset)
{
    if (pool->used + bytes > pool->cap || !pool->data) {
        size_t cap = pool->cap ? pool->cap : 256;
        while (cap < pool->used + bytes)
            cap *= 2;
        void *data = pool->data;
        int err = grow(call, &data, pool->cap, cap);
        if (err != MPI_SUCCESS)
            return err;
        pool->data = data;
        pool->cap = cap;
    }
    *offset = pool->used;
    pool->used += bytes;
    return MPI_SUCCESS;
}

/* Guarantees: the pool's storage released; the pool is empty again. */
void sdde_pool_free(sdde_call *call, sdde_pool *pool)
{
    sdde_free(call, pool->data, pool->cap);
    pool->data = NULL;
    pool->used = pool->cap = 0;
}

/* Guarantees: every in-pool message of list->msgs[from..n) points at its bytes. */
void sdde_resolve(sdde_list *list, int from, const sdde_pool *pool)
{
    for (int i = from; i < list->n; i++)
        if (list->msgs[i].in_pool) {
            list->msgs[i].data = pool->data + list->msgs[i].offset;
            list->msgs[i].in_pool = 0;
        }
}

/* Guarantees: one message to another rank added to the stats (if any). */
void sdde_count_message(sdde_call *call, long long blocks, long long payload, long long meta,
                        int global)
{
    a2a_stats *s = call->stats;
    if (!s)
        return;
    s->messages += 1;
    s->blocks += blocks;
    s->bytes += payload;
    s->meta_bytes += meta;
    s->rounds += 1;
    if (global)
        s->rounds_global += 1;
    else
        s->rounds_local += 1;
}

/* Guarantees: the message claimed in *probed is received into the pool and appended to
 * got with its source and size. */
int sdde_receive_matched(sdde_call *call, a2a_probed *probed, sdde_list *got,
                         sdde_pool *pool)
{
    int bytes, err;
    if ((err = MPI_Get_count(&probed->status, MPI_BYTE, &bytes)) != MPI_SUCCESS)
        return err;
    size_t offset;
    if ((err = sdde_pool_reserve(call, pool, (size_t)bytes, &offset)) != MPI_SUCCESS)
        return err;
    err = a2a_recv_probed(pool->data + offset, bytes, MPI_BYTE, probed);
    if (err != MPI_SUCCESS)
        return err;
    sdde_msg m = { probed->status.MPI_SOURCE, bytes, NULL, offset, 1 };
    return sdde_list_push(call, got, &m);
}

/* Guarantees: see sdde_internal.h. */
int sdde_post_sends(sdde_call *call, const sdde_msg *sends, int n, int tag, int synchronous,
                    MPI_Request **requests, size_t *request_bytes, int *posted)
{
    int err = MPI_SUCCESS;
    *request_bytes = (size_t)n * sizeof(MPI_Request);
    *posted = 0;
    MPI_Request *slots = *requests = sdde_alloc(call, *request_bytes);
    if (!slots)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        slots[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
        if (sends[i].peer == call->rank)
            continue;
        MPI_Request *request = &slots[(*posted)++];
        if (synchronous)
            err = MPI_Issend(sends[i].data, sends[i].bytes, MPI_BYTE, sends[i].peer, tag,
                             call->comm, request);
        else
            err = MPI_Isend(sends[i].data, sends[i].bytes, MPI_BYTE, sends[i].peer, tag,
                            call->comm, request);
    }
    return err;
}

/* Guarantees: see sdde_internal.h. */
int sdde_receive_expected(sdde_call *call, int expected, int tag, sdde_list *got,
                          sdde_pool *pool)
{
    int err = MPI_SUCCESS;
    for (int k = 0; k < expected && err == MPI_SUCCESS; k++) {
        a2a_probed probed;
        err = a2a_probe(MPI_ANY_SOURCE, tag, call->comm, &probed);
        if (err == MPI_SUCCESS)
            err = sdde_receive_matched(call, &probed, got, pool);
    }
    return err;
}

/* Guarantees: see sdde_internal.h. */
int sdde_complete_sends(sdde_call *call, MPI_Request *requests, size_t request_bytes,
                        int posted, int err)
{
    int wait_err = MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
    sdde_free(call, requests, request_bytes);
    return err != MPI_SUCCESS ? err : wait_err;
}

/* ---- the plain algorithms' frame --------------------------------------------------------- */

/* Guarantees: call->got holds every message sent to this rank: self-messages pointing
 * into the send buffer, the others exchanged by `exchange` and resolved in pool[0]. */
int sdde_direct(sdde_call *call, sdde_exchange exchange, int algorithm)
{
    int self = 0, err;
    for (int i = 0; i < call->nsend; i++) {
        const sdde_msg *m = &call->sends[i];
        if (m->peer == call->rank) {
            if ((err = sdde_list_push(call, &call->got, m)) != MPI_SUCCESS)
                return err;
            self++;
        } else {
            sdde_count_message(call, 1, m->bytes, 0, 1);
        }
    }
    int expected = -1;
    if (call->known_nnz >= 0) {
        expected = call->known_nnz - self;
        if (expected < 0)
            return MPI_ERR_COUNT;
    }
    int from = call->got.n;
    err = exchange(call, call->sends, call->nsend, expected, sdde_tag(call, algorithm, 1),
                   &call->got, &call->pool[0]);
    if (err != MPI_SUCCESS)
        return err;
    sdde_resolve(&call->got, from, &call->pool[0]);
    return MPI_SUCCESS;
}

/* ---- drivers ----------------------------------------------------------------------------- */

/* Guarantees: ascending source rank; equal sources (only with repeated destinations,
 * which the API forbids) keep no particular order. */
static int by_source(const void *a, const void *b)
{
    int x = ((const sdde_msg *)a)->peer, y = ((const sdde_msg *)b)->peer;
    return (x > y) - (x < y);
}

/* Guarantees: the call frame set up for comm, with nothing allocated yet. */
static int begin_call(sdde_call *call, int ppn, int known_nnz, MPI_Comm comm,
                      a2a_stats *stats)
{
    memset(call, 0, sizeof *call);
    int inter = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return MPI_ERR_COMM; /* the exchange is defined on one group */
    call->comm = a2a_private_comm(comm); /* never the application's messages */
    call->ppn = ppn;
    call->known_nnz = known_nnz >= 0 ? known_nnz : -1;
    call->stats = stats;
    int err;
    if ((err = MPI_Comm_rank(comm, &call->rank)) != MPI_SUCCESS)
        return err;
    if ((err = MPI_Comm_size(comm, &call->size)) != MPI_SUCCESS)
        return err;
    return next_seq(call->comm, &call->seq);
}

/* Guarantees: everything the frame holds is released. */
static void end_call(sdde_call *call)
{
    sdde_free(call, (void *)call->sends, (size_t)call->nsend * sizeof(sdde_msg));
    call->sends = NULL;
    sdde_list_free(call, &call->got);
    sdde_pool_free(call, &call->pool[0]);
    sdde_pool_free(call, &call->pool[1]);
}

/* Guarantees: err returned at once, *out untouched, when err is an error; else *out = a
 * malloc'ed array of n bytes, or NULL when n == 0. */
static int output_array(int err, size_t n, void **out)
{
    if (err != MPI_SUCCESS)
        return err;
    *out = NULL;
    if (n == 0)
        return MPI_SUCCESS;
    *out = malloc(n);
    return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Guarantees: *type_bytes = the element size of a contiguous type of non-zero size. */
static int element_bytes(MPI_Datatype type, MPI_Aint *type_bytes)
{
    int err = A2A_Type_bytes(type, type_bytes);
    if (err != MPI_SUCCESS)
        return err;
    return *type_bytes > 0 ? MPI_SUCCESS : MPI_ERR_TYPE;
}

/* Guarantees: the element sizes of both types in *sbytes and *rbytes (element_bytes);
 * the send type's error first. */
static int element_sizes(MPI_Datatype sendtype, MPI_Datatype recvtype, MPI_Aint *sbytes,
                         MPI_Aint *rbytes)
{
    int err = element_bytes(sendtype, sbytes);
    return err != MPI_SUCCESS ? err : element_bytes(recvtype, rbytes);
}

/* Guarantees: call->got sorted by source and checked against the caller's recv_nnz. */
static int sort_received(sdde_call *call)
{
    if (call->got.n > 1)
        qsort(call->got.msgs, (size_t)call->got.n, sizeof(sdde_msg), by_source);
    if (call->known_nnz >= 0 && call->got.n != call->known_nnz)
        return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

/* Guarantees: the call begun (begin_call) with its send side: msg_bytes, send_base, and
 * *sends, an array of send_nnz messages for the caller to fill, as call->sends. Returns
 * begin_call's error, or MPI_ERR_NO_MEM when the array cannot be allocated. */
static int begin_sends(sdde_call *call, int ppn, int known_nnz, MPI_Comm comm,
                       a2a_stats *stats, int msg_bytes, const void *sendvals, int send_nnz,
                       sdde_msg **sends)
{
    int err;
    if ((err = begin_call(call, ppn, known_nnz, comm, stats)) != MPI_SUCCESS)
        return err;
    call->msg_bytes = msg_bytes;
    call->send_base = sendvals;
    *sends = sdde_alloc(call, (size_t)send_nnz * sizeof(sdde_msg));
    if (!*sends)
        return MPI_ERR_NO_MEM;
    call->sends = *sends;
    call->nsend = send_nnz;
    return MPI_SUCCESS;
}

/* Guarantees: when err is MPI_SUCCESS, the algorithm run and call->got sorted and checked
 * (sort_received); returns the first error, err itself when it was one. */
static int exchange_sorted(sdde_call *call, sdde_algorithm algorithm, int err)
{
    if (err == MPI_SUCCESS)
        err = algorithm(call);
    if (err == MPI_SUCCESS)
        err = sort_received(call);
    return err;
}

/* Guarantees: validated constant-size arguments turned into byte messages, the
 * algorithm run, and the sorted result in the caller's arrays (see a2a_sdde.h). */
int sdde_run_constant(sdde_algorithm algorithm, int ppn, int send_nnz, const int *dest,
                      int sendcount, MPI_Datatype sendtype, const void *sendvals,
                      int *recv_nnz, int **src, int recvcount, MPI_Datatype recvtype,
                      void **recvvals, MPI_Comm comm, a2a_stats *stats)
{
    if (!recv_nnz || !src || !recvvals)
        return MPI_ERR_ARG;
    *src = NULL;
    *recvvals = NULL;
    MPI_Aint sbytes, rbytes;
    int err = element_sizes(sendtype, recvtype, &sbytes, &rbytes);
    if (err != MPI_SUCCESS)
        return err;
    if (send_nnz < 0 || sendcount < 0 || recvcount < 0 || (send_nnz > 0 && !dest))
        return MPI_ERR_ARG;
    long long msg_bytes = (long long)sendcount * sbytes;
    if (msg_bytes != (long long)recvcount * rbytes)
        return MPI_ERR_ARG;
    if (msg_bytes > INT_MAX)
        return MPI_ERR_COUNT;
    if (send_nnz > 0 && msg_bytes > 0 && !sendvals)
        return MPI_ERR_ARG;

    sdde_call call;
    sdde_msg *sends;
    if ((err = begin_sends(&call, ppn, *recv_nnz, comm, stats, (int)msg_bytes, sendvals,
                           send_nnz, &sends)) != MPI_SUCCESS)
        return err;
    for (int i = 0; i < send_nnz && err == MPI_SUCCESS; i++) {
        if (dest[i] < 0 || dest[i] >= call.size)
            err = MPI_ERR_ARG;
        sdde_msg m = { dest[i], (int)msg_bytes,
                       msg_bytes ? (const unsigned char *)sendvals + (size_t)i * (size_t)msg_bytes
                                 : NULL,
                       0, 0 };
        sends[i] = m;
    }
    err = exchange_sorted(&call, algorithm, err);
    int n = call.got.n;
    for (int i = 0; i < n && err == MPI_SUCCESS; i++)
        if (call.got.msgs[i].bytes != call.msg_bytes)
            err = MPI_ERR_TRUNCATE;
    err = output_array(err, (size_t)n * sizeof(int), (void **)src);
    err = output_array(err, (size_t)n * (size_t)msg_bytes, recvvals);
    if (err == MPI_SUCCESS) {
        unsigned char *out = *recvvals;
        for (int i = 0; i < n; i++) {
            (*src)[i] = call.got.msgs[i].peer;
            if (msg_bytes)
                memcpy(out + (size_t)i * (size_t)msg_bytes, call.got.msgs[i].data,
                       (size_t)msg_bytes);
        }
        *recv_nnz = n;
    } else {
        free(*src);
        free(*recvvals);
        *src = NULL;
        *recvvals = NULL;
    }
    end_call(&call);
    return err;
}

/* Guarantees: validated variable-size arguments turned into byte messages, the
 * algorithm run, and the sorted result in the caller's arrays (see a2a_sdde.h). */
int sdde_run_variable(sdde_algorithm algorithm, int ppn, int send_nnz, int send_size,
                      const int *dest, const int *sendcounts, const int *sdispls,
                      MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                      int *recv_size, int **src, int **recvcounts, int **rdispls,
                      MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                      a2a_stats *stats)
{
    if (!recv_nnz || !recv_size || !src || !recvcounts || !rdispls || !recvvals)
        return MPI_ERR_ARG;
    *src = *recvcounts = *rdispls = NULL;
    *recvvals = NULL;
    MPI_Aint sbytes, rbytes;
    int err = element_sizes(sendtype, recvtype, &sbytes, &rbytes);
    if (err != MPI_SUCCESS)
        return err;
    if (send_nnz < 0 || send_size < 0 ||
        (send_nnz > 0 && (!dest || !sendcounts || !sdispls)))
        return MPI_ERR_ARG;
    for (int i = 0; i < send_nnz; i++) {
        if (sendcounts[i] < 0 || sdispls[i] < 0 ||
            (long long)sdispls[i] + sendcounts[i] > send_size)
            return MPI_ERR_ARG;
        if ((long long)sendcounts[i] * sbytes > INT_MAX)
            return MPI_ERR_COUNT;
        if (sendcounts[i] > 0 && !sendvals)
            return MPI_ERR_ARG;
    }

    sdde_call call;
    sdde_msg *sends;
    if ((err = begin_sends(&call, ppn, *recv_nnz, comm, stats, -1, sendvals, send_nnz,
                           &sends)) != MPI_SUCCESS)
        return err;
    for (int i = 0; i < send_nnz && err == MPI_SUCCESS; i++) {
        if (dest[i] < 0 || dest[i] >= call.size)
            err = MPI_ERR_ARG;
        sdde_msg m = { dest[i], (int)((long long)sendcounts[i] * sbytes),
                       sendvals ? (const unsigned char *)sendvals +
                                      (size_t)sdispls[i] * (size_t)sbytes
                                : NULL,
                       0, 0 };
        sends[i] = m;
    }
    err = exchange_sorted(&call, algorithm, err);
    int n = call.got.n;
    long long total = 0;
    for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
        if (call.got.msgs[i].bytes % rbytes != 0)
            err = MPI_ERR_TRUNCATE;
        total += call.got.msgs[i].bytes / rbytes;
    }
    if (err == MPI_SUCCESS && total > INT_MAX)
        err = MPI_ERR_COUNT;
    if (err == MPI_SUCCESS && *recv_size >= 0 && *recv_size != total)
        err = MPI_ERR_COUNT;
    err = output_array(err, (size_t)n * sizeof(int), (void **)src);
    err = output_array(err, (size_t)n * sizeof(int), (void **)recvcounts);
    err = output_array(err, (size_t)n * sizeof(int), (void **)rdispls);
    err = output_array(err, (size_t)total * (size_t)rbytes, recvvals);
    if (err == MPI_SUCCESS) {
        unsigned char *out = *recvvals;
        int displ = 0;
        for (int i = 0; i < n; i++) {
            const sdde_msg *m = &call.got.msgs[i];
            (*src)[i] = m->peer;
            (*recvcounts)[i] = (int)(m->bytes / rbytes);
            (*rdispls)[i] = displ;
            if (m->bytes)
                memcpy(out + (size_t)displ * (size_t)rbytes, m->data, (size_t)m->bytes);
            displ += (*recvcounts)[i];
        }
        *recv_nnz = n;
        *recv_size = (int)total;
    } else {
        free(*src);
        free(*recvcounts);
        free(*rdispls);
        free(*recvvals);
        *src = *recvcounts = *rdispls = NULL;
        *recvvals = NULL;
    }
    end_call(&call);
    return err;
}
