/* expect_fixture: the program the expect: tests (expect_test.c,
 * km_bless_test.c) put an expect: block under — two threads, a region
 * `out` of 16 bytes, a command to handler `sum` with a result — in lines
 * 1-7 of its manifest, so that their expect: starts at line 8 and the
 * positions they assert are the same in both. */
#ifndef EXPECT_FIXTURE_H
#define EXPECT_FIXTURE_H

#define EXPECT_PROGRAM                                                                         \
    "name: t\n"                                                                                \
    "threads:\n"                                                                               \
    "  - clusters: [1, 2]\n"                                                                   \
    "    sources: [a.c]\n"                                                                     \
    "    regions: {out: 16}\n"                                                                 \
    "commands:\n"                                                                              \
    "  - {handler: sum, result: true}\n"

#endif
