/*
 * a2a_tuned.h — the tuned dispatcher of liba2a, and the MPI library's own all-to-all
 * algorithms forced one by one (the `vendor_algorithm` parameter). Included by a2a.h.
 *
 * Tuned dispatcher: A2A_Alltoall / A2A_Alltoallv take exactly MPI_Alltoall's and
 * MPI_Alltoallv's arguments and pick, per call, the kernel and parameters that the tuning
 * file named by the environment variable A2A_TUNING_FILE gives for the communicator size
 * P and the block size S (`a2a tune` writes it from a results database; format in
 * docs/tuning-files.md). The call goes to the MPI library for an intercommunicator, for
 * MPI_IN_PLACE, where the file has no rule, where the rule's parameters are not valid at
 * this P, and when the kernel refuses the call for a message too large for it
 * (MPI_ERR_COUNT, on every rank alike before any data moved). Every rank decides alike:
 * the decision reads only what MPI requires to be the same on all ranks (the
 * communicator, in place or not, P, the bytes of one block for alltoall) and, for
 * alltoallv when the rules at this P depend on it, the largest block agreed on with one
 * MPI_Allreduce. Datatypes are not part of the decision: a rank whose type is not one
 * ascending run of bytes hands the kernel packed copies (MPI_Pack / MPI_Unpack), so
 * ranks may use different types with matching signatures. Errors of a kernel go through
 * the communicator's error handler, as the MPI library's own would. A2A_VERBOSE=1 makes
 * rank 0 of each communicator log every choice, and why a call went to the MPI
 * library, on stderr. The file is read once, at the first call; every rank must see the
 * same A2A_TUNING_FILE and A2A_MAX_MESSAGE_BYTES.
 *
 * Online tuning (A2A_TUNING=online; "file" or unset: the above alone): a call the file
 * has no rule for (or every call, without a file) is tuned during the application's own
 * calls (kernels/tuned/online.c). Per communicator and call shape (alltoall or alltoallv,
 * S by powers of two: 0, 1, 2..3, 4..7, ...; alltoallv's S is its largest block, agreed
 * on with one MPI_Allreduce per call; while the choices repeat (the same kernel for every
 * S seen, or a cycle of at most 8 calls), the call runs the predicted choice and one
 * MPI_Allreduce per window of 8 to 64 calls checks it, a wrong one restoring the per-call
 * agreement from the next call: kernels/tuned/speculate.c; while the buckets of S repeat
 * with a period of at most 8 calls, a call runs on the bucket of the call one period
 * before (else on the last agreed call's): an exploring shape's candidate, checked in the
 * reduction of its round's times, or a decided shape's winner, checked in such a window)
 * a handful of candidates (the MPI library's own
 * algorithm first, direct exchanges, Bruck, tra / tuna at the radices the K/D model
 * prefers) race in turn, in three rounds (two calls each, the rest of a short probe, the
 * rest of their calls), a candidate beyond 1.5x the best median so far (and its noise)
 * out after each of the first two, the MPI library too; an MPI_Allreduce gives the max
 * over ranks of each call timed: one at the end of round 0 (every candidate's two calls
 * back to back), one at the end of each candidate's calls of rounds 1 and 2, one more for
 * the calls made up after wrong predictions of S; then the winner
 * runs, switched to on every rank at the same call. A winner other than the simplest needs to be faster beyond
 * the noise (the rule of `a2a tune`); a shape's first calls (a probe's length, two less,
 * at least 2) run the MPI library (a warm-up), the last two of them timed as its first
 * round: a shape seen no more often stays on the MPI library.
 * In-place calls, intercommunicators and calls a kernel refuses go to the MPI library as
 * in file mode. Variables (the same on every rank; a bad value: one line on stderr from
 * rank 0 and every call on the MPI library):
 *   A2A_TUNING_EXPLORE=N  calls a shape may spend exploring, 6..1000000 (default 120);
 *                         its candidates share them (3 to 64 calls each); a winner slower
 *                         beyond its noise and by more than 5 % in two timed windows in a
 *                         row (n calls every 16 n) has drifted (at most 3 times per
 *                         shape): the fastest candidate explored that it is slower than
 *                         runs in its place, kept if its first window is faster, else the
 *                         winner back; with no such candidate the shape explores again
 *   A2A_TUNING_CHECK=1    each candidate's first result is compared with the MPI
 *                         library's; one that differs is dropped, with a line on stderr
 *   A2A_TUNING_OUT=PATH   A2A_Tuning_finalize writes the file's rules and the decisions
 *                         made (rank 0 of MPI_COMM_WORLD, atomically): A2A_TUNING_FILE's
 *                         format, so a later run with A2A_TUNING_FILE=PATH starts there;
 *                         shapes still exploring go to its "online_partial" list, which
 *                         a later online run resumes (file mode ignores it)
 *   A2A_VERBOSE=1         rank 0 of each communicator logs each shape's decision and
 *                         what exploring cost (2: every rank)
 *   A2A_TUNING_TEST_CORRUPT=KERNEL  for tests only: the last rank flips a received byte
 *                         after each call of KERNEL (A2A_TUNING_CHECK must catch it)
 *   A2A_TUNING_TEST_NOMEM=state|shape|attr|gather  for tests only: the last rank of
 *                         each communicator fails to allocate the tuner's state of every
 *                         shape, or (state) its first 2 states of a communicator (a count
 *                         of the process), or (attr) to attach a communicator's state
 *                         (MPI_Comm_set_attr; MPI_COMM_WORLD and MPI_COMM_SELF have
 *                         none); (gather) rank 0 fails to allocate the end-of-run
 *                         gather of the decisions
 *   A2A_TUNING_TEST_WINDOW_SCALE=F[,G]  for tests only: every call's time is a constant
 *                         of its candidate, (index + 1) ms, and a monitoring window's F
 *                         times that for the MPI library, G (default F) for another
 * Out of memory on some ranks only: a communicator's state and each shape's are agreed
 * on when made (one MPI_Allreduce then); while some rank lacks its own, every rank runs
 * the MPI library at the same calls (a shape: for good; a communicator: until every rank
 * has its state, agreeing at each call meanwhile). A rank that cannot attach a
 * communicator's state to it (keyval or attribute failing) keeps none, likewise; rank 0
 * without memory for the end-of-run gather says so and no rank gathers (no file).
 *
 * vendor_algorithm: 0 is the library's own choice; n > 0 forces the library's algorithm
 * n (names below, per library). Open MPI (coll/tuned): the algorithm is written to
 * coll_tuned_alltoall(v)_algorithm through MPI_T and a duplicate of the communicator,
 * made right after the write and cached on it, runs it; this needs
 * coll_tuned_use_dynamic_rules = 1 at MPI_Init, which MPI_T cannot change later: a
 * program that forces algorithms (directly or through a tuning file) calls
 * A2A_Vendor_prepare() before MPI_Init (a2atune and liba2a_preload.so do; liba2a itself
 * changes no environment). MPICH: MPIR_CVAR_ALLTOALL(V)_INTRA_ALGORITHM is written through MPI_T for
 * the call and restored after it.
 */
