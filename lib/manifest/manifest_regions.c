/* manifest_regions: a region and its initial contents, the four forms of
 * the manifest (manifest_internal.h):
 *   name: 4KiB                      zeros
 *   name: {file: F[, size: S]}      the file's bytes, then zeros
 *   name: {words: [..][, size: S]}  32-bit words, then zeros
 *   name: {fill: W, size: S}        a repeated word
 *   name: {size: S}                 zeros
 * any of them (a mapping) with `placement: interleaved` and an optional
 * `page_size` (program regions only: the thread reader refuses them),
 * and, only in a document built in code (km_program_code.h), one more:
 *   name: {bytes: B[, size: S]}     bytes given in memory, then zeros */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest_internal.h"

#define REGION_EXPECTED "a size, or a mapping with file, words, fill or size"

/* bytes last: only a document built in code has it. */
static const char *const region_keys[] = {"file", "words", "fill", "size", "placement",
                                          "page_size", "bytes"};
#define REGION_KEYS 6

/* placement: bank (the default: pages of the thread's bank) or
 * interleaved, with page_size: a multiple of 64 bytes (the card's DRAM
 * alignment), at most 1 MiB. */
static void read_placement(km_mctx *c, const km_yaml_node *map, km_region *r)
{
    const km_yaml_node *place = km_yaml_get(map, "placement");
    const km_yaml_node *page = km_yaml_get(map, "page_size");
    if (place) {
        r->placement_pos = (km_pos){place->line, place->col};
        if (!km_mis_string(c, place, "placement", "bank or interleaved"))
            return;
        if (strcmp(place->text, "interleaved") == 0)
            r->interleaved = true;
        else if (strcmp(place->text, "bank") != 0) {
            km_mdiag_code(c, "manifest.bad-value", place,
                          "bad placement '%s' of region '%s' (expected bank or interleaved)",
                          place->text, r->name ? r->name : "");
            return;
        }
    }
    r->page_size = KM_PAGE_SIZE_DEFAULT;
    if (!page)
        return;
    uint64_t size;
    if (!km_msize(c, page, "page_size", &size))
        return;
    if (!r->interleaved)
        km_mdiag_code(c, "manifest.rule", page,
                      "page_size in region '%s' without placement: interleaved (expected it "
                      "only on an interleaved region)",
                      r->name ? r->name : "");
    else if (size % 64u != 0 || size > (1u << 20))
        km_mdiag_code(c, "manifest.bad-value", page,
                      "bad page_size '%s' of region '%s' (expected a multiple of 64 bytes, "
                      "at most 1MiB)",
                      page->text, r->name ? r->name : "");
    else
        r->page_size = (uint32_t)size;
}

static bool is_content_key(const char *key)
{
    return strcmp(key, "file") == 0 || strcmp(key, "words") == 0 ||
           strcmp(key, "fill") == 0 || strcmp(key, "bytes") == 0;
}

/* Bytes given in memory (built in code): the rules of a file's bytes. */
static void read_bytes(km_mctx *c, const km_yaml_node *bytes,
                       const km_yaml_node *size_node, bool size_ok,
                       uint64_t size, km_region *r)
{
    const char *name = r->name ? r->name : "";
    if (!bytes->blob) {
        km_mdiag_code(c, "manifest.bad-value", bytes, "bad bytes in region '%s' (expected bytes given "
                           "in memory)",
                 name);
        return;
    }
    uint64_t n = bytes->blob->n;
    r->bytes = km_blob_ref(bytes->blob);
    if (size_node) {
        if (size_ok && size < n)
            km_mdiag_code(c, "manifest.bad-value", size_node, "bad size '%s' of region '%s' (expected at "
                                   "least its %" PRIu64 " bytes of initial "
                                   "contents)",
                     size_node->text, name, n);
        return;
    }
    if (n == 0)
        km_mdiag(c, bytes, "region '%s' has no initial bytes (expected at "
                           "least 4, or a size)",
                 name);
    else if (n > KM_REGION_MAX_BYTES)
        km_mdiag(c, bytes, "region '%s' has %" PRIu64 " bytes of initial "
                           "contents (expected at most 4 GiB)",
                 name, n);
    else if (n % 4)
        km_mdiag(c, bytes, "region '%s' has %" PRIu64 " bytes of initial "
                           "contents (expected a multiple of 4, or a size to "
                           "pad it to)",
                 name, n);
    else
        r->size = n;
}

static void read_file(km_mctx *c, const km_yaml_node *file,
                      const km_yaml_node *size_node, bool size_ok,
                      uint64_t size, km_region *r)
{
    uint64_t bytes = 0;
    r->file = km_mfile(c, file, "region file", &bytes);
    if (!r->file)
        return;
    if (size_node) {
        if (size_ok && size < bytes)
            km_mdiag_code(c, "manifest.bad-value", size_node, "bad size '%s' (expected at least the "
                                   "%" PRIu64 " bytes of file '%s')",
                     size_node->text, bytes, file->text);
        return;
    }
    if (bytes == 0)
        km_mdiag(c, file, "region file '%s' is empty (expected at least 4 "
                          "bytes, or a size)",
                 file->text);
    else if (bytes > KM_REGION_MAX_BYTES)
        km_mdiag(c, file, "region file '%s' is larger than 4 GiB (expected at "
                          "most 4 GiB)",
                 file->text);
    else if (bytes % 4)
        km_mdiag(c, file, "region file '%s' is %" PRIu64 " bytes (expected a "
                          "multiple of 4, or a size to pad it to)",
                 file->text, bytes);
    else
        r->size = bytes;
}

