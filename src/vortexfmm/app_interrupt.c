/* app_interrupt.c — Ctrl-C (SIGINT) or SIGTERM asks a run to stop cleanly (app.h): a batch run
 * after its current step, a headless recording after its current frame, each with its files
 * finalized (exit 130). A second one acts as it would have without us — a second one a person
 * sends, that is: one within a second of the first is the same request delivered twice (timeout(1)
 * signals both the process and its group; a terminal's Ctrl-C reaches every process of the job) and
 * is ignored. One home for the handler of both modes. */
#define _POSIX_C_SOURCE 200809L /* sigaction, clock_gettime */
#include <signal.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

#include "app.h"

static volatile sig_atomic_t g_interrupted;
static atomic_llong g_first_ns; /* when the first one came, CLOCK_MONOTONIC ns; 0: none yet */
static struct sigaction g_old_int, g_old_term;
static int g_handlers;

/* clock_gettime is async-signal-safe (POSIX.1-2008), a lock-free atomic too (C11 7.14.1.1); the
 * handler may run on two threads at once when both deliveries land together. */
static void on_interrupt(int sig) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long long ns = (1000000000LL * (long long)now.tv_sec + now.tv_nsec) | 1, first = 0;
  if (atomic_compare_exchange_strong(&g_first_ns, &first, ns)) {
    g_interrupted = sig;
    return;
  }
  if (ns - first < 1000000000LL) return; /* the first request, delivered again */
  sigaction(sig, sig == SIGINT ? &g_old_int : &g_old_term, NULL); /* a person's second one */
  raise(sig);
}

void app_interrupt_catch(int on) {
  if (on) g_interrupted = 0, atomic_store(&g_first_ns, 0);
  if (on == g_handlers) return;
  if (on) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
  } else {
    sigaction(SIGINT, &g_old_int, NULL);
    sigaction(SIGTERM, &g_old_term, NULL);
  }
  g_handlers = on;
}

int app_interrupted(void) { return g_interrupted; }
