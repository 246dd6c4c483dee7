/* nt_memcpy.h — copies with non-temporal stores, and the hybrid copy of HINT (Algorithm 4).
 *
 * a2a_nt_memcpy writes the destination with streaming (non-temporal) stores that bypass
 * the caches and need no read-for-ownership of the destination lines; loads are
 * prefetched ahead. The instruction set is chosen once, at run time, from the CPU:
 * AVX-512F (64-byte stores), AVX2 (32), SSE2 (16), or a portable fallback (plain memcpy,
 * on CPUs without x86 SIMD). The environment variable A2A_NT_ISA (portable | sse2 | avx2 |
 * avx512) forces a lower level than the best one the CPU has (for experiments and tests).
 *
 * Alignment: any source and destination alignment. The unaligned head of the destination
 * (up to the vector width) and the tail that does not fill a vector are copied with
 * regular stores; copies shorter than four vectors use memcpy. Every call ends with a
 * store fence, so the data are visible to other cores once it returns (as after memcpy).
 *
 * a2a_hybrid_memcpy(dst, src, n, T): below T bytes a regular memcpy; from T on, the first T
 * bytes temporal (they stay in the cache) and the other n - T non-temporal. T = 0 makes the
 * whole copy non-temporal; T = SIZE_MAX the whole copy temporal.
 */
#ifndef A2A_NT_MEMCPY_H
#define A2A_NT_MEMCPY_H

#include <stddef.h>

typedef enum a2a_nt_isa {
    A2A_NT_PORTABLE, /* memcpy: no streaming stores */
    A2A_NT_SSE2,     /* 16-byte _mm_stream_si128 */
    A2A_NT_AVX2,     /* 32-byte _mm256_stream_si256 */
    A2A_NT_AVX512,   /* 64-byte _mm512_stream_si512 */
    A2A_NT_ISA_COUNT
} a2a_nt_isa;

/* Name of an instruction-set level ("portable", "sse2", "avx2", "avx512"). */
const char *a2a_nt_isa_name(a2a_nt_isa isa);

/* 1 if this CPU (and this build) can run level isa. */
int a2a_nt_isa_supported(a2a_nt_isa isa);

/* The level a2a_nt_memcpy uses: the best supported one, or A2A_NT_ISA when that names a
 * supported level. Chosen once per process. */
a2a_nt_isa a2a_nt_isa_selected(void);

/* Copies n bytes from src to dst (not overlapping) with level isa (which must be
 * supported); non-temporal stores for the aligned body. */
void a2a_nt_memcpy_isa(a2a_nt_isa isa, void *dst, const void *src, size_t n);

/* a2a_nt_memcpy_isa with the selected level. */
void a2a_nt_memcpy(void *dst, const void *src, size_t n);

/* Algorithm 4 of the HINT paper (see above). */
void a2a_hybrid_memcpy(void *dst, const void *src, size_t n, size_t threshold);

/* Bytes of the first L2 cache hwloc finds (per core), else sysconf's, else 1 MiB. */
size_t a2a_l2_cache_bytes(void);

#endif
