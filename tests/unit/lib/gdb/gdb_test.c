/* Tests for lib/gdb/km_gdb*.c: the GDB remote server driven from memory
 * against the fake target of gdb_fake.h — framing and acks, the target
 * description, registers, memory, threads, points, resumption and its stop
 * replies, malformed packets, and a deterministic fuzz of many thousand
 * random and mutated packets, each answered and none crashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_fake.h"
#include "km_gdb.h"
#include "test_random.h"

/* The client's side: what the server wrote since the last packet. */
typedef struct wire {
    char out[65536];
    size_t n;
} wire;

static int wire_write(void *arg, const void *data, size_t n)
{
    wire *w = arg;
    if (n > sizeof w->out - w->n)
        return -1;
    memcpy(w->out + w->n, data, n);
    w->n += n;
    return 0;
}

typedef struct session {
    fake_target t;
    wire w;
    km_gdb *g;
    char reply[8192];
} session;

static session *open_session_with(const km_gdb_target_ops *ops)
{
    session *s = calloc(1, sizeof *s);
    assert_non_null(s);
    fake_init(&s->t);
    km_gdb_io io = {.write = wire_write, .read_now = NULL, .arg = &s->w};
    s->g = km_gdb_new(ops, &s->t, &io, 0);
    assert_non_null(s->g);
    return s;
}

static session *open_session(void)
{
    return open_session_with(&fake_ops);
}

static void close_session(session *s)
{
    km_gdb_free(s->g);
    free(s);
}

static void feed(session *s, const char *bytes, size_t n)
{
    s->w.n = 0;
    km_gdb_feed(s->g, (const uint8_t *)bytes, n);
}

static size_t frame(char *buf, size_t size, const char *body, size_t n)
{
    uint8_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = (uint8_t)(sum + (uint8_t)body[i]);
    assert_true(n + 4 <= size);
    buf[0] = '$';
    memcpy(buf + 1, body, n);
    snprintf(buf + 1 + n, 4, "#%02x", sum);
    return n + 4;
}

/* Checks that the wire holds one well-framed reply (after a '+' when
 * acks is true) and copies its body to s->reply. */
static const char *take_reply(session *s, bool acks)
{
    const char *p = s->w.out, *end = s->w.out + s->w.n;
    if (acks) {
        assert_true(p < end);
        assert_int_equal(*p, '+');
        p++;
    }
    assert_true(p < end);
    assert_int_equal(*p, '$');
    const char *hash = memchr(p, '#', (size_t)(end - p));
    assert_non_null(hash);
    assert_int_equal(end - hash, 3);
    uint8_t sum = 0;
    for (const char *q = p + 1; q < hash; q++)
        sum = (uint8_t)(sum + (uint8_t)*q);
    char want[3];
    snprintf(want, sizeof want, "%02x", sum);
    assert_memory_equal(hash + 1, want, 2);
    size_t n = (size_t)(hash - p - 1);
    assert_true(n < sizeof s->reply);
    memcpy(s->reply, p + 1, n);
    s->reply[n] = '\0';
    return s->reply;
}

/* Sends one packet (binary-safe: n bytes) and returns the reply's body. */
static const char *ask_n(session *s, const char *body, size_t n)
{
    static char buf[16384];
    size_t len = frame(buf, sizeof buf, body, n);
    feed(s, buf, len);
    return take_reply(s, true);
}

static const char *ask(session *s, const char *body)
{
    return ask_n(s, body, strlen(body));
}

static void framing_and_acks(void **state)
{
    (void)state;
    session *s = open_session();
    assert_string_equal(ask(s, "?"), "T05thread:1;20:0000000800000000;");
    /* A wrong checksum: '-', and nothing else. */
    feed(s, "$?#00", 5);
    assert_int_equal(s->w.n, 1);
    assert_int_equal(s->w.out[0], '-');
    /* A bad hex digit in the checksum: the same. */
    feed(s, "$?#zz", 5);
    assert_int_equal(s->w.n, 1);
    assert_int_equal(s->w.out[0], '-');
    /* The client's '-' asks for the last reply again. */
    ask(s, "qC");
    feed(s, "-", 1);
    assert_memory_equal(s->w.out, "$QC1#c5", 7);
    /* Noise between packets is ignored; a '$' restarts a packet. */
    feed(s, "xyz\x03+$garbage$qC#b4", 19);
    assert_string_equal(take_reply(s, true), "QC1");
    /* Packets split across feeds. */
    feed(s, "$q", 2);
    assert_int_equal(s->w.n, 0);
    feed(s, "C#b", 3);
    assert_int_equal(s->w.n, 0);
    feed(s, "4", 1);
    assert_string_equal(take_reply(s, true), "QC1");
    /* No-ack mode: no '+', and a bad checksum gets an error reply. */
    assert_string_equal(ask(s, "QStartNoAckMode"), "OK");
    feed(s, "$qC#b4", 6);
    assert_string_equal(take_reply(s, false), "QC1");
    feed(s, "$qC#00", 6);
    assert_string_equal(take_reply(s, false), "E10");
    close_session(s);
}

