/* sim_kernel: the card's kernel side — the Tensix grid (sim_grid), the
 * dispatcher (sim_dispatcher) with the grid plugged in as its jobs, the
 * host ring with the feeder that submits the host-fed commands, and the
 * threads' rings: in the card's memory over the NoC (a card thread's), or
 * in host memory (a host fallback's).  Part of sim_card; nothing above
 * device/sim/ sees it.
 *
 * sim_kernel_step runs every dispatcher pass that starts at or before
 * until_ps; `sync` (optional) brings the work clusters up to a pass's
 * time before it looks at their rings (sim_dispatcher_params). */
#ifndef SIM_KERNEL_H
#define SIM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "ks_error.h"
#include "sim_card.h"
#include "sim_dispatcher.h"
#include "sim_dram.h"
#include "sim_grid.h"
#include "sim_noc.h"

typedef struct sim_kernel sim_kernel;

/* The grid on `dram` with p's handlers, regions and host-fed commands;
 * the first commands go into the host ring at once. */
int sim_kernel_create(sim_kernel **out, const sim_card_params *p, sim_dram *dram,
                      void (*sync)(void *ctx, uint64_t now_ps), void *sync_ctx, ks_error *err);
void sim_kernel_free(sim_kernel *f);

/* The ring of the thread on `cluster` as its ring line says, reached over
 * `noc` (nothing for KMX_RING_NONE). */
int sim_kernel_attach_thread(sim_kernel *f, sim_noc *noc, unsigned cluster,
                             const kmx_ring_descriptor *desc, ks_error *err);
/* Ring `cluster` in host memory, with its writer and reader (NULL and
 * *err when the dispatcher refuses it). */
sim_ring_host *sim_kernel_attach_host_ring(sim_kernel *f, unsigned cluster, ks_error *err);

void sim_kernel_step(sim_kernel *f, uint64_t until_ps);
/* The grid alone up to until_ps (the card's lockstep with X280 ports:
 * grid, then clusters, a quantum at a time).  until_ps is never past the
 * dispatcher's own time — the next pass's start, or during a pass its
 * sync's time — so a job it reports has ended before the pass that
 * collects it, and a job it starts starts after the grid's time. */
void sim_kernel_step_grid(sim_kernel *f, uint64_t until_ps);
/* The grid, for the ports' NoC side and landings. */
sim_grid *sim_kernel_grid(sim_kernel *f);
/* The dispatcher's stats (sim_dispatcher_get_stats). */
void sim_kernel_dispatcher_stats(const sim_kernel *f, sim_dispatcher_stats *out);
/* One pass: the next one's start is sim_kernel_now_ps. */
void sim_kernel_pass(sim_kernel *f);
uint64_t sim_kernel_now_ps(const sim_kernel *f);
/* Every command has its event. */
bool sim_kernel_done(const sim_kernel *f);
/* Commands not yet taken are rejected, handlers see the stop flag. */
void sim_kernel_stop(sim_kernel *f);
/* The grid's and the dispatcher's moments to fn (sim_card_record). */
void sim_kernel_record(sim_kernel *f, sim_card_moment_fn fn, void *ctx);
const km_command_result *sim_kernel_results(const sim_kernel *f);
/* One more host-fed command after the ones it has (sim_card_feed). */
int sim_kernel_feed(sim_kernel *f, const sim_card_command *c, size_t *index, ks_error *err);
size_t sim_kernel_ncommands(const sim_kernel *f);
/* The handlers the grid took out (sim_card_handler_faults), each with its
 * command's ring and handle. */
const sim_handler_fault *sim_kernel_faults(const sim_kernel *f, unsigned *n, unsigned *more);
/* The grid's own failure (sim_grid_failed). */
bool sim_kernel_failed(const sim_kernel *f, ks_error *err);

#endif
