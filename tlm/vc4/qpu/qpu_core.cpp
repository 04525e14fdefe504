#include "tlm/vc4/qpu/qpu_core.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "hw/vc4/qpu_isa.h"
#include "tlm/core/format_hex.h"
#include "tlm/vc4/qpu/qpu_alu.h"
#include "tlm/vc4/qpu/qpu_disassembler.h"
#include "tlm/vc4/qpu/texture_sampler.h"

namespace gpuvp::vc4::qpu {
namespace {

// The small immediates (raddr_b when sig = 13): 0-15, -16..-1, 1.0..128.0, 1/256..1/2; 48-63 (the mul rotations)
// read as -16..-1 (vc4asm's measurements).
std::uint32_t small_immediate(std::uint32_t code) {
  if (code < 16) return code;
  if (code < 32) return static_cast<std::uint32_t>(static_cast<std::int32_t>(code) - 32);
  if (code < 40) return (127U + (code - 32)) << 23;      // 2^(code - 32)
  if (code < 48) return (127U - 8 + (code - 40)) << 23;  // 2^(code - 48)
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(code) - 64);
}

Vector splat(std::uint32_t v) {
  Vector r;
  r.fill(v);
  return r;
}

// The bits a pack writes: a 16- or 8-bit pack writes its part of the register, the others all of it.
std::uint32_t pack_mask(std::uint32_t code, bool mul_pack) {
  if (!mul_pack && (code == kPack16a || code == kPack16aSat)) return 0x0000FFFFU;
  if (!mul_pack && (code == kPack16b || code == kPack16bSat)) return 0xFFFF0000U;
  if (code >= kPack8a && code <= kPack8a + 3) return 0xFFU << (8 * (code - kPack8a));
  if (!mul_pack && code >= kPack8aSat) return 0xFFU << (8 * (code - kPack8aSat));
  return ~0U;
}

std::string hex(std::uint64_t v, int digits) { return core::format_hex(v, digits); }

}  // namespace

Qpu::Qpu(unsigned number, QpuEnvironment& env, const QpuTiming& timing) : number_(number), env_(env), timing_(timing) {}

void Qpu::start(std::uint32_t pc, std::uint32_t uniforms) {
  pc_ = pc;
  uniform_address_ = uniforms;
  running_ = true;
  error_.clear();
  stall_ = Stall::kNone;
  z_.fill(false);
  n_.fill(false);
  c_.fill(false);
  writes_ = {};
  branch_slots_ = 0;
  branch_taken_ = false;
  end_slots_ = 0;
  ending_ = false;
  switch_slots_ = 0;
  thread_switch_ = ThreadSwitch::kNone;
  threaded_ = false;
  sfu_countdown_ = 0;
  vpm_port_.reset();
  dma_load_words_ = dma_store_words_ = tmu_requests_ = texture_requests_ = 0;
  tmu_results_[0].clear();
  tmu_results_[1].clear();
  load_busy_until_ = store_busy_until_ = 0;
  fragments_ = nullptr;
  vertex_input_ = vertex_output_ = nullptr;
  texture_ = {};
  scoreboard_held_ = scoreboard_released_ = false;
  varying_pending_ = false;
}

void Qpu::start_fragment(std::uint32_t pc, std::uint32_t uniforms, FragmentPort& fragments, const Vector& w,
                         const Vector& z, bool threaded) {
  start(pc, uniforms);
  fragments_ = &fragments;
  threaded_ = threaded;
  ra_[15] = w;
  rb_[15] = z;
}

void Qpu::start_vertex(std::uint32_t pc, std::uint32_t uniforms, Vpm& input, Vpm& output) {
  start(pc, uniforms);
  vertex_input_ = &input;
  vertex_output_ = &output;
}

Qpu::Step Qpu::scoreboard_ready(std::uint64_t inst, bool add_writes, bool mul_writes) {
  if (fragments_ == nullptr || scoreboard_held_) return Step::kIssued;
  const auto tlb = [](std::uint32_t address) { return address >= kWriteTlbStencil && address <= kWriteTlbAlphaMask; };
  const std::uint32_t signal = sig(inst);
  const bool alu = signal != kSigLoadImmediate && signal != kSigBranch;
  const bool needs = (alu && (signal == kSigWaitForScoreboard || signal == kSigCoverageLoad ||
                              signal == kSigColorLoad || signal == kSigColorLoadEnd || signal == kSigAlphaMaskLoad)) ||
                     (add_writes && tlb(waddr_add(inst))) || (mul_writes && tlb(waddr_mul(inst)));
  if (!needs) return Step::kIssued;
  // Past its unlock a shader has given the tile buffer to the next primitive's shaders: its access would land out of
  // order (the hardware leaves it undefined).
  if (scoreboard_released_) return fail("a tile buffer access after the scoreboard unlock (sig 5)");
  if (!fragments_->scoreboard_acquire()) {
    stall_ = Stall::kScoreboard;
    return Step::kStalled;
  }
  scoreboard_held_ = true;
  return Step::kIssued;
}

