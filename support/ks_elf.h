/* elf_read: a bounds-checked reader of ELF64 little-endian files, private
 * to km_image (lib/build/image_*.c).  No libelf: <elf.h> and the whole file in
 * memory.
 *
 * ks_elf_open() validates everything the accessors later rely on, so that
 * they cannot read outside the file: the header; the program and section
 * header tables; that every segment's and every section's file bytes lie in
 * the file; section names.  Symbol and string lookups check their own
 * indices and offsets and report corruption by returning false or NULL.
 * Headers are copied out with memcpy (a corrupt file may misalign them). */
#ifndef KS_ELF_READ_H
#define KS_ELF_READ_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ks_error.h"

typedef struct ks_elf {
    unsigned char *data; /* the whole file */
    size_t size;
    Elf64_Ehdr eh;
    Elf64_Phdr *ph;      /* copies of the program headers */
    size_t phnum;
    Elf64_Shdr *sh;      /* copies of the section headers; [0] is SHN_UNDEF */
    size_t shnum;
    size_t shstrndx;     /* 0 when the file has no section names */
} ks_elf;

/* Reads `path` whole and validates it.  `subject` names the file in
 * messages ("image 'worker'"); I/O errors name the path.  KS_OK,
 * KS_ERR_IMAGE (not ELF, truncated, corrupt, not ELF64 little endian) or
 * KS_ERR_SYSTEM.  On failure *e holds nothing to close. */
int ks_elf_open(ks_elf *e, const char *path, const char *subject,
                ks_error *err);
void ks_elf_close(ks_elf *e);

/* The name of section i ("" when it has none; "?" for a bad index). */
const char *ks_elf_section_name(const ks_elf *e, size_t i);

/* The index of the first section of `type` (SHT_SYMTAB, SHT_DYNSYM), or 0. */
size_t ks_elf_find_section(const ks_elf *e, uint32_t type);

/* The symbols of symbol table section `symtab`: their number, and the
 * section index of their string table.  False when the section is not a
 * well-formed symbol table (bad entry size, bad sh_link). */
bool ks_elf_symtab(const ks_elf *e, size_t symtab, size_t *count,
                   size_t *strtab);

/* Symbol i of `symtab` (copied), false when i is out of range. */
bool ks_elf_symbol(const ks_elf *e, size_t symtab, size_t i, Elf64_Sym *out);

/* The NUL-terminated string at `off` in string table section `strtab`, or
 * NULL when off is outside it or the string runs past its end. */
const char *ks_elf_string(const ks_elf *e, size_t strtab, uint64_t off);

/* "RISC-V", "x86-64", ... for messages; "machine 243" style otherwise
 * (written into buf, which the result may point to). */
const char *ks_elf_machine_name(unsigned machine, char *buf, size_t n);


#endif
