#include "platform/aub_replay.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "hw/gen/context_image_layout.h"
#include "hw/gen/engines.h"
#include "hw/gen/execlist_regs.h"
#include "hw/gen/gtt_regs.h"
#include "platform/stop_signal.h"
#include "tlm/core/format_hex.h"
#include "tlm/core/report.h"

namespace gpuvp::platform {

namespace {

constexpr std::uint64_t kPage = 4096;
// Memory moves in chunks of this size: a dump of gigabytes never needs a buffer of its size.
constexpr std::uint64_t kChunkBytes = 64 * 1024;

std::string hex(std::uint64_t v) { return core::format_hex(v); }

std::uint64_t parse_number(const std::string& text, const std::string& spec, const char* what) {
  std::size_t used = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || text[0] == '-') {
    throw std::runtime_error("--aub-dump '" + spec + "': " + what + " '" + text + "' is not a number");
  }
  return v;
}

// Device values of the version record for Gen8 and Gen9 parts (aub_services.h DeviceValues: Bdw 11, Skl 12, Chv 13,
// Bxt 14, Kbl 16, Glk 17, Cfl 24).
bool gen8_or_gen9_device(std::uint32_t device) {
  switch (device) {
    case 11:
    case 12:
    case 13:
    case 14:
    case 16:
    case 17:
    case 24:
      return true;
    default:
      return false;
  }
}

// Physical address bits of a page-table entry: 12 up to the model's physical address width.
std::uint64_t entry_address(std::uint64_t entry, std::uint32_t physical_address_bits) {
  const std::uint64_t top = physical_address_bits >= 64 ? ~0ULL : (1ULL << physical_address_bits) - 1;
  return entry & top & ~(kPage - 1);
}

}  // namespace

AubDump parse_aub_dump(const std::string& spec) {
  AubDump d;
  d.spec = spec;
  std::string rest = spec;
  if (rest.rfind("phys:", 0) == 0) {
    d.space = AubDump::Space::kPhysical;
    rest = rest.substr(5);
  } else if (rest.rfind("ggtt:", 0) == 0) {
    d.space = AubDump::Space::kGgtt;
    rest = rest.substr(5);
  }
  const std::size_t first = rest.find(':');
  const std::size_t second = first == std::string::npos ? std::string::npos : rest.find(':', first + 1);
  if (second == std::string::npos || second + 1 >= rest.size()) {
    throw std::runtime_error("--aub-dump '" + spec + "': expected [phys:|ggtt:]ADDRESS:SIZE:FILE");
  }
  d.address = parse_number(rest.substr(0, first), spec, "address");
  d.size = parse_number(rest.substr(first + 1, second - first - 1), spec, "size");
  d.file = rest.substr(second + 1);
  if (d.size == 0) throw std::runtime_error("--aub-dump '" + spec + "': the size is 0");
  if (d.address + d.size < d.address) throw std::runtime_error("--aub-dump '" + spec + "': the range wraps around");
  return d;
}

AubSummary check_aub_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open AUB file '" + path + "'");
  aub::AubReader reader(in, "AUB file '" + path + "'");
  AubSummary s;
  aub::Record r;
  while (reader.next(r)) {
    if (r.kind == aub::Record::Kind::kVersion && s.device == 0) s.device = r.device;
  }
  if (in.bad()) throw std::runtime_error("AUB file '" + path + "': read error");
  s.records = reader.records();
  if (s.records == 0) throw std::runtime_error("AUB file '" + path + "' is empty");
  return s;
}

