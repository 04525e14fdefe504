#include "tb/host/gpgpu_driver.h"

#include <cstring>
#include <stdexcept>

#include "hw/gen/gpgpu_commands.h"
#include "hw/gen/mi_commands.h"

namespace gpuvp::host {

namespace {
namespace gp = gen::gpgpu;

std::vector<std::uint32_t> to_dwords(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint32_t> d((bytes.size() + 3) / 4, 0);
  if (!bytes.empty()) std::memcpy(d.data(), bytes.data(), bytes.size());
  return d;
}

// Heap layout inside one GGTT buffer: instructions, dynamic state (interface descriptor), surface state (binding
// table then surface states), indirect objects (payload).
constexpr std::uint64_t kInstructionOffset = 0;
constexpr std::uint64_t kDynamicOffset = 0x10000;
constexpr std::uint64_t kSurfaceOffset = 0x11000;
constexpr std::uint64_t kIndirectOffset = 0x12000;
}  // namespace

GpgpuDriver::GpgpuDriver(I915Driver& driver) : driver_(driver) {}

unsigned GpgpuDriver::threads_per_group(unsigned simd, const std::array<std::uint32_t, 3>& local_size) {
  const std::uint32_t items = local_size[0] * local_size[1] * local_size[2];
  return (items + simd - 1) / simd;
}

std::vector<std::uint8_t> GpgpuDriver::local_ids(unsigned simd, const std::array<std::uint32_t, 3>& local_size) {
  const unsigned threads = threads_per_group(simd, local_size);
  const unsigned grf_per_dim = simd == 32 ? 2 : 1;
  const std::size_t block = 3 * grf_per_dim * 32;
  std::vector<std::uint8_t> ids(threads * block, 0);
  for (unsigned t = 0; t < threads; ++t) {
    for (unsigned lane = 0; lane < simd; ++lane) {
      const std::uint32_t item = t * simd + lane;
      if (item >= local_size[0] * local_size[1] * local_size[2]) break;
      const std::uint16_t id[3] = {static_cast<std::uint16_t>(item % local_size[0]),
                                   static_cast<std::uint16_t>(item / local_size[0] % local_size[1]),
                                   static_cast<std::uint16_t>(item / (local_size[0] * local_size[1]))};
      for (unsigned d = 0; d < 3; ++d) {
        std::memcpy(ids.data() + t * block + d * grf_per_dim * 32 + lane * 2, &id[d], 2);
      }
    }
  }
  return ids;
}

void GpgpuDriver::dispatch(I915Driver::Ring& ring, const GpgpuKernel& k) {
  dispatch(ring, k, driver_.alloc(kHeapBytes));
}

void GpgpuDriver::dispatch(I915Driver::Ring& ring, const GpgpuKernel& k, const I915Driver::Buffer& heap) {
  if (k.instructions.size() > kDynamicOffset) throw std::invalid_argument("kernel larger than the instruction heap");
  if (heap.size < kHeapBytes) throw std::invalid_argument("GPGPU heap smaller than GpgpuDriver::kHeapBytes");
  driver_.upload(heap, kInstructionOffset, to_dwords(k.instructions));

  const unsigned threads = threads_per_group(k.simd, k.local_size);
  const std::vector<std::uint8_t> ids = local_ids(k.simd, k.local_size);
  const std::uint32_t per_thread_grfs = static_cast<std::uint32_t>(ids.size() / threads / 32);
  const std::uint32_t cross_grfs = static_cast<std::uint32_t>((k.cross_thread.size() + 31) / 32);

  // Binding table (one dword per surface) at the start of the surface heap, surface states from 0x100.
  std::vector<std::uint32_t> table;
  for (std::size_t i = 0; i < k.surfaces.size(); ++i) {
    const std::uint32_t state_offset = static_cast<std::uint32_t>(0x100 + 64 * i);
    table.push_back(state_offset);
    const std::uint64_t bytes =
        i < k.surface_bytes.size() && k.surface_bytes[i] != 0 ? k.surface_bytes[i] : k.surfaces[i].size;
    driver_.upload(heap, kSurfaceOffset + state_offset, gp::buffer_surface_state(k.surfaces[i].gfx, bytes));
  }
  if (!table.empty()) driver_.upload(heap, kSurfaceOffset, table);

  gp::InterfaceDescriptor idd;
  idd.kernel_offset = static_cast<std::uint32_t>(kInstructionOffset);
  idd.binding_table = 0;
  idd.per_thread_grfs = per_thread_grfs;
  idd.cross_thread_grfs = cross_grfs;
  idd.threads_per_group = threads;
  idd.slm_bytes = k.slm_bytes;
  idd.barrier = k.barrier;
  driver_.upload(heap, kDynamicOffset, gp::interface_descriptor(idd));

  // Indirect data: the cross-thread block, then each thread's block.
  std::vector<std::uint8_t> payload(cross_grfs * 32, 0);
  if (!k.cross_thread.empty()) std::memcpy(payload.data(), k.cross_thread.data(), k.cross_thread.size());
  payload.insert(payload.end(), ids.begin(), ids.end());
  driver_.upload(heap, kIndirectOffset, to_dwords(payload));

  gp::Walker w;
  w.indirect_length = static_cast<std::uint32_t>((payload.size() + 63) & ~std::size_t{63});
  w.indirect_start = 0;
  w.simd = k.simd;
  w.threads_per_group = threads;
  w.groups[0] = k.groups[0];
  w.groups[1] = k.groups[1];
  w.groups[2] = k.groups[2];
  const std::uint32_t items = k.local_size[0] * k.local_size[1] * k.local_size[2];
  const std::uint32_t rest = items % k.simd;
  w.right_mask = rest == 0 ? 0xFFFFFFFF : (1U << rest) - 1;

  driver_.emit(ring, gp::pipeline_select(gp::kPipelineGpgpu));
  // The L3 partition NEO programs on Gen9: with shared local memory when the kernel has some.
  if (k.program_l3) {
    driver_.emit(ring, gen::mi::load_register_imm(
                           {{gp::kL3Cntlreg, k.slm_bytes > 0 ? gp::kL3CntlregWithSlm : gp::kL3CntlregWithoutSlm}}));
  }
  // General State Base 0: stateless (BTI 255) addresses are graphics addresses.
  driver_.emit(ring, gp::state_base_address(0, heap.gfx + kSurfaceOffset, heap.gfx + kDynamicOffset,
                                            heap.gfx + kIndirectOffset, heap.gfx + kInstructionOffset));
  driver_.emit(ring, gp::media_vfe_state(24 * 7, 0, k.per_thread_scratch));
  driver_.emit(ring, gp::media_interface_descriptor_load(0, 32));
  driver_.emit(ring, gp::gpgpu_walker(w));
  driver_.emit(ring, gp::media_state_flush());
  driver_.emit(ring, gen::mi::pipe_control(gen::mi::kPcCsStall, 0, 0));
}

}  // namespace gpuvp::host
