/* km_run_json: the JSON document of a run (schemas/run.schema.json) —
 * what `kmrun run` prints on stdout and keeps as result.json in the run
 * folder, one builder for both so they cannot differ.
 *
 * 64-bit values (mepc, mtval, pc, bank addresses) are written as exact
 * integers, and modeled times as exact decimals of microseconds (mtime
 * ticks are 20 ns; device time is whole picoseconds), never through a
 * double: the same run gives the same bytes. */
#ifndef KM_RUN_JSON_H
#define KM_RUN_JSON_H

#include "km_plan.h"
#include "km_program.h"
#include "km_session.h"

typedef struct km_run_info {
    const char *run_id;
    const char *run_dir;
    double wall_seconds;
    km_backend backend;
    const km_build_result *build; /* the images run, for their hashes */
} km_run_info;

/* The document, pretty-printed, allocated (free()); NULL when memory ran
 * out for any part of it.  Its `ports` is km_ports_json of the plan's
 * dealing, and `port_waits` r's. */
char *km_run_json(const km_program *p, const km_plan *plan, const km_run_result *r,
                  const km_run_info *info);

struct cJSON;
/* The X280 ports' dealing as the run JSON's `ports` lists it: one object
 * per X280 core of the program's threads, by cluster then x280_core, with
 * the Tensix cores it serves, ascending; a JSON null when `d` is NULL (no
 * ports).  `validate --json` prints the same (cJSON_Delete it). */
struct cJSON *km_ports_json(const km_program *p, const km_port_dealing *d);

struct km_handover;
/* One hand-over finding as the run JSON's `handover` lists it
 * (schemas/run.schema.json, $defs handover; cJSON_Delete it). */
struct cJSON *km_handover_json(const struct km_handover *h);

struct km_kernel_fault;
/* One handler the card took out as the run JSON's `kernel_faults` lists
 * it ($defs kernel_fault; cJSON_Delete it). */
struct cJSON *km_kernel_fault_json(const struct km_kernel_fault *k);

struct km_wild_write;
/* One wild write as the run JSON's `wild_writes` lists it ($defs
 * wild_write; cJSON_Delete it). */
struct cJSON *km_wild_json(const struct km_wild_write *w);

/* "12.34": mtime ticks as microseconds, exact (trailing zeros dropped). */
void km_ticks_us(uint64_t ticks, char *out, size_t n);

/* The same for picoseconds. */
void km_ps_us(uint64_t ps, char *out, size_t n);
/* The same for a person: rounded to tenths, thousands separated
 * ("1,204.5"; messages and the terminal summary). */
void km_ps_us_text(uint64_t ps, char *out, size_t n);

#endif