#ifndef A2A_TUNED_H
#define A2A_TUNED_H

#include <stddef.h>
#include "a2a_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's algorithms, numbered from 1 (Open MPI's own numbers; for MPICH, the
 * algorithms of its cvars that take a separate send buffer, in the cvars' order). */
#if defined(OPEN_MPI)
#define A2A_VENDOR_LIBRARY "Open MPI"
#define A2A_VENDOR_ALLTOALL_NAMES "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"
#define A2A_VENDOR_ALLTOALL_MAX 5
#define A2A_VENDOR_ALLTOALLV_NAMES "basic_linear", "pairwise"
#define A2A_VENDOR_ALLTOALLV_MAX 2
#define A2A_VENDOR_ALLTOALL_SUMMARY \
    "; vendor_algorithm (Open MPI): 1 linear, 2 pairwise, 3 modified_bruck, 4 linear_sync, 5 two_proc (P = 2)"
#define A2A_VENDOR_ALLTOALLV_SUMMARY "; vendor_algorithm (Open MPI): 1 basic_linear, 2 pairwise"
#elif defined(MPICH)
#define A2A_VENDOR_LIBRARY "MPICH"
#define A2A_VENDOR_ALLTOALL_NAMES "brucks", "nb", "pairwise", "scattered"
#define A2A_VENDOR_ALLTOALL_MAX 4
#define A2A_VENDOR_ALLTOALLV_NAMES "nb", "scattered"
#define A2A_VENDOR_ALLTOALLV_MAX 2
#define A2A_VENDOR_ALLTOALL_SUMMARY \
    "; vendor_algorithm (MPICH): 1 brucks, 2 nb, 3 pairwise, 4 scattered"
#define A2A_VENDOR_ALLTOALLV_SUMMARY "; vendor_algorithm (MPICH): 1 nb, 2 scattered"
#else
#define A2A_VENDOR_LIBRARY "unknown MPI"
#define A2A_VENDOR_ALLTOALL_NAMES NULL
#define A2A_VENDOR_ALLTOALL_MAX 0
#define A2A_VENDOR_ALLTOALLV_NAMES NULL
#define A2A_VENDOR_ALLTOALLV_MAX 0
#define A2A_VENDOR_ALLTOALL_SUMMARY "; vendor_algorithm: only 0 with this MPI library"
#define A2A_VENDOR_ALLTOALLV_SUMMARY "; vendor_algorithm: only 0 with this MPI library"
#endif

/* ---- the tuned dispatcher ----------------------------------------------------------- */

/* MPI_Alltoall, through the kernel the tuning file chooses for (P, scount * size). */
int A2A_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm);
/* MPI_Alltoallv, through the kernel the tuning file chooses for (P, S) with S the largest
 * block any rank sends (found with one MPI_Allreduce, only when the file's choice at this
 * P depends on S; under online tuning deferred while the choices repeat, see above). */
