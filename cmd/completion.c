/* cmd/completion.c: `kmrun completion bash|zsh`, the completion script
 * of a shell, written from the table (cmd.h) — the commands, each
 * command's options with their values (a choice's values, files of a
 * pattern, folders, ELF files), its operands — so that it completes what
 * kmrun takes, no more; and the lists the scripts and the tests ask for:
 * the commands, a command's options, the run ids of the runs folder and
 * the regions of a run (its regions.json, kmrun(1) FILES).  What only a
 * run folder knows the scripts ask the kmrun being completed for
 * (--regions, --runs), with the --run and --run-dir already on the line.
 *
 * The bash script needs bash alone (not the bash-completion package);
 * the zsh script is an autoloadable `_kmrun` (`#compdef kmrun`) that,
 * when sourced instead, registers itself with compdef. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cmd_opts.h"

/* ---- text ------------------------------------------------------------------ */

/* `text` for inside a shell's single quotes. */
static void single_quoted(FILE *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    }
}

/* A help text made short for zsh's listing, inside single quotes and
 * _arguments' brackets, or in _describe's "name:description" (`colon`:
 * ':' escaped too): up to its first clause (before " (", ";", ": "). */
static void described(FILE *out, const char *help, bool colon)
{
    char text[128];
    size_t n = help ? strlen(help) : 0;
    const char *stops[] = {" (", ";", ": "};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        const char *at = help ? strstr(help, stops[i]) : NULL;
        if (at && (size_t)(at - help) < n && at > help)
            n = (size_t)(at - help);
    }
    if (n >= sizeof text)
        n = sizeof text - 1;
    memcpy(text, help ? help : "", n);
    text[n] = 0;
    while (n && (text[n - 1] == ' ' || text[n - 1] == ',' || text[n - 1] == '.'))
        text[--n] = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else if (*p == '[' || *p == ']' || *p == '\\' || (colon && *p == ':'))
            fprintf(out, "\\%c", *p);
        else
            fputc(*p, out);
    }
}

/* The choices "a|b|c" as words "a b c". */
static void choice_words(FILE *out, const char *choices)
{
    char one[128];
    for (int i = 0; cmd_choice_at(choices, i, one, sizeof one); i++)
        fprintf(out, "%s%s", i ? " " : "", one);
}

static cmd_value value_of(cmd_value value, const char *choices)
{
    return choices ? CMD_VALUE_CHOICE : value;
}

/* ---- bash ------------------------------------------------------------------ */

