/* kmx_layout.h: the binary contract between the host loader, the X280
 * thread runtime (kmx/) and the (simulated) dispatcher and grid.  One source
 * of truth: nothing restates these offsets.  Freestanding C11: the RV64
 * runtime (riscv64-unknown-elf-gcc, lp64d) and the host library (x86-64)
 * both include it, and a _Static_assert pins every offset and size so that
 * both compilers mean the same bytes.  Fixed-width types only; every struct
 * spells out its padding as reserved fields (written 0, ignored on read).
 * All multi-byte values are little-endian (both sides are).
 *
 * Names: KM_/km_ for what the grid and the dispatcher share with every
 * submitter (the command line, the event, handler ids, reasons, the X280
 * port message); KMX_/kmx_ for the thread side.
 *
 * Contents, in order:
 *   1. the contract's limits (the card's facts — addresses, tiles, banks,
 *      NoC registers — are device/include/blackhole.h's, included here)
 *   2. the LIM map: where each area of a work cluster's local memory is
 *   3. the command line, the event and the ring (the host ring's protocol)
 *   4. the argument block (host -> thread, written before the start)
 *   5. the result block (thread -> host)
 *   6. the stop line, spawn mailboxes, cluster lines (twelve cores)
 *   7. the ports area and the pull counters
 *   8. prints: a core's print buffer and the record it holds
 *
 * What the host does before it starts a thread, in this order:
 *   a. writes the image at KMX_LIM_IMAGE;
 *   b. zeroes KMX_LIM_HOST_ZERO .. + KMX_LIM_HOST_ZERO_BYTES (ring counts
 *      and events, stop line, spawn mailboxes, cluster lines, ports area,
 *      pull counters), then fills the ports table; zeroes the print
 *      buffers, KMX_LIM_PRINT .. + KMX_LIM_PRINT_BYTES;
 *   c. writes the result block: all zero but `nonce` (this run's);
 *   d. writes the bank check line in DRAM (all eight words = check.value);
 *   e. writes the argument block, its seal line last of all;
 *   f. releases the four cores at KMX_LIM_IMAGE.
 * The runtime accepts the argument block only if magic, version, seal and
 * the result block's nonce all match (KMX_ERROR_ARGS otherwise). */
#ifndef KMX_LAYOUT_H
#define KMX_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "blackhole.h"

#define KMX_LAYOUT_VERSION 1u

/* Static checks: offset and size of every field, on both compilers. */
#define KMX_STATIC_ASSERT(e, message) BH_STATIC_ASSERT(e, message)
#define KMX_AT(type, field, offset) BH_AT(type, field, offset)
#define KMX_SIZE(type, bytes) BH_SIZE(type, bytes)

/* ------------------------------------------------------------------------
 * 1. The contract's limits (the card's facts are blackhole.h's).
 * ------------------------------------------------------------------------ */

#define KMX_MAX_REGIONS 16u /* own and shared, per thread */
#define KMX_MAX_WORDS 64u   /* the program's own words in the argument block */
#define KMX_MAX_RESULT_WORDS 48u

/* Which window the runtime uses for what (so nothing else opens them). */
#define KMX_WINDOW_RING 0u                 /* the ring's remote half */
#define KMX_WINDOW_CLUSTER(c) (0u + (c))   /* 1..3: cluster c's LIM, non-posted */
#define KMX_WINDOW_PUSH(core) (4u + (core))     /* 4..7: a core's posted push */
#define KMX_WINDOW_PUSH_ACK(core) (8u + (core)) /* 8..11: its non-posted last line */
#define KMX_WINDOW_PORTS_FIRST 56u         /* one per served Tensix core ... */
#define KMX_WINDOW_PORTS_COUNT 168u        /* ... up to 168 (56..223) */
KMX_STATIC_ASSERT(KMX_WINDOW_PORTS_FIRST + KMX_WINDOW_PORTS_COUNT == BH_NOC_WINDOWS,
               "the ports windows end at the last window");

/* ------------------------------------------------------------------------
 * 2. The LIM map of a work cluster (addresses as the cluster's cores see
 *    them; the host reaches the same bytes at the same offsets).
 *
 *    offset     bytes    what
 *    0x000000  126,976  image (.text, .rodata, .data): the fetchable part
 *    0x01F000    2,048  argument block (kmx_args); ring line at +0x80
 *    0x01F800      512  result block (kmx_result_block)
 *    0x01FA00       64  ring counts line (kernel writes)
 *    0x01FA40       64  stop line
 *    0x01FA80      256  spawn mailboxes, one line per core
 *    0x01FB80      320  cluster lines: the call line, four done lines
 *    0x01FCC0      832  reserved
 *    0x020000    4,096  ring events: up to 256 16-byte events (kernel writes)
 *    0x021000    8,832  ports area (spec: "8.6 KiB ... after its block")
 *    0x023280    1,024  pull counters
 *    0x023680    2,432  reserved
 *    0x024000    4,096  runtime private (kmx/ only; zeroed by core 0)
 *    0x025000   16,384  print buffers: 4 KiB a core, core 0 lowest
 *    0x029000  225,280  reserved for the contract to grow
 *    0x060000  4 x 384 KiB  stacks, core 0 lowest, core 3 ends at LIM end
 *
 *    Stacks: LIM holds nothing else of the thread's (data lives in regions,
 *    there is no heap), so the stacks take what the contract areas leave,
 *    minus a 236 KiB reserve that lets the contract grow (deeper rings, more
 *    ports) without moving them.  384 KiB holds a 96 Ki-word array, more
 *    than any decision needs (the spec keeps bulk data in regions, which
 *    are faster than the stack).  Core 0, which runs kmx_main and is the
 *    deepest caller, is lowest, so its overflow runs into the reserve
 *    before it runs into anyone's data.  16-byte aligned (RISC-V psABI).
 * ------------------------------------------------------------------------ */
