/* sim_bank: a DRAM bank's service queue — how long a request waits for
 * the bank when others use it too.
 *
 * A GDDR6 bank of the p150a moves 64 GB/s (the card's 512 GB/s over its
 * eight banks): one 64-byte line (the DRAM's access granule, the card's
 * DRAM alignment) a nanosecond, SIM_BANK_LINE_PS.  Each bank keeps a
 * calendar of line slots in modeled picoseconds; a request of k lines at
 * time t takes the first free slot that has not ended at t, and each
 * further line the first free slot from where the line before it ended
 * (sim_calendar.h, the read port's calendar too: booked by the
 * requester's own time, not by who asks first; the grid runs its cores in
 * time order, the clusters in quanta).  The request is served when its last line's slot ends.  A
 * request alone on its bank is served in k ns, less than the time the
 * requester's own NoC link takes to move the lines (43 GB/s a Tensix
 * core), so the queue adds time only when several requesters share the
 * bank: 120 cores streaming from one bank get 64 GB/s between them, and
 * an interleaved tensor spreads them over eight.  Who books: the grid's
 * NoC reads and writes (sim_grid.c) and the clusters' cache fills
 * (sim_cluster_mem.c), a line each.
 *
 * The calendar holds the SIM_BANK_SLOTS slots (about 65 us) from its base,
 * which it moves a quarter of that past the latest slot booked when one
 * falls beyond it (so at least 49 us back).  A line older than its base is
 * served at once, unbooked:
 * requesters the card steps apart (the grid runs up to the dispatcher's
 * next pass, the clusters quantum by quantum) may book out of order, and
 * one far behind the others then meets no queue rather than waiting for
 * everything booked ahead of it (contention goes unmodeled there, never
 * invented).  Everything is a pure function of the order of calls:
 * deterministic. */
#ifndef SIM_BANK_H
#define SIM_BANK_H

#include <stdint.h>

#define SIM_BANK_LINE_PS 1000u  /* one 64-byte line: 64 GB/s a bank */
#define SIM_BANK_SLOTS 65536u   /* the calendar's reach, in slots */

typedef struct sim_bank {
    uint64_t base;                        /* the oldest slot the calendar holds (a multiple of 64) */
    uint64_t busy[SIM_BANK_SLOTS / 64u];  /* slot s at bit s % SIM_BANK_SLOTS */
    uint64_t lines, waited_ps;            /* lines served, and time spent queueing */
} sim_bank;

void sim_bank_init(sim_bank *b);

/* The 64-byte lines [address, address + bytes) touches (at least one). */
uint64_t sim_bank_lines(uint64_t address, uint64_t bytes);

/* Books `lines` slots for a request at `now_ps`; returns the time its last
 * slot ends (now_ps + lines * SIM_BANK_LINE_PS, or less when now_ps is
 * inside a free slot, when the bank is otherwise idle). */
uint64_t sim_bank_serve(sim_bank *b, uint64_t now_ps, uint64_t lines);

#endif
