/* locality.c — the locality-aware SDDEs (Algorithms 4 and 5 of Bienz et al.): all
 * messages of a rank for one region travel as one aggregated message to the rank with
 * the same local rank there, exchanged by the personalized or the NBX method; then each
 * region redistributes what arrived among its members. */
#include <stdlib.h>
#include <string.h>

#include "sdde_internal.h"

/* One original message on its way from src to dest; data points at its payload. */
typedef struct record {
    int src, dest, bytes;
    const unsigned char *data;
} record;

/* An aggregated message: int n, then n headers (src, dest, bytes), then the n payloads
 * back to back in header order. No records = an empty (0-byte) message. */
enum { HEADER_INTS = 3 };

/* Guarantees: ascending destination, then ascending source. */
static int by_dest(const void *a, const void *b)
{
    const record *x = a, *y = b;
    if (x->dest != y->dest)
        return (x->dest > y->dest) - (x->dest < y->dest);
    return (x->src > y->src) - (x->src < y->src);
}

/* Guarantees: the header bytes of the packed form of n records (0 for none). */
static size_t header_bytes(int n)
{
    return n ? sizeof(int) * (1 + (size_t)HEADER_INTS * (size_t)n) : 0;
}

/* Guarantees: the payload bytes of records[0..n). */
static size_t payload_bytes(const record *records, int n)
{
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += (size_t)records[i].bytes;
    return bytes;
}

/* Guarantees: records[0..n) written to out in the packed form (header_bytes(n) +
 * payload_bytes bytes); out may be unaligned. */
static void pack(const record *records, int n, unsigned char *out)
{
    if (n == 0)
        return;
    memcpy(out, &n, sizeof(int));
    unsigned char *header = out + sizeof(int);
    unsigned char *payload = out + header_bytes(n);
    for (int i = 0; i < n; i++) {
        int h[HEADER_INTS] = { records[i].src, records[i].dest, records[i].bytes };
        memcpy(header, h, sizeof h);
        header += sizeof h;
        if (records[i].bytes)
            memcpy(payload, records[i].data, (size_t)records[i].bytes);
        payload += records[i].bytes;
    }
}

/* Guarantees: the number of records in a packed message, or -1 if its size cannot hold
 * its header. */
static int packed_count(const sdde_msg *m)
{
    if (m->bytes == 0)
        return 0;
    int n;
    if ((size_t)m->bytes < sizeof(int))
        return -1;
    memcpy(&n, m->data, sizeof(int));
    if (n <= 0 || header_bytes(n) > (size_t)m->bytes)
        return -1;
    return n;
}

/* Guarantees: the records of packed message m appended at out (packed_count(m) of them,
 * payloads pointing into m), or MPI_ERR_INTERN when the sizes do not add up. */
static int unpack(const sdde_msg *m, record *out)
{
    int n = packed_count(m);
    if (n < 0)
        return MPI_ERR_INTERN;
    const unsigned char *header = m->data + sizeof(int);
    size_t offset = header_bytes(n);
    for (int i = 0; i < n; i++) {
        int h[HEADER_INTS];
        memcpy(h, header, sizeof h);
        header += sizeof h;
        if (h[2] < 0 || offset + (size_t)h[2] > (size_t)m->bytes)
            return MPI_ERR_INTERN;
        record r = { h[0], h[1], h[2], m->data + offset };
        out[i] = r;
        offset += (size_t)h[2];
    }
    return offset == (size_t)m->bytes ? MPI_SUCCESS : MPI_ERR_INTERN;
}

/* The locality-aware frame around an inter-region exchange. */
typedef struct region_frame {
    int q, regions, node, local, first; /* region size, count, mine, my local rank, its first rank */
} region_frame;

/* Guarantees: *msgs (room for nmsgs messages) and *buffer (total bytes, in
 * *buffer_bytes) allocated with accounting; MPI_ERR_NO_MEM when either is missing (the
 * other stays set for the caller to free), MPI_ERR_COUNT when total exceeds an int. */
