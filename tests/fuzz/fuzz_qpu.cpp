// libFuzzer harness: the VideoCore IV QPU interpreter core (tlm/vc4/qpu, SystemC-free): vc4::qpu::Qpu with its VPM
// port and DMA, the TMU's direct lookups and the disassembler. 2-4 QPUs run the input's program over one shared
// environment (semaphores, mutex, VPM, a 4 KiB memory window), one step each per round, at most 500 rounds. Bad
// encodings, setups and addresses must be modelled errors, never a crash; every step is checked against what holds
// for any program (CheckedCore::step) and every instruction run is disassembled.
// With bit 2 of byte 0 the QPUs run fragment shaders (Qpu::start_fragment) through ports that grant the scoreboard in
// QPU order and give bits 5:3 varyings; a tile buffer access outside the scoreboard, a second release or a varying
// past the count is a broken invariant.
// With bit 6 (and not bit 2) they run vertex pipeline shaders (Qpu::start_vertex), each with its own VPM input segment
// (word = row x 16 + column) and output segment: the shared VPM must stay untouched.
// Input: byte 0: the QPUs (bits 1:0: 2, 3, 4, 4), fragment mode (bit 2), varyings (bits 5:3), vertex mode (bit 6);
// byte 1: P, instructions;
// byte 2: U, uniform words; bytes 3-6: QPU i starts at instruction byte[3 + i] % P; bytes 7-10: its uniforms at word
// byte[7 + i]; then P 64-bit instructions (bus address 0x1000) and U 32-bit uniforms (0x8000), little-endian; the rest:
// the memory window (bus address 0).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "hw/vc4/qpu_isa.h"
#include "tlm/vc4/qpu/qpu_core.h"
#include "tlm/vc4/qpu/qpu_disassembler.h"
#include "tlm/vc4/qpu/vpm.h"

namespace {

namespace qpu = gpuvp::vc4::qpu;

constexpr std::uint32_t kCodeAddress = 0x1000;
constexpr std::uint32_t kUniformsAddress = 0x8000;
constexpr std::uint32_t kMemoryBytes = 4096;  // at bus address 0
constexpr std::size_t kHeaderBytes = 11;
constexpr unsigned kMaxCores = 4;
constexpr unsigned kRounds = 500;
constexpr unsigned kSemaphoreMax = 15;
// The largest DMA transfer a QPU asks for at once: a VDW store unit of 128 words.
constexpr std::uint32_t kLargestTransferBytes = 128 * 4;

// Stops the run at a broken invariant: libFuzzer reports the input as a crash.
void check(bool invariant) {
  if (!invariant) __builtin_trap();
}

// What the QPUs share, with the QPU scheduler's semantics (tlm/vc4/qpu_scheduler.cpp): 16 counting semaphores, a
// mutex only its owner releases, the VPM and the memory window; it checks what the cores ask of it.
class SharedEnvironment final : public qpu::QpuEnvironment {
 public:
  SharedEnvironment(std::vector<std::uint64_t> code, std::vector<std::uint32_t> uniforms,
                    std::vector<std::uint8_t> memory, unsigned cores)
      : code_(std::move(code)), uniforms_(std::move(uniforms)), memory_(std::move(memory)), cores_(cores) {
    memory_.resize(kMemoryBytes);
  }

  bool fetch_instruction(std::uint32_t address, std::uint64_t& instruction) override {
    if (address < kCodeAddress || (address - kCodeAddress) % 8 != 0) return false;
    const std::uint32_t index = (address - kCodeAddress) / 8;
    if (index >= code_.size()) return false;
    instruction = code_[index];
    return true;
  }
  bool read_uniform(std::uint32_t address, std::uint32_t& value) override {
    if (address < kUniformsAddress || (address - kUniformsAddress) % 4 != 0) return false;
    const std::uint32_t index = (address - kUniformsAddress) / 4;
    if (index >= uniforms_.size()) return false;
    value = uniforms_[index];
    return true;
  }
  bool semaphore(unsigned number, bool acquire) override {
    check(number < qpu::kSemaphores);
    unsigned& count = semaphores_[number];
    if (acquire ? count == 0 : count == kSemaphoreMax) return false;
    count = acquire ? count - 1 : count + 1;
    return true;
  }
  bool mutex_acquire(unsigned core) override {
    check(core < cores_);
    if (mutex_owner_ >= 0) return false;
    mutex_owner_ = static_cast<int>(core);
    return true;
  }
  void mutex_release(unsigned core) override {
    check(core < cores_);
    if (mutex_owner_ == static_cast<int>(core)) mutex_owner_ = -1;
  }
  void host_interrupt(unsigned core) override {
    check(core < cores_);
    ++host_interrupts_;
  }
  bool read_memory(std::uint32_t address, void* data, std::uint32_t bytes) override {
    check_transfer(bytes);
    if (address > kMemoryBytes || bytes > kMemoryBytes - address) return false;
    std::memcpy(data, memory_.data() + address, bytes);
    return true;
  }
  bool write_memory(std::uint32_t address, const void* data, std::uint32_t bytes) override {
    check_transfer(bytes);
    if (address > kMemoryBytes || bytes > kMemoryBytes - address) return false;
    std::memcpy(memory_.data() + address, data, bytes);
    return true;
  }
  qpu::Vpm& vpm() override { return vpm_; }