AubReplay::AubReplay(sc_core::sc_module_name name, Platform& platform, const std::string& path)
    : sc_module(name),
      platform_(platform),
      in_process_(path.empty()),
      poll_interval_(platform.params().host.poll_interval_ns * core::kPsPerNs),
      wait_limit_(platform.params().host.gpu_wait_limit_ns * core::kPsPerNs),
      stats_(this->name()),
      records_(stats_.counter("records", "records", "AUB records replayed")),
      register_writes_(stats_.counter("register_writes", "records", "register writes (MMIO of the Gen BAR)")),
      ggtt_entry_writes_(stats_.counter("ggtt_entry_writes", "entries", "GGTT entries written")),
      memory_writes_(stats_.counter("memory_writes", "records", "memory write records other than GGTT entries")),
      bytes_written_(stats_.counter("bytes_written", "bytes", "bytes written to memory by memory write records")),
      comments_(stats_.counter("comments", "records", "comment records")),
      polls_(stats_.counter("polls", "records", "register and memory polls")),
      polls_unsatisfied_(
          stats_.counter("polls_unsatisfied", "records", "polls whose condition did not hold when the GPU went idle")),
      compares_(stats_.counter("compares", "records", "register and memory compares")),
      compares_failed_(stats_.counter("compares_failed", "records", "compares that found other values")),
      skipped_(stats_.counter("skipped", "records", "records replay does not act on (reported)")),
      dumps_(stats_.counter("dumps", "records", "binary dump records (written with --aub-dump-dir)")),
      wait_ps_(stats_.counter("wait_ps", "ps", "simulated time spent in polls and waiting for the GPU at the end")),
      waits_cut_(
          stats_.counter("waits_cut", "records",
                         "polls and the wait at the trace's end cut at host.gpu_wait_limit_ns, the GPU still busy")) {
  if (!in_process_) {
    in_ = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*in_) throw std::runtime_error("cannot open AUB file '" + path + "'");
    reader_ = std::make_unique<aub::AubReader>(*in_, "AUB file '" + path + "'");
  }
  SC_HAS_PROCESS(AubReplay);
  SC_THREAD(run);
}

void AubReplay::start(const std::string& trace, const std::string& label) {
  if (!in_process_ || reader_) throw std::logic_error("AubReplay::start: not in-process, or a trace is being replayed");
  in_ = std::make_unique<std::istringstream>(trace);
  reader_ = std::make_unique<aub::AubReader>(*in_, label);
  finished_ = false;
  failure_.clear();
  for (auto& port : elsp_) port = ElspPort{};
  last_descriptor_ = 0;
  started_.notify(sc_core::SC_ZERO_TIME);
}

std::string AubReplay::count() const {
  std::string s = std::to_string(records_.value) + (records_.value == 1 ? " record" : " records");
  if (polls_unsatisfied_.value != 0) {
    s += ", " + std::to_string(polls_unsatisfied_.value) + " poll" + (polls_unsatisfied_.value == 1 ? "" : "s") +
         " not satisfied when the GPU went idle";
  }
  if (compares_failed_.value != 0) s += ", " + std::to_string(compares_failed_.value) + " compares failed";
  if (waits_cut_.value != 0) {
    s += ", " + std::to_string(waits_cut_.value) + " wait" + (waits_cut_.value == 1 ? "" : "s") +
         " cut at host.gpu_wait_limit_ns";
  }
  return s;
}

void AubReplay::run() {
  if (!in_process_) {
    replay_trace();
    sc_core::sc_stop();
    return;
  }
  for (;;) {
    while (!reader_) sc_core::wait(started_);
    replay_trace();
    reader_.reset();
    in_.reset();
  }
}

void AubReplay::replay_trace() {
  aub::Record r;
  try {
    while (stop_signal() == 0 && failure_.empty() && reader_->next(r)) {
      ++records_;
      replay(r);
    }
  } catch (const aub::AubError& e) {
    failure_ = e.what();
  }
  // The trace is consumed: the model runs until no engine is busy (work a final ELSP write started included).
  if (failure_.empty() && stop_signal() == 0) wait_until([] { return false; }, "the end of the trace");
  finished_ = true;
}

std::string AubReplay::record_name(const aub::Record& r) const {
  return aub::sub_opcode_name(r.opcode, r.sub_opcode) + " at offset " + hex(r.offset);
}

void AubReplay::skip(const aub::Record& r, const std::string& why) {
  ++skipped_;
  core::report_guest_warning(name(), record_name(r) + ": " + why);
}

