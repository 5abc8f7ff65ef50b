/*
 * Fuzz target: the store reader on a damaged or crafted database.
 *
 * Input: a whole store file (the seeds are real stores made by perfbot,
 * tests/fuzz/make-store-seeds.sh), written to a scratch file and opened
 * with STORE_READ; then everything `perfbot results`, `results show`,
 * `compare`, `report` and `bisect status/log` read is loaded: the
 * groups, each group's runs in full, its samples, the commit lookup, the
 * bisections with their logs and marks.  Loops are capped so a store
 * claiming millions of rows stays one quick input.
 *
 * Errors are the expected outcome of most inputs; what must never happen
 * is a crash or a sanitizer report.  Beyond that: samples are
 * consistent (names and counts for nr entries), and declarations are
 * whole (name, unit, a direction of -1, 0 or 1), sorted by name, and in
 * the samples only for a stat the samples have.
 */
#include "fuzz_tmp.h"
#include "store/store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 32
#define MAX_RUNS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_meta(const struct stat_meta_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct stat_meta *m = &l->v[i];

		if (!m->name || !m->unit || m->better < -1 || m->better > 1 ||
		    (i && strcmp(l->v[i - 1].name, m->name) >= 0))
			__builtin_trap();
	}
}

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

static void read_group(struct store *s, const struct store_group *g)
{
	struct store_samples sm;
	int64_t *ids = NULL;
	size_t nids = 0;
	char *full = NULL;

	if (!store_group_runs(s, g->testbox, g->job, g->commit, &ids, &nids)) {
		for (size_t i = 0; i < nids && i < MAX_RUNS; i++) {
			struct run_record run = { 0 };

			if (!store_get_run(s, ids[i], &run)) {
				(void)run_record_kpi(&run);
				check_meta(&run.meta);
			}
			run_record_release(&run);
		}
		free(ids);
	}
	memset(&sm, 0, sizeof(sm));
	if (!store_load_samples(s, g->testbox, g->job, g->commit, &sm)) {
		for (size_t i = 0; i < sm.nr; i++)
			if (!sm.names[i] || (sm.counts[i] && !sm.values[i]))
				__builtin_trap();
		check_meta(&sm.meta);
		for (size_t i = 0; i < sm.meta.n; i++)
			if (!bsearch(sm.meta.v[i].name, sm.names, sm.nr,
				     sizeof(*sm.names), cmp_name))
				__builtin_trap();
		store_samples_release(&sm);
	}
	if (g->commit && !store_resolve_commit(s, g->commit, &full))
		free(full);
}

static void read_bisections(struct store *s)
{
	struct store_bisect *b = NULL, latest;
	size_t nr = 0;

	if (!store_bisect_latest(s, &latest))
		store_bisect_release(&latest);
	if (store_bisect_list(s, &b, &nr))
		return;
	for (size_t i = 0; i < nr && i < MAX_GROUPS; i++) {
		struct store_bisect one;
		struct store_bisect_line *lines = NULL;
		struct store_bisect_mark *marks = NULL;
		size_t nl = 0, nm = 0;

		if (!store_bisect_get(s, b[i].id, &one))
			store_bisect_release(&one);
		if (!store_bisect_log(s, b[i].id, &lines, &nl))
			store_bisect_lines_release(lines, nl);
		if (!store_bisect_marks(s, b[i].id, &marks, &nm))
			store_bisect_marks_release(marks, nm);
	}
	store_bisects_release(b, nr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_tmp_write(data, size);
	struct store_group *groups = NULL;
	struct store_filter all = { 0 };
	struct store *s = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;
	char *full = NULL;

	if (!path)
		return 0;
	if (store_open(path, STORE_READ, &s, &err)) {
		if (!err.len && !strbuf_error(&err))
			__builtin_trap();	/* a refusal says why */
		strbuf_release(&err);
		fuzz_tmp_clean();
		return 0;
	}
	strbuf_release(&err);
	if (!store_list_groups(s, &all, &groups, &n)) {
		for (size_t i = 0; i < n && i < MAX_GROUPS; i++)
			read_group(s, &groups[i]);
		store_groups_release(groups, n);
	}
	/* a prefix and a label, as `results --commit` and `compare` give them */
	if (!store_resolve_commit(s, "a", &full))
		free(full);
	read_bisections(s);
	store_close(s);
	fuzz_tmp_clean();
	return 0;
}
