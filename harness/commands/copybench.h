/* copybench.h — `a2atune copybench`: the copy bandwidth of this machine (STREAM-style).
 *
 * For every size (default 4 KiB .. 256 MiB, x4) and three copies — temporal (memcpy),
 * non-temporal (a2a_nt_memcpy) and hybrid (a2a_hybrid_memcpy with the threshold at the L2
 * size of a core) — on one core and on all cores at once (one thread per core, each with
 * its own source and destination, first touched by that thread): a warm-up copy, then the
 * repetitions grown until a sample lasts at least --min-time, then --samples samples, each
 * the slowest thread's time per copy. Stored in the database as family `copy` (kernel =
 * memcpy | nt | hybrid, P = Q = threads, S = bytes per copy, samples = seconds per copy)
 * with the metrics GB/s (bytes copied by all threads per second at the median sample),
 * best_GB/s (at the fastest sample) and stream_GB/s (twice GB/s: STREAM's Copy counts the
 * bytes read and written), under a run with the usual provenance. */
#ifndef A2A_COPYBENCH_H
#define A2A_COPYBENCH_H

/* `a2atune copybench [options]` (argv as main's). Initialises and finalises MPI itself (one
 * process: started without mpirun or with -n 1). Returns an exit code of cli.h. */
int command_copybench(int argc, char **argv);

#endif