void Qpu::release_scoreboard() {
  if (fragments_ == nullptr || scoreboard_released_) return;
  fragments_->scoreboard_release();
  scoreboard_held_ = false;
  scoreboard_released_ = true;
}

bool Qpu::fragment_input(std::uint32_t address, bool file_b, Vector& value) {
  if (fragments_ == nullptr) {
    fail(std::string("read address ") + std::to_string(address) + " (file " + (file_b ? "B" : "A") +
         ") is a fragment shader input, and a " + program_kind() + " has no fragments");
    return false;
  }
  if (address == kReadPixelCoord) {
    value = fragments_->pixel_coordinate(file_b);
    return true;
  }
  if (address == kReadMsOrRev) {
    value = fragments_->ms_or_reverse(file_b);
    return true;
  }
  std::string why;
  if (!fragments_->next_varying(value, varying_c_, why)) {
    fail(why);
    return false;
  }
  varying_pending_ = true;
  return true;
}

bool Qpu::dma_start_waits(std::uint64_t inst, bool add_writes, bool mul_writes) const {
  // One transfer per direction at a time: an instruction starting another (vr_addr / vw_addr) waits for the one
  // before it, so a program cannot pile up transfers faster than they move.
  const bool swap = ws(inst) != 0;
  const auto busy = [&](bool file_b) { return (file_b ? store_busy_until_ : load_busy_until_) > now_; };
  return (add_writes && waddr_add(inst) == kWriteVpmAddr && busy(swap)) ||
         (mul_writes && waddr_mul(inst) == kWriteVpmAddr && busy(!swap));
}

std::string Qpu::where() const {
  return "QPU " + std::to_string(number_) + " at " + hex(inst_address_, 8) + " (" + hex(inst_, 16) + " '" +
         disassemble(inst_) + "')";
}

Qpu::Step Qpu::fail(const std::string& why) {
  error_ = where() + ": " + why;
  running_ = false;
  release_scoreboard();  // a stopped shader must not keep the next primitive's shaders waiting
  return Step::kError;
}

std::array<bool, 16> Qpu::condition(std::uint32_t cond) const {
  std::array<bool, 16> e{};
  // The condition chosen once per instruction, then applied to the elements.
  const auto from = [&e](const std::array<bool, 16>& flags, bool want) {
    for (unsigned i = 0; i < kElements; ++i) e[i] = flags[i] == want;
  };
  switch (cond) {
    case kAlways:
      e.fill(true);
      break;
    case kZs:
      from(z_, true);
      break;
    case kZc:
      from(z_, false);
      break;
    case kNs:
      from(n_, true);
      break;
    case kNc:
      from(n_, false);
      break;
    case kCs:
      from(c_, true);
      break;
    case kCc:
      from(c_, false);
      break;
    default:
      break;  // never
  }
  return e;
}

void Qpu::set_flags(const Vector& value, const std::array<bool, 16>& carry, const std::array<bool, 16>& enabled) {
  // Flags change only in the elements whose condition holds (vc4asm's measurements).
  for (unsigned i = 0; i < kElements; ++i) {
    if (!enabled[i]) continue;
    z_[i] = value[i] == 0;
    n_[i] = (value[i] & 0x80000000U) != 0;
    c_[i] = carry[i];
  }
}

void Qpu::commit_pending_writes() {
  std::array<Write, 2>& pending = writes_[previous_];
  for (unsigned f = 0; f < 2; ++f) {
    Write& w = pending[f];
    if (!w.pending) continue;
    Vector& reg = f == 0 ? ra_[w.index] : rb_[w.index];
    for (unsigned i = 0; i < kElements; ++i) reg[i] = (reg[i] & ~w.mask[i]) | (w.value[i] & w.mask[i]);
    w.pending = false;
  }
  // This instruction's writes become the previous ones; the emptied set takes the next instruction's.
  previous_ ^= 1U;
}