#define KMX_LIM_IMAGE BH_LIM_BASE
#define KMX_LIM_ARGS (BH_LIM_BASE + 0x01F000u)
#define KMX_LIM_ARGS_BYTES 2048u
#define KMX_LIM_RING_LINE (KMX_LIM_ARGS + 0x80u) /* = &args->ring */
#define KMX_LIM_RESULT (BH_LIM_BASE + 0x01F800u)
#define KMX_LIM_RESULT_BYTES 512u
#define KMX_LIM_RING_COUNTS (BH_LIM_BASE + 0x01FA00u)
#define KMX_LIM_STOP (BH_LIM_BASE + 0x01FA40u)
#define KMX_LIM_SPAWN (BH_LIM_BASE + 0x01FA80u)
#define KMX_LIM_SPAWN_BYTES (BH_CLUSTER_CORES * 64u)
#define KMX_LIM_CLUSTER_LINES (BH_LIM_BASE + 0x01FB80u)
#define KMX_LIM_CLUSTER_LINES_BYTES 320u
#define KMX_LIM_RING_EVENTS (BH_LIM_BASE + 0x020000u)
#define KMX_LIM_RING_EVENTS_BYTES 4096u
#define KMX_LIM_PORTS (BH_LIM_BASE + 0x021000u)
#define KMX_LIM_PORTS_BYTES 8832u
#define KMX_LIM_PULL (BH_LIM_BASE + 0x023280u)
#define KMX_LIM_PULL_BYTES 1024u
#define KMX_LIM_PRIVATE (BH_LIM_BASE + 0x024000u)
#define KMX_LIM_PRIVATE_BYTES 4096u
#define KMX_LIM_PRINT (BH_LIM_BASE + 0x025000u)
#define KMX_PRINT_BUFFER_BYTES 4096u
#define KMX_LIM_PRINT_BYTES (BH_CLUSTER_CORES * KMX_PRINT_BUFFER_BYTES)
#define KMX_LIM_PRINT_BUFFER(core) (KMX_LIM_PRINT + (uint32_t)(core) * KMX_PRINT_BUFFER_BYTES)
#define KMX_LIM_STACKS (BH_LIM_BASE + 0x060000u)
#define KMX_STACK_BYTES (384u * 1024u)
#define KMX_STACK_BASE(core) (KMX_LIM_STACKS + (uint32_t)(core) * KMX_STACK_BYTES)
#define KMX_STACK_TOP(core) (KMX_STACK_BASE(core) + KMX_STACK_BYTES)

/* What the host zeroes before the start (step b above). */
#define KMX_LIM_HOST_ZERO KMX_LIM_RING_COUNTS
#define KMX_LIM_HOST_ZERO_BYTES (KMX_LIM_PULL + KMX_LIM_PULL_BYTES - KMX_LIM_RING_COUNTS)

KMX_STATIC_ASSERT(KMX_LIM_IMAGE + BH_IMAGE_MAX_BYTES == KMX_LIM_ARGS, "args follow the image");
KMX_STATIC_ASSERT(KMX_LIM_ARGS + KMX_LIM_ARGS_BYTES == KMX_LIM_RESULT, "result follows args");
KMX_STATIC_ASSERT(KMX_LIM_RESULT + KMX_LIM_RESULT_BYTES == KMX_LIM_RING_COUNTS, "counts follow result");
KMX_STATIC_ASSERT(KMX_LIM_RING_COUNTS + 64u == KMX_LIM_STOP, "stop follows counts");
KMX_STATIC_ASSERT(KMX_LIM_STOP + 64u == KMX_LIM_SPAWN, "spawn follows stop");
KMX_STATIC_ASSERT(KMX_LIM_SPAWN + KMX_LIM_SPAWN_BYTES == KMX_LIM_CLUSTER_LINES, "cluster lines follow spawn");
KMX_STATIC_ASSERT(KMX_LIM_CLUSTER_LINES + KMX_LIM_CLUSTER_LINES_BYTES <= KMX_LIM_RING_EVENTS, "events follow");
KMX_STATIC_ASSERT(KMX_LIM_RING_EVENTS + KMX_LIM_RING_EVENTS_BYTES == KMX_LIM_PORTS, "ports follow events");
KMX_STATIC_ASSERT(KMX_LIM_PORTS + KMX_LIM_PORTS_BYTES == KMX_LIM_PULL, "pull follows ports");
KMX_STATIC_ASSERT(KMX_LIM_PULL + KMX_LIM_PULL_BYTES <= KMX_LIM_PRIVATE, "private follows pull");
KMX_STATIC_ASSERT(KMX_LIM_PRIVATE + KMX_LIM_PRIVATE_BYTES <= KMX_LIM_PRINT, "prints follow private");
KMX_STATIC_ASSERT(KMX_LIM_PRINT == BH_LIM_BASE + 0x025000u && KMX_LIM_PRINT % 64u == 0,
               "the print buffers open the reserve, on a line");
KMX_STATIC_ASSERT(KMX_LIM_PRINT + KMX_LIM_PRINT_BYTES <= KMX_LIM_STACKS, "stacks follow prints");
KMX_STATIC_ASSERT(KMX_STACK_TOP(BH_CLUSTER_CORES - 1u) == BH_LIM_END, "the stacks end LIM");
KMX_STATIC_ASSERT(KMX_STACK_BYTES % 16u == 0 && KMX_LIM_STACKS % 16u == 0, "stacks are 16-byte aligned");
KMX_STATIC_ASSERT(KMX_LIM_ARGS % 64u == 0 && KMX_LIM_RESULT % 64u == 0 &&
               KMX_LIM_CLUSTER_LINES % 64u == 0 && KMX_LIM_PULL % 64u == 0,
               "every area starts on a line");

/* ------------------------------------------------------------------------
 * 3. Commands, events and the ring (the host ring's protocol, spec "The
 *    command ring").
 * ------------------------------------------------------------------------ */

/* Handler ids: the low 8 bits of a command's hdr.  0 is never a handler (a
 * zeroed command line is caught), built-ins take 1..15, the program's
 * handlers follow in manifest order. */
#define KM_HANDLER_FIRST_PROGRAM 16u
#define KM_HANDLER_MAX 255u
#define KM_HANDLER_NOP 1u   /* does nothing; result word 0 */
#define KM_HANDLER_FILL 2u  /* fills a region range with a pattern */
#define KM_HANDLER_COPY 3u  /* copies a range to another */
#define KM_HANDLER_SUM 4u   /* sums a range of words into the result word */
#define KM_HANDLER_SPEND 5u /* spends a given modeled time */

/* hdr = handler | flags << 8; group = first | count << 16. */
#define KM_FLAG_RESULT 0x01u    /* the leader's 32-bit result comes in the event */
#define KM_FLAG_EXCLUSIVE 0x02u /* no overlapping group may run at the same time */
#define KM_FLAGS_ALL (KM_FLAG_RESULT | KM_FLAG_EXCLUSIVE)
#define KM_HDR(handler, flags) ((uint32_t)(handler) | (uint32_t)(flags) << 8)
#define KM_HDR_HANDLER(hdr) ((uint32_t)(hdr) & 0xFFu)
#define KM_HDR_FLAGS(hdr) (((uint32_t)(hdr) >> 8) & 0xFFu)
#define KM_GROUP(first, count) ((uint32_t)(first) | (uint32_t)(count) << 16)
#define KM_GROUP_FIRST(group) ((uint32_t)(group) & 0xFFFFu)
#define KM_GROUP_COUNT(group) ((uint32_t)(group) >> 16)

/* A command: 48 bytes of words. */
typedef struct km_command {
    uint32_t hdr;   /* handler | flags << 8 (bits 16..31: 0) */
    uint32_t group; /* first Tensix core | count << 16 */
    uint32_t a0, a1, a2, a3, a4, a5, a6, a7, a8, a9;
} km_command_t;
KMX_SIZE(km_command_t, 48);
KMX_AT(km_command_t, hdr, 0);
KMX_AT(km_command_t, group, 4);
KMX_AT(km_command_t, a0, 8);
KMX_AT(km_command_t, a9, 44);

