// Memory: a sparse backing store behind a TLM target socket. Pages are allocated on first write (or when DMI is
// granted), unwritten memory reads as zero, so a large physical space costs only what is touched.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/core/stats.h"
#include "tlm/core/timing.h"

namespace gpuvp::core {

// The store itself, usable without SystemC (loaders, tests, dumps).
class SparseStore {
 public:
  SparseStore(std::uint64_t size, std::uint64_t page_size);

  std::uint64_t size() const { return size_; }
  std::uint64_t page_size() const { return page_size_; }
  std::uint64_t pages_allocated() const { return pages_allocated_; }
  // Reads and writes inside [0, size); callers check bounds (contains()).
  bool contains(std::uint64_t offset, std::uint64_t len) const { return len <= size_ && offset <= size_ - len; }
  void read(std::uint64_t offset, unsigned char* out, std::uint64_t len) const;
  void write(std::uint64_t offset, const unsigned char* in, std::uint64_t len);
  void fill(std::uint64_t offset, unsigned char byte, std::uint64_t len);
  // The page holding offset, allocated if needed (for DMI).
  unsigned char* page_for(std::uint64_t offset);
  std::uint64_t page_base(std::uint64_t offset) const { return offset & ~(page_size_ - 1); }

 private:
  std::uint64_t size_;
  std::uint64_t page_size_;
  unsigned page_shift_;
  std::uint64_t pages_allocated_ = 0;
  std::vector<std::unique_ptr<unsigned char[]>> pages_;
};

struct MemoryParams {
  std::uint64_t size = 2ULL << 30;
  std::uint64_t page_size = 64 * 1024;
  std::uint64_t clock_hz = 1'000'000'000;
  std::uint32_t read_latency_cycles = 60;
  std::uint32_t write_latency_cycles = 40;
  std::uint32_t bytes_per_cycle = 32;  // sustained bandwidth of the device
  bool dmi = true;
};

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  Memory(sc_core::sc_module_name name, const MemoryParams& params);

  SparseStore& store() { return store_; }
  const MemoryParams& params() const { return params_; }

  // Host-side helpers (not timed): copy a file into memory at offset, or a range of memory into a file. They throw
  // std::runtime_error naming the file and range on failure.
  void load_image(const std::string& path, std::uint64_t offset);
  void dump_image(const std::string& path, std::uint64_t offset, std::uint64_t len) const;

  // Drops every DMI pointer handed out (e.g. before the memory is reorganised).
  void invalidate_dmi();

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Checks range, command and streaming; on success copies the data and returns true.
  bool access(tlm::tlm_generic_payload& trans);

  MemoryParams params_;
  SparseStore store_;
  ClockDomain clock_;
  Counter& reads_;
  Counter& writes_;
  Counter& bytes_read_;
  Counter& bytes_written_;
  Counter& dmi_grants_;
  Counter& errors_;
  BusyTime& busy_;
};

}  // namespace gpuvp::core
