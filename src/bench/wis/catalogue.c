/* The static table of will-it-scale tests, generated from list.h. */
#include "bench/wis.h"
#include "util/parse.h"

#include <string.h>

#define WIS_TEST(name) extern const struct wis_test wis_test_##name;
#include "bench/wis/list.h"
#undef WIS_TEST

const struct wis_test *const wis_tests[] = {
#define WIS_TEST(name) &wis_test_##name,
#include "bench/wis/list.h"
#undef WIS_TEST
};

const size_t wis_nr_tests = sizeof(wis_tests) / sizeof(wis_tests[0]);

const struct wis_test *wis_find_test(const char *name)
{
	for (size_t i = 0; i < wis_nr_tests; i++)
		if (!strcmp(wis_tests[i]->name, name))
			return wis_tests[i];
	return NULL;
}

const struct wis_test *wis_suggest_test(const char *name)
{
	const struct wis_test *best = NULL;
	size_t best_d = (size_t)-1;

	for (size_t i = 0; i < wis_nr_tests; i++) {
		size_t d;

		if (wis_tests[i]->hidden)
			continue;
		d = edit_distance(name, wis_tests[i]->name);
		if (d < best_d) {
			best_d = d;
			best = wis_tests[i];
		}
	}
	/* a suggestion further than half the name away only confuses */
	return best && best_d <= (strlen(name) + 1) / 2 + 1 ? best : NULL;
}