static const char bash_head[] =
    "# from the table kmrun parses its own command line with.  Installed as\n"
    "# DATADIR/bash-completion/completions/kmrun; to try it at once:\n"
    "#     source <(kmrun completion bash)\n"
    "\n"
    "# The kmrun being completed, as typed, else the one on PATH.\n"
    "_kmrun_self() {\n"
    "    local self=${COMP_WORDS[0]}\n"
    "    case $self in \"~/\"*) self=$HOME/${self#\"~/\"} ;; esac\n"
    "    if [[ $self == */* && -x $self ]] || type -P \"$self\" >/dev/null 2>&1; then\n"
    "        printf '%s\\n' \"$self\"\n"
    "    else\n"
    "        printf 'kmrun\\n'\n"
    "    fi\n"
    "}\n"
    "\n"
    "# _kmrun_words WORDS: those of WORDS that start with the word completed.\n"
    "_kmrun_words() {\n"
    "    mapfile -t COMPREPLY < <(compgen -W \"$1\" -- \"$cur\")\n"
    "}\n"
    "\n"
    "# _kmrun_files [PATTERN]: folders, and the files (that match PATTERN).\n"
    "_kmrun_files() {\n"
    "    compopt -o filenames 2>/dev/null\n"
    "    if [ -n \"$1\" ]; then\n"
    "        mapfile -t COMPREPLY < <(compgen -d -- \"$cur\"; compgen -f -X \"!$1\" -- \"$cur\")\n"
    "    else\n"
    "        mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "    fi\n"
    "}\n"
    "\n"
    "_kmrun_dirs() {\n"
    "    compopt -o filenames 2>/dev/null\n"
    "    mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
    "}\n"
    "\n"
    "# Folders, and the files that start as an ELF file does (past 1000\n"
    "# files, every file: reading them all would keep the shell waiting).\n"
    "_kmrun_elf() {\n"
    "    local f magic n=0\n"
    "    compopt -o filenames 2>/dev/null\n"
    "    mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
    "    while IFS= read -r f; do\n"
    "        [ -f \"$f\" ] || continue\n"
    "        n=$((n + 1))\n"
    "        magic=\n"
    "        [ \"$n\" -gt 1000 ] || IFS= read -r -n 4 magic <\"$f\" 2>/dev/null\n"
    "        if [ \"$n\" -gt 1000 ] || [ \"$magic\" = $'\\177ELF' ]; then\n"
    "            COMPREPLY+=(\"$f\")\n"
    "        fi\n"
    "    done < <(compgen -f -- \"$cur\")\n"
    "}\n"
    "\n"
    "# _kmrun_ask regions|runs: what `kmrun completion --regions` (--runs)\n"
    "# lists, for the --run and --run-dir already on the line.\n"
    "_kmrun_ask() {\n"
    "    local i k w v args=()\n"
    "    for ((i = 2; i < COMP_CWORD; i++)); do\n"
    "        w=${COMP_WORDS[i]}\n"
    "        case $w in\n"
    "        --run | --run-dir)\n"
    "            k=$((i + 1))\n"
    "            [ \"${COMP_WORDS[k]}\" != = ] || k=$((k + 1))\n"
    "            [ \"$k\" -lt \"$COMP_CWORD\" ] || continue\n"
    "            v=${COMP_WORDS[k]}\n"
    "            ;;\n"
    "        --run=* | --run-dir=*) v=${w#*=} w=${w%%=*} ;;\n"
    "        *) continue ;;\n"
    "        esac\n"
    "        case $v in \"~/\"*) v=$HOME/${v#\"~/\"} ;; esac\n"
    "        [ \"$1\" = runs ] && [ \"$w\" = --run ] && continue\n"
    "        args+=(\"$w\" \"$v\")\n"
    "    done\n"
    "    _kmrun_words \"$(\"$(_kmrun_self)\" completion \"--$1\" \"${args[@]}\" 2>/dev/null)\"\n"
    "}\n"
    "\n"
    "_kmrun() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= opt= pre= i\n"
    "    [ \"$COMP_CWORD\" -lt 1 ] || prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "    COMPREPLY=()\n"
    "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
    "        case ${COMP_WORDS[i]} in\n"
    "        -*) ;;\n"
    "        *) cmd=${COMP_WORDS[i]}; break ;;\n"
    "        esac\n"
    "    done\n"
    "    # The option whose value is completed: --name= for --name=VALUE (one\n"
    "    # word, or three where '=' breaks words), --name for --name VALUE.\n"
    "    if [[ $cur == --*=* ]]; then\n"
    "        opt=${cur%%=*}= pre=${cur%%=*}= cur=${cur#*=}\n"
    "    elif [ \"$cur\" = = ] && [[ $prev == --* ]]; then\n"
    "        opt=$prev= cur=\n"
    "    elif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ] &&\n"
    "        [[ ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then\n"
    "        opt=${COMP_WORDS[COMP_CWORD - 2]}=\n"
    "    elif [[ $prev == -* ]]; then\n"
    "        opt=$prev\n"
    "    fi\n"
    "    case $cmd in\n";

static const char bash_tail[] =
    "    esac\n"
    "    if [ -n \"$pre\" ]; then\n"
    "        COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\")\n"
    "    fi\n"
    "    return 0\n"
    "}\n"
    "\n"
    "complete -F _kmrun kmrun\n";

