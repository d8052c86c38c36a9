/* build_commands: compile_commands.json, the JSON compilation database
 * clangd, clang-tidy and editors read (build_internal.h:
 * km_compile_commands_write).
 *
 * One entry a compile Ninja runs — every source of every thread image, of
 * the kernels and (with --host) of the host fallbacks — with the words of
 * build.ninja's (km_compile_words: the real compiler, flags and include
 * folders, the runtime's and the generated header's folders absolute), the
 * manifest's folder as `directory` (Ninja's, so `arguments` names the
 * source as the compiler sees it) and the source's absolute path as
 * `file`.  The generated header (kmrun_handlers.h) is written first, so
 * that every folder named exists.  Written beside the manifest under a
 * temporary name and renamed: a reader sees the old file or the new. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "km_fs.h"

/* The generated header in its folder, as a build makes it. */
static int write_header(km_build_ctx *b, km_error *err)
{
    int rc = km_mkdir_p(b->gen, err);
    if (rc != KM_OK)
        return rc;
    char *path = km_path_join(b->gen, KM_HANDLERS_HEADER);
    bool changed;
    rc = path ? km_write_file_if_changed(path, b->header, strlen(b->header), &changed, err)
              : km_fail(err, KM_EXIT_SYSTEM, "out of memory naming the handlers header");
    free(path);
    return rc;
}

/* One compile's entry; NULL when memory ran out. */
static cJSON *entry(const km_build_ctx *b, const km_target *t, size_t s, char **words,
                    size_t nwords)
{
    cJSON *o = cJSON_CreateObject();
    char *file = t->sources[s][0] == '/' ? strdup(t->sources[s])
                                         : km_path_join(b->root, t->sources[s]);
    bool ok = o && file && cJSON_AddStringToObject(o, "directory", b->root) &&
              cJSON_AddStringToObject(o, "file", file);
    free(file);
    cJSON *args = ok ? cJSON_AddArrayToObject(o, "arguments") : NULL;
    ok = args != NULL;
    for (size_t k = 0; ok && k < nwords; k++)
        ok = cJSON_AddItemToArray(args, cJSON_CreateString(words[k]));
    /* the rule's own words after the flags (build_ninja.c), but its
     * depfile: what a tool that reads this needs is the compile */
    const char *const tail[] = {"-c", t->sources[s], "-o", t->objs[s]};
    for (size_t k = 0; ok && k < sizeof tail / sizeof *tail; k++)
        ok = cJSON_AddItemToArray(args, cJSON_CreateString(tail[k]));
    if (!ok || !cJSON_AddStringToObject(o, "output", t->objs[s])) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int km_compile_commands_write(km_build_ctx *b, char **path, km_error *err)
{
    *path = NULL;
    int rc = write_header(b, err);
    if (rc != KM_OK)
        return rc;
    cJSON *doc = cJSON_CreateArray();
    for (size_t i = 0; i < b->ntargets; i++) {
        const km_target *t = &b->targets[i];
        size_t nwords;
        char **words = km_compile_words(b, t, &nwords);
        if (!words) {
            cJSON_Delete(doc);
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for compile_commands.json");
        }
        bool ok = doc != NULL;
        for (size_t s = 0; ok && s < t->nsources; s++)
            ok = cJSON_AddItemToArray(doc, entry(b, t, s, words, nwords));
        km_words_free(words, nwords);
        if (!ok) {
            cJSON_Delete(doc);
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for compile_commands.json");
        }
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for compile_commands.json");
    size_t len = strlen(text);
    char *with_newline = realloc(text, len + 2);
    if (!with_newline) {
        free(text);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for compile_commands.json");
    }
    with_newline[len++] = '\n';
    with_newline[len] = 0;
    char *file = km_path_join(b->root, "compile_commands.json");
    rc = file ? km_write_file_atomic(file, with_newline, len, err)
              : km_fail(err, KM_EXIT_SYSTEM, "out of memory for compile_commands.json");
    free(with_newline);
    if (rc != KM_OK) {
        free(file);
        return rc;
    }
    *path = file;
    return KM_OK;
}
