/*
 * queue.c - store.h's entry points of the fleet's queue: dispatch to the
 * backend (PostgreSQL's pg_queue.c), the answer of a backend without a
 * queue, and the release functions.
 */
#include "store/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A backend leaves the queue's ops NULL when it has no queue (SQLite). */
static int no_queue(struct store *s)
{
	return store_fail(s, -ENOTSUP,
			  "the queue needs a PostgreSQL store (--db postgresql://...)");
}

#define QUEUE_CALL(s, op, ...)                                   \
	do {                                                     \
		store_clear_error(s);                            \
		if (!(s)->ops->op)                               \
			return no_queue(s);                      \
		return (s)->ops->op((s), __VA_ARGS__);           \
	} while (0)

int store_queue_submit(struct store *s, const struct store_queue_item *items,
		       size_t nr, int64_t *batch, int64_t *ids)
{
	QUEUE_CALL(s, queue_submit, items, nr, batch, ids);
}

int store_box_register(struct store *s, const struct store_box *b)
{
	QUEUE_CALL(s, box_register, b);
}

int store_queue_claim(struct store *s, const char *testbox, char *const *testcases,
		      double lease_s, struct store_queue_item *out)
{
	memset(out, 0, sizeof(*out));
	QUEUE_CALL(s, queue_claim, testbox, testcases, lease_s, out);
}

int store_queue_heartbeat(struct store *s, int64_t id, int attempt, double lease_s)
{
	QUEUE_CALL(s, queue_heartbeat, id, attempt, lease_s);
}

int store_queue_finish(struct store *s, int64_t id, int attempt,
		       const struct run_record *r, int64_t *run_id)
{
	int ret;

	store_clear_error(s);
	if (!s->ops->queue_finish)
		return no_queue(s);
	/* the door store_put_run() has: no backend stores what it refuses */
	if ((ret = store_check_run(s, r)))
		return ret;
	return s->ops->queue_finish(s, id, attempt, r, run_id);
}

int store_queue_fail(struct store *s, int64_t id, int attempt, const char *why,
		     bool *requeued)
{
	if (requeued)
		*requeued = false;
	QUEUE_CALL(s, queue_fail, id, attempt, why, requeued);
}

int store_queue_hand_back(struct store *s, int64_t id, int attempt)
{
	QUEUE_CALL(s, queue_hand_back, id, attempt);
}

int store_queue_reap(struct store *s, size_t *nr)
{
	if (nr)
		*nr = 0;
	QUEUE_CALL(s, queue_reap, nr);
}

int store_queue_list(struct store *s, const char *state,
		     struct store_queue_item **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	QUEUE_CALL(s, queue_list, state, out, nr);
}

int store_queue_get(struct store *s, int64_t id, struct store_queue_item *out)
{
	memset(out, 0, sizeof(*out));
	QUEUE_CALL(s, queue_get, id, out);
}

int store_queue_cancel(struct store *s, int64_t id)
{
	QUEUE_CALL(s, queue_cancel, id);
}

int store_queue_retry(struct store *s, int64_t id)
{
	QUEUE_CALL(s, queue_retry, id);
}

int store_queue_boxes(struct store *s, struct store_box **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	QUEUE_CALL(s, queue_boxes, out, nr);
}

int store_queue_release(struct store *s, const char *testbox)
{
	QUEUE_CALL(s, queue_release, testbox);
}

int store_queue_wait(struct store *s, double timeout_s, bool *woken)
{
	if (woken)
		*woken = false;
	QUEUE_CALL(s, queue_wait, timeout_s, woken);
}

int store_queue_class_set(struct store *s, const char *name, char *const *boxes)
{
	QUEUE_CALL(s, queue_class_set, name, boxes);
}

int store_queue_class_remove(struct store *s, const char *name)
{
	QUEUE_CALL(s, queue_class_remove, name);
}

int store_queue_classes(struct store *s, struct store_class **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	QUEUE_CALL(s, queue_classes, out, nr);
}

const char *store_selector_class(const char *testbox)
{
	size_t n = sizeof(STORE_CLASS_PREFIX) - 1;

	return testbox && !strncmp(testbox, STORE_CLASS_PREFIX, n) ? testbox + n : NULL;
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void store_needs_release(struct store_needs *n)
{
	if (!n)
		return;
	free(n->arch);
	free(n->testbox);
	free(n->class);
	free_strv(n->tags);
	memset(n, 0, sizeof(*n));
}

void store_queue_item_release(struct store_queue_item *it)
{
	if (!it)
		return;
	free(it->state);
	free(it->job);
	free(it->testcase);
	free(it->job_text);
	free(it->repo);
	free(it->commit);
	free(it->needs);
	store_needs_release(&it->parsed);
	free(it->box);
	free(it->reasons);
	memset(it, 0, sizeof(*it));
}

void store_queue_items_release(struct store_queue_item *it, size_t nr)
{
	for (size_t i = 0; it && i < nr; i++)
		store_queue_item_release(&it[i]);
	free(it);
}

void store_box_release(struct store_box *b)
{
	if (!b)
		return;
	free(b->testbox);
	free(b->machine);
	free(b->arch);
	free(b->kernel);
	free_strv(b->tags);
	free(b->state);
	free(b->why);
	free(b->class);
	memset(b, 0, sizeof(*b));
}

void store_boxes_release(struct store_box *b, size_t nr)
{
	for (size_t i = 0; b && i < nr; i++)
		store_box_release(&b[i]);
	free(b);
}

void store_classes_release(struct store_class *c, size_t nr)
{
	for (size_t i = 0; c && i < nr; i++) {
		free(c[i].name);
		free_strv(c[i].boxes);
	}
	free(c);
}
