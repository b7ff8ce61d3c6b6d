/* app_interrupt.c — Ctrl-C (SIGINT) or SIGTERM asks a run to stop cleanly (app.h): a batch run
 * after its current step, a headless recording after its current frame, each with its files
 * finalized (exit 130). A second one acts as it would have without us. One home for the handler
 * of both modes. */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include <signal.h>
#include <string.h>

#include "app.h"

static volatile sig_atomic_t g_interrupted;
static struct sigaction g_old_int, g_old_term;
static int g_handlers;

static void on_interrupt(int sig) {
  if (g_interrupted) { /* the second one: what it would have done without us */
    sigaction(sig, sig == SIGINT ? &g_old_int : &g_old_term, NULL);
    raise(sig);
    return;
  }
  g_interrupted = sig;
}

void app_interrupt_catch(int on) {
  if (on) g_interrupted = 0;
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
