/* units: the manifest's numbers, sizes and durations, read from a scalar's
 * text.  Pure functions of the text: they know nothing of YAML or of where
 * the value sits, so the caller words the error and places it.
 *
 * Numbers are decimal without leading zeros, or 0x hex: YAML 1.1 readers
 * (PyYAML, so the schema check) take "010" as octal, so kmrun refuses to
 * guess.  Sizes use binary units only; durations end at the microsecond. */
#ifndef KM_UNITS_H
#define KM_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum km_units_status {
    KM_UNITS_OK,
    KM_UNITS_SYNTAX,   /* not of the expected form */
    KM_UNITS_RANGE,    /* larger than the caller's maximum */
    KM_UNITS_UNIT,     /* a unit kmrun does not take; see the hint */
    KM_UNITS_FRACTION, /* a duration finer than a microsecond */
} km_units_status;

#define KM_KIB ((uint64_t)1024)
#define KM_MIB (1024 * KM_KIB)
#define KM_GIB (1024 * KM_MIB)

/* "0", "[1-9][0-9]*" or "0x[0-9a-fA-F]+", at most `max`. */
km_units_status km_parse_uint(const char *text, uint64_t max, uint64_t *out);

/* A number as km_parse_uint, or a decimal number, an optional space and
 * B, KiB, MiB or GiB.  *has_unit says which form it was.  KM_UNITS_UNIT
 * when the unit is a decimal or misspelt one ("kB", "MB"): *hint is then
 * the binary unit meant ("KiB"), or NULL when there is none.  Results
 * above 2^62 are KM_UNITS_RANGE; the caller applies its own limits. */
km_units_status km_parse_size(const char *text, uint64_t *out, bool *has_unit,
                              const char **hint);

/* "5s", "500ms", "250us", "1.5 s" or a plain number of seconds ("2",
 * "0.25"), in microseconds, at most `max_us`.  *has_unit as above.
 * KM_UNITS_FRACTION when it is not a whole number of microseconds. */
km_units_status km_parse_duration(const char *text, uint64_t max_us,
                                  uint64_t *out_us, bool *has_unit);

/* "4 GiB", "64 KiB" when exact, else "4100 bytes".  Returns buf. */
const char *km_format_size(uint64_t bytes, char *buf, size_t n);

#endif