void AubReplay::replay(const aub::Record& r) {
  using Kind = aub::Record::Kind;
  switch (r.kind) {
    case Kind::kVersion:
      if (!gen8_or_gen9_device(r.device)) {
        core::report_guest_warning(name(), "the trace was recorded for AUB device " + std::to_string(r.device) +
                                               ", not a Gen8 or Gen9 part; replaying it anyway");
      }
      return;
    case Kind::kComment:
      ++comments_;
      return;
    case Kind::kRegisterWrite:
      register_write(r);
      return;
    case Kind::kRegisterPoll:
      register_poll(r);
      return;
    case Kind::kRegisterCompare:
      register_compare(r);
      return;
    case Kind::kMemoryWrite:
      memory_write(r);
      return;
    case Kind::kMemoryPoll:
      memory_poll(r);
      return;
    case Kind::kMemoryCompare:
      memory_compare(r);
      return;
    case Kind::kContextCreate:
      // The model takes a context's page-table root from its context image (PDP0 in the LRC), as hardware does.
      return;
    case Kind::kBinaryDump:
      binary_dump(r);
      return;
    case Kind::kOther:
      skip(r, "not replayed (" + std::to_string(r.length) + " bytes skipped)");
      return;
  }
}

bool AubReplay::gpu_busy() const {
  const gen::GenGpu* gpu = platform_.gen();
  return gpu && gpu->busy();
}

template <typename Done>
bool AubReplay::wait_until(Done done, const char* what) {
  platform_.host().sync();
  const core::Picoseconds step = poll_interval_ ? poll_interval_ : core::kPsPerNs;
  for (core::Picoseconds waited = 0;;) {
    sc_core::wait(core::to_sc_time(step));
    wait_ps_ += step;
    waited += step;
    if (done()) return true;
    if (!gpu_busy() || stop_signal() != 0) return done();
    // An engine waiting on a semaphore nobody signals stays busy for ever: the wait ends at the limit.
    if (wait_limit_ != 0 && waited >= wait_limit_) {
      ++waits_cut_;
      core::report_guest_warning(name(), std::string(what) + ": the GPU is still busy after " +
                                             std::to_string(waited / core::kPsPerUs) +
                                             " us (host.gpu_wait_limit_ns); the replay goes on");
      return false;
    }
  }
}

bool AubReplay::in_dram(std::uint64_t address, std::uint64_t size) const {
  return size == 0 || platform_.memory_map().find(address, size) != nullptr;
}

void AubReplay::register_write(const aub::Record& r) {
  ++register_writes_;
  const std::string access = "register write of " + hex(r.value) + " to " + hex(r.register_offset);
  if (!platform_.gen()) {
    core::report_guest_error(name(), access + ": this platform has no Gen GPU (gen.enabled is false)");
    return;
  }
  if (r.register_space != aub::kRegisterSpaceMmio ||
      std::uint64_t{r.register_offset} + r.access_size > gen::kGgttPteWindowOffset) {
    core::report_guest_error(
        name(), access + (r.register_space != aub::kRegisterSpaceMmio
                              ? " in register space " + std::to_string(r.register_space) + ": only MMIO is modelled"
                              : ": not a register of the GTTMMADR BAR"));
    return;
  }
  core::Initiator& host = platform_.host();
  const std::uint64_t address = platform_.params().gen.base + r.register_offset;
  const std::uint64_t size_mask = r.access_size == 8 ? ~0ULL : (1ULL << (8 * r.access_size)) - 1;
  std::uint64_t value = r.value;
  if ((r.mask & size_mask) != size_mask) {
    // A partial write mask: the bits outside it keep their value.
    std::uint64_t old = 0;
    host.read(address, &old, r.access_size);
    value = (old & ~r.mask) | (r.value & r.mask);
  }
  const auto status = host.write(address, &value, r.access_size);
  host.sync();
  if (status != tlm::TLM_OK_RESPONSE) core::report_guest_error(name(), access + ": bus error");
  // Remember the context NEO submits: its PPGTT is where --aub-dump finds GPU virtual addresses.
  for (int e = 0; e < gen::kEngineCount; ++e) {
    if (r.register_offset != gen::kEngines[e].mmio_base + gen::ExeclistRegs::kElsp) continue;
    auto& port = elsp_[e];
    port.writes[port.index] = static_cast<std::uint32_t>(r.value);
    port.index = (port.index + 1) % 4;
    if (port.index == 0) {
      // Element 0 is the last two writes: high dword, then low (GVT elsp_mmio_write, data[3 - index]).
      const std::uint64_t element0 = std::uint64_t{port.writes[2]} << 32 | port.writes[3];
      if (gen::ContextDescriptor{element0}.valid()) last_descriptor_ = element0;
    }
  }
}

