/* km_gdb: the session — bytes in, framed packets out of them, acks, and
 * the Ctrl-C the target's poll looks for while it runs (km_gdb.h). */
#include <stdlib.h>
#include <string.h>

#include "gdb_internal.h"

km_gdb *km_gdb_new(const km_gdb_target_ops *ops, void *ctx, const km_gdb_io *io,
                   int first_thread)
{
    if (!ops || !io || !io->write || !ops->thread_count)
        return NULL;
    /* GDB needs a thread to stop on; a target beyond GDB_MAX_THREADS
     * shows its first ones. */
    int count = ops->thread_count(ctx);
    if (count <= 0)
        return NULL;
    km_gdb *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->ops = ops;
    g->ctx = ctx;
    g->io = *io;
    g->state = KM_GDB_SERVING;
    g->in = GDB_IN_IDLE;
    g->count = count > GDB_MAX_THREADS ? GDB_MAX_THREADS : count;
    if (first_thread < 0 || first_thread >= g->count)
        first_thread = 0;
    g->g_thread = g->c_thread = first_thread;
    /* Before the first resume the target is halted where it was loaded:
     * GDB asks '?' and takes that as a SIGTRAP stop. */
    g->last.reason = KM_GDB_STOP_STEP;
    g->last.signal = GDB_SIGTRAP;
    g->last.thread = first_thread;
    return g;
}

void km_gdb_free(km_gdb *g)
{
    free(g);
}

km_gdb_state km_gdb_state_of(const km_gdb *g)
{
    return g->state;
}

/* A whole packet arrived: check it, ack it, answer it. */
static void packet_done(km_gdb *g)
{
    uint8_t sum = g->sum;
    g->in = GDB_IN_IDLE;
    if (g->sum_bad || sum != g->sum_sent) {
        /* With acks the client sends it again; without them nothing
         * would, so it gets an error rather than silence. */
        if (!g->no_ack) {
            gdb_send_raw(g, "-", 1);
        } else {
            gdb_error(g, GDB_E_CHECKSUM);
            gdb_send_reply(g);
        }
        return;
    }
    if (!g->no_ack)
        gdb_send_raw(g, "+", 1);
    gdb_reply_reset(g);
    if (g->packet_over) {
        gdb_error(g, GDB_E_TOO_LONG);
        gdb_send_reply(g);
        return;
    }
    g->packet[g->packet_len] = '\0';
    if (gdb_command(g))
        gdb_send_reply(g);
}

static void take_byte(km_gdb *g, uint8_t c)
{
    switch (g->in) {
    case GDB_IN_IDLE:
        if (c == '$') {
            g->in = GDB_IN_DATA;
            g->packet_len = 0;
            g->packet_over = false;
            g->sum = 0;
            g->sum_bad = false;
        } else if (c == '-' && !g->no_ack && g->framed_len) {
            gdb_send_raw(g, g->framed, g->framed_len);
        }
        /* '+', a Ctrl-C while already halted, and noise between
         * packets: nothing to do. */
        break;
    case GDB_IN_DATA:
        if (c == '#') {
            g->in = GDB_IN_SUM1;
        } else if (c == '$') {
            /* A '$' never appears unescaped in data: the client gave up
             * on the last packet and started another. */
            g->packet_len = 0;
            g->packet_over = false;
            g->sum = 0;
        } else {
            g->sum = (uint8_t)(g->sum + c);
            if (g->packet_len < KM_GDB_PACKET_SIZE)
                g->packet[g->packet_len++] = (char)c;
            else
                g->packet_over = true;
        }
        break;
    case GDB_IN_SUM1:
    case GDB_IN_SUM2: {
        int d = gdb_hex_digit(c);
        if (d < 0)
            g->sum_bad = true;
        if (g->in == GDB_IN_SUM1) {
            g->sum_sent = (uint8_t)((d < 0 ? 0 : d) << 4);
            g->in = GDB_IN_SUM2;
        } else {
            g->sum_sent = (uint8_t)(g->sum_sent | (d < 0 ? 0 : d));
            packet_done(g);
        }
        break;
    }
    }
}

km_gdb_state km_gdb_feed(km_gdb *g, const uint8_t *data, size_t n)
{
    g->rest = data;
    g->rest_n = n;
    while (g->rest_n && g->state == KM_GDB_SERVING) {
        uint8_t c = *g->rest++;
        g->rest_n--;
        take_byte(g, c);
    }
    g->rest = NULL;
    g->rest_n = 0;
    return g->state;
}
