/* km_device.h: the API of Tensix handlers, the C form of the spec's
 * km::Reader, for the program's kernels that `kmrun build` compiles into a
 * shared object for the simulated grid (km_device(3)).
 *
 * A handler is defined with KM_HANDLER(name) { ... } for every name in the
 * manifest's `kernels.handlers`; `kmrun build` checks that each one is
 * there (the grid finds it as the exported symbol km_handler_<name>).
 *
 * A command runs its handler once on every core of its group (first,
 * count); the group's first core is its leader, and with KM_FLAG_RESULT the
 * leader's result word (km_set_result) comes back with the event.  Each
 * core runs its handler as a coroutine: the calls below that take modeled
 * time (km_compute, km_spend_ns, km_noc_read, km_noc_write) are where a
 * core gives way to the others, so a long wait blocks only that core.  A
 * handler is cut off at one of those calls when its command outlives its
 * time limit: it must not hold host resources (malloc, files) across them.
 * A core with an X280 core (the manifest's `ports:`) talks to it through
 * its port: km_port_call, km_port_tell, km_port_look, km_port_wait, and
 * takes its share of a pull with km_port_next. */
#ifndef KM_DEVICE_H
#define KM_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "km_card_io.h"
#include "kmx_layout.h"

typedef struct km_core km_core; /* one Tensix core running a command */

#define KM_HANDLER(name) \
    void km_handler_##name(km_core *core, const km_command_t *command)

typedef void (*km_handler_fn)(km_core *core, const km_command_t *command);

/* The command being run (the same as the handler's `command`). */
const km_command_t *km_command(const km_core *core);

/* This core: its grid index (0..119), its group, its place in the group
 * (0 for the leader). */
unsigned km_core_id(const km_core *core);
unsigned km_group_first(const km_core *core);
unsigned km_group_count(const km_core *core);
unsigned km_group_index(const km_core *core);
bool km_is_leader(const km_core *core);

/* The leader's result word (0 until set).  Only the leader's counts: on
 * another core km_set_result does nothing. */
void km_set_result(km_core *core, uint32_t word);
uint32_t km_result(const km_core *core);

/* Modeled compute: `cycles` of the Tensix clock (1350 MHz), or `ns`
 * nanoseconds.  km_time_ps: the core's modeled time, in picoseconds. */
void km_compute(km_core *core, uint64_t cycles);
void km_spend_ns(km_core *core, uint64_t ns);
uint64_t km_time_ps(const km_core *core);

/* NoC reads and writes of n bytes at `bank_address` of DRAM bank `bank`
 * (0..7; a region's bank and bank address as km_region_address gives
 * them).  They reach DRAM directly, around every X280 cluster's cache: a
 * thread sees what a handler wrote only after its kmx_invalidate, and a
 * handler sees what a thread wrote only after the thread's kmx_flush.  0,
 * or -1 (nothing moved, no time spent) when the range is not inside a
 * bank. */
int km_noc_read(km_core *core, unsigned bank, uint64_t bank_address, void *dst, uint64_t n);
int km_noc_write(km_core *core, unsigned bank, uint64_t bank_address, const void *src,
                 uint64_t n);

/* The region `name` of the thread on work cluster `cluster` (1..3): its
 * DRAM bank, bank address and size — the spec's
 * run.thread.regions.address(name), for km_noc_read/km_noc_write.  A
 * region shared by the threads of clusters 2 and 3 is one copy: either
 * cluster gives it.  0, or -1 when that thread has no such region (the
 * out-pointers, any of which may be NULL, are then left alone). */
int km_region_address(const km_core *core, int cluster, const char *name, unsigned *bank,
                      uint64_t *bank_address, uint64_t *bytes);

/* An interleaved tensor (the manifest's `placement: interleaved`): its
 * pages of page_size bytes dealt round robin over the eight banks, page
 * p in bank p % 8 at base + (p / 8) * page_size (tt-metal's
 * InterleavedAddrGen).  Only Tensix cores reach it, through the NoC: no
 * thread has it as a region.  Spreading pages that many cores read and
 * write over the banks spreads the load: each bank serves one 64-byte
 * line a nanosecond, shared by everyone on it (km_device(3), "Banks"). */
typedef struct km_tensor {
    uint64_t base;      /* bank address of its first page in every bank */
    uint32_t page_size; /* bytes, a multiple of 64 */
    uint64_t bytes;     /* its size */
} km_tensor;
/* The program's interleaved region `name`: 0 and *tensor, or -1 (tensor
 * left alone) when the program has none of that name. */
int km_tensor_of(const km_core *core, const char *name, km_tensor *tensor);
/* Page `page`'s bank (*bank) and bank address (returned): the address
 * generator, for km_noc_read/km_noc_write of a page or part of one. */
static inline uint64_t km_tensor_page(const km_tensor *t, uint64_t page, unsigned *bank)
{
    uint64_t at;
    km_interleaved_at(t->base, t->page_size, page * t->page_size, bank, &at);
    return at;
}
/* n bytes at byte `offset` of the tensor, one NoC read or write a page
 * they touch, in order.  0, or -1 (nothing moved) when the range leaves
 * the tensor. */
