/* km_wild: the card's wild writes, named (km_wild.h). */
#include "km_wild.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "km_run_json.h"
#include "kmx_layout.h"
#include "ks_text.h"

void km_wild_name(const sim_wild_write *rec, km_wild_write *out)
{
    memset(out, 0, sizeof *out);
    out->writer.kind = KM_SITE_X280;
    out->writer.cluster = rec->cluster;
    out->writer.core = rec->core;
    out->writer.pc = rec->pc;
    out->writer.caller = rec->caller;
    out->writer.ps = rec->first_ps;
    out->target = rec->target;
    out->x = rec->x;
    out->y = rec->y;
    out->first = rec->first;
    out->end = rec->end;
    out->bytes = rec->bytes;
    out->stores = rec->stores;
    out->last_ps = rec->last_ps;
}

/* "thread/wild.c:31", else "pc 0x80001a4". */
static void where(const km_site *s, char *out, size_t n)
{
    if (s->source.known)
        snprintf(out, n, "%s:%u", s->source.file, s->source.line);
    else
        snprintf(out, n, "pc 0x%" PRIx64, s->pc);
}

/* 4096 -> "4,096". */
static void thousands(uint64_t v, char *out, size_t n)
{
    char digits[32];
    int k = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t at = 0;
    for (int i = 0; i < k && at + 2 < n; i++) {
        if (i > 0 && (k - i) % 3 == 0)
            out[at++] = ',';
        out[at++] = digits[i];
    }
    out[at] = 0;
}

int km_wild_line(const km_wild_write *w, char *out, size_t n)
{
    ks_text t = {{0}, 0};
    if (w->writer.source.known)
        ks_text_add(&t, "%s:%u: ", w->writer.source.file, w->writer.source.line);
    else
        ks_text_add(&t, "?: ");
    char bytes[40], us[40];
    thousands(w->bytes, bytes, sizeof bytes);
    km_ps_us_text(w->writer.ps, us, sizeof us);
    ks_text_add(&t, "wild write: cluster %d core %u wrote %s byte%s into ", w->writer.cluster,
                w->writer.core, bytes, w->bytes == 1 ? "" : "s");
    if (w->target == 0)
        ks_text_add(&t, "the dispatcher's local memory (cluster 0");
    else
        ks_text_add(&t, "cluster %d's local memory (", w->target);
    ks_text_add(&t, "%stile (%u, %u), 0x%" PRIx64 "..0x%" PRIx64 ", %" PRIu32 " store%s from %s "
                "\xc2\xb5s) through a NoC window; ",
                w->target == 0 ? ", " : "", w->x, w->y, w->first, w->end - 1, w->stores,
                w->stores == 1 ? "" : "s", us);
    if (w->target == 0)
        ks_text_add(&t, "on a card this overwrites the dispatcher's own code or data, with "
                        "effects nobody can predict (the simulated dispatcher is a model that "
                        "does not run from that memory, so nothing shows here); a thread "
                        "writes there only its own ring's lines, 0x%x..0x%x for cluster %d",
                    KMX_DISPATCH_RING_AREA(w->writer.cluster),
                    KMX_DISPATCH_RING_AREA(w->writer.cluster) + KMX_DISPATCH_RING_AREA_BYTES - 1,
                    w->writer.cluster);
    else
        ks_text_add(&t, "on a card (and here) this overwrites whatever cluster %d keeps there — "
                        "its image, stacks, result block or runtime lines; another cluster may "
                        "write only its cluster lines, ports line and pull counters "
                        "(kmx_layout.h)",
                    w->target);
    return snprintf(out, n, "%s", t.buf);
}

int km_wild_note(const km_wild_write *w, char *out, size_t n)
{
    char at[600];
    where(&w->writer, at, sizeof at);
    return snprintf(out, n,
                    "its local memory was written by cluster %d core %u at %s (0x%" PRIx64
                    "..0x%" PRIx64 "): a wild write (wild_writes), and what ran here since may "
                    "not be this thread's code",
                    w->writer.cluster, w->writer.core, at, w->first, w->end - 1);
}
