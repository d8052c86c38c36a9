/* kmx.h: the API an X280 thread is written against (spec "X280 threads").
 *
 * A thread is freestanding C on the four cores of a work cluster (1, 2 or
 * 3).  It provides `int kmx_main(int core)`, which the library's start-up
 * calls on core 0 once its checks pass; cores 1 to 3 wait for what
 * kmx_spawn gives them until kmx_main returns.  The return value is the
 * result block's `code`.  Rules (man kmx(3)): every loop terminates (bound
 * it, or poll kmx_stop_requested()); pointers come from kmx_region; no
 * .bss (globals need a non-zero initialiser or
 * __attribute__((section(".data")))); no libc (no memset, memcpy, printf);
 * the image is at most 126,976 bytes.
 *
 * Status codes: every int-returning call returns KMX_OK or one of the
 * others below. */
#ifndef KMX_H
#define KMX_H

#include <stdint.h>

#include "kmx_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define KMX_OK 0      /* done */
#define KMX_BAD 1     /* a bad argument (id, core, range, settings) */
#define KMX_FULL 2    /* no free slot or core yet: try again later */
#define KMX_STOPPED 3 /* a stop was asked (host, runtime, a library error) */
#define KMX_LATE 4    /* a deadline passed (the thread's, or the call's) */
#define KMX_EMPTY 5   /* nothing new: kmx_poll, kmx_port_asked, kmx_port_told */

/* Reason 11 (the kernel's "not now"): see KM_REASON_BUSY in kmx_layout.h. */

/* What the ring returns for a command (or a wake): the fields of its
 * 16-byte event.  For KM_EVENT_DONE of a command submitted with
 * KM_FLAG_RESULT, `ticks` is the group leader's 32-bit result word. */
typedef struct kmx_event {
    uint32_t kind;   /* KM_EVENT_DONE, KM_EVENT_TIMEOUT, KM_EVENT_REJECTED, KMX_EVENT_WAKE */
    uint32_t reason; /* KM_REASON_* when rejected (KM_REASON_BUSY: resubmit after a wake) */
    uint32_t handle; /* the command's number, as kmx_submit gave it; 0 for a wake */
    uint32_t ticks;  /* the result word, or the command's time in ticks */
} kmx_event;

/* A port message: a sequence number and three words (kmx_layout.h). */
typedef km_x280_msg_t kmx_message;

/* Functions the library runs on a core. */
typedef void (*kmx_function)(int core, void *arg);
typedef void (*kmx_cluster_function)(int cluster, int core, uint64_t arg);

/* The pull's settings (spec "The pull").  Fields left out of an
 * initialiser are 0: pick NULL uses the counter. */
typedef uint32_t (*kmx_pick_function)(int core, uint32_t index, uint64_t arg);
typedef struct kmx_pull {
    uint32_t units;         /* units 0 .. units - 1 */
    uint32_t per;           /* units a range */
    uint32_t mode;          /* KMX_PULL_COUNT, KMX_PULL_LOG, KMX_PULL_REPLAY */
    uint32_t log;           /* region id of the log (LOG, REPLAY): KMX_PULL_LOG_BYTES */
    kmx_pick_function pick; /* COUNT: the index-th range of Tensix core `core`,
                               or KMX_PULL_NONE; NULL: the counter */
    uint64_t arg;           /* passed to pick */
} kmx_pull;

/* The thread's main, on core 0; its return value is the result's code. */
int kmx_main(int core);

/* ---- Anywhere (core 0 and cores 1 to 3) ---------------------------------- */

/* The program's own words (`words:` on the host); *nwords (if not NULL)
 * receives how many, at most KMX_MAX_WORDS. */
const uint32_t *kmx_args_get(uint32_t *nwords);

/* Region `id` (own regions first in declaration order, then shared ones),
 * through the cache, 64-byte aligned; *bytes (if not NULL) receives its
 * size.  NULL (and 0 bytes) for an id that does not exist. */
void *kmx_region(uint32_t id, uint64_t *bytes);

/* Region `id`'s DRAM bank and bank address — what a command gives a Tensix
 * handler so it reaches the region over the NoC (the spec's
 * regions.address(name); km_device.h, km_region_address).  KMX_OK, or
 * KMX_BAD for an id that does not exist. */
