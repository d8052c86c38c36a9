/* km_gdb: a GDB remote serial protocol server (all-stop) over an abstract
 * target, so that gdb-multiarch can debug the X280 cores of a run.
 *
 * The server is a byte-in, byte-out state machine: km_gdb_feed takes what
 * the client sent, answers through km_gdb_io.write, and calls the target's
 * ops for registers, memory, breakpoints and resumption.  It holds no
 * socket and starts no thread: km_gdb_socket.c serves it on TCP, tests feed
 * it from memory.  Every packet is checked (framing, checksum, size, hex,
 * thread, register); a bad one gets an error reply ("E NN") or, when the
 * packet is merely unsupported, the empty reply — never a crash.  Memory
 * use is fixed: one packet buffer and one reply buffer of
 * KM_GDB_PACKET_SIZE bytes each.
 *
 * Threads: each target thread (an X280 core of a kmrun thread) is a GDB
 * thread; the target numbers them 0..count-1, GDB sees 1..count.
 * Registers carry GDB's RISC-V numbers (KM_GDB_REG_*): x0-x31 0..31, pc
 * 32, f0-f31 33..64, then 65 + the CSR's number (fcsr 68, mstatus 833),
 * as QEMU's target description gives them, and v0-v31 4162..4193 (GDB's
 * own numbers for them, riscv-tdep.h: past the CSRs and the privilege
 * register), each KM_GDB_VLENB bytes in QEMU's "org.gnu.gdb.riscv.vector"
 * feature.  fflags and frm are the server's views of fcsr; the target
 * only knows fcsr. */
#ifndef KM_GDB_H
#define KM_GDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest packet either side sends, in bytes between '$' and '#';
 * advertised in qSupported (PacketSize). */
#define KM_GDB_PACKET_SIZE 4096

/* Register numbers (GDB's for riscv:rv64). */
enum {
    KM_GDB_REG_X0 = 0,
    KM_GDB_REG_PC = 32,
    KM_GDB_REG_F0 = 33,
    KM_GDB_REG_CSR0 = 65, /* + a CSR's number */
    KM_GDB_REG_FFLAGS = 65 + 0x001,
    KM_GDB_REG_FRM = 65 + 0x002,
    KM_GDB_REG_FCSR = 65 + 0x003,
    KM_GDB_REG_MSTATUS = 65 + 0x300,
    KM_GDB_REG_MIE = 65 + 0x304,
    KM_GDB_REG_MTVEC = 65 + 0x305,
    KM_GDB_REG_MSCRATCH = 65 + 0x340,
    KM_GDB_REG_MEPC = 65 + 0x341,
    KM_GDB_REG_MCAUSE = 65 + 0x342,
    KM_GDB_REG_MTVAL = 65 + 0x343,
    KM_GDB_REG_MIP = 65 + 0x344,
    KM_GDB_REG_TSELECT = 65 + 0x7a0,
    KM_GDB_REG_TDATA1 = 65 + 0x7a1,
    KM_GDB_REG_TDATA2 = 65 + 0x7a2,
    KM_GDB_REG_MCYCLE = 65 + 0xb00,
    KM_GDB_REG_MINSTRET = 65 + 0xb02,
    KM_GDB_REG_MHARTID = 65 + 0xf14,
    KM_GDB_REG_VSTART = 65 + 0x008,
    KM_GDB_REG_VXSAT = 65 + 0x009,
    KM_GDB_REG_VXRM = 65 + 0x00a,
    KM_GDB_REG_VCSR = 65 + 0x00f,
    KM_GDB_REG_VL = 65 + 0xc20,
    KM_GDB_REG_VTYPE = 65 + 0xc21,
    KM_GDB_REG_VLENB = 65 + 0xc22,
    KM_GDB_REG_V0 = 4162,
};

/* Bytes of a vector register (the X280's VLEN, 512 bits). */
#define KM_GDB_VLENB 64

/* Breakpoints and watchpoints, numbered as the Z packets number them. */
typedef enum km_gdb_point {
    KM_GDB_SW_BREAK = 0,    /* Z0: kind is 2 (c.ebreak) or 4 (ebreak) */
    KM_GDB_HW_BREAK = 1,    /* Z1: a trigger on the pc */
    KM_GDB_WATCH_WRITE = 2, /* Z2..Z4: kind is the length in bytes */
    KM_GDB_WATCH_READ = 3,
    KM_GDB_WATCH_ACCESS = 4,
} km_gdb_point;

/* Conditions a breakpoint's target evaluates (Z0 and Z1 with a
 * cond_list; the server offers ConditionalBreakpoints when the target has
 * condition_point): GDB's agent expressions, bytecode, each n[i] bytes of
 * code, one after another.  The breakpoint stops its thread only when one
 * of them is non-zero — or when one cannot be evaluated (an opcode not
 * for conditions, memory or a register not there, division by zero, a
 * loop past KM_GDB_AGENT_STEPS): then it stops as if true, as GDB stops
 * when a condition it evaluates fails, and the user sees why there.
 * Passing over a false one is no stop: nothing reaches the client. */
