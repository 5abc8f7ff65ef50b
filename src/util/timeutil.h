/* timeutil.h - monotonic time in seconds.  No state; thread-safe. */
#ifndef PERFBOT_UTIL_TIMEUTIL_H
#define PERFBOT_UTIL_TIMEUTIL_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC: immune to wall-clock steps. */
static inline double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A non-negative interval in seconds as a timespec. */
static inline struct timespec secs_to_timespec(double secs)
{
	struct timespec ts;

	if (secs < 0)
		secs = 0;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

#endif
