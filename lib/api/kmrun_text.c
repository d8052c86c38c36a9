/* kmrun_text: the public C API's text as kmrun shows it (include/kmrun.h,
 * "Text as kmrun shows it") and the toolchain's facts — each the library's
 * one rule (support/ks_text.h, lib/manifest/units.h, km_suggest.h,
 * km_build.h) under its public name, so that kmrun(1) and any other tool
 * show, parse and suggest alike. */
#include <string.h>

#include "api_internal.h"
#include "km_build.h"
#include "km_suggest.h"
#include "ks_text.h"
#include "units.h"

_Static_assert(KMRUN_SHOW_LINES == KS_SHOW_LINES, "the show flags are ks_text.h's");
_Static_assert(KMRUN_SHOW_QUOTED == KS_SHOW_QUOTED, "the show flags are ks_text.h's");
_Static_assert(KMRUN_SHOWN_MAX == KS_SHOWN_MAX, "a shown character is ks_text.h's");
_Static_assert(KMRUN_QUOTE_BYTES == KS_QUOTE_BYTES, "a quoted name is ks_text.h's");

const char *kmrun_image_target(void)
{
    return "riscv64-unknown-elf";
}

const char *kmrun_image_arch(void)
{
    return "-march=" KM_IMAGE_MARCH " -mabi=lp64d";
}

size_t kmrun_show_next(const char *s, size_t len, unsigned how, char out[KMRUN_SHOWN_MAX],
                       size_t *outlen)
{
    return ks_show_next(s, len, how, out, outlen);
}

char *kmrun_escape(char *buf, size_t n, const char *s, size_t len, unsigned how)
{
    return ks_escape(buf, n, s, len, how);
}

char *kmrun_quote(char *buf, size_t n, const char *name)
{
    return ks_quote(buf, n, name);
}

char *kmrun_thousands(uint64_t v, char *buf, size_t n)
{
    return ks_thousands(v, buf, n);
}

bool kmrun_parse_size(const char *text, uint64_t *bytes, const char **hint)
{
    bool has_unit;
    const char *h = NULL;
    uint64_t v = 0;
    bool ok = text && km_parse_size(text, &v, &has_unit, &h) == KM_UNITS_OK;
    if (hint)
        *hint = ok ? NULL : h;
    if (ok && bytes)
        *bytes = v;
    return ok;
}

const char *kmrun_format_size(uint64_t bytes, char *buf, size_t n)
{
    return km_format_size(bytes, buf, n);
}

const char *kmrun_suggest(const char *word, const char *const *names, size_t n)
{
    return word && names ? km_suggest(word, names, n) : NULL;
}
