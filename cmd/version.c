/* cmd/version.c: `kmrun version` (and `kmrun --version`): the version and
 * the facts about the thread toolchain that were fixed when kmrun was
 * built (kmrun_version, kmrun_image_target, kmrun_image_arch). */
#include <stdio.h>

#include "cmd.h"
#include "cmd_opts.h"

int cmd_version(int argc, char **argv)
{
    cmd_opts o;
    cmd_opts_start(&o, "version", argc, argv);
    if (cmd_opts_next(&o) != CMD_OPTS_END)
        return KMRUN_USAGE; /* it takes none: cmd_opts_next said why */
    if (optind < argc)
        return cmd_usage_error("version", "unexpected argument %s", CMD_QUOTED(argv[optind]));

    printf("kmrun %s\n", kmrun_version());
    printf("target: %s, %s\n", kmrun_image_target(), kmrun_image_arch());
    return KMRUN_OK;
}