bool Qpu::read_address(bool file_b, std::uint32_t address, Vector& value) {
  if (address < 32) {
    value = file_b ? rb_[address] : ra_[address];
    return true;
  }
  const char* file = file_b ? "B" : "A";
  switch (address) {
    case kReadUniform: {
      std::uint32_t u = 0;
      if (!env_.read_uniform(uniform_address_, u)) {
        fail("uniform read at " + hex(uniform_address_, 8) + " outside memory");
        return false;
      }
      uniform_address_ += 4;
      value = splat(u);
      return true;
    }
    case kReadElementOrQpu:
      for (unsigned i = 0; i < kElements; ++i) value[i] = file_b ? number_ : i;
      return true;
    case kReadNop:
    case kReadMutexAcquire:  // acquired before the instruction's reads
      value = splat(0);
      return true;
    case kReadVarying:
    case kReadPixelCoord:
    case kReadMsOrRev:
      return fragment_input(address, file_b, value);
    case kReadVpm: {
      std::string why;
      if (!vpm_port_.read(vertex_input_ != nullptr ? *vertex_input_ : env_.vpm(), value, why)) {
        fail(why);
        return false;
      }
      return true;
    }
    case kReadVpmBusy:
      value = splat((file_b ? store_busy_until_ : load_busy_until_) > now_ ? 1U : 0U);
      return true;
    case kReadDmaWait:  // the instruction issues once the transfer is done (checked before it reads anything)
      value = splat(0);
      return true;
    default:
      fail("read address " + std::to_string(address) + " (file " + file + ") is undefined");
      return false;
  }
}

