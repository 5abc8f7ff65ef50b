/* Unit tests: boot/kconfig -- .config merging as merge_config.sh does it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "boot/kconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *value_of(const struct kconfig *c, const char *name)
{
	const struct kconfig_entry *e = kconfig_get(c, name);

	assert_non_null(e);
	return e->value;
}

static void later_wins(void **state)
{
	struct kconfig c;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	kconfig_init(&c);
	assert_int_equal(kconfig_merge_text(&c, "CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=m\n",
					    "base", &err), 0);
	assert_int_equal(kconfig_merge_text(&c, "CONFIG_A=m\nCONFIG_C=m\n", "frag1", &err), 0);
	assert_int_equal(kconfig_merge_text(&c, "CONFIG_A=y\n", "frag2", &err), 0);
	assert_string_equal(value_of(&c, "CONFIG_A"), "y");
	assert_string_equal(value_of(&c, "CONFIG_B"), "y");
	assert_string_equal(value_of(&c, "CONFIG_C"), "m");
	assert_string_equal(kconfig_get(&c, "CONFIG_A")->source, "frag2:1");
	/* two redefinitions of A, none of C (the same value again) */
	assert_non_null(strstr(c.notes.buf,
			       "frag1:1: CONFIG_A=m redefines CONFIG_A=y (base:1)\n"));
	assert_non_null(strstr(c.notes.buf,
			       "frag2:1: CONFIG_A=y redefines CONFIG_A=m (frag1:1)\n"));
	assert_null(strstr(c.notes.buf, "CONFIG_C"));
	/* the order is the order first set */
	assert_string_equal(c.v[0].name, "CONFIG_A");
	assert_string_equal(c.v[2].name, "CONFIG_C");
	assert_int_equal(c.n, 3);
	kconfig_release(&c);
	strbuf_release(&err);
}

