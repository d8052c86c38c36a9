/* km_trace: the .kmt instruction trace, written and read (km_trace.h).
 *
 * All numbers little-endian.  The header:
 *
 *   0   8  magic "KMTRACE\0"
 *   8   4  version (1)
 *   12  4  header bytes H (records start there)
 *   16  1  cluster       17  1  core       18  2  ranges N
 *   20  4  0
 *   24  8  the size bound, bytes
 *   32 32  the image's SHA-256 (zeros: unknown)
 *   64  2  the image path's length L, then its L bytes
 *   then N ranges [lo, hi), two u64 each, then zeros up to H
 *
 * A record per instruction, from its flag byte f (bit 7 clear):
 *   bit 0  a 2-byte (compressed) instruction
 *   bit 1  pc given: a zigzag varint of pc minus the previous record's pc
 *          plus its length (else it is that: the next instruction)
 *   bit 2  bits given: 2 or 4 bytes (else they are the last ones recorded
 *          at this pc: a 4096-entry table by pc both sides keep)
 *   bits 3-5  writes, 0 to 4
 *   bit 6  a memory byte m follows: bit 0 a load, bit 1 a store, bits 2-3
 *          log2 of the store's size
 * then the cycle it started, a varint of its difference from the
 * previous record's; each write, a varint num << 2 | file (0 x, 1 f,
 * 2 CSR) and, for x and f, a zigzag varint of the value minus the
 * register's last recorded value, for a CSR a varint of the value; the
 * load's address, then the store's, each a zigzag varint from the
 * previous memory address; the store's value, a varint.
 *
 * The end record closes the file, 41 bytes: 0x80, recorded, seen,
 * cut_cycle (u64 each), cut (u8), 7 zeros, "KMTEND\0\0". */
#include "km_trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_elf.h"

#define MAGIC "KMTRACE"
#define END_MAGIC "KMTEND"
#define END_BYTES 41
#define HEADER_FIXED 66
#define BITS_TABLE 4096
#define RECORD_MAX 160 /* flag, memory byte, pc, bits, cycle, 4 writes, 2 addresses, a value */

enum { F_SHORT = 1, F_PC = 2, F_BITS = 4, F_MEM = 0x40, F_END = 0x80 };

/* What both sides keep to make records short. */
typedef struct km_trace_state {
    uint64_t next_pc, cycle, mem;
    uint64_t x[32], f[32];
    struct {
        uint64_t pc;
        uint32_t bits;
    } table[BITS_TABLE];
} km_trace_state;

struct km_trace_writer {
    FILE *f;
    char *path;
    km_trace_meta m;
    km_trace_end end;
    uint64_t bytes; /* written so far */
    bool failed, stopped;
    int err_no;
    km_trace_state st;
};

struct km_trace_reader {
    unsigned char *data;
    size_t size, at, records_end;
    char *path;
    km_trace_meta m;
    km_trace_end end;
    uint64_t read;
    km_trace_state st;
};

/* ---- numbers ---------------------------------------------------------------- */

