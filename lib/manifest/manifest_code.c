/* manifest_code: a program built in code as a manifest's document
 * (km_program_code.h), walked by the manifest's own readers and checks
 * (km_manifest_walk) each time a part is added. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "km_program_code.h"
#include "manifest_internal.h"

static km_yaml_node *scalar(const char *s, bool quoted)
{
    km_yaml_node *n = calloc(1, sizeof *n);
    if (!n || !(n->text = strdup(s ? s : ""))) {
        free(n);
        return NULL;
    }
    n->kind = KM_YAML_SCALAR;
    n->quoted = quoted;
    return n;
}

km_yaml_node *km_code_string(const char *s)
{
    return scalar(s, true);
}

km_yaml_node *km_code_plain(const char *s)
{
    return scalar(s, false);
}

km_yaml_node *km_code_uint(uint64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return scalar(text, false);
}

km_yaml_node *km_code_bool(bool v)
{
    return scalar(v ? "true" : "false", false);
}

static km_yaml_node *container(km_yaml_kind kind)
{
    km_yaml_node *n = calloc(1, sizeof *n);
    if (n)
        n->kind = kind;
    return n;
}

km_yaml_node *km_code_list(void)
{
    return container(KM_YAML_LIST);
}

km_yaml_node *km_code_map(void)
{
    return container(KM_YAML_MAP);
}

km_yaml_node *km_code_blob(const void *bytes, size_t n)
{
    km_yaml_node *node = scalar("<bytes>", true);
    if (node && !(node->blob = km_blob_new(bytes, n))) {
        km_yaml_free(node);
        return NULL;
    }
    return node;
}

bool km_code_push(km_yaml_node *list, km_yaml_node *item)
{
    km_yaml_node **items = item ? realloc(list->items, (list->n + 1) * sizeof *items) : NULL;
    if (!items) {
        km_yaml_free(item);
        return false;
    }
    list->items = items;
    list->items[list->n++] = item;
    return true;
}

bool km_code_put(km_yaml_node *map, const char *key, km_yaml_node *value)
{
    km_yaml_node *k = value ? km_code_string(key) : NULL;
    km_yaml_pair *pairs = k ? realloc(map->pairs, (map->n + 1) * sizeof *pairs) : NULL;
    if (!pairs) {
        km_yaml_free(k);
        km_yaml_free(value);
        return false;
    }
    map->pairs = pairs;
    map->pairs[map->n++] = (km_yaml_pair){k, value};
    return true;
}

/* The pair of `key` in a mapping, or NULL. */
static km_yaml_pair *pair_of(km_yaml_node *map, const char *key)
{
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->pairs[i].key->text, key) == 0)
            return &map->pairs[i];
    return NULL;
}

/* Drops the last pair of a mapping, or item of a list. */
static void pop(km_yaml_node *n)
{
    n->n--;
    if (n->kind == KM_YAML_MAP) {
        km_yaml_free(n->pairs[n->n].key);
        km_yaml_free(n->pairs[n->n].value);
    } else {
        km_yaml_free(n->items[n->n]);
    }
}

static int walk(km_code *c, bool whole, const char *label, km_diags *diags, km_error *err)
{
    km_program *p = NULL;
    int rc = km_manifest_walk(c->doc, label, true, NULL, c->root, whole,
                              diags->count + diags->dropped, &p, diags, err);
    if (rc != KM_OK)
        return rc;
    km_program_free(c->p);
    c->p = p;
    return KM_OK;
}

int km_code_new(km_code *c, const char *name, const char *root, km_diags *diags, km_error *err)
{
    memset(c, 0, sizeof *c);
    c->root = realpath(root, NULL);
    struct stat st;
    if (!c->root || stat(c->root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int rc = c->root ? km_fail(err, KM_EXIT_USAGE, "bad root '%s' (expected a folder)", root)
                         : km_fail_errno(err, KM_EXIT_USAGE, "bad root '%s'", root);
        km_code_free(c);
        return rc;
    }
    if (!(c->doc = km_code_map())) {
        km_code_free(c);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for a program");
    }
    int rc = km_code_add(c, KM_CODE_SET, "name", NULL, km_code_string(name), "program", diags,
                         err);
    if (rc != KM_OK)
        km_code_free(c);
    return rc;
}

int km_code_add(km_code *c, km_code_how how, const char *key, const char *entry,
                km_yaml_node *value, const char *label, km_diags *diags, km_error *err)
{
    if (!value)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for %s", label);
    km_yaml_pair *at = pair_of(c->doc, key);
    km_yaml_node *old = NULL, *holder = NULL;
    bool made = false;
    if (how == KM_CODE_SET && at) {
        old = at->value;
        at->value = value;
    } else if (how == KM_CODE_SET) {
        if (!km_code_put(c->doc, key, value))
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for %s", label);
        made = true;
    } else {
        km_yaml_kind kind = how == KM_CODE_APPEND ? KM_YAML_LIST : KM_YAML_MAP;
        if (!at) {
            if (!km_code_put(c->doc, key, container(kind))) {
                km_yaml_free(value);
                return km_fail(err, KM_EXIT_SYSTEM, "out of memory for %s", label);
            }
            made = true;
            at = &c->doc->pairs[c->doc->n - 1];
        }
        holder = at->value;
        /* A second entry of one name: the YAML reader's duplicate key. */
        if (how == KM_CODE_ENTRY && holder->kind == kind && pair_of(holder, entry)) {
            km_yaml_free(value);
            km_diags_add_code(diags, "manifest.duplicate", label, 0, 0, "duplicate %s '%s' (expected each name once)",
                         strcmp(key, "regions") == 0 ? "region" : "key", entry);
            return KM_EXIT_USAGE;
        }
        bool ok = holder->kind == kind &&
                  (how == KM_CODE_APPEND ? km_code_push(holder, value)
                                         : km_code_put(holder, entry, value));
        if (!ok) {
            if (holder->kind != kind)
                km_yaml_free(value);
            if (made)
                pop(c->doc);
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for %s", label);
        }
    }
    int rc = walk(c, false, label, diags, err);
    if (rc == KM_OK) {
        km_yaml_free(old);
        return KM_OK;
    }
    /* Refused: the document as it was. */
    if (holder)
        pop(holder);
    if (made)
        pop(c->doc);
    else if (old) {
        km_yaml_free(at->value);
        at->value = old;
    }
    return rc;
}

int km_code_check(km_code *c, const char *label, km_diags *diags, km_error *err)
{
    return walk(c, true, label, diags, err);
}

void km_code_free(km_code *c)
{
    km_yaml_free(c->doc);
    km_program_free(c->p);
    free(c->root);
    memset(c, 0, sizeof *c);
}