int A2A_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                  void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                  MPI_Comm comm);

/* Under A2A_TUNING=online: checks the alltoallv calls of each live communicator's
 * deferred-agreement window still open (one MPI_Allreduce on it), and likewise its exploring
 * calls run on a predicted S not checked yet, so that every call is
 * accounted to its shape (A2A_Tuning_summary counts them all after it; A2A_VERBOSE logs
 * each communicator's summary then), and judges a candidate on trial after a drift on the
 * calls its window ran (one MPI_Allreduce; see docs/tuning-files.md); with A2A_TUNING_OUT
 * set, then writes the tuning file
 * (see above). Collective over MPI_COMM_WORLD and those communicators: call it on every
 * rank before MPI_Finalize (liba2a_preload.so does, in its MPI_Finalize). Otherwise does
 * nothing and sends nothing. Returns an MPI error code. */
int A2A_Tuning_finalize(void);

/* MPI_Comm_free for a communicator the dispatcher may have tuned: under A2A_TUNING=online
 * first checks the alltoallv calls of comm's deferred-agreement window still open, or run
 * on a predicted S and not checked yet, and judges a trial under way (the MPI_Allreduce
 * A2A_Tuning_finalize would make; none when nothing is open, alike on every rank), so
 * that they are accounted to their shapes before comm's state is retired
 * (A2A_VERBOSE logs comm's summary then); nothing for an intercommunicator or a
 * communicator never tuned. Collective, as MPI_Comm_free is: a program linked with liba2a
 * calls it where it calls MPI_Comm_free, inside an attribute's delete callback too
 * (liba2a_preload.so routes MPI_Comm_free here, a nested one as well). Returns
 * MPI_Comm_free's code, or the check's error. */
int A2A_Comm_free(MPI_Comm *comm);

/* Under A2A_TUNING=online: this rank's record of what the dispatcher ran on comm so far,
 * in text (NUL-terminated, cut at len): one entry per call shape, separated by "; ", e.g.
 *   "alltoallv P=64 S=512..1023: tuna radix=8 block_count=7 from call 46 of 60 (7
 *    candidates, 40 calls exploring)"
 *   "alltoall P=64 S=64..127: MPI library, 2 calls (the shape's warm-up: exploring begins
 *    after 3)"  (a shape seen that rarely stays on the MPI library)
 *   "alltoallv P=64 S=16..31: still exploring after 30 calls (25 calls exploring; an
 *    exploration gives each of 7 candidates at most 15 calls): the MPI library and the
 *    candidates in turn"
 *   "alltoall P=64 S=1024..2047: tra radix=4 by the tuning file's rule, 60 calls"
 *   "alltoallv P=64: 12 calls on a prediction, not checked yet"  (the deferred
 *    agreement's window under way: those calls join their shapes when it is checked)
 * Returns the number of shapes (0 and "" when not online or nothing ran on comm). Local:
 * sends nothing. */
int A2A_Tuning_summary(MPI_Comm comm, char *text, size_t len);

/* ---- the MPI library's algorithms, forced ------------------------------------------- */

/* MPI_Alltoall with the library's algorithm `algorithm` (0: its own choice, exactly
 * A2A_Alltoall_vendor). MPI_ERR_ARG for a number this library does not have or that
 * cannot run at this P; MPI_ERR_UNSUPPORTED_OPERATION (and one line on stderr from rank
 * 0) when the library refuses to be forced. stats are left untouched. */
int A2A_Alltoall_vendor_algorithm(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                  int rcount, MPI_Datatype rtype, MPI_Comm comm, int algorithm,
                                  a2a_stats *stats);
/* MPI_Alltoallv with the library's algorithm `algorithm`, as above. */
int A2A_Alltoallv_vendor_algorithm(const void *sbuf, const int *scounts, const int *sdispls,
                                   MPI_Datatype stype, void *rbuf, const int *rcounts,
                                   const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                   int algorithm, a2a_stats *stats);

/* Call before MPI_Init in a program that forces the library's algorithms. Open MPI: sets
 * OMPI_MCA_coll_tuned_use_dynamic_rules=1 (setenv) unless the environment already sets
 * any OMPI_MCA_coll_tuned_* variable; without a rules file or a forced algorithm,
 * coll/tuned's dynamic decision is its fixed one, so nothing else changes. Other
 * libraries: does nothing (MPICH's cvars are written per call). */
void A2A_Vendor_prepare(void);

/* The library's name of algorithm n of MPI_Alltoall (alltoallv = 0) or MPI_Alltoallv
 * (alltoallv = 1): "default" for 0, NULL for a number it does not have. */
const char *A2A_Vendor_algorithm_name(int alltoallv, int algorithm);

/* 1 if algorithm n exists in this library and can run on P ranks (two_proc: P = 2). */
int A2A_Vendor_algorithm_valid(int alltoallv, int algorithm, int P);

#ifdef __cplusplus
}
#endif

#endif
