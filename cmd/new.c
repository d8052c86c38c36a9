/* cmd/new.c: `kmrun new NAME [--template thread|host-fed|ports]` — a
 * folder NAME holding a program to start from (kmrun_new_program: the
 * template's program.yaml named NAME with its expect:, its sources and a
 * README), which `kmrun run NAME/program.yaml` and `kmrun test NAME`
 * pass as it is.  An existing NAME is refused (exit 2), untouched. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_opts.h"

int cmd_new(int argc, char **argv)
{
    const char *template_name = "thread";
    cmd_opts o;
    cmd_opts_start(&o, "new", argc, argv);
    int c;
    while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
        switch (c) {
        case 't': /* the library checks it (kmrun_new_program) */
            template_name = optarg;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (optind == argc)
        return cmd_usage_error("new", "no folder named (expected the new program's folder)");
    if (argc - optind > 1)
        return cmd_usage_error("new", "unexpected argument %s", CMD_QUOTED(argv[optind + 1]));
    const char *folder = argv[optind];
    kmrun_error *err = NULL;
    kmrun_status rc = kmrun_new_program(folder, template_name, &err);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
        return rc;
    }
    char shown[1024];
    kmrun_escape(shown, sizeof shown, folder, strlen(folder), 0);
    printf("kmrun: made %s from the template %s: run it with 'kmrun run %s/program.yaml', "
           "test it with 'kmrun test %s'\n",
           CMD_QUOTED(folder), CMD_QUOTED(template_name), shown, shown);
    return KMRUN_OK;
}