/* The bash call that completes a value of kind `value`. */
static void bash_action(FILE *out, cmd_value value, const char *pattern, const char *choices)
{
    switch (value_of(value, choices)) {
    case CMD_VALUE_FILE:
        fputs("_kmrun_files", out);
        if (pattern) {
            fputs(" '", out);
            single_quoted(out, pattern);
            fputc('\'', out);
        }
        break;
    case CMD_VALUE_DIR:
        fputs("_kmrun_dirs", out);
        break;
    case CMD_VALUE_ELF:
        fputs("_kmrun_elf", out);
        break;
    case CMD_VALUE_CHOICE:
        fputs("_kmrun_words '", out);
        choice_words(out, choices);
        fputc('\'', out);
        break;
    case CMD_VALUE_REGION:
        fputs("_kmrun_ask regions", out);
        break;
    case CMD_VALUE_RUN:
        fputs("_kmrun_ask runs", out);
        break;
    case CMD_VALUE_COMMAND:
        fputs("_kmrun_words '", out);
        for (unsigned i = 0; i < cmd_ncommands; i++)
            fprintf(out, "%s%s", i ? " " : "", cmd_commands[i].name);
        fputc('\'', out);
        break;
    case CMD_VALUE_TEXT:
        fputc(':', out); /* nothing completes it */
        break;
    }
}

static void bash_command(FILE *out, const cmd_command_entry *c)
{
    fprintf(out, "    %s)\n        case $opt in\n", c->name);
    const cmd_option *o;
    for (size_t i = 0; (o = cmd_option_listed(c, i)); i++) {
        if (o->arg == CMD_ARG_NONE)
            continue;
        /* A required value may be the next word; an optional one only
         * follows '='. */
        fputs("        ", out);
        if (o->arg == CMD_ARG_REQUIRED) {
            fprintf(out, "--%s | ", o->name);
            if (o->letter)
                fprintf(out, "-%c | ", o->letter);
        }
        fprintf(out, "--%s=) ", o->name);
        bash_action(out, o->value, o->pattern, o->choices);
        fputs(" ;;\n", out);
    }
    fputs("        *)\n            if [[ $cur == -* ]]; then\n                _kmrun_words '", out);
    for (size_t i = 0; (o = cmd_option_listed(c, i)); i++)
        fprintf(out, "--%s ", o->name);
    fputs("--help'\n            else\n                ", out);
    if (c->operands && c->operands[0].name)
        bash_action(out, c->operands[0].value, c->operands[0].pattern, c->operands[0].choices);
    else
        fputc(':', out);
    fputs("\n            fi\n            ;;\n        esac\n        ;;\n", out);
}

static void complete_bash(FILE *out)
{
    fprintf(out, "# bash completion for kmrun, written by `kmrun completion bash` (kmrun %s)\n",
            kmrun_version());
    fputs(bash_head, out);
    fputs("    '')\n        if [[ $cur == -* ]]; then\n            _kmrun_words '", out);
    for (const cmd_option *o = cmd_global_options; o->name; o++) {
        fprintf(out, "%s--%s", o == cmd_global_options ? "" : " ", o->name);
        if (o->letter)
            fprintf(out, " -%c", o->letter);
    }
    fputs("'\n        else\n            ", out);
    bash_action(out, CMD_VALUE_COMMAND, NULL, NULL);
    fputs("\n        fi\n        ;;\n", out);
    for (unsigned i = 0; i < cmd_ncommands; i++)
        bash_command(out, &cmd_commands[i]);
    fputs(bash_tail, out);
}

/* ---- zsh ------------------------------------------------------------------- */

