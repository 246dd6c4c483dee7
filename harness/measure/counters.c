/* counters.c — PAPI and perf_event_open event counters (see counters.h). Built without
 * PAPI (A2A_HAVE_PAPI 0: PAPI=no, or no papi for pkg-config), every PAPI event is
 * unavailable with the reason that PAPI is not built in; software events still count. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#if A2A_HAVE_PAPI
#include <papi.h>
#endif
#include "counters.h"

#define NAME_MAX_LEN 255

enum { EV_PAPI, EV_PERF };

typedef struct counter_event {
    char name[NAME_MAX_LEN + 1];
    int kind;             /* EV_PAPI or EV_PERF */
    int available;
    char reason[512];     /* why unavailable; "" if available */
    char note[256];       /* caveat when available; "" if none */
    long long value;      /* accumulated over completed intervals */
    int slot;             /* EV_PAPI: position in the EventSet's value array */
    int fd;               /* EV_PERF: perf_event fd, -1 if none */
} counter_event;

struct counter_set {
    int n;
    counter_event *ev;
    int es;               /* PAPI EventSet, PAPI_NULL if none was created */
    int npapi;            /* events in the EventSet */
    long long *buf;       /* npapi values for PAPI_stop */
    int running;          /* between counters_start and counters_stop */
    int papi_running;     /* PAPI_start succeeded for the current interval */
};

