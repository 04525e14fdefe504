// The hardware definitions (hw/) against values written out independently, as QEMU's qtests write register offsets
// as literal numbers, so that the model and the drivers are not checked only against each other. Every literal below
// was read in the public source named next to it (Linux drivers/gpu/drm/i915: i915_reg.h, gt/intel_engine_regs.h,
// gt/intel_gpu_commands.h, v4.x intel_lrc.c/intel_lrc.h; Linux drivers/gpu/drm/vc4: vc4_regs.h, vc4_packet.h),
// not in our headers. The model's register tables are checked at the same literal offsets, and the layering (drivers
// see hw/, never the models; hw/ needs no SystemC) is checked on the sources.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hw/gen/context_image_layout.h"
#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "hw/gen/execlist_regs.h"
#include "hw/gen/gt_interrupt_regs.h"
#include "hw/gen/gtt_regs.h"
#include "hw/gen/guc_regs.h"
#include "hw/gen/mi_commands.h"
#include "hw/vc4/packets.h"
#include "hw/vc4/surface.h"
#include "hw/vc4/v3d_regs.h"
#include "platform/platform.h"

using namespace gpuvp;

namespace {

// i915 MI_INSTR(opcode, flags): ((opcode) << 23 | (flags)).
constexpr std::uint32_t mi_instr(std::uint32_t opcode, std::uint32_t flags) { return opcode << 23 | flags; }

}  // namespace

TEST(GenDefinitions, EngineRegistersAreI915s) {
  // gt/intel_engine_regs.h: RING_TAIL(base) base + 0x30, RING_HEAD + 0x34, RING_START + 0x38, RING_CTL + 0x3c,
  // RING_HWS_PGA + 0x80, RING_MI_MODE + 0x9c, RING_BBADDR + 0x140, RING_MODE_GEN7 + 0x29c, GEN8_RING_PDP_LDW
  // + 0x270 + 8n, GEN8_RING_CS_GPR + 0x600 + 8n.
  EXPECT_EQ(gen::engine_reg::kTail, 0x30u);
  EXPECT_EQ(gen::engine_reg::kHead, 0x34u);
  EXPECT_EQ(gen::engine_reg::kStart, 0x38u);
  EXPECT_EQ(gen::engine_reg::kCtl, 0x3Cu);
  EXPECT_EQ(gen::engine_reg::kHwsPga, 0x80u);
  EXPECT_EQ(gen::engine_reg::kMiMode, 0x9Cu);
  EXPECT_EQ(gen::engine_reg::kBbAddr, 0x140u);
  EXPECT_EQ(gen::engine_reg::kGfxMode, 0x29Cu);
  EXPECT_EQ(gen::engine_reg::kPdp0Ldw, 0x270u);
  EXPECT_EQ(gen::engine_reg::kGpr0, 0x600u);
  // RENDER_RING_BASE 0x02000, BLT_RING_BASE 0x22000, GEN6_BSD_RING_BASE 0x12000, GEN8_BSD2_RING_BASE 0x1c000,
  // VEBOX_RING_BASE 0x1a000: RING_TAIL of the render engine is 0x2030.
  EXPECT_EQ(gen::engine_info(gen::Engine::kRcs).mmio_base + gen::engine_reg::kTail, 0x2030u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kBcs).mmio_base, 0x22000u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kVcs0).mmio_base, 0x12000u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kVcs1).mmio_base, 0x1C000u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kVecs).mmio_base, 0x1A000u);
  // i915_reg.h: GEN6_GDRST 0x941c; GEN6_GRDOM_FULL 1 << 0, RENDER 1 << 1, MEDIA 1 << 2, BLT 1 << 3, VECS 1 << 4,
  // GEN9_GRDOM_GUC 1 << 5, GEN8_GRDOM_MEDIA2 1 << 7.
  EXPECT_EQ(gen::kGdrst, 0x941Cu);
  EXPECT_EQ(gen::kGdrstFull, 0x01u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kRcs).reset_domain, 0x02u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kVcs0).reset_domain, 0x04u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kBcs).reset_domain, 0x08u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kVecs).reset_domain, 0x10u);
  EXPECT_EQ(gen::kGdrstGuc, 0x20u);
  EXPECT_EQ(gen::engine_info(gen::Engine::kVcs1).reset_domain, 0x80u);
  // RING_CTL_SIZE(size) = size - PAGE_SIZE, RING_VALID 1: a 16 KiB ring is 0x3001.
  EXPECT_EQ(gen::RingRegisterFields::ctl_for(16 * 1024), 0x3001u);
  EXPECT_EQ(gen::RingRegisterFields::kHeadAddrMask, 0x001FFFFCu);  // HEAD_ADDR
}

