#include "tlm/core/initiator.h"

#include <cstring>

#include "tlm/core/config.h"

namespace gpuvp::core {

Initiator::Initiator(sc_core::sc_module_name name, Counting counting)
    : sc_module(name),
      socket("socket"),
      stats_(this->name()),
      dmi_accesses_(stats_.counter("dmi_accesses", "events", "accesses served by direct memory interface pointers")),
      errors_(stats_.counter("errors", "events", "accesses answered with an error response")),
      transactions_(counting == Counting::kTransactions
                        ? stats_.counter("transactions", "events", "bus transactions issued (b_transport calls)")
                        : unreported_transactions_),
      reads_(counting == Counting::kReadsAndWrites
                 ? stats_.counter("reads", "events", "read accesses (through the bus or a DMI pointer)")
                 : unreported_reads_),
      writes_(counting == Counting::kReadsAndWrites
                  ? stats_.counter("writes", "events", "write accesses (through the bus or a DMI pointer)")
                  : unreported_writes_) {
  socket.register_invalidate_direct_mem_ptr(this, &Initiator::invalidate_direct_mem_ptr);
}

void Initiator::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  dmi_.invalidate(start, end);
  hot_read_.clear();
  hot_write_.clear();
}

tlm::tlm_response_status Initiator::access(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len,
                                           sc_core::sc_time& delay) {
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;
  if (mode_ != AccessMode::kTransport) {
    // Another region this initiator already holds (the hot one is only the last used).
    const DmiCache::Entry* entry = nullptr;
    if (unsigned char* ptr = dmi_.lookup(addr, len, write, &entry)) {
      DmiHotRegion& hot = write ? hot_write_ : hot_read_;
      hot.set(entry->region, entry->timed ? &entry->timing : nullptr);
      if (write) {
        std::memcpy(ptr, data, len);
        ++writes_;
      } else {
        std::memcpy(data, ptr, len);
        ++reads_;
      }
      finish_dmi(hot, write, len, delay);
      return tlm::TLM_OK_RESPONSE;
    }
  }
  return transport_access(cmd, addr, data, len, nullptr, 0, delay);
}

tlm::tlm_response_status Initiator::traffic(std::uint64_t addr, unsigned len, bool write, sc_core::sc_time& delay) {
  if (mode_ != AccessMode::kTransport) {
    const DmiCache::Entry* entry = nullptr;
    if (dmi_.lookup(addr, len, write, &entry) != nullptr) {
      DmiHotRegion& hot = write ? hot_write_ : hot_read_;
      hot.set(entry->region, entry->timed ? &entry->timing : nullptr);
      ++(write ? writes_ : reads_);
      finish_dmi(hot, write, len, delay);
      return tlm::TLM_OK_RESPONSE;
    }
  }
  // One disabled byte, repeated over the data (a byte enable pattern shorter than the data repeats: TLM-2.0 LRM
  // 14.15).
  static unsigned char disabled = 0;
  if (traffic_data_.size() < len) traffic_data_.resize(len);
  return transport_access(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, traffic_data_.data(), len,
                          &disabled, 1, delay);
}

tlm::tlm_response_status Initiator::transport_access(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data,
                                                     unsigned len, unsigned char* byte_enables, unsigned be_len,
                                                     sc_core::sc_time& delay) {
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;
  // The spare payload first (the usual case: no other access of this initiator in flight), then the pool.
  std::unique_ptr<tlm::tlm_generic_payload> p = std::move(spare_payload_);
  if (!p) {
    if (free_payloads_.empty()) {
      p = std::make_unique<tlm::tlm_generic_payload>();
    } else {
      p = std::move(free_payloads_.back());
      free_payloads_.pop_back();
    }
  }
  p->set_command(cmd);
  p->set_address(addr);
  p->set_data_ptr(data);
  p->set_data_length(len);
  p->set_streaming_width(len);
  p->set_byte_enable_ptr(byte_enables);
  p->set_byte_enable_length(be_len);
  p->set_dmi_allowed(false);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(*p, delay);
  ++transactions_;
  if (write) {
    ++writes_;
  } else {
    ++reads_;
  }
  const tlm::tlm_response_status status = p->get_response_status();
  if (status != tlm::TLM_OK_RESPONSE) ++errors_;
  if (mode_ != AccessMode::kTransport && status == tlm::TLM_OK_RESPONSE && p->is_dmi_allowed()) {
    p->set_address(addr);
    if (const DmiCache::Entry* e = dmi_.request(socket, *p, mode_, timed_request_)) {
      (write ? hot_write_ : hot_read_).set(e->region, e->timed ? &e->timing : nullptr);
    }
  }
  if (!spare_payload_) {
    spare_payload_ = std::move(p);
  } else {
    free_payloads_.push_back(std::move(p));
  }
  return status;
}

void Initiator::transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  socket->b_transport(trans, delay);
  ++transactions_;
  if (trans.is_read()) {
    ++reads_;
  } else {
    ++writes_;
  }
  if (trans.get_response_status() != tlm::TLM_OK_RESPONSE) ++errors_;
}

void Initiator::visit_mode_param(ParamVisitor& v, std::string& value, const std::string& who) {
  const std::string doc = "how the " + who +
                          " reaches memory: timed_dmi (DMI pointers charged the latency, contention and statistics "
                          "of the bus and DRAM, as transport), transport (a bus transaction per access) or dmi (DMI "
                          "pointers with a fixed latency: fastest, no bus contention or DRAM statistics)";
  v.param("memory_access", value, doc.c_str(), {"timed_dmi", "transport", "dmi"});
}

namespace {
unsigned debug_transport(tlm_utils::simple_initiator_socket<Initiator>& socket, tlm::tlm_command cmd,
                         std::uint64_t addr, unsigned char* data, unsigned len) {
  tlm::tlm_generic_payload p;
  p.set_command(cmd);
  p.set_address(addr);
  p.set_data_ptr(data);
  p.set_data_length(len);
  p.set_streaming_width(len);
  return socket->transport_dbg(p);
}
}  // namespace

unsigned Initiator::debug_read(std::uint64_t addr, void* data, unsigned len) {
  return debug_transport(socket, tlm::TLM_READ_COMMAND, addr, static_cast<unsigned char*>(data), len);
}

unsigned Initiator::debug_write(std::uint64_t addr, const void* data, unsigned len) {
  // The payload's data pointer is non-const by TLM's design; targets do not modify write data.
  return debug_transport(socket, tlm::TLM_WRITE_COMMAND, addr, static_cast<unsigned char*>(const_cast<void*>(data)),
                         len);
}

}  // namespace gpuvp::core
