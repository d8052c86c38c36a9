/* km_text: building messages — a bounded text appended to piece by piece
 * (a too-long message ends in "..."), and numbers with thousands
 * separators ("126,976"), as every size kmrun reports is written. */
#ifndef KM_TEXT_H
#define KM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "km_error.h"

typedef struct km_text {
    char buf[sizeof(((km_error *)0)->message)];
    size_t len;
} km_text;

void km_text_add(km_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes v with thousands separators into buf; returns buf. */
char *km_thousands(uint64_t v, char *buf, size_t n);

#endif
