/* km_profile: the profile's rows, from the simulator and in the run folder
 * (km_profile.h). */
#include "km_profile.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_fs.h"
#include "km_json.h"
#include "km_symbols.h"
#include "ks_grow.h"
#include "sim_profile.h"

void km_profile_free(km_profile *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->rows[i].stack);
    free(p->rows);
    memset(p, 0, sizeof *p);
}

static int oom(km_error *err)
{
    return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the profile");
}

/* Appends a row that owns `stack`. */
static int append(km_profile *p, char *stack, uint64_t cycles, uint64_t instructions,
                  uint64_t stalls, uint64_t traps, km_error *err)
{
    if (!stack)
        return oom(err);
    if (!KS_GROW(p->rows, p->cap, p->n + 1)) {
        free(stack);
        return oom(err);
    }
    p->rows[p->n++] = (km_profile_row){stack, cycles, instructions, stalls, traps};
    return KM_OK;
}

int km_profile_add(km_profile *p, const char *stack, uint64_t cycles, uint64_t instructions,
                   uint64_t memory_stall_cycles, uint64_t traps, km_error *err)
{
    return append(p, strdup(stack), cycles, instructions, memory_stall_cycles, traps, err);
}

static int by_stack(const void *a, const void *b)
{
    return strcmp(((const km_profile_row *)a)->stack, ((const km_profile_row *)b)->stack);
}

void km_profile_sort(km_profile *p)
{
    if (p->n == 0)
        return;
    qsort(p->rows, p->n, sizeof *p->rows, by_stack);
    size_t w = 0;
    for (size_t i = 1; i < p->n; i++) {
        km_profile_row *to = &p->rows[w], *r = &p->rows[i];
        if (strcmp(to->stack, r->stack) == 0) {
            to->cycles += r->cycles;
            to->instructions += r->instructions;
            to->memory_stall_cycles += r->memory_stall_cycles;
            to->traps += r->traps;
            free(r->stack);
        } else {
            p->rows[++w] = *r;
        }
    }
    p->n = w + 1;
}

/* ---- from the simulator ------------------------------------------------------ */

typedef struct raw_row {
    uint64_t *frames;
    unsigned n, cluster, core;
    sim_profile_count count;
} raw_row;

typedef struct raw {
    raw_row *rows;
    size_t n, cap;
    unsigned cluster, core; /* the one being taken */
    bool failed;
} raw;

static void take_row(void *ctx, const uint64_t *frames, unsigned n, const sim_profile_count *c)
{
    raw *r = ctx;
    if (r->failed)
        return;
    if (!KS_GROW(r->rows, r->cap, r->n + 1)) {
        r->failed = true;
        return;
    }
    uint64_t *f = malloc(n * sizeof *f);
    if (!f) {
        r->failed = true;
        return;
    }
    memcpy(f, frames, n * sizeof *f);
    r->rows[r->n++] = (raw_row){f, n, r->cluster, r->core, *c};
}

/* A frame's name: "function (file:line)", else what is known of it.
 * The folded format's separators (';' and the last space's role) are
 * kept out of names: ';' becomes ','. */
static void frame_name(const km_source *s, uint64_t addr, char *buf, size_t n)
{
    if (s->known && s->has_function)
        snprintf(buf, n, "%s (%s:%u)", s->function, s->file, s->line);
    else if (s->known)
        snprintf(buf, n, "0x%" PRIx64 " (%s:%u)", addr, s->file, s->line);
    else if (s->has_function)
        snprintf(buf, n, "%s", s->function);
    else
        snprintf(buf, n, "0x%" PRIx64, addr);
    for (char *c = buf; *c; c++)
        if (*c == ';' || *c == '\n')
            *c = ',';
}

/* Appends text to the growing string *s (length *len). */
static bool put(char **s, size_t *len, size_t *cap, const char *text)
{
    size_t k = strlen(text);
    if (!ks_grow((void **)s, cap, *len + k + 1, 1))
        return false;
    memcpy(*s + *len, text, k + 1);
    *len += k;
    return true;
}

