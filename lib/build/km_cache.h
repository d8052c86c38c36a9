/* km_cache: the content-addressed build cache.
 *
 * An entry is a folder of files named by a key, a SHA-256 over everything
 * that decides the files' bytes (the caller computes it: lib/build/build_keys.c).
 * Layout under the root ($KMRUN_CACHE, else $XDG_CACHE_HOME/kmrun, else
 * ~/.cache/kmrun):
 *
 *   objects/ab/cdef...   one entry: entry.json (its files' sizes and
 *                        SHA-256s, and the caller's metadata) and the files
 *   direct/ab/cdef...    direct-mode records: what a compile included
 *   toolchains/...       memos of compilers' identities (lib/build/km_toolchain.c)
 *   work/...             Ninja build folders, one per manifest
 *   tmp/                 entries being written; renamed into place whole
 *   stats                hit and miss counters (updated under a lock)
 *   lock                 held shared by builds, exclusive by gc and clear
 *
 * An entry is written under tmp/ and renamed into objects/ in one step, so
 * a reader sees a whole entry or none; when two writers race, the second
 * finds the first's entry in place and drops its own.  Every read checks
 * each file against entry.json: a corrupt entry (a file missing, of another
 * size or checksum, a damaged entry.json) is reported through the warning
 * hook, removed (or, when it cannot be, left and never used), and read as a
 * miss.  An entry that cannot be checked now (memory, descriptors, I/O) is
 * an error, and left as it is: only a content mismatch condemns an entry.
 *
 * Below the root nothing is reached through a symbolic link: a link planted
 * where the cache keeps a folder or file is refused with an error naming it
 * (km_fs_at.h), so no cache operation reads, writes or removes outside.
 *
 * An entry a handle has found or stored is pinned (its folder held open
 * with a shared flock) until km_cache_close: its files stay in place for
 * whoever loads them, however long the run, and gc and clear, which take
 * an entry exclusively without waiting before they move it, leave a
 * pinned entry where it is.
 *
 * Remote storage (lib/remote/km_remote.h), when one is configured: after
 * a local miss a caller may ask it (km_cache_remote_entry,
 * km_cache_remote_record), and after a store give it the entry too
 * (km_cache_remote_put_*).  What it returns is checked (the envelope's
 * key, kind, lengths and digests) and then written into the local cache as
 * any entry is, so the local checks apply too; a bad value, a dead or
 * hung server is a miss, counted and told through the note hook, never an
 * error. */
#ifndef KM_CACHE_H
#define KM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"
#include "km_hash.h"

struct cJSON;
struct km_remote;

/* The counters of the stats file. */
enum km_counter {
    KM_COUNT_HITS,
    KM_COUNT_MISSES,
    KM_COUNT_REMOTE_HITS,   /* entries the remote gave that were used */
    KM_COUNT_REMOTE_MISSES, /* lookups it had nothing for */
    KM_COUNT_REMOTE_ERRORS, /* failures, and values refused */
    KM_COUNT_REMOTE_STORED, /* entries given to it */
    KM_COUNT_RESULTS_REUSED, /* kmrun test's runs not run again */
    KM_COUNTERS
};

typedef struct km_cache {
    char *root;
    int fd;           /* the root, open: everything below is reached from it */
    int *pins;        /* the entries this handle found or stored, held */
    size_t npins;
    void (*warn)(const char *message, void *ctx);
    void *warn_ctx;
    /* The remote storage: opened at its first use from remote_url (set:
     * km_cache_set_remote) or the configuration (km_remote_configured). */
    struct km_remote *remote;
    bool remote_tried, remote_set;
    char *remote_url;
    void (*note)(const char *line, void *ctx); /* --verbose: each remote lookup's story */
    void *note_ctx;
    uint64_t pending[KM_COUNTERS]; /* counted, not yet in the stats file */
} km_cache;

enum { KM_CACHE_MISS = -1 };

/* The root kmrun uses by default, allocated; NULL with err when neither
 * $KMRUN_CACHE, $XDG_CACHE_HOME nor $HOME is set. */
char *km_cache_default_root(km_error *err);

/* Opens (creating its folders) the cache at root, or the default root
 * when root is NULL. */
int km_cache_open(km_cache *c, const char *root, km_error *err);
void km_cache_close(km_cache *c);

/* KM_OK and the entry's folder (allocated) and its metadata (caller frees
 * with cJSON_Delete; may pass NULL) when a whole, intact entry is there,
 * pinned; KM_CACHE_MISS when there is none (or a corrupt one, removed);
 * KM_EXIT_SYSTEM with err when it cannot be checked or reached. */
int km_cache_get(km_cache *c, const km_digest *key, char **entry_dir,
                 struct cJSON **meta, km_error *err);

/* For a caller that finds an intact entry's metadata wrong: reported
 * through the warning hook and removed like a corrupt entry (when it can
 * be); the caller reads it as a miss. */
