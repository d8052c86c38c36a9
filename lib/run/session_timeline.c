/* session_timeline: the X280 side of a run's timeline (km_session_timeline)
 * — spans of the thread's functions on each core, found by watching the
 * image run, never by changing it.
 *
 * The observer SIM_CARD_TIMELINE (sim_card_debug.h) probes pcs of each
 * cluster's image, read from its ELF:
 *   - the entries of the functions the timeline names (kmx_main, the
 *     waits, kmx_submit, ...): at an entry the span begins; the return
 *     address (ra) and the stack pointer are pushed on the core's stack of
 *     open spans, and ra becomes a probe;
 *   - the calls through a function pointer inside the runtime (its call
 *     of a spawned function, of kmx_parallel's, of kmx_parallel_all's):
 *     the callee is the pointer's value (named after its symbol), and
 *     the span ends at the instruction after the call;
 *   - kmx_progress's entry: a progress marker (a0) as an instant.
 * A span ends when its core reaches its return pc with the stack pointer
 * it had at the entry: a recursive or tail call returns through the same
 * pc and sp, so spans always nest (a tail call ends with its caller).
 * Spans still open at the stop end there; a span deeper than TL_DEPTH
 * open ones on its core is not drawn (counted as dropped); a probe that
 * cannot be installed (memory) fails the timeline's write.
 *
 * The kernel side (session_timeline_kernel.c) draws the grid, the
 * dispatcher and the commands' flows; a kmx_submit that returned KMX_OK
 * gives it the start of its command's flow.
 *
 * The runtime's own functions are known by name: global ones start with
 * kmx (reserved for the library), static ones are those listed after a
 * runtime source file's STT_FILE symbol (start.c, kmx_*.c). */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>

#include "km_timeline.h"
#include "kmx.h" /* KMX_OK */
#include "ks_elf.h"
#include "ks_grow.h"
#include "sim_card_debug.h"

/* The functions that are spans, by symbol.  The static ones are the
 * runtime's (kmx/): a rename there loses its span, which
 * tests/cli/timeline.bats asks for by name. */
typedef enum act_kind { ACT_ENTRY, ACT_CALL, ACT_MARK } act_kind;
static const struct named {
    const char *symbol;
    bool local; /* a static function of the runtime */
    const char *name, *cat;
} named[] = {
    {"kmx_main", false, "kmx_main", "main"},
    {"kmx_serve", false, "kmx_serve", "main"},
    {"kmx_parallel", false, "kmx_parallel", "parallel"},
    {"kmx_parallel_all", false, "kmx_parallel_all", "parallel"},
    {"kmx_join", false, "kmx_join", "wait"},
    {"join_workers", true, "join (kmx_parallel)", "wait"},
    {"join_here", true, "join (kmx_parallel_all)", "wait"},
    {"wait_serving", true, "wait for the serving clusters", "wait"},
    {"kmx_wait", false, "kmx_wait", "wait"},
    {"kmx_submit", false, "kmx_submit", "ring"},
    {"kmx_port_told", false, "kmx_port_told", "wait"},
    {"kmx_port_run", false, "kmx_port_run", "ports"},
    {"kmx_pull_run", false, "kmx_pull_run", "ports"},
};
#define SUBMIT_SYMBOL "kmx_submit"
#define MARK_SYMBOL "kmx_progress"

typedef struct tl_sym {
    uint64_t addr, size;
    char *name;
    bool runtime;
} tl_sym;

typedef struct tl_act {
    uint64_t pc;
    uint8_t kind;      /* act_kind */
    bool submit;       /* ACT_ENTRY of kmx_submit */
    uint8_t rs1, len;  /* ACT_CALL: the pointer's register, the call's bytes */
    int32_t imm;
    const char *name, *cat; /* ACT_ENTRY; ACT_CALL: cat, name from the callee */
} tl_act;

#define TL_DEPTH 64u

typedef struct tl_frame {
    uint64_t ret, sp, begin;
    const char *name, *cat;
    bool submit;
    uint64_t handle_at; /* kmx_submit's a1 */
} tl_frame;

typedef struct tl_cluster {
    bool on;
    tl_sym *syms; /* by address */
    unsigned nsyms;
    tl_act *acts; /* by pc */
    unsigned nacts;
    uint64_t *rets; /* return pcs probed (sorted): the calls' static ones and the ra's seen */
    unsigned nrets;
    size_t rets_cap;
    tl_frame stack[BH_CLUSTER_CORES][TL_DEPTH];
    unsigned depth[BH_CLUSTER_CORES];
    bool named_track[BH_CLUSTER_CORES];
} tl_cluster;