static const char zsh_head[] =
    "# from the table kmrun parses its own command line with.  Installed as\n"
    "# DATADIR/zsh/vendor-completions/_kmrun (a folder of $fpath); to try it\n"
    "# at once, after compinit:\n"
    "#     source <(kmrun completion zsh)\n"
    "\n"
    "# _kmrun_ask regions|runs: what `kmrun completion --regions` (--runs)\n"
    "# lists, for the --run and --run-dir already on the line.\n"
    "_kmrun_ask() {\n"
    "  local -a args\n"
    "  local i w v\n"
    "  for (( i = 2; i < CURRENT; i++ )); do\n"
    "    w=$words[i]\n"
    "    case $w in\n"
    "    (--run|--run-dir) (( i + 1 < CURRENT )) || continue; v=$words[i+1] ;;\n"
    "    (--run=*|--run-dir=*) v=${w#*=}; w=${w%%=*} ;;\n"
    "    (*) continue ;;\n"
    "    esac\n"
    "    [[ $1 == runs && $w == --run ]] && continue\n"
    "    args+=($w ${v/#\\~/$HOME})\n"
    "  done\n"
    "  ${_kmrun_self:-kmrun} completion --$1 $args 2>/dev/null\n"
    "}\n"
    "\n"
    "_kmrun_regions() {\n"
    "  local expl\n"
    "  local -a regions\n"
    "  regions=(${(f)\"$(_kmrun_ask regions)\"})\n"
    "  _wanted regions expl 'region' compadd -a regions\n"
    "}\n"
    "\n"
    "_kmrun_runs() {\n"
    "  local expl\n"
    "  local -a runs\n"
    "  runs=(${(f)\"$(_kmrun_ask runs)\"})\n"
    "  _wanted runs expl 'run' compadd -V runs -a runs\n"
    "}\n"
    "\n"
    "# A glob qualifier: $REPLY starts as an ELF file does.\n"
    "_kmrun_elf() {\n"
    "  local magic\n"
    "  IFS= read -r -u 0 -k 4 magic <$REPLY 2>/dev/null && [[ $magic == $'\\177ELF' ]]\n"
    "}\n"
    "\n";

static void zsh_action(FILE *out, const char *what, cmd_value value, const char *pattern,
                       const char *choices)
{
    switch (value_of(value, choices)) {
    case CMD_VALUE_FILE:
        fprintf(out, ":%s:_files", what);
        if (pattern) {
            fputs(" -g \"", out);
            single_quoted(out, pattern);
            fputc('"', out);
        }
        break;
    case CMD_VALUE_DIR:
        fprintf(out, ":%s:_files -/", what);
        break;
    case CMD_VALUE_ELF:
        fprintf(out, ":%s:_files -g \"*(-.+_kmrun_elf)\"", what);
        break;
    case CMD_VALUE_CHOICE:
        fprintf(out, ":%s:(", what);
        choice_words(out, choices);
        fputc(')', out);
        break;
    case CMD_VALUE_REGION:
        fprintf(out, ":%s:_kmrun_regions", what);
        break;
    case CMD_VALUE_RUN:
        fprintf(out, ":%s:_kmrun_runs", what);
        break;
    case CMD_VALUE_COMMAND:
        fprintf(out, ":%s:_kmrun_commands", what);
        break;
    case CMD_VALUE_TEXT:
        fprintf(out, ":%s: ", what);
        break;
    }
}

static void zsh_command(FILE *out, const cmd_command_entry *c)
{
    fprintf(out, "    (%s)\n      _arguments -s -S \\\n", c->name);
    const cmd_option *o;
    for (size_t i = 0; (o = cmd_option_listed(c, i)); i++) {
        /* --name=: the value after '=' or as the next word; --name=-:
         * after '=' only (an optional value); -l+: -lVALUE or -l VALUE. */
        const char *lsuffix = o->arg == CMD_ARG_NONE ? "" : "+";
        const char *suffix = o->arg == CMD_ARG_NONE       ? ""
                             : o->arg == CMD_ARG_OPTIONAL ? "=-"
                                                          : "=";
        if (o->letter)
            fprintf(out, "        '(-%c --%s)'{-%c%s,--%s%s}'[", o->letter, o->name, o->letter,
                    lsuffix, o->name, suffix);
        else
            fprintf(out, "        '--%s%s[", o->name, suffix);
        described(out, o->help, false);
        fputc(']', out);
        if (o->arg != CMD_ARG_NONE) {
            const char *what = o->arg_name ? o->arg_name : o->name;
            if (o->arg == CMD_ARG_OPTIONAL)
                fputc(':', out); /* "::": the value may be left out */
            zsh_action(out, what, o->value, o->pattern, o->choices);
        }
        fputs("' \\\n", out);
    }
    fputs("        '(- *)'{-h,--help}'[this command'\\''s help]'", out);
    for (const cmd_operand *op = c->operands; op && op->name; op++) {
        fputs(" \\\n        '", out);
        if (op->repeats)
            fputc('*', out);
        else if (op->optional)
            fputc(':', out);
        zsh_action(out, op->name, op->value, op->pattern, op->choices);
        fputc('\'', out);
    }
    fputs(" && ret=0\n      ;;\n", out);
}

