/* Tests for the manifest's errors (lib/manifest/manifest*.c): a table of
 * bad manifests, each with its exact message and exact line:col, one
 * error each (no cascades); all errors at once, the cap, the caret,
 * unreadable and huge files, the schema's bad fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "manifest_load.h"


/* --- bad manifests ------------------------------------------------ */

/* The tail of a bank's error: the placement's rule (km_plan_make). */
#define BANK_ROOM                                                              \
    "(expected at most 4 GiB a bank, its first 16 MiB and each thread's "     \
    "check line and ring included)"

typedef struct bad_case {
    const char *yaml;
    int line, col;
    const char *message;
} bad_case;

/* The smallest program these cases add to. */
#define T1 "name: t\nthreads:\n  - cluster: 1\n    sources: [thread/a.c]\n"

static const bad_case bad[] = {
    /* the top level */
    {"threads:\n  - cluster: 1\n    sources: [thread/a.c]\n", 1, 1,
     "missing 'name' at the top level (expected the program's name)"},
    {"name: a/b\ncommands: [{handler: nop}]\n", 1, 7,
     "bad name 'a/b' (expected letters, digits, '_', '.' and '-', at most 64 "
     "characters)"},
    {"name: ..\ncommands: [{handler: nop}]\n", 1, 7,
     "bad name '..' (expected a name other than '.' and '..')"},
    {"name: 12\ncommands: [{handler: nop}]\n", 1, 7,
     "bad name: got a number (expected letters, digits, '_', '.' and '-', at "
     "most 64 characters)"},
    {"name: t\nthreds: []\ncommands: [{handler: nop}]\n", 2, 1,
     "unknown key 'threds' at the top level (did you mean 'threads'?)"},
    {"name: t\nzzz: 1\ncommands: [{handler: nop}]\n", 2, 1,
     "unknown key 'zzz' at the top level (expected name, x280_mhz, build, "
     "check_handover, kernels, regions, threads, ports, pull, commands or "
     "expect)"},
    {T1 "x280_mhz: 1200\n", 5, 11, "bad x280_mhz '1200' (expected 1000 or 1750)"},
    {T1 "build: fast\n", 5, 8, "bad build 'fast' (expected release or debug)"},
    {T1 "build: [debug]\n", 5, 8, "bad build: got a list (expected release or debug)"},
    {T1 "check_handover: 1\n", 5, 17, "bad check_handover '1' (expected true or false)"},
    {T1 "check_handover: [true]\n", 5, 17,
     "bad check_handover: got a list (expected true or false)"},
    {"name: t\n", 1, 1,
     "nothing to run (expected at least one thread or one command)"},
    {"# nothing but a comment\n", 1, 1,
     "empty manifest (expected a mapping with name, and threads or commands)"},
    {"- name: t\n", 1, 1,
     "bad manifest: got a list (expected a mapping with name, and threads or "
     "commands)"},
    /* the YAML itself */
    {"name: t\nthreads: [\n", 3, 1,
     "yaml syntax error: did not find expected node content (while parsing a "
     "flow node at line 3)"},
    {"name: t\n  threads: 1\n", 2, 10,
     "yaml syntax error: mapping values are not allowed in this context"},
    {T1 "name: u\n", 5, 1, "duplicate key 'name' (first at line 1)"},
    {T1 "x280_mhz: *m\n", 5, 11,
     "unsupported alias '*m' (expected the value written out)"},
    {T1 "x280_mhz: !!int 1000\n", 5, 11,
     "unsupported tag '!!int' (expected an untagged value)"},
    {T1 "---\nname: u\n", 5, 1, "a second YAML document (expected one document)"},
    {T1 "? [a]\n: 1\n", 5, 3, "a list as a mapping key (expected a plain key)"},
    /* threads */
    {T1 "    regoins: {}\n", 5, 5,
     "unknown key 'regoins' in a thread (did you mean 'regions'?)"},
    {"name: t\nthreads:\n  - cluster: 1\n    sources: thread/a.c\n", 4, 14,
     "bad sources: got a string (expected a list of source files)"},
    {"name: t\nthreads:\n  - cluster: 1\n    words: [1]\n", 3, 5,
     "missing 'sources' in a thread (expected a list of source files)"},
    {"name: t\nthreads:\n  - cluster: 1\n    sources: []\n", 4, 14,
     "empty sources (expected at least one source file)"},
    {"name: t\nthreads:\n  - cluster: 1\n    sources: [thread/a.c, x.c]\n", 4,
     27, "cannot read source file 'x.c': No such file or directory"},
    {"name: t\nthreads:\n  - cluster: 1\n    sources: [thread]\n", 4, 15,
     "cannot read source file 'thread': Is a directory"},
    {"name: t\nthreads:\n  - cluster: 1\n    sources: ['']\n", 4, 15,
     "bad source file '' (expected a file path)"},
    {"name: t\nthreads:\n  - cluster: 1\n"
     "    sources: [thread/a.c, ./thread/a.c]\n",
     4, 27,
     "source file './thread/a.c' is listed twice (expected each file once)"},
    {"name: t\nthreads:\n  - cluster: 4\n    sources: [thread/a.c]\n", 3, 14,
     "bad cluster '4' (expected 1, 2 or 3)"},
    {"name: t\nthreads:\n  - cluster: '1'\n    sources: [thread/a.c]\n", 3, 14,
     "bad cluster: got a string (expected 1, 2 or 3)"},
    {T1 "    clusters: [2]\n", 5, 5,
     "both 'cluster' and 'clusters' in a thread (expected one of them)"},
    {"name: t\nthreads:\n  - sources: [thread/a.c]\n", 3, 5,
     "missing 'cluster' in a thread (expected cluster: N, or clusters: [N, "
     "...])"},
    {"name: t\nthreads:\n  - clusters: [2, 3, 2]\n    sources: [thread/a.c]\n",
     3, 22, "cluster 2 is listed twice (expected each cluster once)"},
    {"name: t\nthreads:\n  - clusters: []\n    sources: [thread/a.c]\n", 3, 15,
     "empty clusters (expected a list of clusters 1, 2 or 3)"},
    {T1 "  - clusters: [2, 1]\n    sources: [thread/b.c]\n", 5, 19,
     "cluster 1 already runs the thread at line 3 (expected one thread per "
     "cluster)"},
    {"name: t\nthreads: {cluster: 1}\n", 2, 10,
     "bad threads: got a mapping (expected a list of threads)"},
    {"name: t\nthreads:\n  - 1\n", 3, 5,
     "bad thread: got a number (expected a mapping with cluster, sources, "
     "regions...)"},
    {T1 "    words: [1, -1]\n", 5, 16,
     "bad word '-1' (expected an unsigned 32-bit integer)"},
    {T1 "    words: [0x100000000]\n", 5, 13,
     "bad word '0x100000000' (expected at most 0xffffffff)"},
    {T1 "    words: [010]\n", 5, 13,
     "bad word '010' (expected an unsigned 32-bit integer)"},
    {T1 "    words: [0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,"
        "8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,"
        "2,3,4]\n",
     5, 141, "too many words (expected at most 64)"},
    {T1 "    deadline: 0\n", 5, 15, "bad deadline '0' (expected more than 0)"},
    {T1 "    deadline: -1\n", 5, 15, "bad deadline '-1' (expected more than 0)"},
    {T1 "    deadline: 5m\n", 5, 15,
     "bad deadline '5m' (expected a number of seconds, or a number and s, ms "
     "or us)"},
    {T1 "    deadline: 1.5us\n", 5, 15,
     "bad deadline '1.5us' (expected a whole number of microseconds)"},
    {T1 "    deadline: 100000s\n", 5, 15,
     "bad deadline '100000s' (expected at most 86400 s)"},
    {T1 "    deadline: \"5\"\n", 5, 15,
     "bad deadline '5': a quoted number (expected it unquoted, or with a unit "
     "such as s)"},
    {T1 "    deadline: true\n", 5, 15,
     "bad deadline: got a boolean (expected a number of seconds, or a number "
     "and s, ms or us)"},
    {T1 "    prefetch: kep\n", 5, 15, "bad prefetch 'kep' (did you mean 'keep'?)"},
    {T1 "    prefetch: never\n", 5, 15,
     "bad prefetch 'never' (expected default or keep)"},
    {T1 "    ring: cahced\n", 5, 11, "bad ring 'cahced' (did you mean 'cached'?)"},
    {T1 "    ring: local\n", 5, 11, "bad ring 'local' (expected remote or cached)"},
    {T1 "    compiler: clnag\n", 5, 15, "bad compiler 'clnag' (did you mean 'clang'?)"},
    {T1 "    compiler: icx\n", 5, 15, "bad compiler 'icx' (expected gcc or clang)"},
    {T1 "    cflags: -O2\n", 5, 13,
     "bad cflags: got a string (expected a list of compiler flags)"},
    {T1 "    cflags: [-O2, '']\n", 5, 19,
     "bad compiler flag '' (expected a flag such as -O2)"},
    {T1 "    cflags: [-O2, 3]\n", 5, 19,
     "bad compiler flag: got a number (expected a flag such as -O2)"},
    /* regions and sizes */
    {T1 "    regions: {a: 1.5MiB}\n", 5, 18,
     "bad size '1.5MiB' (expected a whole number of bytes, or a whole number "
     "and B, KiB, MiB or GiB)"},
    {T1 "    regions: {a: 4kB}\n", 5, 18,
     "bad size '4kB' (did you mean '4KiB'? sizes are binary)"},
    {T1 "    regions: {a: 4 MB}\n", 5, 18,
     "bad size '4 MB' (did you mean '4 MiB'? sizes are binary)"},
    {T1 "    regions: {a: 0}\n", 5, 18, "bad size '0' (expected more than 0 bytes)"},
    {T1 "    regions: {a: 6}\n", 5, 18,
     "bad size '6' (expected a multiple of 4 bytes)"},
    {T1 "    regions: {a: 5GiB}\n", 5, 18, "bad size '5GiB' (expected at most 4 GiB)"},
    {T1 "    regions: {a: 99999999999999999999GiB}\n", 5, 18,
     "bad size '99999999999999999999GiB' (expected at most 4 GiB)"},
    {T1 "    regions: {a: \"4096\"}\n", 5, 18,
     "bad size '4096': a quoted number (expected it unquoted, or with a unit "
     "such as KiB)"},
    {T1 "    regions: {a: }\n", 5, 18,
     "bad size: got nothing (expected a whole number of bytes, or a whole "
     "number and B, KiB, MiB or GiB)"},
    {T1 "    regions: {a-b: 4}\n", 5, 15,
     "bad region name 'a-b' (expected a C identifier of at most 64 "
     "characters)"},
    {T1 "    regions: {data: 4, Data: 4}\n", 5, 24,
     "region name 'Data' clashes with 'data' (expected names that differ in "
     "more than case)"},
    {T1 "    regions: {a: {file: data/t.bin, words: [1]}}\n", 5, 37,
     "region 'a' has both 'file' and 'words' (expected one of file, words and "
     "fill)"},
    {T1 "    regions:\n      a: {fill: 1}\n", 6, 10,
     "missing 'size' in region 'a' (expected the size to fill)"},
    {T1 "    regions:\n      a: {}\n", 6, 10,
     "missing 'size' in region 'a' (expected a size, or file, words or fill)"},
    {T1 "    regions:\n      a: [1]\n", 6, 10,
     "bad region 'a': got a list (expected a size, or a mapping with file, "
     "words, fill or size)"},
    {T1 "    regions:\n      a: {fil: 1, size: 4}\n", 6, 11,
     "unknown key 'fil' in region 'a' (did you mean 'file'?)"},
    /* interleaved tensors */
    {T1 "regions:\n  c: {size: 4KiB, placement: spread}\n", 6, 30,
     "bad placement 'spread' of region 'c' (expected bank or interleaved)"},
    {T1 "regions:\n  c: {size: 4KiB, page_size: 4KiB}\n", 6, 30,
     "page_size in region 'c' without placement: interleaved (expected it only on an "
     "interleaved region)"},
    {T1 "regions:\n  c: {size: 4KiB, placement: interleaved, page_size: 100}\n", 6, 54,
     "bad page_size '100' of region 'c' (expected a multiple of 64 bytes, at most 1MiB)"},
    {T1 "    regions:\n      c: {size: 4KiB, placement: interleaved}\n", 6, 34,
     "region 'c' of a thread cannot be interleaved (expected placement: interleaved only "
     "in the top-level regions: a thread's regions are pages of its cluster's bank)"},
    {T1 "regions:\n"
     "  r0: {size: 64, placement: interleaved}\n"
     "  r1: {size: 64, placement: interleaved}\n"
     "  r2: {size: 64, placement: interleaved}\n"
     "  r3: {size: 64, placement: interleaved}\n"
     "  r4: {size: 64, placement: interleaved}\n"
     "  r5: {size: 64, placement: interleaved}\n"
     "  r6: {size: 64, placement: interleaved}\n"
     "  r7: {size: 64, placement: interleaved}\n"
     "  r8: {size: 64, placement: interleaved}\n"
     "  r9: {size: 64, placement: interleaved}\n"
     "  r10: {size: 64, placement: interleaved}\n"
     "  r11: {size: 64, placement: interleaved}\n"
     "  r12: {size: 64, placement: interleaved}\n"
     "  r13: {size: 64, placement: interleaved}\n"
     "  r14: {size: 64, placement: interleaved}\n"
     "  r15: {size: 64, placement: interleaved}\n"
     "  r16: {size: 64, placement: interleaved}\n", 22, 3,
     "too many interleaved regions (region 'r16': expected at most 16)"},
    {"name: t\nregions:\n  c: {size: 4KiB, placement: interleaved}\nthreads:\n"
     "  - cluster: 1\n    sources: [thread/a.c]\n    shared: [c]\n", 7, 14,
     "shared region 'c' is interleaved (expected a region of the thread's bank: an "
     "interleaved tensor's pages are in every bank, and only Tensix cores reach them, "
     "with km_tensor_of)"},
    {T1 "    regions:\n      a: {file: data/nope.bin}\n", 6, 17,
     "cannot read region file 'data/nope.bin': No such file or directory"},
    {T1 "    regions:\n      a: {file: data/odd.bin}\n", 6, 17,
     "region file 'data/odd.bin' is 6 bytes (expected a multiple of 4, or a "
     "size to pad it to)"},
    {T1 "    regions:\n      a: {file: data/empty.bin}\n", 6, 17,
     "region file 'data/empty.bin' is empty (expected at least 4 bytes, or a "
     "size)"},
    {T1 "    regions:\n      a: {file: data/t.bin, size: 4}\n", 6, 35,
     "bad size '4' (expected at least the 8 bytes of file 'data/t.bin')"},
    {T1 "    regions:\n      a: {words: [1, 2, 3], size: 8}\n", 6, 35,
     "bad size '8' (expected at least 12 bytes for 3 words)"},
    {T1 "    regions:\n      a: {words: []}\n", 6, 18,
     "empty words in region 'a' (expected at least one word, or a size)"},
    {T1 "    regions:\n      a: {fill: 0x1ffffffff, size: 4}\n", 6, 17,
     "bad fill '0x1ffffffff' (expected at most 0xffffffff)"},
    {T1 "    regions: [a]\n", 5, 14,
     "bad regions: got a list (expected a mapping of region names to sizes or "
     "contents)"},
    {T1 "    regions: {r0: 4, r1: 4, r2: 4, r3: 4, r4: 4, r5: 4, r6: 4, "
        "r7: 4, r8: 4, r9: 4, r10: 4, r11: 4, r12: 4, r13: 4, r14: 4, r15: 4, "
        "r16: 4}\n",
     5, 133,
     "too many regions in a thread (expected at most 16, own and shared)"},
    {"name: t\nregions: {s: 4}\nthreads:\n  - cluster: 1\n"
     "    sources: [thread/a.c]\n    regions: {r0: 4, r1: 4, r2: 4, r3: 4, "
     "r4: 4, r5: 4, r6: 4, r7: 4, r8: 4, r9: 4, r10: 4, r11: 4, r12: 4, "
     "r13: 4, r14: 4, r15: 4}\n    shared: [s]\n",
     7, 14,
     "too many regions in a thread (expected at most 16, own and shared)"},
    /* shared regions and banks */
    {"name: t\nregions: {data: 4}\nthreads:\n  - cluster: 1\n"
     "    sources: [thread/a.c]\n    shared: [dta]\n",
     6, 14, "unknown shared region 'dta' (did you mean 'data'?)"},
    {"name: t\nregions: {data: 4}\nthreads:\n  - cluster: 1\n"
     "    sources: [thread/a.c]\n    shared: [zzzz]\n",
     6, 14,
     "unknown shared region 'zzzz' (expected a region of the top-level "
     "regions)"},
    {"name: t\nregions: {data: 4}\nthreads:\n  - cluster: 1\n"
     "    sources: [thread/a.c]\n    regions: {data: 4}\n    shared: [data]\n",
     7, 14,
     "region 'data' is both own and shared in this thread (expected distinct "
     "names)"},
    {"name: t\nregions: {data: 4}\nthreads:\n  - cluster: 1\n"
     "    sources: [thread/a.c]\n    regions: {Data: 4}\n    shared: [data]\n",
     7, 14,
     "region name 'data' clashes with 'Data' (expected names that differ in "
     "more than case)"},
    {"name: t\nregions: {data: 4}\nthreads:\n  - cluster: 1\n"
     "    sources: [thread/a.c]\n    shared: [data, data]\n",
     6, 20,
     "shared region 'data' is listed twice (expected each region once)"},
    {"name: t\nregions: {data: 4}\nthreads:\n"
     "  - {cluster: 1, sources: [thread/a.c], shared: [data]}\n"
     "  - {cluster: 2, sources: [thread/b.c], shared: [data]}\n",
     5, 50,
     "shared region 'data' is named by threads on banks 6 (line 4) and 7 "
     "(expected threads of one bank; other banks get data by kmx_push)"},
    {"name: t\nregions: {data: 4}\nthreads:\n"
     "  - {clusters: [1, 3], sources: [thread/a.c], shared: [data]}\n",
     4, 56,
     "shared region 'data' is named by threads on banks 6 and 7 (expected "
     "threads of one bank; other banks get data by kmx_push)"},
    {"name: t\nthreads:\n  - clusters: [2, 3]\n    sources: [thread/a.c]\n"
     "    regions: {a: 1GiB, big: 2GiB}\n",
     5, 15, "bank 7 is over 4 GiB with region 'a' " BANK_ROOM},
    {"name: t\nregions: {s: 3GiB}\nthreads:\n"
     "  - {cluster: 2, sources: [thread/a.c], regions: {a: 2GiB}}\n"
     "  - {cluster: 3, sources: [thread/b.c], shared: [s]}\n",
     4, 51, "bank 7 is over 4 GiB with region 'a' " BANK_ROOM},
    /* exactly 4 GiB: the placement refuses it (the first 16 MiB of a
     * bank are the card's), so validate does too */
    {"name: t\nthreads:\n  - cluster: 1\n    sources: [thread/a.c]\n"
     "    regions: {a: 2GiB, b: 2048 MiB}\n",
     5, 24, "bank 6 is over 4 GiB with region 'b' " BANK_ROOM},
    /* kernels */
    {T1 "kernels:\n  handlers: [a]\n", 6, 3,
     "missing 'sources' in kernels (expected the handlers' source files)"},
    {T1 "kernels:\n  sources: [kernels/k.c]\n  handler: [a]\n", 7, 3,
     "unknown key 'handler' in kernels (did you mean 'handlers'?)"},
    {T1 "kernels:\n  sources: [kernels/k.c]\n  handlers: [a, fill]\n", 7, 17,
     "handler name 'fill' is a built-in's (expected a name other than nop, "
     "fill, copy, sum and spend)"},
    {T1 "kernels:\n  sources: [kernels/k.c]\n  handlers: [SUM]\n", 7, 14,
     "handler name 'SUM' is a built-in's (expected a name other than nop, "
     "fill, copy, sum and spend)"},
    {T1 "kernels:\n  sources: [kernels/k.c]\n  handlers: [a, a]\n", 7, 17,
     "handler 'a' is listed twice (expected each handler once)"},
    {T1 "kernels:\n  sources: [kernels/k.c]\n  handlers: [scan, Scan]\n", 7,
     20,
     "handler name 'Scan' clashes with 'scan' (expected names that differ in "
     "more than case)"},
    {T1 "kernels:\n  sources: [kernels/k.c]\n  handlers: [2x]\n", 7, 14,
     "bad handler name '2x' (expected a C identifier of at most 64 "
     "characters)"},
    {T1 "kernels:\n  sources: [kernels/nope.c]\n", 6, 13,
     "cannot read kernel source 'kernels/nope.c': No such file or directory"},
    {T1 "kernels: [kernels/k.c]\n", 5, 10,
     "bad kernels: got a list (expected a mapping with sources, handlers and "
     "cflags)"},
    /* ports */
    {"name: t\ncommands: [{handler: nop}]\nports: default\n", 3, 8,
     "ports without threads (expected at least one thread to serve them)"},
    {T1 "ports: defualt\n", 5, 8, "bad ports 'defualt' (did you mean 'default'?)"},
    {T1 "ports: [1]\n", 5, 8,
     "bad ports: got a list (expected default, or a mapping with serve)"},
    {T1 "ports: {}\n", 5, 8,
     "missing 'serve' in ports (expected a mapping of Tensix cores to "
     "[cluster, x280_core])"},
    {T1 "ports: {serve: {}}\n", 5, 16,
     "empty serve (expected at least one Tensix core)"},
    {T1 "ports: {serve: {120: [1, 0]}}\n", 5, 17,
     "bad core '120' (expected a Tensix core 0 to 119)"},
    {T1 "ports:\n  serve:\n    5: [1, 0]\n    0x5: [1, 1]\n", 8, 5,
     "core 5 is served twice (first at line 7)"},
    {T1 "ports:\n  serve:\n    5: [1, 4]\n", 7, 12, "bad x280_core '4' (expected 0 to 3)"},
    {T1 "ports:\n  serve:\n    5: [2, 0]\n", 7, 9,
     "cluster 2 runs no thread (expected one of 1)"},
    {T1 "ports:\n  serve:\n    5: [1]\n", 7, 8,
     "bad server of core 5: 1 value (expected two, [cluster, x280_core])"},
    {T1 "ports:\n  serve:\n    5: 1\n", 7, 8,
     "bad server of core 5: got a number (expected [cluster, x280_core])"},
    {T1 "ports:\n  sreve: {}\n", 6, 3,
     "unknown key 'sreve' in ports (did you mean 'serve'?)"},
    /* pull */
    {"name: t\ncommands: [{handler: nop}]\npull: {units: 1, per: 1}\n", 3, 7,
     "pull without threads (expected at least one thread to serve them)"},
    {T1 "pull: {units: 0, per: 1}\n", 5, 15, "bad units '0' (expected at least 1)"},
    {T1 "pull: {units: 10}\n", 5, 7,
     "missing 'per' in pull (expected a number of at least 1)"},
    {T1 "pull: {units: 10, per: 1, mode: lgo, log: x}\n", 5, 33,
     "bad mode 'lgo' (did you mean 'log'?)"},
    {T1 "pull: {units: 10, per: 1, log: x}\n", 5, 27,
     "unexpected 'log' in pull (expected it only with mode log or replay)"},
    {T1 "pull: {units: 10, per: 1, mode: replay}\n", 5, 7,
     "missing 'log' in pull (expected the region to replay)"},
    {"name: t\nthreads:\n  - {cluster: 1, sources: [thread/a.c], regions: "
     "{log: 4KiB}}\n  - {clusters: [2, 3], sources: [thread/b.c]}\n"
     "pull: {units: 10, per: 1, mode: log, log: log}\n",
     5, 43,
     "pull log 'log' is not a region of the threads on clusters 2, 3 "
     "(expected a region every thread has, own or shared)"},
    {T1 "pull: {units: 10, per: 1, mode: count, per_core: 2}\n", 5, 40,
     "unknown key 'per_core' in pull (expected units, per, mode or log)"},
    /* commands */
    {"name: t\ncommands:\n  - handler: fil\n", 3, 14,
     "unknown handler 'fil' (did you mean 'fill'?)"},
    {"name: t\ncommands:\n  - handler: frobnicate\n", 3, 14,
     "unknown handler 'frobnicate' (expected a handler of kernels or a "
     "built-in: nop, fill, copy, sum, spend)"},
    {"name: t\ncommands:\n  - group: [0, 1]\n", 3, 5,
     "missing 'handler' in a command (expected a handler name)"},
    {"name: t\ncommands:\n  - {handler: nop, group: [100, 30]}\n", 3, 27,
     "bad group: cores 100 to 129 (expected first + count at most 120)"},
    {"name: t\ncommands:\n  - {handler: nop, group: [1, 2, 3]}\n", 3, 27,
     "bad group: 3 values (expected {first: F, count: N} or [F, N])"},
    {"name: t\ncommands:\n  - {handler: nop, group: all}\n", 3, 27,
     "bad group: got a string (expected {first: F, count: N} or [F, N])"},
    {"name: t\ncommands:\n  - {handler: nop, group: {first: 0, count: 0}}\n",
     3, 45, "bad count '0' (expected 1 to 120)"},
    {"name: t\ncommands:\n  - {handler: nop, group: {first: 120, count: 1}}\n",
     3, 35, "bad first '120' (expected a Tensix core 0 to 119)"},
    {"name: t\ncommands:\n  - {handler: nop, group: {count: 1}}\n", 3, 27,
     "missing 'first' in group (expected the group's first core)"},
    {"name: t\ncommands:\n  - {handler: nop, args: [1,2,3,4,5,6,7,8,9,10,11]}\n",
     3, 48, "too many args (expected at most 10, a0 to a9)"},
    {"name: t\ncommands:\n  - {handler: nop, result: yes}\n", 3, 28,
     "bad result 'yes' (expected true or false)"},
    {"name: t\ncommands:\n  - {handler: nop, wait: 'false'}\n", 3, 26,
     "bad wait: got a string (expected true or false)"},
    {"name: t\ncommands:\n  - {handler: nop, exclusiv: true}\n", 3, 20,
     "unknown key 'exclusiv' in a command (did you mean 'exclusive'?)"},
    {"name: t\ncommands: {handler: nop}\n", 2, 11,
     "bad commands: got a mapping (expected a list of commands)"},
    {"name: t\ncommands:\n  - nop\n", 3, 5,
     "bad command: got a string (expected a mapping with handler, group, "
     "args...)"},
    /* expect: (manifest_expect.c) */
    {T1 "expect: [1]\n", 5, 9,
     "bad expect: got a list (expected a mapping with backends, threads, "
     "regions and commands)"},
    {T1 "expected: {}\n", 5, 1,
     "unknown key 'expected' at the top level (did you mean 'expect'?)"},
    {T1 "expect:\n  backend: [sim]\n", 6, 3,
     "unknown key 'backend' in expect (did you mean 'backends'?)"},
    {T1 "expect:\n  backends: []\n", 6, 13,
     "bad backends: an empty list (expected sim, host or both)"},
    {T1 "expect:\n  backends: [sim, card]\n", 6, 19,
     "bad backend 'card' (expected sim or host)"},
    {T1 "expect:\n  backends: [host, host]\n", 6, 20,
     "backend 'host' is listed twice (expected each once)"},
    {T1 "expect:\n  threads:\n    - cluster: 2\n", 7, 16,
     "cluster 2 runs no thread (expected one of 1)"},
    {T1 "expect:\n  threads:\n    - {state: returned}\n", 7, 7,
     "missing 'cluster' in an expected thread (expected the cluster of the "
     "thread's result)"},
    {T1 "expect:\n  threads:\n    - {cluster: 1, cod: 0}\n", 7, 20,
     "unknown key 'cod' in an expected thread (did you mean 'code'?)"},
    {T1 "expect:\n  threads:\n    - {cluster: 1, state: retured}\n", 7, 27,
     "bad state 'retured' (did you mean 'returned'?)"},
    {T1 "expect:\n  threads:\n    - {cluster: 1, code: 2147483648}\n", 7, 26,
     "bad code '2147483648' (expected a signed 32-bit integer, kmx_main's "
     "return)"},
    {T1 "expect:\n  threads:\n    - {cluster: 1, words: [1, -1]}\n", 7, 31,
     "bad word '-1' (expected an unsigned 32-bit integer)"},
    {T1 "expect:\n  threads:\n    - {cluster: 1, prints: [a, ~]}\n", 7, 32,
     "bad print: got null (expected the text of a print line)"},
    {T1 "expect:\n  regions:\n    - {name: out}\n", 7, 14,
     "region 'out' is no thread's (expected a region a thread has, its own "
     "or shared)"},
    {T1 "    regions: {out: 8}\nexpect:\n  regions:\n    - {name: out, cluster: 2}\n",
     8, 28, "cluster 2 has no copy of region 'out' (expected cluster 1)"},
    {T1 "    regions: {out: 8}\nexpect:\n  regions:\n    - {name: out, first: 010203040506070809}\n",
     8, 26, "bad first: 9 bytes (expected at most the region's 8)"},
    {T1 "    regions: {out: 8}\nexpect:\n  regions:\n    - {name: out, first: 0x01}\n",
     8, 26,
     "bad first '0x01': 'x' is no hex digit (expected the bytes in hex, such "
     "as 0a0b0c0d)"},
    {T1 "    regions: {out: 8}\nexpect:\n  regions:\n    - {name: out, sha256: ab}\n",
     8, 27, "bad sha256 'ab': 2 characters (expected 64 hex digits)"},
    {T1 "expect:\n  commands:\n    - {handle: 1}\n", 7, 16,
     "bad handle '1' (expected a command of commands: the program has none)"},
    {"name: t\ncommands: [{handler: nop}]\nexpect:\n  commands:\n    - {handle: 2}\n",
     5, 16, "bad handle '2' (expected 1, the program's only command)"},
    {"name: t\ncommands: [{handler: nop}]\nexpect:\n  commands:\n    - {handle: 1, event: finished}\n",
     5, 26, "bad event 'finished' (expected done, timeout or rejected)"},
    {"name: t\ncommands: [{handler: nop}]\nexpect:\n  threads:\n    - {cluster: 1}\n",
     5, 7, "an expected thread, but the program has none (expected no threads "
     "in expect)"},
};