static void put_le(unsigned char *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static unsigned put_varint(unsigned char *p, uint64_t v)
{
    unsigned n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

static uint64_t zigzag(uint64_t d)
{
    return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

static unsigned slot(uint64_t pc)
{
    return (unsigned)(pc >> 1) & (BITS_TABLE - 1);
}

static int file_kind(char file)
{
    return file == 'x' ? 0 : file == 'f' ? 1 : 2;
}

static bool in_ranges(const km_trace_meta *m, uint64_t pc)
{
    if (!m->nranges)
        return true;
    for (unsigned i = 0; i < m->nranges; i++)
        if (pc >= m->ranges[i].lo && pc < m->ranges[i].hi)
            return true;
    return false;
}

/* ---- writing ------------------------------------------------------------------ */

static bool hex_to_bytes(const char *hex, unsigned char out[32])
{
    if (strlen(hex) != 64)
        return false;
    for (unsigned i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return false;
        out[i] = (unsigned char)v;
    }
    return true;
}

static void emit(km_trace_writer *w, const void *p, size_t n)
{
    if (w->failed)
        return;
    if (fwrite(p, 1, n, w->f) != n) {
        w->failed = true;
        w->err_no = errno;
    }
    w->bytes += n;
}

int km_trace_create(km_trace_writer **out, const char *path, const km_trace_meta *m,
                    km_error *err)
{
    *out = NULL;
    if (m->limit < KM_TRACE_LIMIT_MIN)
        return km_fail(err, KM_EXIT_USAGE, "a trace limit of %llu bytes is too small (at least %llu)",
                       (unsigned long long)m->limit, (unsigned long long)KM_TRACE_LIMIT_MIN);
    if (m->nranges > KM_TRACE_MAX_RANGES)
        return km_fail(err, KM_EXIT_USAGE, "too many trace ranges (at most %u)",
                       KM_TRACE_MAX_RANGES);
    km_trace_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for an instruction trace");
    }
    w->m = *m;
    w->f = fopen(path, "wb");
    if (!w->f) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot create the trace '%s'", path);
        free(w->path);
        free(w);
        return rc;
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 18);
    size_t plen = strlen(m->image);
    size_t hbytes = (HEADER_FIXED + plen + 16 * (size_t)m->nranges + 7) & ~(size_t)7;
    unsigned char *h = calloc(1, hbytes);
    if (!h) {
        fclose(w->f);
        free(w->path);
        free(w);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for an instruction trace");
    }
    memcpy(h, MAGIC, 8);
    put_le(h + 8, KM_TRACE_VERSION, 4);
    put_le(h + 12, hbytes, 4);
    h[16] = (unsigned char)m->cluster;
    h[17] = (unsigned char)m->core;
    put_le(h + 18, m->nranges, 2);
    put_le(h + 24, m->limit, 8);
    (void)hex_to_bytes(m->image_sha256, h + 32);
    put_le(h + 64, plen, 2);
    memcpy(h + HEADER_FIXED, m->image, plen);
    for (unsigned i = 0; i < m->nranges; i++) {
        put_le(h + HEADER_FIXED + plen + 16 * i, m->ranges[i].lo, 8);
        put_le(h + HEADER_FIXED + plen + 16 * i + 8, m->ranges[i].hi, 8);
    }
    emit(w, h, hbytes);
    free(h);
    *out = w;
    return KM_OK;
}

/* c as a record into p; returns its length.  Updates st as the reader will. */
static size_t encode(km_trace_state *st, const sim_commit *c, unsigned char *p)
{
    size_t n = 1;
    unsigned char flags = (unsigned char)((c->len == 2 ? F_SHORT : 0) | (c->nwrites << 3));
    if (c->load || c->store) {
        flags |= F_MEM;
        unsigned size_log = c->store_size == 8 ? 3 : c->store_size == 4 ? 2 : c->store_size == 2;
        p[n++] = (unsigned char)((c->load ? 1 : 0) | (c->store ? 2 : 0) | size_log << 2);
    }
    if (c->pc != st->next_pc) {
        flags |= F_PC;
        n += put_varint(p + n, zigzag(c->pc - st->next_pc));
    }
    unsigned s = slot(c->pc);
    if (st->table[s].pc != c->pc || st->table[s].bits != c->bits) {
        flags |= F_BITS;
        put_le(p + n, c->bits, c->len == 2 ? 2 : 4);
        n += c->len == 2 ? 2 : 4;
        st->table[s].pc = c->pc;
        st->table[s].bits = c->bits;
    }
    n += put_varint(p + n, c->cycle - st->cycle);
    for (unsigned i = 0; i < c->nwrites; i++) {
        const sim_commit_write *wr = &c->writes[i];
        int kind = file_kind(wr->file);
        n += put_varint(p + n, (uint64_t)wr->num << 2 | (unsigned)kind);
        if (kind == 2) {
            n += put_varint(p + n, wr->value);
        } else {
            uint64_t *reg = kind == 0 ? &st->x[wr->num & 31] : &st->f[wr->num & 31];
            n += put_varint(p + n, zigzag(wr->value - *reg));
            *reg = wr->value;
        }
    }
    if (c->load) {
        n += put_varint(p + n, zigzag(c->load_addr - st->mem));
        st->mem = c->load_addr;
    }
    if (c->store) {
        n += put_varint(p + n, zigzag(c->store_addr - st->mem));
        st->mem = c->store_addr;
        n += put_varint(p + n, c->store_value);
    }
    p[0] = flags;
    st->next_pc = c->pc + c->len;
    st->cycle = c->cycle;
    return n;
}

bool km_trace_add(km_trace_writer *w, const sim_commit *c)
{
    if (w->failed || w->stopped)
        return false;
    w->end.seen++;
    if (!in_ranges(&w->m, c->pc))
        return true;
    unsigned char rec[RECORD_MAX];
    /* a record that does not fit leaves no trace: what encode changes */
    km_trace_state *st = &w->st;
    uint64_t next_pc = st->next_pc, cycle = st->cycle, mem = st->mem, regs[SIM_COMMIT_MAX_WRITES];
    unsigned s = slot(c->pc);
    uint64_t slot_pc = st->table[s].pc;
    uint32_t slot_bits = st->table[s].bits;
    for (unsigned i = 0; i < c->nwrites && i < SIM_COMMIT_MAX_WRITES; i++)
        regs[i] = c->writes[i].file == 'x' ? st->x[c->writes[i].num & 31]
                                           : st->f[c->writes[i].num & 31];
    size_t n = encode(st, c, rec);
    if (w->bytes + n + END_BYTES > w->m.limit) {
        st->next_pc = next_pc;
        st->cycle = cycle;
        st->mem = mem;
        st->table[s].pc = slot_pc;
        st->table[s].bits = slot_bits;
        for (unsigned i = c->nwrites; i-- > 0;) /* backwards: a register written twice */
            if (c->writes[i].file == 'x')
                st->x[c->writes[i].num & 31] = regs[i];
            else if (c->writes[i].file == 'f')
                st->f[c->writes[i].num & 31] = regs[i];
        w->stopped = true;
        w->end.cut = true;
        w->end.cut_cycle = c->cycle;
        w->end.seen--;
        return false;
    }
    emit(w, rec, n);
    w->end.recorded++;
    return !w->failed;
}

const km_trace_end *km_trace_status(const km_trace_writer *w)
{
    return &w->end;
}

int km_trace_close(km_trace_writer *w, km_trace_end *end, km_error *err)
{
    if (!w)
        return KM_OK;
    unsigned char e[END_BYTES] = {F_END};
    put_le(e + 1, w->end.recorded, 8);
    put_le(e + 9, w->end.seen, 8);
    put_le(e + 17, w->end.cut_cycle, 8);
    e[25] = w->end.cut;
    memcpy(e + 33, END_MAGIC, 6);
    emit(w, e, sizeof e);
    if (fclose(w->f) != 0 && !w->failed) {
        w->failed = true;
        w->err_no = errno;
    }
    int rc = KM_OK;
    if (w->failed) {
        errno = w->err_no;
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "the trace '%s' was not written in full",
                           w->path);
    }
    if (end)
        *end = w->end;
    free(w->path);
    free(w);
    return rc;
}