static void supported_and_description(void **state)
{
    (void)state;
    session *s = open_session();
    const char *r = ask(s, "qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386");
    assert_non_null(strstr(r, "PacketSize=1000"));
    assert_non_null(strstr(r, "qXfer:features:read+"));
    assert_non_null(strstr(r, "QStartNoAckMode+"));
    /* The description read in small chunks, as GDB may. */
    const char *xml = km_gdb_target_xml();
    char got[16384];
    size_t n = 0;
    for (;;) {
        char q[128];
        snprintf(q, sizeof q, "qXfer:features:read:target.xml:%zx,%x", n, 300);
        r = ask(s, q);
        assert_true(r[0] == 'm' || r[0] == 'l');
        size_t len = strlen(r + 1);
        assert_true(n + len < sizeof got);
        memcpy(got + n, r + 1, len);
        n += len;
        if (r[0] == 'l')
            break;
    }
    got[n] = '\0';
    assert_string_equal(got, xml);
    assert_non_null(strstr(xml, "<architecture>riscv:rv64</architecture>"));
    assert_non_null(strstr(xml, "org.gnu.gdb.riscv.cpu"));
    assert_non_null(strstr(xml, "org.gnu.gdb.riscv.fpu"));
    assert_non_null(strstr(xml, "org.gnu.gdb.riscv.csr"));
    assert_non_null(strstr(xml, "<reg name=\"fcsr\" bitsize=\"32\" type=\"int\" regnum=\"68\"/>"));
    assert_non_null(strstr(xml, "<reg name=\"mstatus\" bitsize=\"64\" type=\"int\" regnum=\"833\"/>"));
    assert_non_null(strstr(xml, "<reg name=\"tdata1\" bitsize=\"64\" type=\"int\" regnum=\"2018\"/>"));
    assert_non_null(strstr(xml, "<reg name=\"mhartid\" bitsize=\"64\" type=\"int\" regnum=\"3925\"/>"));
    /* Past the end: "l"; another annex: an error; another object: "". */
    assert_string_equal(ask(s, "qXfer:features:read:target.xml:ffff,10"), "l");
    assert_string_equal(ask(s, "qXfer:features:read:other.xml:0,10"), "E01");
    assert_string_equal(ask(s, "qXfer:libraries:read::0,10"), "");
    assert_string_equal(ask(s, "vMustReplyEmpty"), "");
    assert_string_equal(ask(s, "qAttached"), "1");
    assert_string_equal(ask(s, "vCont?"), "vCont;c;C;s;S");
    close_session(s);
}