static void bad_manifests(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const bad_case *b = &bad[i];
        km_program *p = (km_program *)1;
        km_diags d = {0};
        km_error e = {0};
        int rc = load(b->yaml, &p, &d, &e);
        bool ok = rc == KM_EXIT_USAGE && p == NULL && d.count == 1 &&
                  d.items[0].line == b->line && d.items[0].col == b->col &&
                  d.items[0].message &&
                  strcmp(d.items[0].message, b->message) == 0 &&
                  strcmp(d.items[0].file, manifest) == 0;
        if (!ok) {
            failures++;
            print_message("case %zu (line %d of the table's YAML):\n%s"
                          "  want %d:%d: %s\n  got rc %d, %zu error(s):\n",
                          i, b->line, b->yaml, b->line, b->col, b->message, rc,
                          d.count);
            km_diags_print(&d, stdout);
        }
        km_program_free(p == (km_program *)1 ? NULL : p);
        km_diags_free(&d);
    }
    print_message("%zu bad manifests, %zu failed\n", sizeof bad / sizeof *bad,
                  failures);
    assert_int_equal(failures, 0);
}

/* Each error names itself by a code a tool can read (kmrun(3),
 * Diagnostics): one case of each kind. */
static void each_error_coded(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *code;
    } cases[] = {
        {"name: t\nthreds: []\ncommands: [{handler: nop}]\n", "manifest.unknown-key"},
        {"threads:\n  - cluster: 1\n    sources: [thread/a.c]\n", "manifest.missing-key"},
        {T1 "check_handover: [true]\n", "manifest.wrong-type"},
        {T1 "x280_mhz: 1200\n", "manifest.bad-value"},
        {"name: t\nthreads: [\n", "manifest.yaml"},
        {"name: t\nname: u\ncommands: [{handler: nop}]\n", "manifest.duplicate-key"},
        {"name: t\nthreads:\n  - cluster: 1\n    sources: [thread/none.c]\n", "manifest.file"},
        {"# nothing but a comment\n", "manifest.empty"},
        {"name: t\n", "manifest.rule"},
        {T1 "  - cluster: 1\n    sources: [thread/b.c]\n", "manifest.rule"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        km_program *p = NULL;
        km_diags d = {0};
        km_error e = {0};
        assert_int_equal(load(cases[i].yaml, &p, &d, &e), KM_EXIT_USAGE);
        assert_true(d.count >= 1);
        if (!d.items[0].code || strcmp(d.items[0].code, cases[i].code) != 0)
            fail_msg("case %zu: code %s, want %s (%s)", i,
                     d.items[0].code ? d.items[0].code : "(none)", cases[i].code,
                     d.items[0].message);
        assert_int_equal(d.items[0].severity, KM_SEVERITY_ERROR);
        km_diags_free(&d);
    }
}

