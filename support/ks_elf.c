/* elf_read: bounds-checked ELF64 reading (elf_read.h). */
#include "ks_elf.h"
#include "ks_file.h"
#include "ks_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Headers are copied out of the file as they are; both the X280 images and
 * the kernels are little endian, so the host must be too. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "elf_read assumes a little-endian host"
#endif

/* No image or kernel library comes near this; it keeps a wrong path (a
 * disk image, /dev/zero) from being read into memory whole. */
#define KS_ELF_MAX_FILE (512u * 1024u * 1024u)


/* True when [off, off + len) lies within a file of `size` bytes; written so
 * that no sum can overflow. */
static bool in_file(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

static int read_whole(const char *path, unsigned char **data, size_t *size,
                      ks_error *err)
{
    struct stat st;
    const char *kind;
    int fd = ks_open_regular(path, &st, &kind);
    if (fd < 0 && kind)
        return ks_fail(err, KS_ERR_SYSTEM, "cannot open '%s': it is %s "
                       "(expected a regular file)", path, kind);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        if (fd >= 0)
            close(fd);
        return ks_fail_errno(err, KS_ERR_SYSTEM, "cannot open '%s'", path);
    }
    size_t cap = 0, len = 0;
    unsigned char *buf = NULL;
    for (;;) {
        if (len == cap) {
            if (cap >= KS_ELF_MAX_FILE) {
                free(buf);
                fclose(f);
                return ks_fail(err, KS_ERR_IMAGE,
                               "'%s' is larger than %u MiB: not an image or a "
                               "kernel library", path, KS_ELF_MAX_FILE >> 20);
            }
            cap = cap ? cap * 2 : 64 * 1024;
            unsigned char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                return ks_fail(err, KS_ERR_SYSTEM,
                               "cannot read '%s': out of memory", path);
            }
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                int saved = errno;
                free(buf);
                fclose(f);
                errno = saved;
                return ks_fail_errno(err, KS_ERR_SYSTEM, "cannot read '%s'",
                                     path);
            }
            break;
        }
    }
    fclose(f);
    *data = buf;
    *size = len;
    return KS_OK;
}

/* Shows what a non-ELF file starts with, so that "it is a shell script" or
 * "it is an ar archive" is plain from the message. */
static void describe_start(const unsigned char *d, size_t size, char *buf,
                           size_t n)
{
    if (size == 0) {
        snprintf(buf, n, "it is empty");
        return;
    }
    if (size >= 8 && memcmp(d, "!<arch>\n", 8) == 0) {
        snprintf(buf, n, "it is an ar archive (a library, not a linked file)");
        return;
    }
    char shown[64];
    size_t o = 0;
    for (size_t i = 0; i < size && i < 8 && o + 5 < sizeof shown; i++) {
        if (d[i] >= 0x20 && d[i] < 0x7f && d[i] != '\\' && d[i] != '"')
            shown[o++] = (char)d[i];
        else
            o += (size_t)snprintf(shown + o, sizeof shown - o, "\\x%02x", d[i]);
    }
    shown[o] = 0;
    snprintf(buf, n, "it starts with \"%s\", not \"\\x7fELF\"", shown);
}

