#include "util/interrupt.h"

#include <stddef.h>

volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	/* the first signal decides the exit status (^C then SIGTERM: 130) */
	if (!interrupted)
		interrupted = sig;
}

void interrupt_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