int km_profile_add_clusters(km_profile *p, unsigned n, const unsigned *clusters,
                            const struct sim_profile *const (*sp)[4], const char *image,
                            const char *memo, km_error *err)
{
    raw r = {0};
    for (unsigned k = 0; k < n; k++) {
        for (unsigned core = 0; core < 4; core++) {
            r.cluster = clusters[k];
            r.core = core;
            if (sp[k][core])
                sim_profile_each(sp[k][core], take_row, &r);
        }
    }
    size_t naddr = 0;
    for (size_t i = 0; i < r.n; i++)
        naddr += r.rows[i].n;
    uint64_t *addrs = malloc((naddr ? naddr : 1) * sizeof *addrs);
    km_source *src = NULL;
    int rc = r.failed || !addrs ? oom(err) : KM_OK;
    size_t k = 0;
    if (rc == KM_OK) {
        for (size_t i = 0; i < r.n; i++)
            for (unsigned j = 0; j < r.rows[i].n; j++)
                addrs[k++] = r.rows[i].frames[j] & ~SIM_PROFILE_TRAP_FRAME;
        k = km_addresses_unique(addrs, k);
        src = calloc(k ? k : 1, sizeof *src);
        if (!src)
            rc = oom(err);
        else if (image)
            km_source_lookup_many(image, memo, addrs, k, src);
    }
    char name[900];
    for (size_t i = 0; rc == KM_OK && i < r.n; i++) {
        char *s = NULL;
        size_t len = 0, cap = 0;
        char head[32];
        snprintf(head, sizeof head, "%u.%u", r.rows[i].cluster, r.rows[i].core);
        bool ok = put(&s, &len, &cap, head);
        for (unsigned j = 0; ok && j < r.rows[i].n; j++) {
            uint64_t f = r.rows[i].frames[j], a = f & ~SIM_PROFILE_TRAP_FRAME;
            const uint64_t *at = bsearch(&a, addrs, k, sizeof *addrs, km_address_cmp);
            frame_name(&src[at - addrs], a, name, sizeof name);
            ok = put(&s, &len, &cap, ";") && put(&s, &len, &cap, name) &&
                 (!(f & SIM_PROFILE_TRAP_FRAME) || put(&s, &len, &cap, " [trap]"));
        }
        if (!ok) {
            free(s);
            s = NULL;
        }
        const sim_profile_count *c = &r.rows[i].count;
        rc = append(p, s, c->cycles, c->instructions, c->memory_stall_cycles, c->traps, err);
    }
    for (size_t i = 0; i < r.n; i++)
        free(r.rows[i].frames);
    free(r.rows);
    free(addrs);
    free(src);
    return rc;
}

/* ---- the files ------------------------------------------------------------------ */

int km_profile_write_folded(const km_profile *p, FILE *f)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->rows[i].cycles &&
            fprintf(f, "%s %" PRIu64 "\n", p->rows[i].stack, p->rows[i].cycles) < 0)
            return -1;
    return 0;
}

char *km_profile_json(const km_profile *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *a = o ? cJSON_AddArrayToObject(o, "stacks") : NULL;
    bool ok = a != NULL;
    for (size_t i = 0; ok && i < p->n; i++) {
        const km_profile_row *r = &p->rows[i];
        cJSON *e = cJSON_CreateObject();
        ok = e && cJSON_AddItemToArray(a, e) && cJSON_AddStringToObject(e, "stack", r->stack) &&
             cJSON_AddNumberToObject(e, "cycles", (double)r->cycles) &&
             cJSON_AddNumberToObject(e, "instructions", (double)r->instructions) &&
             cJSON_AddNumberToObject(e, "memory_stall_cycles", (double)r->memory_stall_cycles) &&
             cJSON_AddNumberToObject(e, "traps", (double)r->traps);
    }
    char *text = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    return text;
}

int km_profile_parse_folded(km_profile *p, const char *text, km_error *err)
{
    unsigned lineno = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        lineno++;
        if (len) {
            const char *sp = NULL;
            for (size_t i = len; i-- > 0;)
                if (line[i] == ' ') {
                    sp = line + i;
                    break;
                }
            char *stop = NULL;
            unsigned long long v = sp ? strtoull(sp + 1, &stop, 10) : 0;
            if (!sp || sp == line || stop != line + len || sp[1] < '0' || sp[1] > '9')
                return km_fail(err, KM_EXIT_SYSTEM,
                               "the profile is damaged: line %u is not 'STACK COUNT'", lineno);
            int rc = append(p, strndup(line, (size_t)(sp - line)), v, 0, 0, 0, err);
            if (rc != KM_OK)
                return rc;
        }
        line += len + (end != NULL);
    }
    return KM_OK;
}

