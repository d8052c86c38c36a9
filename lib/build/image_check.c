/* image_check: measuring a thread image and applying the image rules
 * (km_image.h: km_image_inspect, km_image_check). */
#include "km_image.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ks_elf.h"
#include "ks_text.h"
#include "kmx_layout.h"

/* A number with thousands separators, in storage of its own for each use,
 * so that several can be passed to one printf. */
#define TH(v) ks_thousands((v), (char[32]){0}, 32)

#define IMAGE_END ((uint64_t)BH_LIM_BASE + BH_IMAGE_MAX_BYTES)

/* Names listed in one message before "and N more". */
#define LIST_MAX 6


static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ".text" and ".text.*", not ".textfoo": the classes of km_image_info. */
static bool section_is(const char *name, const char *base)
{
    size_t n = strlen(base);
    return strncmp(name, base, n) == 0 && (name[n] == 0 || name[n] == '.');
}

static void copy_cut(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len < n) {
        memcpy(dst, src, len + 1);
    } else {
        memcpy(dst, src, n - 4);
        memcpy(dst + n - 4, "...", 4);
    }
}

/* The section a symbol is defined in, or 0 (undefined, absolute, common,
 * or an index that is not a section of this file). */
static size_t symbol_section(const ks_elf *e, const Elf64_Sym *s)
{
    if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE ||
        s->st_shndx >= e->shnum)
        return 0;
    return s->st_shndx;
}

/* A symbol a person wrote: not a section or file marker, not nameless. */
static bool user_symbol(const Elf64_Sym *s, const char *name)
{
    int type = ELF64_ST_TYPE(s->st_info);
    return name && name[0] && type != STT_SECTION && type != STT_FILE;
}

/* Keeps the KM_IMAGE_TOP_SYMBOLS largest, largest first (ties by address,
 * so that the order does not depend on the symbol table's). */
static void keep_largest(km_image_info *info, const char *name,
                         const char *section, const Elf64_Sym *s)
{
    for (size_t i = 0; i < info->nlargest; i++)
        if (info->largest[i].addr == s->st_value &&
            info->largest[i].size == s->st_size)
            return; /* an alias of one already kept */
    size_t at = info->nlargest;
    while (at > 0 && (info->largest[at - 1].size < s->st_size ||
                      (info->largest[at - 1].size == s->st_size &&
                       info->largest[at - 1].addr > s->st_value)))
        at--;
    if (at >= KM_IMAGE_TOP_SYMBOLS)
        return;
    size_t last = info->nlargest < KM_IMAGE_TOP_SYMBOLS ? info->nlargest
                                                        : KM_IMAGE_TOP_SYMBOLS - 1;
    memmove(&info->largest[at + 1], &info->largest[at],
            (last - at) * sizeof info->largest[0]);
    km_image_symbol *k = &info->largest[at];
    copy_cut(k->name, sizeof k->name, name);
    copy_cut(k->section, sizeof k->section, section);
    k->addr = s->st_value;
    k->size = s->st_size;
    if (info->nlargest < KM_IMAGE_TOP_SYMBOLS)
        info->nlargest++;
}

