/* The contract between the GuC model (tlm/gen/guc.cpp), its firmware (firmware/guc/) and the host driver model
 * (tb/host/guc_driver.cpp). Plain C so that the freestanding firmware and the C++ model include the same file.
 *
 * Facts from i915 (drivers/gpu/drm/i915/gt/uc/intel_guc_reg.h, intel_guc_fwif.h, abi/guc_errors_abi.h,
 * abi/guc_actions_abi.h, intel_uc_fw_abi.h, intel_guc_fw.c) are marked "i915"; everything else is this model's own
 * choice because no public source describes the GuC's internal memory map. */
#ifndef GPUVP_FIRMWARE_GUC_ABI_H
#define GPUVP_FIRMWARE_GUC_ABI_H

/* ---- GuC registers in the GTTMMADR BAR (i915 intel_guc_reg.h) ---- */
#define GUC_REG_STATUS 0xC000u
#define GUC_REG_WOPCM_SIZE 0xC050u /* bit 0 locked, 31:12 size */
#define GUC_REG_SHIM_CONTROL 0xC064u
#define GUC_REG_SOFT_SCRATCH(n) (0xC180u + 4u * (n))
#define GUC_SOFT_SCRATCH_COUNT 16u
#define GUC_REG_RSA_SCRATCH(i) (0xC200u + 4u * (i))
#define GUC_RSA_SCRATCH_COUNT 64u
#define GUC_REG_DMA_ADDR_0_LOW 0xC300u
#define GUC_REG_DMA_ADDR_0_HIGH 0xC304u
#define GUC_REG_DMA_ADDR_1_LOW 0xC308u
#define GUC_REG_DMA_ADDR_1_HIGH 0xC30Cu
#define GUC_DMA_ADDRESS_SPACE_WOPCM (7u << 16)
#define GUC_DMA_ADDRESS_SPACE_GTT (8u << 16)
#define GUC_REG_DMA_COPY_SIZE 0xC310u
#define GUC_REG_DMA_CTRL 0xC314u /* masked */
#define GUC_DMA_START 0x1u
#define GUC_DMA_UOS_MOVE 0x10u
#define GUC_DMA_HUC_UKERNEL 0x200u
#define GUC_REG_DMA_WOPCM_OFFSET 0xC340u /* bit 0 valid, 31:14 offset */
#define GUC_REG_SEND_INTERRUPT 0xC4C8u   /* bit 0 GUC_SEND_TRIGGER */
#define GUC_SEND_TRIGGER 0x1u

/* GUC_STATUS fields (i915 GS_*). */
#define GUC_STATUS_MIA_IN_RESET 0x1u
#define GUC_STATUS_BOOTROM_SHIFT 1u
#define GUC_STATUS_BOOTROM_MASK (0x7Fu << 1)
#define GUC_STATUS_UKERNEL_SHIFT 8u
#define GUC_STATUS_UKERNEL_MASK (0xFFu << 8)
#define GUC_STATUS_MIA_SHIFT 16u
#define GUC_STATUS_MIA_MASK (0x7u << 16)
#define GUC_STATUS_MIA_CORE_STATE (0x1u << 16)
#define GUC_STATUS_MIA_HALT_REQUESTED (0x2u << 16)
#define GUC_STATUS_MIA_ISR_ENTRY (0x4u << 16)
#define GUC_STATUS_AUTH_SHIFT 30u
#define GUC_STATUS_AUTH_BAD (0x1u << 30)
#define GUC_STATUS_AUTH_GOOD (0x2u << 30)

/* Boot ROM status (i915 abi/guc_errors_abi.h enum intel_bootrom_load_status). */
#define GUC_BOOTROM_NO_KEY_FOUND 0x13u
#define GUC_BOOTROM_RSA_FAILED 0x50u
#define GUC_BOOTROM_WOPCM_FAILED 0x74u
#define GUC_BOOTROM_LOADLOC_FAILED 0x75u
#define GUC_BOOTROM_JUMP_PASSED 0x76u
#define GUC_BOOTROM_JUMP_FAILED 0x77u