struct km_session_tl {
    km_timeline *t;
    sim_card *card;
    tl_cluster clusters[BH_WORK_CLUSTERS + 1];
    km_tl_kernel *kernel; /* the kernel side's moments and the commands' flows */
};

/* ---- reading the image ------------------------------------------------------ */

static bool runtime_file(const char *f)
{
    size_t n = strlen(f);
    return strcmp(f, "start.c") == 0 || strcmp(f, "crt0.o") == 0 ||
           (strncmp(f, "kmx_", 4) == 0 && n > 2 && strcmp(f + n - 2, ".c") == 0);
}

static int by_addr(const void *a, const void *b)
{
    const tl_sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_pc(const void *a, const void *b)
{
    const tl_act *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The function symbols, with whether each is the runtime's. */
static int read_symbols(const ks_elf *e, tl_cluster *c, km_error *err)
{
    size_t symtab = ks_elf_find_section(e, SHT_SYMTAB), count = 0, strtab = 0;
    if (!symtab || !ks_elf_symtab(e, symtab, &count, &strtab))
        return km_fail(err, KM_EXIT_BUILD, "the image has no symbol table for the timeline");
    c->syms = calloc(count ? count : 1, sizeof *c->syms);
    if (!c->syms)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the image's symbols");
    const char *file = "";
    for (size_t i = 1; i < count; i++) {
        Elf64_Sym sym;
        if (!ks_elf_symbol(e, symtab, i, &sym))
            break;
        const char *name = ks_elf_string(e, strtab, sym.st_name);
        if (!name)
            continue;
        unsigned type = ELF64_ST_TYPE(sym.st_info), bind = ELF64_ST_BIND(sym.st_info);
        if (type == STT_FILE) {
            file = name;
            continue;
        }
        if (type != STT_FUNC || sym.st_shndx == SHN_UNDEF || !name[0])
            continue;
        tl_sym *s = &c->syms[c->nsyms];
        s->addr = sym.st_value;
        s->size = sym.st_size;
        /* kmx_main is the thread's own */
        s->runtime = bind == STB_LOCAL ? runtime_file(file)
                                       : strncmp(name, "kmx", 3) == 0 && strcmp(name, "kmx_main") != 0;
        s->name = strdup(name);
        if (!s->name)
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the image's symbols");
        c->nsyms++;
    }
    qsort(c->syms, c->nsyms, sizeof *c->syms, by_addr);
    return KM_OK;
}

/* The bytes of [addr, addr + n) in an executable section, or NULL. */
static const uint8_t *code_at(const ks_elf *e, uint64_t addr, uint64_t n)
{
    for (size_t i = 1; i < e->shnum; i++) {
        const Elf64_Shdr *sh = &e->sh[i];
        if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_EXECINSTR))
            continue;
        if (addr >= sh->sh_addr && n <= sh->sh_size && addr - sh->sh_addr <= sh->sh_size - n)
            return e->data + sh->sh_offset + (addr - sh->sh_addr);
    }
    return NULL;
}

static int add_act(tl_cluster *c, size_t *cap, const tl_act *a)
{
    if (!KS_GROW(c->acts, *cap, (size_t)c->nacts + 1))
        return -1;
    c->acts[c->nacts++] = *a;
    return 0;
}

static int add_ret(tl_cluster *c, uint64_t pc)
{
    if (!KS_GROW(c->rets, c->rets_cap, (size_t)c->nrets + 1))
        return -1;
    c->rets[c->nrets++] = pc;
    return 0;
}

/* A call through a register that links ra: c.jalr rs1, or jalr ra,
 * imm(rs1) with rs1 not ra (auipc ra + jalr ra is a direct call). */
static bool indirect_call(const uint8_t *p, unsigned len, uint8_t *rs1, int32_t *imm)
{
    if (len == 2) {
        uint16_t h = (uint16_t)(p[0] | p[1] << 8);
        *rs1 = (uint8_t)((h >> 7) & 31u);
        *imm = 0;
        return (h & 0xf07fu) == 0x9002u && *rs1 != 0 && *rs1 != 1;
    }
    uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    *rs1 = (uint8_t)((w >> 15) & 31u);
    *imm = (int32_t)w >> 20;
    return (w & 0x7fu) == 0x67u && ((w >> 12) & 7u) == 0 && ((w >> 7) & 31u) == 1 && *rs1 != 1;
}

/* Every indirect call in runtime function s (RISC-V code holds no data:
 * a sweep from the entry decodes every instruction). */
