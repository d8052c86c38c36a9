/* kmx_layout.h: the binary contract between the host loader, the X280
 * thread runtime and the (simulated) dispatcher and grid.  One source of
 * truth: nothing restates these offsets.  Freestanding C11: it is included
 * by the RV64 runtime and by the host library alike.
 *
 * (Being completed: the argument block, result block, ring, ports and pull
 * layouts follow below with a static assert for every offset and size.) */
#ifndef KMX_LAYOUT_H
#define KMX_LAYOUT_H

#include <stdint.h>

/* The device's facts (DESIGN.md, "The device we model"). */
#define KMX_LIM_BASE 0x08000000u       /* local memory of a cluster */
#define KMX_LIM_BYTES (1920u * 1024u)  /* 1.875 MiB */
#define KMX_IMAGE_MAX_BYTES 126976u    /* instructions are fetched from here */
#define KMX_TICKS_PER_SECOND 50000000u /* CLINT mtime, 50 MHz */

#define KM_GRID_CORES 120u  /* Tensix worker cores, grid order 0..119 */
#define KMX_CORES 4u        /* harts per cluster */
#define KMX_WORK_CLUSTERS 3u
#define KMX_MAX_REGIONS 16u /* own and shared, per thread */
#define KMX_MAX_WORDS 64u   /* the program's own words in the argument block */
#define KMX_MAX_RESULT_WORDS 48u

/* Handler ids: the low 8 bits of a command's hdr.  0 is never a handler (a
 * zeroed command line is caught), built-ins take 1..15, the program's
 * handlers follow in manifest order. */
#define KM_HANDLER_FIRST_PROGRAM 16u
#define KM_HANDLER_MAX 255u
#define KM_HANDLER_NOP 1u   /* does nothing; result word 0 */
#define KM_HANDLER_FILL 2u  /* fills a region range with a pattern */
#define KM_HANDLER_COPY 3u  /* copies a range to another */
#define KM_HANDLER_SUM 4u   /* sums a range of words into the result word */
#define KM_HANDLER_SPEND 5u /* spends a given modeled time */

#endif