/* uKernel status (i915 enum intel_guc_load_status). */
#define GUC_UKERNEL_GDT_DONE 0x10u
#define GUC_UKERNEL_IDT_DONE 0x20u
#define GUC_UKERNEL_LAPIC_DONE 0x30u
#define GUC_UKERNEL_EXCEPTION 0x70u
#define GUC_UKERNEL_READY 0xF0u

/* ---- Firmware image (i915 intel_uc_fw_abi.h struct uc_css_header, 128 bytes) ---- */
#define GUC_CSS_HEADER_BYTES 128u
#define GUC_CSS_KEY_SIZE_DW 64u /* RSA-2048: 256-byte signature */
#define GUC_CSS_MODULUS_SIZE_DW 64u
#define GUC_CSS_EXPONENT_SIZE_DW 1u
#define GUC_CSS_MODULE_TYPE 0x6u /* model's choice; i915 does not check it */
#define GUC_CSS_VENDOR_INTEL 0x8086u
/* i915 intel_guc_fw.c: "uCode expects to be loaded at 8k; locations below this are used for the stack". The DMA copies
 * the CSS header and the uCode in one piece, so the first instruction sits right after the header. */
#define GUC_WOPCM_LOAD_ADDRESS 0x2000u
#define GUC_UCODE_ENTRY (GUC_WOPCM_LOAD_ADDRESS + GUC_CSS_HEADER_BYTES)
#define GUC_FIRMWARE_VERSION_MAJOR 9u
#define GUC_FIRMWARE_VERSION_MINOR 1u

/* ---- The GuC's own address space (model's choice) ----
 *   0x00000000 .. WOPCM top         WOPCM SRAM (code, data, stack below 0x2000)
 *   WOPCM top .. GUC_GGTT_TOP       graphics memory through the GGTT (i915: GuC addresses below WOPCM_TOP are its
 *                                   SRAM, so i915 never hands the GuC GGTT objects below it; GUC_GGTT_TOP 0xFEE00000)
 *   0xFEE00000 .. +4 KiB            local APIC-style registers of the GuC core
 *   0xFF000000 .. +8 MiB            window onto the GPU registers (GTTMMADR offsets 0 .. 8 MiB)
 * The WOPCM top is the GUC_WOPCM_SIZE the boot ROM loaded the image with (i915 intel_guc_ggtt_offset: a GGTT offset
 * the GuC is given must not be below it); the firmware reads it in GUC_LAPIC_WOPCM_TOP and refuses any address the
 * host gives it below that top or reaching past GUC_GGTT_TOP, so that the host can never make it overwrite itself. */
#define GUC_GGTT_TOP 0xFEE00000u
#define GUC_LAPIC_BASE 0xFEE00000u
#define GUC_LAPIC_SIZE 0x1000u
#define GUC_MMIO_BASE 0xFF000000u
#define GUC_MMIO_SIZE 0x00800000u

/* Local registers (offsets in the LAPIC page). EOI is where an x86 local APIC has it. */
#define GUC_LAPIC_EOI 0x0B0u
#define GUC_LAPIC_UKERNEL_STATUS 0x800u   /* write: GUC_STATUS bits 15:8 */
#define GUC_LAPIC_HOST_INTERRUPT 0x804u   /* write: raise the GuC-to-host interrupt */
#define GUC_LAPIC_TIMESTAMP 0x808u        /* read: GuC clock cycles since reset, low 32 bits */
#define GUC_LAPIC_DOORBELL_PENDING 0x80Cu /* read: lowest rung doorbell id (cleared by the read) or NONE */
#define GUC_DOORBELL_NONE 0xFFFFFFFFu
#define GUC_LAPIC_WOPCM_TOP 0x820u /* read: the first GuC address that reaches the GGTT (see the map above) */