/* One run reports every error of a file, in file order. */
static void all_errors_at_once(void **state)
{
    (void)state;
    static const char yaml[] =
        "name: a b\n"                               /* 1 */
        "regions: {data: 4kB}\n"                    /* 2 */
        "threads:\n"                                /* 3 */
        "  - cluster: 9\n"                          /* 4 */
        "    sources: [thread/nope.c]\n"            /* 5 */
        "    shared: [dta]\n"                       /* 6 */
        "    regoins: {}\n"                         /* 7 */
        "pull: {units: 1, per: 1, mode: replay}\n"  /* 8 */
        "commands:\n"                               /* 9 */
        "  - {handler: nope, group: [119, 2]}\n";   /* 10 */
    static const struct {
        int line, col;
        const char *message;
    } want[] = {
        {1, 7, "bad name 'a b' (expected letters, digits, '_', '.' and '-', "
               "at most 64 characters)"},
        {2, 17, "bad size '4kB' (did you mean '4KiB'? sizes are binary)"},
        {4, 14, "bad cluster '9' (expected 1, 2 or 3)"},
        {5, 15, "cannot read source file 'thread/nope.c': No such file or "
                "directory"},
        {6, 14, "unknown shared region 'dta' (did you mean 'data'?)"},
        {7, 5, "unknown key 'regoins' in a thread (did you mean 'regions'?)"},
        {8, 7, "missing 'log' in pull (expected the region to replay)"},
        {10, 15, "unknown handler 'nope' (did you mean 'nop'?)"},
        {10, 28, "bad group: cores 119 to 120 (expected first + count at most "
                 "120)"},
    };
    km_program *p = NULL;
    km_diags d = {0};
    km_error e = {0};
    assert_int_equal(load(yaml, &p, &d, &e), KM_EXIT_USAGE);
    assert_null(p);
    for (size_t k = 0; k < d.count; k++)
        print_message("%d:%d: %s\n", d.items[k].line, d.items[k].col,
                      d.items[k].message);
    assert_int_equal(d.count, sizeof want / sizeof *want);
    for (size_t i = 0; i < d.count; i++) {
        assert_int_equal(d.items[i].line, want[i].line);
        assert_int_equal(d.items[i].col, want[i].col);
        assert_string_equal(d.items[i].message, want[i].message);
    }
    km_diags_free(&d);
}