static int alloc_packed(sdde_call *call, int nmsgs, size_t total, sdde_msg **msgs,
                        unsigned char **buffer, size_t *buffer_bytes)
{
    *msgs = sdde_alloc(call, (size_t)nmsgs * sizeof(sdde_msg));
    *buffer = sdde_alloc(call, total);
    *buffer_bytes = total;
    if (!*msgs || !*buffer)
        return MPI_ERR_NO_MEM;
    if (total > (size_t)0x7fffffff)
        return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

/* Guarantees: aggregated inter-region messages for the records of this rank (sorted by
 * destination) in *agg (count *nagg, peers = same local rank in each destination region,
 * bytes in *buffer), the stats counted, and the own region's records as [*own_begin,
 * *own_end). */
static int aggregate(sdde_call *call, const region_frame *f, const record *mine, int n,
                     sdde_msg **agg, int *nagg, unsigned char **buffer, size_t *buffer_bytes,
                     int *own_begin, int *own_end)
{
    size_t total = 0;
    int groups = 0;
    *own_begin = *own_end = 0;
    for (int i = 0, j; i < n; i = j) {
        int region = mine[i].dest / f->q;
        for (j = i; j < n && mine[j].dest / f->q == region; j++)
            ;
        if (region == f->node) {
            *own_begin = i;
            *own_end = j;
        } else {
            groups++;
            total += header_bytes(j - i) + payload_bytes(mine + i, j - i);
        }
    }
    *nagg = groups;
    int err = alloc_packed(call, groups, total, agg, buffer, buffer_bytes);
    if (err != MPI_SUCCESS)
        return err;
    size_t pos = 0;
    int k = 0;
    for (int i = 0, j; i < n; i = j) {
        int region = mine[i].dest / f->q;
        for (j = i; j < n && mine[j].dest / f->q == region; j++)
            ;
        if (region == f->node)
            continue;
        size_t payload = payload_bytes(mine + i, j - i), bytes = header_bytes(j - i) + payload;
        pack(mine + i, j - i, *buffer + pos);
        sdde_msg m = { region * f->q + f->local, (int)bytes, *buffer + pos, 0, 0 };
        (*agg)[k++] = m;
        sdde_count_message(call, j - i, (long long)payload, (long long)header_bytes(j - i), 1);
        pos += bytes;
    }
    return MPI_SUCCESS;
}

/* Guarantees: one message for each other member of the region (empty when there is
 * nothing for it) with the held records for it, in *out (q - 1 of them, bytes in
 * *buffer), the stats counted; held records for this rank itself appended to call->got.
 * held must be sorted by destination, all destinations in this region. */
static int redistribute_pack(sdde_call *call, const region_frame *f, const record *held,
                             int nheld, sdde_msg **out, unsigned char **buffer,
                             size_t *buffer_bytes)
{
    size_t total = 0;
    for (int i = 0, j; i < nheld; i = j) {
        for (j = i; j < nheld && held[j].dest == held[i].dest; j++)
            ;
        if (held[i].dest != call->rank)
            total += header_bytes(j - i) + payload_bytes(held + i, j - i);
    }
    int err = alloc_packed(call, f->q - 1, total, out, buffer, buffer_bytes);
    if (err != MPI_SUCCESS)
        return err;
    size_t pos = 0;
    int k = 0, i = 0;
    for (int member = f->first; member < f->first + f->q; member++) {
        int j = i;
        while (j < nheld && held[j].dest == member)
            j++;
        if (member == call->rank) {
            for (int r = i; r < j; r++) {
                sdde_msg m = { held[r].src, held[r].bytes, held[r].data, 0, 0 };
                if ((err = sdde_list_push(call, &call->got, &m)) != MPI_SUCCESS)
                    return err;
            }
        } else {
            size_t payload = payload_bytes(held + i, j - i);
            size_t bytes = header_bytes(j - i) + payload;
            pack(held + i, j - i, *buffer + pos);
            sdde_msg m = { member, (int)bytes, *buffer + pos, 0, 0 };
            (*out)[k++] = m;
            sdde_count_message(call, j - i, (long long)payload, (long long)header_bytes(j - i),
                               0);
            pos += bytes;
        }
        i = j;
    }
    return i == nheld ? MPI_SUCCESS : MPI_ERR_INTERN;
}

/* Guarantees: `extra` records followed by the records of the packed messages in inbox,
 * in one new array *out of *nout records (*out_bytes bytes, accounted). */
static int gather_records(sdde_call *call, const record *extra, int nextra,
                          const sdde_list *inbox, record **out, int *nout, size_t *out_bytes)
{
    long long count = nextra;
    for (int i = 0; i < inbox->n; i++) {
        int c = packed_count(&inbox->msgs[i]);
        if (c < 0)
            return MPI_ERR_INTERN;
        count += c;
    }
    *out_bytes = (size_t)count * sizeof(record);
    *out = sdde_alloc(call, *out_bytes);
    *nout = (int)count;
    if (!*out)
        return MPI_ERR_NO_MEM;
    if (nextra)
        memcpy(*out, extra, (size_t)nextra * sizeof(record));
    int pos = nextra, err;
    for (int i = 0; i < inbox->n; i++) {
        if ((err = unpack(&inbox->msgs[i], *out + pos)) != MPI_SUCCESS)
            return err;
        pos += packed_count(&inbox->msgs[i]);
    }
    return MPI_SUCCESS;
}

/* Guarantees: call->got holds every message sent to this rank. Regions of Q ranks
 * (A2A_Node_layout with call->ppn). Phase 1 (tag phase 1): each rank sends one
 * aggregated message to rank (region m, same local rank) for every other region m it
 * has messages for, with `exchange` (personalized or NBX, receive count unknown); it is
 * skipped when there is only one region. Phase 2 (tag phase 2): each rank packs what it
 * holds — its own messages for its region and every record that arrived in phase 1 —
 * per destination member and sends every other member exactly one message (empty when
 * there is nothing), so each rank receives exactly Q - 1 messages: the personalized
 * exchange with a known count, without MPI_Allreduce. */
static int locality(sdde_call *call, sdde_exchange exchange, int algorithm)
{
    if (call->ppn < 0)
        return MPI_ERR_ARG;
    region_frame f;
    int err = A2A_Node_layout(call->comm, call->ppn, &f.q, &f.node, &f.local);
    if (err != MPI_SUCCESS)
        return err;
    f.regions = call->size / f.q;
    f.first = f.node * f.q;

    int n = call->nsend;
    size_t mine_bytes = (size_t)n * sizeof(record), agg_bytes = 0, held_bytes = 0,
           out_bytes = 0;
    record *mine = sdde_alloc(call, mine_bytes), *held = NULL;
    sdde_msg *agg = NULL, *out = NULL;
    unsigned char *agg_buffer = NULL, *out_buffer = NULL;
    sdde_list inbox = { NULL, 0, 0 }, intra = { NULL, 0, 0 };
    int nagg = 0, nheld = 0, own_begin = 0, own_end = 0;
    if (!mine)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        record r = { call->rank, call->sends[i].peer, call->sends[i].bytes,
                     call->sends[i].data };
        mine[i] = r;
    }
    if (n > 1)
        qsort(mine, (size_t)n, sizeof(record), by_dest);

    err = aggregate(call, &f, mine, n, &agg, &nagg, &agg_buffer, &agg_bytes, &own_begin,
                    &own_end);
    if (err == MPI_SUCCESS && f.regions > 1) {
        err = exchange(call, agg, nagg, -1, sdde_tag(call, algorithm, 1), &inbox,
                       &call->pool[0]);
        sdde_resolve(&inbox, 0, &call->pool[0]);
    }
    sdde_free(call, agg, (size_t)nagg * sizeof(sdde_msg));
    sdde_free(call, agg_buffer, agg_bytes);

    if (err == MPI_SUCCESS)
        err = gather_records(call, mine + own_begin, own_end - own_begin, &inbox, &held,
                             &nheld, &held_bytes);
    sdde_free(call, mine, mine_bytes);
    sdde_list_free(call, &inbox);
    if (err == MPI_SUCCESS) {
        for (int i = 0; i < nheld && err == MPI_SUCCESS; i++)
            if (held[i].dest / f.q != f.node)
                err = MPI_ERR_INTERN;
        if (nheld > 1)
            qsort(held, (size_t)nheld, sizeof(record), by_dest);
    }
    if (err == MPI_SUCCESS)
        err = redistribute_pack(call, &f, held, nheld, &out, &out_buffer, &out_bytes);
    if (err == MPI_SUCCESS)
        err = sdde_exchange_personalized(call, out, f.q - 1, f.q - 1,
                                         sdde_tag(call, algorithm, 2), &intra, &call->pool[1]);
    sdde_free(call, out, (size_t)(f.q - 1) * sizeof(sdde_msg));
    sdde_free(call, out_buffer, out_bytes);
    sdde_free(call, held, held_bytes);
    sdde_resolve(&intra, 0, &call->pool[1]);

    record *arrived = NULL;
    int narrived = 0;
    size_t arrived_bytes = 0;
    if (err == MPI_SUCCESS)
        err = gather_records(call, NULL, 0, &intra, &arrived, &narrived, &arrived_bytes);
    for (int i = 0; i < narrived && err == MPI_SUCCESS; i++) {
        if (arrived[i].dest != call->rank) {
            err = MPI_ERR_INTERN;
            break;
        }
        sdde_msg m = { arrived[i].src, arrived[i].bytes, arrived[i].data, 0, 0 };
        err = sdde_list_push(call, &call->got, &m);
    }
    sdde_free(call, arrived, arrived_bytes);
    sdde_list_free(call, &intra);
    return err;
}

/* Guarantees: the locality-aware personalized SDDE into call->got. */
int sdde_locality_personalized(sdde_call *call)
{
    return locality(call, sdde_exchange_personalized, SDDE_ALG_LOCALITY_PERSONALIZED);
}

/* Guarantees: the locality-aware NBX SDDE into call->got. */
int sdde_locality_nonblocking(sdde_call *call)
{
    return locality(call, sdde_exchange_nonblocking, SDDE_ALG_LOCALITY_NONBLOCKING);
}

/* Guarantees: see a2a_sdde.h (the constant- and variable-size entry points). */
SDDE_DEFINE_ENTRY_POINTS(locality_personalized, sdde_locality_personalized, SDDE_WITH_REGION, ppn)

/* Guarantees: see a2a_sdde.h (the constant- and variable-size entry points). */
SDDE_DEFINE_ENTRY_POINTS(locality_nonblocking, sdde_locality_nonblocking, SDDE_WITH_REGION, ppn)
