#include "tlm/gen/command_table.h"

#include <cstdio>

#include "hw/gen/gpgpu_commands.h"
#include "hw/gen/mi_commands.h"
#include "tlm/gen/mi_handlers.h"

namespace gpuvp::gen {

namespace {

using L = LengthRule;
constexpr std::uint32_t kMiOpcode = 0xFF800000;       // bits 31:23: type 0 and the MI opcode (GVT-g op_len 9)
constexpr std::uint32_t kGfxPipeOpcode = 0xFFFF0000;  // bits 31:16: type 3, pipeline, opcode, sub-opcode (op_len 16)

CommandInfo mi_row(const char* name, std::uint32_t opcode, LengthRule length, EngineMask engines, MiHandler handler,
                   std::uint32_t flag_mask = 0, std::uint32_t flag_value = 0) {
  return {name, kMiOpcode | flag_mask, mi::instr(opcode, flag_value), length, engines, Pipe::kNone, handler};
}

CommandInfo gpgpu_row(const char* name, std::uint32_t opcode, LengthRule length) {
  return {name, kGfxPipeOpcode, opcode << 16, length, kOnRcs, Pipe::kGpgpu, nullptr};
}

CommandInfo generations(CommandInfo row, unsigned first, unsigned last) {
  row.first_generation = first;
  row.last_generation = last;
  return row;
}

// Lengths as i915 (gt/intel_gpu_commands.h) and Mesa genxml give them; the row's DW0 bits are GVT-g's opcodes.
std::vector<CommandInfo> build_rows() {
  CommandInfo arb_check = mi_row("MI_ARB_CHECK", mi::kArbCheck, L::constant(1), kOnAll, mi_arb_check);
  arb_check.flags = CommandInfo::kArbitrationPoint;
  return {
      mi_row("MI_NOOP", mi::kNoop, L::constant(1), kOnAll, mi_noop),
      mi_row("MI_USER_INTERRUPT", mi::kUserInterrupt, L::constant(1), kOnAll, mi_user_interrupt),
      arb_check,
      mi_row("MI_ARB_ON_OFF", mi::kArbOnOff, L::constant(1), kOnAll, mi_arb_on_off),
      mi_row("MI_BATCH_BUFFER_END", mi::kBatchBufferEnd, L::constant(1), kOnAll, mi_batch_buffer_end),
      // MI_MATH: 1 + n ALU dwords; the length field is 7:0 on Gen9 and 5:0 on Gen8, any value.
      generations(mi_row("MI_MATH", mi::kMath, L::range(2, 0x3F + 2).with_field(0x3F), kOnAll, mi_math), 8, 8),
      generations(mi_row("MI_MATH", mi::kMath, L::range(2, 0xFF + 2), kOnAll, mi_math), 9, 9),
      mi_row("MI_SEMAPHORE_WAIT", mi::kSemaphoreWait, L::exactly(4), kOnAll, mi_semaphore_wait),
      mi_row("MI_STORE_DATA_IMM", mi::kStoreDataImm, L::exactly(4), kOnAll, mi_store_data_imm, mi::kStoreQword, 0),
      mi_row("MI_STORE_DATA_IMM (qword)", mi::kStoreDataImm, L::exactly(5), kOnAll, mi_store_data_imm, mi::kStoreQword,
             mi::kStoreQword),
      mi_row("MI_STORE_DATA_INDEX", mi::kStoreDataIndex, L::exactly(3), kOnAll, mi_store_data_index, mi::kStoreQword,
             0),
      mi_row("MI_STORE_DATA_INDEX (qword)", mi::kStoreDataIndex, L::exactly(4), kOnAll, mi_store_data_index,
             mi::kStoreQword, mi::kStoreQword),
      // 1 + 2n dwords for n (register, value) pairs, n <= 126 (i915 MI_LOAD_REGISTER_IMM(x) = MI_INSTR(0x22, 2x-1)).
      mi_row("MI_LOAD_REGISTER_IMM", mi::kLoadRegisterImm, L::range(3, 253, 2).with_hint(" (2n-1, n <= 126)"), kOnAll,
             mi_load_register_imm),
      mi_row("MI_STORE_REGISTER_MEM", mi::kStoreRegisterMem, L::exactly(4), kOnAll, mi_store_register_mem),
      // Not on the render engine, which has PIPE_CONTROL (GVT-g R_ALL & ~R_RCS); a qword of immediate data: 5 dwords.
      mi_row("MI_FLUSH_DW", mi::kFlushDw, L::range(4, 5), kOnAll & ~kOnRcs, mi_flush_dw),
      mi_row("MI_LOAD_REGISTER_MEM", mi::kLoadRegisterMem, L::exactly(4), kOnAll, mi_load_register_mem),
      // 3 dwords without inline data; inline operands for a dword, a qword, an octword (Mesa gen9.xml).
      mi_row("MI_ATOMIC", mi::kAtomic, L::one_of({3, 5, 7, 11}), kOnAll, mi_atomic),
      mi_row("MI_BATCH_BUFFER_START", mi::kBatchBufferStart, L::exactly(3), kOnAll, mi_batch_buffer_start),
      // Gen9: 4 dwords. Gen8: Mesa's gen8.xml says 3 while its address field reaches into a fourth dword and the
      // media driver emits 4; both are accepted.
      generations(mi_row("MI_CONDITIONAL_BATCH_BUFFER_END", mi::kConditionalBatchBufferEnd, L::range(3, 4), kOnAll,
                         mi_conditional_batch_buffer_end),
                  8, 8),
      generations(mi_row("MI_CONDITIONAL_BATCH_BUFFER_END", mi::kConditionalBatchBufferEnd, L::exactly(4), kOnAll,
                         mi_conditional_batch_buffer_end),
                  9, 9),
      // GFXPIPE (3, 2, 0), render engine only (GVT-g R_RCS): the render pipe executes it.
      {"PIPE_CONTROL", kGfxPipeOpcode, mi::kPipeControlDw0,
       L::exactly(6).with_message("PIPE_CONTROL with a length other than 6 dwords"), kOnRcs, Pipe::kRender, nullptr},
      // The GPGPU pipe's commands, render engine only (Mesa genxml gen8.xml/gen9.xml lengths).
      gpgpu_row("PIPELINE_SELECT", gpgpu::kPipelineSelect, L::constant(1)),
      generations(gpgpu_row("STATE_BASE_ADDRESS", gpgpu::kStateBaseAddress, L::exactly(16)), 8, 8),
      generations(gpgpu_row("STATE_BASE_ADDRESS", gpgpu::kStateBaseAddress, L::exactly(19)), 9, 9),
      gpgpu_row("STATE_SIP", gpgpu::kStateSip, L::exactly(3)),
      gpgpu_row("GPGPU_CSR_BASE_ADDRESS", gpgpu::kGpgpuCsrBaseAddress, L::exactly(3)),
      gpgpu_row("MEDIA_VFE_STATE", gpgpu::kMediaVfeState, L::exactly(9)),
      gpgpu_row("MEDIA_CURBE_LOAD", gpgpu::kMediaCurbeLoad, L::exactly(4)),
      gpgpu_row("MEDIA_INTERFACE_DESCRIPTOR_LOAD", gpgpu::kMediaInterfaceDescriptorLoad, L::exactly(4)),
      gpgpu_row("MEDIA_STATE_FLUSH", gpgpu::kMediaStateFlush, L::exactly(2)),
      gpgpu_row("GPGPU_WALKER", gpgpu::kGpgpuWalker, L::exactly(15)),
  };
}

// Every bit pattern of 16-bit keys k with k & mask == value.
template <class F>
void for_each_key(std::uint32_t mask, std::uint32_t value, F f) {
  const std::uint32_t free = ~mask & 0xFFFF;
  for (std::uint32_t sub = free;; sub = (sub - 1) & free) {
    f(value | sub);
    if (sub == 0) break;
  }
}

}  // namespace

const char* engine_class_name(Engine e) {
  switch (e) {
    case Engine::kRcs:
      return "render";
    case Engine::kBcs:
      return "blitter";
    case Engine::kVcs0:
    case Engine::kVcs1:
      return "video";
    case Engine::kVecs:
      return "video-enhancement";
  }
  return "?";
}

const std::vector<CommandInfo>& all_commands() {
  static const std::vector<CommandInfo> rows = build_rows();
  return rows;
}

CommandTable::CommandTable(unsigned generation) : generation_(generation), index_(0x10000, 0) {
  for (const CommandInfo& row : all_commands()) {
    if (generation < row.first_generation || generation > row.last_generation) continue;
    rows_.push_back(&row);
    const auto id = static_cast<std::uint16_t>(rows_.size());
    bool conflict = false;
    for_each_key(row.mask >> 16, row.value >> 16, [&](std::uint32_t key) {
      if (index_[key] == 0) {
        index_[key] = id;
      } else {
        conflict = true;
      }
    });
    if (conflict) conflicts_.push_back(std::string(row.name) + " overlaps an earlier row");
  }
}

const CommandTable& CommandTable::for_generation(unsigned generation) {
  static const CommandTable gen8(8);
  static const CommandTable gen9(9);
  return generation >= 9 ? gen9 : gen8;
}

unsigned CommandTable::decode(std::uint32_t dw0, Engine engine, const CommandInfo*& info, std::string* reason) const {
  info = find(dw0);
  if (!info) {
    if (reason) {
      char buf[96];
      const std::uint32_t type = mi::type_of(dw0);
      if (type == mi::kTypeMi) {
        std::snprintf(buf, sizeof buf, "unknown MI opcode 0x%02x", mi::opcode_of(dw0));
      } else if (type == mi::kTypeGfxPipe) {
        std::snprintf(buf, sizeof buf, "3D/media command (pipeline %u, opcode %u, sub-opcode %u) is not modelled",
                      dw0 >> 27 & 3, dw0 >> 24 & 7, dw0 >> 16 & 0xFF);
      } else {
        std::snprintf(buf, sizeof buf, "command type %u is not modelled", type);
      }
      *reason = buf;
    }
    return 0;
  }
  if (!(info->engines & engine_mask(engine))) {
    if (reason) {
      // A command of one engine class names it; one of several names the class that refused it.
      const Engine classes[] = {Engine::kRcs, Engine::kBcs, Engine::kVcs0, Engine::kVecs};
      const EngineMask masks[] = {kOnRcs, kOnBcs, kOnVcs, kOnVecs};
      *reason = std::string(info->name) + " is not a " + engine_class_name(engine) + "-engine command";
      for (std::size_t i = 0; i < 4; ++i) {
        if (info->engines == masks[i]) {
          *reason = std::string(info->name) + " is a " + engine_class_name(classes[i]) + "-engine command";
        }
      }
    }
    return 0;
  }
  const unsigned length = info->length.length(dw0);
  if (length == 0 && reason) {
    const LengthRule& rule = info->length;
    *reason = rule.message ? rule.message
                           : "bad length " + std::to_string(dw0 & rule.field_mask) + " for " + info->name + rule.hint;
  }
  return length;
}

}  // namespace gpuvp::gen