/* More errors than km_diags keeps: counted, and still no model. */
static void errors_past_the_cap(void **state)
{
    (void)state;
    char yaml[8192] = "name: t\ncommands:\n";
    for (int i = 0; i < KM_DIAG_CAP + 7; i++)
        strcat(yaml, "  - handler: zzzzzzzz\n");
    km_program *p = NULL;
    km_diags d = {0};
    km_error e = {0};
    assert_int_equal(load(yaml, &p, &d, &e), KM_EXIT_USAGE);
    assert_null(p);
    assert_int_equal(d.count, KM_DIAG_CAP);
    assert_int_equal(d.dropped, 7);
    assert_int_equal(d.items[0].line, 3);
    km_diags_free(&d);
}

static void printed_with_caret(void **state)
{
    (void)state;
    km_program *p = NULL;
    km_diags d = {0};
    km_error e = {0};
    assert_int_equal(load(T1 "    regoins: {}\n", &p, &d, &e), KM_EXIT_USAGE);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    km_diags_print(&d, f);
    fclose(f);
    char want[PATH_MAX + 256];
    snprintf(want, sizeof want,
             "%s:5:5: unknown key 'regoins' in a thread (did you mean "
             "'regions'?)\n      regoins: {}\n      ^\n",
             manifest);
    assert_string_equal(text, want);
    free(text);
    km_diags_free(&d);
}