/* A command line: one 64-byte slot.  The writer stores the 48 bytes of
 * words first, then (after a fence) the last 16 bytes as one store: the
 * command's number and three landing words.  The landing words let the
 * reader see that the 16 bytes landed whole and belong to these words:
 * land[0] = hdr, land[1] = group, land[2] = ~sequence. */
typedef struct km_command_line {
    km_command_t command;
    uint32_t sequence; /* the command's number, from 1; its slot is sequence % depth */
    uint32_t land[3];
} km_command_line;
KMX_SIZE(km_command_line, 64);
KMX_AT(km_command_line, command, 0);
KMX_AT(km_command_line, sequence, 48);
KMX_AT(km_command_line, land, 52);

/* Event kinds. */
#define KM_EVENT_DONE 1u     /* ran; `ticks` = the leader's result word with KM_FLAG_RESULT */
#define KM_EVENT_TIMEOUT 2u  /* did not finish within the wait limit */
#define KM_EVENT_REJECTED 3u /* never ran; `reason` says why */
#define KMX_EVENT_WAKE 4u    /* thread ring only: handle 0, resubmit what was rejected busy */

/* Why a command was rejected (event.reason).  6..10 are the dispatcher's
 * to define. */
#define KM_REASON_NONE 0u
#define KM_REASON_HANDLER 1u  /* no such handler */
#define KM_REASON_GROUP 2u    /* count 0 or first + count > BH_GRID_CORES */
#define KM_REASON_FLAGS 3u    /* unknown flag bits */
#define KM_REASON_LINE 4u     /* sequence or landing words do not match */
#define KM_REASON_STOPPING 5u /* the kernel is stopping */
#define KM_REASON_BUSY 11u    /* cannot be submitted now: resubmit after KMX_EVENT_WAKE */

/* An event: 16 bytes.  Event i (from 1) is in slot i % depth.  The writer
 * stores index, fields, then index again as the last store of the line
 * (one 16-byte store where it can); the reader reads index, the fields,
 * then index again, and takes the event only if both reads equal i. */
typedef struct km_event {
    uint32_t index;  /* the event's number, from 1 */
    uint16_t kind;   /* KM_EVENT_*, KMX_EVENT_WAKE */
    uint16_t reason; /* KM_REASON_* for KM_EVENT_REJECTED; for DONE and
                        TIMEOUT, KM_WHERE_* of the group's first X280 port
                        wait that gave up (or send refused), else 0 */
    uint32_t handle; /* the command's number (0 for a wake) */
    uint32_t ticks;  /* the result word, or the command's run time in ticks */
} km_event_t;
KMX_SIZE(km_event_t, 16);
KMX_AT(km_event_t, index, 0);
KMX_AT(km_event_t, kind, 4);
KMX_AT(km_event_t, reason, 6);
KMX_AT(km_event_t, handle, 8);
KMX_AT(km_event_t, ticks, 12);

/* Where the ring lives (ring descriptor `kind`). */
#define KMX_RING_NONE 0u   /* no ring: kmx_submit returns KMX_BAD */
#define KMX_RING_REMOTE 1u /* commands + read line in the dispatcher's LIM, through
                              window KMX_WINDOW_RING; counts + events in ours */
#define KMX_RING_CACHED 2u /* all four in cached DRAM of our bank (needs sweeps) */
#define KMX_RING_COMMANDS_MAX 64u
#define KMX_RING_EVENTS_MAX (KMX_LIM_RING_EVENTS_BYTES / 16u) /* 256 */

/* The ring line (the argument block's `ring`): written by the host before
 * the start.  Addresses of the remote half are in the dispatcher tile's
 * address space (what the window targets); of the local half, as the
 * thread addresses them (KMX_LIM_RING_COUNTS, KMX_LIM_RING_EVENTS for
 * KMX_RING_REMOTE).  Depths are powers of two. */
typedef struct kmx_ring_descriptor {
    uint32_t kind;          /* KMX_RING_* */
    uint32_t command_depth; /* command slots, <= KMX_RING_COMMANDS_MAX */
    uint32_t event_depth;   /* event slots, <= KMX_RING_EVENTS_MAX */
    uint16_t noc_x, noc_y;  /* the dispatcher's tile (remote half) */
    uint64_t commands;      /* km_command_line slot 0 (remote half) */
    uint64_t read_line;     /* kmx_ring_read_line (remote half) */
    uint64_t counts;        /* kmx_ring_counts (local half) */
    uint64_t events;        /* km_event_t slot 0 (local half) */
    uint32_t window;        /* the NoC window start-up opens: KMX_WINDOW_RING */
    uint32_t reserved[3];
} kmx_ring_descriptor;
KMX_SIZE(kmx_ring_descriptor, 64);
KMX_AT(kmx_ring_descriptor, kind, 0);
KMX_AT(kmx_ring_descriptor, command_depth, 4);
KMX_AT(kmx_ring_descriptor, event_depth, 8);
KMX_AT(kmx_ring_descriptor, noc_x, 12);
KMX_AT(kmx_ring_descriptor, noc_y, 14);
KMX_AT(kmx_ring_descriptor, commands, 16);
KMX_AT(kmx_ring_descriptor, read_line, 24);
KMX_AT(kmx_ring_descriptor, counts, 32);
KMX_AT(kmx_ring_descriptor, events, 40);
KMX_AT(kmx_ring_descriptor, window, 48);
KMX_AT(kmx_ring_descriptor, reserved, 52);

/* The counts line, in the thread's LIM, written by the kernel.  Command
 * slot i % depth may be written again once consumed >= i - depth. */
typedef struct kmx_ring_counts {
    uint32_t consumed; /* commands the kernel has taken from their lines */
    uint32_t events;   /* events the kernel has written */
    uint32_t reserved[14];
} kmx_ring_counts;
KMX_SIZE(kmx_ring_counts, 64);
KMX_AT(kmx_ring_counts, consumed, 0);
KMX_AT(kmx_ring_counts, events, 4);

/* The read line, beside the command lines, written by the thread: event
 * slot i % depth may be written again once taken >= i - depth. */
typedef struct kmx_ring_read_line {
    uint32_t taken; /* events the thread has taken */
    uint32_t reserved[15];
} kmx_ring_read_line;
KMX_SIZE(kmx_ring_read_line, 64);
KMX_AT(kmx_ring_read_line, taken, 0);

