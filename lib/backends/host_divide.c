/* host_divide: an integer division that faulted in a host fallback's
 * thread code, completed with RISC-V's result (host_internal.h).
 *
 * RISC-V defines every integer division (the unprivileged spec, "Division
 * Operations"): by zero, the quotient has all bits set and the remainder
 * is the dividend; the signed overflow (the most negative value divided
 * by -1), the quotient is the dividend and the remainder 0.  The card
 * gives those; x86's div and idiv raise #DE instead, which Linux delivers
 * as SIGFPE.  The trap handler (host_trap.c) hands the context here: the
 * instruction at the faulting pc is decoded (legacy prefixes, REX, F6 /6
 * /7 or F7 /6 /7, the ModRM operand: a register, or memory with SIB,
 * displacement, RIP-relative, FS or GS), the divisor read, RISC-V's
 * result written into the registers the instruction writes (AL/AH, AX/DX,
 * EAX/EDX zero-extended, RAX/RDX), and the pc moved past it; the thread
 * goes on as the card's would.
 *
 * Completed only what compiled C division is: a dividend whose high half
 * (AH, DX, EDX, RDX) is the extension of its low half (cltd/cqto or a
 * zeroed EDX), so that the low half is the RISC-V dividend, and a fault
 * RISC-V defines (a zero divisor; -1 with the most negative dividend).
 * Anything else (hand-written assembly dividing a wider dividend,
 * libgcc's 128-bit division, an instruction that is not a division) is
 * left to trap.  The width is the x86 instruction's: C's division is on
 * int or wider, which GCC and clang divide in 32 or 64 bits, as the
 * card's divw/div; a compiler that divides narrower (an 8-bit divb for
 * unsigned char operands whose result it may narrow, since division by
 * zero is undefined in C) gets RISC-V's result at that width.  Other
 * hosts than x86-64 complete nothing (aarch64 does not trap: it gives 0). */