static void unreadable_manifest(void **state)
{
    (void)state;
    km_program *p = (km_program *)1;
    km_diags d = {0};
    km_error e = {0};
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/missing.yaml", tmp);
    assert_int_equal(km_manifest_load(path, &p, &d, &e), KM_EXIT_SYSTEM);
    assert_null(p);
    assert_int_equal(d.count, 0);
    assert_int_equal(e.status, KM_EXIT_SYSTEM);
    char want[PATH_MAX + 96];
    snprintf(want, sizeof want,
             "cannot read manifest '%s': No such file or directory", path);
    assert_string_equal(e.message, want);

    p = (km_program *)1;
    assert_int_equal(km_manifest_load(tmp, &p, &d, &e), KM_EXIT_SYSTEM);
    assert_null(p);
    snprintf(want, sizeof want, "cannot read manifest '%s': Is a directory", tmp);
    assert_string_equal(e.message, want);
}

/* A file far too large to be a manifest is not read whole. */
static void huge_manifest(void **state)
{
    (void)state;
    size_t n = (17u << 20) + 1;
    char *text = malloc(n);
    assert_non_null(text);
    /* Lines of 1 MiB less one byte, and their LF: the 16 MiB limit falls
     * at the start of line 17. */
    memset(text, '#', n - 1);
    for (size_t i = (1u << 20) - 1; i < n - 1; i += 1u << 20)
        text[i] = '\n';
    text[n - 1] = 0;
    km_program *p = (km_program *)1;
    km_diags d = {0};
    km_error e = {0};
    assert_int_equal(load(text, &p, &d, &e), KM_EXIT_USAGE);
    free(text);
    assert_null(p);
    assert_int_equal(d.count, 1);
    assert_int_equal(d.items[0].line, 17);
    assert_int_equal(d.items[0].col, 1);
    assert_string_equal(d.items[0].message,
                        "manifest larger than 16 MiB from here on (expected a "
                        "program.yaml)");
    km_diags_free(&d);
}

/* The fixtures the schema rejects (tests/cli/schema.bats), the loader
 * rejects too, each with one error: the two agree. */
static void schema_bad_fixtures(void **state)
{
    (void)state;
    const char *dir = "tests/fixtures/manifests/schema-bad";
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        km_program *p = NULL;
        km_diags g = {0};
        km_error err = {0};
        int rc = km_manifest_load(path, &p, &g, &err);
        if (rc != KM_EXIT_USAGE || g.count != 1) {
            print_message("%s: rc %d\n", path, rc);
            km_diags_print(&g, stdout);
        }
        assert_int_equal(rc, KM_EXIT_USAGE);
        assert_int_equal(g.count, 1);
        assert_null(p);
        km_diags_free(&g);
        files++;
    }
    closedir(d);
    assert_true(files >= 10);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_manifests),
        cmocka_unit_test(each_error_coded),
        cmocka_unit_test(all_errors_at_once),
        cmocka_unit_test(errors_past_the_cap),
        cmocka_unit_test(printed_with_caret),
        cmocka_unit_test(unreadable_manifest),
        cmocka_unit_test(huge_manifest),
        cmocka_unit_test(schema_bad_fixtures),
    };
    return cmocka_run_group_tests(tests, make_folder, remove_folder);
}