TEST(GenDefinitions, ExeclistRegistersAndStatusBitsAreI915s) {
  // v4.x intel_lrc.h: RING_ELSP base + 0x230, RING_EXECLIST_STATUS + 0x234, RING_CONTEXT_CONTROL + 0x244,
  // RING_CONTEXT_STATUS_BUF + 0x370, RING_CONTEXT_STATUS_PTR + 0x3a0.
  EXPECT_EQ(gen::engine_info(gen::Engine::kRcs).mmio_base + gen::ExeclistRegs::kElsp, 0x2230u);
  EXPECT_EQ(gen::ExeclistRegs::kExeclistStatusLo, 0x234u);
  EXPECT_EQ(gen::engine_reg::kContextControl, 0x244u);
  EXPECT_EQ(gen::ExeclistRegs::kCsbBase, 0x370u);
  EXPECT_EQ(gen::ExeclistRegs::kCsbPointer, 0x3A0u);
  EXPECT_EQ(gen::ExeclistRegs::kCsbEntries, 6u);  // GEN8_CSB_ENTRIES
  // v4.x intel_lrc.c GEN8_CTX_STATUS_IDLE_ACTIVE 1 << 0, PREEMPTED 1 << 1, ELEMENT_SWITCH 1 << 2, ACTIVE_IDLE 1 << 3,
  // COMPLETE 1 << 4, LITE_RESTORE 1 << 15.
  EXPECT_EQ(gen::ExeclistRegs::kIdleToActive, 0x1u);
  EXPECT_EQ(gen::ExeclistRegs::kPreempted, 0x2u);
  EXPECT_EQ(gen::ExeclistRegs::kElementSwitch, 0x4u);
  EXPECT_EQ(gen::ExeclistRegs::kActiveToIdle, 0x8u);
  EXPECT_EQ(gen::ExeclistRegs::kComplete, 0x10u);
  EXPECT_EQ(gen::ExeclistRegs::kLiteRestore, 0x8000u);
  // GEN8_CTX_VALID 1 << 0, GEN8_CTX_FORCE_PD_RESTORE 1 << 1, GEN8_CTX_FORCE_RESTORE 1 << 2, GEN8_CTX_PRIVILEGE
  // 1 << 8, addressing mode at GEN8_CTX_ADDRESSING_MODE_SHIFT 3: a legacy 32-bit context at 0x123000, ID 7.
  EXPECT_EQ(gen::ContextDescriptor::make(0x123456, 7, 1).raw, 0x0000'0007'0012'3109ull);
  EXPECT_EQ(gen::ContextDescriptor::kForceRestore | gen::ContextDescriptor::kForcePdRestore, 0x6u);
  // v4.x intel_lrc.c CTX_LRI_HEADER_0 0x01, CTX_CONTEXT_CONTROL 0x02, CTX_RING_HEAD 0x04, CTX_RING_TAIL 0x06,
  // CTX_LRI_HEADER_1 0x21, CTX_CTX_TIMESTAMP 0x22, CTX_PDP3_UDW 0x24, CTX_PDP0_LDW 0x32.
  EXPECT_EQ(gen::lrc::kLriHeader0, 0x01u);
  EXPECT_EQ(gen::lrc::kContextControl, 0x02u);
  EXPECT_EQ(gen::lrc::kRingHead, 0x04u);
  EXPECT_EQ(gen::lrc::kRingTail, 0x06u);
  EXPECT_EQ(gen::lrc::kLriHeader1, 0x21u);
  EXPECT_EQ(gen::lrc::kCtxTimestamp, 0x22u);
  EXPECT_EQ(gen::lrc::kPdp3Udw, 0x24u);
  EXPECT_EQ(gen::lrc::kPdp0Ldw, 0x32u);
}

TEST(GenDefinitions, InterruptRegistersAreI915s) {
  // i915_reg.h: GEN8_MASTER_IRQ 0x44200, GEN8_MASTER_IRQ_CONTROL 1 << 31, GEN8_GT_IIR(which) 0x44308 + 0x10 * which,
  // GEN8_GT_IER(which) 0x4430c + 0x10 * which, GEN8_BCS_IRQ_SHIFT 16, GEN8_VCS1_IRQ_SHIFT 16, GEN8_GT_GUC_IRQ 1 << 5.
  using Gt = gen::GtInterruptRegs;
  EXPECT_EQ(Gt::kMasterIrq, 0x44200u);
  EXPECT_EQ(Gt::kMasterEnable, 0x80000000u);
  EXPECT_EQ(Gt::bank_register(0, Gt::kIir), 0x44308u);
  EXPECT_EQ(Gt::bank_register(2, Gt::kIir), 0x44328u);
  EXPECT_EQ(Gt::bank_register(3, Gt::kIer), 0x4433Cu);
  EXPECT_EQ(Gt::shift_of(gen::Engine::kBcs), 16);
  EXPECT_EQ(Gt::shift_of(gen::Engine::kVcs1), 16);
  EXPECT_EQ(Gt::bank_of(gen::Engine::kVecs), 3);
  EXPECT_EQ(Gt::kMasterGuc, 0x20u);
  // gt/intel_gt_regs.h: GT_RENDER_USER_INTERRUPT 1 << 0, GT_CS_MASTER_ERROR_INTERRUPT 1 << 3,
  // GT_CONTEXT_SWITCH_INTERRUPT 1 << 8, GT_WAIT_SEMAPHORE_INTERRUPT 1 << 11.
  EXPECT_EQ(Gt::kUserInterrupt, 0x1u);
  EXPECT_EQ(Gt::kCsError, 0x8u);
  EXPECT_EQ(Gt::kContextSwitch, 0x100u);
  EXPECT_EQ(Gt::kWaitOnSemaphore, 0x800u);
  // GFX_FLSH_CNTL_GEN6 0x101008, GEN8_RING_FAULT_REG 0x4094; GGTT entries 8 MiB into the BAR (gen6_gttadr_offset).
  EXPECT_EQ(gen::kGfxFlushControl, 0x101008u);
  EXPECT_EQ(gen::kRingFaultReg, 0x4094u);
  EXPECT_EQ(gen::kGgttPteWindowOffset, 0x800000u);
  // intel_guc_reg.h GEN9_GT_PM_CONFIG 0x13816c.
  EXPECT_EQ(gen::kGtPmConfig, 0x13816Cu);
}

TEST(GenDefinitions, CommandEncodingsAreI915s) {
  // gt/intel_gpu_commands.h: MI_NOOP MI_INSTR(0, 0), MI_BATCH_BUFFER_END MI_INSTR(0x0a, 0), MI_USER_INTERRUPT
  // MI_INSTR(0x02, 0), MI_BATCH_BUFFER_START_GEN8 MI_INSTR(0x31, 1), MI_BATCH_PPGTT_HSW 1 << 8,
  // MI_STORE_DWORD_IMM_GEN4 MI_INSTR(0x20, 2), MI_USE_GGTT 1 << 22, MI_LOAD_REGISTER_IMM(x)
  // MI_INSTR(0x22, 2 * (x) - 1).
  EXPECT_EQ(gen::mi::noop()[0], 0u);
  EXPECT_EQ(gen::mi::batch_buffer_end()[0], 0x05000000u);
  EXPECT_EQ(gen::mi::user_interrupt()[0], 0x01000000u);
  EXPECT_EQ(gen::mi::batch_buffer_start(0x1'2345'6000, false),
            (std::vector<std::uint32_t>{0x18800001u, 0x23456000u, 0x1u}));
  EXPECT_EQ(gen::mi::batch_buffer_start(0x1000, true)[0], 0x18800101u);
  EXPECT_EQ(gen::mi::store_data_imm(0x2000, 5), (std::vector<std::uint32_t>{0x10400002u, 0x2000u, 0u, 5u}));
  EXPECT_EQ(gen::mi::load_register_imm({{0x2030, 1}, {0x2034, 2}})[0], mi_instr(0x22, 3));
  EXPECT_EQ(gen::mi::lri_header(14) | gen::mi::kLriForcePosted, 0x1100101Bu);  // v4.x populate_lr_context, render
  // GFX_OP_PIPE_CONTROL(len) (3 << 29 | 3 << 27 | 2 << 24 | (len - 2)): six dwords.
  EXPECT_EQ(gen::mi::pipe_control(0)[0], 0x7A000004u);
  EXPECT_EQ(gen::mi::pipe_control(0).size(), 6u);
  // MI_MATH(x) MI_INSTR(0x1a, (x) - 1); MI_MATH_INSTR(op, op1, op2) op << 20 | op1 << 10 | op2; MI_MATH_LOAD 0x080,
  // MI_MATH_ADD 0x100, MI_MATH_STORE 0x180, MI_MATH_REG_SRCA 0x20, MI_MATH_REG_ACCU 0x31.
  using Alu = gen::mi::Alu;
  const auto math = gen::mi::math(
      {Alu::encode(Alu::kLoad, Alu::kSrcA, 0), Alu::encode(Alu::kAdd, 0, 0), Alu::encode(Alu::kStore, 2, Alu::kAccu)});
  EXPECT_EQ(math, (std::vector<std::uint32_t>{0x0D000002u, 0x08008000u, 0x10000000u, 0x18000831u}));
}

TEST(Vc4Definitions, V3dRegistersAreLinuxVc4s) {
  // vc4_regs.h: V3D_IDENT0 0x00000, VC4_EXPECTED_IDENT0 (2 << 24) | 'V' | '3' << 8 | 'D' << 16, V3D_INTCTL 0x00030,
  // V3D_CT0CS 0x00100, V3D_CT1CS 0x00104, V3D_CT0EA 0x00108, V3D_CT1CA 0x00114, V3D_PCS 0x00130, V3D_BFC 0x00134,
  // V3D_RFC 0x00138, V3D_BPOA 0x00308, V3D_ERRSTAT 0x00f20.
  EXPECT_EQ(vc4::kV3dIdent0, 0x000u);
  EXPECT_EQ(vc4::kV3dExpectedIdent0, (2u << 24) | 'V' | '3' << 8 | 'D' << 16);
  EXPECT_EQ(vc4::kV3dIntctl, 0x030u);
  EXPECT_EQ(vc4::kV3dCtnCs(0), 0x100u);
  EXPECT_EQ(vc4::kV3dCtnCs(1), 0x104u);
  EXPECT_EQ(vc4::kV3dCtnEa(0), 0x108u);
  EXPECT_EQ(vc4::kV3dCtnCa(1), 0x114u);
  EXPECT_EQ(vc4::kV3dPcs, 0x130u);
  EXPECT_EQ(vc4::kV3dBfc, 0x134u);
  EXPECT_EQ(vc4::kV3dRfc, 0x138u);
  EXPECT_EQ(vc4::kV3dBpoa, 0x308u);
  EXPECT_EQ(vc4::kV3dErrstat, 0xF20u);
  // V3D_SQRSV0 0x00410, V3D_SQRSV1 0x00414, V3D_SQCNTL 0x00418, V3D_SRQPC 0x00430, V3D_SRQUA 0x00434, V3D_SRQUL
  // 0x00438, V3D_SRQCS 0x0043c, V3D_VPACNTL 0x00500, V3D_VPMBASE 0x00504, V3D_DBCFG 0x00e00, V3D_DBQITE 0x00e2c,
  // V3D_DBQITC 0x00e30.
  EXPECT_EQ(vc4::kV3dSqrsv0, 0x410u);
  EXPECT_EQ(vc4::kV3dSqrsv1, 0x414u);
  EXPECT_EQ(vc4::kV3dSqcntl, 0x418u);
  EXPECT_EQ(vc4::kV3dSrqpc, 0x430u);
  EXPECT_EQ(vc4::kV3dSrqua, 0x434u);
  EXPECT_EQ(vc4::kV3dSrqul, 0x438u);
  EXPECT_EQ(vc4::kV3dSrqcs, 0x43Cu);
  EXPECT_EQ(vc4::kV3dVpacntl, 0x500u);
  EXPECT_EQ(vc4::kV3dVpmbase, 0x504u);
  EXPECT_EQ(vc4::kV3dDbcfg, 0xE00u);
  EXPECT_EQ(vc4::kV3dDbqite, 0xE2Cu);
  EXPECT_EQ(vc4::kV3dDbqitc, 0xE30u);
  // V3D_INT_FRDONE BIT(0), FLDONE BIT(1), OUTOMEM BIT(2), SPILLUSE BIT(3); V3D_CTRSTA BIT(15), V3D_CTRUN BIT(5),
  // V3D_CTERR BIT(3), V3D_CTSEMA BIT(12), V3D_CTRTSD BIT(8).
  EXPECT_EQ(vc4::kV3dIntFrdone | vc4::kV3dIntFldone | vc4::kV3dIntOutomem | vc4::kV3dIntSpilluse, 0xFu);
  EXPECT_EQ(vc4::kV3dIntOutomem, 0x4u);
  EXPECT_EQ(vc4::CtnCsFields::kCtRsta, 0x8000u);
  EXPECT_EQ(vc4::CtnCsFields::kCtRun, 0x20u);
  EXPECT_EQ(vc4::CtnCsFields::kCtErr, 0x8u);
  EXPECT_EQ(1u << vc4::CtnCsFields::kCtSemaShift, 0x1000u);
  EXPECT_EQ(1u << vc4::CtnCsFields::kCtRtsdShift, 0x100u);
}

TEST(Vc4Definitions, PacketOpcodesAndSizesAreLinuxVc4s) {
  // vc4_packet.h enum vc4_packet and VC4_PACKET_*_SIZE.
  struct Expected {
    std::uint8_t opcode;
    unsigned size;
    const char* name;
  };
  const Expected expected[] = {
      {0, 1, "HALT"},
      {1, 1, "NOP"},
      {4, 1, "FLUSH"},
      {6, 1, "START_TILE_BINNING"},
      {8, 1, "WAIT_ON_SEMAPHORE"},
      {16, 5, "BRANCH"},
      {17, 5, "BRANCH_TO_SUB_LIST"},
      {25, 1, "STORE_MS_TILE_BUFFER_AND_EOF"},
      {26, 5, "STORE_FULL_RES_TILE_BUFFER"},
      {28, 7, "STORE_TILE_BUFFER_GENERAL"},
      {32, 14, "GL_INDEXED_PRIMITIVE"},
      {33, 10, "GL_ARRAY_PRIMITIVE"},
      {56, 2, "PRIMITIVE_LIST_FORMAT"},
      {64, 5, "GL_SHADER_STATE"},
      {65, 5, "NV_SHADER_STATE"},
      {96, 4, "CONFIGURATION_BITS"},
      {100, 3, "RHT_X_BOUNDARY"},
      {102, 9, "CLIP_WINDOW"},
      {104, 9, "Z_MIN_MAX_CLIPPING_PLANES"},  // VC4_PACKET_Z_CLIPPING
      {105, 9, "CLIPPER_XY_SCALING"},
      {112, 16, "TILE_BINNING_MODE_CONFIG"},
      {113, 11, "TILE_RENDERING_MODE_CONFIG"},
      {114, 14, "CLEAR_COLORS"},
      {115, 3, "TILE_COORDINATES"},
  };
  for (const Expected& e : expected) {
    const vc4::PacketLayout* layout = vc4::packet_layout(e.opcode);
    ASSERT_NE(layout, nullptr) << unsigned{e.opcode};
    EXPECT_EQ(layout->length, e.size) << e.name;
    EXPECT_STREQ(layout->name, e.name);
  }
  // VC4_PACKET_GEM_HANDLES 254, size 9: the kernel's pseudo packet, not one the hardware runs.
  EXPECT_EQ(vc4::packet::kGemHandles, 254);
  EXPECT_EQ(vc4::packet::kGemHandlesLength, 9u);
  EXPECT_EQ(vc4::packet_layout(254), nullptr);
  EXPECT_EQ(vc4::packet_layout(2), nullptr);
  // VC4_BIN_CONFIG_AUTO_INIT_TSDA 1 << 2, VC4_BIN_CONFIG_ALLOC_BLOCK_SIZE_SHIFT 5, VC4_BIN_CONFIG_DB_NON_MS 1 << 7;
  // VC4_RENDER_CONFIG_FORMAT_SHIFT 2; VC4_LOADSTORE_TILE_BUFFER_EOF 1 << 3; VC4_PRIMITIVE_LIST_FORMAT_16_INDEX |
  // TYPE_TRIANGLES 0x12.
  EXPECT_EQ(vc4::BinningModeConfigFields::kConfigAutoInitTsda, 0x04u);
  EXPECT_EQ(vc4::BinningModeConfigFields::kConfigBlockShift, 5u);
  EXPECT_EQ(vc4::BinningModeConfigFields::kConfigDbNonMs, 0x80u);
  EXPECT_EQ(vc4::TileBufferFields::kConfigFormatShift, 2u);
  EXPECT_EQ(vc4::packet::kLoadStoreEof, 0x8u);
  EXPECT_EQ(vc4::packet::kListFormat16BitTriangles, 0x12u);
}

TEST(Vc4Definitions, EncodersWriteWholePacketsLittleEndian) {
  namespace pk = vc4::packet;
  // Each encoder appends exactly the packet's length.
  const auto length_of = [](void (*emit)(std::vector<std::uint8_t>&)) {
    std::vector<std::uint8_t> cl;
    emit(cl);
    const vc4::PacketLayout* layout = vc4::packet_layout(cl.at(0));
    return std::make_pair(cl.size(), layout ? std::size_t{layout->length} : 0);
  };
  const std::vector<void (*)(std::vector<std::uint8_t>&)> encoders = {
      [](std::vector<std::uint8_t>& cl) { pk::tile_binning_mode_config(cl, 1, 2, 3, 4, 5, 6); },
      [](std::vector<std::uint8_t>& cl) { pk::tile_rendering_mode_config(cl, 1, 2, 3, 4); },
      [](std::vector<std::uint8_t>& cl) { pk::clear_colors(cl, 1, 2, 3, 4, 5); },
      [](std::vector<std::uint8_t>& cl) { pk::tile_coordinates(cl, 1, 2); },
      [](std::vector<std::uint8_t>& cl) { pk::store_tile_buffer_general(cl, 1, 2); },
      [](std::vector<std::uint8_t>& cl) { pk::gl_indexed_primitive(cl, 1, 2, 3, 4); },
      [](std::vector<std::uint8_t>& cl) { pk::gl_array_primitive(cl, 1, 2, 3); },
      [](std::vector<std::uint8_t>& cl) { pk::clip_window(cl, 1, 2, 3, 4); },
      [](std::vector<std::uint8_t>& cl) { pk::configuration_bits(cl, 1, 2, 3); },
      [](std::vector<std::uint8_t>& cl) { pk::viewport_offset(cl, 1, 2); },
      [](std::vector<std::uint8_t>& cl) { pk::clipper_xy_scaling(cl, 1, 2); },
      [](std::vector<std::uint8_t>& cl) { pk::clipper_z_scale_and_offset(cl, 1, 2); },
      [](std::vector<std::uint8_t>& cl) { pk::nv_shader_state(cl, 1); },
      [](std::vector<std::uint8_t>& cl) { pk::primitive_list_format(cl, 1); },
      [](std::vector<std::uint8_t>& cl) { pk::branch(cl, 1); },
      [](std::vector<std::uint8_t>& cl) { pk::branch_to_sub_list(cl, 1); },
      [](std::vector<std::uint8_t>& cl) { pk::store_ms_tile_buffer(cl, true); },
      pk::halt,
      pk::flush,
      pk::start_tile_binning,
      pk::increment_semaphore,
      pk::wait_on_semaphore,
  };
  for (std::size_t i = 0; i < encoders.size(); ++i) {
    const auto [written, length] = length_of(encoders[i]);
    EXPECT_EQ(written, length) << "encoder " << i;
  }
  // vc4_render_cl.c emits TILE_RENDERING_MODE_CONFIG as u8 opcode, u32 address, u16 width, u16 height, u16 bits.
  std::vector<std::uint8_t> cl;
  pk::tile_rendering_mode_config(cl, 0x12345678, 256, 128, 0x0004);
  EXPECT_EQ(cl, (std::vector<std::uint8_t>{113, 0x78, 0x56, 0x34, 0x12, 0x00, 0x01, 0x80, 0x00, 0x04, 0x00}));
}

TEST(Vc4Definitions, SurfaceFormatsAndLayoutsAreLinuxVc4s) {
  // vc4_packet.h: VC4_RENDER_CONFIG_FORMAT_BGR565_DITHERED 0, _RGBA8888 1, _BGR565 2;
  // VC4_LOADSTORE_TILE_BUFFER_RGBA8888 0, _BGR565_DITHER 1, _BGR565 2; VC4_TILING_FORMAT_LINEAR 0, _T 1, _LT 2.
  // vc4_validate.c utile_width/utile_height: 8x4 pixels at 2 bytes, 4x4 at 4 bytes.
  vc4::ColorFormat f = vc4::ColorFormat::kRgba8888;
  ASSERT_TRUE(vc4::config_color_format(0, f));
  EXPECT_EQ(f, vc4::ColorFormat::kBgr565Dithered);
  ASSERT_TRUE(vc4::config_color_format(1, f));
  EXPECT_EQ(f, vc4::ColorFormat::kRgba8888);
  ASSERT_TRUE(vc4::config_color_format(2, f));
  EXPECT_EQ(f, vc4::ColorFormat::kBgr565);
  EXPECT_FALSE(vc4::config_color_format(3, f));
  ASSERT_TRUE(vc4::general_color_format(0, f));
  EXPECT_EQ(f, vc4::ColorFormat::kRgba8888);
  ASSERT_TRUE(vc4::general_color_format(1, f));
  EXPECT_EQ(f, vc4::ColorFormat::kBgr565Dithered);
  ASSERT_TRUE(vc4::general_color_format(2, f));
  EXPECT_EQ(f, vc4::ColorFormat::kBgr565);
  EXPECT_FALSE(vc4::general_color_format(3, f));
  EXPECT_EQ(static_cast<unsigned>(vc4::MemoryLayout::kLinear), 0u);
  EXPECT_EQ(static_cast<unsigned>(vc4::MemoryLayout::kT), 1u);
  EXPECT_EQ(static_cast<unsigned>(vc4::MemoryLayout::kLt), 2u);
  EXPECT_EQ(vc4::micro_tile_width(2), 8u);
  EXPECT_EQ(vc4::micro_tile_height(2), 4u);
  EXPECT_EQ(vc4::micro_tile_width(4), 4u);
  EXPECT_EQ(vc4::micro_tile_height(4), 4u);
}

// The model's register tables at the same literal offsets (the names are the model's).
TEST(ModelRegisters, SitAtTheLiteralOffsets) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  core::RegisterBank& bar = soc.gen()->regs();
  const std::pair<std::uint32_t, const char*> gen_regs[] = {
      {0x2030, "rcs.RING_TAIL"},
      {0x2034, "rcs.RING_HEAD"},
      {0x2038, "rcs.RING_START"},
      {0x203C, "rcs.RING_CTL"},
      {0x22030, "bcs.RING_TAIL"},
      {0x12030, "vcs0.RING_TAIL"},
      {0x2230, "rcs.ELSP"},
      {0x23A0, "rcs.CONTEXT_STATUS_PTR"},
      {0x44200, "GEN8_MASTER_IRQ"},
      {0x44308, "GEN8_GT_IIR(0)"},
      {0x941C, "GDRST"},
  };
  for (const auto& [offset, name] : gen_regs) {
    const core::Register* r = bar.find(offset);
    ASSERT_NE(r, nullptr) << std::hex << offset;
    EXPECT_EQ(r->name(), name);
  }
  core::RegisterBank& v3d = soc.v3d()->regs();
  const std::pair<std::uint32_t, const char*> v3d_regs[] = {
      {0x000, "IDENT0"}, {0x030, "INTCTL"}, {0x100, "CT0CS"}, {0x104, "CT1CS"}, {0x108, "CT0EA"},
      {0x114, "CT1CA"},  {0x134, "BFC"},    {0x138, "RFC"},   {0x308, "BPOA"},
  };
  for (const auto& [offset, name] : v3d_regs) {
    const core::Register* r = v3d.find(offset);
    ASSERT_NE(r, nullptr) << std::hex << offset;
    EXPECT_EQ(r->name(), name);
  }
  std::uint32_t ident0 = 0;
  ASSERT_TRUE(v3d.debug_read(0x000, reinterpret_cast<unsigned char*>(&ident0), 4));
  EXPECT_EQ(ident0, 0x02443356u);
}

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The quoted #include lines of every .h/.cpp under dir.
std::vector<std::pair<std::string, std::string>> includes_under(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(GPUVP_SOURCE_DIR) + "/" + dir)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp") continue;
    std::istringstream lines(read_text(entry.path()));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("#include", 0) == 0) out.emplace_back(entry.path().filename().string(), line);
    }
  }
  return out;
}

}  // namespace

