/* km_json: cJSON's allocations watched (km_json.h). */
#include "km_json.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdlib.h>

static _Thread_local unsigned long failures;

static void *watched_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        failures++;
    return p;
}

static void install(void)
{
    cJSON_Hooks hooks = {watched_malloc, free};
    cJSON_InitHooks(&hooks);
}

km_json_mark km_json_watch(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
    return (km_json_mark){failures};
}

bool km_json_ran_out(km_json_mark m)
{
    return failures != m.failures;
}
