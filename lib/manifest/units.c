/* units: numbers, sizes and durations of the manifest (units.h). */
#include "units.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Past this a size cannot be meant; it also keeps every product below
 * UINT64_MAX. */
#define SIZE_LIMIT (1ull << 62)

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Reads [0-9]+ from *s into *out; false on no digit or overflow past max. */
static bool read_decimal(const char **s, uint64_t max, uint64_t *out, bool *over)
{
    const char *p = *s;
    uint64_t v = 0;
    *over = false;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > max || v > (max - d) / 10)
            *over = true;
        else
            v = v * 10 + d;
    }
    *s = p;
    *out = v;
    return true;
}

km_units_status km_parse_uint(const char *text, uint64_t max, uint64_t *out)
{
    const char *p = text;
    uint64_t v = 0;
    bool over = false;
    if (p[0] == '0' && p[1] == 'x') {
        p += 2;
        if (hex_digit((unsigned char)*p) < 0)
            return KM_UNITS_SYNTAX;
        for (; *p; p++) {
            int d = hex_digit((unsigned char)*p);
            if (d < 0)
                return KM_UNITS_SYNTAX;
            if ((unsigned)d > max || v > (max - (unsigned)d) / 16)
                over = true;
            else
                v = v * 16 + (unsigned)d;
        }
    } else {
        if (p[0] == '0' && p[1] != 0)
            return KM_UNITS_SYNTAX; /* a leading zero: octal to YAML 1.1 */
        if (!read_decimal(&p, max, &v, &over) || *p)
            return KM_UNITS_SYNTAX;
    }
    if (over)
        return KM_UNITS_RANGE;
    *out = v;
    return KM_UNITS_OK;
}

/* The binary unit a decimal or misspelt one most likely meant. */
static const char *unit_hint(const char *unit)
{
    switch (tolower((unsigned char)unit[0])) {
    case 'b':
        return "B";
    case 'k':
        return "KiB";
    case 'm':
        return "MiB";
    case 'g':
        return "GiB";
    default:
        return NULL;
    }
}

km_units_status km_parse_size(const char *text, uint64_t *out, bool *has_unit,
                              const char **hint)
{
    *has_unit = false;
    *hint = NULL;
    const char *p = text;
    size_t digits = strspn(p, "0123456789");
    if (p[digits] == 0 || (p[0] == '0' && p[1] == 'x'))
        return km_parse_uint(text, SIZE_LIMIT, out);
    if (digits == 0)
        return KM_UNITS_SYNTAX;
    if (p[0] == '0' && digits > 1)
        return KM_UNITS_SYNTAX;
    uint64_t v;
    bool over;
    read_decimal(&p, SIZE_LIMIT, &v, &over);
    if (*p == ' ')
        p++;
    if (!isalpha((unsigned char)*p))
        return KM_UNITS_SYNTAX; /* "1.5MiB", "4 - KiB" */
    for (const char *q = p; *q; q++)
        if (!isalpha((unsigned char)*q))
            return KM_UNITS_SYNTAX;
    static const struct {
        const char *name;
        uint64_t scale;
    } units[] = {{"B", 1}, {"KiB", KM_KIB}, {"MiB", KM_MIB}, {"GiB", KM_GIB}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(p, units[i].name) == 0) {
            *has_unit = true;
            if (over || v > SIZE_LIMIT / units[i].scale)
                return KM_UNITS_RANGE;
            *out = v * units[i].scale;
            return KM_UNITS_OK;
        }
    }
    *hint = unit_hint(p);
    return KM_UNITS_UNIT;
}

km_units_status km_parse_duration(const char *text, uint64_t max_us,
                                  uint64_t *out_us, bool *has_unit)
{
    const char *p = text;
    size_t whole = strspn(p, "0123456789");
    const char *frac = p + whole;
    size_t nfrac = 0;
    if (*frac == '.') {
        frac++;
        nfrac = strspn(frac, "0123456789");
    }
    if (whole + nfrac == 0)
        return KM_UNITS_SYNTAX;
    const char *unit = frac + nfrac;
    *has_unit = false;
    uint64_t scale = 1000000; /* microseconds a unit */
    unsigned scale_digits = 6;
    if (*unit == ' ')
        unit++;
    if (*unit) {
        *has_unit = true;
        if (strcmp(unit, "s") == 0) {
            scale = 1000000, scale_digits = 6;
        } else if (strcmp(unit, "ms") == 0) {
            scale = 1000, scale_digits = 3;
        } else if (strcmp(unit, "us") == 0) {
            scale = 1, scale_digits = 0;
        } else {
            return KM_UNITS_SYNTAX;
        }
    } else if (unit != frac + nfrac) {
        return KM_UNITS_SYNTAX; /* a trailing space and no unit */
    }
    /* Trailing zeros of the fraction say nothing; past the microsecond
     * any other digit is a fraction of one. */
    while (nfrac > 0 && frac[nfrac - 1] == '0')
        nfrac--;
    if (nfrac > scale_digits)
        return KM_UNITS_FRACTION;
    uint64_t v;
    bool over;
    const char *q = p;
    if (whole == 0)
        v = 0, over = false;
    else
        read_decimal(&q, UINT64_MAX / 2, &v, &over);
    if (over || v > max_us / scale)
        return KM_UNITS_RANGE;
    uint64_t us = v * scale;
    uint64_t f = 0;
    for (size_t i = 0; i < nfrac; i++)
        f = f * 10 + (uint64_t)(frac[i] - '0');
    for (size_t i = nfrac; i < scale_digits; i++)
        f *= 10;
    if (us > max_us - f)
        return KM_UNITS_RANGE;
    *out_us = us + f;
    return KM_UNITS_OK;
}

const char *km_format_size(uint64_t bytes, char *buf, size_t n)
{
    if (bytes != 0 && bytes % KM_GIB == 0)
        snprintf(buf, n, "%" PRIu64 " GiB", bytes / KM_GIB);
    else if (bytes != 0 && bytes % KM_MIB == 0)
        snprintf(buf, n, "%" PRIu64 " MiB", bytes / KM_MIB);
    else if (bytes != 0 && bytes % KM_KIB == 0)
        snprintf(buf, n, "%" PRIu64 " KiB", bytes / KM_KIB);
    else
        snprintf(buf, n, "%" PRIu64 " bytes", bytes);
    return buf;
}
