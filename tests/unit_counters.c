/* unit_counters.c — tests of harness/measure/counters.c (no MPI needed).
 * Prints one line per failed check and "unit_counters: N passed, M failed";
 * exits 0 only if every check passed. With -v also prints counters_describe. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "counters.h"
#include "unit_check.h"

static int passed, failed;

#define TOUCH_BYTES ((size_t)64 << 20)

/* Writes every byte of a freshly mapped 64 MiB region: page faults and CPU time. */
static void touch_fresh_memory(void)
{
    char *p = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    memset(p, 0x5a, TOUCH_BYTES);
    __asm__ volatile("" : : "r"(p) : "memory");
    munmap(p, TOUCH_BYTES);
}

static void *touch_thread(void *unused)
{
    (void)unused;
    touch_fresh_memory();
    return NULL;
}

static int find(const counter_set *s, const char *name)
{
    for (int i = 0; i < counters_count(s); i++)
        if (strcmp(counters_name(s, i), name) == 0)
            return i;
    return -1;
}

/* Independent oracle: can this process open a software perf event at all? */
static int raw_perf_possible(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        printf("note: perf_event_open refused here (%s): software checks skipped\n",
               strerror(errno));
        return 0;
    }
    close(fd);
    return 1;
}

static void test_default_list(void)
{
    const char *expect[] = { "PAPI_L1_DCM", "PAPI_L2_DCM", "PAPI_L3_TCM", "PAPI_MEM_WCY",
                             "PAPI_STL_ICY", "PAPI_TOT_CYC", "PAPI_TOT_INS" };
    for (int pass = 0; pass < 2; pass++) {
        char err[256] = "x";
        counter_set *s = counters_open(pass ? COUNTERS_DEFAULT : NULL, err, sizeof err);
        CHECK(s != NULL, "default list did not open: %s", err);
        if (!s)
            continue;
        CHECK(err[0] == '\0', "err not cleared on success: \"%s\"", err);
        CHECK(counters_count(s) == 7, "default list has %d events, want 7", counters_count(s));
        for (int i = 0; i < counters_count(s) && i < 7; i++) {
            CHECK(strcmp(counters_name(s, i), expect[i]) == 0, "event %d is %s, want %s", i,
                  counters_name(s, i), expect[i]);
            if (counters_available(s, i))
                CHECK(counters_reason(s, i)[0] == '\0', "%s available but reason \"%s\"",
                      counters_name(s, i), counters_reason(s, i));
            else
                CHECK(strlen(counters_reason(s, i)) > 10 &&
                      strncmp(counters_reason(s, i), "unavailable (no reason", 22) != 0,
                      "%s unavailable without a real reason: \"%s\"", counters_name(s, i),
                      counters_reason(s, i));
        }
        counters_start(s);
        touch_fresh_memory();
        counters_stop(s);
        for (int i = 0; i < counters_count(s); i++)
            if (!counters_available(s, i))
                CHECK(counters_value(s, i) == 0, "unavailable %s reads %lld",
                      counters_name(s, i), counters_value(s, i));
        counters_close(s);
    }
}