/* Opens an image and measures it.  On KM_OK the caller closes *e. */
static int open_image(const char *path, const char *subject, ks_elf *e,
                      km_image_info *info, km_error *err)
{
    memset(info, 0, sizeof *info);
    ks_error opened;
    if (ks_elf_open(e, path, subject, &opened) != KS_OK)
        return km_fail_from(err, &opened);
    int rc = KM_OK;
    char m[32];
    if (e->eh.e_machine != EM_RISCV) {
        rc = km_fail_code(err, KM_EXIT_BUILD, "image.not-an-image",
                     "%s is an ELF file for %s, not RISC-V: thread images are "
                     "built with riscv64-unknown-elf-gcc", subject,
                     ks_elf_machine_name(e->eh.e_machine, m, sizeof m));
    } else if (e->eh.e_type != ET_EXEC) {
        const char *what =
            e->eh.e_type == ET_REL ? "a relocatable object (a .o file), not a linked image"
            : e->eh.e_type == ET_DYN ? "a shared object or a position-independent "
                                       "executable, not an image linked at 0x08000000 "
                                       "(no -shared, no -pie)"
            : e->eh.e_type == ET_CORE ? "a core dump, not an image"
                                      : "not an executable (its ELF type is unknown)";
        rc = km_fail_code(err, KM_EXIT_BUILD, "image.not-an-image", "%s is %s", subject, what);
    }
    if (rc != KM_OK) {
        ks_elf_close(e);
        return rc;
    }

    info->entry = e->eh.e_entry;
    for (size_t i = 1; i < e->shnum; i++) {
        const Elf64_Shdr *s = &e->sh[i];
        if (!(s->sh_flags & SHF_ALLOC) || s->sh_size == 0)
            continue;
        const char *name = ks_elf_section_name(e, i);
        if (s->sh_type == SHT_NOBITS)
            info->bss_bytes += s->sh_size;
        else if (section_is(name, ".text"))
            info->text_bytes += s->sh_size;
        else if (section_is(name, ".rodata") || section_is(name, ".srodata"))
            info->rodata_bytes += s->sh_size;
        else if (section_is(name, ".data") || section_is(name, ".sdata"))
            info->data_bytes += s->sh_size;
    }

    bool any = false;
    for (size_t i = 0; i < e->phnum; i++) {
        const Elf64_Phdr *p = &e->ph[i];
        if (p->p_type != PT_LOAD || p->p_filesz == 0)
            continue;
        /* A corrupt address near 2^64 saturates instead of wrapping. */
        uint64_t end = p->p_vaddr + p->p_filesz < p->p_vaddr ? UINT64_MAX
                                                             : p->p_vaddr + p->p_filesz;
        if (!any || p->p_vaddr < info->load_start)
            info->load_start = p->p_vaddr;
        if (!any || end > info->load_end)
            info->load_end = end;
        any = true;
    }
    if (any) {
        uint64_t from = info->load_start < BH_LIM_BASE ? info->load_start
                                                        : BH_LIM_BASE;
        info->loadable_bytes = info->load_end > from ? info->load_end - from : 0;
    }
    uint64_t named = info->text_bytes + info->rodata_bytes + info->data_bytes;
    info->other_bytes = info->loadable_bytes > named ? info->loadable_bytes - named : 0;

    size_t symtab = ks_elf_find_section(e, SHT_SYMTAB), nsym, strtab;
    if (symtab && ks_elf_symtab(e, symtab, &nsym, &strtab)) {
        for (size_t i = 1; i < nsym; i++) {
            Elf64_Sym s;
            if (!ks_elf_symbol(e, symtab, i, &s))
                break;
            size_t sec = symbol_section(e, &s);
            const char *name = ks_elf_string(e, strtab, s.st_name);
            /* Zero-fill symbols take no image bytes: check_bss names them. */
            if (!sec || s.st_size == 0 || !(e->sh[sec].sh_flags & SHF_ALLOC) ||
                e->sh[sec].sh_type == SHT_NOBITS || !user_symbol(&s, name))
                continue;
            keep_largest(info, name, ks_elf_section_name(e, sec), &s);
        }
    }
    return KM_OK;
}

int km_image_inspect(const char *path, km_image_info *info, km_error *err)
{
    char subject[1100];
    snprintf(subject, sizeof subject, "image '%s'", path);
    ks_elf e;
    km_image_info scratch;
    int rc = open_image(path, subject, &e, info ? info : &scratch, err);
    if (rc == KM_OK)
        ks_elf_close(&e);
    return rc;
}

/* The name of a defined symbol at `addr` (a function, else any), for
 * saying what is at the entry point; NULL when there is none. */