static const struct { const char *name; uint64_t config; } software[] = {
    { "task-clock",       PERF_COUNT_SW_TASK_CLOCK },
    { "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
    { "cpu-migrations",   PERF_COUNT_SW_CPU_MIGRATIONS },
    { "page-faults",      PERF_COUNT_SW_PAGE_FAULTS },
};
#define NSOFTWARE ((int)(sizeof software / sizeof software[0]))

static void set_msg(char *dst, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_msg(char *dst, size_t len, const char *fmt, ...)
{
    if (!dst || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, len, fmt, ap);
    va_end(ap);
}

/* ---- PAPI ------------------------------------------------------------------ */
#if A2A_HAVE_PAPI

static const char *papi_code_name(int rc)
{
    static const char *const names[] = {
        "PAPI_OK", "PAPI_EINVAL", "PAPI_ENOMEM", "PAPI_ESYS", "PAPI_ECMP", "PAPI_ECLOST",
        "PAPI_EBUG", "PAPI_ENOEVNT", "PAPI_ECNFLCT", "PAPI_ENOTRUN", "PAPI_EISRUN",
        "PAPI_ENOEVST", "PAPI_ENOTPRESET", "PAPI_ENOCNTR", "PAPI_EMISC", "PAPI_EPERM",
        "PAPI_ENOINIT", "PAPI_ENOCMP", "PAPI_ENOSUPP", "PAPI_ENOIMPL", "PAPI_EBUF",
        "PAPI_EINVAL_DOM", "PAPI_EATTR", "PAPI_ECOUNT", "PAPI_ECOMBO", "PAPI_ECMP_DISABLED",
        "PAPI_EDELAY_INIT", "PAPI_EMULPASS",
    };
    if (rc <= 0 && -rc < (int)(sizeof names / sizeof names[0]))
        return names[-rc];
    return "PAPI error";
}

/* "what: PAPI_ENOEVNT (-7): Event does not exist" */
static void papi_reason(char *dst, size_t len, const char *what, int rc)
{
    const char *s = PAPI_strerror(rc);
    set_msg(dst, len, "%s: %s (%d): %s", what, papi_code_name(rc), rc,
            s && *s ? s : "no message");
}

static pthread_once_t papi_once = PTHREAD_ONCE_INIT;
static int papi_init_rc;             /* PAPI_VER_CURRENT on success */

static void papi_init_once(void)
{
    if (PAPI_is_initialized() != PAPI_NOT_INITED) {
        papi_init_rc = PAPI_VER_CURRENT;   /* someone else in the process did it */
        return;
    }
    papi_init_rc = PAPI_library_init(PAPI_VER_CURRENT);
}

/* 1 if the PAPI library is usable; else 0 with the reason in why. */
static int papi_ready(char *why, size_t len)
{
    pthread_once(&papi_once, papi_init_once);
    if (papi_init_rc == PAPI_VER_CURRENT)
        return 1;
    if (papi_init_rc > 0)
        set_msg(why, len, "PAPI_library_init: library version %d.%d does not match header %d.%d",
                PAPI_VERSION_MAJOR(papi_init_rc), PAPI_VERSION_MINOR(papi_init_rc),
                PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
    else
        papi_reason(why, len, "PAPI_library_init", papi_init_rc);
    return 0;
}

/* Empties the EventSet and adds again the PAPI events of s already accepted. Returns
 * PAPI_OK, or the first error (then every PAPI event is left unavailable). */
static int papi_rebuild(counter_set *s)
{
    int rc = PAPI_cleanup_eventset(s->es);
    for (int i = 0; rc == PAPI_OK && i < s->n; i++)
        if (s->ev[i].kind == EV_PAPI && s->ev[i].available)
            rc = PAPI_add_named_event(s->es, s->ev[i].name);
    return rc;
}

/* After a PAPI failure that leaves the EventSet in an unknown state: every PAPI event
 * accepted so far becomes unavailable with `reason`, and the EventSet is released (or
 * abandoned, if PAPI refuses), so a later event starts from a fresh one. */
static void papi_mark_all_unavailable(counter_set *s, const char *reason)
{
    for (int i = 0; i < s->n; i++)
        if (s->ev[i].kind == EV_PAPI && s->ev[i].available) {
            s->ev[i].available = 0;
            s->ev[i].value = 0;
            set_msg(s->ev[i].reason, sizeof s->ev[i].reason, "%s", reason);
        }
    s->npapi = 0;
    s->papi_running = 0;
    if (s->es != PAPI_NULL) {
        PAPI_cleanup_eventset(s->es);
        PAPI_destroy_eventset(&s->es);
        s->es = PAPI_NULL;
    }
}

/* Tries to add event e to the EventSet: it must be known, be accepted by
 * PAPI_add_named_event, and let the whole set start and stop. On failure the
 * EventSet is as it was and e->reason says why. */
static void papi_try_add(counter_set *s, counter_event *e)
{
    char why[sizeof e->reason];
    int code, rc;

    if (!papi_ready(why, sizeof why)) {
        set_msg(e->reason, sizeof e->reason, "%s", why);
        return;
    }
    if (s->es == PAPI_NULL) {
        rc = PAPI_create_eventset(&s->es);
        if (rc != PAPI_OK) {
            s->es = PAPI_NULL;
            papi_reason(e->reason, sizeof e->reason, "PAPI_create_eventset", rc);
            return;
        }
    }
    rc = PAPI_event_name_to_code(e->name, &code);
    if (rc != PAPI_OK) {
        papi_reason(why, sizeof why, "PAPI_event_name_to_code", rc);
        set_msg(e->reason, sizeof e->reason, "event name unknown to PAPI on this machine (%s)",
                why);
        return;
    }
    rc = PAPI_add_named_event(s->es, e->name);
    if (rc != PAPI_OK) {
        papi_reason(e->reason, sizeof e->reason, "PAPI_add_named_event", rc);
        return;
    }
    /* Accepted on its own; check that the set with it can actually count. */
    long long *buf = realloc(s->buf, (size_t)(s->npapi + 1) * sizeof *buf);
    if (!buf) {
        set_msg(e->reason, sizeof e->reason, "out of memory");
    } else {
        s->buf = buf;
        rc = PAPI_start(s->es);
        if (rc == PAPI_OK) {
            int rc2 = PAPI_stop(s->es, s->buf);
            if (rc2 == PAPI_OK) {
                e->available = 1;
                e->slot = s->npapi++;
                return;
            }
            papi_reason(e->reason, sizeof e->reason, "PAPI_stop", rc2);
        } else {
            papi_reason(e->reason, sizeof e->reason, "PAPI_start", rc);
        }
    }
    /* Drop e again: rebuild the set from the events accepted before it. */
    rc = papi_rebuild(s);
    if (rc != PAPI_OK) {
        papi_reason(why, sizeof why, "PAPI EventSet rebuild failed", rc);
        papi_mark_all_unavailable(s, why);
    }
}

/* Guarantees: s has no EventSet yet. */
static void papi_set_init(counter_set *s)
{
    s->es = PAPI_NULL;
}

/* Starts the PAPI events of s for one interval (PAPI_start zeroes them); if PAPI refuses,
 * they become unavailable with its reason. */
static void papi_set_start(counter_set *s)
{
    s->papi_running = 0;
    if (s->npapi > 0) {
        int rc = PAPI_start(s->es);   /* PAPI_start zeroes the counters */
        if (rc == PAPI_OK) {
            s->papi_running = 1;
        } else {
            char why[512];
            papi_reason(why, sizeof why, "PAPI_start failed during measurement", rc);
            papi_mark_all_unavailable(s, why);
        }
    }
}

/* Stops the PAPI events of s and adds the interval's counts to their values; if PAPI
 * refuses, they become unavailable with its reason. */
static void papi_set_stop(counter_set *s)
{
    if (s->papi_running) {
        int rc = PAPI_stop(s->es, s->buf);
        s->papi_running = 0;
        if (rc == PAPI_OK) {
            for (int i = 0; i < s->n; i++)
                if (s->ev[i].kind == EV_PAPI && s->ev[i].available)
                    s->ev[i].value += s->buf[s->ev[i].slot];
        } else {
            char why[512];
            papi_reason(why, sizeof why, "PAPI_stop failed during measurement", rc);
            papi_mark_all_unavailable(s, why);
        }
    }
}

/* Guarantees: the counting PAPI events of s restart from 0. */
static void papi_set_reset(counter_set *s)
{
    if (s->papi_running)
        PAPI_reset(s->es);
}

/* Guarantees: the EventSet of s, if any, is released. */
static void papi_set_release(counter_set *s)
{
    if (s->es != PAPI_NULL) {
        PAPI_cleanup_eventset(s->es);
        PAPI_destroy_eventset(&s->es);
    }
}

/* Writes what PAPI says about this machine (versions, CPU, components); returns 1. */
static int papi_describe(FILE *out)
{
    char why[512];
    fprintf(out, "PAPI header version: %d.%d.%d.%d\n",
            PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION),
            PAPI_VERSION_REVISION(PAPI_VERSION), PAPI_VERSION_INCREMENT(PAPI_VERSION));
    if (papi_ready(why, sizeof why)) {
        int v = PAPI_get_opt(PAPI_LIB_VERSION, NULL);
        fprintf(out, "PAPI library version: %d.%d.%d.%d\n", PAPI_VERSION_MAJOR(v),
                PAPI_VERSION_MINOR(v), PAPI_VERSION_REVISION(v), PAPI_VERSION_INCREMENT(v));
        const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
        if (hw)
            fprintf(out, "CPU: %s %s, %d cores%s%s\n", hw->vendor_string, hw->model_string,
                    hw->totalcpus, hw->virtualized ? ", virtual machine " : "",
                    hw->virtualized ? hw->virtual_vendor_string : "");
        fprintf(out, "hardware counters: %d (PAPI_num_cmp_hwctrs of the CPU component)\n",
                PAPI_num_cmp_hwctrs(0));
        fprintf(out, "PAPI components:\n");
        int nc = PAPI_num_components();
        for (int c = 0; c < nc; c++) {
            const PAPI_component_info_t *ci = PAPI_get_component_info(c);
            if (!ci)
                continue;
            if (ci->disabled)
                fprintf(out, "  %-18s disabled: %s\n", ci->name, ci->disabled_reason);
            else
                fprintf(out, "  %-18s active, %d counters\n", ci->name, ci->num_cntrs);
        }
    } else {
        fprintf(out, "PAPI library: unusable: %s\n", why);
    }
    return 1;
}

#else /* without PAPI: no event is ever added, so no EventSet exists */

/* Guarantees: s has no EventSet. */
static void papi_set_init(counter_set *s)
{
    s->es = -1;
}

/* Guarantees: e is unavailable, with the reason that PAPI is not built in. */
static void papi_try_add(counter_set *s, counter_event *e)
{
    (void)s;
    set_msg(e->reason, sizeof e->reason,
            "PAPI is not built in (a2atune was built with PAPI=no or without PAPI)");
}

/* Guarantees: nothing is counted, so nothing to start, stop, reset or release. */
static void papi_set_start(counter_set *s)
{
    s->papi_running = 0;
}
static void papi_set_stop(counter_set *s)
{
    (void)s;
}
static void papi_set_reset(counter_set *s)
{
    (void)s;
}
static void papi_set_release(counter_set *s)
{
    (void)s;
}

/* Writes the one line that says PAPI is not built in; returns 0. */
static int papi_describe(FILE *out)
{
    fprintf(out, "PAPI: not built in (a2atune was built with PAPI=no or without PAPI): no "
            "hardware counters, software counters only\n");
    return 0;
}
#endif /* A2A_HAVE_PAPI */

/* ---- perf_event_open --------------------------------------------------------- */

static int software_index(const char *name)
{
    for (int k = 0; k < NSOFTWARE; k++)
        if (strcmp(name, software[k].name) == 0)
            return k;
    return -1;
}

static int perf_open(uint64_t config, int exclude_kernel)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = config;
    a.disabled = 1;
    a.exclude_kernel = exclude_kernel ? 1 : 0;
    a.exclude_hv = 1;
    /* pid 0, cpu -1: the calling thread on any CPU; no group. */
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_paranoid(void)
{
    int v = -99;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = -99;
        fclose(f);
    }
    return v;
}

/* Opens e with kernel-mode counting; if perf_event_paranoid refuses that, falls back
 * to user mode only (exclude_kernel=1) where the result still means something, and
 * says so in e->note. */
static void perf_try_open(counter_event *e, uint64_t config)
{
    e->fd = perf_open(config, 0);
    if (e->fd >= 0) {
        e->available = 1;
        return;
    }
    int err = errno;
    if (err != EACCES && err != EPERM) {
        set_msg(e->reason, sizeof e->reason, "perf_event_open: %s (errno %d)", strerror(err),
                err);
        return;
    }
    if (config == PERF_COUNT_SW_CONTEXT_SWITCHES || config == PERF_COUNT_SW_CPU_MIGRATIONS) {
        /* These are raised in kernel mode only: with exclude_kernel=1 they read 0. */
        set_msg(e->reason, sizeof e->reason,
                "perf_event_open: %s (errno %d) for kernel-mode counting "
                "(perf_event_paranoid=%d); this event occurs only in kernel mode, so a "
                "user-mode-only counter would always read 0", strerror(err), err,
                read_paranoid());
        return;
    }
    e->fd = perf_open(config, 1);
    if (e->fd < 0) {
        int err2 = errno;
        set_msg(e->reason, sizeof e->reason,
                "perf_event_open: %s (errno %d); with exclude_kernel=1: %s (errno %d); "
                "perf_event_paranoid=%d", strerror(err), err, strerror(err2), err2,
                read_paranoid());
        return;
    }
    e->available = 1;
    set_msg(e->note, sizeof e->note,
            "exclude_kernel=1 (kernel mode refused: %s; perf_event_paranoid=%d): %s",
            strerror(err), read_paranoid(),
            config == PERF_COUNT_SW_TASK_CLOCK
                ? "task-clock still includes time spent in the kernel"
                : "faults taken inside system calls (e.g. read() into a fresh buffer) are "
                  "not counted");
}

/* Adds the current count of e's fd to e->value; marks e unavailable if reading fails. */
static void perf_accumulate(counter_event *e)
{
    uint64_t v = 0;
    ssize_t got = read(e->fd, &v, sizeof v);
    if (got == (ssize_t)sizeof v) {
        e->value += (long long)v;
        return;
    }
    int err = errno;
    set_msg(e->reason, sizeof e->reason, "read of perf_event fd failed: %s",
            got < 0 ? strerror(err) : "short read");
    e->available = 0;
    e->value = 0;
    close(e->fd);
    e->fd = -1;
}

/* ---- parsing ------------------------------------------------------------------- */

/* Splits list into s->ev (names only). Returns 0, or -1 with a message in err. */
static int parse_list(counter_set *s, const char *list, char *err, size_t errlen)
{
    int cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    s->ev = calloc((size_t)cap, sizeof *s->ev);
    if (!s->ev) {
        set_msg(err, errlen, "counters: out of memory");
        return -1;
    }
    const char *p = list;
    for (int k = 0; k < cap; k++) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        size_t len = (size_t)(b - a);
        if (len == 0) {
            if (cap == 1)
                set_msg(err, errlen, "counters: empty event list");
            else
                set_msg(err, errlen, "counters: event %d of %d is empty in \"%s\"",
                        k + 1, cap, list);
            return -1;
        }
        if (len > NAME_MAX_LEN) {
            set_msg(err, errlen, "counters: event %d is longer than %d characters",
                    k + 1, NAME_MAX_LEN);
            return -1;
        }
        for (const char *q = a; q < b; q++)
            if (isspace((unsigned char)*q)) {
                set_msg(err, errlen, "counters: blank inside event name \"%.*s\" "
                        "(separate events with commas)", (int)len, a);
                return -1;
            }
        counter_event *e = &s->ev[k];
        memcpy(e->name, a, len);
        e->name[len] = '\0';
        e->fd = -1;
        for (int j = 0; j < k; j++)
            if (strcmp(s->ev[j].name, e->name) == 0) {
                set_msg(err, errlen, "counters: event \"%s\" is listed twice", e->name);
                return -1;
            }
        s->n = k + 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* ---- public ------------------------------------------------------------------- */

counter_set *counters_open(const char *list, char *err, size_t errlen)
{
    set_msg(err, errlen, "%s", "");
    if (!list)
        list = COUNTERS_DEFAULT;
    counter_set *s = calloc(1, sizeof *s);
    if (!s) {
        set_msg(err, errlen, "counters: out of memory");
        return NULL;
    }
    papi_set_init(s);
    if (parse_list(s, list, err, errlen) != 0) {
        free(s->ev);
        free(s);
        return NULL;
    }
    for (int i = 0; i < s->n; i++) {
        counter_event *e = &s->ev[i];
        int k = software_index(e->name);
        if (k >= 0) {
            e->kind = EV_PERF;
            perf_try_open(e, software[k].config);
        } else {
            e->kind = EV_PAPI;
            papi_try_add(s, e);
        }
        if (!e->available && !e->reason[0])
            set_msg(e->reason, sizeof e->reason, "unavailable (no reason given)");
    }
    return s;
}

int counters_count(const counter_set *s)
{
    return s ? s->n : 0;
}

static const counter_event *event_at(const counter_set *s, int i)
{
    return s && i >= 0 && i < s->n ? &s->ev[i] : NULL;
}

const char *counters_name(const counter_set *s, int i)
{
    const counter_event *e = event_at(s, i);
    return e ? e->name : NULL;
}

int counters_available(const counter_set *s, int i)
{
    const counter_event *e = event_at(s, i);
    return e ? e->available : 0;
}

const char *counters_reason(const counter_set *s, int i)
{
    const counter_event *e = event_at(s, i);
    return e && !e->available ? e->reason : "";
}

const char *counters_note(const counter_set *s, int i)
{
    const counter_event *e = event_at(s, i);
    return e && e->available ? e->note : "";
}

void counters_start(counter_set *s)
{
    if (!s || s->running)
        return;
    s->running = 1;
    for (int i = 0; i < s->n; i++) {
        counter_event *e = &s->ev[i];
        if (e->kind == EV_PERF && e->available) {
            ioctl(e->fd, PERF_EVENT_IOC_RESET, 0);
            ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0);
        }
    }
    papi_set_start(s);
}

void counters_stop(counter_set *s)
{
    if (!s || !s->running)
        return;
    papi_set_stop(s);
    for (int i = 0; i < s->n; i++) {
        counter_event *e = &s->ev[i];
        if (e->kind == EV_PERF && e->available) {
            ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
            perf_accumulate(e);
        }
    }
    s->running = 0;
}

void counters_reset(counter_set *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        counter_event *e = &s->ev[i];
        e->value = 0;
        if (s->running && e->kind == EV_PERF && e->available)
            ioctl(e->fd, PERF_EVENT_IOC_RESET, 0);
    }
    papi_set_reset(s);
}

