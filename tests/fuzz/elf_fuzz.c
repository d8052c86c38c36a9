/* elf_fuzz: libFuzzer over the ELF reader — ks_elf_open's checks, then
 * every accessor the image checks use (section names, symbol tables and
 * their strings), and km_image_check, the card's rules over an image.
 * ASan, UBSan and libFuzzer's limits are the oracle. */
#include "fuzz_file.h"
#include "km_image.h"
#include "ks_elf.h"

static void walk(const ks_elf *e)
{
    for (size_t i = 0; i < e->shnum + 2; i++)
        (void)ks_elf_section_name(e, i);
    static const uint32_t types[] = {SHT_SYMTAB, SHT_DYNSYM};
    for (size_t t = 0; t < 2; t++) {
        size_t s = ks_elf_find_section(e, types[t]), count, strtab;
        if (!s || !ks_elf_symtab(e, s, &count, &strtab))
            continue;
        for (size_t i = 0; i <= count && i < 100000; i++) {
            Elf64_Sym sym;
            if (ks_elf_symbol(e, s, i, &sym))
                (void)ks_elf_string(e, strtab, sym.st_name);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("image.elf", data, size);
    if (!path)
        return 0;
    ks_elf e;
    ks_error err;
    if (ks_elf_open(&e, path, "image 'fuzz'", &err) == KS_OK) {
        walk(&e);
        ks_elf_close(&e);
    }
    km_image_info info;
    km_error kerr = {0};
    km_image_check(path, "fuzz", &info, &kerr);
    return 0;
}