static void registers(void **state)
{
    (void)state;
    session *s = open_session();
    s->t.hart[0].x[1] = 0x1122334455667788ull;
    s->t.hart[0].csr[3] = 0xe5; /* fcsr: frm 7, fflags 5 */
    const char *g = ask(s, "g");
    assert_int_equal(strlen(g), 33 * 16);
    assert_memory_equal(g + 16, "8877665544332211", 16);
    assert_memory_equal(g + 32 * 16, "0000000800000000", 16); /* pc */
    assert_string_equal(ask(s, "p20"), "0000000800000000");
    assert_string_equal(ask(s, "P5=efbeadde00000000"), "OK");
    assert_int_equal(s->t.hart[0].x[5], 0xdeadbeef);
    assert_string_equal(ask(s, "p5"), "efbeadde00000000");
    assert_string_equal(ask(s, "P0=0100000000000000"), "OK"); /* x0 stays zero */
    assert_int_equal(s->t.hart[0].x[0], 0);
    assert_string_equal(ask(s, "p44"), "e5000000");        /* fcsr */
    assert_string_equal(ask(s, "p42"), "05000000");        /* fflags */
    assert_string_equal(ask(s, "p43"), "07000000");        /* frm */
    assert_string_equal(ask(s, "P43=02000000"), "OK");
    assert_int_equal(s->t.hart[0].csr[3], 0x45);
    assert_string_equal(ask(s, "p341"), "0000000000000000"); /* mstatus */
    assert_string_equal(ask(s, "P341=0018000000000000"), "OK");
    assert_int_equal(s->t.hart[0].csr[0x300], 0x1800);
    assert_string_equal(ask(s, "Hg2"), "OK");
    assert_string_equal(ask(s, "pf55"), "0100000000000000"); /* mhartid */
    assert_string_equal(ask(s, "Pf55=0000000000000000"), "E05"); /* read-only */
    /* Registers the description does not have, and malformed ones. */
    assert_string_equal(ask(s, "p41"), "E03");
    assert_string_equal(ask(s, "p7ff"), "E03");
    assert_string_equal(ask(s, "p10000000000000000"), "E01");
    assert_string_equal(ask(s, "pzz"), "E01");
    assert_string_equal(ask(s, "p"), "E01");
    assert_string_equal(ask(s, "p5x"), "E01");
    assert_string_equal(ask(s, "P5=1234"), "E01");
    assert_string_equal(ask(s, "P5=efbeadde0000000g"), "E01");
    assert_string_equal(ask(s, "P5"), "E01");
    /* G: the same 33 registers back, on thread 2. */
    char G[1 + 33 * 16 + 1];
    G[0] = 'G';
    memset(G + 1, '0', 33 * 16);
    G[1 + 33 * 16] = '\0';
    memcpy(G + 1 + 10 * 16, "2a00000000000000", 16); /* a0 = 42 */
    memcpy(G + 1 + 32 * 16, "0400000800000000", 16); /* pc */
    assert_string_equal(ask(s, G), "OK");
    assert_int_equal(s->t.hart[1].x[10], 42);
    assert_int_equal(s->t.hart[1].pc, FAKE_BASE + 4);
    G[100] = 'q';
    assert_string_equal(ask(s, G), "E01");
    G[1 + 33 * 16 - 1] = '\0';
    assert_string_equal(ask(s, G), "E01");
    assert_string_equal(ask(s, "g1"), "E01");
    close_session(s);
}

static void memory(void **state)
{
    (void)state;
    session *s = open_session();
    /* The program's first word: addi t0, zero, 0 = 0x00000293. */
    assert_string_equal(ask(s, "m8000000,4"), "93020000");
    assert_string_equal(ask(s, "M8001000,4:01020304"), "OK");
    assert_string_equal(ask(s, "m8001000,4"), "01020304");
    /* Another cluster's thread sees its own memory. */
    assert_string_equal(ask(s, "Hg3"), "OK");
    assert_string_equal(ask(s, "m8001000,4"), "00000000");
    assert_string_equal(ask(s, "Hg0"), "OK"); /* any: the stopped thread's */
    assert_string_equal(ask(s, "m8001000,4"), "01020304");
    /* X: binary, with '}' escapes of '#', '$', '}' and '*'. */
    const char x[] = "X8001010,4:}\x03}\x04}]}\x0a";
    assert_string_equal(ask_n(s, x, sizeof x - 1), "OK");
    assert_string_equal(ask(s, "m8001010,4"), "23247d2a");
    assert_string_equal(ask(s, "X8001010,0:"), "OK"); /* GDB's probe */
    assert_string_equal(ask_n(s, "X8001010,2:a}", 13), "E01");
    assert_string_equal(ask_n(s, "X8001010,3:ab", 13), "E01");
    /* Outside memory, and across its end. */
    assert_string_equal(ask(s, "m0,4"), "E0e");
    assert_string_equal(ask(s, "m800fffe,4"), "E0e");
    assert_string_equal(ask(s, "M0,1:00"), "E0e");
    assert_string_equal(ask(s, "mffffffffffffffff,10"), "E0e");
    /* A long read is cut to what a reply holds. */
    assert_int_equal(strlen(ask(s, "m8000000,ffff")), KM_GDB_PACKET_SIZE);
    /* Malformed. */
    assert_string_equal(ask(s, "m"), "E01");
    assert_string_equal(ask(s, "m8000000"), "E01");
    assert_string_equal(ask(s, "m8000000,"), "E01");
    assert_string_equal(ask(s, "m8000000,0"), "E01");
    assert_string_equal(ask(s, "m,4"), "E01");
    assert_string_equal(ask(s, "mz,4"), "E01");
    assert_string_equal(ask(s, "m8000000,4x"), "E01");
    assert_string_equal(ask(s, "M8001000,4:010203"), "E01");
    assert_string_equal(ask(s, "M8001000,4:0102030g"), "E01");
    assert_string_equal(ask(s, "M8001000,4"), "E01");
    assert_string_equal(ask(s, "M8001000,1000000:00"), "E01");
    close_session(s);
}