static void test_software(void)
{
    char err[256];
    counter_set *s = counters_open(COUNTERS_SOFTWARE, err, sizeof err);
    CHECK(s != NULL, "software list did not open: %s", err);
    if (!s)
        return;
    CHECK(counters_count(s) == 4, "software list has %d events", counters_count(s));
    int tc = find(s, "task-clock"), pf = find(s, "page-faults");
    int cs = find(s, "context-switches"), cm = find(s, "cpu-migrations");
    CHECK(tc >= 0 && pf >= 0 && cs >= 0 && cm >= 0, "software names missing");
    if (tc < 0 || pf < 0 || cs < 0 || cm < 0) {
        counters_close(s);
        return;
    }
    for (int i = 0; i < 4; i++) {
        /* Without permission for kernel-mode counting (perf_event_paranoid >= 2 and
         * unprivileged), context-switches and cpu-migrations are dropped on purpose. */
        if (i == cs || i == cm)
            CHECK(counters_available(s, i) || strstr(counters_reason(s, i), "paranoid"),
                  "%s unavailable: %s", counters_name(s, i), counters_reason(s, i));
        else
            CHECK(counters_available(s, i), "%s unavailable: %s", counters_name(s, i),
                  counters_reason(s, i));
        CHECK(counters_value(s, i) == 0, "%s is %lld before any start", counters_name(s, i),
              counters_value(s, i));
    }

    /* Interval 1. */
    counters_start(s);
    touch_fresh_memory();
    counters_stop(s);
    long long tc1 = counters_value(s, tc), pf1 = counters_value(s, pf);
    CHECK(tc1 > 1000, "task-clock after 64 MiB of writes is %lld ns", tc1);
    CHECK(pf1 >= 16, "page-faults after touching 64 MiB is %lld", pf1);
    CHECK(counters_value(s, cs) >= 0 && counters_value(s, cm) >= 0, "negative counts");

    /* Work outside any interval is not counted. */
    touch_fresh_memory();
    touch_fresh_memory();
    CHECK(counters_value(s, pf) == pf1 && counters_value(s, tc) == tc1,
          "values changed while stopped");

    /* Interval 2 accumulates onto interval 1; the work done while stopped is not in it. */
    counters_start(s);
    touch_fresh_memory();
    counters_stop(s);
    long long tc2 = counters_value(s, tc), pf2 = counters_value(s, pf);
    CHECK(tc2 > tc1, "task-clock did not accumulate: %lld then %lld", tc1, tc2);
    CHECK(pf2 >= pf1 + 16, "page-faults did not accumulate: %lld then %lld", pf1, pf2);
    CHECK(pf2 < 3 * pf1 + 64, "page-faults %lld after two intervals (first %lld): "
          "work done while stopped seems counted", pf2, pf1);

    /* Redundant start/stop calls are harmless. */
    counters_stop(s);
    CHECK(counters_value(s, pf) == pf2, "stop while stopped changed a value");

    /* Reset. */
    counters_reset(s);
    for (int i = 0; i < 4; i++)
        CHECK(counters_value(s, i) == 0, "%s is %lld after reset", counters_name(s, i),
              counters_value(s, i));

    /* After reset, a fresh interval starts from zero. */
    counters_start(s);
    counters_start(s);
    long long running_value = counters_value(s, pf);
    touch_fresh_memory();
    counters_stop(s);
    CHECK(running_value == 0, "value while running after reset is %lld", running_value);
    long long pf3 = counters_value(s, pf);
    CHECK(pf3 >= 16 && pf3 < 2 * pf1 + 64, "page-faults after reset + one interval is %lld "
          "(first interval %lld)", pf3, pf1);

    /* Reset while running discards what was counted so far in the interval. */
    counters_reset(s);
    counters_start(s);
    touch_fresh_memory();
    counters_reset(s);
    counters_stop(s);
    CHECK(counters_value(s, pf) < pf1 / 2 + 16, "reset while running kept %lld page faults",
          counters_value(s, pf));

    /* Only the calling thread is counted. */
    counters_reset(s);
    pthread_t t;
    counters_start(s);
    if (pthread_create(&t, NULL, touch_thread, NULL) == 0)
        pthread_join(t, NULL);
    counters_stop(s);
    CHECK(counters_value(s, pf) < pf1 / 2 + 16, "another thread's %lld page faults counted",
          counters_value(s, pf));

    for (int i = 0; i < 4; i++) {
        if (counters_note(s, i)[0])
            printf("note: %s: %s\n", counters_name(s, i), counters_note(s, i));
        if (!counters_available(s, i))
            printf("note: %s unavailable: %s\n", counters_name(s, i), counters_reason(s, i));
    }
    counters_close(s);
}

