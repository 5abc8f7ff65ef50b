/*
 * vec.h - a growable array of any type: a struct with the members
 * `v` (the elements), `n` (how many) and `cap` (room), as strmap and
 * statmap have, handled by these macros.
 *
 *	struct id_vec { int64_t *v; size_t n, cap; } ids = { 0 };
 *	if (vec_push(&ids, id)) return -ENOMEM;
 *	... ids.v[0 .. ids.n-1] ...
 *	vec_free(&ids);
 *
 * Contract: vec_reserve() and vec_push() return 0 or -ENOMEM (also for a
 * size that would overflow) and leave the array as it was on failure;
 * growth doubles, so n pushes cost O(n).  Elements are moved with
 * realloc: do not keep pointers into v across a push.
 * Ownership: the array owns v, not what the elements point at.
 * Threading: one owner at a time.
 */
#ifndef PERFBOT_UTIL_VEC_H
#define PERFBOT_UTIL_VEC_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Room for `need` elements of `size` bytes in *v (capacity *cap). */
int vec_reserve_(void **v, size_t *cap, size_t need, size_t size);

#define vec_reserve(vec, need)                                               \
	vec_reserve_((void **)&(vec)->v, &(vec)->cap, (need), sizeof(*(vec)->v))

/* Append one element (an expression of the element type). */
#define vec_push(vec, ...)                                                   \
	(vec_reserve((vec), (vec)->n + 1) ? -ENOMEM                          \
					  : ((vec)->v[(vec)->n++] = (__VA_ARGS__), 0))

/* A pointer to a new zeroed element at the end, or NULL. */
#define vec_push_zero(vec)                                                   \
	(vec_reserve((vec), (vec)->n + 1)                                    \
		 ? NULL                                                      \
		 : memset(&(vec)->v[(vec)->n++], 0, sizeof(*(vec)->v)))

#define vec_free(vec)                                                        \
	do {                                                                 \
		free((vec)->v);                                              \
		(vec)->v = NULL;                                             \
		(vec)->n = (vec)->cap = 0;                                   \
	} while (0)

#endif