static void threads(void **state)
{
    (void)state;
    session *s = open_session();
    assert_string_equal(ask(s, "qfThreadInfo"), "m1,2,3,4");
    assert_string_equal(ask(s, "qsThreadInfo"), "l");
    assert_string_equal(ask(s, "qC"), "QC1");
    /* "cluster 2 core 0" in hex. */
    assert_string_equal(ask(s, "qThreadExtraInfo,3"), "636c7573746572203220636f72652030");
    assert_string_equal(ask(s, "qThreadExtraInfo,5"), "E02");
    assert_string_equal(ask(s, "qThreadExtraInfo,"), "E01");
    assert_string_equal(ask(s, "T4"), "OK");
    assert_string_equal(ask(s, "T5"), "E02");
    assert_string_equal(ask(s, "T0"), "E02");
    assert_string_equal(ask(s, "Tx"), "E01");
    assert_string_equal(ask(s, "Hc-1"), "OK");
    assert_string_equal(ask(s, "Hg-1"), "E02");
    assert_string_equal(ask(s, "Hg5"), "E02");
    assert_string_equal(ask(s, "Hg-2"), "E01");
    assert_string_equal(ask(s, "Hx1"), "E01");
    assert_string_equal(ask(s, "H"), "E01");
    assert_string_equal(ask(s, "Hg1x"), "E01");
    const char *r = ask(s, "qXfer:threads:read::0,1000");
    assert_int_equal(r[0], 'l');
    assert_non_null(strstr(r, "<thread id=\"2\" core=\"1\" name=\"cluster 1 core 1\"/>"));
    assert_non_null(strstr(r, "<thread id=\"4\" core=\"3\" name=\"cluster 2 core 1\"/>"));
    close_session(s);
}

static void points_steps_and_the_end(void **state)
{
    (void)state;
    session *s = open_session();
    ask(s, "qSupported:swbreak+;hwbreak+");
    /* A software breakpoint at the store: thread 1 reaches it first. */
    assert_string_equal(ask(s, "Z0,8000008,4"), "OK");
    assert_string_equal(ask(s, "vCont;c"), "T05thread:1;swbreak:;20:0800000800000000;");
    assert_string_equal(ask(s, "qC"), "QC1");
    assert_string_equal(ask(s, "z0,8000008,4"), "OK");
    /* A step of thread 1 only: the store is done, the others stay. */
    uint64_t pc2 = s->t.hart[1].pc;
    assert_string_equal(ask(s, "vCont;s:1;c"), "T05thread:1;20:0c00000800000000;");
    assert_int_equal(s->t.hart[1].pc, pc2);
    assert_string_equal(ask(s, "m8001000,8"), "0100000000000000");
    /* A step of another thread; legacy s on Hc's thread. */
    assert_string_equal(ask(s, "vCont;s:3"), "T05thread:3;20:0c00000800000000;");
    assert_string_equal(ask(s, "qC"), "QC3");
    assert_string_equal(ask(s, "Hc2"), "OK");
    assert_string_equal(ask(s, "s"), "T05thread:2;20:0c00000800000000;");
    /* A hardware breakpoint, then a write watchpoint on thread 2's word. */
    assert_string_equal(ask(s, "Z1,8000014,4"), "OK");
    assert_string_equal(ask(s, "Z2,8001008,8"), "OK");
    const char *r = ask(s, "vCont;c");
    assert_string_equal(r, "T05thread:4;watch:8001008;20:0800000800000000;");
    /* Thread 4 (cluster 2 core 1) writes gp+8 of its own cluster. */
    assert_string_equal(ask(s, "z2,8001008,8"), "OK");
    r = ask(s, "c");
    assert_string_equal(r, "T05thread:1;hwbreak:;20:1400000800000000;");
    assert_string_equal(ask(s, "z1,8000014,4"), "OK");
    assert_string_equal(ask(s, "z1,8000014,4"), "E05"); /* no longer there */
    assert_string_equal(ask(s, "Z3,8001000,8"), "OK");
    assert_string_equal(ask(s, "z3,8001000,8"), "OK");
    /* Bad points. */
    assert_string_equal(ask(s, "Z0,8000008,3"), "E01");
    assert_string_equal(ask(s, "Z2,8001008,0"), "E01");
    assert_string_equal(ask(s, "Z0,8000008"), "E01");
    assert_string_equal(ask(s, "Z0,8000008,4;X1,0"), "E01");
    assert_string_equal(ask(s, "Z5,8000008,4"), "");
    /* How vCont's actions become a resume. */
    static const struct {
        const char *packet;
        int thread;
        bool step, others;
    } vconts[] = {
        {"vCont;c", -1, false, true},      {"vCont;c:2", 1, false, false},
        {"vCont;s:2", 1, true, false},     {"vCont;s:2;c", 1, true, true},
        {"vCont;c:2;s:3", 2, true, true},  {"vCont;c:1;c:2", -1, false, true},
        {"vCont;S05:4;C05", 3, true, true}, {"vCont;s", 0, true, false},
    };
    for (size_t i = 0; i < sizeof vconts / sizeof *vconts; i++) {
        session *v = open_session();
        v->t.budget = 1;
        ask(v, vconts[i].packet);
        assert_int_equal(v->t.last_resume.thread, vconts[i].thread);
        assert_int_equal(v->t.last_resume.step, vconts[i].step);
        assert_int_equal(v->t.last_resume.others, vconts[i].others);
        close_session(v);
    }
    /* The end: every hart's ecall. */
    assert_string_equal(ask(s, "vCont;c"), "W00");
    assert_int_equal(km_gdb_state_of(s->g), KM_GDB_EXITED);
    close_session(s);
}