/* Where the session puts each work cluster's ring (spec: "each half where
 * its reader is").  KMX_RING_REMOTE: the read line and the command lines
 * in the dispatcher's LIM (cluster 0), one area per work cluster c = 1..3
 * (the read line first, then the command lines), written by the thread
 * through window KMX_WINDOW_RING; the counts line and the events at
 * KMX_LIM_RING_COUNTS and KMX_LIM_RING_EVENTS of the thread's own LIM.
 * KMX_RING_CACHED: the same two halves, each in whole lines of the
 * thread's bank (plan.c places them), reached through the cache.  The
 * depths are the session's: 16 command slots (the dispatcher's job
 * slots), 64 event slots (16 jobs' events, their rejections and a wake,
 * with room while the thread keeps 32). */
#define KMX_DISPATCH_RING_AREA(c) (BH_LIM_BASE + 0x100000u + ((uint32_t)(c) - 1u) * 0x2000u)
#define KMX_DISPATCH_RING_AREA_BYTES 0x2000u
#define KMX_RING_COMMAND_DEPTH 16u
#define KMX_RING_EVENT_DEPTH 64u
#define KMX_RING_KEPT 32u /* events of other handles kmx_wait keeps for kmx_poll */
KMX_STATIC_ASSERT(64u + KMX_RING_COMMANDS_MAX * 64u <= KMX_DISPATCH_RING_AREA_BYTES,
                  "a read line and the deepest command ring fit one area");
KMX_STATIC_ASSERT(KMX_DISPATCH_RING_AREA(BH_WORK_CLUSTERS) + KMX_DISPATCH_RING_AREA_BYTES <=
                      BH_LIM_END,
                  "the areas are inside the dispatcher's LIM");
KMX_STATIC_ASSERT(KMX_RING_COMMAND_DEPTH <= KMX_RING_COMMANDS_MAX &&
                      KMX_RING_EVENT_DEPTH <= KMX_RING_EVENTS_MAX,
                  "the session's depths are within the ring's limits");
KMX_STATIC_ASSERT((BH_LIM_BASE & (BH_NOC_WINDOW_BYTES - 1u)) == 0 &&
                      BH_LIM_BYTES <= BH_NOC_WINDOW_BYTES,
                  "one window reaches a whole LIM");

/* ------------------------------------------------------------------------
 * 4. The argument block, at KMX_LIM_ARGS, written by the host.
 * ------------------------------------------------------------------------ */
#define KMX_ARGS_MAGIC 0x41584D4Bu /* "KMXA" */
#define KMX_ARGS_SEAL (~KMX_ARGS_MAGIC)

#define KMX_PREFETCH_SET 0u  /* the values the chip's documentation recommends */
#define KMX_PREFETCH_KEEP 1u /* prefetch="keep": leave the registers alone */

#define KMX_REGION_SHARED 0x1u /* a program region named in `shared` */

/* One region: pages of the cluster's bank.  The thread reaches it at
 * BH_DRAM_CACHED(bank_address).  Start-up checks: bank_address a multiple
 * of 64, 0 < bytes, bank_address + bytes <= BH_BANK_BYTES (error
 * `region`), bank == the argument block's bank (error `bank`). */
typedef struct kmx_region_entry {
    uint64_t bank_address;
    uint64_t bytes;
    uint32_t bank;  /* 6 or 7 */
    uint32_t flags; /* KMX_REGION_* */
    uint64_t reserved;
} kmx_region_entry;
KMX_SIZE(kmx_region_entry, 32);
KMX_AT(kmx_region_entry, bank_address, 0);
KMX_AT(kmx_region_entry, bytes, 8);
KMX_AT(kmx_region_entry, bank, 16);
KMX_AT(kmx_region_entry, flags, 20);
KMX_AT(kmx_region_entry, reserved, 24);

/* The bank check: a line of the cluster's bank that only this run knows.
 * The host writes `value` into all eight words of the line at
 * bank_address (outside every region); start-up reads them through the
 * cached window after dropping the line (error `bank` if any differs). */
typedef struct kmx_bank_check {
    uint64_t bank_address; /* a multiple of 64 */
    uint64_t value;
    uint64_t reserved[6];
} kmx_bank_check;
KMX_SIZE(kmx_bank_check, 64);
KMX_AT(kmx_bank_check, bank_address, 0);
KMX_AT(kmx_bank_check, value, 8);
KMX_AT(kmx_bank_check, reserved, 16);

/* X280 ports settings (the ports table itself is in the ports area). */
typedef struct kmx_ports_settings {
    uint32_t enabled;      /* 1: the program declared ports */
    uint32_t served;       /* Tensix cores this cluster serves, <= 168 */
    uint32_t window_first; /* KMX_WINDOW_PORTS_FIRST */
    uint32_t cores;        /* kmx_port_cores(): 1 + the highest core this cluster serves */
    uint64_t control;      /* KM_CONTROL_X280_L1: the area's NoC address on a Tensix tile */
    uint64_t reserved[5];
} kmx_ports_settings;
KMX_SIZE(kmx_ports_settings, 64);
KMX_AT(kmx_ports_settings, enabled, 0);
KMX_AT(kmx_ports_settings, served, 4);
KMX_AT(kmx_ports_settings, window_first, 8);
KMX_AT(kmx_ports_settings, cores, 12);
KMX_AT(kmx_ports_settings, control, 16);
KMX_AT(kmx_ports_settings, reserved, 24);

/* Pull modes (kmx_pull.mode and the manifest's `pull:`). */
#define KMX_PULL_COUNT 0u
#define KMX_PULL_LOG 1u
#define KMX_PULL_REPLAY 2u
#define KMX_PULL_NONE 0xFFFFFFFFu /* pick(): no range for this core */
/* A pull's ask (w[0]; km_port_next) and its answer: w[0] the first unit,
 * w[1] how many (0: none left). */
#define KM_PULL_ASK 0x50554C4Cu /* "PULL" */

/* The pull log (a region): a count per Tensix core, then per_core range
 * numbers per Tensix core; each cluster its own copy. */
#define KMX_PULL_LOG_BYTES(per_core)                                          \
    ((uint64_t)BH_GRID_CORES * 4u * (1u + (uint64_t)(per_core)))
#define KMX_PULL_LOG_COUNT_OFFSET(core) ((uint64_t)(core) * 4u)
#define KMX_PULL_LOG_RANGE_OFFSET(per_core, core, i)                          \
    ((uint64_t)BH_GRID_CORES * 4u +                                           \
     ((uint64_t)(core) * (uint64_t)(per_core) + (uint64_t)(i)) * 4u)

/* The manifest's pull settings (what kmx_pull_run uses when given NULL). */
typedef struct kmx_pull_settings {
    uint32_t present; /* 1: the manifest has `pull:` */
    uint32_t units;
    uint32_t per;
    uint32_t mode; /* KMX_PULL_COUNT/LOG/REPLAY */
    uint32_t log;  /* region id of the log (LOG, REPLAY) */
    uint32_t reserved[11];
} kmx_pull_settings;
KMX_SIZE(kmx_pull_settings, 64);
KMX_AT(kmx_pull_settings, present, 0);
KMX_AT(kmx_pull_settings, units, 4);
KMX_AT(kmx_pull_settings, per, 8);
KMX_AT(kmx_pull_settings, mode, 12);
KMX_AT(kmx_pull_settings, log, 16);
KMX_AT(kmx_pull_settings, reserved, 20);

