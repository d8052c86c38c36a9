/* km_handlers: built-in and program handler names and ids (km_handlers.h). */
#include "km_handlers.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "kmx_layout.h"

static const km_handler builtins[KM_HANDLER_BUILTINS] = {
    {"nop", KM_HANDLER_NOP},   {"fill", KM_HANDLER_FILL},
    {"copy", KM_HANDLER_COPY}, {"sum", KM_HANDLER_SUM},
    {"spend", KM_HANDLER_SPEND},
};

_Static_assert(KM_HANDLER_PROGRAM_MAX ==
                   KM_HANDLER_MAX - KM_HANDLER_FIRST_PROGRAM + 1,
               "program handler ids must fill the rest of the 8-bit id");

int km_handler_id(const km_program *p, const char *name)
{
    for (size_t i = 0; i < KM_HANDLER_BUILTINS; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return builtins[i].id;
    if (p)
        for (size_t i = 0; i < p->kernels.nhandlers; i++)
            if (strcmp(p->kernels.handlers[i], name) == 0)
                return (int)(KM_HANDLER_FIRST_PROGRAM + i);
    return -1;
}

const char *km_handler_name(const km_program *p, int id)
{
    for (size_t i = 0; i < KM_HANDLER_BUILTINS; i++)
        if (builtins[i].id == id)
            return builtins[i].name;
    if (p && id >= (int)KM_HANDLER_FIRST_PROGRAM &&
        (size_t)(id - (int)KM_HANDLER_FIRST_PROGRAM) < p->kernels.nhandlers)
        return p->kernels.handlers[id - (int)KM_HANDLER_FIRST_PROGRAM];
    return NULL;
}

size_t km_handler_count(const km_program *p)
{
    return KM_HANDLER_BUILTINS + (p ? p->kernels.nhandlers : 0);
}

km_handler km_handler_at(const km_program *p, size_t i)
{
    if (i < KM_HANDLER_BUILTINS)
        return builtins[i];
    i -= KM_HANDLER_BUILTINS;
    return (km_handler){p->kernels.handlers[i],
                        (int)(KM_HANDLER_FIRST_PROGRAM + i)};
}

size_t km_handler_names(const km_program *p, const char **names, size_t cap)
{
    size_t n = km_handler_count(p);
    for (size_t i = 0; i < n && i < cap; i++)
        names[i] = km_handler_at(p, i).name;
    return n;
}

int km_handler_is_builtin(const char *name)
{
    for (size_t i = 0; i < KM_HANDLER_BUILTINS; i++)
        if (strcasecmp(builtins[i].name, name) == 0)
            return 1;
    return 0;
}

char *km_handler_macro(const char *name, char *buf, size_t n)
{
    static const char prefix[] = "HANDLER_";
    size_t len = strlen(name);
    if (sizeof prefix + len > n)
        return NULL;
    memcpy(buf, prefix, sizeof prefix - 1);
    for (size_t i = 0; i <= len; i++)
        buf[sizeof prefix - 1 + i] = (char)toupper((unsigned char)name[i]);
    return buf;
}

km_command_t km_host_command_line(const km_host_command *hc)
{
    km_command_t c;
    memset(&c, 0, sizeof c);
    uint32_t flags = (hc->result ? KM_FLAG_RESULT : 0) | (hc->exclusive ? KM_FLAG_EXCLUSIVE : 0);
    c.hdr = KM_HDR((uint32_t)hc->handler_id, flags);
    c.group = KM_GROUP(hc->first, hc->count);
    uint32_t *a = &c.a0;
    for (size_t i = 0; i < hc->nargs && i < 10; i++)
        a[i] = hc->args[i];
    return c;
}