#define KM_GDB_MAX_CONDS 8
#define KM_GDB_COND_BYTES 1024
#define KM_GDB_AGENT_STEPS 100000
typedef struct km_gdb_conds {
    unsigned count;
    uint16_t n[KM_GDB_MAX_CONDS];
    uint8_t code[KM_GDB_COND_BYTES];
} km_gdb_conds;

/* A thread as the monitor commands show it (gdb_monitor.c). */
typedef struct km_gdb_status {
    const char *state; /* "running", "waiting" (wfi), "halted", "idle" (not started) */
    uint64_t pc;
    uint64_t instructions, cycles, mem_cycles; /* retired; modeled; memory's stalls of them */
    uint64_t ps;                               /* modeled time: picoseconds from the start */
} km_gdb_status;

/* Where an address is in the sources (the image's DWARF). */
typedef struct km_gdb_source {
    bool known;
    char function[256]; /* "" when unknown */
    char file[512];
    unsigned line;
} km_gdb_source;

/* Why the target stopped. */
typedef enum km_gdb_reason {
    KM_GDB_STOP_BREAK,     /* a software breakpoint's pc was reached */
    KM_GDB_STOP_HW_BREAK,  /* a hardware breakpoint's */
    KM_GDB_STOP_WATCH,     /* a watchpoint: watch, addr */
    KM_GDB_STOP_STEP,      /* the step asked for is done */
    KM_GDB_STOP_TRAP,      /* the thread trapped: cause (mcause) */
    KM_GDB_STOP_INTERRUPT, /* the poll said the client pressed Ctrl-C */
    KM_GDB_STOP_STUCK,     /* the run's policy found the thread stuck */
    KM_GDB_STOP_EXITED,    /* the program ended: exit_code */
} km_gdb_reason;

typedef struct km_gdb_stop {
    km_gdb_reason reason;
    int thread;        /* 0..count-1: the thread that stopped */
    int signal;        /* GDB's signal number; 0: the server picks by reason */
    km_gdb_point watch; /* KM_GDB_STOP_WATCH: which kind fired */
    uint64_t addr;     /* KM_GDB_STOP_WATCH: the data address */
    uint64_t cause;    /* KM_GDB_STOP_TRAP: mcause */
    int exit_code;     /* KM_GDB_STOP_EXITED */
} km_gdb_stop;

/* How to resume, from c, s or vCont.  GDB asks for four things:
 *   continue all            thread -1, others true   (c, vCont;c)
 *   continue one thread     thread T, others false   (vCont;c:T: GDB's
 *                           step over a breakpoint, and its software
 *                           single step — GDB on RISC-V steps by a
 *                           breakpoint at the next pc, not by s)
 *   step one thread         thread T, step, others false (s, vCont;s:T)
 *   step one, run the rest  thread T, step, others true  (vCont;s:T;c)
 * A thread not resumed stays halted; while halted its modeled time does
 * not pass.  A target may keep the others still even when `others`. */
typedef struct km_gdb_resume {
    int thread;  /* the thread singled out (0..count-1), or -1: none */
    bool step;   /* `thread` steps one instruction (else it continues) */
    bool others; /* the other threads run too, until any thread stops */
} km_gdb_resume;

/* While the target runs, it calls poll(poll_arg) now and then (every
 * quantum of its loop); true means the client sent Ctrl-C: stop every
 * thread and report KM_GDB_STOP_INTERRUPT. */
typedef bool (*km_gdb_poll)(void *poll_arg);

/* The target: what the simulator (or a test's fake) provides.  Each
 * function returns 0, or -1 when it cannot (the client gets an error).
 * `thread` is always in 0..thread_count-1 (the server checks).  An op
 * left NULL makes its packets unsupported (the empty reply). */