/* Interrupt vectors delivered through the firmware's IDT. */
#define GUC_VECTOR_HOST2GUC 0x30u /* GUC_SEND_INTERRUPT written by the host */
#define GUC_VECTOR_DOORBELL 0x31u /* a valid doorbell rang; GUC_LAPIC_DOORBELL_PENDING names which */
#define GUC_VECTOR_ENGINE 0x32u   /* an engine event steered to the GuC; GUC_LAPIC_ENGINE_IIR(n) names it */

/* ---- MMIO mailbox (old gen9 ABI, i915 intel_guc_fwif.h / intel_guc.c intel_guc_send_mmio) ---- */
#define GUC_ACTION_DEFAULT 0x0u
#define GUC_ACTION_SAMPLE_FORCEWAKE 0x6u
#define GUC_ACTION_ALLOCATE_DOORBELL 0x10u
#define GUC_ACTION_DEALLOCATE_DOORBELL 0x20u
#define GUC_ACTION_LOG_BUFFER_FILE_FLUSH_COMPLETE 0x30u
#define GUC_ACTION_FORCE_LOG_BUFFER_FLUSH 0x302u
#define GUC_ACTION_ENTER_S_STATE 0x501u
#define GUC_ACTION_EXIT_S_STATE 0x502u
#define GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER 0x4505u
#define GUC_ACTION_DEREGISTER_COMMAND_TRANSPORT_BUFFER 0x4506u

#define GUC_REPLY_SUCCESS 0xF0000000u
#define GUC_REPLY_ALLOCATE_DOORBELL_FAIL 0xF0000010u
#define GUC_REPLY_DEALLOCATE_DOORBELL_FAIL 0xF0000020u
#define GUC_REPLY_GENERIC_FAIL 0xF000F000u
#define GUC_REPLY_IS_RESPONSE(v) ((v) >= 0xF0000000u)

/* SOFT_SCRATCH(15): GuC-to-host event bits (i915 INTEL_GUC_RECV_MSG_*). */
#define GUC_EVENT_CRASH_DUMP_POSTED (1u << 1)
#define GUC_EVENT_FLUSH_LOG_BUFFER (1u << 3)
/* On a firmware exception SOFT_SCRATCH(13) holds the faulting EIP (i915 intel_guc_fw.c guc_wait_ucode). */
#define GUC_SCRATCH_EXCEPTION_EIP 13u

/* ---- Command transport buffers (old gen9 ABI: i915 v4.x intel_guc_ct.c, intel_guc_fwif.h) ----
 * REGISTER_COMMAND_TRANSPORT_BUFFER {action, descriptor GGTT address, descriptor size (64), type}; DEREGISTER
 * {action, owner, type}. Descriptor (64 bytes): addr 0x00, host_private 0x04 (u64), size 0x0C, head 0x10 (the
 * consumer's), tail 0x14 (the producer's), is_in_error 0x18, fence 0x1C, status 0x20, owner 0x24, owner_sub_id 0x28.
 * Offsets and sizes in bytes. Message: DW0 header (4:0 dwords that follow, 8 write fence and status to the
 * descriptor (H2G) / is a response (G2H), 9 write status to the buffer, 10 send status as a G2H message, 31:16
 * action), DW1 fence, then the action's parameters. The host notifies the GuC with GUC_SEND_INTERRUPT. */
#define GUC_CTB_TYPE_SEND 0u
#define GUC_CTB_TYPE_RECV 1u
#define GUC_CTB_DESC_BYTES 64u
#define GUC_CTB_DESC_ADDR 0x00u
#define GUC_CTB_DESC_SIZE 0x0Cu
#define GUC_CTB_DESC_HEAD 0x10u
#define GUC_CTB_DESC_TAIL 0x14u
#define GUC_CTB_DESC_IS_IN_ERROR 0x18u
#define GUC_CTB_DESC_FENCE 0x1Cu
#define GUC_CTB_DESC_STATUS 0x20u
#define GUC_CTB_DESC_OWNER 0x24u
#define GUC_CT_MSG_LEN_MASK 0x1Fu
#define GUC_CT_MSG_WRITE_FENCE_TO_DESC (1u << 8)
#define GUC_CT_MSG_IS_RESPONSE (1u << 8)
#define GUC_CT_MSG_WRITE_STATUS_TO_BUFF (1u << 9)
#define GUC_CT_MSG_SEND_STATUS (1u << 10)
#define GUC_CT_MSG_ACTION_SHIFT 16u

