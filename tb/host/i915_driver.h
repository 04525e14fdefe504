// A small i915-like host driver model for testbenches and workloads: GGTT-mapped buffers, legacy ring buffers per
// engine, command emission, breadcrumbs (seqno to the status page + user interrupt), submission by TAIL writes, and
// waiting for a seqno. It drives the GPU only through a HostPort (MMIO and memory), never through model internals.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/gen/engines.h"
#include "tb/host/host_port.h"

namespace gpuvp::host {

struct DriverLayout {
  std::uint64_t bar = 0xE000'0000;          // GTTMMADR
  std::uint64_t memory_base = 0x0100'0000;  // physical memory the driver owns (16 MiB up)
  std::uint64_t memory_size = 0x0400'0000;  // 64 MiB
  std::uint64_t ggtt_base = 0x0010'0000;    // first graphics address handed out (i915 keeps the bottom reserved)
  std::uint64_t ggtt_size = 4ULL << 30;
};

class I915Driver {
 public:
  struct Buffer {
    std::uint64_t gfx = 0;   // GGTT address
    std::uint64_t phys = 0;  // physical address (contiguous here)
    std::uint64_t size = 0;
  };
  struct Ring {
    gen::Engine engine;
    std::uint32_t mmio_base;
    Buffer buffer;
    Buffer status_page;
    std::uint32_t size;
    std::uint32_t tail = 0;
    std::uint32_t seqno = 0;
  };
  // Status page dword where breadcrumbs land (i915 I915_GEM_HWS_SEQNO is 0x40 dwords in).
  static constexpr std::uint32_t kSeqnoDword = 0x40;

  I915Driver(HostPort& port, DriverLayout layout = {});

  // GGTT-mapped, page-aligned buffer; the entries are written through the BAR and the GGTT TLBs flushed.
  Buffer alloc(std::uint64_t size);
  void upload(const Buffer& buffer, std::uint64_t offset, const std::vector<std::uint32_t>& dwords);
  void fill(const Buffer& buffer, std::uint8_t byte);

  // Unmasks and enables the user and CS error interrupts of an engine and the master interrupt (i915 postinstall).
  // extra_bits: further per-engine sources (e.g. GtInterruptRegs::kContextSwitch for an execlists interrupt handler).
  void enable_interrupts(gen::Engine engine, std::uint32_t extra_bits = 0);
  // A ring of `size` bytes (4 KiB .. 2 MiB, power of two) with its status page, programmed as i915's legacy ring
  // init does: CTL 0, HEAD 0, TAIL 0, START, HWS_PGA, then CTL = size | valid.
  Ring& create_ring(gen::Engine engine, std::uint32_t size = 16 * 1024);
  // Copies a command into the ring at the software tail; pads the end with MI_NOOP and wraps when it would straddle.
  void emit(Ring& ring, const std::vector<std::uint32_t>& command);
  // Stores the next seqno to the status page and raises a user interrupt; returns the seqno.
  std::uint32_t emit_breadcrumb(Ring& ring);
  // Hands the emitted commands to the engine: writes RING_TAIL.
  void submit(Ring& ring);
  std::uint64_t seqno_address(const Ring& ring) const { return ring.status_page.phys + kSeqnoDword * 4; }
  // Waits until the status page holds seqno; false on time-out.
  bool wait_seqno(const Ring& ring, std::uint32_t seqno, std::uint64_t timeout_ns);

  // ---- Execlists (logical ring contexts submitted through ELSP) ----
  struct Context {
    gen::Engine engine;
    std::uint32_t mmio_base;
    std::uint32_t id;  // context ID in descriptor bits 63:32
    Buffer state;      // page 0: the context's status page (LRCA), page 1: register state
    Buffer ring;
    std::uint32_t ring_size;
    std::uint32_t tail = 0;
    std::uint32_t seqno = 0;
    std::uint32_t addressing_mode;  // 1 legacy 32-bit (four PDPs), 3 48-bit (PML4 in PDP0)
    std::array<std::uint64_t, 4> pdp{};
    // Extra descriptor bits for the next submission only (gen::ContextDescriptor::kForceRestore,
    // kForcePdRestore): i915 sets them after rewriting an image and clears them once submitted.
    std::uint64_t next_submit_flags = 0;
    std::uint64_t descriptor() const;
  };
  struct CsbEntry {
    std::uint32_t status;
    std::uint32_t context_id;
  };
  // Switches an engine to execlists as i915 does: engine status page, GFX_MODE run list enable, CSB pointers reset.
  void enable_execlists(gen::Engine engine);
  // A context with its ring and image (i915 v4.x populate_lr_context layout). PPGTT roots are optional.
  Context& create_context(gen::Engine engine, std::uint32_t ring_size = 16 * 1024, std::uint32_t addressing_mode = 1,
                          const std::array<std::uint64_t, 4>& pdp = {});
  // Builds the register-state page of a context (dwords of page 1), for tests of the layout.
  std::vector<std::uint32_t> context_image(const Context& context) const;
  void emit(Context& context, const std::vector<std::uint32_t>& command);
  // Seqno to the context's status page (dword kSeqnoDword) and a user interrupt.
  std::uint32_t emit_breadcrumb(Context& context);
  // Writes the context's TAIL into its image and submits one or two contexts through ELSP (element 1 first).
  void submit(Context& element0, Context* element1 = nullptr);
  std::uint64_t seqno_address(const Context& context) const { return context.state.phys + kSeqnoDword * 4; }
  bool wait_seqno(const Context& context, std::uint32_t seqno, std::uint64_t timeout_ns);
  // Reads the new CSB entries from the status-page mirror and advances the read pointer (i915 process_csb).
  std::vector<CsbEntry> process_csb(gen::Engine engine);
  const Buffer& engine_status_page(gen::Engine engine) const { return engine_hwsp_[static_cast<int>(engine)]; }

  // MMIO helpers (offsets inside the BAR).
  void mmio_write(std::uint32_t offset, std::uint32_t value) { port_.write32(layout_.bar + offset, value); }
  std::uint32_t mmio_read(std::uint32_t offset) { return port_.read32(layout_.bar + offset); }
  HostPort& port() { return port_; }
  const DriverLayout& layout() const { return layout_; }

 private:
  // Copies a command into a ring buffer at tail; pads the end with MI_NOOP and wraps when it would straddle.
  void write_to_ring(const Buffer& ring, std::uint32_t size, std::uint32_t& tail,
                     const std::vector<std::uint32_t>& command);

  HostPort& port_;
  DriverLayout layout_;
  std::uint64_t next_phys_;
  std::uint64_t next_gfx_;
  std::vector<std::unique_ptr<Ring>> rings_;
  std::vector<std::unique_ptr<Context>> contexts_;
  std::array<Buffer, gen::kEngineCount> engine_hwsp_{};
  std::array<std::uint32_t, gen::kEngineCount> csb_read_{};
  std::uint32_t next_context_id_ = 1;
  // i915 keeps software copies of the shared interrupt mask and enable banks (reset: all masked, none enabled).
  std::array<std::uint32_t, 4> imr_{~0u, ~0u, ~0u, ~0u};
  std::array<std::uint32_t, 4> ier_{};
};

}  // namespace gpuvp::host
