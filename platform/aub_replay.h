// AubReplay: replays an AUB file (platform/aub_reader.h) into the platform, the file-based sibling of the TBX server:
// register writes are host accesses to the Gen GTTMMADR BAR (ELSP submission included), GGTT entry writes go to its
// entry window, memory writes to physical memory (or through the GGTT or the trace's PPGTT); polls let the model run
// until their condition holds or the GPU is idle; compares check memory and registers. When the trace is consumed the
// model runs until no engine is busy, then the run ends. docs/gen-aub.md describes the rules.
//
// Simulated time moves only through the replay (timed host accesses and the waits of polls), so the same file gives
// the same statistics run after run.
//
// In-process traces (the fuzz harness, tests): a replay built without a file waits for start(), which hands it a trace
// in memory; each trace ends without sc_stop (the model still runs until the GPU is idle), and the replay waits for
// the next.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "hw/gen/engines.h"
#include "platform/aub_reader.h"
#include "platform/platform.h"
#include "tlm/core/stats_group.h"

namespace gpuvp::platform {

// --aub-dump [phys:|ggtt:]ADDRESS:SIZE:FILE: memory to write to FILE after the run. Without a prefix ADDRESS is a GPU
// virtual address in the PPGTT of the last context the trace submitted (what NEO's "ppgtt: ..." comments and kernel
// arguments name).
struct AubDump {
  enum class Space { kPpgtt, kGgtt, kPhysical };
  Space space = Space::kPpgtt;
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::string file;
  std::string spec;  // as given, for messages
};
// Parses one --aub-dump value; throws std::runtime_error with a one-line reason.
AubDump parse_aub_dump(const std::string& spec);

// Facts about a file checked whole before the run (so a malformed file stops the run before it starts).
struct AubSummary {
  std::uint64_t records = 0;
  std::uint32_t device = 0;  // of the version record; 0 = none
};
// Reads every record of `path`; throws std::runtime_error (aub::AubError) naming the offset and the problem.
AubSummary check_aub_file(const std::string& path);

class AubReplay : public sc_core::sc_module {
 public:
  // Opens path (throws std::runtime_error when it cannot). An empty path: in-process traces only (start).
  AubReplay(sc_core::sc_module_name name, Platform& platform, const std::string& path);

  // In-process, when no trace is being replayed: replays `trace` (AUB bytes, not checked beforehand: a malformed record
  // fails the trace where it is, as a file that went bad during the replay); `label` names it in messages. The outcome
  // (finished, failure) and the trace's ELSP history start afresh; statistics go on counting.
  void start(const std::string& trace, const std::string& label);
  // In-process: a trace is being replayed (or the GPU runs on after it).
  bool replaying() const { return reader_ != nullptr; }

  bool finished() const { return finished_; }
  // The file became unreadable or malformed during the replay (it was checked before): a host-input error.
  bool failed() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }
  std::uint64_t records() const { return records_.value; }
  // "711 records (1 register poll not satisfied when the GPU went idle)".
  std::string count() const;

  // After the run: writes each dump's memory to its file. Returns an empty string, or a one-line error.
  std::string write_dump(const AubDump& dump);
  // Binary dump records (NEO AUBDumpBufferFormat=BIN) write their memory to DIR/aub-dump-N-ADDRESS.bin, N counting
  // from 1 in trace order; without a directory they are only counted.
  void set_dump_directory(const std::string& directory) { dump_directory_ = directory; }

 private:
  void run();
  // Replays the open trace to its end, then lets the GPU go idle.
  void replay_trace();
  void replay(const aub::Record& r);
  void register_write(const aub::Record& r);
  void register_poll(const aub::Record& r);
  void register_compare(const aub::Record& r);
  void memory_write(const aub::Record& r);
  void memory_poll(const aub::Record& r);
  void memory_compare(const aub::Record& r);
  void binary_dump(const aub::Record& r);
  void skip(const aub::Record& r, const std::string& why);
  // Writes size bytes of an address space to file; an empty string or a one-line reason (`unmapped` says whether the
  // reason is the guest's: memory that does not translate).
  std::string dump_memory(std::uint32_t space, std::uint64_t address, std::uint64_t size, const std::string& file,
                          bool& unmapped);

  // Runs the model in host.poll_interval_ns steps until done() returns true or no engine is busy (after at least one
  // step, so that work just submitted starts), at most host.gpu_wait_limit_ns (a guest warning naming `what`).
  // Returns done()'s last answer.
  template <typename Done>
  bool wait_until(Done done, const char* what);
  bool gpu_busy() const;
  bool in_dram(std::uint64_t address, std::uint64_t size) const;

  // Physical address of a byte in a record's address space, or nullopt with the reason in `why`.
  std::optional<std::uint64_t> resolve(std::uint32_t space, std::uint64_t address, std::string& why);
  std::optional<std::uint64_t> ggtt_to_physical(std::uint64_t address, std::string& why);
  std::optional<std::uint64_t> ppgtt_to_physical(std::uint64_t address, std::string& why);
  // Reads or writes `size` bytes of a record's address space, page by page (no timing: backdoor).
  bool access_memory(std::uint32_t space, std::uint64_t address, std::uint8_t* data, std::uint64_t size, bool write,
                     std::string& why);
  std::string record_name(const aub::Record& r) const;

  Platform& platform_;
  std::unique_ptr<std::istream> in_;  // the file, or an in-process trace
  std::unique_ptr<aub::AubReader> reader_;
  bool in_process_ = false;
  sc_core::sc_event started_;
  bool finished_ = false;
  std::string failure_;
  // The ELSP writes of each engine (NEO writes element 1 high, element 1 low, element 0 high, element 0 low).
  struct ElspPort {
    std::uint32_t writes[4] = {};
    unsigned index = 0;
  };
  ElspPort elsp_[gen::kEngineCount];
  std::uint64_t last_descriptor_ = 0;  // the last context submitted (element 0); 0 = none yet
  core::Picoseconds poll_interval_;
  core::Picoseconds wait_limit_;  // host.gpu_wait_limit_ns
  std::string dump_directory_;

  core::StatsGroup stats_;
  core::Counter& records_;
  core::Counter& register_writes_;
  core::Counter& ggtt_entry_writes_;
  core::Counter& memory_writes_;
  core::Counter& bytes_written_;
  core::Counter& comments_;
  core::Counter& polls_;
  core::Counter& polls_unsatisfied_;
  core::Counter& compares_;
  core::Counter& compares_failed_;
  core::Counter& skipped_;
  core::Counter& dumps_;
  core::Counter& wait_ps_;
  core::Counter& waits_cut_;
};

}  // namespace gpuvp::platform
