/* cmd_common: what several subcommands do the same way — load a manifest
 * and print its errors, open the cache with warnings on stderr, copy a
 * string or exit when memory runs out. */
#ifndef KM_CMD_COMMON_H
#define KM_CMD_COMMON_H

#include "kmrun.h"
#include "kmrun_tools.h"

/* Loads a manifest (kmrun_program_load); on failure prints every error
 * (file:line:col, the line, a caret: kmrun_error_detail) or the system
 * error to stderr and returns its status. */
int cmd_load_program(const char *path, kmrun_program **out);

/* The one program manifest left after `command`'s options (argv[optind]),
 * loaded as cmd_load_program does; a usage error when there is none or
 * more than one. */
int cmd_load_one_program(const char *command, int argc, char **argv, kmrun_program **out);

/* A copy of s (NULL as ""); out of memory, says so and exits
 * KMRUN_SYSTEM. */
char *cmd_dup(const char *s);

/* A warning of the cache, on stderr as "kmrun: warning: <message>"
 * (kmrun_cache_set_warning's and kmrun_callbacks' warning). */
void cmd_warn(const char *message, void *ctx);

/* Opens the default cache (kmrun_cache_open); its warnings go to stderr as
 * "kmrun: warning:", and so does a failure to open it (its status). */
int cmd_open_cache(kmrun_cache **out);

/* The remote storage of `command`'s --remote-storage (url; NULL: the
 * configured one): for the cache c, and in $KMRUN_REMOTE_STORAGE for the
 * runs it starts; with verbose each remote lookup's story on stderr as
 * "kmrun: note:".  A usage error for a URL of another form. */
int cmd_cache_remote(kmrun_cache *c, const char *command, const char *url, bool verbose);

#endif
