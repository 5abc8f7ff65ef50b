/*
 * dmesg.h - a kernel log (the guest's console) to LKP's dmesg.* failure
 * stats, counted per run (docs/kernel-guest.md, "dmesg stats").
 *
 * Each failure line gets one name; the stat "dmesg.<name>" counts the
 * lines with that name.  Names follow LKP's (its lib/dmesg.rb): the
 * location of a WARNING kept, numbers and addresses made '#', function
 * offsets (+0x1a/0x200) and the CPU/PID/task removed, so that the same
 * bug has one name in every build and every boot:
 *
 *   WARNING: CPU: 0 PID: 1 at kernel/futex/waitwake.c:150 futex_wake+0x1a/0x200
 *     -> WARNING:at_kernel/futex/waitwake.c:#futex_wake
 *   WARNING: CPU: 1 PID: 7 at futex_wake+0x1a/0x200     -> WARNING:at_futex_wake
 *   WARNING: stack recursion on stack type 4            -> WARNING:stack_recursion
 *   WARNING: can't dereference registers at 00000000a1b2c3d4 for ip
 *     swapgs_restore_regs_and_return_to_usermode+0x1a/0x2c
 *     -> WARNING:at#for_ip_swapgs_restore_regs_and_return_to_usermode/0x
 *   kernel BUG at mm/slub.c:4321!                       -> kernel_BUG_at_mm/slub.c
 *   BUG: kernel NULL pointer dereference, address: 0000000000000008
 *     -> BUG:kernel_NULL_pointer_dereference,address
 *   Oops: 0002 [#1] PREEMPT SMP NOPTI                   -> Oops
 *   general protection fault, probably for non-canonical address
 *     0xdffffc0000000001: 0000 [#1] SMP
 *     -> general_protection_fault,probably_for_non-canonical_address
 *   RIP: 0010:futex_wake+0x1a/0x200                     -> RIP:futex_wake
 *   Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b
 *     -> Kernel_panic-not_syncing:Attempted_to_kill_init!exitcode=
 *   watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:1]
 *     -> BUG:soft_lockup-CPU##stuck_for#s!
 *   Watchdog detected hard LOCKUP on cpu 1            -> Watchdog_detected_hard_LOCKUP_on_cpu
 *   INFO: task kworker/0:1:45 blocked for more than 120 seconds.
 *     -> INFO:task_blocked_for_more_than#seconds
 *
 * A name holds letters, digits and _ : / . , - # ! = ( ) ~ only, is at
 * most DMESG_NAME_MAX bytes, and so passes the store's name rule.  A
 * boot that never reached the job is the stat DMESG_BOOT_FAILURES (the
 * caller adds it; it is no line of the log).  The stats are failure
 * stats (record.h's stat_is_failure(): the "dmesg." prefix).
 *
 * Ownership: a dmesg_stats owns its names.  Threading: none shared.
 * Errors: 0 or -ENOMEM.
 */
#ifndef PERFBOT_BOOT_DMESG_H
#define PERFBOT_BOOT_DMESG_H

#include "record/record.h"
#include "util/strbuf.h"

#include <stddef.h>

#define DMESG_PREFIX "dmesg."
#define DMESG_BOOT_FAILURES "dmesg.boot_failures"
#define DMESG_NAME_MAX 200

/*
 * The name (without "dmesg.") of one console line, into out: 1, or 0
 * when the line reports no failure (out is then empty), or -ENOMEM.
 * The printk prefix ("<4>", "[    1.234567]", "[    T1]") is skipped.
 */
int dmesg_line_name(const char *line, size_t len, struct strbuf *out);

struct dmesg_stat {
	char *name;		/* with the "dmesg." prefix */
	unsigned count;
};

struct dmesg_stats {
	struct dmesg_stat *v;	/* in order of first appearance */
	size_t n, cap;
};

/* Count the failure lines of a whole log (lines end in \n or \r\n). */
int dmesg_scan(const char *text, size_t len, struct dmesg_stats *out);
/* Add each as a stat (its count as the value). */
int dmesg_stats_add(const struct dmesg_stats *s, struct statmap *stats);
/*
 * Replace every dmesg.* stat of `stats` by s's: the guest's record may
 * hold the kmsg monitor's (its window only, its own names); the host's
 * scan of the whole console is the one the run keeps.  The statmap is
 * finished (sorted) after.  On -ENOMEM it is left as it was.
 */
int dmesg_stats_replace(const struct dmesg_stats *s, struct statmap *stats);
void dmesg_stats_release(struct dmesg_stats *s);

#endif
