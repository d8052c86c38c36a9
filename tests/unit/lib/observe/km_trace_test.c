/* km_trace: every record comes back as it was written (pc jumps, bits
 * that change at a pc, every kind of write, loads, stores of each size,
 * cycles), Spike's line of each included; the filter keeps only what is
 * inside and counts the rest; the size bound cuts between records, says
 * so and leaves a file that reads whole; a file cut short at any length,
 * a foreign file and a damaged record are refused with what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "km_trace.h"
#include "test_random.h"

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/km-trace-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/t.kmt", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    return test_random(&rng);
}

/* n made-up instructions: a program's shapes — straight runs, loops back
 * to the same pcs, jumps both ways, code that changes under a pc. */
static sim_commit *made_up(size_t n)
{
    sim_commit *c = calloc(n, sizeof *c);
    uint64_t pc = 0x8000000, cycle = 5;
    static const unsigned sizes[] = {1, 2, 4, 8};
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next();
        sim_commit *x = &c[i];
        x->pc = pc;
        x->len = r & 1 ? 2 : 4;
        x->bits = x->len == 2 ? (uint32_t)(pc * 7 & 0xfffc) : (uint32_t)(pc * 13) | 3;
        if (r % 97 == 0)
            x->bits ^= 0x100; /* stored over */
        x->cycle = cycle;
        cycle += 1 + (r >> 8) % 3 + (r % 50 == 0 ? 1000000 : 0);
        x->nwrites = (unsigned)(r >> 12) % (SIM_COMMIT_MAX_WRITES + 1);
        for (unsigned k = 0; k < x->nwrites; k++) {
            uint64_t v = next();
            char file = "xxfc"[v & 3];
            unsigned num = file == 'c' ? (unsigned)(v >> 8) % 4096 : (unsigned)(v >> 8) % 32;
            x->writes[k] = (sim_commit_write){file, num, v & 4 ? v : (v >> 20) % 256};
        }
        if ((r >> 20) % 3 == 0) {
            x->load = true;
            x->load_addr = 0x8100000 + (next() % 65536) * 8;
        }
        if ((r >> 22) % 4 == 0) {
            x->store = true;
            x->store_size = sizes[(r >> 24) & 3];
            x->store_addr = (r >> 26) & 1 ? 0x8100000 : 0x40000000 + next() % 4096;
            uint64_t v = next();
            x->store_value = x->store_size == 8 ? v : v & ((1ull << (8 * x->store_size)) - 1);
        }
        if (r % 11 == 0)
            pc = 0x8000000 + (next() % 512) * 2; /* a jump, back or on */
        else
            pc += x->len;
    }
    return c;
}

