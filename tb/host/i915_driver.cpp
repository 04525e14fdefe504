#include "tb/host/i915_driver.h"

#include <stdexcept>

#include "tlm/gen/command_streamer.h"
#include "tlm/gen/gen_regs.h"
#include "tlm/gen/mi_commands.h"

namespace gpuvp::host {

namespace er = gen::engine_reg;

I915Driver::I915Driver(HostPort& port, DriverLayout layout)
    : port_(port), layout_(layout), next_phys_(layout.memory_base), next_gfx_(layout.ggtt_base) {}

I915Driver::Buffer I915Driver::alloc(std::uint64_t size) {
  size = (size + 4095) & ~std::uint64_t{4095};
  if (next_phys_ + size > layout_.memory_base + layout_.memory_size || next_gfx_ + size > layout_.ggtt_size) {
    throw std::runtime_error("i915 driver model: out of memory for a " + std::to_string(size) + " byte buffer");
  }
  Buffer b{next_gfx_, next_phys_, size};
  next_gfx_ += size;
  next_phys_ += size;
  // gen8_ggtt_pte_encode: physical address | present; one 64-bit write per page (gen8_set_pte).
  for (std::uint64_t page = 0; page < size; page += 4096) {
    port_.write64(layout_.bar + gen::kGgttPteWindowOffset + ((b.gfx + page) >> 12) * 8, (b.phys + page) | 1);
  }
  mmio_write(gen::kGfxFlushControl, 1);  // gen8_ggtt_invalidate
  return b;
}

void I915Driver::upload(const Buffer& buffer, std::uint64_t offset, const std::vector<std::uint32_t>& dwords) {
  if (offset + dwords.size() * 4 > buffer.size) throw std::runtime_error("i915 driver model: upload past a buffer");
  port_.write_block(buffer.phys + offset, dwords.data(), dwords.size() * 4);
}

void I915Driver::fill(const Buffer& buffer, std::uint8_t byte) {
  std::vector<std::uint8_t> bytes(buffer.size, byte);
  port_.write_block(buffer.phys, bytes.data(), bytes.size());
}

void I915Driver::enable_interrupts(gen::Engine engine) {
  const int bank = gen::GtInterrupts::bank_of(engine);
  const int shift = gen::GtInterrupts::shift_of(engine);
  const std::uint32_t bits = (gen::GtInterrupts::kUserInterrupt | gen::GtInterrupts::kCsError) << shift;
  const std::uint32_t base = gen::GtInterrupts::kGtIsrBase + 0x10 * static_cast<std::uint32_t>(bank);
  // Read-modify-write of the shared bank, as i915 keeps a software copy of IMR/IER.
  imr_[bank] &= ~bits;
  ier_[bank] |= bits;
  mmio_write(base + 4, imr_[bank]);
  mmio_write(base + 0xC, ier_[bank]);
  mmio_write(gen::GtInterrupts::kMasterIrq, gen::GtInterrupts::kMasterEnable);
}

I915Driver::Ring& I915Driver::create_ring(gen::Engine engine, std::uint32_t size) {
  if (size < 4096 || size > (2u << 20) || (size & (size - 1)) != 0) {
    throw std::runtime_error("i915 driver model: ring size must be a power of two from 4 KiB to 2 MiB");
  }
  auto ring = std::make_unique<Ring>();
  ring->engine = engine;
  ring->mmio_base = gen::engine_info(engine).mmio_base;
  ring->size = size;
  ring->buffer = alloc(size);
  ring->status_page = alloc(4096);
  const std::uint32_t b = ring->mmio_base;
  mmio_write(b + er::kCtl, 0);
  mmio_write(b + er::kHead, 0);
  mmio_write(b + er::kTail, 0);
  mmio_write(b + er::kStart, static_cast<std::uint32_t>(ring->buffer.gfx));
  mmio_write(b + er::kHwsPga, static_cast<std::uint32_t>(ring->status_page.gfx));
  mmio_write(b + er::kCtl, (size - 4096) | 1);  // RING_CTL_SIZE(size) | RING_VALID
  rings_.push_back(std::move(ring));
  return *rings_.back();
}

void I915Driver::emit(Ring& ring, const std::vector<std::uint32_t>& command) {
  const std::uint32_t bytes = static_cast<std::uint32_t>(command.size() * 4);
  if (bytes > ring.size / 2) throw std::runtime_error("i915 driver model: command larger than half the ring");
  if (ring.tail + bytes > ring.size) {
    // Pad to the end with MI_NOOP and wrap, as the v4.x logical_ring_wrap_buffer did.
    std::vector<std::uint32_t> pad((ring.size - ring.tail) / 4, 0);
    port_.write_block(ring.buffer.phys + ring.tail, pad.data(), pad.size() * 4);
    ring.tail = 0;
  }
  port_.write_block(ring.buffer.phys + ring.tail, command.data(), bytes);
  ring.tail = (ring.tail + bytes) % ring.size;
}

std::uint32_t I915Driver::emit_breadcrumb(Ring& ring) {
  ++ring.seqno;
  emit(ring, gen::mi::store_data_imm(ring.status_page.gfx + kSeqnoDword * 4, ring.seqno));
  emit(ring, gen::mi::user_interrupt());
  emit(ring, gen::mi::noop());
  emit(ring, gen::mi::noop());  // keeps TAIL qword aligned
  return ring.seqno;
}

void I915Driver::submit(Ring& ring) {
  if (ring.tail % 8 != 0) emit(ring, gen::mi::noop());  // TAIL is qword aligned (TAIL_ADDR bits 20:3)
  mmio_write(ring.mmio_base + er::kTail, ring.tail);
}

bool I915Driver::wait_seqno(const Ring& ring, std::uint32_t seqno, std::uint64_t timeout_ns) {
  return port_.wait_for32(seqno_address(ring), seqno, ~0u, timeout_ns);
}

}  // namespace gpuvp::host
