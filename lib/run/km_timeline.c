/* km_timeline: the recorder and writer of a run's timeline (km_timeline.h).
 *
 * Events are kept small (names interned once: a run has few distinct
 * names and many events) and sorted only when written. */
#include "km_timeline.h"
#include "ks_grow.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef enum ev_kind {
    EV_PROCESS, EV_TRACK, EV_SPAN, EV_INSTANT, EV_FLOW_S, EV_FLOW_F, EV_COUNTER
} ev_kind;

typedef struct ev {
    uint8_t kind; /* ev_kind */
    unsigned pid, tid;
    uint32_t name, cat, key; /* interned; key UINT32_MAX: no arg */
    uint64_t ps, end_ps;     /* EV_PROCESS: end_ps is the sort index */
    uint64_t arg;            /* flows: the id */
    uint64_t seq;            /* recording order: the sort's last key */
} ev;

struct km_timeline {
    ev *evs;
    uint64_t n;
    size_t cap;
    char **names;
    uint32_t nnames;
    size_t names_cap;
    bool failed; /* memory ran out: write reports it */
    uint64_t dropped; /* past KM_TIMELINE_MAX_EVENTS */
};

#define NO_KEY UINT32_MAX

km_timeline *km_timeline_new(void)
{
    return calloc(1, sizeof(km_timeline));
}

void km_timeline_free(km_timeline *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->evs);
    free(t);
}

/* A name's index; the names are few (tens), so a linear search is the
 * cheap and simple choice. */
static uint32_t intern(km_timeline *t, const char *s)
{
    if (!s)
        s = "";
    for (uint32_t i = t->nnames; i-- > 0;)
        if (strcmp(t->names[i], s) == 0)
            return i;
    if (!KS_GROW(t->names, t->names_cap, (size_t)t->nnames + 1)) {
        t->failed = true;
        return NO_KEY;
    }
    char *copy = strdup(s);
    if (!copy) {
        t->failed = true;
        return NO_KEY;
    }
    t->names[t->nnames] = copy;
    return t->nnames++;
}

static ev *add(km_timeline *t, ev_kind kind, unsigned pid, unsigned tid, const char *name,
               const char *cat)
{
    if (t->failed)
        return NULL;
    if (t->n >= KM_TIMELINE_MAX_EVENTS) {
        t->dropped++;
        return NULL;
    }
    if (!KS_GROW(t->evs, t->cap, t->n + 1)) {
        t->failed = true;
        return NULL;
    }
    uint32_t in = intern(t, name), ic = intern(t, cat);
    if (t->failed)
        return NULL;
    ev *e = &t->evs[t->n];
    *e = (ev){.kind = (uint8_t)kind, .pid = pid, .tid = tid, .name = in, .cat = ic,
              .key = NO_KEY, .seq = t->n};
    t->n++;
    return e;
}

void km_timeline_process(km_timeline *t, unsigned pid, const char *name, int sort)
{
    ev *e = add(t, EV_PROCESS, pid, 0, name, "");
    if (e)
        e->end_ps = (uint64_t)(int64_t)sort;
}

void km_timeline_track(km_timeline *t, unsigned pid, unsigned tid, const char *name)
{
    add(t, EV_TRACK, pid, tid, name, "");
}

static void set_arg(km_timeline *t, ev *e, const char *key, uint64_t arg)
{
    if (!key)
        return;
    e->key = intern(t, key);
    e->arg = arg;
}

void km_timeline_span(km_timeline *t, unsigned pid, unsigned tid, const char *name,
                      const char *cat, uint64_t begin_ps, uint64_t end_ps, const char *arg_key,
                      uint64_t arg)
{
    ev *e = add(t, EV_SPAN, pid, tid, name, cat);
    if (!e)
        return;
    e->ps = begin_ps;
    e->end_ps = end_ps > begin_ps ? end_ps : begin_ps;
    set_arg(t, e, arg_key, arg);
}

void km_timeline_instant(km_timeline *t, unsigned pid, unsigned tid, const char *name,
                         const char *cat, uint64_t ps, const char *arg_key, uint64_t arg)
{
    ev *e = add(t, EV_INSTANT, pid, tid, name, cat);
    if (!e)
        return;
    e->ps = ps;
    set_arg(t, e, arg_key, arg);
}

void km_timeline_counter(km_timeline *t, unsigned pid, const char *name, const char *key,
                         uint64_t ps, uint64_t value)
{
    ev *e = add(t, EV_COUNTER, pid, 0, name, "counter");
    if (!e)
        return;
    e->ps = ps;
    set_arg(t, e, key, value);
}

void km_timeline_flow(km_timeline *t, uint64_t id, const char *name, unsigned from_pid,
                      unsigned from_tid, uint64_t from_ps, unsigned to_pid, unsigned to_tid,
                      uint64_t to_ps)
{
    if (t->n + 1 >= KM_TIMELINE_MAX_EVENTS) { /* both ends or neither */
        t->dropped += 2;
        return;
    }
    ev *s = add(t, EV_FLOW_S, from_pid, from_tid, name, "flow");
    if (!s)
        return;
    s->ps = from_ps;
    s->arg = id;
    ev *f = add(t, EV_FLOW_F, to_pid, to_tid, name, "flow");
    if (!f)
        return; /* memory: write reports it */
    f->ps = to_ps;
    f->arg = id;
}

void km_timeline_lost(km_timeline *t, uint64_t n, bool failed)
{
    t->dropped += n;
    t->failed = t->failed || failed;
}

uint64_t km_timeline_dropped(const km_timeline *t)
{
    return t->dropped;
}

