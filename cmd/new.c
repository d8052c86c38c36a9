/* cmd/new.c: `kmrun new NAME [--template thread|host-fed|ports]` — a
 * folder NAME holding a program to start from (kmrun_new_program: the
 * template's program.yaml named NAME with its expect:, its sources and a
 * README), which `kmrun run NAME/program.yaml` and `kmrun test NAME`
 * pass as it is.  An existing NAME is refused (exit 2), untouched. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int cmd_new(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"template", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    const char *template_name = "thread";
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            template_name = optarg;
            break;
        default:
            return cmd_option_error("new", c, argv, longopts);
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