bool Qpu::write_address(bool file_b, std::uint32_t address, const Result& r) {
  if (address < 32) {
    if (threaded_ && address >= 16) {
      fail(std::string("a threaded fragment shader writes r") + (file_b ? "b" : "a") + std::to_string(address) +
           ": each of a QPU's two threads has registers 0-15 of each file");
      return false;
    }
    Write& w = writes_[previous_ ^ 1U][file_b ? 1 : 0];
    if (!w.pending) {
      w.pending = true;
      w.index = address;
      w.mask.fill(0);
    }
    for (unsigned i = 0; i < kElements; ++i) {
      if (!r.enabled[i]) continue;
      w.value[i] = (w.value[i] & ~r.mask) | (r.value[i] & r.mask);
      w.mask[i] |= r.mask;
    }
    return true;
  }
  if (address >= kWriteAcc0 && address < kWriteAcc0 + 4) {
    Vector& acc = acc_[address - kWriteAcc0];
    for (unsigned i = 0; i < kElements; ++i) {
      if (r.enabled[i]) acc[i] = (acc[i] & ~r.mask) | (r.value[i] & r.mask);
    }
    return true;
  }
  const char* file = file_b ? "B" : "A";
  switch (address) {
    case kWriteNop:
      return true;
    case kWriteTmuNoswap:
      // Element 0 counts; TMU swapping is invisible to direct lookups paired tN_s / ldtmuN (vc4asm).
      if (r.enabled[0]) tmu_noswap_ = r.value[0] != 0;
      return true;
    case kWriteR5:
      // A: elements 0, 4, 8, 12 each to their quad ("r5quad"); B: element 0 to all ("r5rep") (vc4asm, VC4C).
      for (unsigned i = 0; i < kElements; ++i) {
        const unsigned from = file_b ? 0 : (i & ~3U);
        if (r.enabled[from]) acc_[5][i] = r.value[from];
      }
      return true;
    case kWriteHostInt:
      if (r.enabled[0] && r.value[0] != 0) env_.host_interrupt(number_);
      return true;
    case kWriteUniformsAddress:
      if (file_b) {
        fail(
            "write address 40 on file B (a relative uniforms address change) is not modelled: its semantics are "
            "not published");
        return false;
      }
      if (r.enabled[0]) uniform_address_ = r.value[0];
      return true;
    case kWriteMutexRelease:
      mutex_held_ = false;
      env_.mutex_release(number_);
      return true;
    case kWriteSfuRecip:
    case kWriteSfuRecipSqrt:
    case kWriteSfuExp:
    case kWriteSfuLog:
      for (unsigned i = 0; i < kElements; ++i) sfu_result_[i] = sfu(address, r.value[i]);
      sfu_countdown_ = 3;
      return true;
    default:
      break;
  }
  if (address >= kWriteVpm && address <= kWriteVpmAddr) {
    // VPM writes and setups are not conditional: one with any element enabled pushes the whole vector (vc4asm);
    // setups and DMA addresses take element 0.
    bool any = false;
    for (bool e : r.enabled) any = any || e;
    if (!any) return true;
    std::string why;
    bool ok = true;
    if (address == kWriteVpm) {
      ok = vpm_port_.write(vertex_output_ != nullptr ? *vertex_output_ : env_.vpm(), r.value, why);
    } else if (address == kWriteVpmSetup) {
      ok = file_b ? vpm_port_.write_setup(r.value[0], why) : vpm_port_.read_setup(r.value[0], why);
    } else if (vertex_input_ != nullptr) {
      ok = false;
      why = std::string("VPM DMA (") + (file_b ? "vw_addr" : "vr_addr") +
            ") in a vertex or coordinate shader: their data moves through the VCD and the primitive set-up";
    } else {
      // The transfer moves its data now and is busy for its modelled time, after the one before it: its start-up,
      // then the longer of its own rate and the memory's time for its rows (their latency and the bus's and DRAM's
      // contention).
      env_.take_memory_cycles();
      ok = file_b ? vpm_port_.store(env_.vpm(), env_, r.value[0], why)
                  : vpm_port_.load(env_.vpm(), env_, r.value[0], why);
      if (ok) {
        const std::uint32_t words = vpm_port_.last_transfer_words();
        const auto own = static_cast<std::uint64_t>(std::llround(timing_.dma_cycles_per_word * words));
        std::uint64_t& busy = file_b ? store_busy_until_ : load_busy_until_;
        busy = std::max(busy, now_) + timing_.dma_setup_cycles + std::max(own, env_.take_memory_cycles());
        (file_b ? dma_store_words_ : dma_load_words_) += words;
      }
    }
    if (!ok) fail(why);
    return ok;
  }
  if (address >= kWriteTmu0S && address <= kWriteTmu1S + 3) {
    // A conditional write still pushes the request (vc4asm).
    const unsigned tmu = address >= kWriteTmu1S ? 1 : 0;
    const unsigned component = address - (tmu == 1 ? kWriteTmu1S : kWriteTmu0S);  // 0 S, 1 T, 2 R, 3 B
    TextureSetup& setup = texture_[tmu];
    if ((component != 0 || setup.params != 0) && setup.params == 4) {
      fail("a fifth TMU" + std::to_string(tmu) + " parameter write before its S write: a lookup takes P0-P3");
      return false;
    }
    // Each component written takes a slot of the TMU's request FIFO; with none free it would wait for one that only
    // this QPU's loads free (a load frees a receive slot, and the oldest waiting lookup leaves the request FIFO).
    if (tmu_request_slots_in_use(tmu) >= tmu_request_slots()) {
      static constexpr const char* kComponent[] = {"S", "T", "R", "B"};
      fail("a TMU" + std::to_string(tmu) + " " + kComponent[component] + " write with its request FIFO's " +
           std::to_string(tmu_request_slots()) + " slots" + (threaded_ ? " (half of 8: a threaded program)" : "") +
           " in use: only this QPU's loads would free one (it would wait forever)");
      return false;
    }
    if (component != 0 || setup.params != 0) {
      // A texture lookup: each parameter write takes the next uniform as P0, P1, P2, P3 (Linux vc4_validate_shaders.c
      // check_tmu_write); the S write submits it. Without T, R or B before it, an S write is a direct lookup.
      std::uint32_t p = 0;
      if (!env_.read_uniform(uniform_address_, p)) {
        fail("the texture parameter uniform at " + hex(uniform_address_, 8) + " is outside memory");
        return false;
      }
      uniform_address_ += 4;
      setup.p[setup.params++] = p;
      if (component == 1) setup.t = r.value;
      if (component == 2) setup.r = r.value, setup.has_r = true;
      if (component == 3) setup.b = r.value, setup.has_b = true;
      if (component != 0) return true;
    }
    if (setup.params != 0) return texture_lookup(tmu, r.value);
    // A direct memory lookup: each element's word at its address (bits 1:0 ignored), queued for load_tmuN.
    Vector addresses{}, result{};
    for (unsigned i = 0; i < kElements; ++i) addresses[i] = r.value[i] & ~3U;
    std::uint64_t fill_cycles = 0;
    unsigned failed = 0;
    if (!env_.tmu_lookup(number_, tmu, addresses, result, fill_cycles, failed)) {
      fail("TMU" + std::to_string(tmu) + " direct lookup of element " + std::to_string(failed) + " at " +
           hex(addresses[failed & 15U], 8) + ": no memory there");
      return false;
    }
    tmu_results_[tmu].push_back({result, now_ + timing_.tmu_latency_cycles + fill_cycles, 1});
    ++tmu_requests_;
    return true;
  }
  if (address >= kWriteTlbStencil && address <= kWriteTlbAlphaMask) {
    if (fragments_ == nullptr) {
      fail(std::string("write address ") + std::to_string(address) + " (file " + file + ") is the tile buffer, and a " +
           program_kind() + " has no fragments");
      return false;
    }
    std::string why;
    if (!fragments_->tlb_write(address, r.value, r.enabled, why)) {
      fail(why);
      return false;
    }
    return true;
  }
  if (address == kWriteQuadXY || address == kWriteMsOrRev) {
    fail(std::string("write address ") + std::to_string(address) + " (file " + file +
         ") sets a quad's coordinates or multisample flags: only the front end's own shaders write them and they "
         "are not modelled");
  } else {
    fail(std::string("write address ") + std::to_string(address) + " (file " + file + ") is undefined");
  }
  return false;
}