/* Another work cluster as this thread sees it (kmx_parallel_all, kmx_push):
 * peers[c - 1] for cluster c; its own entry too. */
typedef struct kmx_peer {
    uint32_t present;         /* 1: cluster runs this image (in `clusters`) */
    uint32_t bank;            /* its DRAM bank */
    uint16_t noc_x, noc_y;    /* its tile */
    uint16_t bank_x, bank_y;  /* a tile of its bank */
    uint64_t lim;             /* its LIM base in its tile's NoC address space */
    uint64_t bank_base;       /* bank address 0 in the bank tile's NoC address space */
    uint64_t region_bank_address[KMX_MAX_REGIONS]; /* its copy of region id */
    uint64_t reserved[4];
} kmx_peer;
KMX_SIZE(kmx_peer, 192);
KMX_AT(kmx_peer, present, 0);
KMX_AT(kmx_peer, bank, 4);
KMX_AT(kmx_peer, noc_x, 8);
KMX_AT(kmx_peer, noc_y, 10);
KMX_AT(kmx_peer, bank_x, 12);
KMX_AT(kmx_peer, bank_y, 14);
KMX_AT(kmx_peer, lim, 16);
KMX_AT(kmx_peer, bank_base, 24);
KMX_AT(kmx_peer, region_bank_address, 32);
KMX_AT(kmx_peer, reserved, 160);

/* The seal: the host writes it last; start-up accepts the block only when
 * nonce equals the head's nonce and seal == KMX_ARGS_SEAL. */
typedef struct kmx_args_seal {
    uint64_t nonce;
    uint32_t seal;
    uint32_t reserved[13];
} kmx_args_seal;
KMX_SIZE(kmx_args_seal, 64);
KMX_AT(kmx_args_seal, nonce, 0);
KMX_AT(kmx_args_seal, seal, 8);
KMX_AT(kmx_args_seal, reserved, 12);

typedef struct kmx_args {
    uint32_t magic;   /* KMX_ARGS_MAGIC */
    uint32_t version; /* KMX_LAYOUT_VERSION */
    uint64_t nonce;   /* this run's; also in the seal and the result block */
    uint32_t cluster;  /* 1..3: this thread's */
    uint32_t clusters; /* bit c set: cluster c runs this image */
    uint32_t lead;     /* the lowest of them */
    uint32_t bank;     /* this cluster's bank: 6 or 7 */
    uint64_t deadline; /* ticks after the start; 0: none */
    uint32_t prefetch; /* KMX_PREFETCH_* */
    uint32_t nregions; /* <= KMX_MAX_REGIONS */
    uint32_t nwords;   /* <= KMX_MAX_WORDS */
    uint32_t x280_mhz; /* 1000 or 1750 */
    uint64_t reserved0;
    kmx_bank_check check;
    kmx_ring_descriptor ring; /* the ring line, KMX_LIM_RING_LINE */
    kmx_ports_settings ports;
    kmx_pull_settings pull;
    kmx_region_entry regions[KMX_MAX_REGIONS];
    uint32_t words[KMX_MAX_WORDS];
    kmx_peer peers[BH_WORK_CLUSTERS];
    uint64_t reserved1[40];
    kmx_args_seal seal;
} kmx_args;
KMX_SIZE(kmx_args, KMX_LIM_ARGS_BYTES);
KMX_AT(kmx_args, magic, 0);
KMX_AT(kmx_args, version, 4);
KMX_AT(kmx_args, nonce, 8);
KMX_AT(kmx_args, cluster, 16);
KMX_AT(kmx_args, clusters, 20);
KMX_AT(kmx_args, lead, 24);
KMX_AT(kmx_args, bank, 28);
KMX_AT(kmx_args, deadline, 32);
KMX_AT(kmx_args, prefetch, 40);
KMX_AT(kmx_args, nregions, 44);
KMX_AT(kmx_args, nwords, 48);
KMX_AT(kmx_args, x280_mhz, 52);
KMX_AT(kmx_args, reserved0, 56);
KMX_AT(kmx_args, check, 64);
KMX_AT(kmx_args, ring, 128);
KMX_AT(kmx_args, ports, 192);
KMX_AT(kmx_args, pull, 256);
KMX_AT(kmx_args, regions, 320);
KMX_AT(kmx_args, words, 832);
KMX_AT(kmx_args, peers, 1088);
KMX_AT(kmx_args, reserved1, 1664);
KMX_AT(kmx_args, seal, 1984);
KMX_STATIC_ASSERT(KMX_LIM_RING_LINE == KMX_LIM_ARGS + offsetof(kmx_args, ring),
               "the ring line is the argument block's ring");

/* ------------------------------------------------------------------------
 * 5. The result block, at KMX_LIM_RESULT.  The host writes it zero but
 *    `nonce`; the runtime writes the rest, `state` last (after a fence),
 *    so a host that sees a final state sees everything else.
 * ------------------------------------------------------------------------ */
#define KMX_STATE_NONE 0u    /* not started (as the host wrote it) */
#define KMX_STATE_RUNNING 1u /* start-up passed its first check */
#define KMX_STATE_DONE 2u    /* kmx_main returned, regions flushed */
#define KMX_STATE_STOPPED 3u /* ended after a stop (host, or a library error) */
#define KMX_STATE_LATE 4u    /* ended after its deadline */
#define KMX_STATE_TRAPPED 5u /* a core trapped: trap_* say where */
#define KMX_STATE_FAILED 6u  /* a library error: `error` says which */
#define KMX_STATE_FINAL(s) ((s) >= KMX_STATE_DONE)
#define KMX_STATE_NAMES \
    { "none", "running", "done", "stopped", "late", "trapped", "failed" }

/* Library errors (result `error`; the host's ThreadResult.error). */
#define KMX_ERROR_NONE 0u
#define KMX_ERROR_ARGS 1u     /* the argument block is not this run's */
#define KMX_ERROR_REGION 2u   /* a region is out of range (detail: region id) */
#define KMX_ERROR_BANK 3u     /* a region in another bank (detail: id), or the
                                 bank check line differs (detail: 0xFFFFFFFF) */
#define KMX_ERROR_TRAP 4u     /* a core trapped (detail: mcause) */
#define KMX_ERROR_PARALLEL 5u /* a core-0 call from cores 1-3 or inside
                                 kmx_parallel's function */
