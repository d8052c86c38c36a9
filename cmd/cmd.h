/* cmd: the kmrun command line.  Each subcommand is one file with one entry
 * point, wired by the table in cmd/main.c.  An entry point gets argv with
 * argv[0] being the subcommand's name and returns a KM_EXIT_* status
 * (lib/km_error.h); only cmd/ decides what to print and how to exit. */
#ifndef KM_CMD_H
#define KM_CMD_H

typedef struct km_command_entry {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;   /* one line: "kmrun build [options] program.yaml" */
    const char *summary; /* one line for `kmrun --help` */
    const char *help;    /* the whole text for `kmrun help NAME` */
} km_command_entry;

int cmd_build(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* The table, for help and suggestions. */
extern const km_command_entry km_commands[];
extern const unsigned km_ncommands;

#endif
