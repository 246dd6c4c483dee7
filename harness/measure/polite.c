/* polite.c — waiting without spinning (see polite.h). */
#include <time.h>
#include "polite.h"

/* longest sleep between two tests of an idle rank (about 10 ms) */
#define IDLE_MAX_PAUSE_NS 10000000L

/* Guarantees: req is complete on return; the caller's CPU is mostly given away. */
void polite_wait(MPI_Request *req)
{
#ifdef A2A_SIMGRID
    /* simulated ranks take no CPU while they wait; nanosleep would be simulated time */
    MPI_Wait(req, MPI_STATUS_IGNORE);
    return;
#endif
    long pause_ns = 1000;
    for (;;) {
        int done = 0;
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = { 0, pause_ns };
        nanosleep(&ts, NULL);
        if (pause_ns < 100000)
            pause_ns *= 2;
    }
}

/* Guarantees: every rank of comm has entered the barrier when it returns; the caller woke
 * at most about 100 times a second once it has waited for 10 ms. */
void idle_barrier(MPI_Comm comm)
{
#ifdef A2A_SIMGRID
    /* simulated ranks take no CPU while they wait; nanosleep would be simulated time */
    MPI_Barrier(comm);
    return;
#endif
    MPI_Request req;
    MPI_Ibarrier(comm, &req);
    long pause_ns = 1000;
    for (;;) {
        int done = 0;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = { pause_ns / 1000000000L, pause_ns % 1000000000L };
        nanosleep(&ts, NULL);
        if (pause_ns < IDLE_MAX_PAUSE_NS)
            pause_ns *= 2;
    }
}

/* Guarantees: every rank of comm has entered the barrier when it returns. */
void polite_barrier(MPI_Comm comm)
{
#ifdef A2A_SIMGRID
    /* SMPI's non-blocking collectives cost O(P^2) simulation work per call */
    MPI_Barrier(comm);
    return;
#endif
    MPI_Request req;
    MPI_Ibarrier(comm, &req);
    polite_wait(&req);
}

/* Guarantees: the result of MPI_Allreduce(in, out, ...). */
void polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm)
{
#ifdef A2A_SIMGRID
    MPI_Allreduce(in, out, count, type, op, comm);
    return;
#endif
    MPI_Request req;
    MPI_Iallreduce(in, out, count, type, op, comm, &req);
    polite_wait(&req);
}
