/* runner.h — validating and timing one configuration on a communicator of P ranks. */
#ifndef A2A_RUNNER_H
#define A2A_RUNNER_H

#include "configs.h"
#include "db.h"

/* Runs configuration c on comm (size c->P; every rank of comm calls this):
 *  1. builds the workload (block sizes and payloads from the seed, never the clock);
 *  2. poisons the receive buffers, calls the vendor collective and the kernel once,
 *     and compares the kernel's whole receive buffer (gaps and a guard tail included)
 *     byte for byte with the vendor's, the vendor's with the expected data, and the
 *     send buffer with its pristine copy;
 *  3. if correct and iterations > 0: `warmup` calls, then `iterations` timed calls
 *     (barrier, MPI_Wtime around the call, max over ranks = one sample), then checks
 *     the result again. iterations = 0 validates only.
 *  4. if c->counters: `iterations` more calls with the events counted around each call
 *     on every rank (max, sum and rank 0's value land in out->counted).
 * Under SimGrid above the validation limit step 2 is one kernel call whose count of the
 * bytes it sent is checked; with a fixed iterations it is the first of the `warmup`
 * calls of step 3 (one exchange fewer to simulate).
 * On rank 0 of comm fills *out (status, message, summary, stats = per-rank max,
 * bytes moved) and samples[0..iterations) (the caller allocates them). */
void run_config(const config *c, MPI_Comm comm, result_record *out, double *samples);

#endif
