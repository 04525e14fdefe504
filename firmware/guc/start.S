/* GuC firmware entry: the boot ROM jumps here (GUC_UCODE_ENTRY) with interrupts off. Loads a flat GDT (code 0x08,
 * data 0x10) so that far jumps and IRET work, sets the stack below the load address (i915: "locations below this are
 * used for the stack") and calls guc_main. Also holds the interrupt entry stubs the IDT points at. */
#include "guc_abi.h"

    .section .text.start, "ax"
    .code32
    .globl _start
_start:
    cli
    lgdt gdt_descriptor
    ljmp $0x08, $reload_segments
reload_segments:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movw %ax, %fs
    movw %ax, %gs
    movl $GUC_WOPCM_LOAD_ADDRESS, %esp
    call guc_main
halt_forever:
    cli
    hlt
    jmp halt_forever

    .text
    /* Host-to-GuC interrupt (GUC_SEND_INTERRUPT). */
    .globl guc_host2guc_entry
guc_host2guc_entry:
    pushal
    cld
    call guc_host2guc_isr
    popal
    iret

    /* Doorbell interrupt (a valid doorbell rang). */
    .globl guc_doorbell_entry
guc_doorbell_entry:
    pushal
    cld
    call guc_doorbell_isr
    popal
    iret

    /* Engine interrupt (an event of an engine steered to the GuC, e.g. a context switch). */
    .globl guc_engine_entry
guc_engine_entry:
    pushal
    cld
    call guc_engine_isr
    popal
    iret

    .section .rodata
    .balign 8
gdt:
    .quad 0x0000000000000000
    .quad 0x00CF9A000000FFFF /* 0x08: flat 32-bit code, ring 0 */
    .quad 0x00CF92000000FFFF /* 0x10: flat 32-bit data, ring 0 */
gdt_end:
    .balign 4
gdt_descriptor:
    .word gdt_end - gdt - 1
    .long gdt

    .section .note.GNU-stack, "", @progbits
