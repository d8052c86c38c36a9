/* cmd_complete: the bash and zsh completion scripts, written from the
 * table (cmd.h) — the commands, each command's options with their
 * values (a choice's values, files of a pattern, folders, ELF files),
 * its operands — so that they complete what kmrun takes, no more.  What
 * only a run folder knows (the regions of the latest run, the run ids)
 * the scripts ask the kmrun being completed for, through `kmrun
 * completion --regions` and `--runs` (cmd/completion.c), with the --run
 * and --run-dir already on the line.
 *
 * The bash script needs bash alone (not the bash-completion package);
 * the zsh script is an autoloadable `_kmrun` (`#compdef kmrun`) that,
 * when sourced instead, registers itself with compdef. */
#ifndef KM_CMD_COMPLETE_H
#define KM_CMD_COMPLETE_H

#include <stdio.h>

void cmd_complete_bash(FILE *out);
void cmd_complete_zsh(FILE *out);

#endif