  // A core that stopped gives the mutex back (the scheduler's rule: a stopped program must not keep the others out).
  void core_stopped(unsigned core) { mutex_release(core); }
  const std::vector<std::uint64_t>& code() const { return code_; }
  int mutex_owner() const { return mutex_owner_; }
  unsigned semaphore_count(unsigned number) const { return semaphores_[number]; }
  bool semaphores_in_range() const {
    return std::all_of(semaphores_.begin(), semaphores_.end(), [](unsigned c) { return c <= kSemaphoreMax; });
  }

 private:
  // A word-sized TMU lookup or a DMA row or unit (8- and 16-bit units may end inside a word): never empty, never more
  // than the largest unit.
  static void check_transfer(std::uint32_t bytes) { check(bytes > 0 && bytes <= kLargestTransferBytes); }

  std::vector<std::uint64_t> code_;
  std::vector<std::uint32_t> uniforms_;
  std::vector<std::uint8_t> memory_;
  unsigned cores_;
  qpu::Vpm vpm_;
  std::array<unsigned, qpu::kSemaphores> semaphores_{};
  int mutex_owner_ = -1;
  unsigned host_interrupts_ = 0;
};

// The scoreboard's order: QPU n may take it once QPUs 0..n-1 have released it.
struct ScoreboardTurn {
  unsigned turn = 0;
};

// A fragment shader's port: values derived from its QPU number, the tile buffer's accesses checked against the
// scoreboard the core must hold.
class FuzzFragments final : public qpu::FragmentPort {
 public:
  FuzzFragments(unsigned number, unsigned varyings, ScoreboardTurn& turn)
      : number_(number), varyings_(varyings), turn_(turn) {}

  bool next_varying(qpu::Vector& partial, qpu::Vector& c, std::string& error) override {
    if (read_ == varyings_) {
      error = "a varying read past the record's " + std::to_string(varyings_);
      return false;
    }
    for (unsigned e = 0; e < 16; ++e) {
      partial[e] = 0x3F800000U + e + read_;  // 1.0 and a little more
      c[e] = number_;
    }
    ++read_;
    return true;
  }
  qpu::Vector pixel_coordinate(bool y) const override { return splat(y ? 2 * number_ : number_); }
  qpu::Vector ms_or_reverse(bool reverse) const override { return splat(reverse ? 1 : 0xF); }
  bool scoreboard_acquire() override {
    check(!held_ && !released_);
    waiting_ = turn_.turn != number_;
    held_ = !waiting_;
    return held_;
  }
  void scoreboard_release() override {
    check(!released_);  // once per shader
    released_ = true;
    held_ = false;
    waiting_ = false;
    if (turn_.turn == number_) ++turn_.turn;
  }
  bool tlb_write(std::uint32_t address, const qpu::Vector&, const std::array<bool, 16>&, std::string&) override {
    check(held_ && address >= qpu::kWriteTlbStencil && address <= qpu::kWriteTlbAlphaMask);
    return true;
  }
  bool tlb_load(std::uint32_t signal, qpu::Vector& value, std::string&) override {
    check(held_ && (signal == qpu::kSigCoverageLoad || signal == qpu::kSigColorLoad ||
                    signal == qpu::kSigColorLoadEnd || signal == qpu::kSigAlphaMaskLoad));
    value = splat(0xFF000000U | number_);
    return true;
  }
  bool waiting() const { return waiting_; }
  // A shader that stopped (ended or failed) has released the scoreboard once; it gave up its turn if it held it.
  bool settled() const { return released_ && !held_; }

