/* km_prints: a run's prints as lines (km_prints.h). */
#include "km_prints.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void km_print_line_text(const km_print_line *p, char *out, size_t n)
{
    char core[24];
    km_print_core_name(p, core, sizeof core);
    uint64_t hundredths = p->ps / (BH_PS_PER_US / 100u);
    snprintf(out, n, "[%s %" PRIu64 ".%02u\xC2\xB5s] %s", core, hundredths / 100u,
             (unsigned)(hundredths % 100u), p->text);
}

char *km_prints_text(const km_print_line *prints, size_t n)
{
    size_t cap = 1, len = 0;
    for (size_t i = 0; i < n; i++)
        cap += strlen(prints[i].text) + 64;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    text[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        km_print_line_text(&prints[i], text + len, cap - len);
        len += strlen(text + len);
        text[len++] = '\n';
        text[len] = '\0';
    }
    return text;
}