static int scan_calls(const ks_elf *e, tl_cluster *c, size_t *cap, const tl_sym *s)
{
    const uint8_t *code = code_at(e, s->addr, s->size);
    if (!code)
        return 0;
    for (uint64_t at = 0; at + 2 <= s->size;) {
        unsigned len = (code[at] & 3u) == 3u ? 4u : 2u;
        if (at + len > s->size)
            break;
        uint8_t rs1;
        int32_t imm;
        if (indirect_call(code + at, len, &rs1, &imm)) {
            tl_act a = {.pc = s->addr + at, .kind = ACT_CALL, .rs1 = rs1, .len = (uint8_t)len,
                        .imm = imm, .cat = "function", .name = s->name};
            if (add_act(c, cap, &a) != 0 || add_ret(c, a.pc + len) != 0)
                return -1;
        }
        at += len;
    }
    return 0;
}

static int read_image(const char *path, tl_cluster *c, km_error *err)
{
    ks_elf e;
    ks_error ke;
    if (ks_elf_open(&e, path, "the thread's image", &ke) != KS_OK)
        return km_fail_from(err, &ke);
    int rc = read_symbols(&e, c, err);
    size_t cap = 0;
    for (unsigned i = 0; rc == KM_OK && i < c->nsyms; i++) {
        const tl_sym *s = &c->syms[i];
        tl_act a = {.pc = s->addr, .kind = ACT_ENTRY};
        bool is = false;
        for (size_t k = 0; k < sizeof named / sizeof named[0] && !is; k++) {
            if (strcmp(s->name, named[k].symbol) == 0 &&
                (named[k].local ? s->runtime : strncmp(s->name, "kmx", 3) == 0)) {
                is = true;
                a.name = named[k].name;
                a.cat = named[k].cat;
                a.submit = strcmp(s->name, SUBMIT_SYMBOL) == 0;
            }
        }
        if (!is && s->runtime && strcmp(s->name, MARK_SYMBOL) == 0) {
            is = true;
            a.kind = ACT_MARK;
        }
        if (is && add_act(c, &cap, &a) != 0)
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the image's code");
        if (rc == KM_OK && s->runtime && scan_calls(&e, c, &cap, s) != 0)
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the image's code");
    }
    ks_elf_close(&e);
    if (rc == KM_OK) {
        qsort(c->acts, c->nacts, sizeof *c->acts, by_pc);
        qsort(c->rets, c->nrets, sizeof *c->rets, by_value);
    }
    return rc;
}

/* ---- the observer ----------------------------------------------------------- */

