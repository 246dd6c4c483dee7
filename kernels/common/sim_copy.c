/* sim_copy.c — the copy-cost model of the SimGrid build (see sim_copy.h). Empty in the
 * other builds. */
#ifdef A2A_SIMGRID
#define A2A_SIM_COPY_IMPLEMENTATION
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include "sim_copy.h"
/* the header was force-included before A2A_SIM_COPY_IMPLEMENTATION: the real copies here */
#undef memcpy
#undef memmove

enum { MAX_POINTS = 32 };

/* The model, read once (all simulated ranks share this process and its environment). */
static struct {
    int loaded, points;
    double bytes[MAX_POINTS], bytes_per_s[MAX_POINTS];
    size_t skip;
} model;

/* Guarantees: model holds A2A_SIM_COPY_MODEL's points in increasing size (a malformed
 * item ends the list) and A2A_SIM_COPY_SKIP (0: never skip). */
static void load(void)
{
    const char *text = getenv("A2A_SIM_COPY_MODEL");
    while (text && *text && model.points < MAX_POINTS) {
        char *end;
        double size = strtod(text, &end);
        if (*end != ':')
            break;
        double gbps = strtod(end + 1, &end);
        if (size <= 0 || gbps <= 0 ||
            (model.points > 0 && size <= model.bytes[model.points - 1]))
            break;
        model.bytes[model.points] = size;
        model.bytes_per_s[model.points++] = gbps * 1e9;
        text = *end == ',' ? end + 1 : end;
    }
    const char *skip = getenv("A2A_SIM_COPY_SKIP");
    model.skip = skip ? (size_t)strtoull(skip, NULL, 10) : 0;
    model.loaded = 1;
}

/* Guarantees: see sim_copy.h (0 when there is no model or n is 0). */
double a2a_sim_copy_seconds(size_t n)
{
    if (!model.loaded)
        load();
    if (n == 0 || model.points == 0)
        return 0;
    double x = (double)n, bw = model.bytes_per_s[model.points - 1];
    if (x <= model.bytes[0]) {
        bw = model.bytes_per_s[0];
    } else {
        for (int i = 1; i < model.points; i++)
            if (x <= model.bytes[i]) {
                double t = log(x / model.bytes[i - 1]) / log(model.bytes[i] / model.bytes[i - 1]);
                bw = model.bytes_per_s[i - 1] + t * (model.bytes_per_s[i] - model.bytes_per_s[i - 1]);
                break;
            }
    }
    return x / bw;
}

/* Guarantees: the simulated rank is charged the model's time for a copy of n bytes;
 * returns whether the bytes are to be copied (no skip size, or n below it). */
static int charge_copy(size_t n)
{
    double seconds = a2a_sim_copy_seconds(n);
    if (seconds > 0)
        smpi_execute(seconds);
    return model.skip == 0 || n < model.skip;
}

/* Guarantees: the simulated rank is charged the model's time; the bytes are copied unless
 * n reaches the skip size. */
void *a2a_sim_memcpy(void *dst, const void *src, size_t n)
{
    if (charge_copy(n))
        memcpy(dst, src, n);
    return dst;
}

/* Guarantees: as a2a_sim_memcpy, for overlapping buffers. */
void *a2a_sim_memmove(void *dst, const void *src, size_t n)
{
    if (charge_copy(n))
        memmove(dst, src, n);
    return dst;
}
#else
typedef int a2a_sim_copy_unused; /* other builds: copies are plain memcpy */
#endif
