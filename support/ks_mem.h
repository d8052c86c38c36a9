/* ks_mem: big zeroed buffers whose pages are all there from the start.
 * A buffer of megabytes from malloc is mapped lazily: its first touch of
 * each 4 KiB page is a page fault, and a run that fills one (a region's
 * copy, a DRAM bank's pages) pays a fault a page, which under a
 * virtualized kernel costs more than the copy itself.  ks_mem_alloc maps
 * the pages in one call; from 2 MiB on, in whole huge pages where the
 * kernel gives them (madvise: a run that sweeps megabytes of simulated
 * DRAM misses the TLB far less).  What it gives is zero and page-aligned,
 * and goes back with ks_mem_free (never free). */
#ifndef KS_MEM_H
#define KS_MEM_H

#include <stddef.h>

/* n bytes (0 counts as 1), zero, page-aligned; NULL when out of memory. */
void *ks_mem_alloc(size_t n);

/* Gives back what ks_mem_alloc(n) gave (the same n); NULL does nothing. */
void ks_mem_free(void *p, size_t n);

#endif
