/* trace_mpi.c — the tracing MPI layer (see trace_mpi.h): the MPI calls liba2a's uniform
 * kernels make, for one rank of a virtual communicator, recording every message. */
#include <stdlib.h>
#include <string.h>

#include "trace_mpi.h"

enum { MAX_COMMS = 64, MAX_ATTRS = 16, MAX_KEYVALS = 32, MAX_TYPE_ATTRS = 64 };
/* MPICH's handle layout: kind in bits 30-31, object in bits 26-29, index below. */
#define COMM_HANDLE_BASE 0x84000000
#define REQUEST_HANDLE 0xac000001
#define BUILTIN_KIND 0x40000000

typedef struct attribute {
    int keyval;
    void *value;
} attribute;

typedef struct virtual_comm {
    int used, size, rank, node_size, attrs;
    attribute attr[MAX_ATTRS];
} virtual_comm;

static virtual_comm comms[MAX_COMMS];
static virtual_comm self_comm = { 1, 1, 0, 1, 0, { { 0, NULL } } };
static MPI_Comm_delete_attr_function *comm_delete[MAX_KEYVALS];
static int comm_keyvals, type_keyvals;
static struct {
    MPI_Datatype type;
    int keyval;
    void *value;
} type_attr[MAX_TYPE_ATTRS];
static int type_attrs;

/* the trace */
static trace_message *messages;
static long long message_count, message_room, epochs;
static double *copy_seconds;
static long long copy_room;
static int epoch_open;  /* messages or copies since the last epoch closed */

/* Guarantees: the communicator record of a handle, or NULL for anything else. */
static virtual_comm *comm_of(MPI_Comm comm)
{
    if (comm == MPI_COMM_SELF)
        return &self_comm;
    unsigned index = (unsigned)comm - COMM_HANDLE_BASE;
    if ((unsigned)comm < COMM_HANDLE_BASE || index >= MAX_COMMS || !comms[index].used)
        return NULL;
    return &comms[index];
}

/* Guarantees: a new communicator handle of `size` ranks with this one `rank`, or
 * MPI_COMM_NULL when every slot is taken. */
static MPI_Comm comm_new(int size, int rank, int node_size)
{
    for (int i = 0; i < MAX_COMMS; i++)
        if (!comms[i].used) {
            comms[i] = (virtual_comm){ .used = 1, .size = size, .rank = rank,
                                       .node_size = node_size };
            return (MPI_Comm)(COMM_HANDLE_BASE + i);
        }
    return MPI_COMM_NULL;
}

/* Guarantees: copy_seconds has a slot for epoch e, zero until charged (0 on failure). */
static int reserve_epoch(long long e)
{
    if (e < copy_room)
        return 1;
    long long room = copy_room ? 2 * copy_room : 1024;
    while (room <= e)
        room *= 2;
    double *grown = realloc(copy_seconds, (size_t)room * sizeof *grown);
    if (!grown)
        return 0;
    memset(grown + copy_room, 0, (size_t)(room - copy_room) * sizeof *grown);
    copy_seconds = grown;
    copy_room = room;
    return 1;
}

/* Guarantees: one message appended to the trace in the open epoch (MPI_ERR_NO_MEM if the
 * trace cannot grow). */
static int record(int peer, long long bytes, int sent)
{
    if (message_count == message_room) {
        long long room = message_room ? 2 * message_room : 4096;
        trace_message *grown = realloc(messages, (size_t)room * sizeof *grown);
        if (!grown)
            return MPI_ERR_NO_MEM;
        messages = grown;
        message_room = room;
    }
    messages[message_count++] = (trace_message){ epochs, bytes, peer, sent };
    epoch_open = 1;
    return MPI_SUCCESS;
}

/* Guarantees: the open epoch is closed (a no-op when nothing happened in it). */
static void close_epoch(void)
{
    if (epoch_open) {
        epochs++;
        epoch_open = 0;
    }
}

/* Guarantees: see trace_mpi.h. */
MPI_Comm trace_comm_create(int size, int rank, int node_size)
{
    message_count = 0;
    epochs = 0;
    epoch_open = 0;
    if (copy_seconds)
        memset(copy_seconds, 0, (size_t)copy_room * sizeof *copy_seconds);
    return comm_new(size, rank, node_size > 0 ? node_size : size);
}

