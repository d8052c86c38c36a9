/* kmx_host_align.c: a misaligned access in thread code traps on the host
 * as it does on the card.
 *
 * The card's rule (device/sim/hart/hart_mem.c, vec_mem.c): every load, store,
 * LR/SC, AMO, FP and vector element access that is not naturally aligned
 * traps — cause 4 (load) or 6 (store/AMO), mtval the address — in any
 * memory (regions, LIM, the stack).  GCC for RISC-V reaches a C object
 * through a pointer to its type with one access of the type's width, so a
 * pointer that is not aligned for its type traps there, while packed
 * structs and memcpy are done in bytes and do not.  x86 does any of them.
 *
 * kmrun compiles a fallback's thread sources with -fsanitize=alignment
 * -fno-sanitize-recover=alignment (lib/build/km_build.c): before each access
 * through a typed pointer the compiler checks the pointer against the
 * type's alignment — C's rule, which is the card's for the accesses C
 * makes through such pointers — and calls the handler below when it
 * fails; packed members and memcpy are not checked, as the card does not
 * trap on them.  The handler makes it the card's trap: on an armed
 * thread it tells kmrun (ctx->trap: mcause 4 or 6, the pc of the check,
 * the address) and leaves the core's code as a fault does.  Where the
 * two still differ: a member access through a struct pointer that is not
 * aligned for the struct traps here even when the member's own alignment
 * is met (the compiler checks the struct's; the card's load of the member
 * alone would not trap), and __atomic builtins and inline assembly are
 * not checked (the card traps on a misaligned AMO).
 *
 * Why not x86's alignment check (EFLAGS.AC, which Linux lets user code
 * set, CR0.AM being on): it traps on the instructions the host compiler
 * chose, not on the accesses the card makes — a vectorised loop's movdqu
 * on 8-byte aligned data, an unaligned memcpy or packed member done in
 * one access, glibc's own string functions — so correct threads would
 * trap; and every call into the runtime and kmrun would have to clear it.
 * The cost here: a test and a branch per checked access (bench figures
 * in README.md).
 *
 * The handler's types are the sanitizer runtimes' (GCC's and clang's
 * libubsan: __ubsan_handle_type_mismatch_v1, its data), which the
 * fallback does not link. */
#include <signal.h>
#include <stdint.h>

#include "kmx_host_internal.h"

typedef struct ubsan_location {
    const char *file;
    uint32_t line;
    uint32_t column;
} ubsan_location;

typedef struct ubsan_type {
    uint16_t kind;
    uint16_t info;
    char name[];
} ubsan_type;

/* What the compiler hands the handler: type_check_kind 0 load, 1 store,
 * 3 member access (others are C++'s). */
typedef struct ubsan_mismatch {
    ubsan_location location;
    const ubsan_type *type;
    unsigned char log_alignment;
    unsigned char type_check_kind;
} ubsan_mismatch;

#define CHECK_STORE 1u

/* RISC-V's causes (the card's mcause). */
#define CAUSE_LOAD_MISALIGNED 4u
#define CAUSE_LOAD_ACCESS 5u
#define CAUSE_STORE_MISALIGNED 6u
#define CAUSE_STORE_ACCESS 7u

void __ubsan_handle_type_mismatch_v1(ubsan_mismatch *data, uintptr_t pointer) KMX_HOST_HIDDEN;
_Noreturn void __ubsan_handle_type_mismatch_v1_abort(ubsan_mismatch *data, uintptr_t pointer)
    KMX_HOST_HIDDEN;

/* The check failed at `pc` (in thread code): on an armed thread, the
 * card's trap and this core leaves its code (does not return); else
 * returns. */
static void trap(const ubsan_mismatch *data, uintptr_t pointer, uint64_t pc) {
    sigjmp_buf *jmp = kmx_host_armed;
    if (kmx_host.ctx == NULL || jmp == NULL || kmx_host_core < 0) {
        return;
    }
    int store = data->type_check_kind == CHECK_STORE;
    uintptr_t align = (uintptr_t)1 << data->log_alignment;
    /* Only an unaligned pointer is what kmrun's flags check; a null or a
     * too-small object (checks a thread's own cflags may add) is the
     * card's access fault. */
    uint64_t cause = (pointer & (align - 1u)) != 0
                         ? (store ? CAUSE_STORE_MISALIGNED : CAUSE_LOAD_MISALIGNED)
                         : (store ? CAUSE_STORE_ACCESS : CAUSE_LOAD_ACCESS);
    kmx_host_ctx *ctx = kmx_host.ctx;
    kmx_host_armed = NULL;
    ctx->trap(ctx->ops, (uint32_t)kmx_host_core, cause, pc, (uint64_t)pointer);
    siglongjmp(*jmp, 1);
}

/* The caller's pc inside its call instruction. */
#define CALL_PC() ((uint64_t)(uintptr_t)__builtin_return_address(0) - 1u)

void __ubsan_handle_type_mismatch_v1(ubsan_mismatch *data, uintptr_t pointer) {
    uintptr_t align = (uintptr_t)1 << data->log_alignment;
    if ((pointer & (align - 1u)) != 0) {
        trap(data, pointer, CALL_PC());
    }
    /* Recoverable (a thread's own -fsanitize-recover): an aligned pointer
     * is not ours to report, and an unarmed thread goes on, as x86 does. */
}

_Noreturn void __ubsan_handle_type_mismatch_v1_abort(ubsan_mismatch *data, uintptr_t pointer) {
    trap(data, pointer, CALL_PC());
    /* Not thread code of a core (a thread the thread started itself):
     * a fault there is kmrun's own, as any other. */
    raise(SIGBUS);
    __builtin_trap();
}
