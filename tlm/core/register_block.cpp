#include "tlm/core/register_block.h"

#include "tlm/core/complete_at_once.h"
#include "tlm/core/report.h"

namespace gpuvp::core {

RegisterBlock::RegisterBlock(sc_core::sc_module_name name, std::uint64_t size, ClockDomain clock,
                             std::uint32_t access_latency_cycles)
    : sc_module(name),
      socket("socket"),
      regs_(this->name()),
      size_(size),
      clock_(std::move(clock)),
      access_latency_cycles_(access_latency_cycles),
      stats_(this->name()),
      // Rejected accesses (outside the window, byte enables) and a part of the window the block serves itself
      // (forward_access) count in none of these.
      reads_(stats_.counter("mmio_reads", "events", "reads served by the register table")),
      writes_(stats_.counter("mmio_writes", "events", "writes served by the register table")),
      unmapped_(stats_.counter("unmapped_accesses", "events",
                               "reads and writes that touched bytes no register covers (read as 0, writes dropped)")) {
  socket.bind(*this);
}

void RegisterBlock::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  access(trans, delay, true);
}

void RegisterBlock::access(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay, bool blocking) {
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  delay += to_sc_time(clock_.cycles(access_latency_cycles_));
  if (len == 0 || len > size_ || addr > size_ - len) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (trans.get_byte_enable_ptr() != nullptr || trans.get_streaming_width() < len) {
    // Registers take plain accesses only: the host and the GPU blocks issue nothing else to MMIO but traffic (accesses
    // without data, Initiator::traffic), which a GTT entry pointing at MMIO may send here.
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  if (forward_access(trans, &delay)) return;
  // Registers are where blocks meet: a register read or write from a decoupled initiator (the host, the GuC) takes
  // effect at that initiator's local time (the end of the access), so what it sees and causes does not move with the
  // quantum. TLM-2.0 lets a b_transport target wait; a non-blocking call never may.
  if (blocking) wait_out_delay(delay);
  const auto offset = static_cast<std::uint32_t>(addr);
  bool complete;
  if (trans.is_read()) {
    ++reads_;
    complete = regs_.read(offset, trans.get_data_ptr(), len);
  } else if (trans.is_write()) {
    ++writes_;
    complete = regs_.write(offset, trans.get_data_ptr(), len);
  } else {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  if (!complete) ++unmapped_;
}

bool RegisterBlock::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.set_start_address(0);
  dmi.set_end_address(size_ - 1);
  return false;
}

tlm::tlm_sync_enum RegisterBlock::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  return complete_at_once(name(), trans, phase, delay,
                          [this](tlm::tlm_generic_payload& t, sc_core::sc_time& d) { access(t, d, false); });
}

unsigned int RegisterBlock::transport_dbg(tlm::tlm_generic_payload& trans) {
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (len == 0 || len > size_ || addr > size_ - len) return 0;
  if (forward_access(trans, nullptr)) return trans.get_response_status() == tlm::TLM_OK_RESPONSE ? len : 0;
  const auto offset = static_cast<std::uint32_t>(addr);
  if (trans.is_read()) {
    regs_.debug_read(offset, trans.get_data_ptr(), len);
  } else {
    regs_.debug_write(offset, trans.get_data_ptr(), len);
  }
  return len;
}

}  // namespace gpuvp::core
