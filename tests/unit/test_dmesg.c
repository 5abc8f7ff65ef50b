/*
 * Unit tests: boot/dmesg -- real kernel log lines to LKP's dmesg.* names
 * (seed 001's rows among them), numbers and addresses never in a name,
 * counts per run, lines that are no failure, and the names passing the
 * store's name rule.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "boot/dmesg.h"
#include "util/quote.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *line, *name;
} cases[] = {
	/* seed 001's two rows */
	{ "[   12.345678] WARNING: stack recursion on stack type 4",
	  "WARNING:stack_recursion" },
	{ "[   47.114060] WARNING: can't dereference registers at 00000000e7b1c3f9 for ip swapgs_restore_regs_and_return_to_usermode+0x1a/0x2c",
	  "WARNING:at#for_ip_swapgs_restore_regs_and_return_to_usermode/0x" },
	/* WARNING with file:line, and with func+off/len only */
	{ "[    3.141592] WARNING: CPU: 1 PID: 231 at kernel/futex/waitwake.c:150 futex_wake+0x1a/0x200",
	  "WARNING:at_kernel/futex/waitwake.c:#futex_wake" },
	{ "<4>[   20.000001] WARNING: CPU: 0 PID: 1 at fs/iomap/buffered-io.c:1021 iomap_page_release.isra.0+0x7e/0x90 [iomap]",
	  "WARNING:at_fs/iomap/buffered-io.c:#iomap_page_release[iomap]" },
	{ "[    5.5] WARNING: CPU: 3 PID: 77 at futex_wake+0x1a/0x200",
	  "WARNING:at_futex_wake" },
	{ "[    6.0] WARNING: possible circular locking dependency detected",
	  "WARNING:possible_circular_locking_dependency_detected" },
	/* BUG */
	{ "[    7.7] kernel BUG at mm/slub.c:4321!", "kernel_BUG_at_mm/slub.c" },
	{ "[    8.8] BUG: kernel NULL pointer dereference, address: 0000000000000008",
	  "BUG:kernel_NULL_pointer_dereference,address" },
	{ "[    9.9] BUG: unable to handle page fault for address: ffffc90000a3b000",
	  "BUG:unable_to_handle_page_fault_for_address" },
	{ "[   10.1] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580",
	  "BUG:sleeping_function_called_from_invalid_context_at_kernel/locking/mutex.c" },
	{ "[   10.2] BUG: KASAN: use-after-free in futex_wake+0x2e/0x200",
	  "BUG:KASAN:use-after-free" },
	/* Oops, general protection fault, RIP */
	{ "[   11.1] Oops: 0002 [#1] PREEMPT SMP NOPTI", "Oops" },
	{ "[   11.2] general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] SMP KASAN PTI",
	  "general_protection_fault,probably_for_non-canonical_address" },
	{ "[   11.3] RIP: 0010:futex_wake+0x1a/0x200", "RIP:futex_wake" },
	{ "[   11.4] RIP: 0010:__schedule.constprop.0+0x3b2/0x8c0", "RIP:__schedule" },
	/* panic */
	{ "[   12.0] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b",
	  "Kernel_panic-not_syncing:Attempted_to_kill_init!exitcode=" },
	{ "[    0.9] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
	  "Kernel_panic-not_syncing:VFS:Unable_to_mount_root_fs_on_unknown-block(#,#)" },
	/* lockups, hung task */
	{ "[   44.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:1]",
	  "BUG:soft_lockup-CPU##stuck_for#s!" },
	{ "[   45.0] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1",
	  "NMI_watchdog:Watchdog_detected_hard_LOCKUP_on_cpu" },
	{ "[  242.5] INFO: task kworker/u4:1:45 blocked for more than 120 seconds.",
	  "INFO:task_blocked_for_more_than#seconds" },
	{ "[   50.0] Out of memory: Killed process 123 (futex1) total-vm:2196kB",
	  "Out_of_memory:Killed_process" },
	{ "[    T1] WARNING: CPU: 0 PID: 1 at kernel/x.c:5 f+0x1/0x2", "WARNING:at_kernel/x.c:#f" },
};