void AubReplay::register_poll(const aub::Record& r) {
  ++polls_;
  if (!platform_.gen() || r.register_space != aub::kRegisterSpaceMmio ||
      std::uint64_t{r.register_offset} + r.access_size > gen::kGgttPteWindowOffset) {
    skip(r, "not a register of the GTTMMADR BAR (register space " + std::to_string(r.register_space) + ")");
    return;
  }
  core::Initiator& host = platform_.host();
  const std::uint64_t address = platform_.params().gen.base + r.register_offset;
  std::uint64_t value = 0;
  // The condition is checked with backdoor reads: a poll adds no bus traffic to the statistics (NEO's polls of a live
  // TBX session are backdoor memory reads too), only the simulated time it waits.
  const std::string poll = record_name(r);
  const std::uint64_t cut = waits_cut_.value;  // a poll cut at the limit is counted there, not as unsatisfied
  const bool held = wait_until(
      [&] {
        value = 0;
        host.debug_read(address, &value, r.access_size);
        return ((value & r.mask) == (r.value & r.mask)) != r.not_equal;
      },
      poll.c_str());
  // A poll still unsatisfied once the GPU is idle would wait for ever on hardware: counted and shown in the summary.
  // (NEO's completion poll, EXECLIST_STATUS & 0x100 from aub_command_stream_receiver_hw_base.inl
  // pollForCompletionImpl, waits for the last switch's active-to-idle reason, which the model sets.)
  if (!held && waits_cut_.value == cut) ++polls_unsatisfied_;
}

void AubReplay::register_compare(const aub::Record& r) {
  ++compares_;
  if (!platform_.gen() || r.register_space != aub::kRegisterSpaceMmio ||
      std::uint64_t{r.register_offset} + r.access_size > gen::kGgttPteWindowOffset) {
    skip(r, "not a register of the GTTMMADR BAR (register space " + std::to_string(r.register_space) + ")");
    return;
  }
  core::Initiator& host = platform_.host();
  const std::uint64_t size_mask = r.access_size == 8 ? ~0ULL : (1ULL << (8 * r.access_size)) - 1;
  std::uint64_t value = 0;
  host.read(platform_.params().gen.base + r.register_offset, &value, r.access_size);
  host.sync();
  if (r.no_read_expect) return;
  const std::uint64_t mask = r.mask & size_mask;
  if ((value & mask) != (r.value & mask)) {
    ++compares_failed_;
    core::report_guest_error(name(), record_name(r) + ": register " + hex(r.register_offset) + " reads " +
                                         hex(value & mask) + ", the trace expects " + hex(r.value & mask));
  }
}

std::optional<std::uint64_t> AubReplay::ggtt_to_physical(std::uint64_t address, std::string& why) {
  const auto& gen = platform_.params().gen;
  if (!platform_.gen()) {
    why = "this platform has no Gen GPU";
    return std::nullopt;
  }
  if (address >= gen.gpu.gtt.ggtt_size) {
    why = "GGTT address " + hex(address) + " is beyond gen.gtt.ggtt_size";
    return std::nullopt;
  }
  std::uint64_t pte = 0;
  const std::uint64_t at = gen.base + gen::kGgttPteWindowOffset + address / kPage * gen::kGgttPteBytes;
  if (platform_.host().debug_read(at, &pte, 8) != 8 || (pte & gen::kPtePresent) == 0) {
    why = "GGTT address " + hex(address) + " is not mapped";
    return std::nullopt;
  }
  return entry_address(pte, gen.gpu.gtt.physical_address_bits) + address % kPage;
}

