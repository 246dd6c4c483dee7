/*
 * online.h — what the tuned dispatcher (dispatch.c) and its online tuner (online.c) share
 * (internal to kernels/tuned; the public side is include/a2a_tuned.h).
 *
 * dispatch.c decides every call as before: the MPI library where a call must go there
 * (intercommunicator, MPI_IN_PLACE, ...), the tuning file's rule where it has one. Under
 * A2A_TUNING=online a call the file has no rule for is handed to a2a_online_call, which
 * explores candidates for its shape and then runs the winner, through the two executors
 * dispatch.c provides below.
 */
#ifndef A2A_ONLINE_H
#define A2A_ONLINE_H

#include <stddef.h>
#include <jansson.h>
#include "a2a_registry.h"
#include "kernel_util.h"

enum { A2A_COLL_ALLTOALL, A2A_COLL_ALLTOALLV };

/* One call of MPI_Alltoall (send.count, recv.count) or MPI_Alltoallv (counts, displs), as
 * the application made it, with the shape every rank agrees on. */
typedef struct a2a_call {
    int coll;      /* A2A_COLL_ALLTOALL or A2A_COLL_ALLTOALLV */
    MPI_Comm comm; /* an intracommunicator */
    int P;
    long long S;   /* bytes of one block; alltoallv: the largest block of any rank (agreed) */
    a2a_side send, recv;
} a2a_call;

/* ---- provided by dispatch.c --------------------------------------------------------- */

/* The MPI library's own collective for `call`, received into rbuf (the call's receive
 * buffer, or a copy of it laid out alike). */
int a2a_call_library(const a2a_call *call, void *rbuf);

/* The kernel's result for `call` (staged where a type is not one ascending run). A kernel
 * that refuses the call (MPI_ERR_COUNT: alike on every rank, before any data moved) sets
 * *refused and the MPI library computes the call instead; any other error went through
 * the communicator's error handler and is returned. */
int a2a_call_kernel(const a2a_call *call, const a2a_kernel *kernel, const int *params,
                    int *refused);

/* A2A_VERBOSE: 0 off, 1 rank 0 of each communicator logs, 2 every rank logs its online
 * decisions too. */
int a2a_tuned_verbose(void);

/* The rules of A2A_TUNING_FILE of collective coll as the file wrote them (a JSON array,
 * borrowed), or NULL. */
json_t *a2a_tuned_file_rules(int coll);

/* ---- provided by online.c ----------------------------------------------------------- */

/* Reads A2A_TUNING and, under "online", A2A_TUNING_EXPLORE, A2A_TUNING_CHECK,
 * A2A_TUNING_OUT and A2A_TUNING_TEST_CORRUPT. Returns 1 for online tuning, 0 when
 * A2A_TUNING is unset or "file" (today's dispatcher), -1 for a bad value: then `error`
 * holds one line saying which and why, and every call goes to the MPI library. */
int a2a_online_configure(char *error, size_t len);

/* The result of `call`, computed by the candidate the online tuner picks for the call's
 * shape on its communicator (see a2a_tuned.h). Every rank of the communicator picks the
 * same candidate: the choice is a function of the number of calls of the shape on the
 * communicator and of values reduced over all its ranks. */
int a2a_online_call(const a2a_call *call);

/* Counts a call that a rule of A2A_TUNING_FILE took under online tuning (the kernel the
 * rule names), for A2A_Tuning_summary. */
void a2a_online_note_rule(const a2a_call *call, const a2a_kernel *kernel, const int *params);

#endif
