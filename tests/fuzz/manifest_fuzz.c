/* manifest_fuzz: libFuzzer over the manifest reader — km_manifest_load
 * (libyaml's events into yaml_tree, every check of the model, the
 * placement's rule) and km_diags_print (which finds each error's line
 * again and puts a caret under its column).  The harness asserts nothing:
 * ASan, UBSan and libFuzzer's timeout and memory limit are the oracle. */
#include <stdio.h>

#include "fuzz_file.h"
#include "km_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("program.yaml", data, size);
    if (!path)
        return 0;
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    km_program *p = NULL;
    km_diags d = {0};
    km_error e = {0};
    km_manifest_load(path, &p, &d, &e);
    if (sink)
        km_diags_print(&d, sink);
    km_diags_free(&d);
    km_program_free(p);
    return 0;
}
