// One VideoCore IV QPU executing instructions, SystemC-free: register files A and B, accumulators r0-r5, the input
// muxes with unpack and the small immediates (with the mul input rotations), both ALUs with their conditions, flags,
// packs and write swap, load immediates (32-bit and per element), semaphores, branches with their three delay slots
// and links, program end with its two, uniforms, the SFU into r4, VPM reads and writes and its DMA (vpm.h), TMU
// direct memory lookups into r4, the mutex and the host interrupt. What the QPU
// shares with other QPUs and memory (instruction and uniform fetches, semaphores, the mutex, the host interrupt) goes
// through QpuEnvironment, so that a scheduler runs many QPUs over one. Facts: ../shared/docs/reference-vc4-qpu.md
// sections 1-2 (Linux vc4_qpu_defines.h, Mesa's vc4 compiler and validator, vc4asm's hardware measurements,
// py-videocore); docs/vc4-qpu.md.
//
// Fragment shaders (start_fragment) read their payload, varyings and pixel coordinates and reach the tile buffer
// through a FragmentPort. Texture lookups sample through texture_sampler.h. An instruction the model does not execute
// or one the hardware leaves undefined ends the program with an error naming it and its address, never undefined
// behaviour.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "tlm/vc4/qpu/vpm.h"

namespace gpuvp::vc4::qpu {

// What a QPU shares: memory (instruction and uniform fetches; DMA and TMU reads and writes through DmaMemory), the
// VPM, the semaphores, the mutex and the host interrupt.
class QpuEnvironment : public DmaMemory {
 public:
  // The instruction at byte address `address` (a bus address); false: nothing there.
  virtual bool fetch_instruction(std::uint32_t address, std::uint64_t& instruction) = 0;
  // The uniform at `address`; false: nothing there.
  virtual bool read_uniform(std::uint32_t address, std::uint32_t& value) = 0;
  // A semaphore instruction: counts and returns true, or returns false when it must wait (an acquire at 0, a release
  // at 15).
  virtual bool semaphore(unsigned number, bool acquire) = 0;
  // The mutex: acquire returns false while another QPU holds it.
  virtual bool mutex_acquire(unsigned qpu) = 0;
  virtual void mutex_release(unsigned qpu) = 0;
  virtual void host_interrupt(unsigned qpu) = 0;
  virtual Vpm& vpm() = 0;
  // The V3D cycles from its start until the slowest memory access made since the last call completed through the bus
  // and DRAM, and a new count (0: memory without timing, as the defaults give). A DMA transfer's time includes it.
  virtual std::uint64_t take_memory_cycles() { return 0; }
  // Memory as a texture lookup reads its texels: untimed (the lookup's time is tmu_fill_cycles'); here the same as
  // DMA's.
  virtual DmaMemory& texel_memory() { return *this; }
  // The V3D cycles the 64-byte `lines` a texture lookup of QPU `qpu` through TMU `tmu` read take to fill its TMU
  // cache beyond a hit's latency (0 here: no cache model).
  virtual std::uint64_t tmu_fill_cycles(unsigned qpu, unsigned tmu, const std::vector<std::uint32_t>& lines) {
    (void)qpu;
    (void)tmu;
    (void)lines;
    return 0;
  }
  // A TMU direct lookup by QPU `qpu` through TMU `tmu`: each element's word at its byte address (bits 1:0 clear) into
  // `data`, and the V3D cycles the lookup's cache misses take to fill beyond a hit's latency (0 here: memory without
  // a cache model). False: element `failed` has no memory at its address.
  virtual bool tmu_lookup(unsigned qpu, unsigned tmu, const Vector& addresses, Vector& data, std::uint64_t& fill_cycles,
                          unsigned& failed) {
    (void)qpu;
    (void)tmu;
    fill_cycles = 0;
    for (unsigned i = 0; i < addresses.size(); ++i) {
      if (!read_memory(addresses[i], &data[i], 4)) {
        failed = i;
        return false;
      }
    }
    return true;
  }
};

// What a fragment shader sees of its 16 fragments and of the tile buffer: the tile renderer's front end gives one to
// the QPU that shades a batch (Qpu::start_fragment); user programs have none. Facts:
// ../shared/docs/reference-vc4-qpu.md section 5 (Mesa's vc4 compiler and validator, the guide as they quote it,
// Broadcom's compiled shaders).
class FragmentPort {
 public:
  virtual ~FragmentPort() = default;
  // raddr 35: the next varying's partial value per element, A * (x - x0) + B * (y - y0), and its C (r5 gets it at
  // the end of the instruction; the shader computes partial * W + C). False: the shader reads more varyings than
  // its shader record declares (`error` says so).
  virtual bool next_varying(Vector& partial, Vector& c, std::string& error) = 0;
  // raddr 41 (A: pixel X, B: pixel Y, integers) and 42 (A: the multisample mask, B: the reverse flag of a back face).
  virtual Vector pixel_coordinate(bool y) const = 0;
  virtual Vector ms_or_reverse(bool reverse) const = 0;
  // The scoreboard: a shader's tile buffer accesses wait until the shaders of earlier primitives on the same pixels
  // have released it (sig 4, or implicitly at the first access; false: wait). Each shader releases it once: at sig 5,
  // at its end or when it stops on an error, whichever comes first, whether or not it acquired it.
  virtual bool scoreboard_acquire() = 0;
  virtual void scoreboard_release() = 0;
  // Tile buffer writes: waddr 43 stencil setup, 44 Z, 45 colour per sample, 46 colour of every sample, 47 alpha
  // mask, for the `enabled` elements (a conditional write is a discard). False: `error` says why.
  virtual bool tlb_write(std::uint32_t address, const Vector& value, const std::array<bool, 16>& enabled,
                         std::string& error) = 0;
  // Tile buffer loads into r4: signal 7 coverage, 8 colour, 9 colour with the last-load flag, 12 alpha mask.
  virtual bool tlb_load(std::uint32_t signal, Vector& value, std::string& error) = 0;
};

// When the QPU's slow units deliver, in V3D cycles (all 0: at once, for functional use). None of these is published:
// docs/vc4-qpu.md states each default.
struct QpuTiming {
  unsigned tmu_latency_cycles = 0;  // a direct lookup's data is ready this long after its request, when it hits
  unsigned dma_setup_cycles = 0;    // a DMA transfer's start-up
  double dma_cycles_per_word = 0;   // and its rate (the memory's time may be longer: take_memory_cycles)
};

// The FIFOs of a QPU in each TMU (the VideoCore IV guide, quoted in Mesa's vc4_qir_schedule.c): the request FIFO
// (TFREQ) holds eight data slots, a lookup taking one for each of its s, t, r, b components written (four (s, t)
// lookups, or eight direct ones); the receive FIFO (TFRCV) holds eight colour slots, one per lookup of the formats
// modelled (the 16-bit float format's two reads are not). A lookup leaves the request FIFO when the receive FIFO has
// room, so up to 8 + 8 direct lookups per TMU may be outstanding. The FIFOs are the QPU's, not the thread's: a
// threaded program may use half of each. Per TMU, as the guide describes a TMU (Mesa's scheduler counts both TMUs
// together, a stricter budget).
constexpr unsigned kTmuRequestSlots = 8;
constexpr unsigned kTmuReceiveSlots = 8;

class Qpu {
 public:
  enum class Step { kIssued, kStalled, kEnded, kError };
  // What a stalled instruction waits for: another QPU (a semaphore, the mutex) or its own slow units (TMU data, a DMA
  // transfer).
  enum class Stall { kNone, kSemaphore, kMutex, kTmu, kDma, kScoreboard };