/* Guarantees: see trace_mpi.h. */
const trace_message *trace_messages(long long *n)
{
    *n = message_count;
    return messages;
}

/* Guarantees: see trace_mpi.h. */
long long trace_epochs(void)
{
    return epochs + (epoch_open ? 1 : 0);
}

/* Guarantees: see trace_mpi.h. */
double trace_copy_seconds(long long e)
{
    return e < copy_room ? copy_seconds[e] : 0;
}

/* Guarantees: the copy-cost model's charge (kernels/common/sim_copy.c calls this in place
 * of SimGrid's) is added to the open epoch. */
void smpi_execute(double duration)
{
    if (duration > 0 && reserve_epoch(epochs)) {
        copy_seconds[epochs] += duration;
        epoch_open = 1;
    }
}

/* ---- datatypes: the predefined ones (MPICH encodes a builtin type's size in its handle) */

/* Guarantees: the size of a predefined type, or -1 for any other handle. */
static int builtin_size(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL || ((unsigned)type & 0xc0000000u) != BUILTIN_KIND)
        return -1;
    return ((unsigned)type & 0xff00u) >> 8;
}

/* Guarantees: the bytes of a predefined type; MPI_ERR_TYPE for any other. */
int MPI_Type_size(MPI_Datatype type, int *size)
{
    int s = builtin_size(type);
    if (s < 0)
        return MPI_ERR_TYPE;
    *size = s;
    return MPI_SUCCESS;
}

/* Guarantees: lower bound 0 and extent = size for a predefined type (MPI_ERR_TYPE else). */
int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent)
{
    int s = builtin_size(type);
    if (s < 0)
        return MPI_ERR_TYPE;
    *lb = 0;
    *extent = s;
    return MPI_SUCCESS;
}

/* Guarantees: as MPI_Type_get_extent (a predefined type has no gaps). */
int MPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent)
{
    return MPI_Type_get_extent(type, lb, extent);
}

/* Guarantees: MPI_COMBINER_NAMED for a predefined type (MPI_ERR_TYPE else). */
int MPI_Type_get_envelope(MPI_Datatype type, int *ni, int *na, int *nd, int *combiner)
{
    if (builtin_size(type) < 0)
        return MPI_ERR_TYPE;
    *ni = *na = *nd = 0;
    *combiner = MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}

/* A predefined type has no contents (MPI: erroneous); the layer carries no derived type. */
int MPI_Type_get_contents(MPI_Datatype type, int max_integers, int max_addresses,
                          int max_datatypes, int integers[], MPI_Aint addresses[],
                          MPI_Datatype types[])
{
    (void)type, (void)max_integers, (void)max_addresses, (void)max_datatypes;
    (void)integers, (void)addresses, (void)types;
    return MPI_ERR_TYPE;
}

/* The layer carries predefined types only: a derived type is refused. */
int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *type)
{
    (void)count, (void)old;
    *type = MPI_DATATYPE_NULL;
    return MPI_ERR_TYPE;
}

/* Guarantees: MPI_SUCCESS for a predefined type, which needs no commit. */
int MPI_Type_commit(MPI_Datatype *type)
{
    return builtin_size(*type) < 0 ? MPI_ERR_TYPE : MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype *type)
{
    *type = MPI_DATATYPE_NULL;
    return MPI_ERR_TYPE; /* predefined types cannot be freed, and there are no others */
}

/* Guarantees: a new datatype keyval (types are never copied or freed here). */
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del,
                           int *keyval, void *extra)
{
    (void)copy, (void)del, (void)extra;
    *keyval = ++type_keyvals;
    return MPI_SUCCESS;
}

/* Guarantees: the value set on (type, keyval), *found = 0 when none. */
int MPI_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *found)
{
    *found = 0;
    for (int i = 0; i < type_attrs; i++)
        if (type_attr[i].type == type && type_attr[i].keyval == keyval) {
            *(void **)value = type_attr[i].value;
            *found = 1;
        }
    return MPI_SUCCESS;
}