 private:
  static qpu::Vector splat(std::uint32_t v) {
    qpu::Vector r;
    r.fill(v);
    return r;
  }
  unsigned number_;
  unsigned varyings_;
  ScoreboardTurn& turn_;
  unsigned read_ = 0;
  bool held_ = false, released_ = false, waiting_ = false;
};

// One QPU with what the harness knows of its past: the steps it was given, what they returned, where it stopped.
class CheckedCore {
 public:
  CheckedCore(unsigned number, SharedEnvironment& env, std::uint32_t pc, std::uint32_t uniforms,
              FuzzFragments* fragments, std::pair<qpu::Vpm, qpu::Vpm>* segments = nullptr)
      : number_(number), env_(env), core_(number, env), disassembled_(env.code().size()), fragments_(fragments) {
    if (segments != nullptr) {
      core_.start_vertex(pc, uniforms, segments->first, segments->second);
    } else if (fragments_ != nullptr) {
      qpu::Vector w, z;
      w.fill(0x40000000U);  // 2.0
      z.fill(0x800000U);
      core_.start_fragment(pc, uniforms, *fragments_, w, z);
    } else {
      core_.start(pc, uniforms);
    }
  }

  bool finished() const { return finished_; }

  // One step with every invariant checked. True when the core changed something (it issued or stopped).
  bool step() {
    disassemble_next();
    const std::uint32_t pc = core_.pc();
    const std::uint32_t uniform_address = core_.uniform_address();
    const std::uint64_t instructions = core_.instructions();
    const unsigned tmu_outstanding = core_.tmu_outstanding();
    qpu::Qpu::Step result = qpu::Qpu::Step::kError;
    try {
      result = core_.step();
    } catch (...) {
      check(false);  // step() never throws
    }
    ++steps_;
    check(core_.instructions() <= steps_);
    check(core_.tmu_outstanding() <= 2 * (qpu::kTmuRequestSlots + qpu::kTmuReceiveSlots));
    check(env_.semaphores_in_range());
    if (finished_) {  // a stopped core stays stopped and changes nothing
      check(result == final_ && !core_.running() && core_.instructions() == instructions);
      return false;
    }
    switch (result) {
      case qpu::Qpu::Step::kIssued:
        check(core_.running() && core_.stall() == qpu::Qpu::Stall::kNone && core_.instructions() == instructions + 1);
        return true;
      case qpu::Qpu::Step::kStalled:
        check(core_.running() && core_.pc() == pc && core_.uniform_address() == uniform_address &&
              core_.instructions() == instructions && core_.tmu_outstanding() == tmu_outstanding);
        check_stall_reason();
        return false;
      case qpu::Qpu::Step::kEnded:
        check(!core_.running() && core_.error().empty() && core_.instructions() == instructions + 1);
        break;
      case qpu::Qpu::Step::kError: {
        // One line naming the QPU: "QPU <n> at <address> (<instruction>): <why>".
        const std::string prefix = "QPU " + std::to_string(number_) + " ";
        const std::string& error = core_.error();
        check(!core_.running() && error.size() > prefix.size() && error.compare(0, prefix.size(), prefix) == 0 &&
              error.find('\n') == std::string::npos && core_.instructions() == instructions);
        break;
      }
    }
    finished_ = true;
    final_ = result;
    env_.core_stopped(number_);
    if (fragments_ != nullptr) check(fragments_->settled());
    return true;
  }

 private:
  // Every instruction the core runs disassembles to a line of text (each program slot once per input).
  void disassemble_next() {
    if (finished_) return;
    const std::uint32_t pc = core_.pc();
    if (pc < kCodeAddress || (pc - kCodeAddress) % 8 != 0) return;
    const std::uint32_t index = (pc - kCodeAddress) / 8;
    if (index >= disassembled_.size() || disassembled_[index]) return;
    disassembled_[index] = true;
    std::string text;
    try {
      text = qpu::disassemble(env_.code()[index]);
    } catch (...) {
      check(false);
    }
    check(!text.empty() && text.find('\n') == std::string::npos);
  }

