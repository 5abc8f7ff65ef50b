/*
 * softirqs: each /proc/softirqs row's change over the window, per CPU
 * (softirqs.CPU0.SCHED) and summed (softirqs.SCHED).
 */
#include "monitor/monitor_type.h"

static int softirqs_open(const struct monitor_ctx *ctx, void **state,
			 struct strbuf *why)
{
	(void)ctx;
	return irqtable_open("/proc/softirqs", "softirqs", true, state, why);
}

const struct monitor_type monitor_softirqs = {
	.name = "softirqs",
	.open = softirqs_open,
	.start = irqtable_start,
	.stop = irqtable_stop,
	.close = irqtable_close,
};