  Qpu(unsigned number, QpuEnvironment& env, const QpuTiming& timing = {});

  // Starts a program at `pc` with its uniforms at `uniforms` (a user program: SRQPC / SRQUA). Registers keep their
  // values; flags and pending results are cleared.
  void start(std::uint32_t pc, std::uint32_t uniforms);
  // Starts a fragment shader for a batch of 16 fragments: ra15 = W and rb15 = Z (24-bit integers) as the payload,
  // the varyings, pixel coordinates and tile buffer through `fragments` until the program ends. A `threaded` shader
  // (the shader record's flag bit 0 clear) is one of the two threads of its QPU: it owns registers 0-15 of each file
  // (a write to 16-31 would corrupt the other thread: an error, as the Linux validator refuses such shaders), and its
  // thread switches (sig 2, 6) take effect after two delay slots (take_thread_switch); the scheduler runs the other
  // thread then. Accumulators and flags keep their values across a switch (the hardware leaves them undefined).
  void start_fragment(std::uint32_t pc, std::uint32_t uniforms, FragmentPort& fragments, const Vector& w,
                      const Vector& z, bool threaded = false);
  // A thread switch whose delay slots have issued since the last call: kSwitch (sig 2), kLast (sig 6, the shader's
  // last switch), else kNone.
  enum class ThreadSwitch { kNone, kSwitch, kLast };
  ThreadSwitch take_thread_switch() {
    const ThreadSwitch t = thread_switch_;
    thread_switch_ = ThreadSwitch::kNone;
    return t;
  }
  // Starts a vertex or coordinate shader over a batch of up to 16 vertices (element k is vertex k): its generic VPM
  // reads address `input`, where the VCD placed the vertex attributes, and its writes `output`, which the front end
  // reads back; both from row 0, as the VPM allocator hands a shader its segments (the Broadcom guide's VCM; Mesa's
  // shaders read attributes at the record's VPM offsets and write from row 0: reference-vc4-qpu.md 5.4). VPM DMA is
  // refused: vertex pipeline shaders move data through the VCD and the primitive set-up only.
  void start_vertex(std::uint32_t pc, std::uint32_t uniforms, Vpm& input, Vpm& output);
  // A fragment, vertex or coordinate shader (not a user program).
  bool shading() const { return fragments_ != nullptr || vertex_input_ != nullptr; }
  // Issues the next instruction at V3D cycle `now` (non-decreasing from call to call): kIssued, kStalled (it waits
  // for a semaphore, the mutex, TMU data or a DMA transfer: nothing changed; step again later), kEnded (the program
  // end's last delay slot issued) or kError (error() says why; the QPU stops).
  Step step(std::uint64_t now = 0);

