/*
 * online.h — what the tuned dispatcher (dispatch.c) calls of its online tuner (online*.c)
 * (internal to kernels/tuned; the public side is include/a2a_tuned.h).
 *
 * dispatch.c decides every call as before: the MPI library where a call must go there
 * (intercommunicator, MPI_IN_PLACE, ...), the tuning file's rule where it has one. Under
 * A2A_TUNING=online a call the file has no rule for is handed to a2a_online_call, which
 * explores candidates for its shape and then runs the winner. Calls run one way: the
 * dispatcher calls the tuner, and hands it, once (a2a_online_configure), the table of what
 * the tuner runs calls and reads the tuning file through (a2a_online_ops); no online file
 * calls dispatch.c. Both use the deferred agreement of speculate.h, which uses neither.
 */
#ifndef A2A_ONLINE_H
#define A2A_ONLINE_H

#include <stddef.h>
#include <jansson.h>
#include "a2a_registry.h"
#include "kernel_util.h"
#include "speculate.h"

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

/* What the online tuner calls through: the dispatcher's executors and its tuning file,
 * handed to the tuner once (a2a_online_configure). */
typedef struct a2a_online_ops {
    /* The MPI library's own collective for `call`, received into rbuf (the call's receive
     * buffer, or a copy of it laid out alike). */
    int (*call_library)(const a2a_call *call, void *rbuf);
    /* The kernel's result for `call` (staged where a type is not one ascending run). A
     * kernel that refuses the call (MPI_ERR_COUNT: alike on every rank, before any data
     * moved) sets *refused and the MPI library computes the call instead; any other error
     * went through the communicator's error handler and is returned. */
    int (*call_kernel)(const a2a_call *call, const a2a_kernel *kernel, const int *params,
                       int *refused);
    /* (Collective over comm, at the end of the run, A2A_Tuning_finalize, or before comm is
     * freed, A2A_Comm_free) the alltoallv calls of sp's deferred-agreement window not
     * checked yet are checked now and accounted to their shapes, as at the window's end;
     * nothing when there are none (alike on every rank). A2A_VERBOSE's line says `when`. */
    int (*close_window)(MPI_Comm comm, a2a_speculation *sp, const char *when);
    /* The rules of A2A_TUNING_FILE of collective coll as the file wrote them (a JSON
     * array, borrowed), or NULL. */
    json_t *(*file_rules)(int coll);
    /* The "online_partial" list of A2A_TUNING_FILE (a JSON array, borrowed): the shapes an
     * earlier online run left exploring, or NULL. */
    json_t *(*file_partial)(void);
} a2a_online_ops;

/* Reads A2A_TUNING and, under "online", A2A_TUNING_EXPLORE, A2A_TUNING_CHECK,
 * A2A_TUNING_OUT, A2A_TUNING_TEST_CORRUPT, A2A_TUNING_TEST_NOMEM and
 * A2A_TUNING_TEST_WINDOW_SCALE, and keeps ops (copied) and verbose (A2A_VERBOSE: 0 off, 1
 * rank 0 of each communicator logs, 2 every rank logs its online decisions too). Returns 1
 * for online tuning, 0 when A2A_TUNING is unset or "file" (today's dispatcher), -1 for a
 * bad value: then `error` holds one line saying which and why, and every call goes to the
 * MPI library. */
int a2a_online_configure(const a2a_online_ops *ops, int verbose, char *error, size_t len);

/* The result of `call`, computed by the candidate the online tuner picks for the call's
 * shape on its communicator (see a2a_tuned.h). Every rank of the communicator picks the
 * same candidate: the choice is a function of the number of calls of the shape on the
 * communicator and of values reduced over all its ranks. */
int a2a_online_call(const a2a_call *call);

