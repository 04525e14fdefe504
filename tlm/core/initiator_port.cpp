#include "tlm/core/initiator_port.h"

namespace gpuvp::core {

InitiatorPort::InitiatorPort(sc_core::sc_module_name name)
    : sc_module(name),
      socket("socket"),
      reads_(stats().counter(std::string(this->name()) + ".reads")),
      writes_(stats().counter(std::string(this->name()) + ".writes")),
      errors_(stats().counter(std::string(this->name()) + ".errors", "accesses answered with an error response")) {}

tlm::tlm_response_status InitiatorPort::access(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data,
                                               unsigned len, sc_core::sc_time& delay) {
  std::unique_ptr<tlm::tlm_generic_payload> p;
  if (free_payloads_.empty()) {
    p = std::make_unique<tlm::tlm_generic_payload>();
  } else {
    p = std::move(free_payloads_.back());
    free_payloads_.pop_back();
  }
  p->set_command(cmd);
  p->set_address(addr);
  p->set_data_ptr(data);
  p->set_data_length(len);
  p->set_streaming_width(len);
  p->set_byte_enable_ptr(nullptr);
  p->set_byte_enable_length(0);
  p->set_dmi_allowed(false);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(*p, delay);
  if (cmd == tlm::TLM_READ_COMMAND) {
    ++reads_;
  } else {
    ++writes_;
  }
  const tlm::tlm_response_status status = p->get_response_status();
  if (status != tlm::TLM_OK_RESPONSE) ++errors_;
  free_payloads_.push_back(std::move(p));
  return status;
}

tlm::tlm_response_status InitiatorPort::read(std::uint64_t addr, void* data, unsigned len, sc_core::sc_time& delay) {
  return access(tlm::TLM_READ_COMMAND, addr, static_cast<unsigned char*>(data), len, delay);
}

tlm::tlm_response_status InitiatorPort::write(std::uint64_t addr, const void* data, unsigned len,
                                              sc_core::sc_time& delay) {
  // TLM's data pointer is non-const by design; targets do not modify write data.
  return access(tlm::TLM_WRITE_COMMAND, addr, static_cast<unsigned char*>(const_cast<void*>(data)), len, delay);
}

void InitiatorPort::transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  socket->b_transport(trans, delay);
  if (trans.is_read()) {
    ++reads_;
  } else {
    ++writes_;
  }
  if (trans.get_response_status() != tlm::TLM_OK_RESPONSE) ++errors_;
}

unsigned InitiatorPort::transport_dbg(tlm::tlm_generic_payload& trans) { return socket->transport_dbg(trans); }

}  // namespace gpuvp::core
