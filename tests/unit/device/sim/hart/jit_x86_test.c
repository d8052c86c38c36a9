/* Tests for device/sim/hart/hart_jit_x86.h: each encoder's bytes, for the operand
 * kinds the translator (hart_jit.c) uses — registers low and high (REX),
 * bases that need a SIB (rsp, r12) or a displacement (rbp, r13), 8- and
 * 32-bit displacements and immediates, 16-bit and byte operands — set
 * against what GNU as assembles from the text beside each (bytes taken
 * from `as` once and kept here, so the test needs no assembler). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hart_jit_x86.h"

typedef struct enc_case {
    const char *name, *as_text, *hex;
    void (*emit)(jx *j);
} enc_case;

static void e_load_rbx(jx *j) { jx_load(j, JX_RAX, JX_RBX, 8); }
static void e_load_disp32(jx *j) { jx_load(j, JX_RCX, JX_RBX, 248); }
static void e_load_r15(jx *j) { jx_load(j, JX_R12, JX_R15, 16); }
static void e_load_r12base(jx *j) { jx_load(j, JX_RAX, JX_R12, 0); }
static void e_load_rbp0(jx *j) { jx_load(j, JX_RAX, JX_RBP, 0); }
static void e_store_rbx(jx *j) { jx_store(j, JX_RAX, JX_RBX, 80); }
static void e_store_r14(jx *j) { jx_store(j, JX_R14, JX_R15, 8); }
static void e_mov_rr(jx *j) { jx_mov(j, JX_R15, JX_RDI); }
static void e_mov_imm0(jx *j) { jx_mov_imm(j, JX_RAX, 0); }
static void e_mov_imm32(jx *j) { jx_mov_imm(j, JX_R9, 0x12345678); }
static void e_mov_imm_neg(jx *j) { jx_mov_imm(j, JX_RAX, (uint64_t)-5); }
static void e_mov_imm64(jx *j) { jx_mov_imm(j, JX_RDI, 0x123456789abcull); }
static void e_store_imm(jx *j) { jx_store_imm(j, JX_RBX, 40, -4096); }
static void e_alu_mem_add(jx *j) { jx_alu_mem(j, true, JX_ADD, JX_RAX, JX_RBX, 16); }
static void e_alu_mem_sub32(jx *j) { jx_alu_mem(j, false, JX_SUB, JX_RAX, JX_RBX, 200); }
static void e_alu_mem_cmp(jx *j) { jx_alu_mem(j, true, JX_CMP, JX_RAX, JX_RBX, 24); }
static void e_alu_rr(jx *j) { jx_alu(j, true, JX_ADD, JX_R12, JX_R11); }
static void e_alu_rr_cmp(jx *j) { jx_alu(j, true, JX_CMP, JX_RDX, JX_R9); }
static void e_alu_imm8(jx *j) { jx_alu_imm(j, true, JX_SUB, JX_RSP, 8); }
static void e_alu_imm32(jx *j) { jx_alu_imm(j, true, JX_XOR, JX_RCX, -2048); }
static void e_alu_imm32w(jx *j) { jx_alu_imm(j, false, JX_ADD, JX_R9, 1000); }
static void e_shl_imm(jx *j) { jx_shift_imm(j, true, JX_SHL, JX_RAX, 13); }
static void e_sar_imm32(jx *j) { jx_shift_imm(j, false, JX_SAR, JX_RAX, 7); }
static void e_ror_cl(jx *j) { jx_shift_cl(j, true, JX_ROR, JX_RAX); }
static void e_shr_cl32(jx *j) { jx_shift_cl(j, false, JX_SHR, JX_RAX); }
static void e_imul(jx *j) { jx_imul_mem(j, true, JX_RAX, JX_RBX, 56); }
static void e_imul32(jx *j) { jx_imul_mem(j, false, JX_RAX, JX_RBX, 56); }
static void e_lea_sib(jx *j) { jx_lea(j, JX_RAX, JX_RCX, JX_RAX, 2, 0); }
static void e_lea_r8(jx *j) { jx_lea(j, JX_RDX, JX_RDX, JX_R8, 0, 0); }
static void e_lea_r12(jx *j) { jx_lea(j, JX_RAX, JX_R12, JX_NONE, 0, 37); }
static void e_lea_rbp(jx *j) { jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, 4); }
static void e_sext32(jx *j) { jx_sext32(j, JX_RAX, JX_RAX); }
static void e_setl(jx *j) { jx_setcc(j, JX_CC_L, JX_RAX); }
static void e_cmovb(jx *j) { jx_cmov(j, JX_CC_B, JX_RAX, JX_RCX); }
static void e_not(jx *j) { jx_not(j, JX_RAX); }
static void e_bswap(jx *j) { jx_bswap(j, JX_RAX); }
static void e_test8(jx *j) { jx_test8(j, JX_RCX, 7); }
static void e_cmp8(jx *j) { jx_cmp8_mem(j, JX_R15, 96, 0); }
static void e_or_mem(jx *j) { jx_alu_mem_imm8(j, JX_OR, JX_RAX, 0, 2); }
static void e_add_mem(jx *j) { jx_alu_mem_imm8(j, JX_ADD, JX_RSI, 0, 1); }
static void e_test8_mem(jx *j) { jx_test8_mem(j, JX_RAX, 0, 1); }
static void e_and32_mem(jx *j) { jx_alu_mem(j, false, JX_AND, JX_RCX, JX_RDI, 40); }
static void e_push_r8(jx *j) { jx_push(j, JX_R8); }
static void e_pop_rbx(jx *j) { jx_pop(j, JX_RBX); }
static void e_jmp_rsi(jx *j) { jx_jmp_reg(j, JX_RSI); }
static void e_call_r15(jx *j) { jx_call_mem(j, JX_R15, 96); }
static void e_lb(jx *j) { jx_mem(j, 0, true, 0x0f, 0xbe, JX_RAX, JX_R10, JX_RDX, 0, 0); }
static void e_lw(jx *j) { jx_mem(j, 0, true, 0x63, -1, JX_RAX, JX_R10, JX_RDX, 0, 0); }
static void e_sh(jx *j) { jx_mem(j, 0x66, false, 0x89, -1, JX_RCX, JX_R10, JX_RDX, 0, 0); }
static void e_sb(jx *j) { jx_mem(j, 0, false, 0x88, -1, JX_RCX, JX_R10, JX_RDX, 0, 0); }

static const enc_case cases[] = {
    {"load_rbx", "mov 8(%rbx),%rax", "488b4308", e_load_rbx},
    {"load_disp32", "mov 248(%rbx),%rcx", "488b8bf8000000", e_load_disp32},
    {"load_r15", "mov 16(%r15),%r12", "4d8b6710", e_load_r15},
    {"load_r12base", "mov (%r12),%rax", "498b0424", e_load_r12base},
    {"load_rbp0", "mov 0(%rbp),%rax", "488b4500", e_load_rbp0},
    {"store_rbx", "mov %rax,80(%rbx)", "48894350", e_store_rbx},
    {"store_r14", "mov %r14,8(%r15)", "4d897708", e_store_r14},
    {"mov_rr", "mov %rdi,%r15", "4989ff", e_mov_rr},
    {"mov_imm0", "xor %eax,%eax", "31c0", e_mov_imm0},
    {"mov_imm32", "mov $0x12345678,%r9d", "41b978563412", e_mov_imm32},
    {"mov_imm_neg", "mov $-5,%rax", "48c7c0fbffffff", e_mov_imm_neg},
    {"mov_imm64", "movabs $0x123456789abc,%rdi", "48bfbc9a785634120000", e_mov_imm64},
    {"store_imm", "movq $-4096,40(%rbx)", "48c7432800f0ffff", e_store_imm},
    {"alu_mem_add", "add 16(%rbx),%rax", "48034310", e_alu_mem_add},
    {"alu_mem_sub32", "sub 200(%rbx),%eax", "2b83c8000000", e_alu_mem_sub32},
    {"alu_mem_cmp", "cmp 24(%rbx),%rax", "483b4318", e_alu_mem_cmp},
    {"alu_rr", "add %r11,%r12", "4d01dc", e_alu_rr},
    {"alu_rr_cmp", "cmp %r9,%rdx", "4c39ca", e_alu_rr_cmp},
    {"alu_imm8", "sub $8,%rsp", "4883ec08", e_alu_imm8},
    {"alu_imm32", "xor $-2048,%rcx", "4881f100f8ffff", e_alu_imm32},
    {"alu_imm32w", "add $1000,%r9d", "4181c1e8030000", e_alu_imm32w},
    {"shl_imm", "shl $13,%rax", "48c1e00d", e_shl_imm},
    {"sar_imm32", "sar $7,%eax", "c1f807", e_sar_imm32},
    {"ror_cl", "ror %cl,%rax", "48d3c8", e_ror_cl},
    {"shr_cl32", "shr %cl,%eax", "d3e8", e_shr_cl32},
    {"imul", "imul 56(%rbx),%rax", "480faf4338", e_imul},
    {"imul32", "imul 56(%rbx),%eax", "0faf4338", e_imul32},
    {"lea_sib", "lea (%rcx,%rax,4),%rax", "488d0481", e_lea_sib},
    {"lea_r8", "lea (%rdx,%r8,1),%rdx", "4a8d1402", e_lea_r8},
    {"lea_r12", "lea 37(%r12),%rax", "498d442425", e_lea_r12},
    {"lea_rbp", "lea 4(%rbp),%rsi", "488d7504", e_lea_rbp},
    {"sext32", "movslq %eax,%rax", "4863c0", e_sext32},
    {"setl", "setl %al; movzbl %al,%eax", "0f9cc00fb6c0", e_setl},
    {"cmovb", "cmovb %rcx,%rax", "480f42c1", e_cmovb},
    {"not", "not %rax", "48f7d0", e_not},
    {"bswap", "bswap %rax", "480fc8", e_bswap},
    {"test8", "test $7,%cl", "f6c107", e_test8},
    {"cmp8", "cmpb $0,96(%r15)", "41807f6000", e_cmp8},
    {"or_mem", "orq $2,(%rax)", "48830802", e_or_mem},
    {"add_mem", "addq $1,(%rsi)", "48830601", e_add_mem},
    {"test8_mem", "testb $1,(%rax)", "f60001", e_test8_mem},
    {"and32_mem", "and 40(%rdi),%ecx", "234f28", e_and32_mem},
    {"push_r8", "push %r8", "4150", e_push_r8},
    {"pop_rbx", "pop %rbx", "5b", e_pop_rbx},
    {"jmp_rsi", "jmp *%rsi", "ffe6", e_jmp_rsi},
    {"call_r15", "call *96(%r15)", "41ff5760", e_call_r15},
    {"lb", "movsbq (%r10,%rdx,1),%rax", "490fbe0412", e_lb},
    {"lw", "movslq (%r10,%rdx,1),%rax", "49630412", e_lw},
    {"sh", "mov %cx,(%r10,%rdx,1)", "6641890c12", e_sh},
    {"sb", "mov %cl,(%r10,%rdx,1)", "41880c12", e_sb},
};

static void test_encodings(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[32];
        jx j = {buf, buf + sizeof buf};
        cases[i].emit(&j);
        char got[2 * sizeof buf + 1] = "";
        for (uint8_t *p = buf; p < j.p; p++)
            snprintf(got + 2 * (p - buf), 3, "%02x", *p);
        if (strcmp(got, cases[i].hex) != 0)
            fail_msg("%s (%s): got %s, as gives %s", cases[i].name, cases[i].as_text, got,
                     cases[i].hex);
    }
}

/* A jump's displacement is patched relative to the end of the jump. */
static void test_jumps(void **state)
{
    (void)state;
    uint8_t buf[32] = {0};
    jx j = {buf, buf + sizeof buf};
    uint8_t *at = jx_jcc(&j, JX_CC_AE);
    uint8_t *back = jx_jmp(&j);
    jx_patch(at, buf + 20);
    jx_patch(back, buf);
    static const uint8_t want[] = {0x0f, 0x83, 0x0e, 0, 0, 0, 0xe9, 0xf5, 0xff, 0xff, 0xff};
    assert_int_equal(j.p - buf, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
    /* jmp [rip + disp] and cmp r64, [rip + disp] to a word 16 bytes past
     * the first one's start */
    j.p = buf;
    jx_patch(jx_jmp_rip(&j), buf + 16);
    jx_patch(jx_cmp_rip(&j, JX_R9), buf + 16);
    static const uint8_t rip[] = {0xff, 0x25, 0x0a, 0, 0, 0, 0x4c, 0x3b, 0x0d, 0x03, 0, 0, 0};
    assert_memory_equal(buf, rip, sizeof rip);
    j.p = buf + 6;
    assert_true(jx_room(&j, 26));
    assert_false(jx_room(&j, 27));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encodings),
        cmocka_unit_test(test_jumps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
