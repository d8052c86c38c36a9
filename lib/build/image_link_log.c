/* image_link_log: why an image does not link (km_image.h:
 * km_link_log_explain, km_image_explain_symbol).
 *
 * The linker runs with its normal settings, so a missing C library function
 * is an ordinary link failure.  Its log is parsed, not the objects: GNU ld
 * already knows the source line of each reference (from the objects' debug
 * information), and reading it back is far simpler than redoing that.  The
 * forms understood, each possibly after the linker's own "path/ld: ":
 *
 *   obj.o: in function `f':                       (names the function)
 *   /src/main.c:3: undefined reference to `memset'
 *   main.c:(.text+0x1c): undefined reference to `memset'   (no -g)
 *   obj.o:(.sdata+0x8): undefined reference to `helper'    (a variable's
 *   obj.o:/src/main.c:4: undefined reference to `helper'    initialiser)
 *   ld.lld: error: undefined symbol: memset   then   >>> referenced by main.c:3
 *
 * Quotes may be `x', 'x' or the typographic ones of a UTF-8 locale. */
#include "km_image.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_elf.h"
#include "ks_text.h" /* ks_thousands */
#include "kmx_layout.h"

#define MAX_SYMBOLS 32 /* distinct symbols remembered */
#define LIST_MAX 8     /* symbols explained in the message */

typedef struct undefined_ref {
    char symbol[128];
    char file[256];     /* source file or object; "" when unknown */
    long line;          /* 0 when unknown */
    char function[128]; /* "" when unknown or not in a function */
    char section[64];   /* a data section, for references from a variable */
} undefined_ref;


