// GucDriver: the i915 GuC path of the host driver model. Loads and authenticates a firmware image the way i915 does
// (intel_guc_fw.c / v4.x intel_guc_loader.c: WOPCM size and offset, SHIM_CONTROL, GT_PM_CONFIG, boot parameters in
// SOFT_SCRATCH, the RSA signature in UOS_RSA_SCRATCH, DMA_ADDR_0/1, DMA_COPY_SIZE, DMA_CTRL), sends MMIO mailbox
// actions (intel_guc_send_mmio), resets the GuC and reads the firmware's log buffer. Reaches the GPU only through the
// I915Driver's HostPort and GGTT buffers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "firmware/guc/guc_abi.h"
#include "tb/host/i915_driver.h"

namespace gpuvp::host {

class GucDriver {
 public:
  struct LoadResult {
    bool ok = false;
    std::uint32_t status = 0;  // GUC_STATUS when the driver stopped waiting
    std::string error;         // empty on success
  };
  // Overrides for tests of the boot ROM's failure paths; the defaults follow i915.
  struct LoadOptions {
    std::optional<std::uint32_t> copy_size;   // DMA_COPY_SIZE (default: header + uCode)
    std::optional<std::uint64_t> source;      // DMA_ADDR_0 (default: the image's GGTT address)
    std::optional<std::uint32_t> wopcm_size;  // GUC_WOPCM_SIZE (default 512 KiB, i915 GUC_WOPCM_SIZE_VALUE)
    // GUC_CTL_LOG_PARAMS (default: the driver's log buffer of kLogPages pages, valid).
    std::optional<std::uint32_t> log_params;
    std::uint64_t timeout_ns = 2'000'000;  // i915 polls for 100 ms; the model boots in well under 1 ms
    // Changes the bytes put into graphics memory after the driver parsed and accepted the image (what the boot ROM
    // sees differs from what the driver checked: a corrupted copy).
    std::function<void(std::vector<std::uint8_t>&)> corrupt;
    // i915's guc_log_level: GUC_CTL_DEBUG = level << GUC_LOG_VERBOSITY_SHIFT (0 LOW .. 3 ULTRA), or GUC_LOG_DISABLED
    // when negative. The default shows every doorbell, submission and completion, as bring-up wants; each line costs
    // the firmware graphics-memory writes (simulated time), so performance runs may lower it.
    int log_level = GUC_LOG_VERBOSITY_HIGH;
  };
  static constexpr std::uint32_t kLogPages = 4;

  explicit GucDriver(I915Driver& i915);