  // A stalled core waits for something another core holds: a semaphore at its limit or the mutex.
  void check_stall_reason() {
    if (core_.stall() == qpu::Qpu::Stall::kScoreboard) {
      check(fragments_ != nullptr && fragments_->waiting());
      return;
    }
    if (core_.stall() == qpu::Qpu::Stall::kMutex) {
      check(env_.mutex_owner() >= 0);
      return;
    }
    check(core_.stall() == qpu::Qpu::Stall::kSemaphore);
    std::uint64_t inst = 0;
    check(env_.fetch_instruction(core_.pc(), inst));
    check(qpu::sig(inst) == qpu::kSigLoadImmediate && qpu::load_mode(inst) == qpu::kLoadSemaphore);
    const unsigned count = env_.semaphore_count(qpu::semaphore_number(inst));
    check(qpu::semaphore_acquire(inst) != 0 ? count == 0 : count == kSemaphoreMax);
  }

  unsigned number_;
  SharedEnvironment& env_;
  qpu::Qpu core_;
  std::vector<bool> disassembled_;
  std::uint64_t steps_ = 0;
  bool finished_ = false;
  qpu::Qpu::Step final_ = qpu::Qpu::Step::kIssued;
  FuzzFragments* fragments_;
};

// Reads the input front to back; past its end, zeros.
class InputReader {
 public:
  InputReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return offset_ < size_ ? data_[offset_++] : 0; }
  std::size_t remaining() const { return size_ - std::min(offset_, size_); }
  std::uint64_t little_endian(unsigned bytes) {
    std::uint64_t value = 0;
    for (unsigned i = 0; i < bytes; ++i) value |= std::uint64_t{byte()} << (8 * i);
    return value;
  }
  std::vector<std::uint8_t> rest() {
    std::vector<std::uint8_t> bytes(data_ + std::min(offset_, size_), data_ + size_);
    offset_ = size_;
    return bytes;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t offset_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kHeaderBytes) return 0;
  InputReader input(data, size);
  const std::uint8_t mode = input.byte();
  const unsigned cores = 2 + std::min(mode & 3U, 2U);
  const bool fragment = (mode & 4U) != 0;
  const unsigned varyings = (mode >> 3) & 7U;
  const bool vertex = !fragment && (mode & 0x40U) != 0;
  const std::size_t program_length = input.byte();
  const std::size_t uniform_count = input.byte();
  std::array<std::uint8_t, kMaxCores> start_instruction{}, first_uniform{};
  for (auto& s : start_instruction) s = input.byte();
  for (auto& u : first_uniform) u = input.byte();
  std::vector<std::uint64_t> code(std::min(program_length, input.remaining() / 8));
  for (auto& inst : code) inst = input.little_endian(8);
  std::vector<std::uint32_t> uniforms(std::min(uniform_count, input.remaining() / 4));
  for (auto& u : uniforms) u = static_cast<std::uint32_t>(input.little_endian(4));
  std::vector<std::uint8_t> memory = input.rest();
  memory.resize(std::min<std::size_t>(memory.size(), kMemoryBytes));

  SharedEnvironment env(std::move(code), std::move(uniforms), std::move(memory), cores);
  const std::size_t instructions = env.code().size();
  ScoreboardTurn turn;
  std::vector<FuzzFragments> ports;
  ports.reserve(cores);
  std::vector<std::pair<qpu::Vpm, qpu::Vpm>> segments(vertex ? cores : 0);
  for (auto& [input, output] : segments) {
    for (unsigned w = 0; w < input.words.size(); ++w) input.words[w] = w;
  }
  const qpu::Vpm shared_before = env.vpm();
  std::vector<CheckedCore> qpus;
  qpus.reserve(cores);
  for (unsigned i = 0; i < cores; ++i) {
    const std::uint32_t start = instructions ? static_cast<std::uint32_t>(start_instruction[i] % instructions) : 0;
    if (fragment) ports.emplace_back(i, varyings, turn);
    qpus.emplace_back(i, env, kCodeAddress + 8 * start, kUniformsAddress + 4U * first_uniform[i],
                      fragment ? &ports.back() : nullptr, vertex ? &segments[i] : nullptr);
  }
  for (unsigned round = 0; round < kRounds; ++round) {
    bool changed = false;
    for (CheckedCore& q : qpus) changed = q.step() || changed;
    // Only the cores change the semaphores, the mutex and the scoreboard's turn: when every running core waits, all
    // wait for ever.
    if (!changed) break;
  }
  // Vertex pipeline shaders reach only their own segments.
  check(!vertex || env.vpm().words == shared_before.words);
  return 0;
}