static const char *symbol_at(const ks_elf *e, uint64_t addr)
{
    size_t symtab = ks_elf_find_section(e, SHT_SYMTAB), nsym, strtab;
    if (!symtab || !ks_elf_symtab(e, symtab, &nsym, &strtab))
        return NULL;
    const char *best = NULL;
    for (size_t i = 1; i < nsym; i++) {
        Elf64_Sym s;
        if (!ks_elf_symbol(e, symtab, i, &s))
            break;
        const char *name = ks_elf_string(e, strtab, s.st_name);
        if (s.st_value != addr || !symbol_section(e, &s) || !user_symbol(&s, name) ||
            name[0] == '$' || has_prefix(name, ".L"))
            continue; /* RISC-V mapping symbols ($x...) and local labels */
        if (ELF64_ST_TYPE(s.st_info) == STT_FUNC)
            return name;
        if (!best)
            best = name;
    }
    return best;
}

static void check_entry(const ks_elf *e, const char *subject, ks_text *t)
{
    uint64_t entry = e->eh.e_entry;
    if (entry == BH_LIM_BASE)
        return;
    const char *at_entry = symbol_at(e, entry);
    const char *at_base = symbol_at(e, BH_LIM_BASE);
    ks_text_add(t, "%s%s has its entry point at 0x%08llx", t->len ? "\n" : "", subject,
        (unsigned long long)entry);
    if (at_entry)
        ks_text_add(t, " ('%s')", at_entry);
    ks_text_add(t, ", but the loader starts an image at its first byte, 0x%08x",
        BH_LIM_BASE);
    if (at_base)
        ks_text_add(t, ", where '%s' is", at_base);
    ks_text_add(t, "\n  link with kmx's linker script (kmx.ld), which puts kmx's "
           "start-up code first");
}

/* The allocated sections within [lo, hi), as ".text, .rodata". */
static void sections_in(const ks_elf *e, uint64_t lo, uint64_t hi, ks_text *t)
{
    bool first = true;
    for (size_t i = 1; i < e->shnum; i++) {
        const Elf64_Shdr *s = &e->sh[i];
        if (!(s->sh_flags & SHF_ALLOC) || s->sh_size == 0 || s->sh_addr < lo ||
            s->sh_addr >= hi)
            continue;
        ks_text_add(t, "%s%s", first ? "" : ", ", ks_elf_section_name(e, i));
        first = false;
    }
    if (first)
        ks_text_add(t, "no section");
}

/* Segments outside the image area; returns whether there was one. */
static bool check_window(const ks_elf *e, const char *subject, bool oversize, ks_text *t)
{
    bool found = false;
    for (size_t i = 0; i < e->phnum; i++) {
        const Elf64_Phdr *p = &e->ph[i];
        if (p->p_type != PT_LOAD || p->p_filesz == 0)
            continue;
        /* A segment that starts inside but runs past the end is the image
         * being too large: check_size says that, with the sizes. */
        uint64_t top = oversize ? (uint64_t)BH_LIM_BASE + BH_LIM_BYTES : IMAGE_END;
        if (p->p_vaddr >= BH_LIM_BASE && p->p_vaddr < top)
            continue;
        uint64_t end = p->p_vaddr + p->p_filesz < p->p_vaddr ? UINT64_MAX
                                                             : p->p_vaddr + p->p_filesz;
        ks_text_add(t, "%s%s has a loadable segment at 0x%08llx..0x%08llx (%s bytes: ",
            t->len ? "\n" : "", subject, (unsigned long long)p->p_vaddr,
            (unsigned long long)end, TH(p->p_filesz));
        sections_in(e, p->p_vaddr, end, t);
        ks_text_add(t, "), outside the image area 0x%08x..0x%08llx, the %s bytes of "
               "the cluster's local memory that instructions are fetched from",
            BH_LIM_BASE, (unsigned long long)IMAGE_END, TH(BH_IMAGE_MAX_BYTES));
        if (p->p_offset == 0 && p->p_filesz >= sizeof(Elf64_Ehdr))
            ks_text_add(t, "\n  the segment holds the ELF file's own headers (as "
                   "-Ttext makes it): link with kmx's linker script (kmx.ld)");
        else
            ks_text_add(t, "\n  link with kmx's linker script (kmx.ld), which places "
                   "everything from 0x%08x on", BH_LIM_BASE);
        found = true;
    }
    return found;
}

