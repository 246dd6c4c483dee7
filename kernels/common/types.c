/* types.c — datatype checks and the prologue shared by the kernels: which types are one
 * ascending run of bytes, staging of the other types through MPI_Pack / MPI_Unpack, the
 * communicator check, and the per-message byte limit. */
#include "a2a.h"
#include "kernel_util.h"
#include "private_comm.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- one ascending run ----------------------------------------------------------------- */

/* The bytes seen so far of a typemap walked in order: one run [start, end), or broken. */
typedef struct run_walk {
    int have;     /* a non-empty entry was seen */
    int broken;   /* an entry did not start where the previous one ended */
    MPI_Aint start, end;
} run_walk;

/* Guarantees: the walk extended by `len` bytes at `offset` (nothing for len 0); broken
 * unless the bytes start exactly where the run so far ends. */
static void run_append(run_walk *w, MPI_Aint offset, MPI_Aint len)
{
    if (len == 0 || w->broken)
        return;
    if (!w->have) {
        w->have = 1;
        w->start = offset;
        w->end = offset + len;
    } else if (offset == w->end) {
        w->end += len;
    } else {
        w->broken = 1;
    }
}

static void walk_type(MPI_Datatype type, MPI_Aint base, run_walk *w, int depth);

/* Guarantees: the walk extended by `count` consecutive copies of `type` at `base`
 * (copy k at base + k * extent), in typemap order; a type whose one copy is a run
 * continues as one run only when that run fills its extent. */
static void walk_copies(MPI_Datatype type, MPI_Aint base, MPI_Aint count, run_walk *w,
                        int depth)
{
    if (count <= 0 || w->broken)
        return;
    run_walk one = { 0, 0, 0, 0 };
    walk_type(type, 0, &one, depth);
    if (one.broken) {
        w->broken = 1;
        return;
    }
    if (!one.have)
        return;
    MPI_Aint lb, extent;
    if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS) {
        w->broken = 1;
        return;
    }
    MPI_Aint len = one.end - one.start;
    if (count > 1 && len != extent) {
        w->broken = 1;
        return;
    }
    run_append(w, base + one.start, len * count);
}