unsigned Qpu::tmu_request_slots_in_use(unsigned tmu) const {
  unsigned used = texture_[tmu].params;  // the components of the lookup being set up
  const auto& fifo = tmu_results_[tmu];
  for (std::size_t i = tmu_receive_slots(); i < fifo.size(); ++i) used += fifo[i].slots;
  return used;
}

bool Qpu::texture_lookup(unsigned tmu, const Vector& s) {
  TextureSetup setup = texture_[tmu];
  texture_[tmu] = TextureSetup{};
  const std::string what = "TMU" + std::to_string(tmu) + " texture lookup: ";
  TextureParams params;
  std::string why;
  if (!decode_texture_params(setup.p, setup.params, params, why)) {
    fail(what + why);
    return false;
  }
  Vector result{};
  std::vector<std::uint32_t> lines;
  // The texels come from memory as it is (untimed); the TMU cache charges the lines they lie in.
  if (!sample_texture(params, s, setup.t, setup.has_r ? &setup.r : nullptr, setup.has_b ? &setup.b : nullptr,
                      env_.texel_memory(), result, lines, why)) {
    fail(what + why);
    return false;
  }
  const std::uint64_t fill_cycles = env_.tmu_fill_cycles(number_, tmu, lines);
  tmu_results_[tmu].push_back({result, now_ + timing_.tmu_latency_cycles + fill_cycles, setup.params});
  ++tmu_requests_;
  ++texture_requests_;
  return true;
}

Qpu::Step Qpu::step(std::uint64_t now) {
  if (!running_) return error_.empty() ? Step::kEnded : Step::kError;
  now_ = now;
  stall_ = Stall::kNone;
  inst_address_ = pc_;
  if (!env_.fetch_instruction(pc_, inst_)) {
    inst_ = 0;
    return fail("instruction fetch outside memory");
  }
  if (sfu_countdown_ > 0 && --sfu_countdown_ == 0) acc_[4] = sfu_result_;
  const bool in_branch_slots = branch_slots_ > 0;
  const bool in_end_slots = ending_;
  const bool in_switch_slots = switch_slots_ > 0;
  Step s = Step::kIssued;
  switch (sig(inst_)) {
    case kSigBranch:
      if (in_branch_slots) {
        return fail("branch in the delay slots of the branch at " + hex(branch_address_, 8) +
                    " (the hardware leaves it undefined)");
      }
      if (in_end_slots) return fail("branch in the delay slots of the program end");
      // Linux vc4_validate_shaders.c refuses a branch within three instructions of a thread switch.
      if (in_switch_slots)
        return fail("branch in the delay slots of a thread switch (the hardware leaves it undefined)");
      s = execute_branch(inst_);
      break;
    case kSigLoadImmediate:
      s = execute_load_immediate(inst_);
      break;
    default:
      s = execute_alu(inst_);
      break;
  }
  if (s != Step::kIssued) {
    if (s == Step::kStalled) sfu_countdown_ += sfu_countdown_ > 0 ? 1 : 0;  // the stalled issue did not count
    return s;
  }
  commit_pending_writes();
  if (varying_pending_) {
    acc_[5] = varying_c_;
    varying_pending_ = false;
  }
  ++instructions_;
  pc_ += 8;
  if (in_branch_slots && --branch_slots_ == 0 && branch_taken_) pc_ = branch_target_;
  if (in_switch_slots && --switch_slots_ == 0) {
    thread_switch_ = switch_last_ ? ThreadSwitch::kLast : ThreadSwitch::kSwitch;
  }
  if (const std::uint32_t signal = sig(inst_); signal == kSigThreadSwitch || signal == kSigLastThreadSwitch) {
    switch_slots_ = kThreadSwitchDelaySlots;
    switch_last_ = signal == kSigLastThreadSwitch;
  }
  if (in_end_slots && --end_slots_ == 0) {
    commit_pending_writes();  // the last instruction's register writes land
    writes_ = {};
    running_ = false;
    release_scoreboard();  // a shader that never unlocked it does at its end
    return Step::kEnded;
  }
  return Step::kIssued;
}