/* ---- reading ------------------------------------------------------------------ */

void km_trace_free(km_trace_reader *r)
{
    if (!r)
        return;
    free(r->data);
    free(r->path);
    free(r);
}

static int read_whole(km_trace_reader *r, const char *path, km_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read the trace '%s'", path);
    size_t cap = 1 << 16;
    r->data = malloc(cap);
    while (r->data) {
        size_t got = fread(r->data + r->size, 1, cap - r->size, f);
        r->size += got;
        if (r->size < cap)
            break;
        unsigned char *more = realloc(r->data, cap * 2);
        if (!more) {
            free(r->data);
            r->data = NULL;
            break;
        }
        r->data = more;
        cap *= 2;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!r->data)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the trace '%s'", path);
    if (bad)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read the trace '%s'", path);
    return KM_OK;
}

int km_trace_open(km_trace_reader **out, const char *path, km_error *err)
{
    *out = NULL;
    km_trace_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the trace '%s'", path);
    }
    int rc = read_whole(r, path, err);
    const unsigned char *d = r->data;
    if (rc == KM_OK && r->size < 12 && memcmp(d, MAGIC, r->size < 8 ? r->size : 8) == 0)
        rc = km_fail(err, KM_EXIT_SYSTEM,
                     "the trace '%s' is truncated: it has no end record (%zu bytes; was the "
                     "run that wrote it cut off?)",
                     path, r->size);
    if (rc == KM_OK && (r->size < 12 || memcmp(d, MAGIC, 8) != 0))
        rc = km_fail(err, KM_EXIT_USAGE, "'%s' is not a kmrun instruction trace (no KMTRACE magic)",
                     path);
    if (rc == KM_OK && get_le(d + 8, 4) != KM_TRACE_VERSION)
        rc = km_fail(err, KM_EXIT_USAGE,
                     "the trace '%s' is of format version %llu (this kmrun reads version %d)",
                     path, (unsigned long long)get_le(d + 8, 4), KM_TRACE_VERSION);
    size_t hbytes = rc == KM_OK ? (size_t)get_le(d + 12, 4) : 0;
    size_t plen = rc == KM_OK && r->size >= HEADER_FIXED ? (size_t)get_le(d + 64, 2) : 0;
    unsigned nranges = rc == KM_OK && r->size >= HEADER_FIXED ? (unsigned)get_le(d + 18, 2) : 0;
    if (rc == KM_OK && (r->size < HEADER_FIXED || hbytes > r->size ||
                        HEADER_FIXED + plen + 16 * (size_t)nranges > hbytes ||
                        nranges > KM_TRACE_MAX_RANGES || plen >= sizeof r->m.image))
        rc = km_fail(err, KM_EXIT_SYSTEM,
                     "the trace '%s' is truncated: its header is not whole (%zu bytes; was the "
                     "run that wrote it cut off?)",
                     path, r->size);
    if (rc == KM_OK && (r->size < hbytes + END_BYTES ||
                        memcmp(d + r->size - 8, END_MAGIC "\0\0", 8) != 0 ||
                        d[r->size - END_BYTES] != F_END))
        rc = km_fail(err, KM_EXIT_SYSTEM,
                     "the trace '%s' is truncated: it has no end record (%zu bytes; was the "
                     "run that wrote it cut off?)",
                     path, r->size);
    if (rc != KM_OK) {
        km_trace_free(r);
        return rc;
    }
    km_trace_meta *m = &r->m;
    m->cluster = d[16];
    m->core = d[17];
    m->limit = get_le(d + 24, 8);
    bool sha = false;
    for (unsigned i = 0; i < 32; i++)
        sha |= d[32 + i] != 0;
    for (unsigned i = 0; sha && i < 32; i++)
        snprintf(m->image_sha256 + 2 * i, 3, "%02x", d[32 + i]);
    memcpy(m->image, d + HEADER_FIXED, plen);
    m->image[plen] = 0;
    m->nranges = nranges;
    for (unsigned i = 0; i < nranges; i++) {
        m->ranges[i].lo = get_le(d + HEADER_FIXED + plen + 16 * i, 8);
        m->ranges[i].hi = get_le(d + HEADER_FIXED + plen + 16 * i + 8, 8);
    }
    const unsigned char *e = d + r->size - END_BYTES;
    r->end.recorded = get_le(e + 1, 8);
    r->end.seen = get_le(e + 9, 8);
    r->end.cut_cycle = get_le(e + 17, 8);
    r->end.cut = e[25] != 0;
    r->at = hbytes;
    r->records_end = r->size - END_BYTES;
    *out = r;
    return KM_OK;
}