static void traps_stuck_and_ctrl_c(void **state)
{
    (void)state;
    session *s = open_session();
    /* An illegal instruction where thread 1 is: SIGILL. */
    fake_put32(s->t.mem[0], 0, 0xffffffff);
    assert_string_equal(ask(s, "c"), "T04thread:1;20:0000000800000000;");
    /* A loop forever (jal zero, 0) in cluster 2: stuck at the budget (SIGXCPU, which GDB stops on)... */
    close_session(s);
    s = open_session();
    for (int c = 0; c < 2; c++)
        fake_put32(s->t.mem[c], 0, 0x0000006f);
    s->t.budget = 5000;
    assert_string_equal(ask(s, "vCont;c"), "T18thread:1;20:0000000800000000;");
    /* ...or stopped by Ctrl-C, sent right behind the packet. */
    s->t.budget = FAKE_BUDGET;
    char buf[64];
    size_t n = frame(buf, sizeof buf, "vCont;c", 7);
    buf[n++] = 0x03;
    feed(s, buf, n);
    assert_string_equal(take_reply(s, true), "T02thread:1;20:0000000800000000;");
    /* A bad vCont is refused before anything runs. */
    int resumes = s->t.resumes;
    assert_string_equal(ask(s, "vCont;x"), "E01");
    assert_string_equal(ask(s, "vCont;"), "E01");
    assert_string_equal(ask(s, "vCont;s:9"), "E02");
    assert_string_equal(ask(s, "vCont;C"), "E01");
    assert_string_equal(ask(s, "vCont;c;;"), "E01");
    assert_string_equal(ask(s, "vCont;c:1x"), "E01");
    assert_string_equal(ask(s, "cz"), "E01");
    assert_int_equal(s->t.resumes, resumes);
    /* c ADDR resumes at ADDR. */
    fake_put32(s->t.mem[0], 0x20, 0x00100073); /* ebreak: cause 3, SIGTRAP */
    assert_string_equal(ask(s, "c8000020"), "T05thread:1;20:2000000800000000;");
    close_session(s);
}

static int zero_threads(void *ctx)
{
    (void)ctx;
    return 0;
}

static void too_long_detach_kill(void **state)
{
    (void)state;
    session *s = open_session();
    static char big[KM_GDB_PACKET_SIZE + 100];
    memset(big, 'm', sizeof big);
    assert_string_equal(ask_n(s, big, sizeof big), "E16");
    assert_string_equal(ask_n(s, big, KM_GDB_PACKET_SIZE), "E01");
    assert_string_equal(ask(s, ""), "");
    assert_string_equal(ask(s, "D"), "OK");
    assert_int_equal(km_gdb_state_of(s->g), KM_GDB_DETACHED);
    assert_int_equal(s->t.detached, 1);
    close_session(s);
    s = open_session();
    char buf[16];
    size_t n = frame(buf, sizeof buf, "k", 1);
    feed(s, buf, n);
    assert_int_equal(km_gdb_state_of(s->g), KM_GDB_KILLED);
    assert_int_equal(s->t.killed, 1);
    assert_int_equal(s->w.n, 1); /* the ack, no reply */
    close_session(s);
    /* No server without a writer or a thread. */
    km_gdb_io io = {.write = wire_write, .arg = NULL};
    km_gdb_target_ops none = fake_ops;
    none.thread_count = zero_threads;
    fake_target t;
    assert_null(km_gdb_new(&none, &t, &io, 0));
    km_gdb_io no_write = {0};
    assert_null(km_gdb_new(&fake_ops, &t, &no_write, 0));
}

