/* ks_text: building messages — a bounded text appended to piece by piece
 * (a too-long message ends in "..."), and numbers with thousands
 * separators ("126,976"), as every size kmrun reports is written. */
#ifndef KS_TEXT_H
#define KS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "ks_error.h"

typedef struct ks_text {
    char buf[sizeof(((ks_error *)0)->message)];
    size_t len;
} ks_text;

void ks_text_add(ks_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes v with thousands separators into buf; returns buf. */
char *ks_thousands(uint64_t v, char *buf, size_t n);

#endif