/* Boot parameters: SOFT_SCRATCH(1 + GUC_CTL_*) (i915 v4.x intel_guc_loader.c, intel_guc_fwif.h). */
#define GUC_CTL_LOG_PARAMS 4u
#define GUC_CTL_FEATURE 7u
/* Log verbosity (i915 v4.x intel_guc_init_params: guc_log_level << shift, or GUC_LOG_DISABLED when negative). What
 * each level shows is the model's choice: LOW errors and refusals, MED also client and power-state changes, HIGH
 * (and ULTRA) also every doorbell, submission and completion. */
#define GUC_CTL_DEBUG 8u
#define GUC_LOG_VERBOSITY_LOW 0u
#define GUC_LOG_VERBOSITY_MED 1u
#define GUC_LOG_VERBOSITY_HIGH 2u
#define GUC_LOG_VERBOSITY_ULTRA 3u
#define GUC_LOG_VERBOSITY_MASK 0xFu
#define GUC_LOG_DISABLED (1u << 6)

/* Doorbells: GEN8_DRBREGL(x) 0x1000 + 8x, bit 0 valid (i915 intel_guc_reg.h). */
#define GUC_REG_DRBREGL(x) (0x1000u + 8u * (x))
#define GUC_DRB_VALID 0x1u
#define GUC_NUM_DOORBELLS 256u
/* Ringing a doorbell (model's choice). i915 v4.x guc_ring_doorbell only updates the 64-bit cookie in the client's
 * doorbell cacheline in memory ({db_status, cookie}) and the doorbell hardware snoops that cacheline; no public
 * source describes the snoop, and the model's memory has no write snoop. So the host, after updating the cookie in
 * the cacheline, writes the same cookie to DRBREGU(x) (the upper dword of the doorbell register pair): that write is
 * the ring. A ring of a doorbell whose DRBREGL valid bit is clear is dropped with a warning, as hardware would not
 * route it. A ring of a valid doorbell latches it and raises GUC_VECTOR_DOORBELL in the firmware. */
#define GUC_REG_DRBREGU(x) (0x1004u + 8u * (x))

/* ---- GuC submission (i915 v4.x intel_guc_fwif.h, intel_guc_submission.c) ----
 * Process descriptor (struct guc_process_desc, packed): stage_id 0x00, db_base_addr 0x04 (u64), head 0x0C (the
 * GuC's), tail 0x10 (the host's), error_offset 0x14, wq_base_addr 0x18 (u64), wq_size_bytes 0x20, wq_status 0x24,
 * engine_presence 0x28, priority 0x2C. Model's choice: i915 v4.x hands the GuC the process descriptor through the
 * stage descriptor pool (GUC_CTL_CTXINFO); this model has no pool and takes the descriptor's GGTT address as the
 * third parameter of ALLOCATE_DOORBELL (0 = a doorbell without a work queue). */
#define GUC_PD_STAGE_ID 0x00u
#define GUC_PD_HEAD 0x0Cu
#define GUC_PD_TAIL 0x10u
#define GUC_PD_ERROR_OFFSET 0x14u
#define GUC_PD_WQ_BASE 0x18u
#define GUC_PD_WQ_SIZE 0x20u
#define GUC_PD_WQ_STATUS 0x24u
#define GUC_PD_BYTES 0x30u
#define GUC_WQ_STATUS_ACTIVE 1u
#define GUC_WQ_STATUS_CMD_ERROR 3u
#define GUC_WQ_STATUS_ENGINE_ID_NOT_USED 4u
/* Work queue item (struct guc_wq_item, 4 dwords): header, context_desc (lower dword of the LRC descriptor),
 * submit_element_info (ring tail in qwords at 30:20), fence_id. Header: type 7:0, target engine 15:10, length in
 * dwords after the header 26:16. */
