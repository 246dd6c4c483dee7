/* trace_mpi.c — the tracing MPI layer (see trace_mpi.h): the MPI calls liba2a's uniform
 * kernels make, for one rank of a virtual communicator, recording every message. */
/* a traced world's ranks switch stacks with _setjmp/_longjmp; the fortified longjmp would
 * take a jump to another coroutine's stack for stack corruption */
#undef _FORTIFY_SOURCE
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "trace_mpi.h"

enum { MAX_COMMS = 16, MAX_ATTRS = 16, MAX_KEYVALS = 32, MAX_TYPE_ATTRS = 64 };
/* MPICH's handle layout: kind in bits 30-31, object in bits 26-29, index below. */
#define COMM_HANDLE_BASE 0x84000000
#define REQUEST_HANDLE 0xac000001
#define BUILTIN_KIND 0x40000000
#define DERIVED_HANDLE_BASE 0x8c000000u
#define RECV_HANDLE_BASE 0xac100000u

typedef struct attribute {
    int keyval;
    void *value;
} attribute;

typedef struct virtual_comm {
    int used, size, rank, node_size, attrs;
    attribute attr[MAX_ATTRS];
} virtual_comm;

static virtual_comm single_comms[MAX_COMMS];
static virtual_comm self_comm = { 1, 1, 0, 1, 0, { { 0, NULL } } };
static MPI_Comm_delete_attr_function *comm_delete[MAX_KEYVALS];
static int comm_keyvals, type_keyvals;
static struct {
    MPI_Datatype type;
    int keyval;
    void *value;
} type_attr[MAX_TYPE_ATTRS];
static int type_attrs;

/* A receive posted by a rank of a traced world (trace_world_run), until it is matched. */
typedef struct posted_recv {
    void *buf;
    long long bytes;
    int source, tag, context, done;
} posted_recv;

/* Everything one rank owns: its communicators, its trace and its receives in flight. The
 * running rank's is `T`; a traced world swaps it with the rank's slot at each switch. */
typedef struct rank_state {
    virtual_comm *comms;
    trace_message *messages;
    long long message_count, message_room, epochs;
    double *copy_seconds;
    long long copy_room;
    int epoch_open;          /* messages or copies since the last epoch closed */
    int keep;                /* 1: messages are recorded one by one; 0: only counted */
    long long sends, send_bytes; /* sends to other ranks (what a2a_stats counts) */
    posted_recv *posted;
    int posted_count, posted_room, posted_open;
} rank_state;

static rank_state T = { .comms = single_comms, .keep = 1 };

/* Guarantees: the communicator record of a handle, or NULL for anything else. */
static virtual_comm *comm_of(MPI_Comm comm)
{
    if (comm == MPI_COMM_SELF)
        return &self_comm;
    unsigned index = (unsigned)comm - COMM_HANDLE_BASE;
    if ((unsigned)comm < COMM_HANDLE_BASE || index >= MAX_COMMS || !T.comms[index].used)
        return NULL;
    return &T.comms[index];
}

/* Guarantees: a new communicator handle of `size` ranks with this one `rank`, or
 * MPI_COMM_NULL when every slot is taken. */
static MPI_Comm comm_new(int size, int rank, int node_size)
{
    for (int i = 0; i < MAX_COMMS; i++)
        if (!T.comms[i].used) {
            T.comms[i] = (virtual_comm){ .used = 1, .size = size, .rank = rank,
                                       .node_size = node_size };
            return (MPI_Comm)(COMM_HANDLE_BASE + i);
        }
    return MPI_COMM_NULL;
}

/* Guarantees: T.copy_seconds has a slot for epoch e, zero until charged (0 on failure). */
static int reserve_epoch(long long e)
{
    if (e < T.copy_room)
        return 1;
    long long room = T.copy_room ? 2 * T.copy_room : 1024;
    while (room <= e)
        room *= 2;
    double *grown = realloc(T.copy_seconds, (size_t)room * sizeof *grown);
    if (!grown)
        return 0;
    memset(grown + T.copy_room, 0, (size_t)(room - T.copy_room) * sizeof *grown);
    T.copy_seconds = grown;
    T.copy_room = room;
    return 1;
}

