/* yaml_tree: a YAML document read with libyaml's event parser into a tree
 * with positions (yaml_tree.h). */
#include "yaml_tree.h"

/* The code of the reader's own errors (kmrun(3)). */
#define KM_YAML_CODE "manifest.yaml"
#include "km_program.h"
#include "ks_grow.h"
#include "ks_text.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct frame {
    km_yaml_node *node;
    km_yaml_node *key;  /* a mapping's key waiting for its value */
    bool drop_value;    /* the key was refused: drop the value too */
    /* A mapping's keys hashed (open addressing, pair index + 1; 0 empty),
     * so that finding a duplicate is not a walk over every earlier key:
     * a mapping of n keys would cost n^2/2 comparisons. */
    struct slot {
        size_t hash, index;
    } *slots;
    size_t cap; /* a power of two, or 0 */
    size_t room; /* items or pairs allocated: grown by ks_grow, not by one,
                  * since a realloc that has to move copies them all */
} frame;

typedef struct reader {
    const char *file;
    km_diags *diags;
    bool oom;
    km_yaml_node *root;
    frame stack[KM_YAML_MAX_DEPTH];
    int depth;
    int skipping;   /* levels of a refused (tagged) subtree still open */
    bool too_deep;  /* reading stopped there (km_yaml_load says why) */
} reader;

void km_yaml_free(km_yaml_node *node)
{
    if (!node)
        return;
    free(node->text);
    for (size_t i = 0; i < node->n; i++) {
        if (node->kind == KM_YAML_LIST) {
            km_yaml_free(node->items[i]);
        } else if (node->kind == KM_YAML_MAP) {
            km_yaml_free(node->pairs[i].key);
            km_yaml_free(node->pairs[i].value);
        }
    }
    free(node->items);
    free(node->pairs);
    km_blob_unref(node->blob);
    free(node);
}

static km_yaml_node *new_node(reader *r, km_yaml_kind kind, yaml_mark_t mark)
{
    km_yaml_node *n = calloc(1, sizeof *n);
    if (!n) {
        r->oom = true;
        return NULL;
    }
    n->kind = kind;
    n->line = (int)mark.line + 1;
    n->col = (int)mark.column + 1;
    return n;
}

/* Room for one more item or pair in f's node; false when memory runs out. */
static bool make_room(reader *r, frame *f, void **array, size_t size)
{
    if (ks_grow(array, &f->room, f->node->n + 1, size))
        return true;
    r->oom = true;
    return false;
}

static bool push_item(reader *r, frame *f, km_yaml_node *item)
{
    km_yaml_node *list = f->node;
    if (!make_room(r, f, (void **)&list->items, sizeof *list->items))
        return false;
    list->items[list->n++] = item;
    return true;
}

static bool push_pair(reader *r, frame *f, km_yaml_node *key,
                      km_yaml_node *value)
{
    km_yaml_node *map = f->node;
    if (!make_room(r, f, (void **)&map->pairs, sizeof *map->pairs))
        return false;
    map->pairs[map->n].key = key;
    map->pairs[map->n].value = value;
    map->n++;
    return true;
}

static size_t hash_text(const char *s)
{
    size_t h = 14695981039346656037u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h ^ h >> 29; /* FNV's low bits, the slot's, are its weakest */
}

/* The pair in f's mapping whose key is `text`, or NULL.  A slot keeps
 * the hash, so that a probe rarely has to reach the key. */
static const km_yaml_pair *hashed_pair(const frame *f, const char *text)
{
    if (!f->cap)
        return NULL;
    size_t h = hash_text(text);
    for (size_t i = h & (f->cap - 1);; i = (i + 1) & (f->cap - 1)) {
        if (!f->slots[i].index)
            return NULL;
        const km_yaml_pair *p = &f->node->pairs[f->slots[i].index - 1];
        if (f->slots[i].hash == h && strcmp(p->key->text, text) == 0)
            return p;
    }
}

static void put_slot(frame *f, size_t hash, size_t index)
{
    size_t i = hash & (f->cap - 1);
    while (f->slots[i].index)
        i = (i + 1) & (f->cap - 1);
    f->slots[i] = (struct slot){hash, index + 1};
}

/* Enters pair `index` of f's mapping, growing the table to keep it at
 * most half full; false when memory runs out. */