#define GUC_WQ_ITEM_BYTES 16u
#define GUC_WQ_TYPE_MASK 0xFFu
#define GUC_WQ_TYPE_INORDER 0x3u
#define GUC_WQ_TARGET_SHIFT 10u
#define GUC_WQ_TARGET_MASK (0x3Fu << 10)
#define GUC_WQ_LEN_SHIFT 16u
#define GUC_WQ_LEN_MASK (0x7FFu << 16)
#define GUC_WQ_RING_TAIL_SHIFT 20u
#define GUC_WQ_RING_TAIL_MAX 0x7FFu
/* Client priorities in the process descriptor (i915 GUC_CLIENT_PRIORITY_*): a lower value is served first. */
#define GUC_PD_PRIORITY 0x2Cu
#define GUC_PD_ENGINE_PRESENCE 0x28u
#define GUC_CLIENT_PRIORITY_KMD_HIGH 0u
#define GUC_CLIENT_PRIORITY_HIGH 1u
#define GUC_CLIENT_PRIORITY_KMD_NORMAL 2u
#define GUC_CLIENT_PRIORITY_NORMAL 3u
#define GUC_CLIENT_PRIORITY_NUM 4u
/* GuC engine ids (i915 intel_guc_fwif.h) and the engines' register bases (i915 RENDER_RING_BASE, GEN6_BSD_RING_BASE,
 * BLT_RING_BASE, VEBOX_RING_BASE, GEN8_BSD2_RING_BASE). */
#define GUC_RENDER_ENGINE 0u
#define GUC_VIDEO_ENGINE 1u
#define GUC_BLITTER_ENGINE 2u
#define GUC_VIDEOENHANCE_ENGINE 3u
#define GUC_VIDEO_ENGINE2 4u
#define GUC_MAX_ENGINES_NUM 5u
#define GUC_ENGINE_BASES \
  { 0x2000u, 0x12000u, 0x22000u, 0x1A000u, 0x1C000u }
/* Execlists registers the firmware drives, from the engine base (i915 RING_ELSP, RING_EXECLIST_STATUS_LO,
 * RING_CONTEXT_STATUS_BUF_LO/HI, RING_CONTEXT_STATUS_PTR, RING_MODE_GEN7) and the CSB status bits (GEN8_CTX_STATUS_*).
 * CSB pointer: write pointer 2:0 (hardware), read pointer 10:8 (software, masked write), 6 entries. */
#define GUC_ENGINE_ELSP 0x230u
#define GUC_ENGINE_EXECLIST_STATUS_LO 0x234u
#define GUC_ENGINE_CSB(i) (0x370u + 8u * (i))
#define GUC_ENGINE_CSB_POINTER 0x3A0u
#define GUC_ENGINE_RING_MODE 0x29Cu
#define GUC_CSB_ENTRIES 6u
#define GUC_CSB_IDLE_TO_ACTIVE (1u << 0)
#define GUC_CSB_PREEMPTED (1u << 1)
#define GUC_CSB_ELEMENT_SWITCH (1u << 2)
#define GUC_CSB_ACTIVE_TO_IDLE (1u << 3)
#define GUC_CSB_COMPLETE (1u << 4)
/* EXECLIST_STATUS_LO: element 1/0 active (GVT execlist_status_format bits 17/18). */
#define GUC_EXECLIST_ACTIVE ((1u << 17) | (1u << 18))
/* Context descriptor (i915 GEN8_CTX_*): valid 0, privilege 8, addressing mode 4:3 (1 legacy 32-bit PPGTT, 3 48-bit);
 * the engine refuses others, so the firmware checks before submitting. */
#define GUC_LRC_DESC_VALID (1u << 0)
#define GUC_LRC_DESC_PRIVILEGE (1u << 8)
#define GUC_LRC_DESC_ADDRESSING_SHIFT 3u
#define GUC_LRC_DESC_ADDRESSING_MASK (3u << 3)
#define GUC_LRC_LEGACY_32B 1u
#define GUC_LRC_LEGACY_64B 3u