TEST(Layering, HostDriversIncludeOnlyHardwareDefinitionsAndTheHostPort) {
  const auto includes = includes_under("tb/host");
  ASSERT_GT(includes.size(), 10u);
  for (const auto& [file, line] : includes) {
    EXPECT_EQ(line.find("\"tlm/gen/"), std::string::npos) << file << ": " << line;
    EXPECT_EQ(line.find("\"tlm/vc4/"), std::string::npos) << file << ": " << line;
    EXPECT_EQ(line.find("\"platform/"), std::string::npos) << file << ": " << line;
    EXPECT_EQ(line.find("\"rtl/"), std::string::npos) << file << ": " << line;
  }
}

TEST(Layering, HardwareDefinitionsNeedNoSystemCAndNoModel) {
  const auto includes = includes_under("hw");
  ASSERT_GT(includes.size(), 10u);
  for (const auto& [file, line] : includes) {
    const bool ok = line.find("<systemc") == std::string::npos && line.find("<tlm") == std::string::npos &&
                    line.find("\"tlm/") == std::string::npos && line.find("\"tb/") == std::string::npos &&
                    line.find("\"platform/") == std::string::npos;
    EXPECT_TRUE(ok) << file << ": " << line;
  }
}

TEST(Layering, TheSocLibraryUsesNoDriver) {
  for (const auto& [file, line] : includes_under("platform")) {
    if (file == "demo_workload.cpp" || file == "demo_workload.h") continue;  // the demo sits above the SoC
    EXPECT_EQ(line.find("\"tb/host/"), std::string::npos) << file << ": " << line;
  }
}
