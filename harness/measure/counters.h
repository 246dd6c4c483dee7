/* counters.h — hardware (PAPI) and software (perf_event_open) event counters.
 *
 * A counter_set is opened from a comma-separated list of event names:
 *   - PAPI preset names   (PAPI_L1_DCM, PAPI_TOT_CYC, ...),
 *   - PAPI native names   (perf::PERF_COUNT_HW_CACHE_MISSES, amd64_fam19h_zen3::..., ...),
 *   - Linux software events, opened with perf_event_open directly:
 *       task-clock (ns), context-switches, cpu-migrations, page-faults
 *     (exactly these lowercase names; anything else is handed to PAPI).
 * Events that cannot be counted on this machine stay in the set, marked unavailable
 * with a reason, and read as 0; opening never fails because of them.
 *
 * Which thread is counted: the thread that calls counters_open (perf events are
 * opened for pid 0 = that thread; the PAPI EventSet belongs to it). Call
 * start/stop/reset from that same thread. Nothing here calls MPI, so the functions
 * may be used freely between MPI calls. A counter_set is not itself thread-safe.
 * PAPI lets one EventSet count at a time per thread: while a set with PAPI events is
 * counting, another set's PAPI events cannot start (they become unavailable). 
 * PAPI hardware events count user mode only (PAPI's default domain). Software events
 * count user and kernel mode; where perf_event_paranoid forbids kernel-mode counting
 * (unprivileged, paranoid >= 2), task-clock and page-faults fall back to user mode
 * (counters_note says so; page-faults then misses faults taken inside system calls),
 * while context-switches and cpu-migrations, which occur only in kernel mode and
 * would always read 0, are unavailable. */
#ifndef A2A_COUNTERS_H
#define A2A_COUNTERS_H

#include <stddef.h>
#include <stdio.h>

/* The default hardware event list (PAPI presets). */
#define COUNTERS_DEFAULT "PAPI_L1_DCM,PAPI_L2_DCM,PAPI_L3_TCM,PAPI_MEM_WCY,PAPI_STL_ICY,PAPI_TOT_CYC,PAPI_TOT_INS"
/* Every software event counted through perf_event_open. */
#define COUNTERS_SOFTWARE "task-clock,context-switches,cpu-migrations,page-faults"

typedef struct counter_set counter_set;

/* Parses `list` (comma-separated names; blanks around a name are ignored; NULL means
 * COUNTERS_DEFAULT), initialises the PAPI library once per process if a PAPI name is
 * present, builds one PAPI EventSet for the PAPI names and one perf_event fd per
 * software name. Each event that cannot be counted here is dropped individually and
 * keeps a reason (PAPI's error name, code and string, or strerror of perf_event_open).
 * Returns NULL, with a message in err (if err and errlen > 0), only when the list is
 * malformed: empty, an empty element ("a,,b", trailing comma), a name longer than
 * 255 characters, or a name given twice; or when out of memory. Counting is stopped
 * and every value is 0 on return. */
counter_set *counters_open(const char *list, char *err, size_t errlen);

/* Number of requested events, available or not, in list order. */
int counters_count(const counter_set *s);

/* Name of event i as given in the list (blanks trimmed); NULL if i is out of range. */
const char *counters_name(const counter_set *s, int i);

/* 1 if event i is being counted, 0 if it was dropped (or i is out of range). */
int counters_available(const counter_set *s, int i);

/* Why event i is unavailable (never empty for an unavailable event); "" if it is
 * available; "" if i is out of range. */
const char *counters_reason(const counter_set *s, int i);

/* A caveat about an available event, "" if none: e.g. a software event that could
 * only be opened for user mode because of perf_event_paranoid. */
const char *counters_note(const counter_set *s, int i);

/* Starts counting every available event. Values accumulate over all start/stop
 * intervals until counters_reset. Calling start while counting does nothing. */
void counters_start(counter_set *s);

/* Stops counting and adds the counts of the interval just ended to the accumulated
 * values. Calling stop while not counting does nothing. */
void counters_stop(counter_set *s);

/* Sets every accumulated value to 0 (and, if counting, restarts the current interval
 * from 0). */
void counters_reset(counter_set *s);

/* The value of event i accumulated over completed start/stop intervals (an interval
 * still running is not included); 0 if the event is unavailable or i is out of range. */
long long counters_value(const counter_set *s, int i);

/* Stops counting if needed, releases the EventSet and the perf fds, frees s.
 * NULL is allowed. */
void counters_close(counter_set *s);

/* Prints what `a2atune counters` shows: PAPI version, components and number of
 * hardware counters, perf_event_paranoid, then each default event and each software
 * event as available or unavailable with the reason. Built without PAPI, one line says
 * so in place of PAPI's, and only the software events follow. Returns 0. */
int counters_describe(FILE *out);

#endif
