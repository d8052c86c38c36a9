/* km_remote: remote storage for the build cache, a Redis server reached
 * through hiredis.  Promise: a remote never makes a command fail and
 * never hands out bytes it has not verified.
 *
 * Where it is (km_remote_configured): the caller's choice (the
 * --remote-storage option), else $KMRUN_REMOTE_STORAGE, else a
 * "remote_storage = URL" line of .kmrun/config in the working folder (the
 * project's), else of $XDG_CONFIG_HOME/kmrun/config (~/.config/kmrun/config,
 * the user's).  An empty value turns it off.
 *
 * The URL is redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] or
 * redis+unix:///PATH[?db=DB], followed by ccache's attributes, each after
 * a '|': read-only (never store), connect-timeout=MS (default 100),
 * operation-timeout=MS (default 10000).
 *
 * Nothing is connected before the first lookup.  Every operation is
 * bounded by the timeouts; one that fails (refused, reset, a timeout, an
 * error reply) is counted, and after KM_REMOTE_MAX_FAILURES of them, or
 * after the first timeout, the remote is off for the rest of the handle's
 * life (one command): a dead or hung server costs at most its timeouts.
 *
 * Values are envelopes (km_remote_pack): a header line naming the format,
 * a JSON line (the key and kind it claims, its files' names, sizes and
 * SHA-256s, the payload's length and digest, its compression: zstd when
 * kmrun was built with libzstd, else none), then the payload.
 * km_remote_unpack checks every one of them before it returns a file. */
#ifndef KM_REMOTE_H
#define KM_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"

struct cJSON;

enum {
    KM_REMOTE_MAX_FAILURES = 3,
    KM_REMOTE_MISS = -1,  /* not there (or the remote is off) */
    KM_REMOTE_ERROR = -2, /* it failed or its value is bad: counted */
};

/* The most bytes a value may have, packed or unpacked: a larger one is
 * hostile (or not ours) and read as an error. */
#define KM_REMOTE_MAX_VALUE (64u << 20)

typedef struct km_remote km_remote;

/* The configured URL (allocated), or NULL for none (errno 0) or when
 * memory ran out finding it (errno ENOMEM); *from (may be NULL)
 * names where it came from ("--remote-storage", "KMRUN_REMOTE_STORAGE",
 * a config file's path: static or valid until the next call). */
char *km_remote_configured(const char *explicit_url, const char **from);

/* Parses url (nothing connected).  KM_EXIT_USAGE with err for a URL that
 * is not one of the forms above. */
int km_remote_open(const char *url, km_remote **out, km_error *err);
void km_remote_close(km_remote *r);

/* Where each lookup's story goes (--verbose): a line, no newline. */
void km_remote_set_note(km_remote *r, void (*note)(const char *line, void *ctx), void *ctx);
/* The URL as shown: its password replaced by "***". */
const char *km_remote_shown(const km_remote *r);
bool km_remote_read_only(const km_remote *r);
/* Whether it has been turned off for this handle (too many failures). */
bool km_remote_off(const km_remote *r);

/* GET key: KM_OK with the value (allocated, *len its bytes; a NUL after
 * it); KM_REMOTE_MISS; KM_REMOTE_ERROR (counted in *errors, noted). */
int km_remote_get(km_remote *r, const char *key, char **value, size_t *len);
/* SET key (a no-op for read-only): KM_OK or KM_REMOTE_ERROR. */
int km_remote_set(km_remote *r, const char *key, const void *value, size_t len);
/* The failures this handle has seen. */
unsigned km_remote_failures(const km_remote *r);
/* A line to the note hook (printf-like). */
void km_remote_note(km_remote *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- envelopes (remote_envelope.c) ---- */

typedef struct km_remote_file {
    const char *name;
    const void *data;
    size_t bytes;
} km_remote_file;

/* The value for key (hex) of kind ("entry", "record", "result"): files and
 * meta (may be NULL), compressed when kmrun can.  Allocated; NULL when
 * memory runs out. */
char *km_remote_pack(const char *kind, const char *key, const km_remote_file *files,
                     size_t nfiles, const struct cJSON *meta, size_t *len);

typedef struct km_remote_unpacked {
    km_remote_file *files; /* point into payload */
    size_t nfiles;
    struct cJSON *meta;    /* the envelope's header; its "meta" the packer's */
    char *payload;
} km_remote_unpacked;

/* Checks value as the envelope of kind for key and opens it: KM_OK, or
 * KM_REMOTE_ERROR with why (a sentence: "it claims the key 12ab...",
 * "its payload does not match its sha256") in why[n]. */
int km_remote_unpack(const char *value, size_t len, const char *kind, const char *key,
                     km_remote_unpacked *out, char *why, size_t n);
void km_remote_unpacked_free(km_remote_unpacked *u);
/* "zstd" or "none": what this kmrun packs with. */
const char *km_remote_compression(void);

#endif
