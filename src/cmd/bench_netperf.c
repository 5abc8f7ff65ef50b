/* perfbot bench netperf: STUB, being written. */
#include "cmd/cmds.h"

#include <stdio.h>

int cmd_bench_netperf(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "perfbot: bench: %s: not written yet\n", argv[0]);
	return EXIT_FAILED;
}
