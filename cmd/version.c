/* cmd/version.c: `kmrun version` (and `kmrun --version`): the version and
 * the facts about the thread toolchain that were fixed when kmrun was
 * compiled.  The Makefile may pass KMRUN_RV_TARGET and KMRUN_RV_ARCH;
 * the defaults below are the Makefile's RV_PREFIX and RV_ARCH. */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "km_build.h"
#include "km_error.h"
#include "ks_text.h"

#ifndef KMRUN_VERSION
#error "KMRUN_VERSION must come from the Makefile (the VERSION file)"
#endif
#ifndef KMRUN_RV_TARGET
#define KMRUN_RV_TARGET "riscv64-unknown-elf"
#endif
#ifndef KMRUN_RV_ARCH
#define KMRUN_RV_ARCH "-march=" KM_IMAGE_MARCH " -mabi=lp64d"
#endif

int cmd_version(int argc, char **argv)
{
    static const struct option longopts[] = {{NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1)
        return cmd_option_error("version", c, argv, longopts);
    if (optind < argc)
        return cmd_usage_error("version", "unexpected argument %s", KS_QUOTED(argv[optind]));

    printf("kmrun %s\n", KMRUN_VERSION);
    printf("target: %s, %s\n", KMRUN_RV_TARGET, KMRUN_RV_ARCH);
    return KM_OK;
}
