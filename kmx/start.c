/* start.c: the image's main (spec "Writing one"), the cores' work loop,
 * the trap handler and the end of the run.
 *
 * Core 0: zeroes the runtime's private area, checks that the argument
 * block is this run's (error `args`), marks the run running, takes the
 * prefetcher decision, checks every region (errors `region`, `bank`) and
 * the bank check line (error `bank`), lets cores 1-3 go, calls kmx_main(0),
 * records its code, lets spawned work finish, flushes every region, and
 * writes the final state.  Cores 1-3: wait for core 0's go, then run what
 * their spawn mailbox gives them until core 0 ends the run or a stop.
 * Every core ends parked in a wfi loop: the next run resets the cluster. */
#include "kmx_internal.h"

_Static_assert(BH_CLUSTER_CORES == 4u, "crt0.S assumes four cores");

/* Each core's initial stack pointer; crt0.S indexes it by mhartid. */
const uint64_t kmx__stack_tops[BH_CLUSTER_CORES] = {
    KMX_STACK_TOP(0), KMX_STACK_TOP(1), KMX_STACK_TOP(2), KMX_STACK_TOP(3),
};

/* The layout this image was linked for (a loader may compare it with
 * KMX_LAYOUT_VERSION).  In .data on purpose: it makes the image's data
 * segment exist, at its place in LIM, even for a thread without data (an
 * empty PT_LOAD would sit at address 0). */
uint32_t kmx_image_layout __attribute__((section(".data"), used)) = KMX_LAYOUT_VERSION;

void kmx__start(uint64_t core) __attribute__((noreturn));
void kmx__trap(uint64_t core, uint64_t mcause, uint64_t mepc, uint64_t mtval, uint64_t sp)
    __attribute__((noreturn));

void kmx__park(void) {
    for (;;) {
        __asm__ volatile("wfi" ::: "memory");
    }
}

/* The final state (kmx_shared.h, the host fallback's too). */
static uint32_t final_state(int status_at_return) {
    volatile kmx_result_block *r = KMX_RESULT;
    return kmx_final_state(r->traps, r->error, KMX_PRIVATE->ended, status_at_return);
}

/* The state is the last thing written: the host reads the rest once it
 * sees a final one.  Then cores 1-3 leave their loops. */
static void end_run(uint32_t state) {
    volatile kmx_result_block *r = KMX_RESULT;
    r->end_ticks = kmx_time();
    kmx__fence();
    r->state = state;
    kmx__fence();
    KMX_PRIVATE->done = 1;
}

/* Lets cores 1-3 return from what they run before the regions are flushed
 * (a line they dirty after the sweep would stay in the cache).  Ends when
 * each is idle, has left its loop or trapped; after a stop or the
 * deadline, at most KMX_SETTLE_TICKS later. */
static void settle_workers(void) {
    uint64_t limit = 0;
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
        while (kmx__busy(core) && mb->alive && !mb->halted) {
            if (kmx__stop_status() != KMX_OK) {
                uint64_t now = kmx_time();
                if (KMX_SETTLE_OVER(limit, now)) {
                    break;
                }
            }
        }
    }
    kmx__fence();
}

/* ---- The prefetcher -------------------------------------------------------
 * KMX_PREFETCH_HOOK.  The spec has start-up set each core's L2 prefetcher
 * to the values the chip's documentation recommends, unless the host said
 * prefetch="keep".  Each core writes its own two registers (blackhole.h,
 * BH_L2PF: SiFive's recommended basicCtrl and additionalCtrl); core 0
 * records the decision in the result block.  The registers keep their
 * values until a card reset, so "keep" never writes them: the image runs
 * with what the last image on this cluster set, or the reset values. */
static void prefetch_hook(uint64_t core) {
    uint32_t decision = kmx_prefetch_decision(KMX_ARGS->prefetch);
    if (decision == KMX_PREFETCH_SET) {
        volatile uint32_t *pf = (volatile uint32_t *)(uintptr_t)BH_L2PF(core);
        pf[BH_L2PF_BASIC / 4u] = BH_L2PF_BASIC_RECOMMENDED;
        pf[BH_L2PF_ADDITIONAL / 4u] = BH_L2PF_ADDITIONAL_RECOMMENDED;
    }
    if (core == 0) {
        KMX_RESULT->prefetch = decision;
    }
}

/* ---- Start-up checks (core 0) -------------------------------------------- */

/* Every region in range and in this cluster's bank; the check line in
 * range and outside every region (kmx_rules.h). */
