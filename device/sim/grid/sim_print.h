/* sim_print: the simulator's side of prints (kmx_layout.h section 8) —
 * the formatter that turns a record into its text, the writer of a print
 * buffer in host memory (a Tensix core's, the host fallback's), and the
 * drain that takes every buffer's new records, formats them and hands
 * them on in time order.  The card's part (sim_card_drain_prints) is in
 * sim_card.c; this file knows nothing of clusters or the grid. */
#ifndef SIM_PRINT_H
#define SIM_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kmx_layout.h"

/* The text of a print whose format (NUL-terminated) and argument slots
 * (the record past its head: nslots of them) are given, into out (cap
 * bytes, NUL-terminated, cut to fit).  A conversion with no slot left,
 * or a %s whose bytes run past them, ends the text with "..."; so does
 * `cut` (the writer left arguments out).  A newline at the end is
 * dropped, and any other control character but a tab becomes a space:
 * a print is one line.  Returns the text's length. */
size_t sim_print_format(const char *format, const uint64_t *slots, unsigned nslots, bool cut,
                        char *out, size_t cap);

/* Puts a record of n slots into a buffer in host memory, as kmx_print
 * does into LIM: true, or false when it has no room (dropped counted). */
bool sim_print_put(kmx_print_buffer *b, const uint64_t *rec, unsigned n);

/* A drained print, before it is handed on. */
typedef struct sim_print_item {
    uint64_t ps;
    uint8_t kind;      /* SIM_PRINT_X280, SIM_PRINT_TENSIX */
    uint8_t cluster;
    uint16_t core;
    uint64_t sequence; /* the order it was drained in: the tie-break */
    char *text;        /* allocated */
} sim_print_item;

typedef struct sim_print_queue {
    sim_print_item *items;
    size_t n, cap;
    uint64_t drained;
    bool lost; /* memory ran out for a print drained: it was not handed on */
} sim_print_queue;

/* Reads the format string at `address` into out (cap bytes,
 * NUL-terminated): false when it cannot be read. */
typedef bool (*sim_print_read_format)(void *ctx, uint64_t address, char *out, size_t cap);

/* Takes buffer b's records (head to tail) into q, formatted, each with
 * its time: `when` times ps_per_when picoseconds.  A record that does not
 * make sense (a bad magic or size: the buffer was overwritten) ends the
 * drain of that buffer: the rest up to head is skipped.  tail is moved
 * to head. */
void sim_print_drain_buffer(sim_print_queue *q, kmx_print_buffer *b, uint8_t kind,
                            unsigned cluster, unsigned core, uint64_t ps_per_when,
                            sim_print_read_format read, void *ctx);

/* The queue's items in time order (then kind, cluster, core, order of
 * draining), each to fn; then the queue is empty. */
void sim_print_flush(sim_print_queue *q, void (*fn)(const sim_print_item *item, void *ctx),
                     void *ctx);
void sim_print_queue_free(sim_print_queue *q);

#endif