const km_trace_meta *km_trace_meta_of(const km_trace_reader *r)
{
    return &r->m;
}

const km_trace_end *km_trace_end_of(const km_trace_reader *r)
{
    return &r->end;
}

/* The record's bytes run out: false. */
static bool get_byte(km_trace_reader *r, size_t *at, unsigned char *b)
{
    if (*at >= r->records_end)
        return false;
    *b = r->data[(*at)++];
    return true;
}

static bool get_varint(km_trace_reader *r, size_t *at, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        unsigned char b;
        if (!get_byte(r, at, &b))
            return false;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

static bool decode(km_trace_reader *r, size_t *at, sim_commit *c)
{
    km_trace_state *st = &r->st;
    unsigned char flags, mem = 0;
    uint64_t v;
    if (!get_byte(r, at, &flags) || (flags & F_END) || ((flags >> 3) & 7) > SIM_COMMIT_MAX_WRITES)
        return false;
    if ((flags & F_MEM) && !get_byte(r, at, &mem))
        return false;
    memset(c, 0, sizeof *c);
    c->len = flags & F_SHORT ? 2 : 4;
    c->pc = st->next_pc;
    if (flags & F_PC) {
        if (!get_varint(r, at, &v))
            return false;
        c->pc += unzigzag(v);
    }
    unsigned s = slot(c->pc);
    if (flags & F_BITS) {
        if (*at + c->len > r->records_end)
            return false;
        c->bits = (uint32_t)get_le(r->data + *at, c->len);
        *at += c->len;
        st->table[s].pc = c->pc;
        st->table[s].bits = c->bits;
    } else {
        if (st->table[s].pc != c->pc)
            return false; /* nothing recorded there */
        c->bits = st->table[s].bits;
    }
    if (!get_varint(r, at, &v))
        return false;
    c->cycle = st->cycle + v;
    c->nwrites = (flags >> 3) & 7;
    for (unsigned i = 0; i < c->nwrites; i++) {
        if (!get_varint(r, at, &v) || (v & 3) == 3)
            return false;
        sim_commit_write *wr = &c->writes[i];
        unsigned kind = v & 3;
        wr->file = kind == 0 ? 'x' : kind == 1 ? 'f' : 'c';
        wr->num = (unsigned)(v >> 2);
        if (kind != 2 && wr->num > 31)
            return false;
        if (!get_varint(r, at, &v))
            return false;
        if (kind == 2) {
            wr->value = v;
        } else {
            uint64_t *reg = kind == 0 ? &st->x[wr->num] : &st->f[wr->num];
            wr->value = *reg + unzigzag(v);
            *reg = wr->value;
        }
    }
    if (mem & 1) {
        if (!get_varint(r, at, &v))
            return false;
        c->load = true;
        c->load_addr = st->mem + unzigzag(v);
        st->mem = c->load_addr;
    }
    if (mem & 2) {
        if (!get_varint(r, at, &v))
            return false;
        c->store = true;
        c->store_addr = st->mem + unzigzag(v);
        st->mem = c->store_addr;
        c->store_size = 1u << ((mem >> 2) & 3);
        if (!get_varint(r, at, &c->store_value))
            return false;
    }
    st->next_pc = c->pc + c->len;
    st->cycle = c->cycle;
    return true;
}

int km_trace_next(km_trace_reader *r, sim_commit *c, bool *done, km_error *err)
{
    *done = false;
    if (r->at == r->records_end) {
        if (r->read != r->end.recorded)
            return km_fail(err, KM_EXIT_SYSTEM,
                           "the trace '%s' is damaged: it holds %llu instructions, its end "
                           "record says %llu",
                           r->path, (unsigned long long)r->read,
                           (unsigned long long)r->end.recorded);
        *done = true;
        return KM_OK;
    }
    size_t at = r->at;
    if (!decode(r, &at, c))
        return km_fail(err, KM_EXIT_SYSTEM,
                       "the trace '%s' is damaged: instruction %llu (at byte %zu) cannot be read",
                       r->path, (unsigned long long)r->read + 1, r->at);
    r->at = at;
    r->read++;
    return KM_OK;
}

/* ---- functions ------------------------------------------------------------------ */

int km_trace_function_ranges(const char *image, const char *name, km_trace_meta *m,
                             km_error *err)
{
    ks_elf e;
    ks_error ke;
    if (ks_elf_open(&e, image, "the thread's image", &ke) != KS_OK)
        return km_fail_from(err, &ke);
    size_t symtab = ks_elf_find_section(&e, SHT_SYMTAB), count = 0, strtab = 0;
    int rc = KM_OK;
    unsigned found = 0;
    if (!symtab || !ks_elf_symtab(&e, symtab, &count, &strtab))
        rc = km_fail(err, KM_EXIT_BUILD, "the image '%s' has no symbol table", image);
    for (size_t i = 1; rc == KM_OK && i < count; i++) {
        Elf64_Sym sym;
        if (!ks_elf_symbol(&e, symtab, i, &sym))
            break;
        const char *s = ks_elf_string(&e, strtab, sym.st_name);
        if (!s || strcmp(s, name) != 0 || ELF64_ST_TYPE(sym.st_info) != STT_FUNC ||
            sym.st_shndx == SHN_UNDEF || sym.st_size == 0)
            continue;
        if (m->nranges == KM_TRACE_MAX_RANGES)
            rc = km_fail(err, KM_EXIT_USAGE, "too many trace ranges (at most %u)",
                         KM_TRACE_MAX_RANGES);
        else
            m->ranges[m->nranges++] = (km_trace_range){sym.st_value, sym.st_value + sym.st_size};
        found++;
    }
    ks_elf_close(&e);
    if (rc == KM_OK && !found)
        rc = km_fail(err, KM_EXIT_USAGE, "no function '%s' in the image '%s'", name, image);
    return rc;
}