typedef struct km_gdb_target_ops {
    int (*thread_count)(void *ctx);
    /* The thread's name ("cluster 1 core 2"), NUL-terminated in name. */
    int (*thread_name)(void *ctx, int thread, char *name, size_t size);
    /* regno: a KM_GDB_REG_* the target description lists. */
    int (*read_reg)(void *ctx, int thread, int regno, uint64_t *value);
    int (*write_reg)(void *ctx, int thread, int regno, uint64_t value);
    /* Vector register v (0..31): its KM_GDB_VLENB bytes, element 0 first
     * (little-endian, as GDB's p and P carry them). */
    int (*read_vreg)(void *ctx, int thread, unsigned v, uint8_t *bytes);
    int (*write_vreg)(void *ctx, int thread, unsigned v, const uint8_t *bytes);
    /* Memory as `thread` sees it; all of [addr, addr + n) or nothing. */
    int (*read_mem)(void *ctx, int thread, uint64_t addr, uint8_t *buf, size_t n);
    int (*write_mem)(void *ctx, int thread, uint64_t addr, const uint8_t *buf, size_t n);
    /* kind: the Z packet's (breakpoint size, or watched length). */
    int (*insert_point)(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind);
    int (*remove_point)(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind);
    /* A breakpoint just inserted (again) takes these conditions (count 0:
     * none, it always stops), replacing the last ones.  NULL: GDB keeps
     * evaluating conditions itself (a stop, and a round trip, a hit). */
    int (*condition_point)(void *ctx, km_gdb_point type, uint64_t addr, const km_gdb_conds *c);
    /* Runs until something stops it (all-stop: every thread halted
     * after) and fills *stop. */
    int (*resume)(void *ctx, const km_gdb_resume *how, km_gdb_poll poll,
                  void *poll_arg, km_gdb_stop *stop);
    /* For `monitor` (qRcmd): a thread's state and counts, and where a pc
     * of its image is in the sources (0, or -1 when it cannot say).
     * NULL: the commands that need them say the target cannot. */
    int (*status)(void *ctx, int thread, km_gdb_status *st);
    int (*source_of)(void *ctx, int thread, uint64_t pc, km_gdb_source *src);
    /* D: the client leaves; the target drops its points and runs free. */
    void (*detach)(void *ctx);
    /* k: the client ends the program. */
    void (*kill)(void *ctx);
} km_gdb_target_ops;

/* Where the replies go, and the client's bytes while the target runs. */
typedef struct km_gdb_io {
    /* Writes all n bytes; 0, or -1 when the connection is lost. */
    int (*write)(void *arg, const void *data, size_t n);
    /* The next byte the client sent, if one is waiting now (never
     * blocks); -1 when none.  May be NULL: Ctrl-C is then seen only in
     * bytes already fed. */
    int (*read_now)(void *arg);
    void *arg;
} km_gdb_io;

/* What the session is after a feed. */
typedef enum km_gdb_state {
    KM_GDB_SERVING,  /* waiting for the client's next packet */
    KM_GDB_DETACHED, /* D: the program runs on without the client */
    KM_GDB_KILLED,   /* k or vKill */
    KM_GDB_EXITED,   /* the program ended (W sent) */
    KM_GDB_LOST,     /* a write failed */
} km_gdb_state;

typedef struct km_gdb km_gdb;

/* A server for one connection, the target halted (its stop reply to `?`
 * is SIGTRAP on thread first_thread).  NULL when memory is lacking, an
 * argument is missing or the target has no thread.  GDB sees at most 128
 * threads (the first ones). */
km_gdb *km_gdb_new(const km_gdb_target_ops *ops, void *ctx, const km_gdb_io *io,
                   int first_thread);
void km_gdb_free(km_gdb *g);

/* Takes n bytes from the client: acks, packets, Ctrl-C.  Returns the
 * state after them; bytes after a final state are ignored. */
km_gdb_state km_gdb_feed(km_gdb *g, const uint8_t *data, size_t n);

km_gdb_state km_gdb_state_of(const km_gdb *g);

/* The target description the server sends (qXfer:features:read
 * target.xml), NUL-terminated; for tests and tools. */
const char *km_gdb_target_xml(void);

/* How kmrun's targets find a pc's place in the sources: the caller's
 * lookup (addr2line on the image `cluster` runs: lib/api's), set on the
 * target after it is made. */
typedef int (*km_gdb_lookup)(void *ctx, unsigned cluster, uint64_t pc, km_gdb_source *src);

/* Evaluates the agent expression code[0..n) (gdb_agent.c) on `thread`
 * of the target, its registers and memory read through ops' read_reg and
 * read_mem: 0 with *value, or -1 when it cannot (above, km_gdb_conds). */
int km_gdb_agent_eval(const uint8_t *code, size_t n, const km_gdb_target_ops *ops, void *ctx,
                      int thread, uint64_t *value);

/* Serving on TCP (km_gdb_socket.c).  km_gdb_listen opens a listening
 * socket on 127.0.0.1:port (port 0: any free one, *bound tells which);
 * returns the fd or -1 with errno set.  km_gdb_accept waits for one
 * client.  km_gdb_serve_fd runs a session on a connected fd until it is
 * no longer KM_GDB_SERVING (or the client closes: KM_GDB_LOST). */
int km_gdb_listen(int port, int *bound);
int km_gdb_accept(int listen_fd);
km_gdb_state km_gdb_serve_fd(int fd, const km_gdb_target_ops *ops, void *ctx,
                             int first_thread);

#endif
