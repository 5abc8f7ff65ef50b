/*
 * Fuzz target: an importer (record/import.h), built twice: IMPORT_FN is
 * import_lkp_matrix (fuzz_import_lkp) or import_csv (fuzz_import_csv).
 *
 * Input: the file's bytes, not NUL-terminated (the importers take a
 * length), so ASan sees a read past the end.  Beyond "no crash", the
 * target checks import.h's promises: a result has runs, each finished
 * and named; an error has a message.
 */
#include "record/import.h"

#include <errno.h>
#include <stdint.h>

#ifndef IMPORT_FN
#error "IMPORT_FN must name the importer"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_data d = { 0 };
	struct strbuf err = STRBUF_INIT;
	int ret = IMPORT_FN((const char *)data, size, &d, &err);

	if (ret == 0) {
		for (size_t i = 0; i < d.nr; i++)
			if (!strmap_get(&d.runs[i].env, "import_run"))
				__builtin_trap();
		import_data_release(&d);
	} else if ((ret != -EINVAL && ret != -ENOMEM) || !err.len) {
		__builtin_trap();
	}
	strbuf_release(&err);
	return 0;
}
