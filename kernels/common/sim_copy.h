/* sim_copy.h — the copy-cost model of the SimGrid build (internal).
 *
 * `make MPI=simgrid` force-includes this header into every kernel: their memcpy and
 * memmove then go through a2a_sim_memcpy / a2a_sim_memmove, which charge the simulated
 * rank the time the copy takes on the machine the model was calibrated on (smpi_execute:
 * the simulation runs with smpi/simulate-computation off, so nothing else a kernel computes
 * costs simulated time, and timings are deterministic). The model comes from the
 * environment, set by `scripts/a2a simulate` from `a2atune copybench` figures:
 *   A2A_SIM_COPY_MODEL  "BYTES:GBPS,BYTES:GBPS,..." memcpy bandwidth at a few sizes (one
 *                       core); a copy of n bytes costs n / bandwidth(n), the bandwidth
 *                       interpolated in log(size) and held constant beyond the ends.
 *                       Unset or empty: copies are free (SimGrid's default).
 *   A2A_SIM_COPY_SKIP   copies of at least this many bytes are charged but not made:
 *                       set above the validation limit, where every buffer that large is
 *                       SMPI shared memory whose contents mean nothing.
 * Other builds do not include this header: memcpy is memcpy. */
#ifndef A2A_SIM_COPY_H
#define A2A_SIM_COPY_H

#include <stddef.h>
#include <string.h>

void *a2a_sim_memcpy(void *dst, const void *src, size_t n);
void *a2a_sim_memmove(void *dst, const void *src, size_t n);
/* the simulated seconds a copy of n bytes costs under the current model */
double a2a_sim_copy_seconds(size_t n);

#ifndef A2A_SIM_COPY_IMPLEMENTATION
#define memcpy(d, s, n) a2a_sim_memcpy((d), (s), (n))
#define memmove(d, s, n) a2a_sim_memmove((d), (s), (n))
#endif

#endif
