/* km_toolchain: what kmrun builds with, and how a cache key names it.
 *
 * A compiler's identity is a SHA-256 over its own report of what it is
 * (`--version`, `-dumpmachine`) and the content of its driver, so that a
 * different or updated compiler misses the cache while a copy of the same
 * one hits.  Computing it runs the compiler, so it is memoised per driver
 * file (path, size, inode, time) under the cache's toolchains/: the memo
 * only saves the work; the identity in keys is always the content one.
 *
 * The data folder holds what images link against (kmx/) and the handlers'
 * headers (device/): $KMRUN_DATA, else ../share/kmrun beside the kmrun
 * binary, which is both the build tree's and the installed layout. */
#ifndef KM_TOOLCHAIN_H
#define KM_TOOLCHAIN_H

#include "km_cache.h"
#include "km_error.h"
#include "km_hash.h"

#define KM_RV_CC_DEFAULT "riscv64-unknown-elf-gcc"
#define KM_RV_CLANG_DEFAULT "clang-19" /* a thread's `compiler: clang` */
#define KM_HOST_CC_DEFAULT "cc"

typedef struct km_tool {
    char *path;    /* resolved driver */
    char *version; /* first line of --version */
    km_digest id;
} km_tool;

/* Identifies the compiler `name` ($KMRUN_CC / $KMRUN_HOST_CC pick them). */
int km_tool_identify(km_cache *c, const char *name, km_tool *out, km_error *err);
void km_tool_free(km_tool *t);

typedef struct km_data {
    char *dir;          /* the data folder */
    char *kmx_include;  /* dir/kmx/include */
    char *kmx_lib;      /* dir/kmx/lib/libkmx.a */
    char *kmx_ld;       /* dir/kmx/kmx.ld */
    char *device_include;
    km_digest kmx_id;   /* libkmx.a and kmx.ld's content */
    char *kmx_host_dir; /* dir/kmx/host: kmx_host.h, libkmx_host.a (the fallback) */
    char *kmx_host_lib;
    char *kmx_fallback_src; /* dir/kmx/host/fallback/kmx_fallback.c: a fallback given as a function */
    km_digest kmx_host_id; /* libkmx_host.a's content (zero when it is missing) */
    bool has_kmx_host;
} km_data;

int km_data_find(km_data *d, km_error *err);
void km_data_free(km_data *d);

#endif
