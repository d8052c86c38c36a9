/* gdb_tdesc: the registers the server offers and the target description
 * that names them to GDB (riscv:rv64, the cpu, fpu, vector and csr
 * features), with each CSR's GDB number (65 + its CSR number) as QEMU
 * gives it, so that GDB's RISC-V code recognises every one by name.  The
 * vector feature is QEMU's for an rv64gcv hart (target/riscv/gdbstub.c):
 * v0-v31 of VLEN bits, each the union riscv_vector of the vectors q
 * (uint128), l (uint64), w (uint32), s (uint16) and b (uint8) that fill
 * it, in the group "vector"; the vector CSRs are in the csr feature. */
#include <stdio.h>
#include <string.h>

#include "gdb_internal.h"

static const char *const x_names[32] = {
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0",
    "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
    "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const char *const f_names[32] = {
    "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0",
    "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5",
    "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
};

/* The machine-mode CSRs a thread uses (beyond fcsr's three). */
static const struct {
    const char *name;
    int regno;
} csrs[] = {
    {"mstatus", KM_GDB_REG_MSTATUS},   {"mie", KM_GDB_REG_MIE},
    {"mtvec", KM_GDB_REG_MTVEC},       {"mscratch", KM_GDB_REG_MSCRATCH},
    {"mepc", KM_GDB_REG_MEPC},         {"mcause", KM_GDB_REG_MCAUSE},
    {"mtval", KM_GDB_REG_MTVAL},       {"mip", KM_GDB_REG_MIP},
    {"tselect", KM_GDB_REG_TSELECT},   {"tdata1", KM_GDB_REG_TDATA1},
    {"tdata2", KM_GDB_REG_TDATA2},     {"mcycle", KM_GDB_REG_MCYCLE},
    {"minstret", KM_GDB_REG_MINSTRET}, {"mhartid", KM_GDB_REG_MHARTID},
    {"vstart", KM_GDB_REG_VSTART},     {"vxsat", KM_GDB_REG_VXSAT},
    {"vxrm", KM_GDB_REG_VXRM},         {"vcsr", KM_GDB_REG_VCSR},
    {"vl", KM_GDB_REG_VL},             {"vtype", KM_GDB_REG_VTYPE},
    {"vlenb", KM_GDB_REG_VLENB},
};

/* The lanes of QEMU's riscv_vector union: its field, the vector's id,
 * the element's type and bits. */
static const struct {
    char field;
    const char *id, *type;
    int bits;
} lanes[] = {
    {'q', "quads", "uint128", 128}, {'l', "longs", "uint64", 64}, {'w', "words", "uint32", 32},
    {'s', "shorts", "uint16", 16},  {'b', "bytes", "uint8", 8},
};

int gdb_reg_bytes(int regno)
{
    if (regno >= 0 && regno < KM_GDB_REG_F0 + 32)
        return 8;
    if (regno >= KM_GDB_REG_V0 && regno < KM_GDB_REG_V0 + 32)
        return KM_GDB_VLENB;
    if (regno == KM_GDB_REG_FFLAGS || regno == KM_GDB_REG_FRM || regno == KM_GDB_REG_FCSR)
        return 4;
    for (size_t i = 0; i < sizeof csrs / sizeof *csrs; i++)
        if (csrs[i].regno == regno)
            return 8;
    return 0;
}

/* Big enough for the whole description (about 8 KB); a static assert
 * would need the text at compile time, so the writer checks instead. */
static char xml[12288];

const char *km_gdb_target_xml(void)
{
    if (xml[0])
        return xml;
    size_t at = 0;
#define PUT(...)                                                              \
    do {                                                                      \
        int n_ = snprintf(xml + at, sizeof xml - at, __VA_ARGS__);            \
        if (n_ < 0 || (size_t)n_ >= sizeof xml - at) {                        \
            xml[0] = '\0';                                                    \
            return "";                                                        \
        }                                                                     \
        at += (size_t)n_;                                                     \
    } while (0)
    PUT("<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
        "<target version=\"1.0\">\n<architecture>riscv:rv64</architecture>\n"
        "<feature name=\"org.gnu.gdb.riscv.cpu\">\n");
    for (int i = 0; i < 32; i++) {
        const char *type = i == 1 ? "code_ptr" : i == 2 || i == 3 || i == 4 ? "data_ptr" : "int";
        PUT("  <reg name=\"%s\" bitsize=\"64\" type=\"%s\" regnum=\"%d\"/>\n", x_names[i], type, i);
    }
    PUT("  <reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"%d\"/>\n</feature>\n",
        KM_GDB_REG_PC);
    PUT("<feature name=\"org.gnu.gdb.riscv.fpu\">\n  <union id=\"riscv_double\">\n"
        "    <field name=\"float\" type=\"ieee_single\"/>\n"
        "    <field name=\"double\" type=\"ieee_double\"/>\n  </union>\n");
    for (int i = 0; i < 32; i++)
        PUT("  <reg name=\"%s\" bitsize=\"64\" type=\"riscv_double\" regnum=\"%d\"/>\n",
            f_names[i], KM_GDB_REG_F0 + i);
    PUT("  <reg name=\"fflags\" bitsize=\"32\" type=\"int\" regnum=\"%d\"/>\n"
        "  <reg name=\"frm\" bitsize=\"32\" type=\"int\" regnum=\"%d\"/>\n"
        "  <reg name=\"fcsr\" bitsize=\"32\" type=\"int\" regnum=\"%d\"/>\n</feature>\n",
        KM_GDB_REG_FFLAGS, KM_GDB_REG_FRM, KM_GDB_REG_FCSR);
    PUT("<feature name=\"org.gnu.gdb.riscv.vector\">\n");
    for (size_t i = 0; i < sizeof lanes / sizeof *lanes; i++)
        PUT("  <vector id=\"%s\" type=\"%s\" count=\"%d\"/>\n", lanes[i].id, lanes[i].type,
            KM_GDB_VLENB * 8 / lanes[i].bits);
    PUT("  <union id=\"riscv_vector\">\n");
    for (size_t i = 0; i < sizeof lanes / sizeof *lanes; i++)
        PUT("    <field name=\"%c\" type=\"%s\"/>\n", lanes[i].field, lanes[i].id);
    PUT("  </union>\n");
    for (int i = 0; i < 32; i++)
        PUT("  <reg name=\"v%d\" bitsize=\"%d\" type=\"riscv_vector\" group=\"vector\" "
            "regnum=\"%d\"/>\n",
            i, KM_GDB_VLENB * 8, KM_GDB_REG_V0 + i);
    PUT("</feature>\n");
    PUT("<feature name=\"org.gnu.gdb.riscv.csr\">\n");
    for (size_t i = 0; i < sizeof csrs / sizeof *csrs; i++)
        PUT("  <reg name=\"%s\" bitsize=\"64\" type=\"int\" regnum=\"%d\"/>\n", csrs[i].name,
            csrs[i].regno);
    PUT("</feature>\n</target>\n");
#undef PUT
    return xml;
}