#define KMX_ERROR_RING 6u     /* a bad ring descriptor */
#define KMX_ERROR_PORTS 7u    /* a bad ports table */
#define KMX_ERROR_PULL 8u     /* a pull log overflowed, or bad settings */
#define KMX_ERROR_SERVE 9u    /* twelve cores: a cluster never served */
#define KMX_ERROR_HOST 10u    /* the host fallback: a call it cannot honour
                                 (kmrun's message names it) */
#define KMX_ERROR_STACK 11u   /* a core's stack overflowed (detail: the core);
                                 written over whatever the overflow left */
#define KMX_ERROR_COUNT 12u
#define KMX_ERROR_NAMES                                                        \
    { "none", "args", "region", "bank", "trap", "parallel", "ring", "ports",   \
      "pull", "serve", "host", "stack" }
#define KMX_DETAIL_CHECK_LINE 0xFFFFFFFFu

/* The calls a `parallel` error names (result `error_call`): the core-0
 * calls of kmx.h. */
#define KMX_API_NONE 0u
#define KMX_API_SPAWN 1u
#define KMX_API_JOIN 2u
#define KMX_API_PARALLEL 3u
#define KMX_API_PARALLEL_ALL 4u
#define KMX_API_SERVE 5u
#define KMX_API_SUBMIT 6u
#define KMX_API_WAIT 7u
#define KMX_API_POLL 8u
#define KMX_API_PORT_RUN 9u
#define KMX_API_PULL_RUN 10u
#define KMX_API_COUNT 11u
#define KMX_API_NAMES                                                              \
    { "", "kmx_spawn", "kmx_join", "kmx_parallel", "kmx_parallel_all", "kmx_serve", \
      "kmx_submit", "kmx_wait", "kmx_poll", "kmx_port_run", "kmx_pull_run" }

/* `prefetch`: what start-up decided.  On the card (and the simulator) a
 * SET decision wrote each core's registers; the host fallback, which has
 * no prefetcher, or's in KMX_PREFETCH_NOT_WRITTEN. */
#define KMX_PREFETCH_NOT_WRITTEN 0x100u /* or'ed in: no registers written (host fallback) */

typedef struct kmx_result_block {
    uint64_t nonce;  /* written by the host: this run's */
    uint32_t state;  /* KMX_STATE_*, written last */
    uint32_t error;  /* KMX_ERROR_*, the first one */
    int32_t code;    /* kmx_main's return */
    uint32_t nwords; /* result words written: highest first + count */
    uint32_t where;  /* the last progress marker */
    uint32_t prefetch; /* KMX_PREFETCH_* | KMX_PREFETCH_NOT_WRITTEN */
    uint64_t where_ticks; /* mtime at the marker; 0 while kmx_progress
                             changes it (a reader skips that state) */
    uint64_t start_ticks; /* mtime at start-up */
    uint64_t end_ticks;   /* mtime when the state became final */
    uint32_t error_core;   /* the core that hit `error` */
    uint32_t error_detail; /* region id, mcause, ... */
    uint64_t trap_mcause;  /* the first trap */
    uint64_t trap_mepc;
    uint64_t trap_mtval;
    uint32_t trap_core;    /* its core (mhartid) */
    uint32_t traps;        /* cores that trapped */
    uint64_t error_pc;     /* a `parallel` error: the call's return address,
                              in its caller (0: none) */
    uint32_t error_call;   /* and which call (KMX_API_*; 0: none) */
    uint32_t reserved0;
    uint64_t reserved0b[2];
    uint32_t words[KMX_MAX_RESULT_WORDS];
    uint64_t reserved1[24];
} kmx_result_block;
KMX_SIZE(kmx_result_block, KMX_LIM_RESULT_BYTES);
KMX_AT(kmx_result_block, nonce, 0);
KMX_AT(kmx_result_block, state, 8);
KMX_AT(kmx_result_block, error, 12);
KMX_AT(kmx_result_block, code, 16);
KMX_AT(kmx_result_block, nwords, 20);
KMX_AT(kmx_result_block, where, 24);
KMX_AT(kmx_result_block, prefetch, 28);
KMX_AT(kmx_result_block, where_ticks, 32);
KMX_AT(kmx_result_block, start_ticks, 40);
KMX_AT(kmx_result_block, end_ticks, 48);
KMX_AT(kmx_result_block, error_core, 56);
KMX_AT(kmx_result_block, error_detail, 60);
KMX_AT(kmx_result_block, trap_mcause, 64);
KMX_AT(kmx_result_block, trap_mepc, 72);
KMX_AT(kmx_result_block, trap_mtval, 80);
KMX_AT(kmx_result_block, trap_core, 88);
KMX_AT(kmx_result_block, traps, 92);
KMX_AT(kmx_result_block, error_pc, 96);
KMX_AT(kmx_result_block, error_call, 104);
KMX_AT(kmx_result_block, reserved0, 108);
KMX_AT(kmx_result_block, reserved0b, 112);
KMX_AT(kmx_result_block, words, 128);
KMX_AT(kmx_result_block, reserved1, 320);

/* ------------------------------------------------------------------------
 * 6. The stop line, the spawn mailboxes and the cluster lines.
 * ------------------------------------------------------------------------ */

/* The stop line, at KMX_LIM_STOP: the host (or the session's runtime)
 * writes `stop` non-zero to ask every core to stop; zero before the start. */
#define KMX_STOP_HOST 1u
typedef struct kmx_stop_line {
    uint32_t stop;
    uint32_t reserved[15];
} kmx_stop_line;
KMX_SIZE(kmx_stop_line, 64);
KMX_AT(kmx_stop_line, stop, 0);

/* A spawn mailbox, one line per core at KMX_LIM_SPAWN (core 0's unused).
 * Core 0 writes function and arg, then (after a fence) kind and posted + 1
 * as one 8-byte store; the core runs it, then (after a fence) writes kind
 * = 0 and (after another) done = posted.  Busy while posted != done; kind
 * is 0 again first, so a look at kind and posted in one load tells an
 * idle core and its count.  alive: the core is in its work loop; halted:
 * it trapped.  Zeroed by core 0 before cores 1-3 may look. */
#define KMX_CALL_SPAWN 1u /* void function(int core, void *arg) */
#define KMX_CALL_ALL 2u   /* void function(int cluster, int core, uint64_t arg) */
#define KMX_CALL_SWEEP 3u /* the library's own: a FLUSH64 sweep */
#define KMX_CALL_PARALLEL 4u /* kmx_parallel's: as SPAWN, with the function and arg
                                the runtime keeps once for cores 1 to 3 */
typedef struct kmx_spawn_mailbox {
    uint64_t function;
    uint64_t arg;
    uint32_t kind; /* KMX_CALL_* */
    uint32_t posted;
    uint32_t done;
    uint32_t alive;
    uint32_t halted;
    uint32_t reserved[7];
} kmx_spawn_mailbox;
KMX_SIZE(kmx_spawn_mailbox, 64);
KMX_AT(kmx_spawn_mailbox, function, 0);
KMX_AT(kmx_spawn_mailbox, arg, 8);
KMX_AT(kmx_spawn_mailbox, kind, 16);
KMX_AT(kmx_spawn_mailbox, posted, 20);
KMX_AT(kmx_spawn_mailbox, done, 24);
KMX_AT(kmx_spawn_mailbox, alive, 28);
KMX_AT(kmx_spawn_mailbox, halted, 32);

/* Twelve cores (kmx_parallel_all): the lead writes a call line into each
 * serving cluster's LIM through a NoC window; each cluster writes its done
 * line (indexed by cluster number) into the lead's LIM. */
#define KMX_CLUSTER_CALL 1u /* run function on all four cores */
#define KMX_CLUSTER_END 2u  /* the lead's kmx_main returned: kmx_serve returns */
typedef struct kmx_cluster_call {
    uint64_t function; /* same image: same address on every cluster */
    uint64_t arg;
    uint32_t sequence; /* call number, from 1; written last */
    uint32_t op;       /* KMX_CLUSTER_* */
    uint32_t lead;
    uint32_t reserved[9];
} kmx_cluster_call;
KMX_SIZE(kmx_cluster_call, 64);
KMX_AT(kmx_cluster_call, function, 0);
KMX_AT(kmx_cluster_call, arg, 8);
KMX_AT(kmx_cluster_call, sequence, 16);
KMX_AT(kmx_cluster_call, op, 20);
KMX_AT(kmx_cluster_call, lead, 24);

typedef struct kmx_cluster_done {
    uint32_t serving; /* 1: the cluster is in kmx_serve */
    uint32_t done;    /* the last call sequence it finished */
    uint32_t status;  /* KMX_OK or why it did not (kmx.h status) */
    uint32_t reserved[13];
} kmx_cluster_done;
KMX_SIZE(kmx_cluster_done, 64);
KMX_AT(kmx_cluster_done, serving, 0);
KMX_AT(kmx_cluster_done, done, 4);
KMX_AT(kmx_cluster_done, status, 8);

typedef struct kmx_cluster_lines {
    kmx_cluster_call call;                 /* written by the lead */
    kmx_cluster_done done[BH_WORK_CLUSTERS + 1u]; /* [c]: by cluster c */
} kmx_cluster_lines;
KMX_SIZE(kmx_cluster_lines, KMX_LIM_CLUSTER_LINES_BYTES);
KMX_AT(kmx_cluster_lines, call, 0);
KMX_AT(kmx_cluster_lines, done, 64);

/* ------------------------------------------------------------------------
 * 7. X280 ports and the pull.
 * ------------------------------------------------------------------------ */

/* A message: a sequence number and three words, landed as one 16-byte
 * NoC write (both directions; km::X280Msg on the Tensix side). */
typedef struct km_x280_msg {
    uint32_t sequence;
    uint32_t w[3];
} km_x280_msg_t;
KMX_SIZE(km_x280_msg_t, 16);
KMX_AT(km_x280_msg_t, sequence, 0);
KMX_AT(km_x280_msg_t, w, 4);

/* A Tensix core's control block in its L1 (the persistent kernel's), and
 * in it the KM_CONTROL_X280 area (64 bytes) where its X280 core stores: a
 * message slot is written as one 16-byte NoC write (the two 8-byte halves
 * of a 16-byte-aligned slot, low first: the window holds the low half and
 * sends both with the high one; device/sim/README.md, "X280 ports").
 * Where the control block lies is the simulator's choice (not public). */
#define KM_CONTROL_L1 0x00000100u
#define KM_CONTROL_X280 0x40u
#define KM_CONTROL_X280_L1 (KM_CONTROL_L1 + KM_CONTROL_X280)
#define KM_CONTROL_X280_BYTES 64u
#define KM_X280_TELL_OFFSET 0u    /* km_x280_msg_t: the newest tell */
#define KM_X280_ANSWER_OFFSET 16u /* km_x280_msg_t: the answer, by ask sequence */
KMX_STATIC_ASSERT(KM_CONTROL_X280_L1 % 64u == 0, "the area is a line");

/* Where a Tensix core's X280 port wait was when it gave up (the spec's
 * kWhereX280*): the command's event `reason` and the run JSON say it.  A
 * wait gives up at the wait limit (KM_PORT_WAIT_LIMIT_NS of modeled time,
 * far inside a command's own limit, so the handler goes on) or when the
 * kernel stops. */
#define KM_WHERE_NONE 0u
#define KM_WHERE_X280_ANSWER 1u /* waiting for the answer to an ask */
#define KM_WHERE_X280_TELL 2u   /* waiting for a tell */
#define KM_WHERE_X280_SEND 3u   /* waiting to send (the last message's NoC write) */
#define KM_WHERE_X280_NONE 4u   /* the program gave the core no X280 core */
#define KM_WHERE_X280_OWNER 5u  /* a second kernel of the core tried to send: refused */
#define KM_PORT_WAIT_LIMIT_NS 10000000u /* 10 ms */

/* The ports area, at KMX_LIM_PORTS: the ports line; the table the host
 * fills (which X280 core of this cluster serves each Tensix core, and
 * through which window); one mailbox line per Tensix core, which that
 * core writes through the NoC; two reserved lines. */
#define KMX_PORTS_OPEN 1u
#define KMX_PORTS_ENDED 2u
#define KMX_PORT_NONE 0xFFu /* table x280_core: not served by this cluster (the host
                               writes the table for every program: all NONE
                               without ports) */