static void check_size(const km_image_info *info, const char *subject, ks_text *t)
{
    if (info->loadable_bytes <= BH_IMAGE_MAX_BYTES)
        return;
    ks_text_add(t, "%s%s is %s bytes, over the %s bytes of the cluster's instruction "
           "memory by %s (text %s, rodata %s, data %s",
        t->len ? "\n" : "", subject, TH(info->loadable_bytes),
        TH(BH_IMAGE_MAX_BYTES), TH(info->loadable_bytes - BH_IMAGE_MAX_BYTES),
        TH(info->text_bytes), TH(info->rodata_bytes), TH(info->data_bytes));
    if (info->other_bytes)
        ks_text_add(t, ", other sections and padding %s", TH(info->other_bytes));
    ks_text_add(t, ")");
    if (info->nlargest) {
        ks_text_add(t, "\n  largest symbols:");
        for (size_t i = 0; i < info->nlargest; i++)
            ks_text_add(t, "%s '%s' (%s bytes, %s)", i ? "," : "", info->largest[i].name,
                TH(info->largest[i].size), info->largest[i].section);
    }
    ks_text_add(t, "\n  globals and constants count: move large tables into a region "
           "(its initial contents given in the manifest, read with "
           "kmx_region), or build with -Os");
}

/* True for a section that the loader would have to zero: the image has
 * none, since nothing zeroes memory for it. */
static bool zero_fill_section(const ks_elf *e, size_t i)
{
    return i > 0 && i < e->shnum && e->sh[i].sh_type == SHT_NOBITS &&
           (e->sh[i].sh_flags & SHF_ALLOC) && e->sh[i].sh_size > 0;
}

static void check_bss(const ks_elf *e, const char *subject, ks_text *t)
{
    size_t nsections = 0, first_section = 0;
    for (size_t i = 1; i < e->shnum; i++)
        if (zero_fill_section(e, i)) {
            if (!nsections)
                first_section = i;
            nsections++;
        }

    /* The symbols in them (COMMON ones too, which only an unlinked object
     * has, but they would land in .bss). */
    size_t symtab = ks_elf_find_section(e, SHT_SYMTAB), nsym = 0, strtab = 0;
    if (symtab && !ks_elf_symtab(e, symtab, &nsym, &strtab))
        nsym = 0;
    size_t nnamed = 0;
    uint64_t rest_bytes = 0;
    ks_text names = {.len = 0};
    for (size_t i = 1; i < nsym; i++) {
        Elf64_Sym s;
        if (!ks_elf_symbol(e, symtab, i, &s))
            break;
        const char *name = ks_elf_string(e, strtab, s.st_name);
        bool common = s.st_shndx == SHN_COMMON;
        if (!user_symbol(&s, name) || (!common && !zero_fill_section(e, s.st_shndx)))
            continue;
        /* Linker-script markers (__bss_start, _end) have no size or type. */
        if (s.st_size == 0 && ELF64_ST_TYPE(s.st_info) != STT_OBJECT)
            continue;
        if (nnamed < LIST_MAX) {
            ks_text_add(&names, "%s'%s' (%s byte%s", nnamed ? ", " : "", name,
                TH(s.st_size), s.st_size == 1 ? "" : "s");
            if (common)
                ks_text_add(&names, ", COMMON: built with -fcommon");
            else if (nsections > 1)
                ks_text_add(&names, ", %s", ks_elf_section_name(e, s.st_shndx));
            ks_text_add(&names, ")");
        } else {
            rest_bytes += s.st_size;
        }
        nnamed++;
    }

    if (nsections == 0 && nnamed == 0) {
        /* Without section headers, only the segments tell. */
        if (e->shnum == 0)
            for (size_t i = 0; i < e->phnum; i++) {
                const Elf64_Phdr *p = &e->ph[i];
                if (p->p_type == PT_LOAD && p->p_memsz > p->p_filesz)
                    ks_text_add(t, "%s%s has %s bytes of zero-initialised memory "
                           "(segment %zu), which the image cannot have: nothing "
                           "zeroes it",
                        t->len ? "\n" : "", subject,
                        TH(p->p_memsz - p->p_filesz), i);
            }
        return;
    }

    ks_text_add(t, "%s%s has zero-initialised globals in ", t->len ? "\n" : "", subject);
    if (nsections == 0) {
        ks_text_add(t, "COMMON");
    } else {
        size_t k = 0;
        for (size_t i = 1; i < e->shnum; i++) {
            if (!zero_fill_section(e, i))
                continue;
            const char *sep = k == 0 ? "" : k + 1 == nsections ? " and " : ", ";
            ks_text_add(t, "%s%s", sep, ks_elf_section_name(e, i));
            k++;
        }
    }
    if (nnamed) {
        ks_text_add(t, ": %s", names.buf);
        if (nnamed > LIST_MAX)
            ks_text_add(t, " and %zu more (%s bytes)", nnamed - LIST_MAX, TH(rest_bytes));
    } else {
        uint64_t bytes = 0;
        for (size_t i = 1; i < e->shnum; i++)
            if (zero_fill_section(e, i))
                bytes += e->sh[i].sh_size;
        ks_text_add(t, ": %s bytes (the symbol table is stripped, so the globals cannot "
               "be named; %s is the first section)",
            TH(bytes), ks_elf_section_name(e, first_section));
    }
    ks_text_add(t, "\n  the image has no .bss: give each a non-zero initialiser and "
           "__attribute__((section(\".data\"))), or put the data in a region");
}