int ks_elf_open(ks_elf *e, const char *path, const char *subject,
                ks_error *err)
{
    memset(e, 0, sizeof *e);
    unsigned char *d = NULL;
    size_t size = 0;
    int rc = read_whole(path, &d, &size, err);
    if (rc != KS_OK)
        return rc;
    e->data = d;
    e->size = size;
    char a[32], b[32];

    if (size < SELFMAG || memcmp(d, ELFMAG, SELFMAG) != 0) {
        char start[96];
        describe_start(d, size, start, sizeof start);
        rc = ks_fail(err, KS_ERR_IMAGE, "%s is not an ELF file: %s",
                     subject, start);
        goto fail;
    }
    if (size < EI_NIDENT) {
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s is truncated: %zu bytes, shorter than an ELF "
                     "identification (%d bytes)", subject, size, EI_NIDENT);
        goto fail;
    }
    if (d[EI_CLASS] != ELFCLASS64) {
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s is a %s ELF file; expected a 64-bit one (ELFCLASS64)",
                     subject, d[EI_CLASS] == ELFCLASS32 ? "32-bit"
                                                        : "corrupt (no class)");
        goto fail;
    }
    if (d[EI_DATA] != ELFDATA2LSB) {
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s is a %s ELF file; expected a little-endian one",
                     subject, d[EI_DATA] == ELFDATA2MSB ? "big-endian"
                                                        : "corrupt (no byte order)");
        goto fail;
    }
    if (size < sizeof(Elf64_Ehdr)) {
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s is truncated: %zu bytes, shorter than an ELF64 "
                     "header (%zu bytes)", subject, size, sizeof(Elf64_Ehdr));
        goto fail;
    }
    memcpy(&e->eh, d, sizeof e->eh);
    const Elf64_Ehdr *h = &e->eh;
    const char *size_text = ks_thousands(size, b, sizeof b);

    /* Two fields hold the version: name the one that is wrong, with its
     * own value ("is 1, not 1" said nothing). */
    if (h->e_version != EV_CURRENT || d[EI_VERSION] != EV_CURRENT) {
        bool ident = d[EI_VERSION] != EV_CURRENT;
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s is corrupt: its ELF version (%s) is %u, not %d",
                     subject, ident ? "e_ident[EI_VERSION]" : "e_version",
                     ident ? (unsigned)d[EI_VERSION] : (unsigned)h->e_version,
                     EV_CURRENT);
        goto fail;
    }

    /* Program headers. */
    if (h->e_phnum > 0) {
        if (h->e_phentsize != sizeof(Elf64_Phdr)) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s is corrupt: its program headers are %u bytes "
                         "each, not %zu", subject, (unsigned)h->e_phentsize,
                         sizeof(Elf64_Phdr));
            goto fail;
        }
        /* PN_XNUM (more than 65,534 segments) never happens in an image or
         * a kernel library; refusing it keeps the reader simple. */
        if (h->e_phnum == PN_XNUM) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s has more than 65,534 segments, which no image "
                         "or kernel library has", subject);
            goto fail;
        }
        uint64_t len = (uint64_t)h->e_phnum * sizeof(Elf64_Phdr);
        if (!in_file(h->e_phoff, len, size)) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s is truncated or corrupt: its program headers "
                         "(%u at byte %s) run past the end of the file "
                         "(%s bytes)", subject, (unsigned)h->e_phnum,
                         ks_thousands(h->e_phoff, a, sizeof a), size_text);
            goto fail;
        }
        e->phnum = h->e_phnum;
        e->ph = malloc(len);
        if (!e->ph) {
            rc = ks_fail(err, KS_ERR_SYSTEM, "cannot read %s: out of memory",
                         subject);
            goto fail;
        }
        memcpy(e->ph, d + h->e_phoff, len);
        for (size_t i = 0; i < e->phnum; i++) {
            const Elf64_Phdr *p = &e->ph[i];
            if (p->p_type != PT_NULL && !in_file(p->p_offset, p->p_filesz, size)) {
                char c[32];
                rc = ks_fail(err, KS_ERR_IMAGE,
                             "%s is truncated or corrupt: segment %zu (%s "
                             "bytes at byte %s) runs past the end of the "
                             "file (%s bytes)", subject, i,
                             ks_thousands(p->p_filesz, a, sizeof a),
                             ks_thousands(p->p_offset, c, sizeof c), size_text);
                goto fail;
            }
        }
    }

    /* Section headers; extended numbering (e_shnum 0, the count in section
     * 0's sh_size; e_shstrndx SHN_XINDEX, the index in its sh_link) is
     * followed since a linker may produce it. */
    if (h->e_shoff != 0) {
        if (h->e_shentsize != sizeof(Elf64_Shdr)) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s is corrupt: its section headers are %u bytes "
                         "each, not %zu", subject, (unsigned)h->e_shentsize,
                         sizeof(Elf64_Shdr));
            goto fail;
        }
        if (!in_file(h->e_shoff, sizeof(Elf64_Shdr), size)) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s is truncated or corrupt: its section headers "
                         "(at byte %s) lie past the end of the file (%s "
                         "bytes)", subject,
                         ks_thousands(h->e_shoff, a, sizeof a), size_text);
            goto fail;
        }
        Elf64_Shdr first;
        memcpy(&first, d + h->e_shoff, sizeof first);
        uint64_t shnum = h->e_shnum ? h->e_shnum : first.sh_size;
        uint64_t shstrndx = h->e_shstrndx == SHN_XINDEX ? first.sh_link
                                                        : h->e_shstrndx;
        if (shnum > (size - h->e_shoff) / sizeof(Elf64_Shdr)) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s is truncated or corrupt: its section headers "
                         "(%llu at byte %s) run past the end of the file "
                         "(%s bytes)", subject, (unsigned long long)shnum,
                         ks_thousands(h->e_shoff, a, sizeof a), size_text);
            goto fail;
        }
        if (shnum > 0 && shstrndx >= shnum) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s is corrupt: its section-name table is section "
                         "%llu of %llu", subject,
                         (unsigned long long)shstrndx,
                         (unsigned long long)shnum);
            goto fail;
        }
        e->shnum = (size_t)shnum;
        e->shstrndx = shnum > 0 ? (size_t)shstrndx : 0;
        if (shnum > 0) {
            e->sh = malloc((size_t)shnum * sizeof(Elf64_Shdr));
            if (!e->sh) {
                rc = ks_fail(err, KS_ERR_SYSTEM,
                             "cannot read %s: out of memory", subject);
                goto fail;
            }
            memcpy(e->sh, d + h->e_shoff, (size_t)shnum * sizeof(Elf64_Shdr));
        }
        for (size_t i = 1; i < e->shnum; i++) {
            const Elf64_Shdr *s = &e->sh[i];
            if (s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL &&
                !in_file(s->sh_offset, s->sh_size, size)) {
                char c[32];
                rc = ks_fail(err, KS_ERR_IMAGE,
                             "%s is truncated or corrupt: section %zu (%s "
                             "bytes at byte %s) runs past the end of the "
                             "file (%s bytes)", subject, i,
                             ks_thousands(s->sh_size, a, sizeof a),
                             ks_thousands(s->sh_offset, c, sizeof c),
                             size_text);
                goto fail;
            }
        }
        if (e->shstrndx != 0 && e->sh[e->shstrndx].sh_type != SHT_STRTAB) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s is corrupt: its section-name table (section "
                         "%zu) is not a string table", subject, e->shstrndx);
            goto fail;
        }
        for (size_t i = 1; i < e->shnum && e->shstrndx; i++) {
            if (!ks_elf_string(e, e->shstrndx, e->sh[i].sh_name)) {
                rc = ks_fail(err, KS_ERR_IMAGE,
                             "%s is corrupt: the name of section %zu lies "
                             "outside the section-name table", subject, i);
                goto fail;
            }
        }
    }
    return KS_OK;