/* Guarantees: (type, keyval) holds value (MPI_ERR_NO_MEM when the table is full). */
int MPI_Type_set_attr(MPI_Datatype type, int keyval, void *value)
{
    for (int i = 0; i < type_attrs; i++)
        if (type_attr[i].type == type && type_attr[i].keyval == keyval) {
            type_attr[i].value = value;
            return MPI_SUCCESS;
        }
    if (type_attrs == MAX_TYPE_ATTRS)
        return MPI_ERR_NO_MEM;
    type_attr[type_attrs].type = type;
    type_attr[type_attrs].keyval = keyval;
    type_attr[type_attrs++].value = value;
    return MPI_SUCCESS;
}

/* Guarantees: MPI_Pack / MPI_Unpack of a predefined type (its bytes, in order). */
int MPI_Pack(const void *in, int count, MPI_Datatype type, void *out, int outsize,
             int *position, MPI_Comm comm)
{
    (void)comm;
    int s = builtin_size(type);
    if (s < 0)
        return MPI_ERR_TYPE;
    long long n = (long long)count * s;
    if (*position + n > outsize)
        return MPI_ERR_TRUNCATE;
    memcpy((char *)out + *position, in, (size_t)n);
    *position += (int)n;
    return MPI_SUCCESS;
}

int MPI_Unpack(const void *in, int insize, int *position, void *out, int count,
               MPI_Datatype type, MPI_Comm comm)
{
    (void)comm;
    int s = builtin_size(type);
    if (s < 0)
        return MPI_ERR_TYPE;
    long long n = (long long)count * s;
    if (*position + n > insize)
        return MPI_ERR_TRUNCATE;
    memcpy(out, (const char *)in + *position, (size_t)n);
    *position += (int)n;
    return MPI_SUCCESS;
}

/* ---- communicators ------------------------------------------------------------------ */

/* Guarantees: the traced rank's place in the virtual communicator. */
int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    virtual_comm *c = comm_of(comm);
    if (!c)
        return MPI_ERR_COMM;
    *rank = c->rank;
    return MPI_SUCCESS;
}

/* Guarantees: the virtual communicator's size P. */
int MPI_Comm_size(MPI_Comm comm, int *size)
{
    virtual_comm *c = comm_of(comm);
    if (!c)
        return MPI_ERR_COMM;
    *size = c->size;
    return MPI_SUCCESS;
}

/* Guarantees: *flag = 0: every virtual communicator is an intracommunicator. */
int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    if (!comm_of(comm))
        return MPI_ERR_COMM;
    *flag = 0;
    return MPI_SUCCESS;
}

/* Guarantees: a duplicate without attributes (the kernels' keyvals do not copy). */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *dup)
{
    virtual_comm *c = comm_of(comm);
    if (!c)
        return MPI_ERR_COMM;
    *dup = comm_new(c->size, c->rank, c->node_size);
    return *dup == MPI_COMM_NULL ? MPI_ERR_INTERN : MPI_SUCCESS;
}

/* Guarantees: MPI_COMM_TYPE_SHARED gives this rank's node: node_size consecutive ranks. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *node)
{
    (void)key, (void)info;
    virtual_comm *c = comm_of(comm);
    if (!c)
        return MPI_ERR_COMM;
    if (split_type != MPI_COMM_TYPE_SHARED)
        return MPI_ERR_ARG;
    *node = comm_new(c->node_size, c->rank % c->node_size, c->node_size);
    return *node == MPI_COMM_NULL ? MPI_ERR_INTERN : MPI_SUCCESS;
}

/* Guarantees: the attributes' delete callbacks have run, then the slot is released. */
int MPI_Comm_free(MPI_Comm *comm)
{
    virtual_comm *c = comm_of(*comm);
    if (!c || c == &self_comm)
        return MPI_ERR_COMM;
    for (int i = 0; i < c->attrs; i++) {
        MPI_Comm_delete_attr_function *del = comm_delete[c->attr[i].keyval];
        if (del && del != MPI_COMM_NULL_DELETE_FN)
            del(*comm, c->attr[i].keyval, c->attr[i].value, NULL);
    }
    c->used = 0;
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* Guarantees: a new communicator keyval whose delete callback MPI_Comm_free runs. */
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                           int *keyval, void *extra)
{
    (void)copy, (void)extra;
    if (comm_keyvals + 1 >= MAX_KEYVALS)
        return MPI_ERR_KEYVAL;
    *keyval = ++comm_keyvals;
    comm_delete[*keyval] = del;
    return MPI_SUCCESS;
}