/* ---- the fuzz ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    return test_random(&rng);
}

static const char *const seeds[] = {
    "?", "g", "p20", "p44", "p341", "P5=0100000000000000", "m8000000,10", "M8001000,2:abcd",
    "X8001000,2:ab", "Z0,8000008,4", "z0,8000008,4", "Z2,8001000,8", "z2,8001000,8",
    "Z1,8000010,2", "vCont;s:1", "vCont;s:2;c", "vCont;c", "vCont?", "s", "c", "Hg2", "Hc3",
    "T3", "qfThreadInfo", "qsThreadInfo", "qC", "qThreadExtraInfo,2", "qAttached",
    "qSupported:swbreak+;hwbreak+", "qXfer:features:read:target.xml:0,200",
    "qXfer:threads:read::10,40", "QStartNoAckMode", "vMustReplyEmpty", "qSymbol::",
};

static const char alphabet[] = "0123456789abcdefABCDEFxz,:;=-+}#$*mMgGpPXZzcsvHTq?\x03";

static void fuzz(void **state)
{
    (void)state;
    session *s = open_session();
    s->t.budget = 300;
    char body[KM_GDB_PACKET_SIZE + 64], buf[sizeof body + 8];
    int replies = 0, errors = 0;
    for (int i = 0; i < 30000; i++) {
        size_t n;
        uint64_t r = next_random();
        if (r % 4 == 0) { /* random bytes from the protocol's alphabet */
            n = next_random() % 40;
            for (size_t k = 0; k < n; k++)
                body[k] = alphabet[next_random() % (sizeof alphabet - 1)];
        } else if (r % 4 == 1 && r % 64 == 1) { /* now and then, very long */
            n = KM_GDB_PACKET_SIZE - 8 + next_random() % 16;
            for (size_t k = 0; k < n; k++)
                body[k] = (char)(next_random() % 256);
        } else { /* a valid packet, mutated */
            const char *seed = seeds[next_random() % (sizeof seeds / sizeof *seeds)];
            n = strlen(seed);
            memcpy(body, seed, n);
            int edits = (int)(next_random() % 4);
            for (int e = 0; e < edits && n; e++) {
                size_t at = next_random() % n;
                switch (next_random() % 4) {
                case 0: body[at] = (char)(next_random() % 256); break;
                case 1: body[at] = alphabet[next_random() % (sizeof alphabet - 1)]; break;
                case 2: n = at; break;                         /* cut */
                default: memmove(body + at + 1, body + at, n - at); /* repeat */
                    n++;
                }
            }
        }
        /* The body may hold '#' or '$' after a mutation: that is framing
         * noise the server must survive; only clean packets are counted. */
        bool clean = memchr(body, '#', n) == NULL && memchr(body, '$', n) == NULL &&
                     (n == 0 || (body[0] != 'k' && memcmp(body, "vKill", n < 5 ? n : 5) != 0 &&
                                 body[0] != 'D'));
        size_t len = frame(buf, sizeof buf, body, n);
        if (next_random() % 16 == 0) /* a wrong checksum */
            buf[len - 1] = buf[len - 1] == '0' ? '1' : '0';
        s->w.n = 0;
        km_gdb_state st = km_gdb_feed(s->g, (const uint8_t *)buf, len);
        if (st != KM_GDB_SERVING) {
            close_session(s); /* D, k, the program's end: a new session */
            s = open_session();
            s->t.budget = 300;
            continue;
        }
        if (clean && s->w.n > 0 && memchr(s->w.out, '$', s->w.n)) {
            /* Every reply is one well-framed packet within PacketSize. */
            const char *d = memchr(s->w.out, '$', s->w.n);
            const char *h = memchr(d, '#', (size_t)(s->w.out + s->w.n - d));
            assert_non_null(h);
            assert_true(h - d - 1 <= KM_GDB_PACKET_SIZE);
            replies++;
            if (d[1] == 'E')
                errors++;
        }
        /* Leave the framing idle for the next packet whatever happened. */
        feed(s, "#00", 3);
    }
    print_message("# fuzz: %d clean replies, %d of them errors\n", replies, errors);
    assert_true(replies > 10000);
    close_session(s);
}

/* ---- vector registers, monitor commands, conditions ---- */

/* What the extended fake below saw and holds. */
static uint8_t vregs[32][KM_GDB_VLENB];
static km_gdb_conds last_conds;
static int conditioned;

static int ext_read_vreg(void *ctx, int thread, unsigned v, uint8_t *bytes)
{
    (void)ctx;
    (void)thread;
    memcpy(bytes, vregs[v], KM_GDB_VLENB);
    return 0;
}