/* Guarantees: one message of rank c->rank appended to the trace in the open epoch (only
 * counted, when the rank's messages are not kept); a send to another rank counted as
 * a2a_stats counts it. MPI_ERR_NO_MEM if the trace cannot grow. */
static int record(const virtual_comm *c, int peer, long long bytes, int sent)
{
    if (sent && peer != c->rank) {
        T.sends++;
        T.send_bytes += bytes;
    }
    T.epoch_open = 1;
    if (!T.keep)
        return MPI_SUCCESS;
    if (T.message_count == T.message_room) {
        long long room = T.message_room ? 2 * T.message_room : 4096;
        trace_message *grown = realloc(T.messages, (size_t)room * sizeof *grown);
        if (!grown)
            return MPI_ERR_NO_MEM;
        T.messages = grown;
        T.message_room = room;
    }
    T.messages[T.message_count++] = (trace_message){ T.epochs, bytes, peer, sent };
    return MPI_SUCCESS;
}

/* Guarantees: the open epoch is closed (a no-op when nothing happened in it). */
static void close_epoch(void)
{
    if (T.epoch_open) {
        T.epochs++;
        T.epoch_open = 0;
    }
}

/* Guarantees: see trace_mpi.h. */
MPI_Comm trace_comm_create(int size, int rank, int node_size)
{
    T.message_count = 0;
    T.sends = T.send_bytes = 0;
    T.epochs = 0;
    T.epoch_open = 0;
    if (T.copy_seconds)
        memset(T.copy_seconds, 0, (size_t)T.copy_room * sizeof *T.copy_seconds);
    return comm_new(size, rank, node_size > 0 ? node_size : size);
}

/* Guarantees: see trace_mpi.h. */
const trace_message *trace_messages(long long *n)
{
    *n = T.message_count;
    return T.messages;
}

/* Guarantees: see trace_mpi.h. */
long long trace_epochs(void)
{
    return T.epochs + (T.epoch_open ? 1 : 0);
}

/* Guarantees: see trace_mpi.h. */
double trace_copy_seconds(long long e)
{
    return e < T.copy_room ? T.copy_seconds[e] : 0;
}

/* SimGrid's smpi/cpu-threshold: a charge shorter than this is discarded (trace_cpu_threshold) */
static double cpu_threshold = TRACE_CPU_THRESHOLD_DEFAULT;

/* Guarantees: see trace_mpi.h. */
void trace_cpu_threshold(double seconds)
{
    cpu_threshold = seconds;
}

/* Guarantees: the copy-cost model's charge (kernels/common/sim_copy.c calls this in place
 * of SimGrid's) is added to the open epoch when it reaches the cpu threshold, as SMPI's
 * smpi_execute charges only a duration >= smpi/cpu-threshold and discards shorter ones. */
