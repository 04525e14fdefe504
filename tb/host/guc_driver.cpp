#include "tb/host/guc_driver.h"

#include <algorithm>
#include <cstring>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "hw/gen/gt_interrupt_regs.h"
#include "hw/gen/guc_regs.h"
#include "hw/gen/mi_commands.h"

namespace gpuvp::host {

namespace {
using gen::GtInterruptRegs;
// i915 v4.x GUC_WOPCM_SIZE_VALUE and GUC_WOPCM_OFFSET_VALUE (0x80 << 12).
constexpr std::uint32_t kWopcmSize = 0x80000;
constexpr std::uint32_t kWopcmOffset = 0x80000;
// i915 guc_prepare_xfer on gen9: read caches, MIA clock gating, SRAM not zeroed, MIA caching.
constexpr std::uint32_t kShimFlags = 0x2 | 0x200 | 0x400 | 0x8000 | 0x1 | 0x4;
constexpr unsigned kParams = GUC_SOFT_SCRATCH_COUNT - 2;  // i915 GUC_CTL_MAX_DWORDS

std::uint32_t masked_enable(std::uint32_t bits) { return bits << 16 | bits; }
}  // namespace

GucDriver::GucDriver(I915Driver& i915) : i915_(i915) {}

GucDriver::LoadResult GucDriver::load(const std::vector<std::uint8_t>& image, const LoadOptions& options) {
  LoadResult result;
  firmware::ImageLayout layout;
  result.error = firmware::check_image(image, layout);
  if (!result.error.empty()) return result;  // i915 refuses before touching the hardware

  const std::uint32_t dma_bytes = static_cast<std::uint32_t>(layout.ucode_offset + layout.ucode_size);
  if (image_.size < dma_bytes) image_ = i915_.alloc((dma_bytes + 4095) / 4096 * 4096);
  std::vector<std::uint8_t> bytes(image.begin(), image.begin() + dma_bytes);
  if (options.corrupt) options.corrupt(bytes);
  std::vector<std::uint32_t> dwords((dma_bytes + 3) / 4, 0);
  std::memcpy(dwords.data(), bytes.data(), dma_bytes);
  i915_.upload(image_, 0, dwords);

  enable_interrupts();
  if (log_.size == 0) log_ = i915_.alloc(kLogPages * 4096);
  i915_.fill(log_, 0);
  std::uint32_t params[kParams] = {};
  params[GUC_CTL_LOG_PARAMS] = options.log_params.value_or(static_cast<std::uint32_t>(log_.gfx) |
                                                           (kLogPages - 1) << GUC_LOG_PAGES_SHIFT | GUC_LOG_VALID);
  params[GUC_CTL_DEBUG] =
      options.log_level < 0 ? GUC_LOG_DISABLED : static_cast<std::uint32_t>(options.log_level) & GUC_LOG_VERBOSITY_MASK;

  i915_.mmio_write(GUC_REG_WOPCM_SIZE, options.wopcm_size.value_or(kWopcmSize));
  i915_.mmio_write(GUC_REG_DMA_WOPCM_OFFSET, kWopcmOffset);
  i915_.mmio_write(GUC_REG_SHIM_CONTROL, kShimFlags);
  i915_.mmio_write(gen::kGtPmConfig, gen::kGtDoorbellEnable);
  i915_.mmio_write(GUC_REG_SOFT_SCRATCH(0), 0);
  for (unsigned i = 0; i < kParams; ++i) i915_.mmio_write(GUC_REG_SOFT_SCRATCH(1 + i), params[i]);
  for (unsigned i = 0; i < GUC_RSA_SCRATCH_COUNT; ++i) {
    std::uint32_t v = 0;
    std::memcpy(&v, image.data() + layout.rsa_offset + 4 * i, 4);
    i915_.mmio_write(GUC_REG_RSA_SCRATCH(i), v);
  }
  const std::uint64_t source = options.source.value_or(image_.gfx);
  i915_.mmio_write(GUC_REG_DMA_ADDR_0_LOW, static_cast<std::uint32_t>(source));
  i915_.mmio_write(GUC_REG_DMA_ADDR_0_HIGH, static_cast<std::uint32_t>(source >> 32) & 0xFFFF);
  i915_.mmio_write(GUC_REG_DMA_ADDR_1_LOW, GUC_WOPCM_LOAD_ADDRESS);
  i915_.mmio_write(GUC_REG_DMA_ADDR_1_HIGH, GUC_DMA_ADDRESS_SPACE_WOPCM);
  i915_.mmio_write(GUC_REG_DMA_COPY_SIZE, options.copy_size.value_or(dma_bytes));
  i915_.mmio_write(GUC_REG_DMA_CTRL, masked_enable(GUC_DMA_UOS_MOVE | GUC_DMA_START));

  HostPort& port = i915_.port();
  const std::uint64_t bar = i915_.layout().bar;
  // The boot ROM clears START_DMA when it is done with the image, accepted or not.
  if (!port.wait_for32(bar + GUC_REG_DMA_CTRL, 0, GUC_DMA_START, options.timeout_ns)) {
    result.status = status();
    result.error = "DMA did not complete";
    return result;
  }
  // The boot ROM's verdict. A recording follows the accepted image: it checks JUMP_PASSED.
  if (!port.check32(bar + GUC_REG_STATUS, GUC_BOOTROM_JUMP_PASSED << GUC_STATUS_BOOTROM_SHIFT, GUC_STATUS_BOOTROM_MASK,
                    &result.status)) {
    const std::uint32_t bootrom = (result.status & GUC_STATUS_BOOTROM_MASK) >> GUC_STATUS_BOOTROM_SHIFT;
    result.error = "boot ROM status " + std::to_string(bootrom);
    return result;
  }
  if (!port.wait_for32(bar + GUC_REG_STATUS, GUC_UKERNEL_READY << GUC_STATUS_UKERNEL_SHIFT, GUC_STATUS_UKERNEL_MASK,
                       options.timeout_ns, &result.status)) {
    result.error = "uKernel status " + std::to_string((result.status & GUC_STATUS_UKERNEL_MASK) >> 8);
    return result;
  }
  result.ok = true;
  return result;
}

std::uint32_t GucDriver::send(const std::vector<std::uint32_t>& action, std::uint64_t timeout_ns) {
  for (std::size_t i = 0; i < action.size() && i < GUC_SOFT_SCRATCH_COUNT - 1; ++i) {
    i915_.mmio_write(GUC_REG_SOFT_SCRATCH(static_cast<unsigned>(i)), action[i]);
  }
  i915_.mmio_write(GUC_REG_SEND_INTERRUPT, GUC_SEND_TRIGGER);
  // i915 intel_guc_send_mmio: the reply is the value that ended the wait (INTEL_GUC_RECV_MASK set). A recording
  // knows only those bits: 0xF0000000, which is GUC_REPLY_SUCCESS, so it follows the success path.
  std::uint32_t reply = 0;
  const std::uint64_t scratch0 = i915_.layout().bar + GUC_REG_SOFT_SCRATCH(0);
  if (!i915_.port().wait_for32(scratch0, GUC_REPLY_SUCCESS, GUC_REPLY_SUCCESS, timeout_ns, &reply)) return 0;
  return reply;
}

bool GucDriver::reset() {
  i915_.mmio_write(gen::kGdrst, gen::kGdrstGuc);
  if (!i915_.port().wait_for32(i915_.layout().bar + gen::kGdrst, 0, gen::kGdrstGuc, 100'000)) return false;
  return i915_.port().check32(i915_.layout().bar + GUC_REG_STATUS, GUC_STATUS_MIA_IN_RESET, GUC_STATUS_MIA_IN_RESET);
}

void GucDriver::ring_doorbell(std::uint32_t doorbell, std::uint32_t cookie) {
  i915_.mmio_write(GUC_REG_DRBREGU(doorbell), cookie);
}

namespace {
// The GuC-to-host interrupt: GEN8_GT_IIR(2) bit 31 (GtInterruptRegs::kGucBank, kGucToHost).
constexpr std::uint32_t kGuc2Host = GtInterruptRegs::kGucToHost;
std::uint32_t guc_bank_register(std::uint32_t reg) {
  return GtInterruptRegs::bank_register(GtInterruptRegs::kGucBank, reg);
}
}  // namespace

void GucDriver::enable_interrupts() {
  // Bank 2 has no other user in this model (no PM interrupts), so the driver owns the whole register pair.
  i915_.mmio_write(guc_bank_register(GtInterruptRegs::kIer), kGuc2Host);
  i915_.mmio_write(guc_bank_register(GtInterruptRegs::kImr), ~kGuc2Host);
  i915_.mmio_write(GtInterruptRegs::kMasterIrq, GtInterruptRegs::kMasterEnable);
}

bool GucDriver::interrupt_pending() {
  return (i915_.mmio_read(guc_bank_register(GtInterruptRegs::kIir)) & kGuc2Host) != 0;
}

bool GucDriver::wait_for_interrupt(std::uint64_t timeout_ns) {
  return i915_.port().wait_for32(i915_.layout().bar + guc_bank_register(GtInterruptRegs::kIir), kGuc2Host, kGuc2Host,
                                 timeout_ns);
}

void GucDriver::ack_interrupt() { i915_.mmio_write(guc_bank_register(GtInterruptRegs::kIir), kGuc2Host); }

void GucDriver::capture_interrupts(const std::vector<gen::Engine>& engines) {
  for (gen::Engine e : engines) {
    i915_.mmio_write(gen::engine_info(e).mmio_base + gen::engine_reg::kGfxMode,
                     masked_enable(gen::engine_reg::kGfxInterruptSteering));
  }
  // i915: "route USER_INTERRUPT to Host, all others are sent to GuC"; the three registers share the bit layout.
  const std::uint32_t host_only = GUC_ENGINE_USER_INTERRUPT | GUC_ENGINE_USER_INTERRUPT << 16;
  for (std::uint32_t n = 0; n < GUC_IER_COUNT; ++n) i915_.mmio_write(GUC_REG_BCS_RCS_IER + 4 * n, ~host_only);
}

void GucDriver::enable_submission(const std::vector<gen::Engine>& engines) {
  for (gen::Engine e : engines) {
    i915_.enable_interrupts(e);
    i915_.enable_execlists(e);
  }
  capture_interrupts(engines);
}

void GucDriver::release_interrupts(const std::vector<gen::Engine>& engines) {
  for (gen::Engine e : engines) {
    i915_.mmio_write(gen::engine_info(e).mmio_base + gen::engine_reg::kGfxMode,
                     gen::engine_reg::kGfxInterruptSteering << 16);
  }
  for (std::uint32_t n = 0; n < GUC_IER_COUNT; ++n) i915_.mmio_write(GUC_REG_BCS_RCS_IER + 4 * n, 0);
}

std::optional<GucDriver::WorkDone> GucDriver::work_done(const CtMessage& message) {
  const std::uint32_t action = message.header >> GUC_CT_MSG_ACTION_SHIFT;
  if ((message.header & GUC_CT_MSG_IS_RESPONSE) ||
      (action != GUC_ACTION_WORK_ITEM_DONE && action != GUC_ACTION_WORK_ITEM_FAILED) ||
      message.data.size() != GUC_WORK_ITEM_DONE_LEN) {
    return std::nullopt;
  }
  return WorkDone{message.data[0], message.data[1], message.data[2], action == GUC_ACTION_WORK_ITEM_FAILED};
}

std::uint32_t GucDriver::create_client(Client& client, std::uint32_t stage_id, std::uint32_t doorbell,
                                       std::uint32_t priority, std::uint32_t engines) {
  client.stage_id = stage_id;
  client.doorbell = doorbell;
  client.wq_tail = 0;
  client.wq_head = 0;
  client.object = i915_.alloc(kWqOffset + kWqSize);
  i915_.fill(client.object, 0);
  HostPort& port = i915_.port();
  port.write32(client.object.phys, 1);  // db_status GUC_DOORBELL_ENABLED
  const std::uint64_t desc = client.desc();
  port.write32(desc + GUC_PD_STAGE_ID, stage_id);
  port.write64(desc + 0x04, client.object.gfx);  // db_base_addr
  port.write64(desc + GUC_PD_WQ_BASE, client.object.gfx + kWqOffset);
  port.write32(desc + GUC_PD_WQ_SIZE, kWqSize);
  port.write32(desc + GUC_PD_ENGINE_PRESENCE, engines);
  port.write32(desc + GUC_PD_PRIORITY, priority);
  return send({GUC_ACTION_ALLOCATE_DOORBELL, stage_id, doorbell,
               static_cast<std::uint32_t>(client.object.gfx + kProcessDescOffset)});
}

bool GucDriver::submit(Client& client, I915Driver::Context& context, bool ring_doorbell) {
  if (context.tail % 8 != 0) i915_.emit(context, gen::mi::noop());  // the work item carries the tail in qwords
  const std::uint32_t header = GUC_WQ_TYPE_INORDER | gen::guc_engine_id(context.engine) << GUC_WQ_TARGET_SHIFT |
                               (GUC_WQ_ITEM_BYTES / 4 - 1) << GUC_WQ_LEN_SHIFT;
  return submit_raw(client,
                    {header, static_cast<std::uint32_t>(context.descriptor()),
                     (context.tail / 8) << GUC_WQ_RING_TAIL_SHIFT, context.seqno},
                    ring_doorbell);
}

bool GucDriver::submit_raw(Client& client, const std::array<std::uint32_t, 4>& item, bool ring_doorbell) {
  HostPort& port = i915_.port();
  const std::uint32_t tail = client.wq_tail;
  // One item always stays free, or a full queue would look empty (head == tail). i915 guc_wq_reserve reads the
  // firmware's head for every item; the model reads it only when the head it saw last leaves no room (the head only
  // moves towards the tail), so a recording, which cannot know the head, reads it only after a full queue's worth.
  const auto full = [&] { return (tail + GUC_WQ_ITEM_BYTES) % kWqSize == client.wq_head; };
  if (full()) client.wq_head = port.read32(client.desc() + GUC_PD_HEAD);
  if (full()) return false;
  for (std::size_t i = 0; i < item.size(); ++i) port.write32(client.wq() + tail + 4 * i, item[i]);
  client.wq_tail = (tail + GUC_WQ_ITEM_BYTES) % kWqSize;
  port.write32(client.desc() + GUC_PD_TAIL, client.wq_tail);
  if (ring_doorbell) ring(client);
  return true;
}

void GucDriver::ring(Client& client) {
  client.cookie = client.cookie + 1 == 0 ? 1 : client.cookie + 1;  // i915 skips 0
  i915_.port().write32(client.object.phys + 4, client.cookie);
  ring_doorbell(client.doorbell, client.cookie);
}

void GucDriver::ack_events(std::uint32_t bits) { i915_.mmio_write(GUC_REG_SOFT_SCRATCH(15), scratch(15) & ~bits); }

std::uint32_t GucDriver::log_flush_count() { return i915_.port().read32(log_.phys + 8); }

std::string GucDriver::read_log() {
  HostPort& port = i915_.port();
  if (log_.size == 0 || port.read32(log_.phys) != GUC_LOG_MAGIC) return {};
  const std::uint32_t end =
      std::min<std::uint32_t>(port.read32(log_.phys + 4), kLogPages * 4096 - GUC_LOG_HEADER_BYTES);
  std::string text(end, '\0');
  port.read_block(log_.phys + GUC_LOG_HEADER_BYTES, text.data(), end);
  return text;
}

namespace {
constexpr std::uint32_t kCtQuarter = 0x400;
}  // namespace

bool GucDriver::ct_enable() {
  if (ct_.size == 0) ct_ = i915_.alloc(4096);
  i915_.fill(ct_, 0);
  ct_send_tail_ = 0;
  HostPort& port = i915_.port();
  for (std::uint32_t type : {GUC_CTB_TYPE_SEND, GUC_CTB_TYPE_RECV}) {
    const std::uint64_t desc = ct_descriptor(type);
    port.write32(desc + GUC_CTB_DESC_ADDR, static_cast<std::uint32_t>(ct_.gfx + kCtQuarter * (2 + type)));
    port.write32(desc + GUC_CTB_DESC_SIZE, kCtQuarter);
    port.write32(desc + GUC_CTB_DESC_OWNER, 0);  // CTB_OWNER_HOST
  }
  const auto gfx = [&](std::uint32_t type) { return static_cast<std::uint32_t>(ct_.gfx + type * kCtQuarter); };
  // i915: "Register both CT buffers starting with RECV buffer".
  return send({GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER, gfx(GUC_CTB_TYPE_RECV), GUC_CTB_DESC_BYTES,
               GUC_CTB_TYPE_RECV}) == GUC_REPLY_SUCCESS &&
         send({GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER, gfx(GUC_CTB_TYPE_SEND), GUC_CTB_DESC_BYTES,
               GUC_CTB_TYPE_SEND}) == GUC_REPLY_SUCCESS;
}

void GucDriver::ct_send_raw(const std::vector<std::uint32_t>& dwords) {
  HostPort& port = i915_.port();
  const std::uint64_t desc = ct_descriptor(GUC_CTB_TYPE_SEND);
  const std::uint64_t buffer = ct_.phys + 2 * kCtQuarter;
  // Only the host writes the send tail: the driver's own copy is the descriptor's value (a recording knows it).
  for (std::uint32_t v : dwords) {
    port.write32(buffer + ct_send_tail_, v);
    ct_send_tail_ = (ct_send_tail_ + 4) % kCtQuarter;
  }
  port.write32(desc + GUC_CTB_DESC_TAIL, ct_send_tail_);
  i915_.mmio_write(GUC_REG_SEND_INTERRUPT, GUC_SEND_TRIGGER);
}

std::uint32_t GucDriver::ct_send(const std::vector<std::uint32_t>& action, bool g2h_status, std::uint64_t timeout_ns) {
  if (action.empty() || action.size() > GUC_CT_MSG_LEN_MASK) return 0;
  const std::uint32_t fence = ++fence_;
  std::vector<std::uint32_t> message;
  message.push_back(static_cast<std::uint32_t>(action.size()) | GUC_CT_MSG_WRITE_FENCE_TO_DESC |
                    (g2h_status ? GUC_CT_MSG_SEND_STATUS : 0) | action[0] << GUC_CT_MSG_ACTION_SHIFT);
  message.push_back(fence);
  message.insert(message.end(), action.begin() + 1, action.end());
  ct_send_raw(message);
  const std::uint64_t desc = ct_descriptor(GUC_CTB_TYPE_SEND);
  if (!i915_.port().wait_for32(desc + GUC_CTB_DESC_FENCE, fence, ~0u, timeout_ns)) return 0;
  // A recording follows the success path and checks the status.
  std::uint32_t status = 0;
  i915_.port().check32(desc + GUC_CTB_DESC_STATUS, GUC_REPLY_SUCCESS, ~0u, &status);
  return status;
}

std::vector<GucDriver::CtMessage> GucDriver::ct_receive() {
  HostPort& port = i915_.port();
  const std::uint64_t desc = ct_descriptor(GUC_CTB_TYPE_RECV);
  const std::uint64_t buffer = ct_.phys + 3 * kCtQuarter;
  std::uint32_t head = port.read32(desc + GUC_CTB_DESC_HEAD);
  const std::uint32_t tail = port.read32(desc + GUC_CTB_DESC_TAIL);
  std::vector<CtMessage> messages;
  while (head != tail && head < kCtQuarter) {
    CtMessage m;
    m.header = port.read32(buffer + head);
    head = (head + 4) % kCtQuarter;
    for (std::uint32_t i = 0; i < (m.header & GUC_CT_MSG_LEN_MASK); ++i) {
      m.data.push_back(port.read32(buffer + head));
      head = (head + 4) % kCtQuarter;
    }
    messages.push_back(m);
  }
  port.write32(desc + GUC_CTB_DESC_HEAD, head);
  return messages;
}

}  // namespace gpuvp::host