typedef struct kmx_ports_line {
    uint32_t state;    /* 0, KMX_PORTS_OPEN, KMX_PORTS_ENDED */
    uint32_t sequence; /* which kmx_port_run */
    uint32_t reserved[14];
} kmx_ports_line;
KMX_SIZE(kmx_ports_line, 64);
KMX_AT(kmx_ports_line, state, 0);
KMX_AT(kmx_ports_line, sequence, 4);

typedef struct kmx_port_entry {
    uint8_t x280_core;  /* 0..3, or KMX_PORT_NONE */
    uint8_t noc_x, noc_y; /* the Tensix core's tile */
    uint8_t reserved0;
    uint16_t window;    /* its NoC window */
    uint16_t reserved1;
} kmx_port_entry;
KMX_SIZE(kmx_port_entry, 8);
KMX_AT(kmx_port_entry, x280_core, 0);
KMX_AT(kmx_port_entry, noc_x, 1);
KMX_AT(kmx_port_entry, noc_y, 2);
KMX_AT(kmx_port_entry, window, 4);

typedef struct kmx_port_mailbox {
    km_x280_msg_t tell;  /* the Tensix core's newest tell */
    km_x280_msg_t ask;   /* its newest ask */
    uint32_t seen_tell;  /* runtime: last tell sequence looked at */
    uint32_t answered;   /* runtime: last ask sequence answered */
    uint32_t told;       /* runtime: the sequence of its last tell to the core */
    uint32_t reserved[5];
} kmx_port_mailbox;
KMX_SIZE(kmx_port_mailbox, 64);
KMX_AT(kmx_port_mailbox, tell, 0);
KMX_AT(kmx_port_mailbox, ask, 16);
KMX_AT(kmx_port_mailbox, seen_tell, 32);
KMX_AT(kmx_port_mailbox, answered, 36);
KMX_AT(kmx_port_mailbox, told, 40);