static int ext_write_vreg(void *ctx, int thread, unsigned v, const uint8_t *bytes)
{
    (void)ctx;
    (void)thread;
    memcpy(vregs[v], bytes, KM_GDB_VLENB);
    return 0;
}

static int ext_condition(void *ctx, km_gdb_point type, uint64_t addr, const km_gdb_conds *c)
{
    (void)ctx;
    (void)type;
    (void)addr;
    last_conds = *c;
    conditioned++;
    return 0;
}

static int ext_status(void *ctx, int thread, km_gdb_status *st)
{
    (void)ctx;
    *st = (km_gdb_status){.state = thread ? "waiting" : "running", .pc = 0x8000008,
                          .instructions = 100u + (unsigned)thread, .cycles = 1000,
                          .mem_cycles = 250, .ps = 1000000u * (unsigned)(thread + 1)};
    return 0;
}

static int ext_source(void *ctx, int thread, uint64_t pc, km_gdb_source *src)
{
    (void)ctx;
    (void)thread;
    (void)pc;
    *src = (km_gdb_source){.known = true, .function = "spin", .file = "a.c", .line = 3};
    return 0;
}

/* The monitor command `text`: the O packets' text into out, the last
 * reply returned. */
static const char *monitor(session *s, const char *text, char *out, size_t size)
{
    char q[256] = "qRcmd,";
    for (size_t i = 0; text[i]; i++)
        snprintf(q + strlen(q), sizeof q - strlen(q), "%02x", (unsigned char)text[i]);
    static char buf[512];
    size_t len = frame(buf, sizeof buf, q, strlen(q));
    feed(s, buf, len);
    const char *p = s->w.out, *end = s->w.out + s->w.n;
    assert_true(p < end && *p == '+');
    p++;
    size_t at = 0;
    out[0] = '\0';
    for (;;) {
        assert_true(p < end && *p == '$');
        const char *hash = memchr(p, '#', (size_t)(end - p));
        assert_non_null(hash);
        size_t n = (size_t)(hash - p - 1);
        if (p[1] != 'O' || n == 1 || hash + 3 == end) {
            assert_true(hash + 3 == end); /* the last */
            assert_true(n < sizeof s->reply);
            memcpy(s->reply, p + 1, n);
            s->reply[n] = '\0';
            return s->reply;
        }
        for (const char *h = p + 2; h + 1 < hash && at + 1 < size; h += 2) {
            unsigned c;
            sscanf(h, "%2x", &c);
            out[at++] = (char)c;
        }
        out[at] = '\0';
        p = hash + 3;
    }
}

