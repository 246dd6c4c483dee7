/* crash_guard.c — a fatal signal charged to the configuration that ran (see crash_guard.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "crash_guard.h"

#ifdef A2A_SIMGRID
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
enum { FATAL_COUNT = sizeof fatal_signals / sizeof fatal_signals[0] };
/* room for the database writes of fire (SQLite) even when the fault was a stack overflow */
enum { HANDLER_STACK_BYTES = 1 << 20 };

static struct sigaction former[FATAL_COUNT];
#endif
static void (*volatile fire_action)(void *, int);
static void *volatile fire_ctx;

/* Guarantees: see crash_guard.h. */
const char *crash_guard_signal_name(int signo)
{
    switch (signo) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (aborted)";
    default: return "a fatal signal";
    }
}

#ifdef A2A_SIMGRID
/* Armed: every fatal signal falls back to its default action (a fault while recording
 * ends the process), an alarm bounds the recording, and fire records and ends the
 * process. Disarmed: the handler before ours gets the signal. */
static void on_fatal_signal(int signo, siginfo_t *info, void *context)
{
    (void)info;
    (void)context;
    void (*fire)(void *, int) = fire_action;
    if (fire) {
        for (int i = 0; i < FATAL_COUNT; i++)
            signal(fatal_signals[i], SIG_DFL);
        signal(SIGALRM, SIG_DFL);
        alarm(CRASH_GUARD_SECONDS);
        fire(fire_ctx, signo);
        raise(signo); /* fire must not return; if it does, the signal ends the process */
        return;
    }
    for (int i = 0; i < FATAL_COUNT; i++)
        if (fatal_signals[i] == signo) {
            sigaction(signo, &former[i], NULL);
            raise(signo); /* delivered to the former handler once this one returns */
        }
}
#endif

/* Guarantees: see crash_guard.h. */
void crash_guard_start(void)
{
#ifdef A2A_SIMGRID
    stack_t stack = { .ss_sp = malloc(HANDLER_STACK_BYTES), .ss_size = HANDLER_STACK_BYTES };
    if (stack.ss_sp)
        sigaltstack(&stack, NULL);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_fatal_signal;
    act.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&act.sa_mask);
    for (int i = 0; i < FATAL_COUNT; i++)
        sigaction(fatal_signals[i], &act, &former[i]);
#endif
}

/* Guarantees: see crash_guard.h. */
void crash_guard_arm(void (*fire)(void *ctx, int signo), void *ctx)
{
    fire_ctx = ctx;
    fire_action = fire;
}

/* Guarantees: see crash_guard.h. */
void crash_guard_disarm(void)
{
    fire_action = NULL;
}