  // Puts the image into a GGTT buffer and runs the load sequence; waits for uKernel READY or a failure status.
  LoadResult load(const std::vector<std::uint8_t>& image, const LoadOptions& options);
  LoadResult load(const std::vector<std::uint8_t>& image) { return load(image, LoadOptions{}); }
  // i915 intel_guc_send_mmio: action and parameters into SOFT_SCRATCH(0..), GUC_SEND_INTERRUPT, then waits for a
  // response (SOFT_SCRATCH(0) >= 0xF0000000). Returns the response, or 0 on time-out.
  std::uint32_t send(const std::vector<std::uint32_t>& action, std::uint64_t timeout_ns = 200'000);
  // i915 intel_guc_reset: GDRST GuC domain, wait for the bit to clear; true if GUC_STATUS then says in reset.
  bool reset();

  std::uint32_t status() { return i915_.mmio_read(0xC000); }
  std::uint32_t scratch(unsigned n) { return i915_.mmio_read(0xC180 + 4 * n); }
  // Rings a doorbell: writes the new cookie to DRBREGU(doorbell), the model's stand-in for the doorbell hardware
  // snooping i915 guc_ring_doorbell's cookie update in the doorbell cacheline (firmware/guc/guc_abi.h).
  void ring_doorbell(std::uint32_t doorbell, std::uint32_t cookie);
  // Acknowledges GuC-to-host events (writes SOFT_SCRATCH(15) without the given bits).
  void ack_events(std::uint32_t bits);

  // ---- Interrupts (i915 gen9_enable_guc_interrupts, guc_interrupts_capture / release) ----
  // Unmasks and enables GUC_INTR_GUC2HOST in GEN8_GT_IMR/IER(2) and sets the master enable. load() does it before
  // starting the DMA (i915 does it after the load), so that a crash during boot also interrupts the host.
  void enable_interrupts();
  // GEN8_GT_IIR(2) bit 31: the GuC posted an event; ack clears it (write 1), as i915's handler does before it reads
  // SOFT_SCRATCH(15) and the CT buffer.
  bool interrupt_pending();
  // Polls for the interrupt (it follows the CT message that announces it by the firmware's next few instructions).
  bool wait_for_interrupt(std::uint64_t timeout_ns);
  void ack_interrupt();
  // Steers the engines' interrupts to the GuC: GFX_INTERRUPT_STEERING in RING_MODE_GEN7 and every event but the
  // user interrupts in GUC_BCS_RCS_IER / GUC_VCS2_VCS1_IER / GUC_WD_VECS_IER. GuC submission needs it: the firmware
  // learns completions from the context-switch interrupts. release gives everything back to the host.
  void capture_interrupts(const std::vector<gen::Engine>& engines);
  void release_interrupts(const std::vector<gen::Engine>& engines);
  // i915 intel_guc_submission_enable for the given engines: the host's interrupts (user interrupt, CS error) and
  // execlists mode on each, then capture_interrupts.
  void enable_submission(const std::vector<gen::Engine>& engines);
  // The firmware log: header {magic, write offset, flush count, text size} and the text written so far.
  const I915Driver::Buffer& log_buffer() const { return log_; }
  std::uint32_t log_flush_count();
  std::string read_log();

  // ---- GuC submission (i915 v4.x intel_guc_submission.c) ----
  // A client: one 3-page object as i915 lays it out: the doorbell cacheline {db_status, cookie} at 0, the process
  // descriptor at 0x800, the work queue (2 pages, GUC_WQ_SIZE) at 0x1000.
  struct Client {
    std::uint32_t stage_id = 0;
    std::uint32_t doorbell = 0;
    I915Driver::Buffer object;
    std::uint32_t cookie = 0;
    std::uint32_t wq_tail = 0;  // the driver's copy of the tail it writes (i915 v4.x client->wq_tail)
    std::uint32_t wq_head = 0;  // the firmware's head as the driver last read it
    std::uint64_t desc() const { return object.phys + kProcessDescOffset; }
    std::uint64_t wq() const { return object.phys + kWqOffset; }
  };
  static constexpr std::uint32_t kProcessDescOffset = 0x800;
  static constexpr std::uint32_t kWqOffset = 0x1000;
  static constexpr std::uint32_t kWqSize = 0x2000;
  // Fills the doorbell cacheline and the process descriptor, then ALLOCATE_DOORBELL {stage, doorbell, process
  // descriptor}; returns the GuC's reply.
  // priority: GUC_CLIENT_PRIORITY_* (i915's execbuf client is KMD_NORMAL); engines: GuC engine id mask the client
  // submits to (the process descriptor's engine_presence; default all five).
  std::uint32_t create_client(Client& client, std::uint32_t stage_id, std::uint32_t doorbell,
                              std::uint32_t priority = GUC_CLIENT_PRIORITY_KMD_NORMAL,
                              std::uint32_t engines = (1u << GUC_MAX_ENGINES_NUM) - 1);
  // Appends an in-order work item for the context (ring tail in qwords, fence = the context's last seqno), advances
  // the work queue tail in the process descriptor and rings the doorbell. Completion: the context's breadcrumb
  // (I915Driver::wait_seqno), as i915 v4.x waits for GuC-submitted requests.
  // ring_doorbell false only queues the item (a later ring() hands over everything queued).
  bool submit(Client& client, I915Driver::Context& context, bool ring_doorbell = true);
  // Appends a raw 4-dword work item and rings the doorbell if asked (tests of malformed items). False, and nothing
  // written, when the work queue is full (the firmware's head one item after the tail, i915 guc_wq_reserve).
  bool submit_raw(Client& client, const std::array<std::uint32_t, 4>& item, bool ring_doorbell = true);
  // Increments the cookie in the doorbell cacheline (i915 guc_ring_doorbell) and rings the doorbell.
  void ring(Client& client);

  // ---- Command transport (old gen9 ABI, i915 v4.x intel_guc_ct.c) ----
  // One page in four quarters: send descriptor, receive descriptor, send buffer, receive buffer (1 KiB each).
  // Registers the receive buffer, then the send buffer, through the mailbox; true if the GuC accepted both.
  bool ct_enable();
  // Writes a request {header, fence, parameters} with WRITE_FENCE_TO_DESC (and SEND_STATUS when g2h_status), rings
  // GUC_SEND_INTERRUPT and waits until the GuC wrote the fence to the descriptor; returns the descriptor status, or
  // 0 on time-out.
  std::uint32_t ct_send(const std::vector<std::uint32_t>& action, bool g2h_status = false,
                        std::uint64_t timeout_ns = 200'000);
  // Dwords copied into the send buffer at the tail as they are, then the notification (tests of malformed input).
  void ct_send_raw(const std::vector<std::uint32_t>& dwords);
  struct CtMessage {
    std::uint32_t header = 0;
    std::vector<std::uint32_t> data;  // fence first
  };
  // GuC-to-host messages waiting in the receive buffer; advances its head.
  std::vector<CtMessage> ct_receive();
  // A GUC_ACTION_WORK_ITEM_DONE event (the firmware saw the work item's context complete) or, with failed set,
  // GUC_ACTION_WORK_ITEM_FAILED (it did not complete: CS error, engine reset, or preempted by someone else).
  struct WorkDone {
    std::uint32_t stage_id = 0;
    std::uint32_t fence = 0;
    std::uint32_t guc_engine = 0;
    bool failed = false;
    bool operator==(const WorkDone& o) const {
      return stage_id == o.stage_id && fence == o.fence && guc_engine == o.guc_engine && failed == o.failed;
    }
  };
  static std::optional<WorkDone> work_done(const CtMessage& message);
  std::uint64_t ct_descriptor(std::uint32_t type) const { return ct_.phys + type * 0x400; }
  std::uint32_t ct_last_fence() const { return fence_; }

 private:
  I915Driver& i915_;
  I915Driver::Buffer log_;
  I915Driver::Buffer image_;
  I915Driver::Buffer ct_;
  std::uint32_t ct_send_tail_ = 0;
  std::uint32_t fence_ = 0;
};

}  // namespace gpuvp::host
