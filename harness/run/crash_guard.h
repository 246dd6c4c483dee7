/* crash_guard.h — in the simulation build, a fatal signal while a configuration runs is
 * charged to that configuration: every simulated rank and the simulator itself are one
 * process, so a crash in one configuration would otherwise end the whole launch unseen. */
#ifndef A2A_CRASH_GUARD_H
#define A2A_CRASH_GUARD_H

/* Installs the handler of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT on its own signal
 * stack (call once). The SimGrid build only; elsewhere it does nothing (each real rank is
 * its own process and the MPI launcher reports a crash). */
void crash_guard_start(void);

/* From now on until crash_guard_disarm(), a fatal signal runs fire(ctx, signo) inside the
 * signal handler; fire must end the process. Faults in fire itself, or fire taking over
 * CRASH_GUARD_SECONDS, end the process with the signal's default action. While disarmed, a
 * signal takes the course it had before crash_guard_start (SMPI's own handler). */
void crash_guard_arm(void (*fire)(void *ctx, int signo), void *ctx);
void crash_guard_disarm(void);

/* The longest time fire may take to record the crash. */
#define CRASH_GUARD_SECONDS 30

/* "SIGSEGV (segmentation fault)" and the like: how a message names signo. */
const char *crash_guard_signal_name(int signo);

#endif
