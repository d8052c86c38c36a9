/* kmrun_profile: the public C API's profiles (include/kmrun_tools.h,
 * "Profiles") — a stopped run's profile read from its folder and shown as
 * `kmrun profile` shows it: thin handles over lib/observe's km_profile,
 * every failure a kmrun_error. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "km_profile.h"

struct kmrun_profile {
    km_profile p;
};

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

kmrun_status kmrun_profile_open(const char *folder, kmrun_profile **out, kmrun_error **err)
{
    clear(err);
    if (!folder || !out)
        return km_api_usage(err, "kmrun_profile_open: %s is NULL", !folder ? "the folder" : "out");
    *out = NULL;
    kmrun_profile *p = calloc(1, sizeof *p);
    if (!p)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the profile");
    km_error e = {0};
    int rc = km_profile_read(&p->p, folder, &e);
    if (rc != KM_OK) {
        kmrun_profile_free(p);
        return km_api_fail(err, rc, &e);
    }
    *out = p;
    return KMRUN_OK;
}

void kmrun_profile_free(kmrun_profile *p)
{
    if (!p)
        return;
    km_profile_free(&p->p);
    free(p);
}

/* KMRUN_OK when `core` is NULL or a core the profile has; else
 * KMRUN_USAGE naming the ones it has. */
static kmrun_status check_core(const kmrun_profile *p, const char *core, kmrun_error **err)
{
    if (!core)
        return KMRUN_OK;
    char have[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->p.n; i++) {
        if (km_profile_on_core(&p->p.rows[i], core))
            return KMRUN_OK;
        const char *s;
        size_t n;
        km_profile_core_of(p->p.rows[i].stack, &s, &n);
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(n < 16 ? n : 16), s);
        if (!strstr(have, name) && used + n + 2 < sizeof have)
            used += (size_t)snprintf(have + used, sizeof have - used, "%s%s", used ? ", " : "",
                                     name);
    }
    return km_api_usage(err, "the profile has no core '%s' (it has %s)", core,
                        used ? have : "none");
}

kmrun_status kmrun_profile_top(const kmrun_profile *p, const char *core, unsigned limit,
                               bool json, char **text, kmrun_error **err)
{
    clear(err);
    if (!p || !text)
        return km_api_usage(err, "kmrun_profile_top: %s is NULL", !p ? "the profile" : "text");
    *text = NULL;
    kmrun_status st = check_core(p, core, err);
    if (st != KMRUN_OK)
        return st;
    *text = json ? km_profile_top_json(&p->p, core, limit) : km_profile_top_text(&p->p, core, limit);
    return *text ? KMRUN_OK : km_api_error(err, KMRUN_SYSTEM, "out of memory for the profile");
}

kmrun_status kmrun_profile_annotate(const kmrun_profile *p, const char *core, const char *source,
                                    char **text, kmrun_error **err)
{
    clear(err);
    if (!p || !source || !text)
        return km_api_usage(err, "kmrun_profile_annotate: %s is NULL",
                            !p ? "the profile" : !source ? "the source" : "text");
    *text = NULL;
    kmrun_status st = check_core(p, core, err);
    if (st != KMRUN_OK)
        return st;
    km_error e = {0};
    int rc = km_profile_annotate(&p->p, core, source, text, &e);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}

kmrun_status kmrun_profile_svg(const kmrun_profile *p, const char *core, const char *title,
                               char **svg, kmrun_error **err)
{
    clear(err);
    if (!p || !svg)
        return km_api_usage(err, "kmrun_profile_svg: %s is NULL", !p ? "the profile" : "svg");
    *svg = NULL;
    kmrun_status st = check_core(p, core, err);
    if (st != KMRUN_OK)
        return st;
    *svg = km_profile_svg(&p->p, core, title);
    return *svg ? KMRUN_OK : km_api_error(err, KMRUN_SYSTEM, "out of memory for the flame graph");
}