/* Copies the n bytes at src into dst (size cap) as a string, cut to fit. */
static void copy_n(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

/* ---- explanations ---------------------------------------------------- */

static const char *const copies[] = {"memcpy", "memmove", "bcopy", NULL};
static const char *const compares[] = {"memcmp", "bcmp", NULL};
static const char *const strings[] = {
    "strlen", "strnlen", "strcmp", "strncmp", "strcpy", "strncpy", "stpcpy",
    "strcat", "strncat", "strchr", "strrchr", "strstr", "strdup", "strndup",
    "strtok", "strspn", "strcspn", "memchr", "bzero", "explicit_bzero", NULL};
static const char *const prints[] = {
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf",
    "vsprintf", "vsnprintf", "puts", "putchar", "fputs", "fputc", "putc",
    "fwrite", "fflush", "write", "perror", "iprintf", "siprintf", NULL};
static const char *const allocs[] = {
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign",
    "memalign", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", NULL};
static const char *const exits[] = {"exit", "_exit", "_Exit", "abort",
                                    "atexit", "quick_exit", NULL};
static const char *const asserts[] = {"__assert_func", "__assert_fail",
                                      "__assert", NULL};
static const char *const libc_other[] = {
    "atoi", "atol", "strtol", "strtoul", "strtoll", "strtoull", "strtod",
    "qsort", "bsearch", "rand", "srand", "time", "clock", "getenv", "fopen",
    "fclose", "fread", "read", "sleep", "usleep", "nanosleep", "setjmp",
    "longjmp", "__errno", "__errno_location", "_impure_ptr", "_sbrk", "sbrk",
    NULL};
/* Maths functions the FPU does in one instruction. */
static const char *const math_hw[] = {"sqrt", "fabs", "fmin", "fmax",
                                      "copysign", "fma", NULL};
static const char *const math_other[] = {
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
    "tanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
    "cbrt", "hypot", "floor", "ceil", "round", "lround", "llround", "trunc",
    "rint", "lrint", "nearbyint", "fmod", "remainder", "frexp", "ldexp",
    "modf", "erf", "erfc", "tgamma", "lgamma", NULL};
/* libgcc's soft operations are named __<op><modes><arity>. */
static const char *const libgcc_ops[] = {
    "add", "sub", "mul", "div", "mod", "udiv", "umod", "neg", "extend",
    "trunc", "fix", "fixuns", "float", "floatun", "eq", "ne", "lt", "le",
    "gt", "ge", "unord", "cmp", "ucmp", "ashl", "ashr", "lshr", "popcount",
    "clz", "ctz", "ffs", "parity", "bswap", "powi", NULL};

/* A maths function, with or without the float/long double suffix. */
static bool is_math(const char *s, const char *const *list)
{
    char base[32];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof base)
        return false;
    if (in_list(s, list))
        return true;
    if (s[n - 1] != 'f' && s[n - 1] != 'l')
        return false;
    copy_n(base, sizeof base, s, n - 1);
    return in_list(base, list);
}

/* "__divti3" -> true, with *mode "ti"; "__addtf3" -> "tf".  A libgcc
 * helper is "__" + an operation + machine modes (si, di, ti, sf, df, tf,
 * sc, dc...) + an optional arity digit. */
static bool is_libgcc(const char *s, const char **mode)
{
    if (strncmp(s, "__", 2) != 0)
        return false;
    const char *op = s + 2;
    for (const char *const *o = libgcc_ops; *o; o++) {
        size_t n = strlen(*o);
        if (strncmp(op, *o, n) != 0)
            continue;
        const char *m = op + n;
        size_t len = strlen(m);
        if (len > 0 && isdigit((unsigned char)m[len - 1]))
            len--;
        if (len < 2 || len > 6 || len % 2)
            continue;
        bool modes = true;
        for (size_t i = 0; i < len; i += 2)
            modes &= strchr("sdtxh", m[i]) && (m[i + 1] == 'i' || m[i + 1] == 'f' ||
                                               m[i + 1] == 'c');
        if (!modes)
            continue;
        /* long double (TFmode) says more than __int128 (TImode) when an
         * operation converts between them. */
        *mode = "";
        for (size_t i = 0; i < len; i += 2)
            if (m[i] == 't' && m[i + 1] == 'f')
                *mode = "tf";
            else if (m[i] == 't' && m[i + 1] == 'i' && !**mode)
                *mode = "ti";
        return true;
    }
    return false;
}

int km_image_explain_symbol(const char *s, char *buf, size_t n)
{
    const char *mode = "";
    if (n == 0)
        return 0;
    if (strcmp(s, "memset") == 0) {
        snprintf(buf, n, "a struct assignment, a zero-initialised local array "
                         "or a large initialiser became a call to 'memset', "
                         "which the image cannot have: there is no libc (write "
                         "the loop yourself, or initialise the fields one by one)");
    } else if (in_list(s, copies)) {
        snprintf(buf, n, "a struct assignment, a struct passed or returned by "
                         "value, or a local array initialised from constants "
                         "became a call to '%s', which the image cannot have: "
                         "there is no libc (copy in a loop yourself, or assign "
                         "the fields one by one)", s);
    } else if (in_list(s, compares)) {
        snprintf(buf, n, "'%s' is a C library function, which the image cannot "
                         "have: there is no libc (compare in a loop yourself)", s);
    } else if (in_list(s, strings)) {
        snprintf(buf, n, "'%s' is a C library function, which the image cannot "
                         "have: there is no libc (write the loop yourself, "
                         "bounded like every loop in a thread)", s);
    } else if (in_list(s, prints)) {
        snprintf(buf, n, "'%s' prints, and the image has no libc and no "
                         "console: report values with kmx_result and where "
                         "the thread is with kmx_progress", s);
    } else if (in_list(s, allocs)) {
        snprintf(buf, n, "'%s' allocates, and the image has no libc and no "
                         "heap: keep the data in a region (kmx_region), sized "
                         "in the manifest", s);
    } else if (in_list(s, exits)) {
        snprintf(buf, n, "'%s' ends a process, and the image has no libc and "
                         "no process: return from the thread, with its result "
                         "set by kmx_result", s);
    } else if (in_list(s, asserts)) {
        snprintf(buf, n, "assert() calls '%s', a C library function, which the "
                         "image cannot have: there is no libc (test the "
                         "condition yourself and report it with kmx_result)", s);
    } else if (strcmp(s, "__stack_chk_fail") == 0 ||
               strcmp(s, "__stack_chk_guard") == 0) {
        snprintf(buf, n, "'%s' comes from building with a stack protector, "
                         "which needs libc, and the image has none: build "
                         "with -fno-stack-protector", s);
    } else if (is_math(s, math_hw)) {
        snprintf(buf, n, "'%s' is a C maths library function, which the image "
                         "cannot have: there is no libm (the FPU does it in one "
                         "instruction: write __builtin_%s and build with "
                         "-fno-math-errno)", s, s);
    } else if (is_math(s, math_other)) {
        snprintf(buf, n, "'%s' is a C maths library function, which the image "
                         "cannot have: there is no libm (write your own, a "
                         "polynomial or a table)", s);
    } else if (in_list(s, libc_other)) {
        snprintf(buf, n, "'%s' is a C library function, which the image cannot "
                         "have: there is no libc", s);
    } else if (is_libgcc(s, &mode)) {
        if (strcmp(mode, "tf") == 0)
            snprintf(buf, n, "'%s' is the compiler's runtime (libgcc) for long "
                             "double, which is 128 bits wide and done in "
                             "software on RISC-V; the image does not link "
                             "libgcc: use double", s);
        else if (strcmp(mode, "ti") == 0)
            snprintf(buf, n, "'%s' is the compiler's runtime (libgcc) for "
                             "128-bit integers (__int128); the image does not "
                             "link libgcc: keep to 64-bit arithmetic", s);
        else
            snprintf(buf, n, "'%s' is a helper of the compiler's runtime "
                             "(libgcc), which the image does not link: write "
                             "the operation that needs it another way", s);
    } else if (strncmp(s, "kmx_", 4) == 0) {
        snprintf(buf, n, "'%s' is not a function of kmx (kmx.h and kmx(3) list "
                         "them): is it misspelt?", s);
        return 0;
    } else {
        snprintf(buf, n, "'%s' is used but nothing defines it, neither the "
                         "thread's sources nor kmx: is it misspelt, or is the "
                         "source that defines it missing from the thread's "
                         "sources?", s);
        return 0;
    }
    return 1;
}

/* ---- parsing --------------------------------------------------------- */

/* The length of the linker's own "path/ld: " at the start of a line (GNU
 * ld, gold, lld, a cross ld, collect2), or 0. */
static size_t linker_prefix(const char *line, size_t len)
{
    const char *colon = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (line[i] == ':' && line[i + 1] == ' ') {
            colon = line + i;
            break;
        }
    if (!colon)
        return 0;
    const char *base = line;
    for (const char *p = line; p < colon; p++)
        if (*p == '/')
            base = p + 1;
    size_t n = (size_t)(colon - base);
    static const char *const names[] = {"ld", "ld.bfd", "ld.gold", "ld.lld",
                                        "lld", "ld64.lld", "ld.mold", "mold",
                                        "collect2", NULL};
    for (const char *const *k = names; *k; k++) {
        size_t kn = strlen(*k);
        /* "ld", or a cross linker "riscv64-unknown-elf-ld". */
        if ((n == kn || (n > kn && base[n - kn - 1] == '-')) &&
            strncmp(base + n - kn, *k, kn) == 0)
            return (size_t)(colon - line) + 2;
    }
    return 0;
}

/* Skips an opening quote (` ' " or a typographic one) at *p. */
static const char *skip_open_quote(const char *p, const char *end)
{
    if (p < end && (*p == '`' || *p == '\'' || *p == '"'))
        return p + 1;
    if (end - p >= 3 && (unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
        ((unsigned char)p[2] == 0x98 || (unsigned char)p[2] == 0x9c))
        return p + 3;
    return p;
}

/* The end of a quoted name starting at p: the closing quote or line end. */
static const char *quoted_end(const char *p, const char *end)
{
    for (const char *q = p; q < end; q++) {
        if (*q == '\'' || *q == '"')
            return q;
        if (end - q >= 3 && (unsigned char)q[0] == 0xe2 &&
            (unsigned char)q[1] == 0x80 &&
            ((unsigned char)q[2] == 0x99 || (unsigned char)q[2] == 0x9d))
            return q;
    }
    return end;
}

static const char *find_in(const char *s, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = s; p + n <= end; p++)
        if (memcmp(p, needle, n) == 0)
            return p;
    return NULL;
}

/* Fills file/line/section of r from a GNU ld location (see the top). */
static void parse_location(undefined_ref *r, const char *loc, const char *end,
                           bool *from_data)
{
    *from_data = false;
    while (end > loc && (end[-1] == ' ' || end[-1] == ':'))
        end--;
    /* gold's "main.c:3: error", ld --warn-unresolved-symbols' "warning" */
    if (end - loc > 7 && memcmp(end - 7, ": error", 7) == 0)
        end -= 7;
    else if (end - loc > 9 && memcmp(end - 9, ": warning", 9) == 0)
        end -= 9;
    const char *paren = end > loc && end[-1] == ')' ? find_in(loc, end, ":(") : NULL;
    if (paren) {
        /* "file:(.section+0x1c)" */
        const char *sec = paren + 2, *sec_end = sec;
        while (sec_end < end - 1 && *sec_end != '+')
            sec_end++;
        copy_n(r->file, sizeof r->file, loc, (size_t)(paren - loc));
        if (strncmp(sec, ".text", 5) != 0) {
            copy_n(r->section, sizeof r->section, sec, (size_t)(sec_end - sec));
            *from_data = true;
        }
        return;
    }
    const char *digits = end;
    while (digits > loc && isdigit((unsigned char)digits[-1]))
        digits--;
    if (digits < end && digits > loc + 1 && digits[-1] == ':') {
        /* "file:line", or "obj.o:file:line" from a variable's initialiser. */
        const char *file = loc, *file_end = digits - 1;
        for (const char *p = loc; p < file_end; p++)
            if (*p == ':') {
                file = p + 1;
                *from_data = true;
            }
        copy_n(r->file, sizeof r->file, file, (size_t)(file_end - file));
        char num[16];
        copy_n(num, sizeof num, digits, (size_t)(end - digits));
        r->line = strtol(num, NULL, 10);
        return;
    }
    copy_n(r->file, sizeof r->file, loc, (size_t)(end - loc));
}

/* The entry for `symbol`, added when new; NULL when it was seen before or
 * there is no room (then *dropped counts it). */
static undefined_ref *note(undefined_ref *refs, size_t *n, size_t *dropped,
                           const char *symbol, size_t len)
{
    char name[128];
    copy_n(name, sizeof name, symbol, len);
    if (!name[0])
        return NULL;
    for (size_t i = 0; i < *n; i++)
        if (strcmp(refs[i].symbol, name) == 0)
            return NULL;
    if (*n == MAX_SYMBOLS) {
        /* Not counted exactly: a symbol past the kept ones may repeat. */
        *dropped = 1;
        return NULL;
    }
    undefined_ref *r = &refs[(*n)++];
    memset(r, 0, sizeof *r);
    memcpy(r->symbol, name, sizeof name);
    return r;
}

/* Where "in function" (or older binutils' "In function") starts in
 * [p, end), or NULL. */
static const char *in_function(const char *p, const char *end)
{
    const char *hit = find_in(p, end, ": in function ");
    return hit ? hit : find_in(p, end, ": In function ");
}

/* Reads the function name after `at` (an in_function() hit) into buf and
 * returns where the text after its closing "':" starts. */
static const char *read_function(const char *at, const char *end, char *buf,
                                 size_t n)
{
    const char *name = skip_open_quote(at + 14, end);
    const char *name_end = quoted_end(name, end);
    copy_n(buf, n, name, (size_t)(name_end - name));
    /* "`.L0 '": a local label, when the object has no symbols for the
     * function; naming it would only confuse. */
    if (buf[0] == '.')
        buf[0] = 0;
    const char *after = name_end;
    while (after < end && *after != ':')
        after++;
    return after < end ? after + 1 : end;
}

static void describe_where(const undefined_ref *r, ks_text *t)
{
    if (r->file[0] && r->line)
        ks_text_add(t, "%s:%ld", r->file, r->line);
    else if (r->file[0])
        ks_text_add(t, "%s", r->file);
    if (r->section[0])
        ks_text_add(t, "%sin a variable's initialiser (%s)", r->file[0] ? ", " : "",
            r->section);
    else if (r->function[0])
        ks_text_add(t, "%sin function '%s'", r->file[0] ? ", " : "", r->function);
}

int km_link_log_explain(const char *log, const char *display_name, km_error *err)
{
    if (!log)
        return KM_OK;
    undefined_ref refs[MAX_SYMBOLS];
    undefined_ref *lld_last = NULL;
    size_t n = 0, dropped = 0;
    char function[128] = "";
    /* kmx.ld makes an image that does not fit a link error: */
    char region[64] = "", sections[160] = "";
    unsigned long long overflow = 0;

    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        const char *next = end ? end + 1 : line + strlen(line);
        if (!end)
            end = next;
        if (end > line && end[-1] == '\r')
            end--;
        const char *p = line + linker_prefix(line, (size_t)(end - line));
        const char *hit;

        if ((hit = find_in(p, end, "overflowed by "))) {
            /* "region `IMAGE' overflowed by 7144 bytes" */
            const char *r = find_in(p, hit, "region ");
            if (r && !region[0]) {
                const char *name = skip_open_quote(r + 7, hit);
                copy_n(region, sizeof region, name,
                       (size_t)(quoted_end(name, hit) - name));
            }
            overflow += strtoull(hit + 14, NULL, 10);
        } else if ((hit = find_in(p, end, "will not fit in region"))) {
            /* "out.elf section `.rodata' will not fit in region `IMAGE'" */
            const char *sec = find_in(p, hit, "section ");
            if (sec) {
                const char *name = skip_open_quote(sec + 8, hit);
                size_t len = (size_t)(quoted_end(name, hit) - name);
                size_t used = strlen(sections);
                if (used + len + 8 < sizeof sections) {
                    snprintf(sections + used, sizeof sections - used, "%s'%.*s'",
                             used ? ", " : "", (int)len, name);
                }
            }
        } else if ((hit = find_in(p, end, "undefined reference to "))) {
            /* The function may head the same line (some ld versions). */
            const char *in = in_function(p, hit);
            if (in) {
                p = read_function(in, hit, function, sizeof function);
                while (p < hit && *p == ' ')
                    p++;
            }
            const char *name = skip_open_quote(hit + 23, end);
            const char *name_end = quoted_end(name, end);
            undefined_ref *r = note(refs, &n, &dropped, name, (size_t)(name_end - name));
            if (r) {
                bool from_data;
                parse_location(r, p, hit, &from_data);
                if (!from_data)
                    memcpy(r->function, function, sizeof function);
            }
            lld_last = NULL;
        } else if ((hit = in_function(p, end))) {
            read_function(hit, end, function, sizeof function);
        } else if ((hit = find_in(p, end, "undefined symbol: "))) {
            const char *name = skip_open_quote(hit + 18, end);
            const char *name_end = quoted_end(name, end);
            while (name_end > name && name_end[-1] == ' ')
                name_end--;
            lld_last = note(refs, &n, &dropped, name, (size_t)(name_end - name));
        } else if (lld_last && (hit = find_in(p, end, ">>> referenced by "))) {
            /* "main.c:12 (/src/thread/main.c:12)": the full path is better */
            const char *loc = hit + 18, *loc_end = end;
            const char *full = find_in(loc, end, " (");
            if (full && end[-1] == ')') {
                loc = full + 2;
                loc_end = end - 1;
            }
            bool from_data;
            parse_location(lld_last, loc, loc_end, &from_data);
        } else if (lld_last && (hit = find_in(p, end, ">>>"))) {
            /* lld's second line: "main.o:(f)" or "main.o:(function f: ...)" */
            const char *open = find_in(hit, end, ":(");
            if (open && !lld_last->function[0] && !lld_last->section[0]) {
                const char *f = open + 2;
                if (end - f > 9 && memcmp(f, "function ", 9) == 0)
                    f += 9;
                const char *f_end = f;
                while (f_end < end && *f_end != ')' && *f_end != ':')
                    f_end++;
                if (*f != '.')
                    copy_n(lld_last->function, sizeof lld_last->function, f,
                           (size_t)(f_end - f));
            }
            lld_last = NULL;
        }
        line = next;
    }
    if (n == 0 && overflow == 0)
        return KM_OK;
    const char *name = display_name ? display_name : "?";
    ks_text t = {.len = 0};
    if (overflow) {
        char by[32], limit[32];
        ks_thousands(overflow, by, sizeof by);
        ks_thousands(BH_IMAGE_MAX_BYTES, limit, sizeof limit);
        /* kmx.ld's IMAGE region is the image area; another region is only
         * named. */
        if (strcmp(region, "IMAGE") == 0)
            ks_text_add(&t, "image '%s' does not link: it is %s bytes over the %s bytes "
                    "of the cluster's instruction memory", name, by, limit);
        else
            ks_text_add(&t, "image '%s' does not link: it is %s bytes over the "
                    "linker script's region '%s'", name, by, region);
        if (sections[0])
            ks_text_add(&t, " (%s %s not fit)", sections,
                strchr(sections, ',') ? "do" : "does");
        ks_text_add(&t, "\n  globals and constants count: move large tables into a "
                "region (its initial contents given in the manifest, read with "
                "kmx_region), or build with -Os");
        if (n == 0)
            return km_fail_code(err, KM_EXIT_BUILD, "image.too-large", "%s", t.buf);
        ks_text_add(&t, "\n");
    }
    ks_text_add(&t, "image '%s' does not link: undefined symbol%s ", name,
        n == 1 && !dropped ? "" : "s");
    size_t listed = n < LIST_MAX ? n : LIST_MAX;
    bool more = n > listed || dropped;
    for (size_t i = 0; i < listed; i++)
        ks_text_add(&t, "%s'%s'", i == 0 ? "" : i + 1 == listed && !more ? " and " : ", ",
            refs[i].symbol);
    if (dropped)
        ks_text_add(&t, " and more");
    else if (more)
        ks_text_add(&t, " and %zu more", n - listed);
    for (size_t i = 0; i < listed; i++) {
        char why[512];
        km_image_explain_symbol(refs[i].symbol, why, sizeof why);
        ks_text_add(&t, "\n  ");
        size_t before = t.len;
        describe_where(&refs[i], &t);
        ks_text_add(&t, "%s%s", t.len > before ? ": " : "", why);
    }
    return km_fail_code(err, KM_EXIT_BUILD, overflow ? "image.too-large" : "image.undefined", "%s",
                        t.buf);
}