static const tl_sym *symbol_of(const tl_cluster *c, uint64_t pc)
{
    unsigned lo = 0, hi = c->nsyms;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (c->syms[mid].addr <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const tl_sym *s = &c->syms[lo - 1];
    return pc - s->addr < (s->size ? s->size : 1) ? s : NULL;
}

static const tl_act *act_at(const tl_cluster *c, uint64_t pc)
{
    const tl_act key = {.pc = pc};
    return bsearch(&key, c->acts, c->nacts, sizeof *c->acts, by_pc);
}

/* Every pc this cluster's observer wants: the acts' and the returns'. */
static int install(km_session_tl *tl, unsigned cluster)
{
    tl_cluster *c = &tl->clusters[cluster];
    uint64_t *pcs = malloc(((size_t)c->nacts + c->nrets + 1) * sizeof *pcs);
    if (!pcs)
        return -1;
    unsigned n = 0;
    for (unsigned i = 0; i < c->nacts; i++)
        pcs[n++] = c->acts[i].pc;
    for (unsigned i = 0; i < c->nrets; i++)
        pcs[n++] = c->rets[i];
    ks_error e;
    int rc = sim_card_debug_probes(tl->card, SIM_CARD_TIMELINE, cluster, pcs, n, &e);
    free(pcs);
    return rc == KS_OK ? 0 : -1;
}

/* A return pc becomes a probe the first time a call returns there. */
static void want_ret(km_session_tl *tl, unsigned cluster, uint64_t pc)
{
    tl_cluster *c = &tl->clusters[cluster];
    if (bsearch(&pc, c->rets, c->nrets, sizeof *c->rets, by_value))
        return;
    if (add_ret(c, pc) != 0) {
        km_timeline_lost(tl->t, 0, true);
        return;
    }
    qsort(c->rets, c->nrets, sizeof *c->rets, by_value);
    if (install(tl, cluster) != 0)
        km_timeline_lost(tl->t, 0, true);
}

static void name_track(km_session_tl *tl, unsigned cluster, unsigned core)
{
    tl_cluster *c = &tl->clusters[cluster];
    if (c->named_track[core])
        return;
    c->named_track[core] = true;
    char name[32];
    snprintf(name, sizeof name, "X280 core %u", core);
    km_timeline_track(tl->t, cluster, core, name);
}

static uint64_t reg(km_session_tl *tl, const sim_card_event *ev, unsigned num)
{
    uint64_t v = 0;
    (void)sim_card_debug_get_reg(tl->card, ev->cluster, ev->core, SIM_REG_X, num, &v);
    return v;
}

/* A span ends: recorded, and a kmx_submit that returned KMX_OK starts the
 * flow of its command (the thread's ring is its cluster's). */
static void end_frame(km_session_tl *tl, unsigned cluster, unsigned core, const tl_frame *f,
                      uint64_t end, bool returned, uint64_t a0)
{
    km_timeline_span(tl->t, cluster, core, f->name, f->cat, f->begin, end, NULL, 0);
    if (!f->submit || !returned || (int64_t)a0 != KMX_OK)
        return;
    uint32_t handle = 0;
    if (sim_card_debug_read(tl->card, cluster, core, f->handle_at, &handle, sizeof handle) != 0 ||
        handle == 0)
        return;
    km_tl_kernel_submit(tl->kernel, cluster, handle, cluster, core, f->begin);
}

static void push(km_session_tl *tl, unsigned cluster, unsigned core, const tl_frame *f)
{
    tl_cluster *c = &tl->clusters[cluster];
    if (c->depth[core] == TL_DEPTH) {
        km_timeline_lost(tl->t, 1, false);
        return;
    }
    name_track(tl, cluster, core);
    c->stack[core][c->depth[core]++] = *f;
}

static void on_probe(void *ctx, const sim_card_event *ev)
{
    km_session_tl *tl = ctx;
    if (ev->kind != SIM_CARD_AT_PROBE || ev->cluster < 1 || ev->cluster > BH_WORK_CLUSTERS ||
        ev->core >= BH_CLUSTER_CORES)
        return;
    unsigned cl = ev->cluster, core = ev->core;
    tl_cluster *c = &tl->clusters[cl];
    if (!c->on)
        return;
    uint64_t sp = reg(tl, ev, 2);
    /* Returns first: the instruction after a call may itself be a call. */
    while (c->depth[core] > 0) {
        tl_frame *top = &c->stack[core][c->depth[core] - 1];
        if (top->ret != ev->pc || top->sp != sp)
            break;
        c->depth[core]--;
        end_frame(tl, cl, core, top, ev->ps, true, reg(tl, ev, 10));
    }
    const tl_act *a = act_at(c, ev->pc);
    if (!a)
        return;
    if (a->kind == ACT_MARK) {
        uint64_t marker = reg(tl, ev, 10) & 0xffffffffu;
        char name[32];
        snprintf(name, sizeof name, "marker %llu", (unsigned long long)marker);
        name_track(tl, cl, core);
        km_timeline_instant(tl->t, cl, core, name, "marker", ev->ps, "marker", marker);
        return;
    }
    tl_frame f = {.sp = sp, .begin = ev->ps, .name = a->name, .cat = a->cat};
    if (a->kind == ACT_ENTRY) {
        f.ret = reg(tl, ev, 1);
        f.submit = a->submit;
        f.handle_at = reg(tl, ev, 11);
        want_ret(tl, cl, f.ret);
    } else {
        uint64_t target = reg(tl, ev, a->rs1) + (uint64_t)(int64_t)a->imm;
        const tl_sym *s = symbol_of(c, target);
        f.ret = ev->pc + a->len;
        f.name = s ? s->name : "(function)";
    }
    push(tl, cl, core, &f);
}

/* ---- the session's side ------------------------------------------------------ */

int km_session_timeline(km_session *s, km_timeline *t, km_error *err)
{
    if (s->ops->kind != KM_BACKEND_SIM)
        return km_fail(err, KM_EXIT_USAGE,
                       "the host fallback runs X280 threads on the host, not on simulated "
                       "cores: it has no timeline (run on the simulated card)");
    s->timeline = t;
    return KM_OK;
}

int km_session_tl_attach(km_session *s, km_error *err)
{
    if (!s->timeline || !s->card)
        return KM_OK;
    km_session_tl *tl = calloc(1, sizeof *tl);
    if (!tl)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the timeline");
    s->tl = tl;
    tl->t = s->timeline;
    tl->card = s->card;
    tl->kernel = km_tl_kernel_new(tl->t, s->p);
    if (!tl->kernel)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the timeline");
    for (unsigned i = 0; i < s->plan.nclusters; i++) {
        const km_cluster_plan *cp = &s->plan.clusters[i];
        unsigned cluster = (unsigned)cp->cluster;
        const char *image = km_session_image(s, cp);
        if (cluster < 1 || cluster > BH_WORK_CLUSTERS || !image)
            continue;
        int rc = read_image(image, &tl->clusters[cluster], err);
        if (rc != KM_OK)
            return rc;
        tl->clusters[cluster].on = true;
        char name[48];
        snprintf(name, sizeof name, "X280 cluster %u", cluster);
        km_timeline_process(tl->t, cluster, name, (int)cluster);
    }
    sim_card_debug_observe(s->card, SIM_CARD_TIMELINE, on_probe, tl);
    sim_card_record(s->card, km_tl_kernel_moment, tl->kernel);
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        if (tl->clusters[c].on && install(tl, c) != 0)
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the timeline's probes");
    return KM_OK;
}

/* A profiled run's counter tracks (sim_profile_buckets): each core's
 * share of each SIM_PROFILE_BUCKET_CYCLES of its cluster's time that it
 * ran ("busy") and that its memory accesses stalled it ("memory stall"),
 * in percent, a sample a bucket; 0 after its last. */
static void tl_profile_counters(km_session *s, km_session_tl *tl)
{
    for (unsigned cl = 1; cl <= BH_WORK_CLUSTERS; cl++) {
        for (unsigned core = 0; core < BH_CLUSTER_CORES; core++) {
            const sim_profile *sp = sim_card_profile(s->card, cl, core);
            size_t n = 0;
            const sim_profile_count *b = sp ? sim_profile_buckets(sp, &n) : NULL;
            char name[48];
            snprintf(name, sizeof name, "core %u", core);
            /* an instruction counts in the bucket it starts in: what runs
             * past a bucket's end is carried into the next */
            uint64_t busy = 0, stall = 0;
            for (size_t k = 0; k <= n && n; k++) {
                uint64_t ps = sim_cycles_to_ps_at((uint64_t)k * SIM_PROFILE_BUCKET_CYCLES,
                                                  s->p->x280_mhz);
                busy += k < n ? b[k].cycles : 0;
                stall += k < n ? b[k].memory_stall_cycles : 0;
                uint64_t b_now = busy < SIM_PROFILE_BUCKET_CYCLES ? busy : SIM_PROFILE_BUCKET_CYCLES;
                uint64_t s_now = stall < b_now ? stall : b_now;
                km_timeline_counter(tl->t, cl, name, "busy %", ps,
                                    b_now * 100u / SIM_PROFILE_BUCKET_CYCLES);
                km_timeline_counter(tl->t, cl, name, "memory stall %", ps,
                                    s_now * 100u / SIM_PROFILE_BUCKET_CYCLES);
                busy -= b_now;
                stall -= s_now;
            }
        }
    }
}

void km_session_tl_finish(km_session *s, uint64_t end_ps)
{
    km_session_tl *tl = s->tl;
    if (!tl)
        return;
    sim_card_debug_observe(s->card, SIM_CARD_TIMELINE, NULL, NULL);
    sim_card_record(s->card, NULL, NULL);
    for (unsigned cl = 1; cl <= BH_WORK_CLUSTERS; cl++) {
        tl_cluster *c = &tl->clusters[cl];
        for (unsigned core = 0; core < BH_CLUSTER_CORES; core++) {
            /* One end for all: the spans still open stay nested. */
            uint64_t end = end_ps;
            if (c->depth[core] > 0 && c->stack[core][c->depth[core] - 1].begin > end)
                end = c->stack[core][c->depth[core] - 1].begin;
            while (c->depth[core] > 0) {
                c->depth[core]--;
                end_frame(tl, cl, core, &c->stack[core][c->depth[core]], end, false, 0);
            }
        }
    }
    km_tl_kernel_finish(tl->kernel);
    if (s->profile)
        tl_profile_counters(s, tl);
    km_timeline_clip(tl->t, end_ps);
}

void km_session_tl_free(km_session *s)
{
    km_session_tl *tl = s->tl;
    if (!tl)
        return;
    for (unsigned cl = 0; cl <= BH_WORK_CLUSTERS; cl++) {
        tl_cluster *c = &tl->clusters[cl];
        for (unsigned i = 0; i < c->nsyms; i++)
            free(c->syms[i].name);
        free(c->syms);
        free(c->acts);
        free(c->rets);
    }
    km_tl_kernel_free(tl->kernel);
    free(tl);
    s->tl = NULL;
}