  // Stops the program from outside (a hang or deadlock the scheduler found): error() says `why`; a fragment shader
  // releases the scoreboard, as at its end.
  void stop(const std::string& why) {
    if (running_) fail(why);
  }
  bool running() const { return running_; }
  unsigned number() const { return number_; }
  std::uint32_t pc() const { return pc_; }
  std::uint32_t uniform_address() const { return uniform_address_; }
  const std::string& error() const { return error_; }
  Stall stall() const { return stall_; }
  std::uint64_t instructions() const { return instructions_; }
  // The words the VPM's DMA moved (loads, stores) and the TMU's direct lookups (16-element requests) of this program.
  std::uint64_t dma_load_words() const { return dma_load_words_; }
  std::uint64_t dma_store_words() const { return dma_store_words_; }
  std::uint64_t tmu_requests() const { return tmu_requests_; }
  std::uint64_t texture_requests() const { return texture_requests_; }  // those of them that were texture lookups
  // TMU requests whose results no load_tmu has taken yet.
  unsigned tmu_outstanding() const { return static_cast<unsigned>(tmu_results_[0].size() + tmu_results_[1].size()); }

  // State, for tests, traces and debuggers. Register file writes land one instruction late (no bypass): what these
  // return is what the next instruction reads.
  const Vector& ra(unsigned i) const { return ra_[i & 31U]; }
  const Vector& rb(unsigned i) const { return rb_[i & 31U]; }
  const Vector& acc(unsigned i) const { return acc_[i < 6 ? i : 0]; }
  bool z(unsigned e) const { return z_[e & 15U]; }
  bool n(unsigned e) const { return n_[e & 15U]; }
  bool c(unsigned e) const { return c_[e & 15U]; }
  void set_ra(unsigned i, const Vector& v) { ra_[i & 31U] = v; }
  void set_rb(unsigned i, const Vector& v) { rb_[i & 31U] = v; }
  void set_acc(unsigned i, const Vector& v) { acc_[i < 6 ? i : 0] = v; }

 private:
  struct Write {  // a register file write waiting for the instruction after the next to see it
    bool pending = false;
    unsigned index = 0;
    Vector value{};
    std::array<std::uint32_t, 16> mask{};  // the bits written per element (0: a disabled element)
  };
  // What an ALU (or a load immediate) writes: its value per element, the elements its condition enables and the
  // bits a pack writes.
  struct Result {
    Vector value{};
    std::array<bool, 16> enabled{};
    std::uint32_t mask = ~0U;
  };