static int compare_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void km_timeline_clip(km_timeline *t, uint64_t end_ps)
{
    /* the flows with an end past end_ps, by id */
    uint64_t nlate = 0;
    for (uint64_t i = 0; i < t->n; i++)
        if ((t->evs[i].kind == EV_FLOW_S || t->evs[i].kind == EV_FLOW_F) && t->evs[i].ps > end_ps)
            nlate++;
    uint64_t *late = nlate ? malloc(nlate * sizeof *late) : NULL;
    if (nlate && !late) {
        t->failed = true;
        return;
    }
    nlate = 0;
    for (uint64_t i = 0; i < t->n; i++)
        if ((t->evs[i].kind == EV_FLOW_S || t->evs[i].kind == EV_FLOW_F) && t->evs[i].ps > end_ps)
            late[nlate++] = t->evs[i].arg;
    if (nlate)
        qsort(late, nlate, sizeof *late, compare_id);
    uint64_t kept = 0;
    for (uint64_t i = 0; i < t->n; i++) {
        ev *e = &t->evs[i];
        bool keep = true;
        if (e->kind == EV_SPAN || e->kind == EV_INSTANT || e->kind == EV_COUNTER)
            keep = e->ps <= end_ps;
        else if (e->kind == EV_FLOW_S || e->kind == EV_FLOW_F)
            keep = !(nlate && bsearch(&e->arg, late, nlate, sizeof *late, compare_id));
        if (!keep)
            continue;
        if (e->kind == EV_SPAN && e->end_ps > end_ps)
            e->end_ps = end_ps;
        t->evs[kept++] = *e;
    }
    t->n = kept;
    free(late);
}

uint64_t km_timeline_count(const km_timeline *t)
{
    return t->n;
}

/* Metadata first; then by time; at one time a span before an instant or a
 * flow step (which bind to the span around them), a longer span before a
 * shorter (the one that holds it), then the order of recording. */
static int order(const void *a, const void *b)
{
    const ev *x = a, *y = b;
    bool mx = x->kind <= EV_TRACK, my = y->kind <= EV_TRACK;
    if (mx != my)
        return mx ? -1 : 1;
    if (!mx && x->ps != y->ps)
        return x->ps < y->ps ? -1 : 1;
    bool sx = x->kind == EV_SPAN, sy = y->kind == EV_SPAN;
    if (!mx && sx != sy)
        return sx ? -1 : 1;
    if (sx && sy && x->end_ps != y->end_ps)
        return x->end_ps > y->end_ps ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void put_string(FILE *f, const char *s)
{
    putc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            putc(*p, f);
    }
    putc('"', f);
}

/* Picoseconds as microseconds, exactly. */
static void put_us(FILE *f, uint64_t ps)
{
    fprintf(f, "%" PRIu64 ".%06" PRIu64, ps / 1000000u, ps % 1000000u);
}

static void put_event(const km_timeline *t, const ev *e, FILE *f)
{
    static const char *const ph[] = {"M", "M", "X", "i", "s", "f", "C"};
    fprintf(f, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"name\":", ph[e->kind], e->pid,
            KM_TIMELINE_TID(e->pid, e->tid));
    if (e->kind == EV_PROCESS || e->kind == EV_TRACK) {
        fputs(e->kind == EV_PROCESS ? "\"process_name\"" : "\"thread_name\"", f);
        fputs(",\"args\":{\"name\":", f);
        put_string(f, t->names[e->name]);
        fputs("}}", f);
        if (e->kind == EV_PROCESS)
            fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"process_sort_"
                       "index\",\"args\":{\"sort_index\":%d}}",
                    e->pid, KM_TIMELINE_TID(e->pid, 0u), (int)(int64_t)e->end_ps);
        return;
    }
    put_string(f, t->names[e->name]);
    fputs(",\"cat\":", f);
    put_string(f, t->names[e->cat]);
    fputs(",\"ts\":", f);
    put_us(f, e->ps);
    if (e->kind == EV_SPAN) {
        fputs(",\"dur\":", f);
        put_us(f, e->end_ps - e->ps);
    } else if (e->kind == EV_INSTANT) {
        fputs(",\"s\":\"t\"", f);
    } else if (e->kind == EV_COUNTER) {
        /* its value is its arg */
    } else {
        fprintf(f, ",\"id\":%" PRIu64, e->arg);
        if (e->kind == EV_FLOW_F)
            fputs(",\"bp\":\"e\"", f);
    }
    if (e->key != NO_KEY) {
        fputs(",\"args\":{", f);
        put_string(f, t->names[e->key]);
        fprintf(f, ":%" PRIu64 "}", e->arg);
    }
    putc('}', f);
}

int km_timeline_write(const km_timeline *t, FILE *out, const char *subject, km_error *err)
{
    if (t->failed)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory recording the timeline '%s'",
                       subject);
    ev *sorted = malloc((t->n ? t->n : 1) * sizeof *sorted);
    if (!sorted)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory writing the timeline '%s'", subject);
    if (t->n)
        memcpy(sorted, t->evs, t->n * sizeof *sorted);
    qsort(sorted, t->n, sizeof *sorted, order);
    fprintf(out,
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"kmrun\",\"time\":"
            "\"modeled\",\"dropped\":%" PRIu64 "},\"traceEvents\":[\n",
            t->dropped);
    for (uint64_t i = 0; i < t->n; i++) {
        put_event(t, &sorted[i], out);
        fputs(i + 1 < t->n ? ",\n" : "\n", out);
    }
    fputs("]}\n", out);
    free(sorted);
    if (fflush(out) != 0 || ferror(out))
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the timeline '%s'", subject);
    return KM_OK;
}
