/*
 * speculate.h — deferred agreement on S for MPI_Alltoallv (speculate.c): the history of a
 * communicator's alltoallv choices and S buckets, the predictions made from it, and their
 * check (internal to kernels/tuned). The lowest of the dispatcher's files: the dispatcher
 * (dispatch.c) and the online tuner (online*.c) use it, it uses neither.
 */
#ifndef A2A_SPECULATE_H
#define A2A_SPECULATE_H

#include "a2a_registry.h"

/* What runs a call: a kernel and its parameters; kernel NULL is the MPI library's own call
 * (then every parameter is 0). */
typedef struct a2a_choice {
    const a2a_kernel *kernel;
    int params[A2A_PARAM_COUNT];
} a2a_choice;

/* Guarantees: the bucket of S (the key of an online shape and of the history's entries):
 * 0 for S = 0, else 1 + floor(log2 S). */
static inline int a2a_bucket_of(long long S)
{
    int b = 0;
    for (unsigned long long s = (unsigned long long)S; s; s >>= 1)
        b++;
    return b;
}

typedef struct a2a_speculation a2a_speculation;

/* Judges call i of a checked window: *truth and *settled are the dispatcher's choice for
 * the agreed S and whether it is settled; returns 1 when it is settled and equals
 * *predicted. Accounts the call (a2a_online_replay or a2a_online_note_rule). */
typedef int (*a2a_speculation_judge)(long long S, double seconds, const a2a_choice *predicted,
                                     a2a_choice *truth, int *settled, void *arg);

int a2a_choice_equal(const a2a_choice *a, const a2a_choice *b);
void a2a_choice_set(a2a_choice *c, const a2a_kernel *k, const int *params);
a2a_speculation *a2a_speculation_new(void);
void a2a_speculation_free(a2a_speculation *sp);
int a2a_speculation_predict(a2a_speculation *sp, a2a_choice *out, long long *call);
int a2a_speculation_agreed(a2a_speculation *sp, const a2a_choice *choice, int settled, int bucket);
int a2a_speculation_bucket(const a2a_speculation *sp, int *period);
long long a2a_speculation_known(const a2a_speculation *sp);
void a2a_speculation_correct(a2a_speculation *sp, long long index, int bucket);
void a2a_speculation_refuted(a2a_speculation *sp);
void a2a_speculation_enter(a2a_speculation *sp, const a2a_choice *choice);
void a2a_speculation_append(a2a_speculation *sp, const a2a_choice *choice, int bucket);
int a2a_speculation_deferral_begins(a2a_speculation *sp);
int a2a_speculation_record(a2a_speculation *sp, long long S, double seconds);
int a2a_speculation_unchecked(const a2a_speculation *sp);
void a2a_speculation_count_per_call(a2a_speculation *sp);
long long a2a_speculation_per_call(const a2a_speculation *sp, long long *calls);
int a2a_speculation_check(a2a_speculation *sp, MPI_Comm comm, a2a_speculation_judge judge,
                          void *arg, long long *ended_at);

#endif
