/* sim_bank.c: a DRAM bank's calendar of line slots (sim_bank.h). */
#include "sim_bank.h"

#include <stdbool.h>
#include <string.h>

#include "sim_calendar.h"

_Static_assert(SIM_BANK_SLOTS % 64u == 0, "whole words of slots");

void sim_bank_init(sim_bank *b)
{
    memset(b, 0, sizeof *b);
}

uint64_t sim_bank_lines(uint64_t address, uint64_t bytes)
{
    if (bytes == 0)
        return 1;
    uint64_t first = address / 64u, last = (address + bytes - 1u) / 64u;
    return last - first + 1u;
}

/* A bank's calendar: a quarter ahead, by words, when it moves; a line
 * older than it is served at once, unbooked (sim_bank.h). */
static const sim_calendar_rule bank_rule = {SIM_BANK_SLOTS, true, false};

static uint64_t take(sim_bank *b, uint64_t s)
{
    return sim_calendar_take(&bank_rule, &b->base, b->busy, s);
}

uint64_t sim_bank_serve(sim_bank *b, uint64_t now_ps, uint64_t lines)
{
    uint64_t first = now_ps / SIM_BANK_LINE_PS;
    uint64_t s = take(b, first);
    uint64_t begin = s * SIM_BANK_LINE_PS;
    if (begin > now_ps)
        b->waited_ps += begin - now_ps;
    for (uint64_t i = 1; i < lines; i++)
        s = take(b, s + 1u);
    b->lines += lines;
    uint64_t end = (s + 1u) * SIM_BANK_LINE_PS;
    return end;
}