void smpi_execute(double duration)
{
    if (duration <= 0 || duration < cpu_threshold)
        return;
    if (!T.keep) { /* a rank of a world whose trace is not read: the epoch only opens */
        T.epoch_open = 1;
        return;
    }
    if (reserve_epoch(T.epochs)) {
        T.copy_seconds[T.epochs] += duration;
        T.epoch_open = 1;
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

/* Derived types (MPI_Type_create_hindexed over a predefined type): only their size is
 * kept, in slot handle - DERIVED_HANDLE_BASE; freed slots are reused. */
static long long *derived_bytes;
static int derived_count, derived_room, *derived_free, derived_free_count;

/* Guarantees: the slot of a derived type handle, or -1 for any other. */
static int derived_slot(MPI_Datatype type)
{
    unsigned index = (unsigned)type - DERIVED_HANDLE_BASE;
    if ((unsigned)type < DERIVED_HANDLE_BASE || index >= (unsigned)derived_count ||
        derived_bytes[index] < 0)
        return -1;
    return (int)index;
}

/* Guarantees: the bytes of one element of a predefined or derived type, -1 for others. */
static long long type_bytes(MPI_Datatype type)
{
    int slot = derived_slot(type);
    return slot >= 0 ? derived_bytes[slot] : builtin_size(type);
}

/* Guarantees: the bytes of a predefined or derived type; MPI_ERR_TYPE for any other. */
int MPI_Type_size(MPI_Datatype type, int *size)
{
    long long s = type_bytes(type);
    if (s < 0)
        return MPI_ERR_TYPE;
    *size = (int)s;
    return MPI_SUCCESS;
}

/* Guarantees: the address of location (the layer's addresses are plain pointers). */
int MPI_Get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

/* Guarantees: a derived type of sum(lengths) elements of a predefined type; the layer
 * never moves its bytes, so only that size is kept. */
int MPI_Type_create_hindexed(int count, const int lengths[], const MPI_Aint displacements[],
                             MPI_Datatype old, MPI_Datatype *type)
{
    (void)displacements;
    int s = builtin_size(old);
    *type = MPI_DATATYPE_NULL;
    if (s < 0)
        return MPI_ERR_TYPE;
    long long bytes = 0;
    for (int i = 0; i < count; i++)
        bytes += (long long)lengths[i] * s;
    int slot;
    if (derived_free_count > 0) {
        slot = derived_free[--derived_free_count];
    } else {
        if (derived_count == derived_room) {
            int room = derived_room ? 2 * derived_room : 1024;
            long long *grown = realloc(derived_bytes, (size_t)room * sizeof *grown);
            int *grown_free = grown ? realloc(derived_free, (size_t)room * sizeof *grown_free)
                                    : NULL;
            if (grown)
                derived_bytes = grown;
            if (!grown_free)
                return MPI_ERR_NO_MEM;
            derived_free = grown_free;
            derived_room = room;
        }
        slot = derived_count++;
    }
    derived_bytes[slot] = bytes;
    *type = (MPI_Datatype)(DERIVED_HANDLE_BASE + (unsigned)slot);
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

/* Guarantees: MPI_SUCCESS for a predefined type (no commit needed) or a derived one. */
int MPI_Type_commit(MPI_Datatype *type)
{
    return type_bytes(*type) < 0 ? MPI_ERR_TYPE : MPI_SUCCESS;
}

/* Guarantees: a derived type's slot released and *type = MPI_DATATYPE_NULL; a predefined
 * type cannot be freed (MPI_ERR_TYPE). */
int MPI_Type_free(MPI_Datatype *type)
{
    int slot = derived_slot(*type);
    *type = MPI_DATATYPE_NULL;
    if (slot < 0)
        return MPI_ERR_TYPE;
    derived_bytes[slot] = -1;
    derived_free[derived_free_count++] = slot;
    return MPI_SUCCESS;
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

/* ---- a traced world: every rank of the virtual communicator, one coroutine each ----- */

/* A message sent in a traced world and not yet received: its envelope (32 bytes), and its
 * bytes when they are values the receiver reads (a predefined type wider than a byte): such
 * a mail is allocated on its own with its values after it, every other one comes from a
 * slab. */
typedef struct mail {
    struct mail *next;
    long long bytes;
    int dest, source, tag;
    short context;           /* context_of: -1 .. MAX_COMMS - 1 */
    short has_values;        /* 1: values[] holds the bytes (allocated on its own) */
    unsigned char values[];
} mail;

/* MAIL_LOAD: the mails in flight a chain holds on average before the table doubles (the
 * chains a match scans stay short however many messages a kernel posts at once) */
enum { WORLD_STACK = 256 * 1024, MAIL_SLAB = 4096, MAIL_LOAD = 2 };

/* The mail of one hash chain, oldest first. */
typedef struct mail_chain {
    mail *head, *tail;
} mail_chain;

/* What a rank of a world is doing between two turns: queued to run, waiting for a
 * message of an envelope (source, tag, context), waiting for the reduction, finished. */
enum { RANK_READY, RANK_WAITS_MAIL, RANK_WAITS_REDUCE, RANK_FINISHED };

typedef struct rank_turn {
    jmp_buf resume;              /* where the rank continues when it runs again */
    int state, started;
    int source, tag, context;    /* the envelope a RANK_WAITS_MAIL rank needs */
} rank_turn;

static struct {
    int size, node_size, running;
    rank_state *ranks;
    virtual_comm *comm_tables;
    rank_turn *turns;
    jmp_buf scheduler;                /* where a rank's turn ends */
    ucontext_t start;                 /* a rank's first turn: its entry on its stack */
    char *stacks;
    int *errors;
    int *ready, ready_first, ready_count; /* ranks due to run, in order (a ring of size) */
    int *reduce_waiting, reduce_waiters;  /* ranks in MPI_Allreduce waiting for the others */
    trace_rank_body body;
    void *arg;
    mail_chain *chains;               /* bucket_mask + 1 chains, a power of two: 16 per rank
                                         at first, doubled as the mails in flight grow */
    unsigned bucket_mask;
    long long mails_in_flight;        /* mails in the chains */
    mail *spare;                      /* received mail, reused for the next sends */
    mail **slabs;                     /* every mail allocation, MAIL_SLAB mails each */
    int slab_count, slab_room;
    long long reduce[8];              /* the reduction in progress */
    int reduce_arrived, reduce_left, reduce_complete;
    long long *reductions;            /* each completed reduction's payload bytes, in order */
    int reduction_count, reduction_room;
} world;

/* Guarantees: the chain of an envelope. */
static unsigned mail_bucket(int dest, int source, int tag, int context)
{
    unsigned long long h = (unsigned long long)dest * 0x9e3779b97f4a7c15ull ^
                           (unsigned long long)source * 0xc2b2ae3d27d4eb4full ^
                           (unsigned long long)tag * 0x165667b19e3779f9ull ^ (unsigned)context;
    h ^= h >> 29;
    return (unsigned)h & world.bucket_mask;
}

/* Guarantees: the table has at least one chain for every MAIL_LOAD mails in flight (it
 * doubles; when memory runs out it stays as it is, only slower to search). Each chain keeps
 * its mails in the order they were sent, so the oldest of an envelope is still found first. */
static void mail_table_grow(void)
{
    unsigned long long chains = (unsigned long long)world.bucket_mask + 1;
    if (world.mails_in_flight <= MAIL_LOAD * (long long)chains || chains > (1ull << 30))
        return;
    unsigned long long grown_chains = 2 * chains;
    while ((long long)(MAIL_LOAD * grown_chains) < world.mails_in_flight)
        grown_chains *= 2;
    mail_chain *old = world.chains, *grown = calloc(grown_chains, sizeof *grown);
    if (!grown)
        return;
    world.chains = grown;
    world.bucket_mask = (unsigned)(grown_chains - 1);
    for (unsigned long long b = 0; b < chains; b++) {
        mail *m = old[b].head;
        while (m) {
            mail *next = m->next;
            mail_chain *c = &grown[mail_bucket(m->dest, m->source, m->tag, m->context)];
            m->next = NULL;
            if (c->tail)
                c->tail->next = m;
            else
                c->head = m;
            c->tail = m;
            m = next;
        }
    }
    free(old);
}

/* Guarantees: rank r (not queued, not finished) is queued to run after those queued. */
static void world_wake(int r)
{
    world.turns[r].state = RANK_READY;
    world.ready[(world.ready_first + world.ready_count++) % world.size] = r;
}

/* Guarantees: the running rank's turn ends; it continues here when the scheduler runs it
 * again (once woken: see world_wait_mail, world_wait_reduce). */
static void world_yield(void)
{
    if (_setjmp(world.turns[world.running].resume) == 0)
        _longjmp(world.scheduler, 1);
}

/* Guarantees: the running rank waits until a message of the envelope is sent to it. */
static void world_wait_mail(int source, int tag, int context)
{
    rank_turn *t = &world.turns[world.running];
    t->state = RANK_WAITS_MAIL;
    t->source = source;
    t->tag = tag;
    t->context = context;
    world_yield();
}

/* Guarantees: the running rank waits until the reduction's state changes. */
static void world_wait_reduce(void)
{
    world.turns[world.running].state = RANK_WAITS_REDUCE;
    world.reduce_waiting[world.reduce_waiters++] = world.running;
    world_yield();
}

/* Guarantees: every rank waiting for the reduction is queued to run. */
static void world_wake_reducers(void)
{
    for (int i = 0; i < world.reduce_waiters; i++)
        world_wake(world.reduce_waiting[i]);
    world.reduce_waiters = 0;
}

/* Guarantees: the context number of a communicator handle (the same on every rank: they
 * create their communicators in the same order). */
static int context_of(MPI_Comm comm)
{
    return comm == MPI_COMM_SELF ? -1 : (int)((unsigned)comm - COMM_HANDLE_BASE);
}

/* Guarantees: an unused mail (from the spares, else a new slab), NULL when out of memory. */
static mail *mail_new(void)
{
    if (!world.spare) {
        if (world.slab_count == world.slab_room) {
            int room = world.slab_room ? 2 * world.slab_room : 64;
            mail **grown = realloc(world.slabs, (size_t)room * sizeof *grown);
            if (!grown)
                return NULL;
            world.slabs = grown;
            world.slab_room = room;
        }
        mail *slab = malloc(MAIL_SLAB * sizeof *slab);
        if (!slab)
            return NULL;
        world.slabs[world.slab_count++] = slab;
        for (int i = 0; i < MAIL_SLAB; i++) {
            slab[i].next = world.spare;
            world.spare = &slab[i];
        }
    }
    mail *m = world.spare;
    world.spare = m->next;
    return m;
}

/* Guarantees: the message queued for its receiver, its values copied when the receiver
 * reads them (predefined types wider than a byte: sizes, counts), never payload bytes;
 * the receiver queued to run when it waits for this envelope. */
static int world_post_send(const void *buf, long long bytes, MPI_Datatype type, int dest,
                           int tag, MPI_Comm comm)
{
    int has_values = builtin_size(type) > 1 && bytes > 0;
    mail *m = has_values ? malloc(sizeof *m + (size_t)bytes) : mail_new();
    if (!m)
        return MPI_ERR_NO_MEM;
    *m = (mail){ NULL, bytes, dest, comm_of(comm)->rank, tag, (short)context_of(comm),
                 (short)has_values };
    if (has_values)
        memcpy(m->values, buf, (size_t)bytes);
    mail_chain *c = &world.chains[mail_bucket(m->dest, m->source, m->tag, m->context)];
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    world.mails_in_flight++;
    mail_table_grow();
    rank_turn *t = &world.turns[dest];
    if (t->state == RANK_WAITS_MAIL && t->source == m->source && t->tag == tag &&
        t->context == m->context)
        world_wake(dest);
    return MPI_SUCCESS;
}

/* Guarantees: 1 when the receive found its message (the oldest of its envelope; values
 * copied into its buffer, MPI_ERR_TRUNCATE when longer), else 0. */
static int world_match(posted_recv *r, int *err)
{
    int me = world.running;
    mail_chain *c = &world.chains[mail_bucket(me, r->source, r->tag, r->context)];
    mail *prev = NULL, *m = c->head;
    while (m && !(m->dest == me && m->source == r->source && m->tag == r->tag &&
                  m->context == r->context)) {
        prev = m;
        m = m->next;
    }
    if (!m)
        return 0;
    if (prev)
        prev->next = m->next;
    else
        c->head = m->next;
    if (c->tail == m)
        c->tail = prev;
    world.mails_in_flight--;
    if (m->bytes > r->bytes)
        *err = MPI_ERR_TRUNCATE;
    else if (m->has_values)
        memcpy(r->buf, m->values, (size_t)m->bytes);
    if (m->has_values) {
        free(m);
    } else {
        m->next = world.spare;
        world.spare = m;
    }
    r->done = 1;
    return 1;
}

/* Guarantees: the running rank runs the body, is marked finished, and its turn ends for
 * good (its stack is left as it is). */
static void world_entry(void)
{
    int rank = world.running;
    MPI_Comm comm = comm_new(world.size, rank, world.node_size);
    world.errors[rank] = comm == MPI_COMM_NULL ? MPI_ERR_INTERN
                                                : world.body(comm, rank, world.arg);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    world.turns[rank].state = RANK_FINISHED;
    _longjmp(world.scheduler, 1);
}

/* Guarantees: rank r has had one more turn: from its entry the first time, else from
 * where its last turn ended; T is the rank's state meanwhile. */
static void world_turn(int r)
{
    world.running = r;
    T = world.ranks[r];
    if (_setjmp(world.scheduler) == 0) {
        rank_turn *t = &world.turns[r];
        if (t->started)
            _longjmp(t->resume, 1);
        t->started = 1;
        getcontext(&world.start);
        world.start.uc_stack.ss_sp = world.stacks + (size_t)r * WORLD_STACK;
        world.start.uc_stack.ss_size = WORLD_STACK;
        world.start.uc_link = NULL;
        makecontext(&world.start, world_entry, 0);
        setcontext(&world.start);
    }
    world.ranks[r] = T;
}

/* Guarantees: see trace_mpi.h. Ranks take turns in the order they become ready (all at
 * first, in rank order); a waiting rank is queued again only when what it waits for has
 * happened, so no turn is spent on a rank that cannot go on. */
int trace_world_run(int size, int node_size, int traced, trace_rank_body body, void *arg)
{
    trace_world_free();
    world.size = size;
    world.node_size = node_size > 0 ? node_size : size;
    world.body = body;
    world.arg = arg;
    world.ranks = calloc((size_t)size, sizeof *world.ranks);
    world.comm_tables = calloc((size_t)size * MAX_COMMS, sizeof *world.comm_tables);
    world.turns = calloc((size_t)size, sizeof *world.turns);
    world.stacks = mmap(NULL, (size_t)size * WORLD_STACK, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    world.errors = calloc((size_t)size, sizeof *world.errors);
    world.ready = calloc((size_t)size, sizeof *world.ready);
    world.reduce_waiting = calloc((size_t)size, sizeof *world.reduce_waiting);
    world.bucket_mask = 1023;
    while (world.bucket_mask < 16u * (unsigned)size - 1)
        world.bucket_mask = 2 * world.bucket_mask + 1;
    world.chains = calloc((size_t)world.bucket_mask + 1, sizeof *world.chains);
    if (world.stacks == MAP_FAILED)
        world.stacks = NULL;
    if (!world.ranks || !world.comm_tables || !world.turns || !world.stacks ||
        !world.errors || !world.ready || !world.reduce_waiting || !world.chains)
        return MPI_ERR_NO_MEM;
    rank_state single = T;
    for (int r = 0; r < size; r++) {
        world.ranks[r] = (rank_state){ .comms = world.comm_tables + (size_t)r * MAX_COMMS,
                                       .keep = r < traced };
        world_wake(r);
    }
    int left = size, err = MPI_SUCCESS;
    while (left > 0) {
        if (world.ready_count == 0) {
            err = MPI_ERR_PENDING; /* every rank waits for a message nobody sends */
            break;
        }
        int r = world.ready[world.ready_first];
        world.ready_first = (world.ready_first + 1) % size;
        world.ready_count--;
        world_turn(r);
        if (world.turns[r].state == RANK_FINISHED) {
            left--;
            if (world.errors[r] != MPI_SUCCESS && err == MPI_SUCCESS)
                err = world.errors[r];
        }
    }
    T = single;
    return err;
}

/* Guarantees: see trace_mpi.h. */
void trace_world_select(int rank)
{
    T = world.ranks[rank];
}

/* Guarantees: see trace_mpi.h. */
void trace_world_sends(int rank, long long *sends, long long *bytes)
{
    *sends = world.ranks[rank].sends;
    *bytes = world.ranks[rank].send_bytes;
}

/* Guarantees: see trace_mpi.h. */
const long long *trace_world_reductions(int *n)
{
    *n = world.reduction_count;
    return world.reductions;
}

/* Guarantees: see trace_mpi.h. */
void trace_world_free(void)
{
    for (int r = 0; world.ranks && r < world.size; r++) {
        free(world.ranks[r].messages);
        free(world.ranks[r].copy_seconds);
        free(world.ranks[r].posted);
    }
    for (unsigned b = 0; world.chains && b <= world.bucket_mask; b++)
        for (mail *m = world.chains[b].head, *next; m; m = next) {
            next = m->next;
            if (m->has_values)
                free(m);
        }
    for (int i = 0; i < world.slab_count; i++)
        free(world.slabs[i]);
    if (world.stacks)
        munmap(world.stacks, (size_t)world.size * WORLD_STACK);
    free(world.ranks);
    free(world.comm_tables);
    free(world.turns);
    free(world.errors);
    free(world.ready);
    free(world.reduce_waiting);
    free(world.chains);
    free(world.slabs);
    free(world.reductions);
    memset(&world, 0, sizeof world);
    T = (rank_state){ .comms = single_comms, .keep = 1 };
}

/* Guarantees: in a traced world, the reduction (MAX, MIN or SUM of up to 8 integers of a
 * predefined type of 4 or 8 bytes) over every rank of a communicator of all P ranks, once
 * all have contributed; the call and its payload bytes recorded once for the world
 * (trace_world_reductions: the model prices the collective SMPI runs for it). Refused outside a world: one rank is traced (the model passes ppn
 * explicitly, so node grouping never reduces). */
int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    virtual_comm *c = comm_of(comm);
    int s = builtin_size(type);
    if (!world.ranks)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    if (!c || c->size != world.size)
        return MPI_ERR_COMM;
    if ((s != 4 && s != 8) || count < 0 || count > 8 ||
        (op != MPI_MAX && op != MPI_MIN && op != MPI_SUM))
        return MPI_ERR_UNSUPPORTED_OPERATION;
    while (world.reduce_complete) /* the previous reduction is still being read */
        world_wait_reduce();
    for (int i = 0; i < count; i++) {
        long long v = s == 8 ? ((const long long *)in)[i] : ((const int *)in)[i];
        long long *acc = &world.reduce[i];
        *acc = world.reduce_arrived == 0 ? v
               : op == MPI_MAX          ? (v > *acc ? v : *acc)
               : op == MPI_MIN          ? (v < *acc ? v : *acc)
                                        : *acc + v;
    }
    if (world.reduce_arrived == 0) { /* the first rank in: the call is recorded once */
        if (world.reduction_count == world.reduction_room) {
            int room = world.reduction_room ? 2 * world.reduction_room : 4;
            long long *grown = realloc(world.reductions, (size_t)room * sizeof *grown);
            if (!grown)
                return MPI_ERR_NO_MEM;
            world.reductions = grown;
            world.reduction_room = room;
        }
        world.reductions[world.reduction_count++] = (long long)count * s;
    }
    if (++world.reduce_arrived == world.size) {
        world.reduce_complete = 1;
        world_wake_reducers();
    }
    while (!world.reduce_complete)
        world_wait_reduce();
    for (int i = 0; i < count; i++) {
        if (s == 8)
            ((long long *)out)[i] = world.reduce[i];
        else
            ((int *)out)[i] = (int)world.reduce[i];
    }
    if (++world.reduce_left == world.size) {
        world.reduce_arrived = world.reduce_left = world.reduce_complete = 0;
        world_wake_reducers();
    }
    return MPI_SUCCESS;
}

/* ---- point to point: recorded; outside a world complete at once, inside matched ----- */

/* Guarantees: MPI_SUCCESS when peer is a rank of comm (or MPI_PROC_NULL) and count and
 * type are valid; *bytes the payload. */
static int check_peer(MPI_Comm comm, int peer, int count, MPI_Datatype type, long long *bytes)
{
    virtual_comm *c = comm_of(comm);
    long long s = type_bytes(type);
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
 * MPI_Waitall. Outside a world nothing is delivered; inside, the message is queued for
 * its receiver (values only: see world_post_send). */
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    long long bytes;
    int err = check_peer(comm, dest, count, type, &bytes);
    if (err == MPI_SUCCESS && dest != MPI_PROC_NULL)
        err = record(comm_of(comm), dest, bytes, 1);
    if (err == MPI_SUCCESS && dest != MPI_PROC_NULL && world.ranks)
        err = world_post_send(buf, bytes, type, dest, tag, comm);
    *request = err == MPI_SUCCESS ? (MPI_Request)REQUEST_HANDLE : MPI_REQUEST_NULL;
    return err;
}

/* Guarantees: the receive recorded in the open epoch. Outside a world the buffer keeps
 * what it held; inside, the receive is posted and MPI_Waitall matches it. */
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    long long bytes;
    int err = check_peer(comm, source, count, type, &bytes);
    if (err == MPI_SUCCESS && source != MPI_PROC_NULL)
        err = record(comm_of(comm), source, bytes, 0);
    *request = err == MPI_SUCCESS ? (MPI_Request)REQUEST_HANDLE : MPI_REQUEST_NULL;
    if (err != MPI_SUCCESS || source == MPI_PROC_NULL || !world.ranks)
        return err;
    if (T.posted_count == T.posted_room) {
        int room = T.posted_room ? 2 * T.posted_room : 64;
        posted_recv *grown = realloc(T.posted, (size_t)room * sizeof *grown);
        if (!grown)
            return MPI_ERR_NO_MEM;
        T.posted = grown;
        T.posted_room = room;
    }
    T.posted[T.posted_count] = (posted_recv){ buf, bytes, source, tag, context_of(comm), 0 };
    *request = (MPI_Request)(RECV_HANDLE_BASE + (unsigned)T.posted_count++);
    T.posted_open++;
    return MPI_SUCCESS;
}

/* Guarantees: every request completed (set to MPI_REQUEST_NULL): inside a world, each
 * receive once its message was sent (the rank waits for it); the epoch closes. */
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    (void)statuses;
    int err = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        unsigned index = (unsigned)requests[i] - RECV_HANDLE_BASE;
        if (world.ranks && (unsigned)requests[i] >= RECV_HANDLE_BASE &&
            index < (unsigned)T.posted_count) {
            posted_recv *r = &T.posted[index];
            while (!r->done && !world_match(r, &err)) {
                world_wait_mail(r->source, r->tag, r->context);
                r = &T.posted[index];
            }
            T.posted_open--;
        }
        requests[i] = MPI_REQUEST_NULL;
    }
    if (T.posted_open == 0)
        T.posted_count = 0;
    close_epoch();
    return err;
}

/* Guarantees: the send recorded in the open epoch, complete on return (a traced world
 * queues it for its receiver); the epoch closes at the rank's next wait, as for a
 * non-blocking send (Open MPI's pairwise alltoallv: MPI_Irecv, MPI_Send, MPI_Wait). */
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    MPI_Request request;
    return MPI_Isend(buf, count, type, dest, tag, comm, &request);
}

/* Guarantees: as MPI_Waitall of the one request. */
int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    (void)status;
    return MPI_Waitall(1, request, MPI_STATUSES_IGNORE);
}

/* Guarantees: both messages recorded in one epoch, which then closes (inside a world,
 * once the received one was sent). */
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
    MPI_Request requests[2];
    long long rbytes = 0;
    int err = check_peer(comm, source, rcount, rtype, &rbytes);
    if (err == MPI_SUCCESS)
        err = MPI_Isend(sbuf, scount, stype, dest, stag, comm, &requests[0]);
    if (err == MPI_SUCCESS)
        err = MPI_Irecv(rbuf, rcount, rtype, source, rtag, comm, &requests[1]);
    if (err == MPI_SUCCESS)
        err = MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
        return err;
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = source;
        status->MPI_TAG = rtag;
        status->MPI_ERROR = MPI_SUCCESS;
        status->count_lo = (int)rbytes; /* MPICH's status: the bytes received */
        status->count_hi_and_cancelled = 0;
    }
    return MPI_SUCCESS;
}