static int check_regions(void) {
    const volatile kmx_args *a = KMX_ARGS;
    uint32_t n = a->nregions;
    uint64_t line = a->check.bank_address;
    if (kmx_cluster_bank(a->cluster) != (int)a->bank) {
        kmx__error(KMX_ERROR_BANK, KMX_DETAIL_CHECK_LINE);
        return 0;
    }
    if (line % BH_LINE_BYTES != 0 || line > BH_BANK_BYTES - BH_LINE_BYTES) {
        kmx__error(KMX_ERROR_ARGS, 0);
        return 0;
    }
    for (uint32_t id = 0; id < n; id++) {
        const volatile kmx_region_entry *e = &a->regions[id];
        uint64_t at = e->bank_address;
        uint64_t bytes = e->bytes;
        if (KMX_REGION_OUTSIDE_BANK(at, bytes)) {
            kmx__error(KMX_ERROR_REGION, id);
            return 0;
        }
        if (e->bank != a->bank) {
            kmx__error(KMX_ERROR_BANK, id);
            return 0;
        }
        if (line + BH_LINE_BYTES > at && line < at + bytes) {
            kmx__error(KMX_ERROR_ARGS, 0);
            return 0;
        }
    }
    return 1;
}

/* The cluster sees the bank the host wrote: drop the line from the cache,
 * read it through the cache, drop it again (no trace left). */
static int check_bank_line(void) {
    const volatile kmx_args *a = KMX_ARGS;
    uint64_t address = BH_DRAM_CACHED(a->check.bank_address);
    uint64_t value = a->check.value;
    const volatile uint64_t *words = (const volatile uint64_t *)(uintptr_t)address;
    int ok = 1;
    kmx__sweep_lines(address, address + BH_LINE_BYTES);
    for (unsigned i = 0; i < BH_LINE_BYTES / 8u; i++) {
        if (words[i] != value) {
            ok = 0;
        }
    }
    kmx__sweep_lines(address, address + BH_LINE_BYTES);
    if (!ok) {
        kmx__error(KMX_ERROR_BANK, KMX_DETAIL_CHECK_LINE);
    }
    return ok;
}

static void zero_private(void) {
    volatile uint64_t *w = (volatile uint64_t *)(uintptr_t)KMX_LIM_PRIVATE;
    for (unsigned i = 0; i < sizeof(kmx_private) / 8u; i++) {
        w[i] = 0;
    }
    for (int core = 0; core < (int)BH_CLUSTER_CORES; core++) {
        volatile uint64_t *m = (volatile uint64_t *)(uintptr_t)KMX_MAILBOX(core);
        for (unsigned i = 0; i < sizeof(kmx_spawn_mailbox) / 8u; i++) {
            m[i] = 0;
        }
    }
    kmx__fence();
}

/* Until each of cores 1-3 is in its work loop (or halted, or the run is
 * stopping): a kmx_spawn right at the start of kmx_main must find them
 * there, not still on their way from the boot wait. */
static void wait_workers_alive(void) {
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
        while (!mb->alive && !mb->halted && kmx__stop_status() == KMX_OK) {
        }
    }
    kmx__acquire();
}

static void core0(void) {
    volatile kmx_result_block *r = KMX_RESULT;
    volatile kmx_private *p = KMX_PRIVATE;
    const volatile kmx_args *a = KMX_ARGS;
    uint64_t start = kmx_time();

    zero_private();
    r->start_ticks = start;
    if (!kmx__args_valid()) {
        kmx__error(KMX_ERROR_ARGS, 0);
        end_run(KMX_STATE_FAILED);
        return;
    }
    p->deadline = KMX_DEADLINE_AT(start, a->deadline);
    kmx__fence();
    r->state = KMX_STATE_RUNNING;

    prefetch_hook(0);
    if (!check_regions()) {
        end_run(KMX_STATE_FAILED);
        return;
    }
    p->regions_ok = 1;
    if (!kmx__ring_open() || !kmx__ports_open()) {
        end_run(KMX_STATE_FAILED);
        return;
    }
    if (!check_bank_line()) {
        end_run(KMX_STATE_FAILED);
        return;
    }

    kmx__release();
    p->boot = a->nonce; /* cores 1-3 may go */
    wait_workers_alive();

    int code = kmx_main(0);
    int status = kmx__stop_status();
    r->code = code;
    kmx__twelve_end(); /* the lead: the others' kmx_serve returns */
    kmx__ports_close();

    settle_workers();
    kmx__flush_all_regions();
    end_run(final_state(status));
}

/* Cores 1-3: the spawn mailbox loop. */
static void run_call(uint64_t core, volatile kmx_spawn_mailbox *mb, uint32_t kind) {
    uint64_t function, arg;
    if (kind == KMX_CALL_PARALLEL) {
        function = KMX_PRIVATE->parallel_function;
        arg = KMX_PRIVATE->parallel_arg;
        kind = KMX_CALL_SPAWN;
    } else {
        function = mb->function;
        arg = mb->arg;
    }
    if (kind == KMX_CALL_SPAWN && function != 0) {
        ((kmx_function)(uintptr_t)function)((int)core, (void *)(uintptr_t)arg);
    } else if (kind == KMX_CALL_ALL && function != 0) {
        ((kmx_cluster_function)(uintptr_t)function)(kmx_cluster(), (int)core, arg);
    } else if (kind == KMX_CALL_SWEEP) {
        kmx__sweep_lines(KMX_PRIVATE->sweep_begin[core], KMX_PRIVATE->sweep_end[core]);
    }
}