static void test_names(void **state)
{
	struct strbuf out = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = dmesg_line_name(cases[i].line, strlen(cases[i].line), &out);

		if (ret != 1 || strcmp(out.buf, cases[i].name))
			print_error("line: %s\n  got: %s (%d)\n want: %s\n", cases[i].line,
				    out.buf, ret, cases[i].name);
		assert_int_equal(ret, 1);
		assert_string_equal(out.buf, cases[i].name);
		/* a name the store takes, without the run's numbers */
		assert_null(name_problem(out.buf));
		assert_true(out.len <= DMESG_NAME_MAX);
		for (size_t k = 0; k < out.len; k++)
			assert_false(isspace((unsigned char)out.buf[k]));
		assert_null(strstr(out.buf, "150"));
		assert_null(strstr(out.buf, "0x1a"));
		assert_null(strstr(out.buf, "e7b1c3f9"));
	}
	strbuf_release(&out);
}

static void test_not_failures(void **state)
{
	static const char *const lines[] = {
		"[    0.000000] Linux version 6.1.0 (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP",
		"[    0.512000] Run /init as init process",
		"[    1.000000] random: crng init done",
		"[    1.2] RIP: 0033:0x7f3a2b1c4d5e",	/* user space */
		"perfbot-guest: guest-run exited 0",
		"PBF1 BEGIN 5 3610a686 12345678",
		"",
	};
	struct strbuf out = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(dmesg_line_name(lines[i], strlen(lines[i]), &out), 0);
		assert_int_equal(out.len, 0);
	}
	strbuf_release(&out);
}

static void test_scan_counts(void **state)
{
	static const char log[] =
		"[    0.0] Linux version 6.1.0\r\n"
		"[    3.1] WARNING: CPU: 1 PID: 231 at kernel/futex/waitwake.c:150 futex_wake+0x1a/0x200\n"
		"[    3.1] Modules linked in:\n"
		"[    3.1] RIP: 0010:futex_wake+0x1a/0x200\n"
		"[    3.2] ---[ end trace 0000000000000000 ]---\n"
		"[    4.1] WARNING: CPU: 0 PID: 232 at kernel/futex/waitwake.c:150 futex_wake+0x1a/0x200\r\n"
		"[    4.1] RIP: 0010:futex_wake+0x1a/0x200\n"
		"[    5.0] WARNING: stack recursion on stack type 1";	/* no newline */
	struct dmesg_stats s = { 0 };
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(dmesg_scan(log, strlen(log), &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.v[0].name, "dmesg.WARNING:at_kernel/futex/waitwake.c:#futex_wake");
	assert_int_equal(s.v[0].count, 2);
	assert_string_equal(s.v[1].name, "dmesg.RIP:futex_wake");
	assert_int_equal(s.v[1].count, 2);
	assert_string_equal(s.v[2].name, "dmesg.WARNING:stack_recursion");
	assert_int_equal(s.v[2].count, 1);
	assert_int_equal(dmesg_stats_add(&s, &m), 0);
	statmap_finish(&m);
	assert_float_equal(*statmap_get(&m, "dmesg.RIP:futex_wake"), 2, 0);
	/* failure stats for compare: the "dmesg." prefix */
	for (size_t i = 0; i < s.n; i++)
		assert_true(stat_is_failure(s.v[i].name));
	assert_true(stat_is_failure(DMESG_BOOT_FAILURES));
	statmap_release(&m);

	/* replace: the record's own dmesg.* go, the others stay */
	memset(&m, 0, sizeof(m));
	assert_int_equal(statmap_add(&m, "dmesg.WARNING:at_old", 1), 0);
	assert_int_equal(statmap_add(&m, "will-it-scale.per_process_ops", 5), 0);
	statmap_finish(&m);
	assert_int_equal(dmesg_stats_replace(&s, &m), 0);
	assert_int_equal(m.n, 4);
	assert_null(statmap_get(&m, "dmesg.WARNING:at_old"));
	assert_float_equal(*statmap_get(&m, "will-it-scale.per_process_ops"), 5, 0);
	assert_float_equal(*statmap_get(&m, "dmesg.WARNING:stack_recursion"), 1, 0);
	statmap_release(&m);
	dmesg_stats_release(&s);
}

static void test_long_line_bounded(void **state)
{
	struct strbuf line = STRBUF_INIT, out = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&line, "[ 1.0] WARNING: ");
	for (int i = 0; i < 2000; i++)
		strbuf_addstr(&line, "word ");
	assert_int_equal(dmesg_line_name(line.buf, line.len, &out), 1);
	assert_true(out.len <= DMESG_NAME_MAX);
	assert_null(name_problem(out.buf));
	strbuf_release(&line);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_not_failures),
		cmocka_unit_test(test_scan_counts),
		cmocka_unit_test(test_long_line_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