int kmx_region_address(uint32_t id, uint32_t *bank, uint64_t *bank_address);

/* The cluster this thread runs on (1..3); the clusters that run this
 * image, bit c set for cluster c; the lowest of them, which leads. */
int kmx_cluster(void);
uint32_t kmx_clusters(void);
int kmx_lead(void);

/* The 50 MHz timer: KMX_TICKS_PER_SECOND ticks a second (the spec's name
 * for the card's BH_TICKS_PER_SECOND). */
#define KMX_TICKS_PER_SECOND BH_TICKS_PER_SECOND
uint64_t kmx_time(void);

/* Non-zero once the host or the runtime asked for a stop, a library error
 * ended the run, or the thread's deadline passed.  Poll it in every loop
 * that is not bounded by a count. */
int kmx_stop_requested(void);

/* ---- Regions changing hands ---------------------------------------------- */

/* Before reading what the grid, the host or another cluster wrote: drop
 * the cluster's cached lines of region `id` (a FLUSH64 sweep, which also
 * writes back dirty ones).  On core 0 outside kmx_parallel the sweep is
 * spread over the four cores when they are idle; elsewhere this core
 * sweeps alone.  KMX_BAD for a bad id. */
int kmx_invalidate(uint32_t id);

/* After writing what the grid, the host or another cluster will read:
 * write the cached lines of region `id` back to DRAM (the same sweep). */
int kmx_flush(uint32_t id);

/* The same for bytes [offset, offset + bytes) of region `id` (widened to
 * whole 64-byte lines).  KMX_BAD if the range leaves the region. */
int kmx_invalidate_at(uint32_t id, uint64_t offset, uint64_t bytes);
int kmx_flush_at(uint32_t id, uint64_t offset, uint64_t bytes);

/* Stores `bytes` from `source` into region `id` of `cluster`'s thread (a
 * cluster running this image, this one included) at `offset`, through NoC
 * windows onto that cluster's bank, around every cache: 512-byte vector
 * stores, each one posted NoC write, each 2 MiB span through its own
 * window, then the last line (64 bytes) once more through a non-posted
 * window; returns KMX_OK once that is acknowledged (one core's stores to
 * one tile arrive in order).  The
 * source is read through this cluster's cache.
 * KMX_BAD: offset or bytes not a multiple of 64, source NULL or not 8-byte
 * aligned (with bytes > 0), a bad id, the range past the region's end, a
 * cluster not running this image; and the rule of who pushes when:
 * - on the lead: any time; a push to another cluster first waits until
 *   that cluster serves (KMX_STOPPED / KMX_LATE if the stop or the
 *   deadline ends the wait, as kmx_parallel_all's);
 * - on another cluster: only while it runs a kmx_parallel_all call (in
 *   the call's function, on any of its cores); KMX_BAD otherwise.
 * The receiver's rules, the thread's job: it holds no dirty line of the
 * range when the push lands (it flushed it, or never wrote it: a dirty
 * line written back later would overwrite the pushed bytes), and it
 * invalidates the range (kmx_invalidate_at) before reading it; it learns
 * that the push landed from the lead's next kmx_parallel_all call (a push
 * inside a call: after that call returned). */
int kmx_push(int cluster, uint32_t id, uint64_t offset, const void *source,
             uint64_t bytes);

/* ---- Core 0 only (from cores 1-3 or inside kmx_parallel's function: the
 *      library error `parallel`, the run stops, KMX_STOPPED) ------------- */

/* Starts function(core, arg) on core 1, 2 or 3 and returns at once.
 * KMX_FULL while that core still runs its last spawn; KMX_BAD for another
 * core number or a NULL function; KMX_STOPPED or KMX_LATE once the run is
 * stopping (nothing is started). */
int kmx_spawn(int core, kmx_function function, void *arg);

/* Waits until core `core` (1..3) has returned from its spawn: KMX_OK, or
 * KMX_STOPPED / KMX_LATE when a stop or the deadline ends the wait (or the
 * core trapped).  Joining an idle core returns KMX_OK at once. */
