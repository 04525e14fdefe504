// Memory: a sparse backing store behind a TLM target socket. Pages are allocated on first write (or when DMI is
// granted), unwritten memory reads as zero, so a large physical space costs only what is touched.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "tlm/core/stats.h"
#include "tlm/core/stats_group.h"
#include "tlm/core/timed_dmi.h"
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
  // The common case (inside one allocated page) is inline; the rest goes through read_pages()/write_pages().
  void read(std::uint64_t offset, unsigned char* out, std::uint64_t len) const {
    if (const unsigned char* p = in_allocated_page(offset, len)) {
      copy_small(out, p, len);
    } else {
      read_pages(offset, out, len);
    }
  }
  void write(std::uint64_t offset, const unsigned char* in, std::uint64_t len) {
    if (unsigned char* p = in_allocated_page(offset, len)) {
      copy_small(p, in, len);
    } else {
      write_pages(offset, in, len);
    }
  }
  // The bytes at offset when [offset, offset + len) lies inside [0, size) and within one allocated page, else nullptr.
  unsigned char* in_allocated_page(std::uint64_t offset, std::uint64_t len) const {
    const std::uint64_t in_page = offset & (page_size_ - 1);
    // 1 <= len, the access stays inside the page and inside the store (the last page may extend past its end).
    if (len - 1 >= page_size_ - in_page || !contains(offset, len)) return nullptr;
    unsigned char* page = pages_[static_cast<std::size_t>(offset >> page_shift_)].get();
    return page ? page + in_page : nullptr;
  }
  // memcpy with the register-sized lengths inlined (a libc call costs more than the copy).
  static void copy_small(unsigned char* dst, const unsigned char* src, std::uint64_t len) {
    switch (len) {
      case 4:
        std::memcpy(dst, src, 4);
        break;
      case 8:
        std::memcpy(dst, src, 8);
        break;
      case 2:
        std::memcpy(dst, src, 2);
        break;
      case 1:
        *dst = *src;
        break;
      default:
        std::memcpy(dst, src, len);
        break;
    }
  }
  void fill(std::uint64_t offset, unsigned char byte, std::uint64_t len);
  // Frees every page: the whole store reads zero again, as at power-on.
  void clear();
  // The page holding offset, allocated if needed (for DMI).
  unsigned char* page_for(std::uint64_t offset);
  // Whether the page holding offset has backing store (was written).
  bool has_page(std::uint64_t offset) const {
    return offset < size_ && pages_[static_cast<std::size_t>(offset >> page_shift_)] != nullptr;
  }
  std::uint64_t page_base(std::uint64_t offset) const { return offset & ~(page_size_ - 1); }

 private:
  std::uint64_t size_;
  std::uint64_t page_size_;
  unsigned page_shift_;
  std::uint64_t pages_allocated_ = 0;
  void read_pages(std::uint64_t offset, unsigned char* out, std::uint64_t len) const;
  void write_pages(std::uint64_t offset, const unsigned char* in, std::uint64_t len);
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

// Memory implements the forward interface itself behind a plain target socket: one virtual call per access from the
// bus, without a convenience socket's dispatch in between.
class Memory : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<> socket;

  Memory(sc_core::sc_module_name name, const MemoryParams& params);

  SparseStore& store() { return store_; }
  const MemoryParams& params() const { return params_; }

  // Host-side helpers (not timed): copy a file into memory at offset, or a range of memory into a file. They throw
  // std::runtime_error naming the file and range on failure.
  void load_image(const std::string& path, std::uint64_t offset);
  void dump_image(const std::string& path, std::uint64_t offset, std::uint64_t len) const;

  // Drops every DMI pointer handed out (e.g. before the memory is reorganised).
  void invalidate_dmi();
  // Power-on contents: every DMI pointer dropped, then every page freed (reads zero, costs no host memory).
  void clear();

 private:
  // tlm_fw_transport_if.
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  // Every access b_transport's inline path does not take: byte enables, page boundaries, unwritten pages, errors.
  [[gnu::noinline]] void b_transport_general(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override;
  // A non-blocking request completes at once through b_transport (the base protocol allows TLM_COMPLETED in answer
  // to BEGIN_REQ).
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  // Checks range, command and streaming; on success copies the data and returns true.
  bool access(tlm::tlm_generic_payload& trans);
  // Latency, transfer time and statistics of a successful access: b_transport and timed DMI grants share it, inline in
  // both (a call would cost a fifth of a transaction).
  [[gnu::always_inline]] void account(bool write, unsigned len, sc_core::sc_time& delay) {
    const std::uint32_t bytes = len + params_.bytes_per_cycle - 1;
    const Picoseconds transfer =
        period_ps_ * (width_shift_ >= 0 ? bytes >> width_shift_ : bytes / params_.bytes_per_cycle);
    if (write) {
      ++writes_;
      bytes_written_ += len;
    } else {
      ++reads_;
      bytes_read_ += len;
    }
    busy_.add(transfer);
    delay = to_sc_time(to_ps(delay) + (write ? write_latency_ps_ : read_latency_ps_) + transfer);
  }
  // The memory's stage in timed DMI grants.
  class TimingStage : public DmiTimingStage {
   public:
    explicit TimingStage(Memory& memory) : memory_(memory) {}
    void account(bool write, unsigned len, sc_core::sc_time& delay) override { memory_.account(write, len, delay); }

   private:
    Memory& memory_;
  };
  // The byte-enable case of access(), out of line: rare, and a loop per byte.
  void access_with_byte_enables(tlm::tlm_generic_payload& trans);

  StatsGroup stats_;  // first, away from the fields every access touches
  MemoryParams params_;
  SparseStore store_;
  ClockDomain clock_;
  // Transfer cycles of len bytes are ceil(len / bytes_per_cycle): a shift when the width is a power of two, else a
  // division (which costs more than the rest of an access).
  int width_shift_ = -1;
  Counter& reads_;
  Counter& writes_;
  Counter& bytes_read_;
  Counter& bytes_written_;
  Counter& dmi_grants_;
  Counter& errors_;
  BusyTime& busy_;
  Picoseconds period_ps_;
  Picoseconds read_latency_ps_;
  Picoseconds write_latency_ps_;
  TimingStage timing_stage_{*this};
};

}  // namespace gpuvp::core
