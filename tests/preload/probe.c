/*
 * probe.c — a test instrument, loaded with LD_PRELOAD into an MPI program: after every
 * MPI_Alltoall / MPI_Alltoallv, rank 0 of the communicator writes one line on stderr
 * saying what the MPI library did inside the call, so tests can see which algorithm a
 * tuning file or a forced vendor_algorithm really made the library run:
 *
 *   a2a-probe: alltoall P=4 bytes=64 algorithm=pairwise            (Open MPI)
 *   a2a-probe: alltoall P=4 bytes=64 sends=3 tag=9                 (MPICH ch4:ucx)
 *
 * Open MPI: coll/tuned (mca_coll_tuned.so) calls the algorithms of coll/base through
 * libmpi.so's dynamic symbols (ompi_coll_base_alltoall_intra_pairwise ...), so they can be
 * interposed here; `algorithm` is the last one called inside the MPI call, or `other`
 * when none was (another component such as coll/self or coll/basic ran it).
 * MPICH: its algorithms are internal, but every message it sends goes out through UCX
 * (ucp_tag_send_nbx, imported by libmpich.so), so the probe counts this rank's sends and
 * records the largest MPI tag (low 32 bits of the UCX tag): blocking algorithms use the
 * collective's fixed tag (alltoall 9, alltoallv 10), schedule-based ("nb") ones a
 * schedule tag above 255. At P = 4 the algorithms differ in sends: brucks 2, pairwise 3,
 * scattered 4 (it sends to itself too).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static const char *last_algorithm; /* Open MPI: coll/base function run in this call */
static long sends;                 /* MPICH: UCX tag sends so far */
static uint32_t max_tag;           /* MPICH: largest MPI tag sent in this call */

/* Looks up the next definition of `name` (the MPI or UCX library's), once. */
static void *next_symbol(void **cache, const char *name)
{
    if (!*cache)
        *cache = dlsym(RTLD_NEXT, name);
    return *cache;
}

#ifdef OPEN_MPI
typedef int (*alltoall_fn)(const void *, int, void *, void *, int, void *, void *, void *);
typedef int (*alltoallv_fn)(const void *, const int *, const int *, void *, void *,
                            const int *, const int *, void *, void *, void *);

/* One interposer per coll/base alltoall algorithm: records its name, calls it. */
#define ALLTOALL_ALGORITHM(fn, label)                                                         \
    int fn(const void *sb, int sc, void *st, void *rb, int rc, void *rt, void *c, void *m);   \
    int fn(const void *sb, int sc, void *st, void *rb, int rc, void *rt, void *c, void *m)    \
    {                                                                                         \
        static void *real;                                                                    \
        last_algorithm = label;                                                               \
        return ((alltoall_fn)next_symbol(&real, #fn))(sb, sc, st, rb, rc, rt, c, m);          \
    }
#define ALLTOALLV_ALGORITHM(fn, label)                                                        \
    int fn(const void *sb, const int *sc, const int *sd, void *st, void *rb, const int *rc,   \
           const int *rd, void *rt, void *c, void *m);                                        \
    int fn(const void *sb, const int *sc, const int *sd, void *st, void *rb, const int *rc,   \
           const int *rd, void *rt, void *c, void *m)                                         \
    {                                                                                         \
        static void *real;                                                                    \
        last_algorithm = label;                                                               \
        return ((alltoallv_fn)next_symbol(&real, #fn))(sb, sc, sd, st, rb, rc, rd, rt, c, m); \
    }
ALLTOALL_ALGORITHM(ompi_coll_base_alltoall_intra_basic_linear, "linear")
ALLTOALL_ALGORITHM(ompi_coll_base_alltoall_intra_pairwise, "pairwise")
ALLTOALL_ALGORITHM(ompi_coll_base_alltoall_intra_bruck, "modified_bruck")
ALLTOALL_ALGORITHM(ompi_coll_base_alltoall_intra_linear_sync, "linear_sync")
ALLTOALL_ALGORITHM(ompi_coll_base_alltoall_intra_two_procs, "two_proc")
ALLTOALLV_ALGORITHM(ompi_coll_base_alltoallv_intra_basic_linear, "basic_linear")
ALLTOALLV_ALGORITHM(ompi_coll_base_alltoallv_intra_pairwise, "pairwise")
#endif

#ifdef MPICH
typedef void *(*send_fn)(void *, const void *, size_t, uint64_t, const void *);

/* ucp_tag_send_nbx and ucp_tag_send_sync_nbx: count the send, note its MPI tag. */
#define UCX_SEND(fn)                                                                          \
    void *fn(void *ep, const void *buf, size_t count, uint64_t tag, const void *param);       \
    void *fn(void *ep, const void *buf, size_t count, uint64_t tag, const void *param)        \
    {                                                                                         \
        static void *real;                                                                    \
        sends++;                                                                              \
        if ((uint32_t)tag > max_tag)                                                          \
            max_tag = (uint32_t)tag;                                                          \
        return ((send_fn)next_symbol(&real, #fn))(ep, buf, count, tag, param);                \
    }
UCX_SEND(ucp_tag_send_nbx)
UCX_SEND(ucp_tag_send_sync_nbx)
#endif

/* Writes the probe line of one call (rank 0 of comm only). */
static void report(const char *what, MPI_Comm comm, long long bytes, long sends_before)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank != 0)
        return;
#ifdef OPEN_MPI
    (void)sends_before;
    fprintf(stderr, "a2a-probe: %s P=%d bytes=%lld algorithm=%s\n", what, size, bytes,
            last_algorithm ? last_algorithm : "other");
#else
    fprintf(stderr, "a2a-probe: %s P=%d bytes=%lld sends=%ld tag=%u\n", what, size, bytes,
            sends - sends_before, max_tag);
#endif
}

/* MPI_Alltoall, observed: bytes = one block (scount elements of stype). */
int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    int size;
    PMPI_Type_size(stype == MPI_DATATYPE_NULL ? rtype : stype, &size);
    long before = sends;
    last_algorithm = NULL;
    max_tag = 0;
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    report("alltoall", comm, (long long)(sbuf == MPI_IN_PLACE ? rcount : scount) * size, before);
    return rc;
}

/* MPI_Alltoallv, observed: bytes = the largest block this rank sends. */
int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                  void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    int size, P;
    long long largest = 0;
    PMPI_Comm_size(comm, &P);
    if (sbuf != MPI_IN_PLACE) {
        PMPI_Type_size(stype, &size);
        for (int i = 0; i < P; i++)
            if ((long long)scounts[i] * size > largest)
                largest = (long long)scounts[i] * size;
    }
    long before = sends;
    last_algorithm = NULL;
    max_tag = 0;
    int rc = PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    report("alltoallv", comm, largest, before);
    return rc;
}
