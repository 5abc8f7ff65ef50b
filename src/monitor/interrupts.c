/*
 * interrupts: each /proc/interrupts row's change over the window, per CPU
 * (interrupts.CPU0.LOC:Local_timer_interrupts) and summed
 * (interrupts.LOC:Local_timer_interrupts), named as LKP names them.
 */
#include "monitor/monitor_type.h"

static int interrupts_open(const struct monitor_ctx *ctx, void **state,
			   struct strbuf *why)
{
	(void)ctx;
	return irqtable_open("/proc/interrupts", "interrupts", false, state, why);
}

const struct monitor_type monitor_interrupts = {
	.name = "interrupts",
	.open = interrupts_open,
	.start = irqtable_start,
	.stop = irqtable_stop,
	.close = irqtable_close,
};
