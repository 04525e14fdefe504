// The GPGPU pipeline's commands and state structures on Gen8/Gen9 (Mesa genxml gen8.xml/gen9.xml): header opcodes
// (DW0 bits 31:16) for the model's command table and the pipe, and encoders for host drivers and tests.
#pragma once

#include <cstdint>
#include <vector>

namespace gpuvp::gen::gpgpu {

// DW0 bits 31:16: type 3, pipeline, opcode, sub-opcode.
constexpr std::uint32_t kPipelineSelect = 0x6904;
constexpr std::uint32_t kStateBaseAddress = 0x6101;
constexpr std::uint32_t kStateSip = 0x6102;
constexpr std::uint32_t kGpgpuCsrBaseAddress = 0x6104;
constexpr std::uint32_t kMediaVfeState = 0x7000;
constexpr std::uint32_t kMediaCurbeLoad = 0x7001;
constexpr std::uint32_t kMediaInterfaceDescriptorLoad = 0x7002;
constexpr std::uint32_t kMediaStateFlush = 0x7004;
constexpr std::uint32_t kGpgpuWalker = 0x7105;

constexpr std::uint32_t kPipelineGpgpu = 2;
constexpr std::uint32_t kSurfaceTypeBuffer = 4;
constexpr std::uint32_t kSurfaceTypeNull = 7;
constexpr std::uint32_t kSurfaceFormatRaw = 0x1FF;

// Registers the GPGPU set-up programs (NEO's Gen9 preamble, compute-runtime shared/source/gen9/reg_configs.h and
// preemption.inl; Mesa genxml L3CNTLREG; i915 GEN8_CS_CHICKEN1).
// L3CNTLREG: the L3's partition; bit 0 allocates shared local memory, which kernels with __local data need.
constexpr std::uint32_t kL3Cntlreg = 0x7034;
constexpr std::uint32_t kL3CntlregSlmEnable = 1U << 0;
constexpr std::uint32_t kL3CntlregWithSlm = 0x60000321;     // NEO's Gen9 value for kernels with SLM
constexpr std::uint32_t kL3CntlregWithoutSlm = 0x80000340;  // and without
// DEBUG_CONTROL_REG2 (NEO's name): EU thread arbitration, 0x100 round robin, 0 age-based (oldest first).
constexpr std::uint32_t kDebugControlReg2 = 0xE404;
constexpr std::uint32_t kThreadArbitrationRoundRobin = 0x100;

constexpr std::uint32_t header(std::uint32_t opcode, unsigned total_dwords) {
  return opcode << 16 | (total_dwords - 2);
}

// Gen9 PIPELINE_SELECT: mask bits 9:8 let the selection (1:0) through.
inline std::vector<std::uint32_t> pipeline_select(std::uint32_t pipeline) {
  return {kPipelineSelect << 16 | 0x300U | pipeline};
}

// Gen9 STATE_BASE_ADDRESS (19 dwords): every base set (modify enable), sizes at their maximum.
inline std::vector<std::uint32_t> state_base_address(std::uint64_t general, std::uint64_t surface,
                                                     std::uint64_t dynamic, std::uint64_t indirect,
                                                     std::uint64_t instruction) {
  const auto lo = [](std::uint64_t a) { return static_cast<std::uint32_t>(a & ~0xFFFULL) | 1U; };
  const auto hi = [](std::uint64_t a) { return static_cast<std::uint32_t>(a >> 32); };
  return {header(kStateBaseAddress, 19),
          lo(general),
          hi(general),
          0,
          lo(surface),
          hi(surface),
          lo(dynamic),
          hi(dynamic),
          lo(indirect),
          hi(indirect),
          lo(instruction),
          hi(instruction),
          0xFFFFF001,
          0xFFFFF001,
          0xFFFFF001,
          0xFFFFF001,
          0,
          0,
          0};
}

// MEDIA_VFE_STATE (9 dwords): scratch pointer (General State relative, 1 KiB aligned) and per-thread size code,
// maximum threads.
inline std::vector<std::uint32_t> media_vfe_state(std::uint32_t max_threads, std::uint32_t scratch_pointer = 0,
                                                  std::uint32_t per_thread_scratch = 0) {
  return {header(kMediaVfeState, 9),
          (scratch_pointer & ~0x3FFU) | per_thread_scratch,
          0,
          (max_threads - 1) << 16 | 1U << 8,
          0,
          0x0782'0000,
          0,
          0,
          0};
}

inline std::vector<std::uint32_t> media_interface_descriptor_load(std::uint32_t dynamic_offset, std::uint32_t bytes) {
  return {header(kMediaInterfaceDescriptorLoad, 4), 0, bytes, dynamic_offset};
}

inline std::vector<std::uint32_t> media_state_flush() { return {header(kMediaStateFlush, 2), 0}; }

struct Walker {
  std::uint32_t idd_index = 0;
  std::uint32_t indirect_length = 0;
  std::uint32_t indirect_start = 0;  // Indirect Object relative, 64-byte aligned
  unsigned simd = 16;                // 8, 16 or 32
  unsigned threads_per_group = 1;    // along X
  std::uint32_t groups[3] = {1, 1, 1};
  std::uint32_t right_mask = 0xFFFFFFFF;
};

inline std::vector<std::uint32_t> gpgpu_walker(const Walker& w) {
  const std::uint32_t simd_code = w.simd == 32 ? 2 : w.simd == 16 ? 1 : 0;
  return {header(kGpgpuWalker, 15),
          w.idd_index,
          w.indirect_length,
          w.indirect_start,
          simd_code << 30 | (w.threads_per_group - 1),
          0,
          0,
          w.groups[0],
          0,
          0,
          w.groups[1],
          0,
          w.groups[2],
          w.right_mask,
          0xFFFFFFFF};
}

// INTERFACE_DESCRIPTOR_DATA (8 dwords).
struct InterfaceDescriptor {
  std::uint32_t kernel_offset = 0;  // Instruction Base relative, 64-byte aligned
  std::uint32_t binding_table = 0;  // Surface State Base relative, 32-byte aligned
  std::uint32_t per_thread_grfs = 0;
  std::uint32_t cross_thread_grfs = 0;
  std::uint32_t threads_per_group = 1;
  std::uint32_t slm_bytes = 0;  // 0, or a power of two from 1 KiB to 64 KiB
  bool barrier = false;
};

inline std::vector<std::uint32_t> interface_descriptor(const InterfaceDescriptor& d) {
  std::uint32_t slm_code = 0;
  while (d.slm_bytes > 0 && (512U << slm_code) < d.slm_bytes) ++slm_code;
  return {d.kernel_offset & ~0x3FU,
          0,
          1U << 19,  // denorm mode: set by the kernel (cr0)
          0,
          d.binding_table & 0xFFE0U,
          d.per_thread_grfs << 16,
          d.threads_per_group | slm_code << 16 | (d.barrier ? 1U << 21 : 0U),
          d.cross_thread_grfs};
}

// A RAW buffer RENDER_SURFACE_STATE (16 dwords): size - 1 split into Width 6:0, Height 20:7, Depth 31:21 (NEO
// hw_helper.h SURFACE_STATE_BUFFER_LENGTH).
inline std::vector<std::uint32_t> buffer_surface_state(std::uint64_t address, std::uint64_t bytes) {
  const std::uint64_t n = bytes - 1;
  std::vector<std::uint32_t> s(16, 0);
  s[0] = kSurfaceTypeBuffer << 29 | kSurfaceFormatRaw << 18;
  s[2] = static_cast<std::uint32_t>((n & 0x7F) | ((n >> 7) & 0x3FFF) << 16);
  s[3] = static_cast<std::uint32_t>(((n >> 21) & 0x7FF) << 21);
  s[8] = static_cast<std::uint32_t>(address);
  s[9] = static_cast<std::uint32_t>(address >> 32) & 0xFFFF;
  return s;
}

}  // namespace gpuvp::gen::gpgpu