static void complete_zsh(FILE *out)
{
    fprintf(out,
            "#compdef kmrun\n"
            "# zsh completion for kmrun, written by `kmrun completion zsh` (kmrun %s)\n",
            kmrun_version());
    fputs(zsh_head, out);
    fputs("_kmrun_commands() {\n  local -a commands\n  commands=(\n", out);
    for (unsigned i = 0; i < cmd_ncommands; i++) {
        fprintf(out, "    '%s:", cmd_commands[i].name);
        described(out, cmd_commands[i].summary, true);
        fputs("'\n", out);
    }
    fputs("  )\n  _describe -t commands 'kmrun command' commands\n}\n\n", out);
    fputs("_kmrun() {\n"
          "  local curcontext=$curcontext state line ret=1\n"
          "  local _kmrun_self=${words[1]/#\\~/$HOME}\n"
          "  [[ -x $_kmrun_self ]] || (( $+commands[$_kmrun_self] )) || _kmrun_self=kmrun\n"
          "  _arguments -C \\\n",
          out);
    for (const cmd_option *o = cmd_global_options; o->name; o++) {
        if (o->letter)
            fprintf(out, "    '(- *)'{-%c,--%s}'[", o->letter, o->name);
        else
            fprintf(out, "    '(- *)--%s[", o->name);
        described(out, o->help, false);
        fputs("]' \\\n", out);
    }
    fputs("    '1:command:_kmrun_commands' \\\n"
          "    '*:: :->args' && return 0\n"
          "  case $state in\n"
          "  (args)\n"
          "    curcontext=${curcontext%:*:*}:kmrun-$words[1]:\n"
          "    case $words[1] in\n",
          out);
    for (unsigned i = 0; i < cmd_ncommands; i++)
        zsh_command(out, &cmd_commands[i]);
    fputs("    esac\n"
          "    ;;\n"
          "  esac\n"
          "  return ret\n"
          "}\n"
          "\n"
          "# Autoloaded (compinit found this file in $fpath): complete now;\n"
          "# sourced: register.\n"
          "if [[ $funcstack[1] == _kmrun ]]; then\n"
          "  _kmrun \"$@\"\n"
          "else\n"
          "  compdef _kmrun kmrun\n"
          "fi\n",
          out);
}

/* ---- the lists -------------------------------------------------------------- */

static int list_options(const char *command)
{
    const cmd_command_entry *c = cmd_command_find(command);
    if (!c)
        return cmd_unknown_command(command);
    const cmd_option *o;
    for (size_t i = 0; (o = cmd_option_listed(c, i)); i++) {
        printf("--%s\n", o->name);
        if (o->letter)
            printf("-%c\n", o->letter);
    }
    return KMRUN_OK;
}

static int by_name_newest_first(const void *a, const void *b)
{
    return -strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run ids of the runs folder (kmrun_runs_folder): its folders that
 * hold a result.json, newest first (a run id starts with its time). */
static int list_runs(const char *run_dir)
{
    char *runs = kmrun_runs_folder(run_dir);
    DIR *d = runs ? opendir(runs) : NULL;
    if (!d) {
        if (runs && errno != ENOENT) {
            fprintf(stderr, "kmrun: cannot read the runs folder %s: %s\n", CMD_QUOTED(runs),
                    strerror(errno));
            free(runs);
            return KMRUN_SYSTEM;
        }
        free(runs);
        return KMRUN_OK; /* no run yet */
    }
    char **ids = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "latest") == 0)
            continue;
        char *result = NULL;
        struct stat st;
        if (asprintf(&result, "%s/%s/result.json", runs, e->d_name) < 0)
            break;
        bool whole = lstat(result, &st) == 0 && S_ISREG(st.st_mode);
        free(result);
        if (!whole)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **more = realloc(ids, cap * sizeof *ids);
            if (!more)
                break;
            ids = more;
        }
        ids[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(ids, n, sizeof *ids, by_name_newest_first);
    for (size_t i = 0; i < n; i++) {
        if (ids[i])
            printf("%s\n", ids[i]);
        free(ids[i]);
    }
    free(ids);
    free(runs);
    return KMRUN_OK;
}

