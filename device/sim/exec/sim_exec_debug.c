/* sim_exec_debug: a debugger's hold on the hart of `kmrun exec`
 * (sim_exec.h): registers, memory, breakpoints as the hart's probes and
 * watches as its watches, each asking the run to stop before the
 * instruction; a step is one instruction as the run would take it; the
 * hart's triggers as a debugger claims them. */
#include <stdlib.h>
#include <string.h>

#include "sim_exec_internal.h"

int sim_exec_get_reg(sim_exec *x, sim_reg_file file, unsigned num, uint64_t *value)
{
    return sim_hart_get_reg(&x->hart, file, num, value);
}

int sim_exec_set_reg(sim_exec *x, sim_reg_file file, unsigned num, uint64_t value)
{
    return sim_hart_set_reg(&x->hart, file, num, value);
}

/* The host bytes of [addr, addr + n), when one RAM range or the tohost
 * line holds them all. */
static uint8_t *host_bytes(sim_exec *x, uint64_t addr, uint64_t n)
{
    int i = sim_mem_find_ram(&x->mem, addr, n);
    if (i >= 0)
        return x->mem.ram[i].host + (addr - x->mem.ram[i].base);
    if (x->has_tohost && addr - x->line <= LINE && LINE - (addr - x->line) >= n)
        return x->line_host + (addr - x->line);
    return NULL;
}

int sim_exec_read_mem(sim_exec *x, uint64_t addr, void *buf, uint64_t n)
{
    const uint8_t *p = host_bytes(x, addr, n);
    if (!p)
        return -1;
    memcpy(buf, p, n);
    return 0;
}

int sim_exec_write_mem(sim_exec *x, uint64_t addr, const void *buf, uint64_t n)
{
    uint8_t *p = host_bytes(x, addr, n);
    if (!p)
        return -1;
    memcpy(p, buf, n);
    sim_hart_flush_icache(&x->hart);
    return 0;
}

static bool on_break(void *ctx, sim_hart *h)
{
    sim_exec *x = ctx;
    (void)h;
    x->stop = SIM_EXEC_STOP_BREAK;
    return true;
}

static bool on_watch(void *ctx, sim_hart *h, unsigned index, bool store)
{
    sim_exec *x = ctx;
    (void)h;
    x->stop = SIM_EXEC_STOP_WATCH;
    x->stop_watch = index;
    x->stop_store = store;
    return true;
}

int sim_exec_set_breaks(sim_exec *x, const uint64_t *pcs, unsigned n)
{
    if (sim_hart_set_probes(&x->hart, pcs, n) != 0)
        return -1;
    x->hart.probe = on_break;
    x->hart.probe_ctx = x;
    return 0;
}

int sim_exec_set_watches(sim_exec *x, const sim_exec_watch *w, unsigned n)
{
    sim_watch *set = NULL;
    if (n) {
        set = calloc(n, sizeof *set);
        if (!set)
            return -1;
        for (unsigned i = 0; i < n; i++)
            set[i] = (sim_watch){w[i].addr, w[i].len, w[i].load, w[i].store};
    }
    free(x->watches);
    x->watches = set;
    x->nwatches = n;
    x->hart.watches = set;
    x->hart.nwatches = n;
    x->hart.watch = on_watch;
    x->hart.watch_ctx = x;
    return 0;
}

int sim_exec_claim_trigger(sim_exec *x, bool execute, bool load, bool store, uint64_t addr)
{
    return sim_hart_trigger_claim(&x->hart, execute, load, store, addr);
}

void sim_exec_release_trigger(sim_exec *x, int index)
{
    sim_hart_trigger_release(&x->hart, index);
}

void sim_exec_debug(sim_exec *x, bool step, uint64_t max_instructions,
                    bool (*pause)(void *ctx), void *ctx, sim_exec_event *ev)
{
    sim_hart *h = &x->hart;
    memset(ev, 0, sizeof *ev);
    for (;;) {
        if (sim_exec_ended(x, max_instructions, &ev->result)) {
            ev->stop = SIM_EXEC_STOP_END;
            return;
        }
        x->stop = SIM_EXEC_STOP_PAUSE;
        h->trapped = false;
        if (step) {
            /* one instruction, even from a breakpoint's pc */
            bool (*probe)(void *, sim_hart *) = h->probe;
            h->probe = NULL;
            sim_hart_run(h, h->cycle + 1);
            h->probe = probe;
            /* a program the step ended is found by the next call */
            ev->stop = x->stop == SIM_EXEC_STOP_WATCH ? x->stop : SIM_EXEC_STOP_STEP;
        } else {
            sim_hart_run(h, sim_exec_slice_end(x, max_instructions));
            bool stopped = x->stop != SIM_EXEC_STOP_PAUSE; /* a probe's or a watch's */
            if (!stopped && !(pause && pause(ctx)))
                continue;
            ev->stop = stopped ? x->stop : SIM_EXEC_STOP_PAUSE;
        }
        ev->watch = x->stop_watch;
        ev->store = x->stop_store;
        return;
    }
}

void sim_exec_status(sim_exec *x, sim_core_status *st)
{
    sim_hart_status(&x->hart, st);
    st->ps = st->cycles * 1000; /* 1000 MHz */
}
