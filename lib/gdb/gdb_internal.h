/* gdb_internal: the server's state, shared by its files — km_gdb.c (input
 * framing, the session), gdb_packet.c (hex, escapes, building and sending
 * replies), gdb_commands.c (each packet's meaning), gdb_tdesc.c (the
 * registers), gdb_agent.c (conditions' bytecode), gdb_monitor.c (the
 * monitor commands).  Everything is fixed-size: no packet makes it allocate. */
#ifndef GDB_INTERNAL_H
#define GDB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_gdb.h"

/* The most threads shown to GDB, and the longest name kept of each: the
 * thread list's XML must fit gdb->xfer. */
#define GDB_MAX_THREADS 128
#define GDB_NAME_BYTES 48

/* Error replies ("E NN", two hex digits: the number is for people). */
enum {
    GDB_E_SYNTAX = 0x01,  /* malformed: a missing field, bad hex, too long */
    GDB_E_THREAD = 0x02,  /* no such thread */
    GDB_E_REG = 0x03,     /* no such register */
    GDB_E_TARGET = 0x05,  /* the target could not */
    GDB_E_MEMORY = 0x0e,  /* the memory is not there */
    GDB_E_CHECKSUM = 0x10, /* a packet's checksum was wrong (no-ack mode) */
    GDB_E_TOO_LONG = 0x16, /* the packet exceeded PacketSize */
};

/* GDB's signal numbers (gdb/signals.def), not the host's. */
enum {
    GDB_SIGINT = 2,
    GDB_SIGILL = 4,
    GDB_SIGTRAP = 5,
    GDB_SIGBUS = 10,
    GDB_SIGSEGV = 11,
    GDB_SIGXCPU = 24, /* a stuck core: GDB stops and prints it by default (not SIGALRM) */
};

typedef enum gdb_input {
    GDB_IN_IDLE,  /* between packets: acks, Ctrl-C */
    GDB_IN_DATA,  /* after '$' */
    GDB_IN_SUM1,  /* after '#' */
    GDB_IN_SUM2,
} gdb_input;

struct km_gdb {
    const km_gdb_target_ops *ops;
    void *ctx;
    km_gdb_io io;
    km_gdb_state state;
    bool no_ack;         /* QStartNoAckMode was agreed */
    bool client_swbreak; /* the client takes swbreak:/hwbreak: in stops */
    bool client_hwbreak;

    /* The packet coming in. */
    gdb_input in;
    char packet[KM_GDB_PACKET_SIZE + 1]; /* NUL after the data */
    size_t packet_len;
    bool packet_over;    /* longer than KM_GDB_PACKET_SIZE: dropped */
    uint8_t sum;         /* of the data, as it arrives */
    uint8_t sum_sent;    /* the two digits after '#' */
    bool sum_bad;        /* one of them was not hex */

    /* What km_gdb_feed has not consumed yet: the poll looks there for
     * Ctrl-C while the target runs. */
    const uint8_t *rest;
    size_t rest_n;

    /* The reply being built, then the last one framed (to send again
     * on '-'). */
    char reply[KM_GDB_PACKET_SIZE + 1];
    size_t reply_len;
    bool reply_over;
    char framed[KM_GDB_PACKET_SIZE + 4];
    size_t framed_len;

    /* Threads, 0-based (GDB's id less one); -1: any / all. */
    int count;
    int g_thread; /* Hg: registers and memory */
    int c_thread; /* Hc: the thread c/s step */
    km_gdb_stop last; /* the last stop, for '?' */

    uint8_t mem[KM_GDB_PACKET_SIZE / 2]; /* m, M, X data */
    km_gdb_conds conds;                  /* a Z packet's cond_list */
    char xfer[16384];                    /* qXfer:threads:read's document */
};

/* gdb_tdesc.c: a register's size in bytes in g/p/P, 0 when the target
 * description has no such register. */
int gdb_reg_bytes(int regno);
#define GDB_G_REGS 33 /* x0-x31, pc: the g packet (the rest go by p) */

/* gdb_packet.c: hex and escapes. */
int gdb_hex_digit(int c); /* 0..15, or -1 */
/* Parses hex digits at *p (at least one, at most 16) up to end; moves *p
 * past them.  -1 when there are none or too many. */
int gdb_parse_hex(const char **p, const char *end, uint64_t *value);
/* Parses exactly 2n hex digits into n bytes; -1 on a bad digit. */
int gdb_parse_bytes(const char *hex, size_t n, uint8_t *out);
/* Undoes '}' escapes of binary data in place; the unescaped length, or
 * -1 when a '}' ends the data. */
long gdb_unescape(char *data, size_t n);

/* gdb_packet.c: the reply.  Appends that overflow set reply_over; the
 * send then turns the reply into an error (a bug's sign, never a crash). */
void gdb_reply_reset(km_gdb *g);
void gdb_put(km_gdb *g, const char *text);
void gdb_putf(km_gdb *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gdb_put_hex(km_gdb *g, const uint8_t *bytes, size_t n);
void gdb_put_le(km_gdb *g, uint64_t value, int bytes); /* target order */
/* Binary data escaped ('#', '$', '}', '*'): appends as much of it as fits
 * and returns how many source bytes that was. */
size_t gdb_put_escaped(km_gdb *g, const char *data, size_t n);
size_t gdb_reply_room(const km_gdb *g);
void gdb_error(km_gdb *g, int code); /* the reply becomes "Ennn" */
/* Frames and sends the reply ($...#xx); keeps it for '-'. */
void gdb_send_reply(km_gdb *g);
void gdb_send_raw(km_gdb *g, const char *bytes, size_t n); /* acks */

/* gdb_monitor.c: qRcmd's command, n hex digits: its text as O packets
 * sent, and its last reply (OK, or an error) in g->reply. */
void gdb_monitor(km_gdb *g, const char *hex, size_t n);

/* gdb_commands.c: answers one whole packet (g->packet, g->packet_len)
 * into g->reply; sets g->state for D, k and the program's end.  Returns
 * false when no reply is due (k). */
bool gdb_command(km_gdb *g);

#endif
