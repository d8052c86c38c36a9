/* km_timeline: a run's timeline in the Chrome Trace Event JSON format
 * (the "JSON Object Format" with traceEvents), which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open — `kmrun run --timeline`.
 *
 * The recorder collects what the run's observers report, in any order:
 * spans (complete events, "ph":"X"), instants ("ph":"i"), counter
 * samples ("ph":"C"), flow steps ("ph":"s" / "ph":"f", paired by id) and
 * the names of processes and tracks.  km_timeline_write sorts them by
 * time and writes one JSON document.  Times are modeled picoseconds from the card's start; the file
 * has them in microseconds (the format's unit), written exactly (six
 * decimals), so two runs of a program give the same file.  It holds at
 * most KM_TIMELINE_MAX_EVENTS events: past them an event is dropped and
 * counted (km_timeline_dropped; the file's otherData.dropped), so that a
 * thread that waits a million times cannot exhaust the host's memory.
 *
 * What a track may hold is the caller's to keep: spans on one track
 * either nest or do not meet (the recorder does not check; the tests of
 * `--timeline` do).  The recorder only allocates: a failure to grow is
 * remembered and reported by km_timeline_write, never half-written. */
#ifndef KM_TIMELINE_H
#define KM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "km_error.h"

/* The processes of a kmrun timeline: each work cluster by its number, the
 * Tensix grid, the dispatcher (which runs on cluster 0, but pid 0 is the
 * kernel's idle task to Perfetto's importer).
 *
 * A track is known by its process and its number there (a core's); the
 * file's tid is KM_TIMELINE_TID(pid, track): unique across processes and
 * never 0 (Perfetto's importer merges a tid seen in two processes, and
 * treats tid 0 as the idle thread). */
#define KM_TIMELINE_PID_GRID 4u
#define KM_TIMELINE_PID_DISPATCHER 5u
#define KM_TIMELINE_TID(pid, track) ((pid) * 1000u + (track) + 1u)

typedef struct km_timeline km_timeline;

/* An empty timeline; NULL when memory runs out. */
km_timeline *km_timeline_new(void);
void km_timeline_free(km_timeline *t); /* NULL is fine */

/* Names: process `pid` (> 0, sorted by `sort`), track `tid` (< 999) of
 * process pid.  Below, tid is always such a track number. */
void km_timeline_process(km_timeline *t, unsigned pid, const char *name, int sort);
void km_timeline_track(km_timeline *t, unsigned pid, unsigned tid, const char *name);

/* A span [begin_ps, end_ps] on track (pid, tid), named and of category
 * `cat`; arg_key non-NULL adds "args":{arg_key: arg}.  end before begin
 * is taken as begin. */
void km_timeline_span(km_timeline *t, unsigned pid, unsigned tid, const char *name,
                      const char *cat, uint64_t begin_ps, uint64_t end_ps, const char *arg_key,
                      uint64_t arg);

/* An instant on track (pid, tid) at ps, with an optional numeric arg. */
void km_timeline_instant(km_timeline *t, unsigned pid, unsigned tid, const char *name,
                         const char *cat, uint64_t ps, const char *arg_key, uint64_t arg);

/* A counter track's sample ("ph":"C"): process pid's counter `name`
 * (Perfetto shows the track as "name key") has `value` from ps on. */
void km_timeline_counter(km_timeline *t, unsigned pid, const char *name, const char *key,
                         uint64_t ps, uint64_t value);
/* Flow `id` (an arrow), both ends or neither: its start inside the span
 * around from_ps on (from_pid, from_tid), its finish bound to the span
 * around to_ps on (to_pid, to_tid) ("bp":"e"). */
void km_timeline_flow(km_timeline *t, uint64_t id, const char *name, unsigned from_pid,
                      unsigned from_tid, uint64_t from_ps, unsigned to_pid, unsigned to_tid,
                      uint64_t to_ps);

/* Only what happened by end_ps: spans end there at the latest, spans and
 * instants that begin later go, and so do both ends of a flow that has
 * one later (the run's stop: a part of the card may have modeled a little
 * past it, the last dispatcher pass). */
void km_timeline_clip(km_timeline *t, uint64_t end_ps);

#define KM_TIMELINE_MAX_EVENTS 4000000u

/* A recorder's own losses: n events it could not record (counted as
 * dropped), or (failed) memory it lacked, which km_timeline_write then
 * reports instead of writing a file that says less than it seems to. */
void km_timeline_lost(km_timeline *t, uint64_t n, bool failed);

/* How many events were dropped (past KM_TIMELINE_MAX_EVENTS, or lost). */
uint64_t km_timeline_dropped(const km_timeline *t);

/* How many events are held (metadata included). */
uint64_t km_timeline_count(const km_timeline *t);

/* The document into `out`, events in time order (metadata first; at one
 * time, a longer span before the spans it holds).  KM_OK; KM_EXIT_SYSTEM
 * when recording ran out of memory or the write failed (`subject` names
 * the file in the message). */
int km_timeline_write(const km_timeline *t, FILE *out, const char *subject, km_error *err);

#endif