static void read_words(km_mctx *c, const km_yaml_node *words,
                       const km_yaml_node *size_node, bool size_ok,
                       uint64_t size, km_region *r)
{
    if (!km_mis_list(c, words, "words", "a list of 32-bit words"))
        return;
    r->words = km_mcalloc(c, words->n, sizeof *r->words);
    if (!r->words)
        return;
    for (size_t i = 0; i < words->n; i++)
        if (km_mu32(c, words->items[i], "word", &r->words[r->nwords]))
            r->nwords++;
    uint64_t need = 4 * (uint64_t)words->n;
    if (size_node) {
        if (size_ok && size < need)
            km_mdiag_code(c, "manifest.bad-value", size_node, "bad size '%s' (expected at least %" PRIu64
                                   " bytes for %zu words)",
                     size_node->text, need, words->n);
    } else if (words->n == 0) {
        km_mdiag(c, words, "empty words in region '%s' (expected at least one "
                           "word, or a size)",
                 r->name ? r->name : "");
    } else if (need > KM_REGION_MAX_BYTES) {
        km_mdiag_code(c, "manifest.too-many", words, "too many words in region '%s' (expected at most "
                           "4 GiB of them)",
                 r->name ? r->name : "");
    } else {
        r->size = need;
    }
}

void km_read_region(km_mctx *c, const km_yaml_node *key,
                    const km_yaml_node *value, km_region *r)
{
    r->name = km_mstrdup(c, key->text);
    r->pos = (km_pos){key->line, key->col};
    r->init = KM_INIT_ZERO;
    r->page_size = KM_PAGE_SIZE_DEFAULT;
    if (!km_is_identifier(key->text) || strlen(key->text) > KM_NAME_MAX)
        km_mdiag_code(c, "manifest.bad-value", key, "bad region name '%s' (expected a C identifier of "
                         "at most %d characters)",
                 key->text, KM_NAME_MAX);
    if (value->kind == KM_YAML_SCALAR) {
        uint64_t size;
        if (km_msize(c, value, "size", &size))
            r->size = size;
        return;
    }
    char what[KM_NAME_MAX + 32], where[KM_NAME_MAX + 32];
    snprintf(what, sizeof what, "region '%.*s'", KM_NAME_MAX, key->text);
    snprintf(where, sizeof where, "in region '%.*s'", KM_NAME_MAX, key->text);
    if (!km_mis_map(c, value, what, REGION_EXPECTED))
        return;
    /* bytes: only in a document built in code. */
    km_mkeys(c, value, region_keys, c->code ? REGION_KEYS + 1 : REGION_KEYS, where);
    read_placement(c, value, r);
    const km_yaml_node *content = NULL, *content_key = NULL;
    for (size_t i = 0; i < value->n; i++) {
        const km_yaml_node *k = value->pairs[i].key;
        if (!is_content_key(k->text) || (!c->code && strcmp(k->text, "bytes") == 0))
            continue;
        if (content_key) {
            km_mdiag(c, k, "region '%s' has both '%s' and '%s' (expected one "
                           "of file, words and fill)",
                     key->text, content_key->text, k->text);
            continue;
        }
        content_key = k;
        content = value->pairs[i].value;
    }
    const km_yaml_node *size_node = km_yaml_get(value, "size");
    uint64_t size = 0;
    bool size_ok = size_node && km_msize(c, size_node, "size", &size);
    if (size_ok)
        r->size = size;
    if (!content) {
        if (!size_node)
            km_mmissing(c, value, "size", where,
                        "a size, or file, words or fill");
        return;
    }
    if (strcmp(content_key->text, "file") == 0) {
        r->init = KM_INIT_FILE;
        read_file(c, content, size_node, size_ok, size, r);
    } else if (strcmp(content_key->text, "bytes") == 0) {
        r->init = KM_INIT_BYTES;
        read_bytes(c, content, size_node, size_ok, size, r);
    } else if (strcmp(content_key->text, "words") == 0) {
        r->init = KM_INIT_WORDS;
        read_words(c, content, size_node, size_ok, size, r);
    } else {
        r->init = KM_INIT_FILL;
        km_mu32(c, content, "fill", &r->fill);
        if (!size_node)
            km_mmissing(c, value, "size", where, "the size to fill");
    }
}

km_region *km_read_regions(km_mctx *c, const km_yaml_node *map,
                           const char *what, size_t *count)
{
    *count = 0;
    if (!km_mis_map(c, map, what, "a mapping of region names to sizes or "
                                  "contents"))
        return NULL;
    km_region *r = km_mcalloc(c, map->n, sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        km_read_region(c, map->pairs[i].key, map->pairs[i].value,
                       &r[(*count)++]);
    km_check_region_names(c, r, *count);
    return r;
}