Qpu::Step Qpu::execute_alu(std::uint64_t inst) {
  const std::uint32_t signal = sig(inst);
  switch (signal) {
    case kSigNone:
    case kSigSmallImmediate:
      break;
    case kSigProgramEnd:
      if (ending_) return fail("program end in the delay slots of a program end");
      if (branch_slots_ > 0) return fail("program end in the delay slots of the branch at " + hex(branch_address_, 8));
      break;
    case kSigBreakpoint:
      return fail("software breakpoint (signal 0): no debugger is attached");
    case kSigThreadSwitch:
    case kSigLastThreadSwitch:
      // The switch itself is the scheduler's (take_thread_switch); a single-threaded shader's changes nothing.
      if (fragments_ == nullptr) {
        return fail("thread switch (signal " + std::to_string(signal) + ") in a " + program_kind() +
                    ": only threaded fragment shaders switch threads");
      }
      // Linux vc4_validate_shaders.c: "Thread switch too soon after last switch".
      if (switch_slots_ > 0) return fail("thread switch in the delay slots of a thread switch");
      break;
    case kSigWaitForScoreboard:
    case kSigScoreboardUnlock:
      if (fragments_ == nullptr) {
        return fail("scoreboard signal " + std::to_string(signal) + " in a " + program_kind() +
                    ": only fragment shaders have a scoreboard");
      }
      break;
    case kSigCoverageLoad:
    case kSigColorLoad:
    case kSigColorLoadEnd:
    case kSigAlphaMaskLoad:
      if (fragments_ == nullptr) {
        return fail("tile buffer load (signal " + std::to_string(signal) + ") in a " + program_kind() +
                    ": only fragment shaders reach the tile buffer");
      }
      break;
    case kSigLoadTmu0:
    case kSigLoadTmu1:
      if (tmu_results_[signal - kSigLoadTmu0].empty()) {
        return fail("load_tmu" + std::to_string(signal - kSigLoadTmu0) +
                    " with no request of that TMU outstanding: the QPU would wait forever");
      }
      if (tmu_results_[signal - kSigLoadTmu0].front().ready > now_) {
        stall_ = Stall::kTmu;
        return Step::kStalled;
      }
      break;
    default:
      return fail("signal " + std::to_string(signal) + " is undefined");
  }
  const std::uint32_t add_op = op_add(inst), mul_op = op_mul(inst);
  if (!add_op_defined(add_op)) return fail("add op " + std::to_string(add_op) + " is undefined");
  const bool small = signal == kSigSmallImmediate;
  const std::uint32_t ra_addr = raddr_a(inst), rb_addr = raddr_b(inst);
  const bool mul_pack = pm(inst) != 0;
  const std::uint32_t pack_code = pack(inst);
  if (mul_pack && pack_code != kPackNone && (pack_code < kPack8888 || pack_code > kPack8a + 3)) {
    return fail("mul pack " + std::to_string(pack_code) + " is undefined");
  }
  // Waits first: a stalled instruction changes nothing.
  if (const Step ready = scoreboard_ready(inst, add_op != kAddNop, mul_op != kMulNop); ready != Step::kIssued) {
    return ready;
  }
  if ((ra_addr == kReadDmaWait && load_busy_until_ > now_) ||
      (!small && rb_addr == kReadDmaWait && store_busy_until_ > now_) ||
      dma_start_waits(inst, add_op != kAddNop, mul_op != kMulNop)) {
    stall_ = Stall::kDma;
    return Step::kStalled;
  }
  if (ra_addr == kReadMutexAcquire || (!small && rb_addr == kReadMutexAcquire)) {
    if (!env_.mutex_acquire(number_)) {
      stall_ = Stall::kMutex;
      return Step::kStalled;
    }
    mutex_held_ = true;
  }
  Vector va{}, vb{};
  if (!read_address(false, ra_addr, va)) return Step::kError;
  if (small) {
    vb = splat(small_immediate(rb_addr));
  } else if (!read_address(true, rb_addr, vb)) {
    return Step::kError;
  }
  // An input through its mux, with the unpack (pm = 0: of regfile A reads; pm = 1: of r4) for the op's input type.
  const auto input = [&](std::uint32_t mux, bool to_float) {
    Vector v = mux < 6 ? acc_[mux] : (mux == kMuxA ? va : vb);
    const std::uint32_t code = unpack(inst);
    if (code != kUnpackNone && ((mux == kMuxA && !mul_pack) || (mux == kR4 && mul_pack))) {
      for (auto& e : v) e = unpack_value(code, e, to_float);
    }
    return v;
  };
  const Vector aa = input(add_a(inst), add_op_reads_float(add_op));
  const Vector ab = input(add_b(inst), add_op_reads_float(add_op));
  Vector ma = input(mul_a(inst), mul_op_reads_float(mul_op));
  Vector mb = input(mul_b(inst), mul_op_reads_float(mul_op));
  if (small && rb_addr >= kSmallImmRotateByR5) {
    // The mul inputs rotate: result[j] = input[j - n]; by all 16 elements only when both come from r0-r3, else
    // within each quad by n's low two bits (vc4asm; Mesa's validator quotes the guide).
    const unsigned n = rb_addr == kSmallImmRotateByR5 ? (acc_[5][0] & 15U) : rb_addr - kSmallImmRotateByR5;
    const bool full = mul_a(inst) < 4 && mul_b(inst) < 4;
    const auto rotate = [&](const Vector& v) {
      Vector out{};
      for (unsigned j = 0; j < kElements; ++j) {
        out[j] = full ? v[(j - n) & 15U] : v[(j & ~3U) | ((j - n) & 3U)];
      }
      return out;
    };
    ma = rotate(ma);
    mb = rotate(mb);
  }
  LaneResults add_lanes, mul_lanes;
  add_alu(add_op, aa, ab, add_lanes);
  mul_alu(mul_op, ma, mb, mul_lanes);
  Result add_result, mul_result;
  add_result.value = add_lanes.value;
  mul_result.value = mul_lanes.value;
  add_result.enabled = condition(cond_add(inst));
  mul_result.enabled = condition(cond_mul(inst));
  if (sf(inst) != 0) {
    // Flags from the add result unless the add op is a nop (Mesa's disassembler; a 'never' add still sets them).
    if (add_op != kAddNop) {
      set_flags(add_result.value, add_lanes.carry, add_result.enabled);
    } else if (mul_op != kMulNop) {
      set_flags(mul_result.value, mul_lanes.carry, mul_result.enabled);
    }
  }
  const bool swap = ws(inst) != 0;
  const std::uint32_t add_dest = waddr_add(inst), mul_dest = waddr_mul(inst);
  // Packs: pm = 0 packs what is written to a register of file A, pm = 1 the mul result.
  if (pack_code != kPackNone) {
    if (mul_pack) {
      if (mul_dest >= kWriteTmuNoswap && mul_dest != kWriteNop) {
        return fail("a mul colour pack cannot write an I/O register (write address " + std::to_string(mul_dest) + ")");
      }
      for (auto& v : mul_result.value) v = pack_mul_colour(pack_code, v, 0);
      mul_result.mask = pack_mask(pack_code, true);
    } else {
      Result& a_side = swap ? mul_result : add_result;
      const std::uint32_t a_dest = swap ? mul_dest : add_dest;
      const bool a_is_add = !swap;
      if (a_dest < 32) {
        const bool is_float = a_is_add ? add_op_writes_float(add_op) : mul_op_writes_float(mul_op);
        for (unsigned i = 0; i < kElements; ++i) {
          a_side.value[i] = pack_regfile_a(pack_code, a_side.value[i], 0, is_float, a_is_add && add_lanes.overflow[i]);
        }
        a_side.mask = pack_mask(pack_code, false);
      }
    }
  }
  if (add_op != kAddNop && !write_address(swap, add_dest, add_result)) return Step::kError;
  if (mul_op != kMulNop && !write_address(!swap, mul_dest, mul_result)) return Step::kError;
  if (signal == kSigLoadTmu0 || signal == kSigLoadTmu1) {
    // The result lands in r4 at the end of the instruction: its own reads of r4 see the previous one (gpu_fft's
    // `mov r0, r4; ldtmu0`).
    auto& fifo = tmu_results_[signal - kSigLoadTmu0];
    acc_[4] = fifo.front().data;
    fifo.pop_front();
    // A receive slot is free: the oldest lookup waiting in the request FIFO moves on, and its data is back no sooner
    // than the TMU's latency after that (the stated choice: the TMU starts it then).
    if (fifo.size() >= tmu_receive_slots()) {
      TmuResult& moved = fifo[tmu_receive_slots() - 1];
      moved.ready = std::max(moved.ready, now_ + timing_.tmu_latency_cycles);
    }
  }
  if (signal == kSigCoverageLoad || signal == kSigColorLoad || signal == kSigColorLoadEnd ||
      signal == kSigAlphaMaskLoad) {
    // Into r4 at the end of the instruction, as a TMU load.
    std::string why;
    if (!fragments_->tlb_load(signal, acc_[4], why)) return fail(why);
  }
  if (signal == kSigScoreboardUnlock) release_scoreboard();  // after this instruction's own tile buffer accesses
  if (signal == kSigProgramEnd) {
    ending_ = true;
    end_slots_ = kProgramEndDelaySlots;
  }
  return Step::kIssued;
}