static const char *name_of(const cJSON *region)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(region, "name"));
}

/* The region names of a run (kmrun_run_folder_find: `run`, else the
 * latest), each once, in regions.json's order. */
static int list_regions(const char *run_dir, const char *run)
{
    char *dir = NULL, *path = NULL, *text = NULL;
    kmrun_error *err = NULL;
    int rc = kmrun_run_folder_find(run_dir, run, &dir, &err);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
        return rc;
    }
    FILE *f = asprintf(&path, "%s/regions.json", dir) >= 0 ? fopen(path, "r") : NULL;
    size_t len = 0;
    if (f) {
        FILE *mem = open_memstream(&text, &len);
        char buf[4096];
        size_t got;
        while (mem && (got = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, got, mem);
        if (mem)
            fclose(mem);
        fclose(f);
    }
    cJSON *list = text ? cJSON_Parse(text) : NULL;
    if (!cJSON_IsArray(list)) {
        fprintf(stderr, "kmrun: cannot read the regions of the run %s\n", CMD_QUOTED(dir));
        rc = KMRUN_SYSTEM;
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, list) {
        const char *name = name_of(r);
        bool seen = false;
        for (const cJSON *q = list->child; name && q != r && !seen; q = q->next)
            seen = name_of(q) && strcmp(name, name_of(q)) == 0;
        if (name && !seen)
            printf("%s\n", name);
    }
    cJSON_Delete(list);
    free(text);
    free(path);
    free(dir);
    return rc;
}

int cmd_completion(int argc, char **argv)
{
    enum { SCRIPT, COMMANDS, OPTIONS, REGIONS, RUNS } what = SCRIPT;
    int asked = 0;
    const char *command = NULL, *run = NULL, *run_dir = NULL;
    cmd_opts o;
    cmd_opts_start(&o, "completion", argc, argv);
    int c;
    while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
        switch (c) {
        case 'C':
            what = COMMANDS;
            asked++;
            break;
        case 'O':
            what = OPTIONS;
            command = optarg;
            asked++;
            break;
        case 'g':
            what = REGIONS;
            asked++;
            break;
        case 'u':
            what = RUNS;
            asked++;
            break;
        case 'r':
            run = optarg;
            break;
        case 'R':
            run_dir = optarg;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (asked > 1)
        return cmd_usage_error("completion",
                               "--commands, --options, --regions and --runs are one at a time");
    if (run && what != REGIONS)
        return cmd_usage_error("completion", "--run is only for --regions");
    if (run_dir && what != REGIONS && what != RUNS)
        return cmd_usage_error("completion", "--run-dir is only for --regions and --runs");
    if (what != SCRIPT) {
        if (optind < argc)
            return cmd_usage_error("completion", "unexpected argument %s",
                                   CMD_QUOTED(argv[optind]));
        switch (what) {
        case COMMANDS:
            for (unsigned i = 0; i < cmd_ncommands; i++)
                printf("%s\n", cmd_commands[i].name);
            return KMRUN_OK;
        case OPTIONS:
            return list_options(command);
        case REGIONS:
            return list_regions(run_dir, run);
        default:
            return list_runs(run_dir);
        }
    }
    if (optind == argc)
        return cmd_usage_error("completion", "missing the shell (bash or zsh)");
    if (optind + 1 < argc)
        return cmd_usage_error("completion", "unexpected argument %s",
                               CMD_QUOTED(argv[optind + 1]));
    /* The shells of the table's operand, bash|zsh, in that order. */
    switch (cmd_choice_index(o.command->operands[0].choices, argv[optind])) {
    case 0:
        complete_bash(stdout);
        return KMRUN_OK;
    case 1:
        complete_zsh(stdout);
        return KMRUN_OK;
    default:
        return cmd_usage_error("completion", "unknown shell %s (expected bash or zsh)",
                               CMD_QUOTED(argv[optind]));
    }
}