int kmx_join(int core);

/* function(core, arg) on all four cores: spawn on 1 to 3, function(0, arg)
 * here, join.  KMX_FULL (nothing started) if a core is still busy; else as
 * kmx_join. */
int kmx_parallel(kmx_function function, void *arg);

/* Twelve cores, on core 0 of the lead (kmx_lead()): function(cluster,
 * core, arg) on all four cores of every cluster that runs this image.  It
 * writes the call into each other cluster's LIM through a NoC window, runs
 * function here as kmx_parallel does, and waits until each other cluster's
 * done line (in our LIM) says it finished; the first call first waits
 * until every other cluster is in kmx_serve.  `arg` is the same on every
 * cluster; data lives in each cluster's own copy of the regions (each
 * cluster flushes what it wrote that another will read).  KMX_OK;
 * KMX_FULL (nothing started) if one of our cores 1-3 is still busy;
 * KMX_BAD on another cluster or for a NULL function; KMX_STOPPED /
 * KMX_LATE when the stop or the thread's deadline ends a wait (the run
 * then ends stopped or late: a cluster that never serves makes the lead
 * late); or the first status another cluster reported (KMX_FULL: one of
 * its cores was busy; KMX_STOPPED / KMX_LATE: its wait ended so).
 * Inside the function, core 0 may not call the core-0 calls (as in
 * kmx_parallel). */
int kmx_parallel_all(kmx_cluster_function function, uint64_t arg);

/* On core 0 of a cluster other than the lead: tells the lead it serves
 * (a store into the lead's LIM), then runs the lead's kmx_parallel_all
 * calls on its four cores until the lead's kmx_main returns: KMX_OK (also
 * when the lead had returned before; again at once after that).
 * KMX_STOPPED / KMX_LATE at the stop or the thread's deadline (the run
 * ends stopped or late).  KMX_BAD on the lead. */
int kmx_serve(void);

/* The command ring (spec "The command ring"; kmx(3)): core 0 only (the
 * library error `parallel` otherwise); KMX_BAD without a ring.
 *
 * Submits a command through the thread's ring; *handle receives its
 * number, from 1.  KMX_FULL: no free slot yet — take events (kmx_poll,
 * kmx_wait) before trying again: the kernel takes no command while the
 * thread leaves its event ring full.  KMX_STOPPED / KMX_LATE once a stop
 * was asked or the thread's deadline passed. */
int kmx_submit(const km_command_t *command, uint32_t *handle);

/* Waits until the event of `handle` arrives or mtime reaches `deadline`
 * (absolute, in ticks; 0: only the thread's deadline): KMX_OK with *event
 * filled; KMX_LATE or KMX_STOPPED (which end the run as late or stopped).
 * Events of other handles are kept for kmx_poll, up to KMX_RING_KEPT
 * (32): when that many are kept and the next is another handle's,
 * KMX_FULL, and it stays in the ring.  A wake is passed over, and kept
 * for kmx_poll. */
int kmx_wait(uint32_t handle, uint64_t deadline, kmx_event *event);

/* The next event not yet taken (kept ones first, then a wake, then the
 * ring's), without waiting: KMX_OK, or KMX_EMPTY. */
int kmx_poll(kmx_event *event);

/* ---- The result block (core 0; other cores best not: no lock) ----------- */

/* Leaves progress marker `where` and the time; the host reads the last
 * one with the result, also after a timeout. */
void kmx_progress(uint32_t where);

/* A line of text from any core, at any time (kmx(3), "Prints"): the
 * format set is %d %u %x %s %c %% with flags '-' and '0', a width of up
 * to two digits and 'l'/'ll' for 64-bit arguments (kmx_print_format.h).
 * The record — the format's address, the arguments, a %s's bytes — goes
 * into this core's print buffer in LIM; kmrun formats it and shows it as
 * `[c1.2 104.22µs] text` on stderr, in the run folder's prints.txt and in
 * the run JSON's `prints`.  Never waits: KMX_OK, or KMX_FULL when the
 * buffer had no room (the print is dropped and counted). */