/* Guarantees: frees the types get_contents returned that are not predefined. */
static void free_contents(MPI_Datatype *types, int n)
{
    for (int i = 0; i < n; i++) {
        int ni, na, nd, combiner;
        if (MPI_Type_get_envelope(types[i], &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
            combiner != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
}

/* Guarantees: the walk extended by the typemap of one element of `type` placed at `base`,
 * entry by entry in typemap order. Constructors it cannot read (subarray, darray, deep
 * nesting, MPI errors) break the walk: such types are staged, never trusted. */
static void walk_type(MPI_Datatype type, MPI_Aint base, run_walk *w, int depth)
{
    int ni, na, nd, combiner;
    if (w->broken)
        return;
    if (depth > 16 || MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS) {
        w->broken = 1;
        return;
    }
    if (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
        combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER) {
        int size;
        MPI_Aint tlb, textent;
        if (MPI_Type_size(type, &size) != MPI_SUCCESS ||
            MPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS ||
            (size > 0 && textent != size)) {
            w->broken = 1; /* a predefined pair with a hole (MPI_SHORT_INT) */
            return;
        }
        run_append(w, base + tlb, size);
        return;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na > 0 ? na : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd > 0 ? nd : 1));
    if (!ints || !aints || !types ||
        MPI_Type_get_contents(type, ni, na, nd, ints, aints, types) != MPI_SUCCESS) {
        free(ints);
        free(aints);
        free(types);
        w->broken = 1;
        return;
    }
    MPI_Aint lb, ext = 0;
    if (nd > 0 && MPI_Type_get_extent(types[0], &lb, &ext) != MPI_SUCCESS)
        w->broken = 1;
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* the same entries, other bounds */
        walk_type(types[0], base, w, depth + 1);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        walk_copies(types[0], base, ints[0], w, depth + 1);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        MPI_Aint stride = combiner == MPI_COMBINER_VECTOR ? ints[2] * ext : aints[0];
        for (int j = 0; j < ints[0] && !w->broken; j++)
            walk_copies(types[0], base + j * stride, ints[1], w, depth + 1);
        break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (int j = 0; j < ints[0] && !w->broken; j++) {
            MPI_Aint at = combiner == MPI_COMBINER_INDEXED ? ints[1 + ints[0] + j] * ext : aints[j];
            walk_copies(types[0], base + at, ints[1 + j], w, depth + 1);
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int j = 0; j < ints[0] && !w->broken; j++) {
            MPI_Aint at = combiner == MPI_COMBINER_INDEXED_BLOCK ? ints[2 + j] * ext : aints[j];
            walk_copies(types[0], base + at, ints[1], w, depth + 1);
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (int j = 0; j < ints[0] && !w->broken; j++)
            walk_copies(types[j], base + aints[j], ints[1 + j], w, depth + 1);
        break;
    default: /* subarray, darray, ...: not read, so not trusted */
        w->broken = 1;
        break;
    }
    free_contents(types, nd);
    free(ints);
    free(aints);
    free(types);
}

/* Verdicts cached on derived types (an attribute dies with its type): 1 run, 2 not. */
static int run_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t run_keyval_once = PTHREAD_ONCE_INIT;

static void create_run_keyval(void)
{
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &run_keyval, NULL);
}

/* Guarantees: 1 if one element of `type` is exactly its `size` bytes at offsets 0..size-1
 * in typemap order (lower bound 0, extent = size), else 0. Derived types are read once
 * and the verdict cached on them. */
static int type_is_run(MPI_Datatype type, int size)
{
    int ni, na, nd, combiner;
    if (MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    int derived = combiner != MPI_COMBINER_NAMED;
    if (derived) {
        pthread_once(&run_keyval_once, create_run_keyval);
        void *value;
        int found = 0;
        if (run_keyval != MPI_KEYVAL_INVALID &&
            MPI_Type_get_attr(type, run_keyval, &value, &found) == MPI_SUCCESS && found)
            return (intptr_t)value == 1;
    }
    run_walk w = { 0, 0, 0, 0 };
    walk_type(type, 0, &w, 0);
    int run = !w.broken && (size == 0 ? !w.have : w.have && w.start == 0 && w.end == size);
    if (derived && run_keyval != MPI_KEYVAL_INVALID)
        MPI_Type_set_attr(type, run_keyval, (void *)(intptr_t)(run ? 1 : 2));
    return run;
}

/* Guarantees: the size in bytes of `type` when it is a predefined type without holes
 * (one ascending run by definition: MPI_BYTE, the integer and floating types, ...),
 * recognised by its handle without any MPI call; 0 for every other type. Compared one by
 * one, most used first: under SMPI the predefined handles are variables, not constants. */
MPI_Aint a2a_basic_run_type(MPI_Datatype type)
{
#define A2A_RUN(t, bytes)                                                                   \
    if (type == (t))                                                                        \
        return (bytes);
    A2A_RUN(MPI_BYTE, 1)
    A2A_RUN(MPI_CHAR, sizeof(char))
    A2A_RUN(MPI_INT, sizeof(int))
    A2A_RUN(MPI_DOUBLE, sizeof(double))
    A2A_RUN(MPI_FLOAT, sizeof(float))
    A2A_RUN(MPI_LONG_LONG, sizeof(long long))
    A2A_RUN(MPI_LONG, sizeof(long))
    A2A_RUN(MPI_UNSIGNED, sizeof(unsigned))
    A2A_RUN(MPI_UNSIGNED_CHAR, sizeof(unsigned char))
    A2A_RUN(MPI_SIGNED_CHAR, sizeof(signed char))
    A2A_RUN(MPI_UNSIGNED_LONG, sizeof(unsigned long))
    A2A_RUN(MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long))
    A2A_RUN(MPI_SHORT, sizeof(short))
    A2A_RUN(MPI_UNSIGNED_SHORT, sizeof(unsigned short))
    A2A_RUN(MPI_INT8_T, 1)
    A2A_RUN(MPI_UINT8_T, 1)
    A2A_RUN(MPI_INT16_T, 2)
    A2A_RUN(MPI_UINT16_T, 2)
    A2A_RUN(MPI_INT32_T, 4)
    A2A_RUN(MPI_UINT32_T, 4)
    A2A_RUN(MPI_INT64_T, 8)
    A2A_RUN(MPI_UINT64_T, 8)
#undef A2A_RUN
    return 0;
}

/* Guarantees: *bytes = size of one element when the element's data is one ascending run
 * of bytes from its lower bound 0 to its extent (size == extent, entries in typemap
 * order, no overlap, no gap); MPI_ERR_TYPE otherwise or for an invalid type. */
int A2A_Type_bytes(MPI_Datatype type, MPI_Aint *bytes)
{
    int size;
    MPI_Aint lb, extent;
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if ((*bytes = a2a_basic_run_type(type)) > 0)
        return MPI_SUCCESS;
    int err = MPI_Type_size(type, &size);
    if (err != MPI_SUCCESS)
        return err;
    err = MPI_Type_get_extent(type, &lb, &extent);
    if (err != MPI_SUCCESS)
        return err;
    if (lb != 0 || extent != (MPI_Aint)size || !type_is_run(type, size))
        return MPI_ERR_TYPE;
    *bytes = size;
    return MPI_SUCCESS;
}

/* ---- the prologue --------------------------------------------------------------------- */

/* Guarantees: see kernel_util.h. */
int a2a_kernel_prologue(MPI_Comm comm, MPI_Datatype stype, MPI_Datatype rtype, int *rank,
                        int *size)
{
    int inter = 0, bytes;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return MPI_ERR_COMM;
    if (stype == MPI_DATATYPE_NULL || rtype == MPI_DATATYPE_NULL ||
        MPI_Type_size(stype, &bytes) != MPI_SUCCESS || MPI_Type_size(rtype, &bytes) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
    return MPI_SUCCESS;
}

/* Guarantees: see kernel_util.h. */
a2a_type_units a2a_type_units_of(MPI_Datatype stype, MPI_Datatype rtype)
{
    a2a_type_units units;
    MPI_Aint lb;
    MPI_Type_get_extent(stype, &lb, &units.sextent);
    MPI_Type_get_extent(rtype, &lb, &units.rextent);
    MPI_Type_size(stype, &units.ssize);
    MPI_Type_size(rtype, &units.rsize);
    return units;
}

/* Guarantees: see kernel_util.h. */
int a2a_direct_prologue(MPI_Comm *comm, MPI_Datatype stype, MPI_Datatype rtype, int *rank,
                        int *size, a2a_type_units *units)
{
    int err = a2a_kernel_prologue(*comm, stype, rtype, rank, size);
    if (err != MPI_SUCCESS)
        return err;
    *units = a2a_type_units_of(stype, rtype);
    *comm = a2a_private_comm(*comm);
    return MPI_SUCCESS;
}

/* Guarantees: see kernel_util.h. */
int a2a_inplace_prologue(MPI_Comm *comm, MPI_Datatype type, int *rank, int *size,
                         MPI_Aint *bytes)
{
    int err = a2a_kernel_prologue(*comm, type, type, rank, size);
    if (err == MPI_SUCCESS)
        err = A2A_Type_bytes(type, bytes);
    if (err == MPI_SUCCESS)
        *comm = a2a_private_comm(*comm);
    return err;
}

/* ---- staging ---------------------------------------------------------------------------- */

/* Count and displacement (in elements) of block j of one side of a call. */
static long long side_count(const a2a_side *s, int j)
{
    return s->counts ? s->counts[j] : s->count;
}
static long long side_displ(const a2a_side *s, int j)
{
    return s->displs ? s->displs[j] : (long long)j * s->count;
}

/* Guarantees: MPI_Pack (pack) or MPI_Unpack of `count` elements of `type` between the
 * user's layout at `user` and the packed bytes at `packed`, in calls of at most INT_MAX
 * bytes (MPI_Pack's position is an int). */
static int move_elements(int pack, char *user, char *packed, long long count, MPI_Datatype type,
                         int size, MPI_Aint extent, MPI_Comm comm)
{
    long long per_call = size > 0 ? INT_MAX / size : count;
    if (per_call < 1)
        per_call = 1;
    for (long long done = 0; done < count;) {
        long long n = count - done < per_call ? count - done : per_call;
        int position = 0, err;
        char *at_user = user + done * extent, *at_packed = packed + done * size;
        if (pack)
            err = MPI_Pack(at_user, (int)n, type, at_packed, (int)(n * size), &position, comm);
        else
            err = MPI_Unpack(at_packed, (int)(n * size), &position, at_user, (int)n, type, comm);
        if (err != MPI_SUCCESS)
            return err;
        done += n;
    }
    return MPI_SUCCESS;
}

/* Guarantees: a side of a call whose type is not a run rewritten onto packed bytes: the
 * buffer becomes a staging buffer in which element e of the user's layout (e counted from
 * the buffer in extents) sits at byte (e - lowest) * size (lowest <= 0: the lowest
 * displacement used, or 0), the type a contiguous run of `size` bytes; counts and
 * displacements unchanged. The send side is packed now. */
static int stage_side(a2a_staged_side *st, a2a_side *s, int P, int pack, MPI_Comm comm,
                      a2a_stats *stats)
{
    int size;
    MPI_Aint bytes, lb, extent;
    st->buf = NULL;
    st->type = MPI_DATATYPE_NULL;
    if (A2A_Type_bytes(s->type, &bytes) == MPI_SUCCESS)
        return MPI_SUCCESS; /* a run already: used as it is */
    int err = MPI_Type_size(s->type, &size);
    if (err == MPI_SUCCESS)
        err = MPI_Type_get_extent(s->type, &lb, &extent);
    if (err != MPI_SUCCESS)
        return err;
    long long lowest = 0, highest = 0; /* element range held: always includes 0 */
    for (int j = 0; j < P; j++)
        if (side_count(s, j) > 0) {
            long long lo = side_displ(s, j), hi = lo + side_count(s, j);
            lowest = lo < lowest ? lo : lowest;
            highest = hi > highest ? hi : highest;
        }
    size_t total = (size_t)(highest - lowest) * (size_t)size;
    if (!(st->buf = malloc(total > 0 ? total : 1)))
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, (long long)total);
    if ((err = MPI_Type_contiguous(size, MPI_BYTE, &st->type)) != MPI_SUCCESS ||
        (err = MPI_Type_commit(&st->type)) != MPI_SUCCESS)
        return err;
    st->user = *s;
    st->size = size;
    st->extent = extent;
    st->lowest = lowest;
    char *packed_base = st->buf - lowest * size; /* element e at packed_base + e * size */
    for (int j = 0; j < P && pack; j++)
        if (side_count(s, j) > 0 &&
            (err = move_elements(1, (char *)s->buf + side_displ(s, j) * extent,
                                 packed_base + side_displ(s, j) * size, side_count(s, j),
                                 s->type, size, extent, comm)) != MPI_SUCCESS)
            return err;
    s->buf = packed_base;
    s->type = st->type;
    return MPI_SUCCESS;
}

/* Guarantees: see kernel_util.h. */
int a2a_stage(a2a_staging *st, int P, a2a_side *send, a2a_side *recv, MPI_Comm comm,
              a2a_stats *stats)
{
    st->P = P;
    st->comm = comm;
    st->send.buf = st->recv.buf = NULL;
    st->send.type = st->recv.type = MPI_DATATYPE_NULL;
    int err = stage_side(&st->send, send, P, 1, comm, stats);
    if (err == MPI_SUCCESS)
        err = stage_side(&st->recv, recv, P, 0, comm, stats);
    if (err != MPI_SUCCESS)
        a2a_unstage(st, err);
    return err;
}

/* Guarantees: see kernel_util.h. */
int a2a_unstage(a2a_staging *st, int err)
{
    a2a_staged_side *r = &st->recv;
    if (err == MPI_SUCCESS && r->buf) {
        char *packed_base = r->buf - r->lowest * r->size;
        for (int j = 0; j < st->P && err == MPI_SUCCESS; j++)
            if (side_count(&r->user, j) > 0)
                err = move_elements(0, (char *)r->user.buf + side_displ(&r->user, j) * r->extent,
                                    packed_base + side_displ(&r->user, j) * r->size,
                                    side_count(&r->user, j), r->user.type, r->size, r->extent,
                                    st->comm);
    }
    a2a_staged_side *sides[2] = { &st->send, &st->recv };
    for (int i = 0; i < 2; i++) {
        free(sides[i]->buf);
        sides[i]->buf = NULL;
        if (sides[i]->type != MPI_DATATYPE_NULL)
            MPI_Type_free(&sides[i]->type);
    }
    return err;
}

/* ---- message sizes ---------------------------------------------------------------------- */

/* Guarantees: INT_MAX unless A2A_MAX_MESSAGE_BYTES holds a positive integer below it. */
long long a2a_max_message_bytes(void)
{
    static long long limit = -1;
    if (limit < 0) {
        const char *env = getenv("A2A_MAX_MESSAGE_BYTES");
        long long v = env ? strtoll(env, NULL, 10) : 0;
        limit = (v > 0 && v < INT_MAX) ? v : INT_MAX;
    }
    return limit;
}

/* Guarantees: see kernel_util.h. */
int a2a_sendrecv_bytes(const char *send, long long bytes, int dest, char *recv, int source,
                       int tag, MPI_Comm comm, long long *messages)
{
    const long long limit = a2a_max_message_bytes();
    long long done = 0, pieces = 0;
    do {
        long long n = bytes - done < limit ? bytes - done : limit;
        int err = MPI_Sendrecv(send + done, (int)n, MPI_BYTE, dest, tag, recv + done, (int)n,
                               MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
        done += n;
        pieces++;
    } while (done < bytes);
    if (messages)
        *messages = pieces;
    return MPI_SUCCESS;
}
