#include "tlm/core/memory.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "tlm/core/complete_at_once.h"
#include "tlm/core/report.h"

namespace gpuvp::core {

SparseStore::SparseStore(std::uint64_t size, std::uint64_t page_size) : size_(size), page_size_(page_size) {
  if (page_size_ < 4096 || (page_size_ & (page_size_ - 1)) != 0) {
    throw std::invalid_argument("memory page size must be a power of two of at least 4096 bytes");
  }
  if (size_ == 0) throw std::invalid_argument("memory size must not be zero");
  page_shift_ = static_cast<unsigned>(__builtin_ctzll(page_size_));
  pages_.resize(static_cast<std::size_t>((size_ + page_size_ - 1) >> page_shift_));
}

void SparseStore::read_pages(std::uint64_t offset, unsigned char* out, std::uint64_t len) const {
  while (len) {
    std::uint64_t in_page = offset & (page_size_ - 1);
    std::uint64_t chunk = std::min(len, page_size_ - in_page);
    const auto& page = pages_[static_cast<std::size_t>(offset >> page_shift_)];
    if (page) {
      std::memcpy(out, page.get() + in_page, chunk);
    } else {
      std::memset(out, 0, chunk);
    }
    out += chunk;
    offset += chunk;
    len -= chunk;
  }
}

unsigned char* SparseStore::page_for(std::uint64_t offset) {
  auto& page = pages_[static_cast<std::size_t>(offset >> page_shift_)];
  if (!page) {
    page = std::make_unique<unsigned char[]>(page_size_);  // value-initialised: zero
    ++pages_allocated_;
  }
  return page.get();
}

void SparseStore::write_pages(std::uint64_t offset, const unsigned char* in, std::uint64_t len) {
  while (len) {
    std::uint64_t in_page = offset & (page_size_ - 1);
    std::uint64_t chunk = std::min(len, page_size_ - in_page);
    // Zeros written to an untouched page change nothing it reads: keep it unallocated (a runtime that uploads a
    // large fresh buffer, as NEO does over TBX, costs the host only what is not zero).
    const bool untouched = !pages_[static_cast<std::size_t>(offset >> page_shift_)];
    if (!untouched || std::any_of(in, in + chunk, [](unsigned char b) { return b != 0; })) {
      std::memcpy(page_for(offset) + in_page, in, chunk);
    }
    in += chunk;
    offset += chunk;
    len -= chunk;
  }
}

void SparseStore::fill(std::uint64_t offset, unsigned char byte, std::uint64_t len) {
  while (len) {
    std::uint64_t in_page = offset & (page_size_ - 1);
    std::uint64_t chunk = std::min(len, page_size_ - in_page);
    auto& page = pages_[static_cast<std::size_t>(offset >> page_shift_)];
    // Zero-filling an untouched page changes nothing: keep it unallocated.
    if (page || byte != 0) std::memset(page_for(offset) + in_page, byte, chunk);
    offset += chunk;
    len -= chunk;
  }
}

void SparseStore::clear() {
  for (auto& page : pages_) page.reset();
  pages_allocated_ = 0;
}

Memory::Memory(sc_core::sc_module_name name, const MemoryParams& params)
    : sc_module(name),
      socket("socket"),
      stats_(this->name()),
      params_(params),
      store_(params.size, params.page_size),
      clock_(std::string(this->name()) + ".clock", params.clock_hz),
      // Accesses through b_transport and timed DMI grants; plain DMI and debug accesses count nowhere.
      reads_(stats_.counter("reads", "events", "reads served")),
      writes_(stats_.counter("writes", "events", "writes served")),
      bytes_read_(stats_.counter("bytes_read", "bytes", "bytes of the reads served")),
      bytes_written_(stats_.counter("bytes_written", "bytes", "bytes of the writes served")),
      dmi_grants_(stats_.counter("dmi_grants", "events", "direct memory interface pointers granted (one page each)")),
      errors_(stats_.counter("errors", "events",
                             "transactions answered with an error (outside the memory, burst or command error)")),
      busy_(stats_.busy_time("busy", "transfer time of the accesses served, at bytes_per_cycle")),
      period_ps_(clock_.period_ps()),
      read_latency_ps_(clock_.cycles(params.read_latency_cycles)),
      write_latency_ps_(clock_.cycles(params.write_latency_cycles)) {
  if (params_.bytes_per_cycle == 0)
    throw std::invalid_argument(std::string(this->name()) + ": bytes_per_cycle must not be zero");
  if ((params_.bytes_per_cycle & (params_.bytes_per_cycle - 1)) == 0) {
    width_shift_ = __builtin_ctz(params_.bytes_per_cycle);
  }
  // The sparse store's pages: what the memory costs the host (a 520 GiB DRAM of which a program touches a few pages
  // holds a few pages).
  stats_.formula("host_bytes", "bytes", "host memory the sparse store holds (pages written so far)",
                 [this](Picoseconds) { return static_cast<double>(store_.pages_allocated() * store_.page_size()); });
  socket.bind(*this);
}

inline bool Memory::access(tlm::tlm_generic_payload& trans) {
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (!store_.contains(addr, len)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_streaming_width() < len) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  const tlm::tlm_command cmd = trans.get_command();
  if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_byte_enable_ptr() && trans.get_byte_enable_length()) {
    access_with_byte_enables(trans);
  } else if (cmd == tlm::TLM_READ_COMMAND) {
    store_.read(addr, trans.get_data_ptr(), len);
  } else {
    store_.write(addr, trans.get_data_ptr(), len);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void Memory::access_with_byte_enables(tlm::tlm_generic_payload& trans) {
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  unsigned char* data = trans.get_data_ptr();
  const unsigned char* be = trans.get_byte_enable_ptr();
  const unsigned be_len = trans.get_byte_enable_length();
  if (trans.is_read()) {
    store_.read(addr, data, len);
    for (unsigned i = 0; i < len; ++i) {
      if (!be[i % be_len]) data[i] = 0;
    }
  } else {
    for (unsigned i = 0; i < len; ++i) {
      if (be[i % be_len]) store_.write(addr + i, data + i, 1);
    }
  }
}

void Memory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const std::uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  const tlm::tlm_command cmd = trans.get_command();
  // The common case: a plain read or write inside one page that has backing store. Everything else is out of line,
  // so that this path needs no saved registers.
  unsigned char* p = store_.in_allocated_page(addr, len);
  if (p == nullptr || (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND) ||
      trans.get_byte_enable_ptr() != nullptr || trans.get_streaming_width() < len) {
    b_transport_general(trans, delay);
    return;
  }
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;
  if (write) {
    SparseStore::copy_small(p, trans.get_data_ptr(), len);
  } else {
    SparseStore::copy_small(trans.get_data_ptr(), p, len);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  account(write, len, delay);
  trans.set_dmi_allowed(params_.dmi);
}

void Memory::b_transport_general(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (!access(trans)) {
    ++errors_;
    return;
  }
  const bool write = trans.get_command() == tlm::TLM_WRITE_COMMAND;
  account(write, trans.get_data_length(), delay);
  // A DMI pointer needs the page's backing store: offering one for a read of memory never written would let a guest
  // that reads (say, scans) memory make the model allocate it all, where reads through b_transport cost nothing. The
  // same for a write with byte enables, which may have written nothing (traffic: Initiator::traffic).
  const bool wrote_page = write && trans.get_byte_enable_ptr() == nullptr;
  trans.set_dmi_allowed(params_.dmi && (wrote_page || store_.has_page(trans.get_address())));
}

tlm::tlm_sync_enum Memory::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                           sc_core::sc_time& delay) {
  return complete_at_once(name(), trans, phase, delay,
                          [this](tlm::tlm_generic_payload& t, sc_core::sc_time& d) { b_transport(t, d); });
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const std::uint64_t addr = trans.get_address();
  if (!params_.dmi || addr >= store_.size()) return false;
  if (trans.is_read() && !store_.has_page(addr)) return false;  // see b_transport: no backing store for a read
  // One page per grant: pages are not contiguous in host memory.
  const std::uint64_t base = store_.page_base(addr);
  const std::uint64_t end = std::min(base + store_.page_size(), store_.size()) - 1;
  dmi.set_dmi_ptr(store_.page_for(addr));
  dmi.set_start_address(base);
  dmi.set_end_address(end);
  dmi.allow_read_write();
  dmi.set_read_latency(to_sc_time(clock_.cycles(params_.read_latency_cycles)));
  dmi.set_write_latency(to_sc_time(clock_.cycles(params_.write_latency_cycles)));
  if (auto* timed = trans.get_extension<TimedDmiRequest>()) timed->chain.set_target(&timing_stage_);
  ++dmi_grants_;
  return true;
}

unsigned int Memory::transport_dbg(tlm::tlm_generic_payload& trans) {
  return access(trans) ? trans.get_data_length() : 0;
}

void Memory::invalidate_dmi() { socket->invalidate_direct_mem_ptr(0, ~0ULL); }

void Memory::clear() {
  invalidate_dmi();
  store_.clear();
}

void Memory::load_image(const std::string& path, std::uint64_t offset) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  // A directory opens as a stream on Linux and reports a bogus size: treat it as unreadable.
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) throw std::runtime_error("cannot read image file '" + path + "'");
  const std::uint64_t len = static_cast<std::uint64_t>(in.tellg());
  if (!store_.contains(offset, len)) {
    throw std::runtime_error("image file '" + path + "' (" + std::to_string(len) + " bytes) does not fit in " + name() +
                             " at offset " + format_hex(offset));
  }
  in.seekg(0);
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min<std::uint64_t>(len, 1 << 20)));
  std::uint64_t done = 0;
  while (done < len) {
    std::uint64_t chunk = std::min<std::uint64_t>(buf.size(), len - done);
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(chunk));
    if (!in) throw std::runtime_error("error reading image file '" + path + "'");
    store_.write(offset + done, buf.data(), chunk);
    done += chunk;
  }
}

void Memory::dump_image(const std::string& path, std::uint64_t offset, std::uint64_t len) const {
  if (!store_.contains(offset, len)) {
    throw std::runtime_error(std::string("dump range ") + format_hex(offset) + "+" + format_hex(len) + " is outside " +
                             name());
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write dump file '" + path + "'");
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min<std::uint64_t>(len, 1 << 20)));
  std::uint64_t done = 0;
  while (done < len) {
    std::uint64_t chunk = std::min<std::uint64_t>(buf.size(), len - done);
    store_.read(offset + done, buf.data(), chunk);
    out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(chunk));
    done += chunk;
  }
  if (!out) throw std::runtime_error("error writing dump file '" + path + "'");
}

}  // namespace gpuvp::core
