/* perfbot bench hackbench: STUB, being written. */
#include "cmd/cmds.h"

#include <stdio.h>

int cmd_bench_hackbench(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "perfbot: bench: %s: not written yet\n", argv[0]);
	return EXIT_FAILED;
}