std::optional<std::uint64_t> AubReplay::ppgtt_to_physical(std::uint64_t address, std::string& why) {
  const gen::ContextDescriptor descriptor{last_descriptor_};
  if (!descriptor.valid()) {
    why = "the trace submitted no context, so it has no PPGTT";
    return std::nullopt;
  }
  if (descriptor.addressing_mode() != 3) {
    why = "the trace's context uses the legacy 32-bit PPGTT, which --aub-dump does not walk";
    return std::nullopt;
  }
  // The context's PML4 is PDP0 of its register-state page (hw/gen/context_image_layout.h; NEO
  // aub_mem_dump.inl fixupLRC writes it there).
  const auto state = ggtt_to_physical(descriptor.lrca() + gen::lrc::kStatePageOffset, why);
  if (!state) return std::nullopt;
  core::Initiator& host = platform_.host();
  std::uint32_t pdp0_high = 0;
  std::uint32_t pdp0_low = 0;
  host.debug_read(*state + gen::lrc::value(gen::lrc::kPdp0Ldw - 2) * 4, &pdp0_high, 4);
  host.debug_read(*state + gen::lrc::value(gen::lrc::kPdp0Ldw) * 4, &pdp0_low, 4);
  const std::uint32_t bits = platform_.params().gen.gpu.gtt.physical_address_bits;
  std::uint64_t table = entry_address(std::uint64_t{pdp0_high} << 32 | pdp0_low, bits);
  if (address >> 48 != 0 && address >> 47 != 0x1FFFF) {
    why = "GPU address " + hex(address) + " is not a canonical 48-bit address";
    return std::nullopt;
  }
  static const char* const kLevels[] = {"PML4E", "PDPE", "PDE", "PTE"};
  for (int level = 0; level < 4; ++level) {
    const unsigned shift = 39 - 9 * level;
    std::uint64_t entry = 0;
    if (host.debug_read(table + (address >> shift & 511) * 8, &entry, 8) != 8 || (entry & gen::kPtePresent) == 0) {
      why = "GPU address " + hex(address) + " is not mapped in the trace's PPGTT (" + kLevels[level] + " at " +
            hex(table + (address >> shift & 511) * 8) + " not present)";
      return std::nullopt;
    }
    if (level == 2 && (entry & gen::kPdePageSize) != 0) {
      return (entry_address(entry, bits) & ~((1ULL << 21) - 1)) + (address & ((1ULL << 21) - 1));
    }
    table = entry_address(entry, bits);
  }
  return table + address % kPage;
}

std::optional<std::uint64_t> AubReplay::resolve(std::uint32_t space, std::uint64_t address, std::string& why) {
  switch (static_cast<aub::AddressSpace>(space)) {
    case aub::AddressSpace::kPhysical:
    case aub::AddressSpace::kGttPdEntry:
    case aub::AddressSpace::kPpgttEntry:
    case aub::AddressSpace::kPhysicalPdpEntry:
    case aub::AddressSpace::kPpgttPdEntry:
    case aub::AddressSpace::kPml4Entry:
      // NEO records in physical mode (version record: recording method 1): page-table entries at their physical
      // addresses (aub_mem_dump.inl reserveAddressPPGTT), data at the pages' physical addresses.
      return address;
    case aub::AddressSpace::kGttGfx:
    case aub::AddressSpace::kNonapertureGttGfx:
      return ggtt_to_physical(address, why);
    case aub::AddressSpace::kPpgttGfx:
      return ppgtt_to_physical(address, why);
    default:
      why = aub::address_space_name(space) + " is not modelled";
      return std::nullopt;
  }
}

