/* sim_calendar: the one queue model of a resource that serves one thing
 * a slot of time — a cluster's read port and its NoC write path
 * (sim_port.h), a DRAM bank (sim_bank.h) — written once for all of them.
 *
 * A calendar holds a window of equal slots, each free or taken, one bit a
 * slot, from its base (a slot number; slot s at bit s % slots).  A request
 * at slot s takes the first free slot at or after s: booked by the
 * requester's own time, not by who asks first, since the card runs its
 * agents one after another over the same span of time (the cluster its
 * harts in quanta, the grid its cores in time order).  When a request
 * falls beyond the window, the window moves forward and forgets its
 * oldest slots.  What the users differ in is a rule:
 *   - slide_ahead: move by whole words to a quarter of the window past
 *     what the request needs (it moves seldom; the base stays a multiple
 *     of 64), or just far enough;
 *   - past_taken: a slot older than the window counts as taken (the
 *     request waits for the base), or the request is served at once,
 *     unbooked (contention there goes unmodeled, never invented).
 * The bits live with the user (a fixed array of its own, so that its
 * structure stays a plain value).  Everything is a pure function of the
 * order of calls: deterministic. */
#ifndef SIM_CALENDAR_H
#define SIM_CALENDAR_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_calendar_rule {
    uint64_t slots;   /* the window's reach, a multiple of 64 */
    bool slide_ahead; /* move by a quarter of the reach, in whole words */
    bool past_taken;  /* a slot older than the window counts as taken */
} sim_calendar_rule;

/* Takes the first free slot at or after s in the calendar (*base, busy)
 * under rule r and returns it; with past_taken false, a slot older than
 * the window comes back as it is, unbooked. */
uint64_t sim_calendar_take(const sim_calendar_rule *r, uint64_t *base, uint64_t *busy,
                           uint64_t s);

#endif
