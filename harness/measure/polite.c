/* polite.c — waiting without spinning (see polite.h). */
#include <time.h>
#include "polite.h"

/* longest sleep between two tests of an idle rank (about 10 ms) */
#define IDLE_MAX_PAUSE_NS 10000000L

/* Guarantees: req is complete on return; between its tests the caller sleeps from 1 us,
 * doubling up to max_pause_ns. */
static void wait_sleeping(MPI_Request *req, long max_pause_ns)
{
    long pause_ns = 1000;
    for (;;) {
        int done = 0;
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = { pause_ns / 1000000000L, pause_ns % 1000000000L };
        nanosleep(&ts, NULL);
        if (pause_ns < max_pause_ns)
            pause_ns *= 2;
    }
}

/* Guarantees: req is complete on return; the caller's CPU is mostly given away. */
void polite_wait(MPI_Request *req)
{
#ifdef A2A_SIMGRID
    /* simulated ranks take no CPU while they wait; nanosleep would be simulated time */
    MPI_Wait(req, MPI_STATUS_IGNORE);
    return;
#endif
    wait_sleeping(req, 100000);
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
    wait_sleeping(&req, IDLE_MAX_PAUSE_NS);
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