typedef struct kmx_ports_area {
    kmx_ports_line line;
    kmx_port_entry table[BH_GRID_CORES];
    kmx_port_mailbox mailbox[BH_GRID_CORES];
    uint32_t reserved[32]; /* (the runtime's own state is in its private area) */
} kmx_ports_area;
KMX_SIZE(kmx_ports_area, KMX_LIM_PORTS_BYTES);
KMX_AT(kmx_ports_area, line, 0);
KMX_AT(kmx_ports_area, table, 64);
KMX_AT(kmx_ports_area, mailbox, 1024);
KMX_AT(kmx_ports_area, reserved, 8704);

/* The pull counters, at KMX_LIM_PULL: the cluster's range counter (an
 * atomic add; cluster `index` of `clusters` hands out ranges index,
 * index + clusters, ...), the kmx_pull_run's settings the lead wrote into
 * every cluster of the group before it started, and how many ranges each
 * Tensix core got. */
typedef struct kmx_pull_counters {
    uint32_t next;      /* atomic: ranges this cluster handed out */
    uint32_t sequence;  /* which kmx_pull_run */
    uint32_t units, per, mode;
    uint32_t log;       /* region id of the log (LOG, REPLAY) */
    uint32_t per_core;  /* ranges the log holds per Tensix core */
    uint32_t index;     /* this cluster's place in the group, 0.. */
    uint32_t clusters;  /* the group's clusters */
    uint32_t overflow;  /* LOG: a core got more ranges than the log holds */
    uint64_t pick;      /* kmx_pick_function, or 0: the counter */
    uint64_t arg;       /* pick's */
    uint32_t reserved0[2];
    uint32_t got[BH_GRID_CORES]; /* per Tensix core: ranges so far */
    uint32_t reserved1[120];
} kmx_pull_counters;
KMX_SIZE(kmx_pull_counters, KMX_LIM_PULL_BYTES);
KMX_AT(kmx_pull_counters, next, 0);
KMX_AT(kmx_pull_counters, sequence, 4);
KMX_AT(kmx_pull_counters, units, 8);
KMX_AT(kmx_pull_counters, per_core, 24);
KMX_AT(kmx_pull_counters, overflow, 36);
KMX_AT(kmx_pull_counters, pick, 40);
KMX_AT(kmx_pull_counters, arg, 48);
KMX_AT(kmx_pull_counters, got, 64);
KMX_AT(kmx_pull_counters, reserved1, 544);

/* ------------------------------------------------------------------------
 * 8. Prints (kmx_print on an X280 core, km_print in a Tensix handler).
 *
 *    A core's print buffer: a line the writer and the drainer share, then
 *    a ring of 8-byte slots.  The writer (the core, never anyone else)
 *    stores a record's slots at head, head + 1, ... (mod KMX_PRINT_SLOTS),
 *    then, after a fence, head += the record's slots: a drainer that sees
 *    head sees the slots.  The drainer (the simulator, between steps;
 *    the host on a card) takes the records from tail to head and then
 *    writes tail.  A record that does not fit in the free slots
 *    (KMX_PRINT_SLOTS - (head - tail)) is not written: the writer counts
 *    it in `dropped` and goes on, so a print never waits.  head and tail
 *    count slots from 0 and wrap at 2^32 (the difference stays right).
 *
 *    A record: the head (3 slots: its size, the format string's address
 *    and when it was printed), then one slot an argument in the format's
 *    order: %d as the value sign-extended to 64 bits, %u %x zero-extended,
 *    %c the byte; %s as a slot holding the string's length n, then
 *    ceil(n / 8) slots of its bytes (no NUL; a NULL pointer is written as
 *    "(null)").  %% takes no slot.  The reader parses the format string
 *    (read where `format` points: the image in LIM on the card, the
 *    handler's or the fallback's host memory) to know which slot is which
 *    (kmx_print_format.h has the one parser both sides use).
 *
 *    A Tensix core's print buffer is the same, KM_PRINT_L1 in its L1 (the
 *    simulator's choice, beside its control block); `when` is then its
 *    modeled time in picoseconds, and on an X280 core mtime ticks.
 * ------------------------------------------------------------------------ */
#define KMX_PRINT_MAGIC 0x5052u /* "PR" */
#define KMX_PRINT_SLOTS ((KMX_PRINT_BUFFER_BYTES - 64u) / 8u) /* 504 */
#define KMX_PRINT_RECORD_MAX_SLOTS 64u /* a record: at most 512 bytes */
#define KMX_PRINT_HEAD_SLOTS 3u
#define KMX_PRINT_STRING_MAX 256u /* a %s's bytes kept; longer ones are cut */
#define KMX_PRINT_FORMAT_MAX 256u /* a format's bytes read; past them it ends */
#define KMX_PRINT_CUT 0x1u        /* record flag: arguments left out (no room) */
#define KM_PRINT_L1 0x00000400u   /* a Tensix core's print buffer in its L1 */

typedef struct kmx_print_line {
    uint32_t head;    /* slots written (the writer's) */
    uint32_t tail;    /* slots taken (the drainer's) */
    uint32_t dropped; /* records dropped for want of room (the writer's) */
    uint32_t reserved[13];
} kmx_print_line;
KMX_SIZE(kmx_print_line, 64);
KMX_AT(kmx_print_line, head, 0);
KMX_AT(kmx_print_line, tail, 4);
KMX_AT(kmx_print_line, dropped, 8);

typedef struct kmx_print_buffer {
    kmx_print_line line;
    uint64_t slots[KMX_PRINT_SLOTS];
} kmx_print_buffer;
KMX_SIZE(kmx_print_buffer, KMX_PRINT_BUFFER_BYTES);
KMX_AT(kmx_print_buffer, line, 0);
KMX_AT(kmx_print_buffer, slots, 64);

typedef struct kmx_print_record {
    uint16_t slots;  /* the whole record's, head included */
    uint16_t magic;  /* KMX_PRINT_MAGIC */
    uint32_t flags;  /* KMX_PRINT_CUT */
    uint64_t format; /* the format string's address */
    uint64_t when;   /* X280: mtime ticks; Tensix, host fallback: picoseconds */
} kmx_print_record;
KMX_SIZE(kmx_print_record, KMX_PRINT_HEAD_SLOTS * 8u);
KMX_AT(kmx_print_record, slots, 0);
KMX_AT(kmx_print_record, magic, 2);
KMX_AT(kmx_print_record, flags, 4);
KMX_AT(kmx_print_record, format, 8);
KMX_AT(kmx_print_record, when, 16);

#endif