void km_cache_reject(km_cache *c, const km_digest *key, const char *why);

typedef struct km_cache_file {
    const char *name; /* the file's name in the entry */
    const char *path; /* where it is now; NULL: data */
    const void *data; /* its bytes, when path is NULL */
    size_t bytes;
} km_cache_file;

/* Stores copies of files as the entry for key, with metadata (copied).
 * *entry_dir (allocated) is the entry in place, ours or a racing writer's;
 * when a corrupt entry holds the key and cannot be removed, ours outside
 * objects/ (warned about), so that a corrupt entry is never used. */
int km_cache_put(km_cache *c, const km_digest *key, const km_cache_file *files,
                 size_t nfiles, const struct cJSON *meta, char **entry_dir,
                 km_error *err);

/* Direct-mode records: a small text keyed by a digest, whose first line
 * is the hex key of the entry it leads to (so gc can drop orphans). */
int km_cache_record_get(km_cache *c, const km_digest *key, char **text);
int km_cache_record_put(km_cache *c, const km_digest *key, const char *text,
                        km_error *err);

/* Holds the cache for a while: shared by a build for as long as it uses
 * its work folder and writes entries, exclusive by gc and clear, which so
 * never remove a live build's folder or half-written entry (and may treat
 * every temporary file they find as a killed writer's).  Returns a
 * descriptor to close when done, or -1 with err. */
int km_cache_hold(km_cache *c, bool exclusive, km_error *err);

/* A path under the root for the caller's own use (work/, toolchains/),
 * created, each folder on the way a real one; allocated. */
char *km_cache_subdir(km_cache *c, const char *name, km_error *err);

/* KM_OK when nothing under the root's `name` (a folder of the caller's,
 * such as a work folder handed to Ninja and the compilers, which follow
 * links) is a symbolic link; else an error naming the first. */
int km_cache_check_links(km_cache *c, const char *name, km_error *err);

/* Adds to the hit and miss counters, and writes the pending ones. */
void km_cache_count(km_cache *c, unsigned hits, unsigned misses);
/* Adds n to a counter: pending until km_cache_count or km_cache_close. */
void km_cache_add(km_cache *c, enum km_counter which, unsigned n);

typedef struct km_cache_stats {
    uint64_t entries, entry_bytes, records, work_bytes;
    uint64_t hits, misses;
    uint64_t remote_hits, remote_misses, remote_errors, remote_stored, results_reused;
} km_cache_stats;

int km_cache_stats_get(km_cache *c, km_cache_stats *s, km_error *err);

/* Removes the least recently used entries until the entries take at most
 * max_bytes; *removed counts them, *kept the pinned ones left (both may be
 * NULL).  Records whose entry is gone go too, and what killed writers left:
 * tmp/'s contents and "*.tmp.XXXXXX" files.  Waits for live builds
 * (km_cache_hold); an entry in use (pinned) stays. */
int km_cache_gc(km_cache *c, uint64_t max_bytes, uint64_t *removed, uint64_t *kept,
                km_error *err);

/* Removes every entry, record, memo and build folder, but the entries in
 * use (pinned), which *kept counts (may be NULL); waits for live builds
 * (km_cache_hold). */
int km_cache_clear(km_cache *c, uint64_t *kept, km_error *err);

/* ---- remote storage (the end of km_cache.c) ---- */

/* The remote to use instead of the configured one (NULL: the
 * configuration's; "": none).  Before its first use. */
void km_cache_set_remote(km_cache *c, const char *url);
void km_cache_set_note(km_cache *c, void (*note)(const char *line, void *ctx), void *ctx);
/* The remote, opened at the first call; NULL when there is none, or its
 * URL is wrong (told through the warning hook once). */
struct km_remote *km_cache_remote(km_cache *c);
/* Closes the remote (if open): the next use opens it again. */
void km_cache_remote_close(km_cache *c);
/* A note (--verbose) through the note hook. */
void km_cache_note(km_cache *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* After a local miss: the entry for key fetched from the remote, checked
 * and stored locally (km_cache_get finds it then): KM_OK; KM_CACHE_MISS
 * when it has none, is off, failed or gave a bad value (counted: a
 * remote miss or error; a hit is the caller's to count once it has
 * checked the entry itself).  what names the key's thing for the notes. */
int km_cache_remote_entry(km_cache *c, const km_digest *key, const char *what);
/* The entry for key, as km_cache_put was given it, given to the remote
 * (unless it is read-only or off). */
void km_cache_remote_put_entry(km_cache *c, const km_digest *key, const km_cache_file *files,
                               size_t nfiles, const struct cJSON *meta, const char *what);
/* A direct-mode record from, and to, the remote. */
int km_cache_remote_record(km_cache *c, const km_digest *key, const char *what, char **text);
void km_cache_remote_put_record(km_cache *c, const km_digest *key, const char *text);

#endif
