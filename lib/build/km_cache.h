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
 * pinned entry where it is. */
#ifndef KM_CACHE_H
#define KM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"
#include "km_hash.h"

struct cJSON;

typedef struct km_cache {
    char *root;
    int fd;           /* the root, open: everything below is reached from it */
    int *pins;        /* the entries this handle found or stored, held */
    size_t npins;
    void (*warn)(const char *message, void *ctx);
    void *warn_ctx;
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
    const char *path; /* where it is now */
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

/* Adds to the hit and miss counters. */
void km_cache_count(km_cache *c, unsigned hits, unsigned misses);

typedef struct km_cache_stats {
    uint64_t entries, entry_bytes, records, work_bytes;
    uint64_t hits, misses;
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

#endif