/* A section of function pointers that a C library's start-up or exit
 * would call. */
static bool is_ctor_section(const ks_elf *e, size_t i)
{
    const Elf64_Shdr *s = &e->sh[i];
    const char *name = ks_elf_section_name(e, i);
    return (s->sh_flags & SHF_ALLOC) && s->sh_type != SHT_NOBITS && s->sh_size > 0 &&
           (s->sh_type == SHT_INIT_ARRAY || s->sh_type == SHT_FINI_ARRAY ||
            s->sh_type == SHT_PREINIT_ARRAY || section_is(name, ".init_array") ||
            section_is(name, ".fini_array") || section_is(name, ".ctors") ||
            section_is(name, ".dtors"));
}

/* Constructors and destructors never run: nothing calls them before
 * kmx_main or after it (kmx.ld keeps their sections for this check). */
static void check_constructors(const ks_elf *e, const char *subject, ks_text *t)
{
    size_t listed = 0, total = 0;
    ks_text names = {.len = 0};
    for (size_t i = 1; i < e->shnum; i++) {
        if (!is_ctor_section(e, i))
            continue;
        const Elf64_Shdr *s = &e->sh[i];
        /* ks_elf_open checked that the section's bytes are in the file. */
        for (uint64_t k = 0; k + 8 <= s->sh_size; k += 8) {
            uint64_t fn;
            memcpy(&fn, e->data + s->sh_offset + k, sizeof fn);
            /* 0 and -1 are the old .ctors list's end markers. */
            if (fn == 0 || fn == UINT64_MAX)
                continue;
            total++;
            if (listed++ >= LIST_MAX)
                continue;
            const char *name = symbol_at(e, fn);
            if (name)
                ks_text_add(&names, "%s'%s' (%s)", listed > 1 ? ", " : "", name,
                    ks_elf_section_name(e, i));
            else
                ks_text_add(&names, "%s0x%08llx (%s)", listed > 1 ? ", " : "",
                    (unsigned long long)fn, ks_elf_section_name(e, i));
        }
    }
    if (!total)
        return;
    ks_text_add(t, "%s%s has constructors or destructors, which never run: %s",
        t->len ? "\n" : "", subject, names.buf);
    if (total > LIST_MAX)
        ks_text_add(t, " and %zu more", total - LIST_MAX);
    ks_text_add(t, "\n  there is no C library start-up to call them: call each from "
           "kmx_main yourself, and drop __attribute__((constructor)) and "
           "((destructor))");
}