fail:
    ks_elf_close(e);
    return rc;
}

void ks_elf_close(ks_elf *e)
{
    free(e->data);
    free(e->ph);
    free(e->sh);
    memset(e, 0, sizeof *e);
}

const char *ks_elf_string(const ks_elf *e, size_t strtab, uint64_t off)
{
    if (strtab == 0 || strtab >= e->shnum)
        return NULL;
    const Elf64_Shdr *s = &e->sh[strtab];
    /* A SHT_NOBITS "string table" has no bytes in the file to point into. */
    if (s->sh_type == SHT_NOBITS || off >= s->sh_size)
        return NULL;
    /* ks_elf_open checked that the section lies within the file. */
    const char *p = (const char *)e->data + s->sh_offset + off;
    if (!memchr(p, 0, (size_t)(s->sh_size - off)))
        return NULL;
    return p;
}

const char *ks_elf_section_name(const ks_elf *e, size_t i)
{
    if (i >= e->shnum)
        return "?";
    if (e->shstrndx == 0)
        return "";
    const char *name = ks_elf_string(e, e->shstrndx, e->sh[i].sh_name);
    return name ? name : "?";
}

size_t ks_elf_find_section(const ks_elf *e, uint32_t type)
{
    for (size_t i = 1; i < e->shnum; i++)
        if (e->sh[i].sh_type == type)
            return i;
    return 0;
}

bool ks_elf_symtab(const ks_elf *e, size_t symtab, size_t *count,
                   size_t *strtab)
{
    if (symtab == 0 || symtab >= e->shnum)
        return false;
    const Elf64_Shdr *s = &e->sh[symtab];
    if ((s->sh_type != SHT_SYMTAB && s->sh_type != SHT_DYNSYM) ||
        s->sh_entsize != sizeof(Elf64_Sym) || s->sh_size % sizeof(Elf64_Sym))
        return false;
    if (s->sh_link == 0 || s->sh_link >= e->shnum ||
        e->sh[s->sh_link].sh_type != SHT_STRTAB)
        return false;
    *count = (size_t)(s->sh_size / sizeof(Elf64_Sym));
    *strtab = s->sh_link;
    return true;
}

bool ks_elf_symbol(const ks_elf *e, size_t symtab, size_t i, Elf64_Sym *out)
{
    size_t count, strtab;
    if (!ks_elf_symtab(e, symtab, &count, &strtab) || i >= count)
        return false;
    memcpy(out, e->data + e->sh[symtab].sh_offset + i * sizeof(Elf64_Sym),
           sizeof *out);
    return true;
}

const char *ks_elf_machine_name(unsigned machine, char *buf, size_t n)
{
    switch (machine) {
    case EM_RISCV: return "RISC-V";
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "s390";
    case EM_NONE: return "no machine";
    default:
        snprintf(buf, n, "machine %u", machine);
        return buf;
    }
}
