#include "util/procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int procstat_open(void)
{
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int procstat_parse(const char *text, struct cpu_times *out)
{
	memset(out, 0, sizeof(*out));
	/* older kernels lack the last fields; 4 is the historical minimum */
	if (strncmp(text, "cpu ", 4) ||
	    sscanf(text + 4, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64,
		   &out->user, &out->nice, &out->system, &out->idle,
		   &out->iowait, &out->irq, &out->softirq, &out->steal,
		   &out->guest, &out->guest_nice) < 4)
		return -EPROTO;
	return 0;
}

int procstat_read(int fd, struct cpu_times *out)
{
	/* the "cpu " line comes first and is well under 256 bytes */
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return procstat_parse(buf, out);
}

uint64_t cpu_times_total(const struct cpu_times *t)
{
	return t->user + t->nice + t->system + t->idle + t->iowait + t->irq +
	       t->softirq + t->steal;
}

double cpu_times_idle_pct(const struct cpu_times *a, const struct cpu_times *b)
{
	uint64_t ta = cpu_times_total(a), tb = cpu_times_total(b);

	if (tb <= ta || b->idle < a->idle)
		return -1;
	return 100.0 * (double)(b->idle - a->idle) / (double)(tb - ta);
}