bool AubReplay::access_memory(std::uint32_t space, std::uint64_t address, std::uint8_t* data, std::uint64_t size,
                              bool write, std::string& why) {
  core::Initiator& host = platform_.host();
  const bool physical = space == static_cast<std::uint32_t>(aub::AddressSpace::kPhysical) ||
                        (space != static_cast<std::uint32_t>(aub::AddressSpace::kGttGfx) &&
                         space != static_cast<std::uint32_t>(aub::AddressSpace::kNonapertureGttGfx) &&
                         space != static_cast<std::uint32_t>(aub::AddressSpace::kPpgttGfx));
  for (std::uint64_t done = 0; done < size;) {
    // Physical ranges are contiguous; translated ones go a page at a time.
    const std::uint64_t at = address + done;
    const std::uint64_t n = physical ? std::min(size - done, kChunkBytes) : std::min(size - done, kPage - at % kPage);
    const auto pa = resolve(space, at, why);
    if (!pa) return false;
    if (!in_dram(*pa, n)) {
      why = "physical address " + hex(*pa) + " is outside DRAM";
      return false;
    }
    const auto len = static_cast<unsigned>(n);
    const unsigned moved = write ? host.debug_write(*pa, data + done, len) : host.debug_read(*pa, data + done, len);
    if (moved != len) {
      why = "bus error at physical address " + hex(*pa);
      return false;
    }
    done += n;
  }
  return true;
}

void AubReplay::memory_write(const aub::Record& r) {
  const std::string access = record_name(r) + ": " + hex(r.data.size()) + " bytes at " + hex(r.address) + " (" +
                             aub::address_space_name(r.address_space) + ")";
  if (r.address_space == static_cast<std::uint32_t>(aub::AddressSpace::kGttEntry)) {
    // Address: byte offset into the GGTT entry table (aub_mem_dump.inl reserveAddress: page index * 8).
    const auto& gen = platform_.params().gen;
    if (!platform_.gen()) {
      core::report_guest_error(name(), access + ": this platform has no Gen GPU; dropped");
      return;
    }
    const std::uint64_t table_bytes = gen.gpu.gtt.ggtt_size / kPage * gen::kGgttPteBytes;
    if (r.address % 8 != 0 || r.data.size() % 8 != 0 || r.address > table_bytes ||
        r.data.size() > table_bytes - r.address) {
      core::report_guest_error(name(), access + ": not whole entries of the GGTT (gen.gtt.ggtt_size " +
                                           hex(gen.gpu.gtt.ggtt_size) + "); dropped");
      return;
    }
    core::Initiator& host = platform_.host();
    for (std::size_t i = 0; i < r.data.size(); i += 8) {
      // A timed host write of the entry window, as the TBX server's GTT requests.
      const auto status = host.write(gen.base + gen::kGgttPteWindowOffset + r.address + i, r.data.data() + i, 8);
      if (status != tlm::TLM_OK_RESPONSE) core::report_guest_error(name(), access + ": bus error");
      ++ggtt_entry_writes_;
    }
    host.sync();
    return;
  }
  ++memory_writes_;
  std::string why;
  std::vector<std::uint8_t> data = r.data;
  if (!access_memory(r.address_space, r.address, data.data(), data.size(), true, why)) {
    core::report_guest_error(name(), access + ": " + why + "; dropped");
    return;
  }
  bytes_written_ += data.size();
}

void AubReplay::memory_poll(const aub::Record& r) {
  ++polls_;
  std::string why;
  std::uint64_t value = 0;
  bool readable = true;
  const std::string poll = record_name(r);
  const std::uint64_t cut = waits_cut_.value;  // a poll cut at the limit is counted there, not as unsatisfied
  const bool held = wait_until(
      [&] {
        value = 0;
        readable = access_memory(r.address_space, r.address, reinterpret_cast<std::uint8_t*>(&value), r.access_size,
                                 false, why);
        return readable && ((value & r.mask) == (r.value & r.mask)) != r.not_equal;
      },
      poll.c_str());
  if (!readable) {
    core::report_guest_error(name(), record_name(r) + ": " + why);
  } else if (!held && waits_cut_.value == cut) {
    ++polls_unsatisfied_;
  }
}