static void not_set_strings_modules(void **state)
{
	struct kconfig c;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;

	(void)state;
	kconfig_init(&c);
	assert_int_equal(kconfig_merge_text(&c,
		"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
		"CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14) 12.2.0\"\n"
		"CONFIG_CMDLINE=\"console=ttyS0 quiet \\\"x\\\"\"\n"
		"CONFIG_LOG_BUF_SHIFT=17\n"
		"CONFIG_VIRTIO_NET=m\n"
		"CONFIG_SMP=y\n"
		"# CONFIG_EXPERT is not set\n"
		"# CONFIG_SOMETHING comment that is no config line\n"
		"\n", "base", &err), 0);
	assert_null(value_of(&c, "CONFIG_EXPERT"));
	assert_null(kconfig_get(&c, "CONFIG_SOMETHING"));
	assert_string_equal(value_of(&c, "CONFIG_CC_VERSION_TEXT"),
			    "\"gcc (Debian 12.2.0-14) 12.2.0\"");
	assert_string_equal(value_of(&c, "CONFIG_CMDLINE"), "\"console=ttyS0 quiet \\\"x\\\"\"");
	assert_string_equal(value_of(&c, "CONFIG_VIRTIO_NET"), "m");
	/* =n and "is not set" are one thing; a not-set option set again is noted */
	assert_int_equal(kconfig_set_line(&c, "CONFIG_SMP=n", "job", &err), 0);
	assert_null(value_of(&c, "CONFIG_SMP"));
	assert_non_null(strstr(c.notes.buf, "job: # CONFIG_SMP is not set redefines CONFIG_SMP=y (base:8)"));
	assert_int_equal(kconfig_set_line(&c, "CONFIG_EXPERT=y", "job", &err), 0);
	assert_non_null(strstr(c.notes.buf, "job: CONFIG_EXPERT=y redefines # CONFIG_EXPERT is not set (base:9)"));
	assert_int_equal(kconfig_set_line(&c, "# CONFIG_VIRTIO_NET is not set", "job", &err), 0);
	assert_null(value_of(&c, "CONFIG_VIRTIO_NET"));
	assert_int_equal(kconfig_write(&c, &out), 0);
	assert_string_equal(out.buf,
		"CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14) 12.2.0\"\n"
		"CONFIG_CMDLINE=\"console=ttyS0 quiet \\\"x\\\"\"\n"
		"CONFIG_LOG_BUF_SHIFT=17\n"
		"# CONFIG_VIRTIO_NET is not set\n"
		"# CONFIG_SMP is not set\n"
		"CONFIG_EXPERT=y\n");
	kconfig_release(&c);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void bad_lines(void **state)
{
	static const char *const bad[] = {
		"CONFIG_A", "CONFIG_A=", "CONFIG_=y", "CONFIG_A=\"open", "CONFIG_A=two words",
		"# CONFIG_A is set", "CONFIG_A y", "A=y", "", "# CONFIG_A is not set really",
	};
	struct kconfig c;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	kconfig_init(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(kconfig_set_line(&c, bad[i], "kernel: fragments", &err), -EINVAL);
		assert_non_null(strstr(err.buf, "kernel: fragments: not a config line"));
		assert_non_null(strstr(err.buf, bad[i]));
	}
	assert_int_equal(c.n, 0);
	/* in a file, a malformed config line names the file and its line */
	strbuf_reset(&err);
	assert_int_equal(kconfig_merge_text(&c, "# a comment\nCONFIG_A=y\nCONFIG_B=\"x\n",
					    "frag.config", &err), -EINVAL);
	assert_non_null(strstr(err.buf, "frag.config:3: not a config line"));
	kconfig_release(&c);
	strbuf_release(&err);
}

static void guest_options(void **state)
{
	struct kconfig c;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;

	(void)state;
	kconfig_init(&c);
	assert_int_equal(kconfig_merge_text(&c, "# CONFIG_FUTEX is not set\nCONFIG_NET=y\n",
					    "tinyconfig", &err), 0);
	assert_int_equal(kconfig_add_guest(&c, &err), 0);
	for (; kconfig_guest_options[n]; n++) {
		char name[128];

		snprintf(name, sizeof(name), "CONFIG_%s", kconfig_guest_options[n]);
		assert_string_equal(value_of(&c, name), "y");
		assert_string_equal(kconfig_get(&c, name)->source, "perfbot's guest");
	}
	/* the list is in it */
	assert_true(n >= 30);
	assert_non_null(kconfig_get(&c, "CONFIG_SERIAL_8250_CONSOLE"));
	assert_non_null(kconfig_get(&c, "CONFIG_VIRTIO_CONSOLE"));
	assert_non_null(kconfig_get(&c, "CONFIG_KVM_GUEST"));
	/* the base's "not set" is overridden, and said */
	assert_non_null(strstr(c.notes.buf,
			       "perfbot's guest: CONFIG_FUTEX=y redefines # CONFIG_FUTEX is not set (tinyconfig:1)"));
	assert_null(strstr(c.notes.buf, "CONFIG_NET="));
	kconfig_release(&c);
	strbuf_release(&err);
}

/* A final .config with every guest option but those named in `without`. */
static void final_text(struct strbuf *out, const char *const *without, const char *extra)
{
	for (size_t i = 0; kconfig_guest_options[i]; i++) {
		bool skip = false;

		for (size_t j = 0; without && without[j]; j++)
			skip |= !strcmp(kconfig_guest_options[i], without[j]);
		if (skip)
			strbuf_addf(out, "# CONFIG_%s is not set\n", kconfig_guest_options[i]);
		else
			strbuf_addf(out, "CONFIG_%s=y\n", kconfig_guest_options[i]);
	}
	strbuf_addstr(out, extra);
}

static void check_final(void **state)
{
	static const char *const lost[] = { "KVM_GUEST", "VIRTIO_CONSOLE", NULL };
	struct kconfig c;
	struct strbuf err = STRBUF_INIT, notes = STRBUF_INIT, fin = STRBUF_INIT;
	char **dropped = NULL;

	(void)state;
	kconfig_init(&c);
	assert_int_equal(kconfig_merge_text(&c, "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n"
					    "CONFIG_D=\"s\"\n", "frag", &err), 0);
	assert_int_equal(kconfig_add_guest(&c, &err), 0);

	/* everything survived: nothing dropped, nothing noted */
	final_text(&fin, NULL, "CONFIG_A=y\nCONFIG_C=m\nCONFIG_D=\"s\"\n");
	assert_int_equal(kconfig_check_final(&c, fin.buf, &dropped, &notes, &err), 0);
	assert_null(dropped);
	assert_string_equal(notes.buf, "");

	/* olddefconfig dropped two guest options and changed C and D */
	strbuf_reset(&fin);
	final_text(&fin, lost, "CONFIG_A=y\nCONFIG_B=y\nCONFIG_D=\"t\"\n");
	assert_int_equal(kconfig_check_final(&c, fin.buf, &dropped, &notes, &err), 0);
	assert_non_null(dropped);
	assert_string_equal(dropped[0], "CONFIG_KVM_GUEST");
	assert_string_equal(dropped[1], "CONFIG_VIRTIO_CONSOLE");
	assert_null(dropped[2]);
	assert_non_null(strstr(notes.buf, "# CONFIG_B is not set (frag:2) is not in the final .config: CONFIG_B=y\n"));
	assert_non_null(strstr(notes.buf, "CONFIG_C=m (frag:3) is not in the final .config: # CONFIG_C is not set\n"));
	assert_non_null(strstr(notes.buf, "CONFIG_D=\"s\" (frag:4) is not in the final .config: CONFIG_D=\"t\"\n"));
	assert_null(strstr(notes.buf, "CONFIG_A"));
	kconfig_names_free(dropped);

	/* a guest option built as a module is not built in */
	strbuf_reset(&fin);
	strbuf_reset(&notes);
	final_text(&fin, NULL, "CONFIG_A=y\nCONFIG_C=m\nCONFIG_D=\"s\"\nCONFIG_VIRTIO_PCI=m\n");
	assert_int_equal(kconfig_check_final(&c, fin.buf, &dropped, &notes, &err), 0);
	assert_non_null(dropped);
	assert_string_equal(dropped[0], "CONFIG_VIRTIO_PCI");
	assert_null(dropped[1]);
	kconfig_names_free(dropped);

	kconfig_release(&c);
	strbuf_release(&err);
	strbuf_release(&notes);
	strbuf_release(&fin);
}

static void depends(void **state)
{
	static const char kconfig[] =
		"config HYPERVISOR_GUEST\n"
		"\tbool \"Linux guest support\"\n"
		"\n"
		"if HYPERVISOR_GUEST\n"
		"\n"
		"config PARAVIRT\n"
		"\tbool \"Enable paravirtualization code\"\n"
		"\tdepends on HAVE_STATIC_CALL\n"
		"\thelp\n"
		"\t  This changes the kernel so it can modify itself when it is run\n"
		"\n"
		"config KVM_GUEST\n"
		"\tbool \"KVM Guest support (including kvmclock)\"\n"
		"\tdepends on PARAVIRT\n"
		"\tselect PARAVIRT_CLOCK\n"
		"\tdepends on X86_LOCAL_APIC || X86_64\n"
		"\tdefault y\n"
		"\n"
		"config KVM_GUEST_EXTRA\n"
		"\tdepends on NOTHING\n"
		"endif\n";
	struct strbuf out = STRBUF_INIT;

	(void)state;
	assert_true(kconfig_depends(kconfig, "KVM_GUEST", &out));
	assert_string_equal(out.buf, "PARAVIRT && (X86_LOCAL_APIC || X86_64)");
	strbuf_reset(&out);
	assert_true(kconfig_depends(kconfig, "PARAVIRT", &out));
	assert_string_equal(out.buf, "HAVE_STATIC_CALL");
	strbuf_reset(&out);
	assert_false(kconfig_depends(kconfig, "HYPERVISOR_GUEST", &out));
	assert_false(kconfig_depends(kconfig, "KVM", &out));
	assert_string_equal(out.buf, "");
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(later_wins),
		cmocka_unit_test(not_set_strings_modules),
		cmocka_unit_test(bad_lines),
		cmocka_unit_test(guest_options),
		cmocka_unit_test(check_final),
		cmocka_unit_test(depends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