#include "host_internal.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#if defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The greg of x86 register number n (0 rax ... 15 r15). */
static const int gpr[16] = {
    REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
    REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

typedef struct divide {
    unsigned width;   /* 8, 16, 32, 64 */
    bool is_signed;   /* idiv */
    bool reg;         /* the divisor is register `rm`; else memory at `at` */
    unsigned rm;      /* register number (8-bit: see high_byte) */
    bool high_byte;   /* an 8-bit AH, CH, DH or BH (no REX) */
    uint64_t at;
    unsigned length;  /* the instruction's bytes */
} divide;

static uint64_t mask_of(unsigned width)
{
    return width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1u;
}

static uint64_t segment_base(int code)
{
    unsigned long base = 0;
    if (syscall(SYS_arch_prctl, code, &base) != 0)
        return 0;
    return base;
}

/* Decodes the instruction at pc; false when it is not a div or idiv. */
static bool decode(const uint8_t *pc, const greg_t *g, divide *d)
{
    memset(d, 0, sizeof *d);
    unsigned n = 0, rex = 0;
    bool opsize = false, addrsize = false;
    int segment = 0;
    for (;; n++) {
        if (n >= 14)
            return false;
        uint8_t b = pc[n];
        if (b == 0x66)
            opsize = true;
        else if (b == 0x67)
            addrsize = true;
        else if (b == 0x64)
            segment = ARCH_GET_FS;
        else if (b == 0x65)
            segment = ARCH_GET_GS;
        else if (b != 0xF0 && b != 0xF2 && b != 0xF3 && b != 0x2E && b != 0x36 && b != 0x3E &&
                 b != 0x26)
            break;
    }
    if ((pc[n] & 0xF0) == 0x40)
        rex = pc[n++];
    uint8_t op = pc[n++];
    if (op != 0xF6 && op != 0xF7)
        return false;
    uint8_t modrm = pc[n++];
    unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7u, rm = modrm & 7u;
    if (reg != 6 && reg != 7)
        return false;
    d->is_signed = reg == 7;
    d->width = op == 0xF6 ? 8 : (rex & 8u) ? 64 : opsize ? 16 : 32;
    if (mod == 3) {
        d->reg = true;
        d->rm = rm | ((rex & 1u) << 3);
        d->high_byte = d->width == 8 && rex == 0 && rm >= 4;
        if (d->high_byte)
            d->rm = rm - 4u;
        d->length = n;
        return true;
    }
    uint64_t at = 0;
    bool rip_relative = false;
    if (rm == 4) {
        uint8_t sib = pc[n++];
        unsigned scale = sib >> 6, index = ((sib >> 3) & 7u) | ((rex & 2u) << 2);
        unsigned base = (sib & 7u) | ((rex & 1u) << 3);
        if (index != 4)
            at += (uint64_t)g[gpr[index]] << scale;
        if ((sib & 7u) == 5 && mod == 0) {
            int32_t disp;
            memcpy(&disp, pc + n, 4);
            n += 4;
            at += (uint64_t)(int64_t)disp;
        } else {
            at += (uint64_t)g[gpr[base]];
        }
    } else if (rm == 5 && mod == 0) {
        rip_relative = true;
    } else {
        at += (uint64_t)g[gpr[rm | ((rex & 1u) << 3)]];
    }
    if (mod == 1) {
        at += (uint64_t)(int64_t)(int8_t)pc[n++];
    } else if (mod == 2 || rip_relative) {
        int32_t disp;
        memcpy(&disp, pc + n, 4);
        n += 4;
        at += (uint64_t)(int64_t)disp;
    }
    if (rip_relative)
        at += (uint64_t)(uintptr_t)pc + n; /* from the next instruction */
    if (addrsize)
        at &= 0xFFFFFFFFu;
    if (segment)
        at += segment_base(segment);
    d->at = at;
    d->length = n;
    return true;
}

static uint64_t divisor_of(const divide *d, const greg_t *g)
{
    uint64_t v;
    if (d->reg) {
        v = (uint64_t)g[gpr[d->rm]];
        if (d->high_byte)
            v >>= 8;
    } else {
        /* Readable: the instruction read it before it faulted. */
        switch (d->width) {
        case 8: { uint8_t x; memcpy(&x, (const void *)(uintptr_t)d->at, 1); v = x; break; }
        case 16: { uint16_t x; memcpy(&x, (const void *)(uintptr_t)d->at, 2); v = x; break; }
        case 32: { uint32_t x; memcpy(&x, (const void *)(uintptr_t)d->at, 4); v = x; break; }
        default: memcpy(&v, (const void *)(uintptr_t)d->at, 8); break;
        }
    }
    return v & mask_of(d->width);
}

/* Replaces the low `width` bits of *r with v (8 at `shift`: AH is 8). */
static void put(greg_t *r, unsigned width, unsigned shift, uint64_t v)
{
    if (width == 32) { /* a 32-bit destination zero-extends */
        *r = (greg_t)(v & 0xFFFFFFFFu);
        return;
    }
    uint64_t m = mask_of(width) << shift;
    *r = (greg_t)(((uint64_t)*r & ~m) | ((v << shift) & m));
}

bool host_divide_complete(void *uctx)
{
    ucontext_t *uc = uctx;
    greg_t *g = uc->uc_mcontext.gregs;
    const uint8_t *pc = (const uint8_t *)(uintptr_t)g[REG_RIP];
    divide d;
    if (!decode(pc, g, &d))
        return false;
    unsigned w = d.width;
    uint64_t m = mask_of(w);
    uint64_t rax = (uint64_t)g[REG_RAX], rdx = (uint64_t)g[REG_RDX];
    uint64_t lo = w == 8 ? rax & 0xFFu : rax & m;
    uint64_t hi = w == 8 ? (rax >> 8) & 0xFFu : rdx & m;
    uint64_t sign = UINT64_C(1) << (w - 1u);
    uint64_t extension = d.is_signed && (lo & sign) ? m : 0;
    if (hi != extension)
        return false; /* a wider dividend than C's: not RISC-V's division */
    uint64_t divisor = divisor_of(&d, g);
    uint64_t q, r;
    if (divisor == 0) {
        q = m; /* all ones: -1 signed, the largest value unsigned */
        r = lo;
    } else if (d.is_signed && divisor == m && lo == sign) {
        q = lo; /* the most negative value / -1 */
        r = 0;
    } else {
        return false;
    }
    if (w == 8) {
        put(&g[REG_RAX], 8, 0, q);
        put(&g[REG_RAX], 8, 8, r);
    } else {
        put(&g[REG_RAX], w, 0, q);
        put(&g[REG_RDX], w, 0, r);
    }
    g[REG_RIP] += (greg_t)d.length;
    return true;
}

#else

bool host_divide_complete(void *uctx)
{
    (void)uctx;
    return false;
}

#endif
