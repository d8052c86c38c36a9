/* sim_print: records into text, buffers drained in time order (sim_print.h). */
#include "sim_print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmx_print_format.h"
#include "ks_grow.h"

typedef struct text {
    char *out;
    size_t cap, len;
} text;

static void put(text *t, char c)
{
    if (t->len + 1 < t->cap)
        t->out[t->len++] = c;
}

static void put_padded(text *t, const char *s, size_t n, const kmx_print_spec *sp, bool number)
{
    size_t pad = sp->width > n ? sp->width - n : 0;
    if (!sp->left && sp->zero && number) {
        /* Zeros go after a sign, as printf puts them. */
        if (n > 0 && s[0] == '-') {
            put(t, '-');
            s++;
            n--;
        }
        for (size_t i = 0; i < pad; i++)
            put(t, '0');
        pad = 0;
    }
    if (!sp->left)
        for (size_t i = 0; i < pad; i++)
            put(t, ' ');
    for (size_t i = 0; i < n; i++)
        put(t, s[i]);
    if (sp->left)
        for (size_t i = 0; i < pad; i++)
            put(t, ' ');
}

static size_t number_text(const kmx_print_spec *sp, uint64_t v, char *buf, size_t cap)
{
    int n;
    if (sp->conv == 'd')
        n = snprintf(buf, cap, "%lld", sp->wide ? (long long)v : (long long)(int32_t)v);
    else if (sp->conv == 'u')
        n = snprintf(buf, cap, "%llu", (unsigned long long)(sp->wide ? v : (uint32_t)v));
    else
        n = snprintf(buf, cap, "%llx", (unsigned long long)(sp->wide ? v : (uint32_t)v));
    return n > 0 ? (size_t)n : 0;
}

size_t sim_print_format(const char *format, const uint64_t *slots, unsigned nslots, bool cut,
                        char *out, size_t cap)
{
    text t = {out, cap, 0};
    unsigned at = 0;
    bool ended = false;
    for (const char *f = format; *f && !ended; f++) {
        if (*f != '%') {
            put(&t, *f);
            continue;
        }
        kmx_print_spec sp;
        kmx_print_parse(f, &sp);
        if (sp.conv == 0) {
            put(&t, '%');
            continue;
        }
        f += sp.length - 1;
        if (sp.conv == '%') {
            put(&t, '%');
            continue;
        }
        if (at >= nslots) {
            ended = true;
            break;
        }
        uint64_t v = slots[at++];
        if (sp.conv == 's') {
            uint64_t words = (v + 7u) / 8u;
            if (v > KMX_PRINT_STRING_MAX || words > nslots - at) {
                ended = true;
                break;
            }
            char s[KMX_PRINT_STRING_MAX];
            for (uint64_t i = 0; i < v; i++)
                s[i] = (char)(slots[at + i / 8u] >> (8u * (i % 8u)));
            at += (unsigned)words;
            put_padded(&t, s, (size_t)v, &sp, false);
        } else if (sp.conv == 'c') {
            char c = (char)v;
            put_padded(&t, &c, 1, &sp, false);
        } else {
            char buf[32];
            size_t n = number_text(&sp, v, buf, sizeof buf);
            put_padded(&t, buf, n, &sp, true);
        }
    }
    if (ended || cut) {
        put(&t, '.');
        put(&t, '.');
        put(&t, '.');
    }
    if (t.len > 0 && t.out[t.len - 1] == '\n')
        t.len--;
    for (size_t i = 0; i < t.len; i++)
        if ((unsigned char)t.out[i] < 0x20 && t.out[i] != '\t')
            t.out[i] = ' ';
        else if (t.out[i] == 0x7f)
            t.out[i] = ' ';
    if (cap > 0)
        t.out[t.len] = '\0';
    return t.len;
}

bool sim_print_put(kmx_print_buffer *b, const uint64_t *rec, unsigned n)
{
    uint32_t head = b->line.head;
    uint32_t used = head - b->line.tail;
    if (used > KMX_PRINT_SLOTS || n > KMX_PRINT_SLOTS - used) {
        b->line.dropped++;
        return false;
    }
    for (unsigned i = 0; i < n; i++)
        b->slots[(head + i) % KMX_PRINT_SLOTS] = rec[i];
    b->line.head = head + n;
    return true;
}

static void queue_add(sim_print_queue *q, const sim_print_item *item)
{
    if (!KS_GROW(q->items, q->cap, q->n + 1)) {
        free(item->text); /* out of memory: the print is lost, and said to be */
        q->lost = true;
        return;
    }
    q->items[q->n++] = *item;
}

void sim_print_drain_buffer(sim_print_queue *q, kmx_print_buffer *b, uint8_t kind,
                            unsigned cluster, unsigned core, uint64_t ps_per_when,
                            sim_print_read_format read, void *ctx)
{
    uint32_t head = b->line.head, tail = b->line.tail;
    if (head - tail > KMX_PRINT_SLOTS)
        tail = head; /* nonsense: nothing in it is believed */
    while (tail != head) {
        uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
        uint64_t h = b->slots[tail % KMX_PRINT_SLOTS];
        unsigned n = (unsigned)(h & 0xFFFFu);
        if ((h >> 16 & 0xFFFFu) != KMX_PRINT_MAGIC || n < KMX_PRINT_HEAD_SLOTS ||
            n > KMX_PRINT_RECORD_MAX_SLOTS || n > head - tail)
            break;
        for (unsigned i = 0; i < n; i++)
            rec[i] = b->slots[(tail + i) % KMX_PRINT_SLOTS];
        tail += n;
        char format[KMX_PRINT_FORMAT_MAX + 1];
        char line[1024];
        if (read(ctx, rec[1], format, sizeof format))
            sim_print_format(format, rec + KMX_PRINT_HEAD_SLOTS, n - KMX_PRINT_HEAD_SLOTS,
                             (rec[0] >> 32) & KMX_PRINT_CUT, line, sizeof line);
        else
            snprintf(line, sizeof line, "(a print whose format at 0x%llx cannot be read)",
                     (unsigned long long)rec[1]);
        sim_print_item item = {
            .ps = rec[2] * ps_per_when,
            .kind = kind,
            .cluster = (uint8_t)cluster,
            .core = (uint16_t)core,
            .sequence = q->drained++,
            .text = strdup(line),
        };
        if (item.text)
            queue_add(q, &item);
        else
            q->lost = true;
    }
    b->line.tail = head;
}

static int by_time(const void *pa, const void *pb)
{
    const sim_print_item *a = pa, *b = pb;
    if (a->ps != b->ps)
        return a->ps < b->ps ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->cluster != b->cluster)
        return a->cluster < b->cluster ? -1 : 1;
    if (a->core != b->core)
        return a->core < b->core ? -1 : 1;
    return a->sequence < b->sequence ? -1 : a->sequence > b->sequence;
}

void sim_print_flush(sim_print_queue *q, void (*fn)(const sim_print_item *item, void *ctx),
                     void *ctx)
{
    if (q->n > 1)
        qsort(q->items, q->n, sizeof *q->items, by_time);
    for (size_t i = 0; i < q->n; i++) {
        if (fn)
            fn(&q->items[i], ctx);
        free(q->items[i].text);
    }
    q->n = 0;
}

void sim_print_queue_free(sim_print_queue *q)
{
    sim_print_flush(q, NULL, NULL);
    free(q->items);
    memset(q, 0, sizeof *q);
}