int km_tensor_read(km_core *core, const km_tensor *t, uint64_t offset, void *dst, uint64_t n);
int km_tensor_write(km_core *core, const km_tensor *t, uint64_t offset, const void *src,
                    uint64_t n);
/* A line of text from the handler (km_device(3), "Prints"): kmx_print's
 * format set (%d %u %x %s %c %% with flags '-' and '0', a width of up to
 * two digits, 'l'/'ll' for 64-bit arguments; kmx_print_format.h), into
 * the core's print buffer, which the card drains: shown as
 * `[t17 12.5µs] text` on stderr (t and the core's grid index, as the
 * run JSON names Tensix cores), in the run folder's prints.txt and the
 * run JSON's `prints`, at the core's modeled time.  Costs no modeled
 * time and never waits: 0, or -1 when the buffer had no room (the print
 * is dropped and counted in `prints_dropped`). */
int km_print(km_core *core, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* True once the kernel is stopping: a long handler should return soon. */
bool km_stop_requested(const km_core *core);

/* ---- The X280 port (spec "X280 ports"): the C form of km::X280Port ----
 *
 * A message is a sequence number and three words (km_x280_msg_t), landed
 * as one 16-byte NoC write in either direction.  The core stores its asks
 * and tells into its mailbox line in the serving X280 core's local
 * memory; the X280 core stores its answers and tells into the core's
 * control block (KM_CONTROL_X280).
 *
 * One kernel of a core sends on the port during a command: the reader
 * (KM_KERNEL_READER, the default) or the writer (KM_KERNEL_WRITER), as
 * the first km_port_of of the command names it.  A port of the other
 * kernel may look and wait for tells, never send: its sends are refused
 * (false, where KM_WHERE_X280_OWNER).  Every wait gives up at the wait
 * limit (KM_PORT_WAIT_LIMIT_NS of modeled time) or when the kernel stops,
 * and records where it was (KM_WHERE_*): the command's event carries the
 * group's first such `where` in its reason, and the run's JSON lists
 * them.  On a core the program gave no X280 core every call is false with
 * where KM_WHERE_X280_NONE. */
typedef struct km_port km_port;
#define KM_KERNEL_READER 0u
#define KM_KERNEL_WRITER 1u

/* The core's port as `kernel` uses it (never NULL while the command runs). */
km_port *km_port_of(km_core *core, unsigned kernel);

/* Ask: sends (w0, w1, w2) with the next ask sequence number and waits for
 * the answer that carries that number (*answer).  False when the wait
 * gave up or the send was refused. */
bool km_port_call(km_port *port, uint32_t w0, uint32_t w1, uint32_t w2, km_x280_msg_t *answer);

/* Tell: sends (w0, w1, w2); the newest tell wins and nothing waits for
 * it.  False when refused (or waiting for the NoC to take it gave up). */
bool km_port_tell(km_port *port, uint32_t w0, uint32_t w1, uint32_t w2);

/* The X280 core's newest tell if it is newer than the last one this core
 * saw (true, *message), else false; never waits.  km_port_wait waits for
 * one up to the wait limit. */
bool km_port_look(km_port *port, km_x280_msg_t *message);
bool km_port_wait(km_port *port, km_x280_msg_t *message);

/* The pull (spec "The pull", port.next(first)): the next range of the
 * command's units for this core — its count, from *first — or 0 when
 * none is left (or the wait gave up, or the send was refused).  It asks
 * for the following range as soon as it returns one, so one ask is in
 * flight while the range runs and a core waits only when its range takes
 * less than a round trip.  Call it until it returns 0: an ask left in
 * flight takes a range nobody runs.  The X280 side is kmx_pull_run. */
uint32_t km_port_next(km_port *port, uint32_t *first);

/* Where the core's last port wait of this command gave up (KM_WHERE_*;
 * KM_WHERE_NONE when none did). */
unsigned km_port_where(const km_core *core);

/* The built-in handlers' arguments (ids KM_HANDLER_* in kmx_layout.h).
 * An address is 64 bits in two words, low first.  A group splits the work
 * into contiguous shares, one per core in group order, in whole 64-byte
 * lines (sum: whole 16-word lines); the last cores may get nothing.
 *   nop:   no arguments; result 0.
 *   fill:  a0 bank, a1/a2 address, a3 bytes, a4 pattern: byte i of the
 *          range gets byte (i % 4) of the pattern (little-endian).
 *          Result: how many cores' shares were outside a bank (0: done).
 *   copy:  a0 source bank, a1/a2 source address, a3 destination bank,
 *          a4/a5 destination address, a6 bytes.  Overlapping ranges give
 *          an undefined result.  Result: as fill.
 *   sum:   a0 bank, a1/a2 address, a3 count of 32-bit words: result the
 *          sum of the words modulo 2^32 (a share outside a bank counts 0).
 *   spend: a0 nanoseconds of modeled compute on every core, stopping
 *          early when the kernel stops; result 0. */
/* The 64-bit address in two argument words, low first. */
#define KM_ARG_ADDRESS(lo, hi) ((uint64_t)(lo) | (uint64_t)(hi) << 32)

#endif