  Step fail(const std::string& why);
  Step execute_alu(std::uint64_t inst);
  Step execute_load_immediate(std::uint64_t inst);
  Step execute_branch(std::uint64_t inst);
  bool read_address(bool file_b, std::uint32_t address, Vector& value);
  bool write_address(bool file_b, std::uint32_t address, const Result& result);
  std::array<bool, 16> condition(std::uint32_t cond) const;
  void set_flags(const Vector& value, const std::array<bool, 16>& carry, const std::array<bool, 16>& enabled);
  void commit_pending_writes();
  std::string where() const;
  // What runs, for error messages: "user program" or "vertex pipeline shader".
  const char* program_kind() const { return vertex_input_ != nullptr ? "vertex pipeline shader" : "user program"; }
  bool dma_start_waits(std::uint64_t inst, bool add_writes, bool mul_writes) const;
  // A fragment shader's instruction that reaches the tile buffer (a TLB write or load, or sig 4) waits for the
  // scoreboard first: kIssued (go on), kStalled or kError (an access after the unlock).
  Step scoreboard_ready(std::uint64_t inst, bool add_writes, bool mul_writes);
  bool fragment_input(std::uint32_t address, bool file_b, Vector& value);
  // The S write of a texture lookup on TMU `tmu`: decodes its parameters, samples, queues the result.
  bool texture_lookup(unsigned tmu, const Vector& s);
  void release_scoreboard();

  unsigned number_;
  QpuEnvironment& env_;
  std::array<Vector, 32> ra_{}, rb_{};
  std::array<Vector, 6> acc_{};
  std::array<bool, 16> z_{}, n_{}, c_{};
  // Register file writes (A, B) of two instructions: writes_[previous_] the previous one's, landing after this
  // instruction's reads; writes_[previous_ ^ 1] this one's.
  std::array<std::array<Write, 2>, 2> writes_{};
  unsigned previous_ = 0;
  bool running_ = false;
  std::uint32_t pc_ = 0;
  std::uint32_t inst_address_ = 0;  // the instruction being executed
  std::uint64_t inst_ = 0;
  std::uint32_t uniform_address_ = 0;
  std::string error_;
  Stall stall_ = Stall::kNone;
  std::uint64_t instructions_ = 0;
  // A taken branch: its target, after `branch_slots_` more instructions; a program end after `end_slots_`.
  unsigned branch_slots_ = 0;
  bool branch_taken_ = false;
  std::uint32_t branch_target_ = 0;
  std::uint32_t branch_address_ = 0;
  unsigned end_slots_ = 0;
  bool ending_ = false;
  // A thread switch signalled: it takes effect after `switch_slots_` more instructions.
  static constexpr unsigned kThreadSwitchDelaySlots = 2;
  unsigned switch_slots_ = 0;
  bool switch_last_ = false;
  ThreadSwitch thread_switch_ = ThreadSwitch::kNone;
  bool threaded_ = false;
  // An SFU result lands in r4 for the third instruction after the write (readable from there: the guide via Mesa's
  // validator, "r4 not readable in the next 2 instructions").
  unsigned sfu_countdown_ = 0;
  Vector sfu_result_{};
  bool mutex_held_ = false;
  FragmentPort* fragments_ = nullptr;  // while a fragment shader runs
  bool scoreboard_held_ = false, scoreboard_released_ = false;
  bool varying_pending_ = false;  // a varying's C lands in r5 at the end of the instruction
  Vector varying_c_{};
  bool tmu_noswap_ = false;
  VpmPort vpm_port_;
  Vpm* vertex_input_ = nullptr;  // a vertex pipeline shader's segments (start_vertex), null otherwise
  Vpm* vertex_output_ = nullptr;
  struct TmuResult {
    Vector data;
    std::uint64_t ready = 0;  // the cycle its data is back
    unsigned slots = 1;       // request FIFO slots: the s, t, r, b components written
  };
  // The TMU's request FIFO slots in use: the components of its lookup being set up, and of its lookups its receive
  // FIFO has no room for yet (the oldest ones have left the request FIFO).
  unsigned tmu_request_slots_in_use(unsigned tmu) const;
  unsigned tmu_receive_slots() const { return threaded_ ? kTmuReceiveSlots / 2 : kTmuReceiveSlots; }
  unsigned tmu_request_slots() const { return threaded_ ? kTmuRequestSlots / 2 : kTmuRequestSlots; }
  std::array<std::deque<TmuResult>, 2> tmu_results_;  // per TMU, oldest first
  // A texture lookup being set up: the parameters its writes took (P0 first) and its T, R, B coordinates.
  struct TextureSetup {
    std::array<std::uint32_t, 4> p{};
    unsigned params = 0;
    Vector t{}, r{}, b{};
    bool has_r = false, has_b = false;
  };
  std::array<TextureSetup, 2> texture_{};
  QpuTiming timing_;
  std::uint64_t now_ = 0;
  std::uint64_t load_busy_until_ = 0, store_busy_until_ = 0;  // the DMA's transfers end
  std::uint64_t dma_load_words_ = 0, dma_store_words_ = 0, tmu_requests_ = 0, texture_requests_ = 0;
};

}  // namespace gpuvp::vc4::qpu