int kmx_print(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Stores words[0 .. count) as result words first .. first + count.
 * KMX_BAD if first + count > KMX_MAX_RESULT_WORDS (48). */
int kmx_result(uint32_t first, const uint32_t *words, uint32_t count);

/* ---- X280 ports (spec "X280 ports"); a call names a Tensix core
 *      (0..BH_GRID_CORES-1) the calling X280 core serves, else KMX_BAD.
 *      The program's `ports:` deals the cores; the dealing never changes
 *      during a run, so kmx_port_cores and kmx_port_owner are
 *      KMX_RUN_CONSTANT: a loop may call them once.  On the host fallback
 *      every port call ends the run with the error `host`. ------------- */
#define KMX_RUN_CONSTANT __attribute__((const))

/* How many Tensix cores a port loop walks: 1 + the highest core this
 * cluster serves (BH_GRID_CORES with `ports: default`); 0 without ports. */
KMX_RUN_CONSTANT int kmx_port_cores(void);

/* Which X280 core of this cluster serves Tensix core `core`, or -1. */
KMX_RUN_CONSTANT int kmx_port_owner(int core);

/* Non-zero while the kmx_port_run command has not ended: the lead's core
 * 0 looks at its ring for the command's event every fourth call, and
 * every core at the stop and the deadline.  0 outside kmx_port_run. */
int kmx_port_open(void);

/* Tells Tensix core `core` three words (the newest wins; never waits).
 * KMX_BAD outside kmx_port_run's serve: nothing is stored into a Tensix
 * core once its command ended. */
int kmx_port_tell(int core, uint32_t w0, uint32_t w1, uint32_t w2);

/* The core's ask not yet answered: KMX_OK with *message, or KMX_EMPTY. */
int kmx_port_asked(int core, kmx_message *message);

/* Answers the ask numbered `sequence` with three words (the Tensix core
 * takes only the answer that carries its ask's number).  KMX_BAD outside
 * kmx_port_run's serve. */
int kmx_port_answer(int core, uint32_t sequence, uint32_t w0, uint32_t w1,
                    uint32_t w2);

/* The core's newest tell since the last look: KMX_OK with *message, or
 * KMX_EMPTY once mtime reaches `deadline` (0: look without waiting);
 * KMX_STOPPED / KMX_LATE when the run ends while it waits. */
int kmx_port_told(int core, kmx_message *message, uint64_t deadline);

/* On core 0 of the lead: submits `command` and runs function on every X280
 * core of the group, as kmx_parallel_all does, until the command's event
 * (*event, also KM_EVENT_TIMEOUT or KM_EVENT_REJECTED): KMX_OK; KMX_STOPPED
 * / KMX_LATE when the stop or the deadline ended the serve; KMX_FULL when
 * the ring had no free slot (nothing started); KMX_BAD without ports or
 * a ring.  Each function must call kmx_port_open until it returns 0: the
 * lead's core 0 is the one that sees the event. */
int kmx_port_run(const km_command_t *command, kmx_cluster_function function,
                 uint64_t arg, kmx_event *event);

/* ---- The pull (spec "The pull") ------------------------------------------ */

/* On core 0 of the lead: submits `command` and serves its Tensix cores'
 * pulls (km_port_next) by `settings` (NULL: the manifest's `pull:`) on
 * every X280 core of the group, as kmx_port_run, until its event
 * (*event).  Units 0 .. units - 1 go out in ranges of `per`, each range
 * once, to the first core that asks; cluster `index` of the group's
 * `clusters` hands out ranges index, index + clusters, ... from its own
 * counter in its LIM (COUNT), or pick(core, i, arg) gives core's i-th
 * range (KMX_PULL_NONE: none); LOG also writes each core's ranges to the
 * log region (each cluster its own copy), REPLAY hands out what the log
 * holds, in order.  KMX_BAD before anything is submitted for settings no
 * pull can run (per 0, units 0, an unknown mode, a log region missing or
 * smaller than KMX_PULL_LOG_BYTES(1)), and after the run when a logged
 * core got more ranges than the log holds; otherwise as kmx_port_run. */
int kmx_pull_run(const km_command_t *command, const kmx_pull *settings,
                 kmx_event *event);

#ifdef __cplusplus
}
#endif

#endif