Qpu::Step Qpu::execute_load_immediate(std::uint64_t inst) {
  if (const Step ready = scoreboard_ready(inst, true, true); ready != Step::kIssued) return ready;
  if (dma_start_waits(inst, true, true)) {
    stall_ = Stall::kDma;
    return Step::kStalled;
  }
  const std::uint32_t mode = load_mode(inst);
  const std::uint32_t imm = immediate(inst);
  Result r;
  switch (mode) {
    case kLoad32:
      r.value = splat(imm);
      break;
    case kLoadPerElementSigned:
    case kLoadPerElementUnsigned:
      // Element i gets the two bits {imm[16 + i], imm[i]}, sign-extended in mode 1 (py-videocore).
      for (unsigned i = 0; i < kElements; ++i) {
        const std::uint32_t v = (((imm >> (16 + i)) & 1U) << 1) | ((imm >> i) & 1U);
        r.value[i] = mode == kLoadPerElementSigned && v >= 2 ? v - 4 : v;
      }
      break;
    case kLoadSemaphore:
      if (!env_.semaphore(semaphore_number(inst), semaphore_acquire(inst) != 0)) {
        stall_ = Stall::kSemaphore;
        return Step::kStalled;
      }
      r.value = splat(imm);  // and otherwise a 32-bit load immediate (the guide, quoted by VC4C)
      break;
    default:
      return fail("load immediate mode " + std::to_string(mode) + " is undefined");
  }
  Result add_side = r, mul_side = r;
  add_side.enabled = condition(cond_add(inst));
  mul_side.enabled = condition(cond_mul(inst));
  if (sf(inst) != 0) set_flags(r.value, std::array<bool, 16>{}, add_side.enabled);
  const bool swap = ws(inst) != 0;
  const std::uint32_t pack_code = pack(inst);
  if (pack_code != kPackNone) {
    if (pm(inst) != 0) {
      if (pack_code < kPack8888 || pack_code > kPack8a + 3) {
        return fail("mul pack " + std::to_string(pack_code) + " is undefined");
      }
      for (auto& v : mul_side.value) v = pack_mul_colour(pack_code, v, 0);
      mul_side.mask = pack_mask(pack_code, true);
    } else {
      Result& a_side = swap ? mul_side : add_side;
      if ((swap ? waddr_mul(inst) : waddr_add(inst)) < 32) {
        for (auto& v : a_side.value) v = pack_regfile_a(pack_code, v, 0, false, false);
        a_side.mask = pack_mask(pack_code, false);
      }
    }
  }
  if (!write_address(swap, waddr_add(inst), add_side)) return Step::kError;
  if (!write_address(!swap, waddr_mul(inst), mul_side)) return Step::kError;
  return Step::kIssued;
}