static km_trace_meta meta(void)
{
    km_trace_meta m = {.cluster = 2, .core = 3, .limit = KM_TRACE_LIMIT_DEFAULT};
    snprintf(m.image, sizeof m.image, "/cache/objects/ab/image.elf");
    snprintf(m.image_sha256, sizeof m.image_sha256, "%s",
             "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    return m;
}

static void same(const sim_commit *a, const sim_commit *b)
{
    assert_int_equal(a->pc, b->pc);
    assert_int_equal(a->bits, b->bits);
    assert_int_equal(a->len, b->len);
    assert_int_equal(a->cycle, b->cycle);
    assert_int_equal(a->nwrites, b->nwrites);
    for (unsigned k = 0; k < a->nwrites; k++) {
        assert_int_equal(a->writes[k].file, b->writes[k].file);
        assert_int_equal(a->writes[k].num, b->writes[k].num);
        assert_int_equal(a->writes[k].value, b->writes[k].value);
    }
    assert_int_equal(a->load, b->load);
    assert_int_equal(a->store, b->store);
    if (a->load)
        assert_int_equal(a->load_addr, b->load_addr);
    if (a->store) {
        assert_int_equal(a->store_addr, b->store_addr);
        assert_int_equal(a->store_size, b->store_size);
        assert_int_equal(a->store_value, b->store_value);
    }
    char ta[SIM_COMMIT_TEXT_MAX], tb[SIM_COMMIT_TEXT_MAX];
    sim_commit_text(a, 3, ta, sizeof ta);
    sim_commit_text(b, 3, tb, sizeof tb);
    assert_string_equal(ta, tb);
}

/* Writes c[0..n) with m; returns how many km_trace_add took. */
static size_t write_trace(const km_trace_meta *m, const sim_commit *c, size_t n,
                          km_trace_end *end)
{
    km_trace_writer *w = NULL;
    km_error e = {0};
    assert_int_equal(km_trace_create(&w, path, m, &e), KM_OK);
    size_t i = 0;
    while (i < n && km_trace_add(w, &c[i]))
        i++;
    assert_int_equal(km_trace_close(w, end, &e), KM_OK);
    return i;
}

/* The instructions of the trace at `path`, each checked against want[]
 * (only those with keep[i], when keep is given); returns how many. */
static size_t read_back(const sim_commit *want, size_t n, const bool *keep)
{
    km_trace_reader *r = NULL;
    km_error e = {0};
    assert_int_equal(km_trace_open(&r, path, &e), KM_OK);
    size_t got = 0, i = 0;
    for (;;) {
        sim_commit c;
        bool done;
        assert_int_equal(km_trace_next(r, &c, &done, &e), KM_OK);
        if (done)
            break;
        while (keep && i < n && !keep[i])
            i++;
        assert_true(i < n);
        same(&want[i++], &c);
        got++;
    }
    assert_int_equal(km_trace_end_of(r)->recorded, got);
    km_trace_free(r);
    return got;
}

static void every_record_comes_back(void **state)
{
    (void)state;
    size_t n = 200000;
    sim_commit *c = made_up(n);
    km_trace_meta m = meta();
    m.ranges[0] = (km_trace_range){0, UINT64_MAX};
    m.nranges = 1;
    km_trace_end end;
    assert_int_equal(write_trace(&m, c, n, &end), n);
    assert_int_equal(end.recorded, n);
    assert_int_equal(end.seen, n);
    assert_false(end.cut);
    assert_int_equal(read_back(c, n, NULL), n);
    km_trace_reader *r = NULL;
    km_error e = {0};
    assert_int_equal(km_trace_open(&r, path, &e), KM_OK);
    const km_trace_meta *got = km_trace_meta_of(r);
    assert_int_equal(got->cluster, 2);
    assert_int_equal(got->core, 3);
    assert_int_equal(got->limit, KM_TRACE_LIMIT_DEFAULT);
    assert_string_equal(got->image, m.image);
    assert_string_equal(got->image_sha256, m.image_sha256);
    assert_int_equal(got->nranges, 1);
    assert_int_equal(got->ranges[0].hi, UINT64_MAX);
    km_trace_free(r);
    free(c);
}

/* A loop's records are a few bytes each: its pcs follow on, its bits are
 * known from the first pass, its counter moves by one. */
static void a_loop_is_a_few_bytes_an_instruction(void **state)
{
    (void)state;
    size_t n = 80000;
    sim_commit *c = calloc(n, sizeof *c);
    for (size_t i = 0; i < n; i++) {
        sim_commit *x = &c[i];
        x->pc = 0x8000400 + (i % 8) * 4;
        x->len = 4;
        x->bits = (uint32_t)(0x00000013 | (i % 8) << 7);
        x->cycle = 100 + i;
        x->nwrites = 1;
        x->writes[0] = (sim_commit_write){'x', 5 + (unsigned)(i % 8), i / 8};
        if (i % 8 == 3) {
            x->load = true;
            x->load_addr = 0x8100000 + (i / 8) * 4;
        }
    }
    km_trace_meta m = meta();
    write_trace(&m, c, n, NULL);
    assert_int_equal(read_back(c, n, NULL), n);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true((size_t)st.st_size < n * 5);
    free(c);
}

static void the_filter_keeps_what_is_inside(void **state)
{
    (void)state;
    size_t n = 20000;
    sim_commit *c = made_up(n);
    bool *keep = calloc(n, sizeof *keep);
    km_trace_meta m = meta();
    m.ranges[0] = (km_trace_range){0x8000100, 0x8000180};
    m.ranges[1] = (km_trace_range){0x8000300, 0x8000302};
    m.nranges = 2;
    size_t inside = 0;
    for (size_t i = 0; i < n; i++) {
        keep[i] = (c[i].pc >= 0x8000100 && c[i].pc < 0x8000180) || c[i].pc == 0x8000300;
        inside += keep[i];
    }
    assert_true(inside > 100 && inside < n / 2);
    km_trace_end end;
    assert_int_equal(write_trace(&m, c, n, &end), n);
    assert_int_equal(end.recorded, inside);
    assert_int_equal(end.seen, n);
    assert_int_equal(read_back(c, n, keep), inside);
    /* the empty range a filter that meets nothing gets: nothing */
    m.ranges[0] = (km_trace_range){0, 0};
    m.nranges = 1;
    assert_int_equal(write_trace(&m, c, n, &end), n);
    assert_int_equal(end.recorded, 0);
    assert_int_equal(read_back(c, n, NULL), 0);
    free(keep);
    free(c);
}

static void the_bound_cuts_and_says_so(void **state)
{
    (void)state;
    size_t n = 100000;
    sim_commit *c = made_up(n);
    km_trace_meta m = meta();
    m.limit = 64 * 1024;
    km_trace_end end;
    size_t took = write_trace(&m, c, n, &end);
    assert_true(took > 1000 && took < n);
    assert_true(end.cut);
    assert_int_equal(end.recorded, took);
    assert_int_equal(end.seen, took);
    assert_int_equal(end.cut_cycle, c[took].cycle);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true((uint64_t)st.st_size <= m.limit);
    assert_true((uint64_t)st.st_size > m.limit - 200); /* it filled what it had */
    assert_int_equal(read_back(c, n, NULL), took);
    km_trace_reader *r = NULL;
    km_error e = {0};
    assert_int_equal(km_trace_open(&r, path, &e), KM_OK);
    assert_true(km_trace_end_of(r)->cut);
    assert_int_equal(km_trace_end_of(r)->cut_cycle, c[took].cycle);
    km_trace_free(r);
    /* a bound below the least is refused */
    m.limit = KM_TRACE_LIMIT_MIN - 1;
    km_trace_writer *w = NULL;
    assert_int_equal(km_trace_create(&w, path, &m, &e), KM_EXIT_USAGE);
    assert_null(w);
    free(c);
}

static unsigned char *slurp(size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *d = malloc(*n);
    assert_int_equal(fread(d, 1, *n, f), *n);
    fclose(f);
    return d;
}

static void spill(const unsigned char *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    fclose(f);
}

static void a_file_cut_short_is_refused_at_any_length(void **state)
{
    (void)state;
    size_t n = 300, size;
    sim_commit *c = made_up(n);
    km_trace_meta m = meta();
    write_trace(&m, c, n, NULL);
    unsigned char *d = slurp(&size);
    for (size_t len = 0; len < size; len++) {
        spill(d, len);
        km_trace_reader *r = NULL;
        km_error e = {0};
        assert_int_equal(km_trace_open(&r, path, &e), KM_EXIT_SYSTEM);
        assert_null(r);
        assert_non_null(strstr(e.message, "is truncated"));
    }
    spill(d, size);
    assert_int_equal(read_back(c, n, NULL), n);
    free(d);
    free(c);
}

static void foreign_and_damaged_files_are_refused(void **state)
{
    (void)state;
    km_trace_reader *r = NULL;
    km_error e = {0};
    spill((const unsigned char *)"core   0: 3 0x0000000080000000 (0x00000297)\n", 45);
    assert_int_equal(km_trace_open(&r, path, &e), KM_EXIT_USAGE);
    assert_non_null(strstr(e.message, "is not a kmrun instruction trace"));
    size_t n = 50, size;
    sim_commit *c = made_up(n);
    km_trace_meta m = meta();
    write_trace(&m, c, n, NULL);
    unsigned char *d = slurp(&size);
    /* another version */
    d[8] = 9;
    spill(d, size);
    assert_int_equal(km_trace_open(&r, path, &e), KM_EXIT_USAGE);
    assert_non_null(strstr(e.message, "format version 9"));
    d[8] = KM_TRACE_VERSION;
    /* the first record's flags made an end record's */
    size_t header = (size_t)d[12] | (size_t)d[13] << 8;
    unsigned char was = d[header];
    d[header] = 0x80;
    spill(d, size);
    assert_int_equal(km_trace_open(&r, path, &e), KM_OK);
    sim_commit got;
    bool done;
    assert_int_equal(km_trace_next(r, &got, &done, &e), KM_EXIT_SYSTEM);
    assert_non_null(strstr(e.message, "is damaged: instruction 1 (at byte"));
    km_trace_free(r);
    d[header] = was;
    /* an end record that counts one more than the file holds */
    d[size - 41 + 1]++;
    spill(d, size);
    assert_int_equal(km_trace_open(&r, path, &e), KM_OK);
    int rc = KM_OK;
    for (done = false; rc == KM_OK && !done;)
        rc = km_trace_next(r, &got, &done, &e);
    assert_int_equal(rc, KM_EXIT_SYSTEM);
    assert_non_null(strstr(e.message, "holds 50 instructions, its end record says 51"));
    km_trace_free(r);
    free(d);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_record_comes_back),
        cmocka_unit_test(a_loop_is_a_few_bytes_an_instruction),
        cmocka_unit_test(the_filter_keeps_what_is_inside),
        cmocka_unit_test(the_bound_cuts_and_says_so),
        cmocka_unit_test(a_file_cut_short_is_refused_at_any_length),
        cmocka_unit_test(foreign_and_damaged_files_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