static void check_undefined(const ks_elf *e, const char *subject, ks_text *t)
{
    size_t symtab = ks_elf_find_section(e, SHT_SYMTAB), nsym, strtab;
    if (!symtab || !ks_elf_symtab(e, symtab, &nsym, &strtab))
        return;
    const char *listed[LIST_MAX];
    size_t nlisted = 0, total = 0;
    for (size_t i = 1; i < nsym; i++) {
        Elf64_Sym s;
        if (!ks_elf_symbol(e, symtab, i, &s))
            break;
        const char *name = ks_elf_string(e, strtab, s.st_name);
        /* A weak undefined symbol is 0 by definition: code may test it. */
        if (s.st_shndx != SHN_UNDEF || ELF64_ST_BIND(s.st_info) == STB_WEAK ||
            !user_symbol(&s, name))
            continue;
        bool seen = false;
        for (size_t k = 0; k < nlisted; k++)
            seen |= strcmp(listed[k], name) == 0;
        if (seen)
            continue;
        if (nlisted < LIST_MAX)
            listed[nlisted++] = name;
        total++;
    }
    if (!total)
        return;
    ks_text_add(t, "%s%s has undefined symbol%s, which nothing resolves on the device: ",
        t->len ? "\n" : "", subject, total == 1 ? "" : "s");
    for (size_t k = 0; k < nlisted; k++)
        ks_text_add(t, "%s'%s'", k ? ", " : "", listed[k]);
    if (total > nlisted)
        ks_text_add(t, " and %zu more", total - nlisted);
    for (size_t k = 0; k < nlisted; k++) {
        char why[512];
        km_image_explain_symbol(listed[k], why, sizeof why);
        ks_text_add(t, "\n  %s", why);
    }
}

int km_image_check(const char *path, const char *display_name,
                   km_image_info *info, km_error *err)
{
    char subject[1100];
    snprintf(subject, sizeof subject, "image '%s'", display_name ? display_name : path);
    km_image_info scratch;
    if (!info)
        info = &scratch;
    ks_elf e;
    int rc = open_image(path, subject, &e, info, err);
    if (rc != KM_OK)
        return rc;

    ks_text t = {.len = 0};
    /* The code of the first rule broken names the failure (kmrun(3)). */
    const char *code = NULL;
#define RULE(name, call)                                                                          \
    do {                                                                                          \
        size_t before = t.len;                                                                    \
        call;                                                                                     \
        if (!code && t.len > before)                                                              \
            code = name;                                                                          \
    } while (0)
    RULE("image.entry", check_entry(&e, subject, &t));
    /* An image that overflowed (linked with --noinhibit-exec to measure
     * it) spills into the rest of local memory: that is its size's fault,
     * said once by check_size with the sizes and the largest symbols. */
    bool oversize = info->loadable_bytes > BH_IMAGE_MAX_BYTES && info->load_start >= BH_LIM_BASE;
    bool window = true;
    RULE("image.layout", window = check_window(&e, subject, oversize, &t));
    if (!window || oversize)
        RULE("image.too-large", check_size(info, subject, &t));
    if (info->load_end == 0) {
        if (!code)
            code = "image.empty";
        ks_text_add(&t, "%s%s has no loadable content (no PT_LOAD segment with bytes)",
            t.len ? "\n" : "", subject);
    }
    RULE("image.bss", check_bss(&e, subject, &t));
    RULE("image.constructors", check_constructors(&e, subject, &t));
    RULE("image.undefined", check_undefined(&e, subject, &t));
#undef RULE
    ks_elf_close(&e);
    if (t.len)
        return km_fail_code(err, KM_EXIT_BUILD, code, "%s", t.buf);
    return KM_OK;
}
