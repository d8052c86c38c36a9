/* sim_bank.c: a DRAM bank's calendar of line slots (sim_bank.h). */
#include "sim_bank.h"

#include <stdbool.h>
#include <string.h>

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

static bool slot_busy(const sim_bank *b, uint64_t s)
{
    uint64_t bit = s % SIM_BANK_SLOTS;
    return (b->busy[bit / 64u] >> (bit % 64u)) & 1u;
}

static void slot_set(sim_bank *b, uint64_t s, bool busy)
{
    uint64_t bit = s % SIM_BANK_SLOTS;
    uint64_t mask = (uint64_t)1 << (bit % 64u);
    if (busy)
        b->busy[bit / 64u] |= mask;
    else
        b->busy[bit / 64u] &= ~mask;
}

/* Moves the calendar forward so that slot s fits, a quarter of it past
 * what s needs, so that it moves once every SIM_BANK_SLOTS / 4 slots of
 * time (a slot is a modeled nanosecond) and by whole words: the base
 * stays a multiple of 64.  The slots it forgets are the oldest. */
static void slide_to(sim_bank *b, uint64_t s)
{
    if (s < b->base + SIM_BANK_SLOTS)
        return;
    uint64_t base = (s - SIM_BANK_SLOTS + 1u + SIM_BANK_SLOTS / 4u) & ~(uint64_t)63u;
    if (base - b->base >= SIM_BANK_SLOTS)
        memset(b->busy, 0, sizeof b->busy);
    else
        for (uint64_t old = b->base; old < base; old += 64u)
            b->busy[(old % SIM_BANK_SLOTS) / 64u] = 0;
    b->base = base;
}

/* The first free slot at or after s; s itself, unbooked, when it is older
 * than the calendar. */
static uint64_t take(sim_bank *b, uint64_t s)
{
    if (s < b->base)
        return s;
    slide_to(b, s);
    while (slot_busy(b, s)) {
        /* Skip whole busy words at once when aligned. */
        uint64_t bit = s % SIM_BANK_SLOTS;
        if (bit % 64u == 0 && b->busy[bit / 64u] == UINT64_MAX)
            s += 64u;
        else
            s++;
        slide_to(b, s);
    }
    slot_set(b, s, true);
    return s;
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