Qpu::Step Qpu::execute_branch(std::uint64_t inst) {
  const std::uint32_t cond = branch_cond(inst);
  if (cond >= 12 && cond <= 14) return fail("branch condition " + std::to_string(cond) + " is undefined");
  bool taken = cond == kBranchAlways;
  if (!taken) {
    // all_/any_ of Z, N or C over the 16 elements; even conditions ask for the flag set, odd ones clear.
    const std::array<bool, 16>& flags = cond < 4 ? z_ : (cond < 8 ? n_ : c_);
    const bool want = (cond & 1U) == 0;
    const bool any = (cond & 2U) != 0;
    unsigned count = 0;
    for (unsigned i = 0; i < kElements; ++i) count += flags[i] == want ? 1 : 0;
    taken = any ? count > 0 : count == kElements;
  }
  // A taken branch writes its links, also to the tile buffer (a fragment shader waits for the scoreboard first).
  if (taken) {
    if (const Step ready = scoreboard_ready(inst, true, true); ready != Step::kIssued) return ready;
  }
  const std::uint32_t link = inst_address_ + 8 * (kBranchDelaySlots + 1);
  std::uint32_t target = immediate(inst);
  if (branch_rel(inst) != 0) target += link;
  // A register target comes from element 15 of regfile A (vc4asm's measurements; VC4C's emulator follows them).
  if (branch_reg(inst) != 0) target += ra_[branch_raddr_a(inst)][15];
  branch_slots_ = kBranchDelaySlots;
  branch_taken_ = taken;
  branch_target_ = target;
  branch_address_ = inst_address_;
  if (taken) {
    // The links (the address after the delay slots) are written only when the branch is taken (vc4asm).
    Result r;
    r.value = splat(link);
    r.enabled.fill(true);
    const bool swap = ws(inst) != 0;
    if (!write_address(swap, waddr_add(inst), r)) return Step::kError;
    if (!write_address(!swap, waddr_mul(inst), r)) return Step::kError;
  }
  return Step::kIssued;
}

}  // namespace gpuvp::vc4::qpu