void AubReplay::memory_compare(const aub::Record& r) {
  ++compares_;
  platform_.host().sync();
  std::vector<std::uint8_t> found(r.data.size());
  std::string why;
  if (!access_memory(r.address_space, r.address, found.data(), found.size(), false, why)) {
    core::report_guest_error(name(), record_name(r) + ": " + why);
    return;
  }
  if (r.no_read_expect) return;
  const auto mismatch = std::mismatch(found.begin(), found.end(), r.data.begin());
  const bool equal = mismatch.first == found.end();
  if (equal == !r.not_equal) return;
  ++compares_failed_;
  if (r.not_equal) {
    core::report_guest_error(name(), record_name(r) + ": " + hex(r.data.size()) + " bytes at " + hex(r.address) +
                                         " hold the values the trace expects to differ");
    return;
  }
  std::size_t differing = 0;
  for (std::size_t i = 0; i < found.size(); ++i) differing += found[i] != r.data[i] ? 1 : 0;
  const auto first = static_cast<std::uint64_t>(mismatch.first - found.begin());
  core::report_guest_error(name(), record_name(r) + ": " + std::to_string(differing) + " of " +
                                       std::to_string(r.data.size()) + " bytes at " + hex(r.address) + " (" +
                                       aub::address_space_name(r.address_space) + ") differ, the first at +" +
                                       hex(first) + ": " + hex(*mismatch.first) + ", expected " +
                                       hex(*mismatch.second));
}

std::string AubReplay::dump_memory(std::uint32_t space, std::uint64_t address, std::uint64_t size,
                                   const std::string& file, bool& unmapped) {
  unmapped = false;
  std::ofstream out(file, std::ios::binary);
  if (!out) return "cannot write '" + file + "'";
  std::vector<std::uint8_t> chunk(static_cast<std::size_t>(std::min(size, kChunkBytes)));
  for (std::uint64_t done = 0; done < size;) {
    const std::uint64_t n = std::min(size - done, kChunkBytes);
    std::string why;
    if (!access_memory(space, address + done, chunk.data(), n, false, why)) {
      unmapped = true;
      return why;
    }
    if (!out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(n))) {
      return "cannot write '" + file + "'";
    }
    done += n;
  }
  out.flush();
  if (!out) return "cannot write '" + file + "'";
  return {};
}

std::string AubReplay::write_dump(const AubDump& dump) {
  const std::uint32_t space =
      dump.space == AubDump::Space::kPhysical ? static_cast<std::uint32_t>(aub::AddressSpace::kPhysical)
      : dump.space == AubDump::Space::kGgtt   ? static_cast<std::uint32_t>(aub::AddressSpace::kGttGfx)
                                              : static_cast<std::uint32_t>(aub::AddressSpace::kPpgttGfx);
  bool unmapped = false;
  const std::string error = dump_memory(space, dump.address, dump.size, dump.file, unmapped);
  return error.empty() ? error : "--aub-dump '" + dump.spec + "': " + error;
}

void AubReplay::binary_dump(const aub::Record& r) {
  ++dumps_;
  if (dump_directory_.empty()) return;
  // A buffer is one row (NEO: height 1, pitch = width); an image's rows are pitch apart.
  const std::uint64_t rows = r.dump_height;
  const std::uint64_t size = rows == 0 ? 0 : (rows - 1) * r.dump_pitch + r.dump_width;
  constexpr std::uint64_t kMaxDump = 4ULL << 30;
  if (rows != 0 && (r.dump_pitch > kMaxDump || rows > kMaxDump || size > kMaxDump || r.dump_width > r.dump_pitch)) {
    core::report_guest_error(name(), record_name(r) + ": width " + hex(r.dump_width) + ", height " + hex(rows) +
                                         ", pitch " + hex(r.dump_pitch) + ": not a dump of at most 4 GiB; ignored");
    return;
  }
  platform_.host().sync();
  const std::string file =
      dump_directory_ + "/aub-dump-" + std::to_string(dumps_.value) + "-" + hex(r.address) + ".bin";
  bool unmapped = false;
  // Rows are contiguous for a buffer; the rare image dump with a larger pitch keeps the gaps (the file is pitch x
  // rows).
  const std::string error = dump_memory(
      static_cast<std::uint32_t>(r.dump_gtt == 1 ? aub::AddressSpace::kPpgttGfx : aub::AddressSpace::kGttGfx),
      r.address, size, file, unmapped);
  if (error.empty()) return;
  if (unmapped) {
    core::report_guest_error(name(), record_name(r) + ": " + error);
  } else if (failure_.empty()) {
    failure_ = "--aub-dump-dir: " + error;
  }
}

}  // namespace gpuvp::platform