static void test_malformed(void)
{
    const char *bad[] = { "PAPI_L1_DCM,,", "", "  ", ",task-clock", "task-clock,",
                          "task-clock,,page-faults", "task-clock,task-clock",
                          "task-clock page-faults", NULL };
    for (int k = 0; bad[k]; k++) {
        char err[256] = "";
        counter_set *s = counters_open(bad[k], err, sizeof err);
        CHECK(s == NULL, "malformed list \"%s\" was accepted", bad[k]);
        CHECK(strlen(err) > 5, "malformed list \"%s\": no message", bad[k]);
        counters_close(s);
    }
    char longname[400];
    memset(longname, 'A', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    char err[64];
    counter_set *s = counters_open(longname, err, sizeof err);
    CHECK(s == NULL && err[0], "over-long name accepted");
    counters_close(s);
    /* A tiny or absent message buffer is fine. */
    s = counters_open("PAPI_L1_DCM,,", err, 4);
    CHECK(s == NULL && strlen(err) == 3, "errlen 4: \"%s\"", err);
    s = counters_open("PAPI_L1_DCM,,", NULL, 0);
    CHECK(s == NULL, "NULL err buffer");
}

static void test_unknown_and_mixed(void)
{
    char err[256];
    counter_set *s = counters_open(" NO_SUCH_EVENT_XYZ , task-clock,\tPAPI_TOT_INS ", err,
                                   sizeof err);
    CHECK(s != NULL, "list with an unknown name did not open: %s", err);
    if (!s)
        return;
    CHECK(counters_count(s) == 3, "count %d, want 3", counters_count(s));
    CHECK(strcmp(counters_name(s, 0), "NO_SUCH_EVENT_XYZ") == 0, "name not trimmed: \"%s\"",
          counters_name(s, 0));
    CHECK(strcmp(counters_name(s, 2), "PAPI_TOT_INS") == 0, "name not trimmed: \"%s\"",
          counters_name(s, 2));
    CHECK(!counters_available(s, 0), "unknown event reported available");
    CHECK(strstr(counters_reason(s, 0), "unknown") != NULL,
          "unknown event reason: \"%s\"", counters_reason(s, 0));
    CHECK(counters_available(s, 1), "task-clock unavailable next to an unknown event: %s",
          counters_reason(s, 1));
    if (!counters_available(s, 2))
        CHECK(strstr(counters_reason(s, 2), "PAPI_") != NULL &&
              strstr(counters_reason(s, 2), "(-") != NULL,
              "PAPI reason lacks error name and code: \"%s\"", counters_reason(s, 2));
    counters_start(s);
    touch_fresh_memory();
    counters_stop(s);
    CHECK(counters_value(s, 0) == 0, "unknown event reads %lld", counters_value(s, 0));
    CHECK(counters_value(s, 1) > 0, "task-clock reads %lld", counters_value(s, 1));
    /* Out of range. */
    CHECK(counters_name(s, 3) == NULL && counters_name(s, -1) == NULL, "name out of range");
    CHECK(counters_available(s, 3) == 0 && counters_value(s, -1) == 0 &&
          counters_reason(s, 7)[0] == '\0' && counters_note(s, 7)[0] == '\0',
          "out-of-range accessors");
    counters_close(s);
    counters_close(NULL);
    CHECK(counters_count(NULL) == 0, "count of NULL");
}

/* PAPI native events (perf::...) exercise the PAPI available path where the PMU is
 * missing but PAPI's perf_event component works; elsewhere they may be unavailable. */
static void test_papi_native(void)
{
    char err[256];
    counter_set *s = counters_open("PAPI_TOT_CYC,perf::TASK-CLOCK,perf::PAGE-FAULTS,page-faults",
                                   err, sizeof err);
    CHECK(s != NULL, "PAPI native list did not open: %s", err);
    if (!s)
        return;
    for (int i = 0; i < 3; i++)
        if (!counters_available(s, i)) {
            CHECK(counters_reason(s, i)[0] != '\0', "%s unavailable, no reason",
                  counters_name(s, i));
            printf("note: %s unavailable: %s\n", counters_name(s, i), counters_reason(s, i));
        }
    counters_start(s);
    touch_fresh_memory();
    counters_stop(s);
    long long a1 = counters_value(s, 1), b1 = counters_value(s, 2);
    counters_start(s);
    touch_fresh_memory();
    counters_stop(s);
    if (counters_available(s, 1)) {
        CHECK(a1 > 1000, "perf::TASK-CLOCK via PAPI reads %lld", a1);
        CHECK(counters_value(s, 1) > a1, "perf::TASK-CLOCK did not accumulate");
    }
    if (counters_available(s, 2)) {
        long long direct = counters_value(s, 3);
        CHECK(b1 >= 16 && counters_value(s, 2) >= b1 + 16,
              "perf::PAGE-FAULTS via PAPI: %lld then %lld", b1, counters_value(s, 2));
        CHECK(counters_value(s, 2) > direct / 2 && counters_value(s, 2) < direct * 2 + 64,
              "PAPI page faults %lld vs perf_event_open %lld", counters_value(s, 2), direct);
    }
    counters_reset(s);
    for (int i = 0; i < 4; i++)
        CHECK(counters_value(s, i) == 0, "%s is %lld after reset", counters_name(s, i),
              counters_value(s, i));
    counters_close(s);
}

static void test_describe(int verbose)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        CHECK(0, "open_memstream failed");
        return;
    }
    int rc = counters_describe(f);
    fclose(f);
    CHECK(rc == 0, "counters_describe returned %d", rc);
    const char *want[] = { "PAPI", "hardware counters", "perf_event_paranoid", "PAPI_L1_DCM",
                           "PAPI_TOT_INS", "task-clock", "context-switches", "cpu-migrations",
                           "page-faults", NULL };
    for (int k = 0; want[k]; k++)
        CHECK(text && strstr(text, want[k]), "counters_describe does not mention %s", want[k]);
    CHECK(text && !strstr(text, "(no reason"), "counters_describe shows an event without reason");
    if (verbose && text)
        fputs(text, stdout);
    free(text);
}

int main(int argc, char **argv)
{
    int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    test_default_list();
    test_malformed();
    if (raw_perf_possible()) {
        test_software();
        test_unknown_and_mixed();
    }
    test_papi_native();
    test_describe(verbose);
    printf("unit_counters: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
