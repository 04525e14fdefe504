#include "tb/host/i915_driver.h"

#include <stdexcept>

#include "hw/gen/context_image_layout.h"
#include "hw/gen/engine_regs.h"
#include "hw/gen/execlist_regs.h"
#include "hw/gen/gt_interrupt_regs.h"
#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"

namespace gpuvp::host {

namespace er = gen::engine_reg;
using gen::ExeclistRegs;
using gen::GtInterruptRegs;

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
    port_.write64(layout_.bar + gen::kGgttPteWindowOffset + ((b.gfx + page) >> 12) * gen::kGgttPteBytes,
                  (b.phys + page) | gen::kPtePresent);
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

void I915Driver::enable_interrupts(gen::Engine engine, std::uint32_t extra_bits) {
  const int bank = GtInterruptRegs::bank_of(engine);
  const int shift = GtInterruptRegs::shift_of(engine);
  const std::uint32_t bits = (GtInterruptRegs::kUserInterrupt | GtInterruptRegs::kCsError | extra_bits) << shift;
  // Read-modify-write of the shared bank, as i915 keeps a software copy of IMR/IER.
  imr_[bank] &= ~bits;
  ier_[bank] |= bits;
  mmio_write(GtInterruptRegs::bank_register(bank, GtInterruptRegs::kImr), imr_[bank]);
  mmio_write(GtInterruptRegs::bank_register(bank, GtInterruptRegs::kIer), ier_[bank]);
  mmio_write(GtInterruptRegs::kMasterIrq, GtInterruptRegs::kMasterEnable);
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
  mmio_write(b + er::kCtl, gen::RingRegisterFields::ctl_for(size));
  rings_.push_back(std::move(ring));
  return *rings_.back();
}

void I915Driver::write_to_ring(const Buffer& ring, std::uint32_t size, std::uint32_t& tail,
                               const std::vector<std::uint32_t>& command) {
  const std::uint32_t bytes = static_cast<std::uint32_t>(command.size() * 4);
  if (bytes > size / 2) throw std::runtime_error("i915 driver model: command larger than half the ring");
  if (tail + bytes > size) {
    // Pad to the end with MI_NOOP and wrap, as the v4.x logical_ring_wrap_buffer did.
    std::vector<std::uint32_t> pad((size - tail) / 4, 0);
    port_.write_block(ring.phys + tail, pad.data(), pad.size() * 4);
    tail = 0;
  }
  port_.write_block(ring.phys + tail, command.data(), bytes);
  tail = (tail + bytes) % size;
}

void I915Driver::emit(Ring& ring, const std::vector<std::uint32_t>& command) {
  write_to_ring(ring.buffer, ring.size, ring.tail, command);
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

// ---- Execlists ----

std::uint64_t I915Driver::Context::descriptor() const {
  return gen::ContextDescriptor::make(state.gfx, id, addressing_mode, next_submit_flags).raw;
}

void I915Driver::enable_execlists(gen::Engine engine) {
  const std::uint32_t b = gen::engine_info(engine).mmio_base;
  Buffer& hwsp = engine_hwsp_[static_cast<int>(engine)];
  if (hwsp.size == 0) hwsp = alloc(4096);
  mmio_write(b + er::kHwsPga, static_cast<std::uint32_t>(hwsp.gfx));
  mmio_write(b + er::kGfxMode, er::kGfxRunListEnable << 16 | er::kGfxRunListEnable);  // masked enable
  // reset_csb_pointers: read and write pointer to the last entry, so the next entry written is 0.
  mmio_write(b + ExeclistRegs::kCsbPointer, 0xFFFF0000u | 5u << 8 | 5u);
  csb_read_[static_cast<int>(engine)] = 5;
}

std::vector<std::uint32_t> I915Driver::context_image(const Context& c) const {
  std::vector<std::uint32_t> page(1024, 0);
  const std::uint32_t b = c.mmio_base;
  const bool render = gen::engine_info(c.engine).render;
  // i915 v4.x populate_lr_context: NOOP, LRI(14 render | 11 others) | FORCE_POSTED, then the pairs from
  // CTX_CONTEXT_CONTROL on (the last three, BB_PER_CTX_PTR and the indirect context, on the render engine only).
  const unsigned count = render ? 14 : 11;
  page[gen::lrc::kLriHeader0] = gen::mi::lri_header(count) | gen::mi::kLriForcePosted;
  const std::uint32_t pairs[][2] = {
      {b + er::kContextControl, 0xFFFF000A},  // masked INHIBIT_SYN_CTX_SWITCH | RS_CTX_ENABLE, as in the listing
      {b + er::kHead, 0},
      {b + er::kTail, c.tail},
      {b + er::kStart, static_cast<std::uint32_t>(c.ring.gfx)},
      {b + er::kCtl, gen::RingRegisterFields::ctl_for(c.ring_size)},
      {b + er::kBbAddrUdw, 0},
      {b + er::kBbAddr, 0},
      {b + er::kBbState, er::kBbStatePpgtt},
      {b + er::kSbbAddrUdw, 0},
      {b + er::kSbbAddr, 0},
      {b + er::kSbbState, 0},
      {b + er::kBbPerCtxPtr, 0},
      {b + er::kIndirectCtx, 0},
      {b + er::kIndirectCtxOffset, 0},
  };
  for (unsigned i = 0; i < count; ++i) {
    page[gen::lrc::kContextControl + 2 * i] = pairs[i][0];
    page[gen::lrc::value(gen::lrc::kContextControl) + 2 * i] = pairs[i][1];
  }
  // LRI(9) | FORCE_POSTED: CTX_TIMESTAMP, then the PDPs upper dword first from PDP3 down to PDP0.
  page[gen::lrc::kLriHeader1] = gen::mi::lri_header(9) | gen::mi::kLriForcePosted;
  page[gen::lrc::kCtxTimestamp] = b + er::kCtxTimestamp;
  page[gen::lrc::value(gen::lrc::kCtxTimestamp)] = 0;
  for (unsigned n = 0; n < 4; ++n) {
    const unsigned pdp = 3 - n;
    const std::uint32_t udw = gen::lrc::kPdp3Udw + 4 * n;
    page[udw] = b + er::kPdp0Ldw + 8 * pdp + 4;
    page[gen::lrc::value(udw)] = static_cast<std::uint32_t>(c.pdp[pdp] >> 32);
    page[udw + 2] = b + er::kPdp0Ldw + 8 * pdp;
    page[gen::lrc::value(udw + 2)] = static_cast<std::uint32_t>(c.pdp[pdp]);
  }
  return page;
}

I915Driver::Context& I915Driver::create_context(gen::Engine engine, std::uint32_t ring_size,
                                                std::uint32_t addressing_mode,
                                                const std::array<std::uint64_t, 4>& pdp) {
  auto c = std::make_unique<Context>();
  c->engine = engine;
  c->mmio_base = gen::engine_info(engine).mmio_base;
  c->id = next_context_id_++;
  c->ring_size = ring_size;
  c->ring = alloc(ring_size);
  c->state = alloc(2 * 4096);
  c->addressing_mode = addressing_mode;
  c->pdp = pdp;
  std::vector<std::uint32_t> zero(1024, 0);
  upload(c->state, 0, zero);
  upload(c->state, gen::lrc::kStatePageOffset, context_image(*c));
  contexts_.push_back(std::move(c));
  return *contexts_.back();
}

void I915Driver::emit(Context& c, const std::vector<std::uint32_t>& command) {
  write_to_ring(c.ring, c.ring_size, c.tail, command);
}

std::uint32_t I915Driver::emit_breadcrumb(Context& c) {
  ++c.seqno;
  emit(c, gen::mi::store_data_imm(c.state.gfx + kSeqnoDword * 4, c.seqno));
  emit(c, gen::mi::user_interrupt());
  emit(c, gen::mi::arb_check());
  emit(c, gen::mi::noop());
  return c.seqno;
}

void I915Driver::submit(Context& element0, Context* element1) {
  for (Context* c : {&element0, element1}) {
    if (c == nullptr) continue;
    if (c->tail % 8 != 0) emit(*c, gen::mi::noop());
    // The engine samples TAIL from the image (CTX_RING_TAIL).
    port_.write32(c->state.phys + gen::lrc::kStatePageOffset + gen::lrc::value(gen::lrc::kRingTail) * 4, c->tail);
  }
  const std::uint64_t d0 = element0.descriptor();
  const std::uint64_t d1 = element1 ? element1->descriptor() : 0;
  const std::uint32_t elsp = element0.mmio_base + ExeclistRegs::kElsp;
  // execlists_elsp_write: element 1 high, element 1 low, element 0 high, element 0 low.
  mmio_write(elsp, static_cast<std::uint32_t>(d1 >> 32));
  mmio_write(elsp, static_cast<std::uint32_t>(d1));
  mmio_write(elsp, static_cast<std::uint32_t>(d0 >> 32));
  mmio_write(elsp, static_cast<std::uint32_t>(d0));
  element0.next_submit_flags = 0;
  if (element1) element1->next_submit_flags = 0;
}

bool I915Driver::wait_seqno(const Context& c, std::uint32_t seqno, std::uint64_t timeout_ns) {
  return port_.wait_for32(seqno_address(c), seqno, ~0u, timeout_ns);
}

std::vector<I915Driver::CsbEntry> I915Driver::process_csb(gen::Engine engine) {
  const Buffer& hwsp = engine_hwsp_[static_cast<int>(engine)];
  std::uint32_t& read = csb_read_[static_cast<int>(engine)];
  const std::uint32_t write =
      port_.read32(hwsp.phys + ExeclistRegs::kHwspCsbWriteDword * 4) & gen::CsbPointerFields::kWritePointerMask;
  std::vector<CsbEntry> entries;
  while (read != write && write < ExeclistRegs::kCsbEntries) {
    read = (read + 1) % ExeclistRegs::kCsbEntries;
    const std::uint64_t entry = hwsp.phys + (ExeclistRegs::kHwspCsbDword + 2 * read) * 4;
    const std::uint64_t v = port_.read64(entry);  // status and context ID: one qword (i915 reads buf[head] as u64)
    entries.push_back({static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32)});
  }
  // Software read pointer, bits 10:8 of the masked CONTEXT_STATUS_PTR.
  mmio_write(gen::engine_info(engine).mmio_base + ExeclistRegs::kCsbPointer,
             gen::CsbPointerFields::kReadPointerMask << 16 | read << gen::CsbPointerFields::kReadPointerShift);
  return entries;
}

}  // namespace gpuvp::host