static int parse_json(km_profile *p, const char *text, km_error *err)
{
    km_json_mark m = km_json_watch();
    cJSON *o = cJSON_Parse(text);
    if (!o && km_json_ran_out(m))
        return oom(err);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "stacks");
    int rc = cJSON_IsArray(a) ? KM_OK
                              : km_fail(err, KM_EXIT_SYSTEM,
                                        "the profile is damaged: 'profile.json' has no stacks");
    const cJSON *e;
    cJSON_ArrayForEach(e, a) {
        if (rc != KM_OK)
            break;
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "stack");
        const char *keys[4] = {"cycles", "instructions", "memory_stall_cycles", "traps"};
        uint64_t v[4] = {0};
        bool ok = cJSON_IsString(s);
        for (unsigned i = 0; ok && i < 4; i++) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, keys[i]);
            ok = cJSON_IsNumber(n) && n->valuedouble >= 0;
            if (ok)
                v[i] = (uint64_t)n->valuedouble;
        }
        rc = ok ? km_profile_add(p, s->valuestring, v[0], v[1], v[2], v[3], err)
                : km_fail(err, KM_EXIT_SYSTEM,
                          "the profile is damaged: a stack of 'profile.json' lacks its counts");
    }
    cJSON_Delete(o);
    return rc;
}

int km_profile_read(km_profile *p, const char *folder, km_error *err)
{
    char *json = km_path_join(folder, "profile.json");
    char *folded = km_path_join(folder, "profile.folded");
    char *text = NULL;
    size_t n = 0;
    km_error ignored = {0};
    int rc;
    if (!json || !folded)
        rc = oom(err);
    else if (km_read_file(json, &text, &n, &ignored) == KM_OK)
        rc = parse_json(p, text, err);
    else if (km_read_file(folded, &text, &n, &ignored) == KM_OK)
        rc = km_profile_parse_folded(p, text, err);
    else
        rc = km_fail(err, KM_EXIT_USAGE,
                     "the run in '%s' has no profile: run it with 'kmrun run --profile'", folder);
    free(text);
    free(json);
    free(folded);
    if (rc == KM_OK)
        km_profile_sort(p);
    return rc;
}

/* ---- frames ------------------------------------------------------------------- */

void km_profile_core_of(const char *stack, const char **start, size_t *len)
{
    const char *semi = strchr(stack, ';');
    *start = stack;
    *len = semi ? (size_t)(semi - stack) : strlen(stack);
}

void km_profile_leaf_of(const char *stack, const char **start, size_t *len)
{
    const char *semi = strrchr(stack, ';');
    *start = semi ? semi + 1 : stack;
    *len = strlen(*start);
}

bool km_profile_on_core(const km_profile_row *r, const char *core)
{
    if (!core)
        return true;
    const char *s;
    size_t n;
    km_profile_core_of(r->stack, &s, &n);
    return strlen(core) == n && memcmp(core, s, n) == 0;
}

/* One file of the profile into `folder`. */
static int write_in(const char *folder, const char *name, const char *text, size_t n,
                    km_error *err)
{
    char *path = km_path_join(folder, name);
    int rc = path ? km_write_file_atomic(path, text, n, err)
                  : km_fail(err, KM_EXIT_SYSTEM, "out of memory for the profile");
    free(path);
    return rc;
}

int km_profile_save(km_profile *p, const char *folder, km_error *err)
{
    char *folded = NULL, *json = NULL;
    size_t n = 0;
    km_profile_sort(p);
    FILE *f = open_memstream(&folded, &n);
    int rc = KM_OK;
    if (!f || km_profile_write_folded(p, f) != 0 || fclose(f) != 0 || !(json = km_profile_json(p)))
        rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory for the profile");
    if (rc == KM_OK)
        rc = write_in(folder, "profile.folded", folded, n, err);
    if (rc == KM_OK)
        rc = write_in(folder, "profile.json", json, strlen(json), err);
    free(folded);
    free(json);
    return rc;
}
