/* image_so: the kernels' shared object defines the manifest's handlers
 * (km_image.h: km_so_check_handlers).
 *
 * The simulated grid finds a handler by name in the object's dynamic symbol
 * table, so that table is what is checked: a handler that would only fail
 * at run time (static, hidden, misspelt) is a build error here instead,
 * with the reason.  .symtab, when not stripped, only serves to tell a
 * static or hidden definition from a missing one. */
#include "km_image.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_elf.h"
#include "km_suggest.h"

#define HANDLER_PREFIX "km_handler_"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_MACHINE EM_RISCV
#else
#define HOST_MACHINE EM_NONE /* unknown host: not checked */
#endif

typedef enum handler_state {
    HANDLER_OK,
    HANDLER_MISSING,    /* not defined anywhere (or only referenced) */
    HANDLER_NOT_FUNC,   /* defined, exported, but a variable */
    HANDLER_STATIC,     /* defined, local (static, or hidden once linked) */
    HANDLER_HIDDEN,     /* defined, still marked hidden */
} handler_state;

/* How `symbol` is defined in symbol table `symtab` (0 when absent). */
static handler_state lookup(const ks_elf *e, size_t symtab, const char *symbol)
{
    size_t nsym, strtab;
    if (!symtab || !ks_elf_symtab(e, symtab, &nsym, &strtab))
        return HANDLER_MISSING;
    handler_state best = HANDLER_MISSING;
    for (size_t i = 1; i < nsym; i++) {
        Elf64_Sym s;
        if (!ks_elf_symbol(e, symtab, i, &s))
            break;
        const char *name = ks_elf_string(e, strtab, s.st_name);
        if (!name || strcmp(name, symbol) != 0 || s.st_shndx == SHN_UNDEF)
            continue;
        int bind = ELF64_ST_BIND(s.st_info), type = ELF64_ST_TYPE(s.st_info);
        int vis = ELF64_ST_VISIBILITY(s.st_other);
        handler_state st;
        if (vis == STV_HIDDEN || vis == STV_INTERNAL)
            st = HANDLER_HIDDEN;
        else if (bind == STB_LOCAL)
            st = HANDLER_STATIC;
        else if (type != STT_FUNC && type != STT_GNU_IFUNC)
            st = HANDLER_NOT_FUNC;
        else
            return HANDLER_OK;
        /* A later definition may be the good one; keep the first reason. */
        if (best == HANDLER_MISSING)
            best = st;
    }
    return best;
}

/* The names of handlers the object does export, prefix stripped, that the
 * manifest does not declare: the candidates for "did you mean". */
static size_t exported_undeclared(const ks_elf *e, size_t dynsym,
                                  const char *const *handlers, size_t n,
                                  const char **out, size_t cap)
{
    size_t nsym, strtab, count = 0, plen = strlen(HANDLER_PREFIX);
    if (!ks_elf_symtab(e, dynsym, &nsym, &strtab))
        return 0;
    for (size_t i = 1; i < nsym && count < cap; i++) {
        Elf64_Sym s;
        if (!ks_elf_symbol(e, dynsym, i, &s))
            break;
        const char *name = ks_elf_string(e, strtab, s.st_name);
        if (!name || strncmp(name, HANDLER_PREFIX, plen) != 0 ||
            s.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s.st_info) != STT_FUNC)
            continue;
        bool declared = false;
        for (size_t k = 0; k < n && !declared; k++)
            declared = handlers[k] && strcmp(handlers[k], name + plen) == 0;
        if (!declared)
            out[count++] = name + plen;
    }
    return count;
}

