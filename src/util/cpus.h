/* cpus.h - the online CPU count, what "N%" of the CPUs is a share of. */
#ifndef PERFBOT_UTIL_CPUS_H
#define PERFBOT_UTIL_CPUS_H

#include <unistd.h>

static inline unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

#endif