static bool hash_pair(frame *f, size_t index)
{
    if (2 * (index + 1) > f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16, old_cap = f->cap;
        struct slot *old = f->slots, *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return false;
        f->slots = slots;
        f->cap = cap;
        for (size_t k = 0; k < old_cap; k++)
            if (old[k].index)
                put_slot(f, old[k].hash, old[k].index - 1);
        free(old);
    }
    put_slot(f, hash_text(f->node->pairs[index].key->text), index);
    return true;
}

/* Hangs `node` (NULL: a value refused where it stands) under the open
 * container.  Takes ownership of node whatever happens. */
static void attach(reader *r, km_yaml_node *node)
{
    if (r->depth == 0) {
        if (r->root)
            km_yaml_free(r->root);
        r->root = node;
        return;
    }
    frame *f = &r->stack[r->depth - 1];
    if (f->node->kind == KM_YAML_LIST) {
        if (!node || !push_item(r, f, node))
            km_yaml_free(node);
        return;
    }
    if (!f->key && !f->drop_value) {
        if (!node) {
            f->drop_value = true;
        } else if (node->kind != KM_YAML_SCALAR) {
            km_diags_add_code(r->diags, KM_YAML_CODE, r->file, node->line, node->col,
                         "a %s as a mapping key (expected a plain key)",
                         node->kind == KM_YAML_MAP ? "mapping" : "list");
            km_yaml_free(node);
            f->drop_value = true;
        } else {
            f->key = node;
        }
        return;
    }
    km_yaml_node *key = f->key;
    f->key = NULL;
    if (f->drop_value) {
        f->drop_value = false;
        km_yaml_free(node);
        return;
    }
    if (!node) {
        /* An alias as a value: keep the key so that nobody reports it
         * missing, with a value that says it was already reported. */
        node = new_node(r, KM_YAML_SCALAR, (yaml_mark_t){0});
        if (!node || !(node->text = strdup(""))) {
            r->oom = true;
            km_yaml_free(node);
            km_yaml_free(key);
            return;
        }
        node->line = key->line;
        node->col = key->col;
        node->reported = true;
    }
    const km_yaml_pair *first = hashed_pair(f, key->text);
    if (first) {
        km_diags_add_code(r->diags, "manifest.duplicate-key", r->file, key->line, key->col,
                     "duplicate key '%s' (first at line %d)", key->text,
                     first->key->line);
        km_yaml_free(key);
        km_yaml_free(node);
        return;
    }
    if (!push_pair(r, f, key, node)) {
        km_yaml_free(key);
        km_yaml_free(node);
        return;
    }
    if (!hash_pair(f, f->node->n - 1))
        r->oom = true;
}

/* Explicit tags would let a value change its type under the schema's
 * nose; a manifest has no use for them. */
static bool refuse_tag(reader *r, const yaml_char_t *tag, yaml_mark_t mark)
{
    if (!tag)
        return false;
    /* Shown as written: libyaml expands "!!" to the standard prefix. */
    static const char standard[] = "tag:yaml.org,2002:";
    const char *t = (const char *)tag;
    bool is_standard = strncmp(t, standard, sizeof standard - 1) == 0;
    km_diags_add_code(r->diags, KM_YAML_CODE, r->file, (int)mark.line + 1, (int)mark.column + 1,
                 "unsupported tag '%s%s' (expected an untagged value)",
                 is_standard ? "!!" : "",
                 is_standard ? t + sizeof standard - 1 : t);
    return true;
}

static void on_scalar(reader *r, const yaml_event_t *ev)
{
    if (r->skipping)
        return;
    if (refuse_tag(r, ev->data.scalar.tag, ev->start_mark)) {
        attach(r, NULL);
        return;
    }
    km_yaml_node *n = new_node(r, KM_YAML_SCALAR, ev->start_mark);
    if (!n)
        return;
    if (strlen((const char *)ev->data.scalar.value) != ev->data.scalar.length) {
        km_diags_add_code(r->diags, KM_YAML_CODE, r->file, n->line, n->col,
                     "a string with a NUL character (expected text)");
        km_yaml_free(n);
        attach(r, NULL);
        return;
    }
    n->text = strdup((const char *)ev->data.scalar.value);
    if (!n->text) {
        r->oom = true;
        km_yaml_free(n);
        return;
    }
    n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    static const char styles[] = {[YAML_SINGLE_QUOTED_SCALAR_STYLE] = '\'',
                                  [YAML_DOUBLE_QUOTED_SCALAR_STYLE] = '"',
                                  [YAML_LITERAL_SCALAR_STYLE] = '|',
                                  [YAML_FOLDED_SCALAR_STYLE] = '>'};
    if ((unsigned)ev->data.scalar.style < sizeof styles)
        n->style = styles[ev->data.scalar.style];
    n->end_line = (int)ev->end_mark.line + 1;
    n->end_col = (int)ev->end_mark.column + 1;
    attach(r, n);
}