/* Guarantees: the value set on (comm, keyval), *found = 0 when none. */
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *found)
{
    virtual_comm *c = comm_of(comm);
    if (!c)
        return MPI_ERR_COMM;
    *found = 0;
    for (int i = 0; i < c->attrs; i++)
        if (c->attr[i].keyval == keyval) {
            *(void **)value = c->attr[i].value;
            *found = 1;
        }
    return MPI_SUCCESS;
}

/* Guarantees: (comm, keyval) holds value (MPI_ERR_NO_MEM when the table is full). */
int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    virtual_comm *c = comm_of(comm);
    if (!c)
        return MPI_ERR_COMM;
    for (int i = 0; i < c->attrs; i++)
        if (c->attr[i].keyval == keyval) {
            c->attr[i].value = value;
            return MPI_SUCCESS;
        }
    if (c->attrs == MAX_ATTRS)
        return MPI_ERR_NO_MEM;
    c->attr[c->attrs++] = (attribute){ keyval, value };
    return MPI_SUCCESS;
}

/* A reduction needs every rank's contribution and one rank is traced: refused (the model
 * passes ppn explicitly, so node grouping never reduces). */
int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    (void)in, (void)out, (void)count, (void)type, (void)op, (void)comm;
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

/* ---- point to point: complete at once, recorded -------------------------------------- */

/* Guarantees: MPI_SUCCESS when peer is a rank of comm (or MPI_PROC_NULL) and count and
 * type are valid; *bytes the payload. */
static int check_peer(MPI_Comm comm, int peer, int count, MPI_Datatype type, long long *bytes)
{
    virtual_comm *c = comm_of(comm);
    int s = builtin_size(type);
    if (!c)
        return MPI_ERR_COMM;
    if (s < 0)
        return MPI_ERR_TYPE;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (peer != MPI_PROC_NULL && (peer < 0 || peer >= c->size))
        return MPI_ERR_RANK;
    *bytes = (long long)count * s;
    return MPI_SUCCESS;
}

/* Guarantees: the send recorded in the open epoch; the request completes at the next
 * MPI_Waitall. Nothing is delivered. */
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    (void)buf, (void)tag;
    long long bytes;
    int err = check_peer(comm, dest, count, type, &bytes);
    if (err == MPI_SUCCESS && dest != MPI_PROC_NULL)
        err = record(dest, bytes, 1);
    *request = err == MPI_SUCCESS ? (MPI_Request)REQUEST_HANDLE : MPI_REQUEST_NULL;
    return err;
}

/* Guarantees: the receive recorded in the open epoch; the buffer keeps what it held. */
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    (void)buf, (void)tag;
    long long bytes;
    int err = check_peer(comm, source, count, type, &bytes);
    if (err == MPI_SUCCESS && source != MPI_PROC_NULL)
        err = record(source, bytes, 0);
    *request = err == MPI_SUCCESS ? (MPI_Request)REQUEST_HANDLE : MPI_REQUEST_NULL;
    return err;
}

/* Guarantees: every request completed (set to MPI_REQUEST_NULL); the epoch closes. */
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    (void)statuses;
    for (int i = 0; i < count; i++)
        requests[i] = MPI_REQUEST_NULL;
    close_epoch();
    return MPI_SUCCESS;
}

/* Guarantees: both messages recorded in one epoch, which then closes. */
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
    (void)sbuf, (void)stag, (void)rbuf;
    long long sbytes, rbytes;
    int err = check_peer(comm, dest, scount, stype, &sbytes);
    if (err == MPI_SUCCESS)
        err = check_peer(comm, source, rcount, rtype, &rbytes);
    if (err == MPI_SUCCESS && dest != MPI_PROC_NULL)
        err = record(dest, sbytes, 1);
    if (err == MPI_SUCCESS && source != MPI_PROC_NULL)
        err = record(source, rbytes, 0);
    if (err != MPI_SUCCESS)
        return err;
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = source;
        status->MPI_TAG = rtag;
        status->MPI_ERROR = MPI_SUCCESS;
        status->count_lo = (int)rbytes; /* MPICH's status: the bytes received */
        status->count_hi_and_cancelled = 0;
    }
    close_epoch();
    return MPI_SUCCESS;
}