/* ---- Engine interrupts steered to the GuC (i915 guc_interrupts_capture) ----
 * The host sets GFX_INTERRUPT_STEERING (bit 14 of RING_MODE_GEN7, masked) in each engine and enables in
 * GUC_BCS_RCS_IER / GUC_VCS2_VCS1_IER / GUC_WD_VECS_IER the events the GuC takes; those registers have the GT
 * interrupt banks' layout (RCS 15:0, BCS 31:16; VCS 15:0, VCS2 31:16; VECS 15:0; context switch = bit 8 of an
 * engine's half). i915 enables everything except the user interrupts, which stay with the host. An event of a steered
 * engine enabled in the GuC's IER goes to the GuC instead of the host's GT IIR (model's reading of i915's comment
 * "route USER_INTERRUPT to Host, all others are sent to GuC"). */
#define GUC_RING_MODE_INTERRUPT_STEERING (1u << 14)
#define GUC_REG_BCS_RCS_IER 0xC550u
#define GUC_REG_VCS2_VCS1_IER 0xC554u
#define GUC_REG_WD_VECS_IER 0xC558u
#define GUC_IER_COUNT 3u
#define GUC_ENGINE_CONTEXT_SWITCH (1u << 8)
#define GUC_ENGINE_USER_INTERRUPT (1u << 0)
#define GUC_ENGINE_CS_ERROR (1u << 3)
/* GuC side (model's choice): the events it took, latched per IER register in GUC_LAPIC_ENGINE_IIR(n) (same layout,
 * write 1 to clear), announced by GUC_VECTOR_ENGINE. GUC_LAPIC_ENGINES: bit per GuC engine id present. */
#define GUC_LAPIC_ENGINE_IIR(n) (0x810u + 4u * (n))
#define GUC_LAPIC_ENGINES 0x81Cu
/* The GuC-to-host interrupt reaches the host as GEN8_GT_IIR(2) bit 31 (i915 GUC_INTR_GUC2HOST << 16, gen9
 * pm_guc_events) with GEN8_MASTER_IRQ bit 5 (GEN8_GT_GUC_IRQ): hw/gen/gt_interrupt_regs.h kGucBank, kGucToHost. */

/* ---- GuC-to-host event (model's own action: no public GuC ABI reports work completion) ----
 * When a submitted context completes (CSB COMPLETE), the firmware puts a request message into the CT receive buffer
 * (i915 v4.x ct_handle_request layout: header {dwords that follow, action}, then the payload, no fence) and raises
 * the GuC-to-host interrupt. Payload: stage id, fence of the work item, GuC engine id. */
#define GUC_ACTION_WORK_ITEM_DONE 0x7001u
/* Same payload: the work item did not complete (a command streamer error on its engine, the engine reset while it
 * ran, or its context preempted by an ELSP write that was not the GuC's). */
#define GUC_ACTION_WORK_ITEM_FAILED 0x7002u
#define GUC_WORK_ITEM_DONE_LEN 3u

/* The context image's ring tail: register-state page = LRCA + 4 KiB, i915 v4.x CTX_RING_TAIL value dword 7. */
#define GUC_LRC_RING_TAIL_OFFSET (4096u + 7u * 4u)

/* Firmware log buffer (model's format; i915's GUC_CTL_LOG_PARAMS packs page counts differently): LOG_PARAMS =
 * GGTT address (4 KiB aligned) | pages - 1 in bits 11:4 | bit 0 valid. The buffer starts with a header of four dwords
 * {magic, write offset in bytes from the start of the text area, flush count, size of the text area}; text follows,
 * wrapping at the end. */
#define GUC_LOG_VALID 0x1u
#define GUC_LOG_PAGES_SHIFT 4u
#define GUC_LOG_PAGES_MASK (0xFFu << 4)
#define GUC_LOG_MAGIC 0x474F4C47u /* bytes "GLOG" */
#define GUC_LOG_HEADER_BYTES 16u

#endif