static void on_start(reader *r, const yaml_event_t *ev, km_yaml_kind kind)
{
    if (r->skipping) {
        r->skipping++;
        return;
    }
    const yaml_char_t *tag = kind == KM_YAML_MAP ? ev->data.mapping_start.tag
                                                 : ev->data.sequence_start.tag;
    if (r->depth == KM_YAML_MAX_DEPTH) {
        /* Reading stops here: libyaml keeps a possible key per open flow
         * level and looks at each of them for every token, so going on
         * through 100,000 levels would cost their square. */
        km_diags_add_code(r->diags, KM_YAML_CODE, r->file, (int)ev->start_mark.line + 1,
                     (int)ev->start_mark.column + 1,
                     "nesting deeper than %d levels (expected a manifest)",
                     KM_YAML_MAX_DEPTH);
        r->too_deep = true;
        return;
    }
    if (refuse_tag(r, tag, ev->start_mark)) {
        r->skipping = 1;
        return;
    }
    km_yaml_node *n = new_node(r, kind, ev->start_mark);
    if (!n)
        return;
    if (kind == KM_YAML_LIST && ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE)
        n->style = '[';
    if (kind == KM_YAML_MAP && ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE)
        n->style = '{';
    r->stack[r->depth++] = (frame){.node = n};
}

static void on_end(reader *r, const yaml_event_t *ev)
{
    if (r->skipping) {
        if (--r->skipping == 0)
            attach(r, NULL);
        return;
    }
    if (r->depth == 0)
        return;
    frame f = r->stack[--r->depth];
    f.node->end_line = (int)ev->end_mark.line + 1;
    f.node->end_col = (int)ev->end_mark.column + 1;
    km_yaml_free(f.key); /* only after an error in the document */
    free(f.slots);
    attach(r, f.node);
}

static void syntax_error(reader *r, const yaml_parser_t *p, const char *text,
                         size_t len)
{
    int line, col;
    if (p->error == YAML_READER_ERROR) {
        /* libyaml's reader errors carry a byte offset, not a mark. */
        ks_text_position(text, len, p->problem_offset, &line, &col);
        km_diags_add_code(r->diags, KM_YAML_CODE, r->file, line, col,
                     "yaml syntax error: %s (expected UTF-8 text)",
                     p->problem ? p->problem : "unreadable text");
        return;
    }
    line = (int)p->problem_mark.line + 1;
    col = (int)p->problem_mark.column + 1;
    if (p->context)
        km_diags_add_code(r->diags, KM_YAML_CODE, r->file, line, col,
                     "yaml syntax error: %s (%s at line %d)",
                     p->problem ? p->problem : "bad syntax", p->context,
                     (int)p->context_mark.line + 1);
    else
        km_diags_add_code(r->diags, KM_YAML_CODE, r->file, line, col, "yaml syntax error: %s",
                     p->problem ? p->problem : "bad syntax");
}

