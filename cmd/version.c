/* cmd/version.c: `kmrun version` (and `kmrun --version`): the version and
 * the facts about the thread toolchain that were fixed when kmrun was
 * built (kmrun_version, kmrun_image_target, kmrun_image_arch). */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"

int cmd_version(int argc, char **argv)
{
    static const struct option longopts[] = {{NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1)
        return cmd_option_error("version", c, argv, longopts);
    if (optind < argc)
        return cmd_usage_error("version", "unexpected argument %s", CMD_QUOTED(argv[optind]));

    printf("kmrun %s\n", kmrun_version());
    printf("target: %s, %s\n", kmrun_image_target(), kmrun_image_arch());
    return KMRUN_OK;
}
