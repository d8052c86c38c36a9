/* km_json: cJSON's allocations watched, so that a document built for
 * output fails whole when memory ran out while it was built, never comes
 * out short of a field.  cJSON's adders take NULL quietly (an object that
 * could not be made is not added, nor is anything added to it): only
 * whether any of its allocations failed tells a whole document from a
 * short one.
 *
 *     km_json_mark m = km_json_watch();
 *     ... cJSON_Create*, cJSON_Add*, cJSON_Parse ...
 *     if (km_json_ran_out(m)) ... the document is short: drop it, fail
 *
 * The count is the calling thread's: another thread's failures do not
 * reach its marks.  Watches nest.  Every cJSON allocation of the process
 * goes through the watch from the first km_json_watch on; cJSON_Print's
 * failure is a NULL, as ever (and counts too). */
#ifndef KM_JSON_H
#define KM_JSON_H

#include <stdbool.h>

typedef struct km_json_mark {
    unsigned long failures; /* the thread's count when the watch began */
} km_json_mark;

/* Starts a watch (installing cJSON's hooks the first time). */
km_json_mark km_json_watch(void);

/* Whether a cJSON allocation of this thread failed since m. */
bool km_json_ran_out(km_json_mark m);

#endif