long long counters_value(const counter_set *s, int i)
{
    const counter_event *e = event_at(s, i);
    return e && e->available ? e->value : 0;
}

void counters_close(counter_set *s)
{
    if (!s)
        return;
    counters_stop(s);
    for (int i = 0; i < s->n; i++)
        if (s->ev[i].fd >= 0)
            close(s->ev[i].fd);
    papi_set_release(s);
    free(s->buf);
    free(s->ev);
    free(s);
}

static void describe_list(FILE *out, const char *title, const char *list)
{
    char err[256];
    fprintf(out, "%s:\n", title);
    counter_set *s = counters_open(list, err, sizeof err);
    if (!s) {
        fprintf(out, "  (cannot open: %s)\n", err);
        return;
    }
    for (int i = 0; i < counters_count(s); i++) {
        if (counters_available(s, i)) {
            const char *note = counters_note(s, i);
            fprintf(out, "  %-18s available%s%s\n", counters_name(s, i),
                    note[0] ? "  -- " : "", note);
        } else {
            fprintf(out, "  %-18s unavailable  %s\n", counters_name(s, i),
                    counters_reason(s, i));
        }
    }
    counters_close(s);
}

int counters_describe(FILE *out)
{
    int papi = papi_describe(out);
    fprintf(out, "perf_event_paranoid: %d\n", read_paranoid());
    struct dirent **pmu;
    int npmu = scandir("/sys/bus/event_source/devices", &pmu, NULL, alphasort);
    if (npmu >= 0) {
        fprintf(out, "kernel PMUs (/sys/bus/event_source/devices):");
        for (int k = 0; k < npmu; k++) {
            if (pmu[k]->d_name[0] != '.')
                fprintf(out, " %s", pmu[k]->d_name);
            free(pmu[k]);
        }
        free(pmu);
        fprintf(out, "\n");
    }
    if (papi)
        describe_list(out, "default events (PAPI presets)", COUNTERS_DEFAULT);
    describe_list(out, "software events (perf_event_open)", COUNTERS_SOFTWARE);
    return 0;
}
