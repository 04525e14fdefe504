#include "tlm/core/bus_initiator.h"

#include <cstring>

namespace gpuvp::core {

BusInitiator::BusInitiator(sc_core::sc_module_name name)
    : sc_module(name),
      socket("socket"),
      transactions_(stats().counter(std::string(this->name()) + ".transactions")),
      dmi_accesses_(stats().counter(std::string(this->name()) + ".dmi_accesses")),
      errors_(stats().counter(std::string(this->name()) + ".errors", "accesses answered with an error response")) {
  socket.register_invalidate_direct_mem_ptr(this, &BusInitiator::invalidate_direct_mem_ptr);
}

tlm::tlm_response_status BusInitiator::transport(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data,
                                                 unsigned len) {
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;
  if (mode_ != AccessMode::kTransport) {
    const DmiCache::Entry* entry = nullptr;
    if (unsigned char* p = dmi_.lookup(addr, len, write, &entry)) {
      hot_.set(entry->region, entry->timed ? &entry->timing : nullptr);
      if (write) {
        std::memcpy(p, data, len);
      } else {
        std::memcpy(data, p, len);
      }
      return finish_dmi(write, len);
    }
  }
  payload_.set_command(cmd);
  payload_.set_address(addr);
  payload_.set_data_ptr(data);
  payload_.set_data_length(len);
  payload_.set_streaming_width(len);
  payload_.set_dmi_allowed(false);
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(payload_, local_time_.offset());
  ++transactions_;
  const tlm::tlm_response_status status = payload_.get_response_status();
  if (status != tlm::TLM_OK_RESPONSE) ++errors_;
  if (mode_ != AccessMode::kTransport && status == tlm::TLM_OK_RESPONSE && payload_.is_dmi_allowed()) {
    payload_.set_address(addr);
    dmi_.request(socket, payload_, mode_, timed_request_);
  }
  local_time_.sync_if_needed();
  return status;
}

unsigned BusInitiator::debug_read(std::uint64_t addr, void* data, unsigned len) {
  tlm::tlm_generic_payload p;
  p.set_command(tlm::TLM_READ_COMMAND);
  p.set_address(addr);
  p.set_data_ptr(static_cast<unsigned char*>(data));
  p.set_data_length(len);
  p.set_streaming_width(len);
  return socket->transport_dbg(p);
}

unsigned BusInitiator::debug_write(std::uint64_t addr, const void* data, unsigned len) {
  tlm::tlm_generic_payload p;
  p.set_command(tlm::TLM_WRITE_COMMAND);
  p.set_address(addr);
  p.set_data_ptr(static_cast<unsigned char*>(const_cast<void*>(data)));
  p.set_data_length(len);
  p.set_streaming_width(len);
  return socket->transport_dbg(p);
}

void BusInitiator::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  dmi_.invalidate(start, end);
  hot_.clear();
}

}  // namespace gpuvp::core