int km_so_check_handlers(const char *so_path, const char *const *handlers,
                         size_t n, km_error *err)
{
    char subject[1100];
    snprintf(subject, sizeof subject, "kernel library '%s'", so_path);
    ks_elf e;
    ks_error opened;
    if (ks_elf_open(&e, so_path, subject, &opened) != KS_OK)
        return km_fail_from(err, &opened);
    int rc = KM_OK;
    char m1[32], m2[32];
    if (HOST_MACHINE != EM_NONE && e.eh.e_machine != HOST_MACHINE) {
        rc = km_fail(err, KM_EXIT_BUILD,
                     "%s is an ELF file for %s, not for this host (%s): the "
                     "kernels run in the simulated grid, built with the host's "
                     "compiler", subject,
                     ks_elf_machine_name(e.eh.e_machine, m1, sizeof m1),
                     ks_elf_machine_name(HOST_MACHINE, m2, sizeof m2));
    } else if (e.eh.e_type != ET_DYN) {
        rc = km_fail(err, KM_EXIT_BUILD,
                     "%s is not a shared object (its ELF type is %u): the "
                     "kernels are linked with -shared", subject,
                     (unsigned)e.eh.e_type);
    }
    size_t dynsym = ks_elf_find_section(&e, SHT_DYNSYM), nsym = 0, strtab = 0;
    if (rc == KM_OK && (!dynsym || !ks_elf_symtab(&e, dynsym, &nsym, &strtab)))
        rc = km_fail(err, KM_EXIT_BUILD,
                     "%s has no readable dynamic symbol table (.dynsym), so "
                     "the grid could find no handler in it", subject);
    if (rc != KM_OK) {
        ks_elf_close(&e);
        return rc;
    }

    size_t symtab = ks_elf_find_section(&e, SHT_SYMTAB);
    const char **candidates = malloc((nsym ? nsym : 1) * sizeof *candidates);
    if (!candidates) {
        ks_elf_close(&e);
        return km_fail(err, KM_EXIT_SYSTEM, "cannot check %s: out of memory",
                       subject);
    }
    size_t ncandidates = exported_undeclared(&e, dynsym, handlers, n,
                                             candidates, nsym);

    char msg[sizeof err->message];
    size_t len = 0;
    msg[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const char *h = handlers[i] ? handlers[i] : "";
        char symbol[256];
        snprintf(symbol, sizeof symbol, HANDLER_PREFIX "%s", h);
        handler_state st = lookup(&e, dynsym, symbol);
        if (st == HANDLER_MISSING && symtab)
            st = lookup(&e, symtab, symbol);
        if (st == HANDLER_OK)
            continue;
        char line[768];
        switch (st) {
        case HANDLER_NOT_FUNC:
            snprintf(line, sizeof line,
                     "kernels: handler '%s' is declared in the manifest but "
                     "%s is a variable, not a function (expected KM_HANDLER(%s) "
                     "{ ... })", h, symbol, h);
            break;
        case HANDLER_STATIC:
            /* A linker turns a hidden symbol into a local one, so in a
             * linked object "static" and "hidden" look the same. */
            snprintf(line, sizeof line,
                     "kernels: handler '%s' is declared in the manifest but "
                     "%s is not exported (it is static, or has hidden "
                     "visibility), so the grid cannot find it (expected "
                     "KM_HANDLER(%s) { ... }, not static, built without "
                     "-fvisibility=hidden)", h, symbol, h);
            break;
        case HANDLER_HIDDEN:
            snprintf(line, sizeof line,
                     "kernels: handler '%s' is declared in the manifest but "
                     "%s has hidden visibility, so the grid cannot find it "
                     "(build the kernels without -fvisibility=hidden, or give "
                     "it __attribute__((visibility(\"default\"))))", h, symbol);
            break;
        default: {
            const char *near = km_suggest(h, candidates, ncandidates);
            int k = snprintf(line, sizeof line,
                             "kernels: handler '%s' is declared in the manifest "
                             "but no kernel source defines %s (expected "
                             "KM_HANDLER(%s) { ... })", h, symbol, h);
            if (near && k > 0 && (size_t)k < sizeof line)
                snprintf(line + k, sizeof line - (size_t)k,
                         "; a kernel defines KM_HANDLER(%s): is one of the "
                         "two names misspelt?", near);
            break;
        }
        }
        int w = snprintf(msg + len, sizeof msg - len, "%s%s", len ? "\n" : "", line);
        if (w < 0 || (size_t)w >= sizeof msg - len) {
            memcpy(msg + sizeof msg - 4, "...", 4);
            len = sizeof msg - 1;
            break;
        }
        len += (size_t)w;
    }
    free(candidates);
    ks_elf_close(&e);
    if (len)
        return km_fail(err, KM_EXIT_BUILD, "%s", msg);
    return KM_OK;
}