int km_yaml_load(const char *file, const char *text, size_t len,
                 km_yaml_node **root, km_diags *diags, km_error *err)
{
    *root = NULL;
    reader r = {.file = file, .diags = diags};
    size_t before = diags->count + diags->dropped;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading '%s'", file);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int documents = 0;
    bool done = false, broken = false;
    while (!done && !r.oom && !r.too_deep) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            if (parser.error == YAML_MEMORY_ERROR)
                r.oom = true;
            else
                syntax_error(&r, &parser, text, len);
            broken = true;
            break;
        }
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            if (++documents == 2) {
                km_diags_add_code(diags, KM_YAML_CODE, file, (int)ev.start_mark.line + 1,
                             (int)ev.start_mark.column + 1,
                             "a second YAML document (expected one document)");
                done = true;
            }
            break;
        case YAML_SCALAR_EVENT:
            on_scalar(&r, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
            on_start(&r, &ev, KM_YAML_LIST);
            break;
        case YAML_MAPPING_START_EVENT:
            on_start(&r, &ev, KM_YAML_MAP);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            on_end(&r, &ev);
            break;
        case YAML_ALIAS_EVENT:
            if (!r.skipping) {
                km_diags_add_code(diags, KM_YAML_CODE, file, (int)ev.start_mark.line + 1,
                             (int)ev.start_mark.column + 1,
                             "unsupported alias '*%s' (expected the value "
                             "written out)",
                             (const char *)ev.data.alias.anchor);
                attach(&r, NULL);
            }
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    /* Containers left open by a syntax error. */
    while (r.depth > 0) {
        frame *f = &r.stack[--r.depth];
        km_yaml_free(f->key);
        km_yaml_free(f->node);
        free(f->slots);
    }
    if (r.oom) {
        km_yaml_free(r.root);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading '%s'", file);
    }
    if (broken || r.too_deep) {
        km_yaml_free(r.root);
        return KM_EXIT_USAGE;
    }
    *root = r.root;
    return diags->count + diags->dropped != before ? KM_EXIT_USAGE : KM_OK;
}

static const km_yaml_pair *find(const km_yaml_node *map, const char *key)
{
    if (!map || map->kind != KM_YAML_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->pairs[i].key->text, key) == 0)
            return &map->pairs[i];
    return NULL;
}

const km_yaml_node *km_yaml_get(const km_yaml_node *map, const char *key)
{
    const km_yaml_pair *p = find(map, key);
    return p ? p->value : NULL;
}

const km_yaml_node *km_yaml_key(const km_yaml_node *map, const char *key)
{
    const km_yaml_pair *p = find(map, key);
    return p ? p->key : NULL;
}

static bool all_in(const char *s, const char *set)
{
    return *s && s[strspn(s, set)] == 0;
}

static bool one_of(const char *s, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, words[i]) == 0)
            return true;
    return false;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool is_float(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    static const char *const special[] = {".inf", ".Inf", ".INF"};
    if (one_of(s, special, 3))
        return true;
    size_t whole = strspn(s, "0123456789");
    s += whole;
    size_t frac = 0;
    if (*s == '.') {
        s++;
        frac = strspn(s, "0123456789");
        s += frac;
    }
    if (whole + frac == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        return all_in(s, "0123456789");
    }
    return *s == 0;
}

km_yaml_type km_yaml_scalar_type(const km_yaml_node *n)
{
    if (n->quoted)
        return KM_YAML_STR;
    const char *s = n->text;
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    static const char *const bools[] = {"true", "True", "TRUE",
                                        "false", "False", "FALSE"};
    static const char *const nans[] = {".nan", ".NaN", ".NAN"};
    if (one_of(s, nulls, 5))
        return KM_YAML_NULL;
    if (one_of(s, bools, 6))
        return KM_YAML_BOOL;
    if (strncmp(s, "0x", 2) == 0 && all_in(s + 2, "0123456789abcdefABCDEF"))
        return KM_YAML_INT;
    if (strncmp(s, "0o", 2) == 0 && all_in(s + 2, "01234567"))
        return KM_YAML_INT;
    if (all_in(s + (*s == '-' || *s == '+'), "0123456789"))
        return KM_YAML_INT;
    if (one_of(s, nans, 3) || is_float(s))
        return KM_YAML_FLOAT;
    return KM_YAML_STR;
}

const char *km_yaml_describe(const km_yaml_node *n)
{
    switch (n->kind) {
    case KM_YAML_MAP:
        return "a mapping";
    case KM_YAML_LIST:
        return "a list";
    case KM_YAML_SCALAR:
        break;
    }
    switch (km_yaml_scalar_type(n)) {
    case KM_YAML_NULL:
        return n->text[0] ? "null" : "nothing";
    case KM_YAML_BOOL:
        return "a boolean";
    case KM_YAML_INT:
    case KM_YAML_FLOAT:
        return "a number";
    case KM_YAML_STR:
        break;
    }
    return "a string";
}