static void vectors_monitor_and_conditions(void **state)
{
    (void)state;
    char text[8192];
    /* A target without them: no vector registers, no conditions offered
     * or taken, the monitor's help but not its views. */
    session *s = open_session();
    assert_null(strstr(ask(s, "qSupported:swbreak+"), "ConditionalBreakpoints"));
    assert_string_equal(ask(s, "p1042"), "E05"); /* v0 */
    assert_string_equal(ask(s, "p1061"), "E05"); /* v31 */
    assert_string_equal(ask(s, "p1062"), "E03"); /* past v31 */
    assert_string_equal(ask(s, "Z0,8000008,4;X3,220127"), "E01");
    assert_string_equal(monitor(s, "help", text, sizeof text), "OK");
    assert_non_null(strstr(text, "monitor where"));
    assert_string_equal(monitor(s, "", text, sizeof text), "OK"); /* `monitor`: help */
    assert_non_null(strstr(text, "monitor timeline"));
    assert_string_equal(monitor(s, "cores", text, sizeof text), "E05");
    assert_non_null(strstr(text, "keeps no state"));
    assert_string_equal(monitor(s, "bogus", text, sizeof text), "E01");
    assert_string_equal(text, "kmrun: unknown monitor command 'bogus' (monitor help lists them)\n");
    assert_string_equal(monitor(s, "cores now", text, sizeof text), "E01");
    assert_non_null(strstr(text, "takes no arguments"));
    assert_string_equal(ask(s, "qRcmd,6"), "E01"); /* odd hex */
    close_session(s);

    km_gdb_target_ops ops = fake_ops;
    ops.read_vreg = ext_read_vreg;
    ops.write_vreg = ext_write_vreg;
    ops.condition_point = ext_condition;
    ops.status = ext_status;
    ops.source_of = ext_source;
    s = open_session_with(&ops);
    assert_non_null(strstr(ask(s, "qSupported:swbreak+"), ";ConditionalBreakpoints+"));
    for (unsigned i = 0; i < KM_GDB_VLENB; i++)
        vregs[1][i] = (uint8_t)i;
    const char *r = ask(s, "p1043"); /* v1: element 0 first */
    assert_int_equal(strlen(r), 2 * KM_GDB_VLENB);
    assert_memory_equal(r, "000102030405", 12);
    assert_memory_equal(r + 2 * KM_GDB_VLENB - 4, "3e3f", 4);
    char p[200] = "P1044=";
    for (unsigned i = 0; i < KM_GDB_VLENB; i++)
        snprintf(p + strlen(p), sizeof p - strlen(p), "%02x", 0xff - i);
    assert_string_equal(ask(s, p), "OK");
    assert_int_equal(vregs[2][0], 0xff);
    assert_int_equal(vregs[2][63], 0xc0);
    p[strlen(p) - 2] = '\0'; /* one byte short */
    assert_string_equal(ask(s, p), "E01");
    /* The description has them, as QEMU's rv64gcv hart has */
    const char *xml = km_gdb_target_xml();
    assert_non_null(strstr(xml, "<feature name=\"org.gnu.gdb.riscv.vector\">"));
    assert_non_null(strstr(xml, "<vector id=\"bytes\" type=\"uint8\" count=\"64\"/>"));
    assert_non_null(strstr(xml, "<field name=\"l\" type=\"longs\"/>"));
    assert_non_null(strstr(xml, "<reg name=\"v31\" bitsize=\"512\" type=\"riscv_vector\" "
                                "group=\"vector\" regnum=\"4193\"/>"));
    assert_non_null(strstr(xml, "<reg name=\"vlenb\" bitsize=\"64\" type=\"int\" regnum=\"3171\"/>"));
    assert_non_null(strstr(xml, "<reg name=\"vstart\" bitsize=\"64\" type=\"int\" regnum=\"73\"/>"));
    /* Conditions: two, handed over whole; none is a condition-less insert */
    assert_string_equal(ask(s, "Z0,8000008,4;X3,220127;X5,2200220113"), "OK");
    assert_int_equal(conditioned, 1);
    assert_int_equal(last_conds.count, 2);
    assert_int_equal(last_conds.n[0], 3);
    assert_int_equal(last_conds.n[1], 5);
    assert_memory_equal(last_conds.code, "\x22\x01\x27\x22\x00\x22\x01\x13", 8);
    assert_string_equal(ask(s, "Z0,8000008,4"), "OK");
    assert_int_equal(last_conds.count, 0);
    assert_string_equal(ask(s, "Z0,8000008,4;X3,2201"), "E01");  /* cut short */
    assert_string_equal(ask(s, "Z0,8000008,4;X0,"), "E01");      /* empty */
    assert_string_equal(ask(s, "Z0,8000008,4;Y3,220127"), "E01"); /* not X */
    assert_string_equal(ask(s, "Z2,8001000,8;X3,220127"), "E01"); /* a watch has none */
    /* The monitor's views */
    assert_string_equal(monitor(s, "cores", text, sizeof text), "OK");
    assert_non_null(strstr(text, "1       cluster 1 core 0 running  0x0000000008000008 spin\n"));
    assert_non_null(strstr(text, "4       cluster 2 core 1 waiting  0x0000000008000008 spin\n"));
    assert_string_equal(monitor(s, "stats", text, sizeof text), "OK");
    assert_non_null(strstr(text, "memory_stall_cycles"));
    assert_non_null(strstr(text, "            103           1000                  250\n"));
    assert_string_equal(monitor(s, "  where ", text, sizeof text), "OK");
    assert_non_null(strstr(text, "0x0000000008000008 spin at a.c:3\n"));
    assert_string_equal(monitor(s, "timeline", text, sizeof text), "OK");
    /* thread 4's 4 us fill the bar, thread 1's 1 us a quarter of it;
     * of each, a quarter stalled on memory (250 of 1000 cycles) */
    assert_non_null(strstr(text, "##############################~~~~~~~~~~          4.000 us"));
    assert_non_null(strstr(text, "#######~~~..............................          1.000 us"));
    close_session(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(framing_and_acks),
        cmocka_unit_test(supported_and_description),
        cmocka_unit_test(registers),
        cmocka_unit_test(memory),
        cmocka_unit_test(threads),
        cmocka_unit_test(points_steps_and_the_end),
        cmocka_unit_test(traps_stuck_and_ctrl_c),
        cmocka_unit_test(too_long_detach_kill),
        cmocka_unit_test(fuzz),
        cmocka_unit_test(vectors_monitor_and_conditions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