/* The shape an alltoallv call is predicted to have (a2a_online_predicted_call). */
typedef struct a2a_prediction {
    int bucket;        /* its S bucket */
    int period;        /* the period of the buckets it came from (1: or the last agreed shape) */
    a2a_choice winner; /* (returned 2 or 3) the shape's winner */
} a2a_prediction;

/* (alltoallv, call->S this rank's own, not agreed) The bucket predicted for the call: that
 * of the call L calls before when the buckets of the communicator's alltoallv calls known
 * (agreed, or predicted and not refuted) repeat with a period L <= 8
 * (a2a_speculation_bucket), else, until a prediction was wrong once, the shape of the last
 * call whose S was agreed. Returns 1 when the call ran as a call of that shape, exploring
 * past its warm-up: it explores the shape's current candidate, and the reduction that
 * gathers its time (round 0's, for every candidate's calls of the round, or in rounds 1
 * and 2 its candidate's) checks the prediction (a wrong one takes the calls of other
 * buckets out of the round, replays each to its own shape, corrects the history, and ends
 * the fallback to the last agreed shape; the candidates left short make up their calls in
 * a further pass); *rc is the call's result. 2 when, besides, the prediction was the last
 * call's bucket (L = 1) and this call ended the shape's exploration with every call of it
 * run on a predicted S checked right: pred->winner is the winner, which the next calls may
 * run on a prediction too (a2a_speculation_enter). 3 (nothing run) when the buckets' period
 * predicts a decided shape: pred->winner is its winner, which the caller runs on the
 * prediction, checked in a window as a speculated call (a2a_speculation_append). 0 (nothing
 * run) otherwise: the caller agrees on S. Every rank of the communicator returns the same at
 * the same call: it depends on agreed state only. */
int a2a_online_predicted_call(const a2a_call *call, int *rc, a2a_prediction *pred);

/* Counts a call that a rule of A2A_TUNING_FILE took under online tuning (the kernel the
 * rule names), for A2A_Tuning_summary. Every rank of the communicator calls it at the
 * same call: until every rank has its state of the communicator, it reduces on it. */
void a2a_online_note_rule(const a2a_call *call, const a2a_kernel *kernel, const int *params);

/* This rank's state of comm for deferred alltoallv agreement (speculate.c), made at the
 * first call; NULL when not online, or, on every rank alike, while some rank of comm has
 * no memory for its state (then one MPI_Allreduce on comm each call: every rank calls it
 * at the same call). Freed with the communicator. */
a2a_speculation *a2a_online_speculation(MPI_Comm comm);

/* 1 when the shape of `call` (its S agreed) on its communicator is decided: *out is its
 * winner (the MPI library for good when some rank had no memory for the shape); 0 while
 * it explores, warms up, or was never seen (nothing is made, nothing sent). */
int a2a_online_winner(const a2a_call *call, a2a_choice *out);

/* Accounts a call of agreed shape `call` that ran without a2a_online_call (deferred
 * agreement): counted for its shape (made if new: a call of its warm-up); when it ran the
 * shape's winner (ran_winner), its time (max over ranks) feeds the winner's monitoring as
 * a timed call would. Every rank calls it with the same values at the same call; it may
 * reduce on the communicator as a2a_online_call does. */
int a2a_online_replay(const a2a_call *call, double seconds, int ran_winner);

/* A2A_Tuning_summary (see a2a_tuned.h): 0 and "" when not online. */
int a2a_online_summary(MPI_Comm comm, char *text, size_t len);

/* (Collective over *comm, before A2A_Comm_free frees it) under online tuning, an
 * intracommunicator's window and predicted calls not checked yet are checked and
 * accounted, its trials judged, and its summary logged under A2A_VERBOSE; nothing
 * otherwise (comm NULL or MPI_COMM_NULL too). Returns the first MPI error. */
int a2a_online_before_comm_free(MPI_Comm *comm);

/* A2A_Tuning_finalize (see a2a_tuned.h): MPI_SUCCESS at once when not online. */
int a2a_online_finalize(void);

#endif