static void worker(uint64_t core) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    volatile kmx_private *p = KMX_PRIVATE;
    if (!kmx__args_valid()) {
        return; /* core 0 reports it */
    }
    uint64_t nonce = KMX_ARGS->nonce;
    for (;;) { /* until core 0's go, its end, or a stop */
        if (p->boot == nonce) {
            break;
        }
        if (KMX_STATE_FINAL(KMX_RESULT->state) || KMX_STOP_LINE->stop != 0) {
            return;
        }
    }
    kmx__acquire();
    prefetch_hook(core);
    mb->alive = 1;
    kmx__fence();
    /* Until core 0 ends the run, or a stop or the deadline.  `done` is
     * this core's to write, so it stays in a register; a turn reads only
     * `posted` (with `kind`, one 8-byte load), and the end and the stop
     * every KMX_WAIT_CHECK_EVERY turns (kmx_spawn.c says why). */
    uint32_t done = mb->done;
    volatile uint64_t *call = KMX_CALL_WORD(core);
    for (unsigned turn = 1;; turn++) {
        uint64_t word = *call; /* kind and posted: one load */
        uint32_t posted = (uint32_t)(word >> 32);
        if (posted != done) {
            kmx__acquire();
            run_call(core, mb, (uint32_t)word);
            kmx__release();
            mb->kind = 0; /* idle again, for kmx__idle's one load */
            kmx__release();
            mb->done = posted;
            done = posted;
            turn = 0;
            continue;
        }
        if (turn % KMX_WAIT_CHECK_EVERY == 0 && (p->done || kmx__stop_status() != KMX_OK)) {
            break;
        }
    }
    mb->alive = 0;
    kmx__fence();
}

void kmx__start(uint64_t core) {
    if (core == 0) {
        core0();
    } else if (core < BH_CLUSTER_CORES) {
        worker(core);
    }
    kmx__park();
}

/* A trap whose stack pointer is below its core's stack: the stack
 * overflowed, and on its way down it may have written the runtime's own
 * lines, the result block and the argument block (core 0's runs through
 * the reserve into them; core 1's into core 0's stack, and so on).  Nothing
 * there is trusted: this trap is recorded over whatever the overflow left,
 * the error is `stack` (detail: the core), the words and the marker it may
 * have written are dropped, and the regions are not flushed (their table
 * may be gone).  The card has no guard to stop the overflow earlier. */
static void record_overflow(uint64_t core, uint64_t mcause, uint64_t mepc, uint64_t mtval) {
    volatile kmx_private *p = KMX_PRIVATE;
    volatile kmx_result_block *r = KMX_RESULT;
    r->trap_mcause = mcause;
    r->trap_mepc = mepc;
    r->trap_mtval = mtval;
    r->trap_core = (uint32_t)core;
    r->traps = 0; /* the handler counts this one */
    r->nwords = 0;
    r->where = 0;
    r->where_ticks = 0;
    p->trap_claim = 1;
    p->error_claim = 1;
    p->regions_ok = 0;
    p->in_trap[core] = 0;
    KMX_ERROR_PUT(r, (uint32_t)core, KMX_ERROR_STACK, (uint32_t)core, KMX_API_NONE, 0,
                  kmx__fence);
}

/* The trap handler (from crt0.S, on a fresh stack): records the first
 * trap's mcause, mepc, mtval and core, counts the cores that trapped,
 * records the error `trap`, stops the run and halts the core.  A trap on
 * core 0 also ends the run: it lets the other cores settle, flushes every
 * region (if the region checks had passed) and writes the state.  A trap
 * inside the handler halts at once (core 0 still writes the state). */
void kmx__trap(uint64_t core, uint64_t mcause, uint64_t mepc, uint64_t mtval, uint64_t sp) {
    volatile kmx_private *p = KMX_PRIVATE;
    volatile kmx_result_block *r = KMX_RESULT;
    if (core >= BH_CLUSTER_CORES) {
        kmx__park();
    }
    if (sp < KMX_STACK_BASE(core)) {
        record_overflow(core, mcause, mepc, mtval);
    }
    if (p->in_trap[core]) {
        if (core == 0) {
            end_run(KMX_STATE_TRAPPED);
        }
        kmx__park();
    }
    p->in_trap[core] = 1;
    if (__atomic_exchange_n(&p->trap_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        r->trap_mcause = mcause;
        r->trap_mepc = mepc;
        r->trap_mtval = mtval;
        r->trap_core = (uint32_t)core;
    }
    __atomic_fetch_add(&r->traps, 1u, __ATOMIC_SEQ_CST);
    kmx__error(KMX_ERROR_TRAP, (uint32_t)mcause);
    if (core != 0) {
        volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
        mb->halted = 1;
        mb->alive = 0;
        kmx__fence();
        kmx__park();
    }
    p->in_parallel = 0;
    settle_workers();
    if (p->regions_ok) {
        kmx__flush_all_regions();
    }
    end_run(KMX_STATE_TRAPPED);
    kmx__park();
}
