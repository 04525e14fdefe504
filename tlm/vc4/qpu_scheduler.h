// QpuScheduler: the V3D's QPUs and the scheduler that runs user programs on them. Software queues a program by
// writing its code address to SRQPC (with the uniforms address and length written to SRQUA/SRQUL before); the
// scheduler starts queued programs in order on free QPUs that SQRSV0/1 do not reserve, and counts requests made and
// programs completed in SRQCS (gpu_fft's direct mode polls the completed count; ../shared/docs/reference-vc4-qpu.md
// section 3). The QPUs run interleaved on one SystemC thread: each round every running QPU issues one instruction
// (vc4::qpu::Qpu), and a round takes issue_cycles V3D cycles (4: one instruction per QPU per 4 clocks, the 16 lanes
// in four quads). They share the VPM, the 16 semaphores and the mutex. Memory is reached through the V3D's bus port
// at bus addresses with their alias bits (31:30) dropped: 0x4..., 0x8... and 0xC... all map to DRAM (gpu_fft's
// BUS_TO_PHYS).
//
// A guest cannot crash or hang the simulator through it: a program error (an undefined encoding, a fetch or DMA
// outside DRAM, an unmodelled unit) stops that QPU with a report; QPUs that all wait on semaphores or the mutex, with
// no queued program to start, cost no host time: they sleep until software queues another program (which may release
// them) and, when none comes within hang_timeout_ns, are a deadlock, reported with each QPU's instruction (fragment
// shaders waiting for the scoreboard count as waiting too); a program
// still running after hang_timeout_ns is hung and stopped. A stopped program never completes (software polling SRQCS
// sees it missing, as on hardware), its QPU takes the next request.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "tlm/core/cache_tags.h"
#include "tlm/core/config.h"
#include "tlm/core/engine_kit.h"
#include "tlm/core/initiator.h"
#include "tlm/core/stats.h"
#include "tlm/core/timeline.h"
#include "tlm/core/timing.h"
#include "tlm/vc4/qpu/qpu_core.h"

namespace gpuvp::vc4 {

struct QpuSchedulerParams {
  std::uint32_t issue_cycles = 4;  // V3D cycles per instruction of a QPU
  std::uint32_t queue_depth = 16;  // requests the user-program queue holds
  // Not published (docs/vc4-qpu.md): VC4C's emulator guesses 9 cycles for a TMU lookup from its cache and 12 for a
  // DMA transfer to start; the transfer then moves a word per cycle (4 bytes per V3D clock: 1 GB/s at 250 MHz).
  std::uint32_t tmu_latency_cycles = 9;
  std::uint32_t dma_setup_cycles = 12;
  double dma_cycles_per_word = 1.0;
  // Each slice's TMU0 and TMU1 have a cache of 4 KB in 64-byte lines (the cache details of vc4asm's VideoCoreIV
  // addendum, ../shared/docs/reference-vc4-qpu.md 2.5); its associativity is not published: 4 ways is the model's.
  std::uint32_t tmu_cache_bytes = 4096;
  std::uint32_t tmu_cache_ways = 4;
  // gpu_fft gives its QPU programs 2 s (gpu_fft_base.c: execute_qpu's timeout of 2000 ms).
  std::uint64_t hang_timeout_ns = 2'000'000'000;

  void visit(core::ParamVisitor& v) {
    v.param("issue_cycles", issue_cycles, "V3D cycles per QPU instruction (16 lanes over 4 quads)", 1, 1000);
    v.param("queue_depth", queue_depth, "user-program requests the QPU scheduler queues (SRQCS.QPURQL)", 1, 63);
    v.param("tmu_latency_cycles", tmu_latency_cycles, "V3D cycles from a TMU direct lookup to its data in the FIFO", 0,
            100000);
    v.param("dma_setup_cycles", dma_setup_cycles, "V3D cycles a VPM DMA transfer (VCD load, VDW store) takes to start",
            0, 100000);
    // At least 1/16 cycle per word: a transfer's host cost must come with simulated time (a program starting 64 KiB
    // transfers back to back must not freeze time).
    v.param("dma_cycles_per_word", dma_cycles_per_word, "V3D cycles per 32-bit word a VPM DMA transfer moves", 0.0625,
            1000.0);
    v.param("tmu_cache_bytes", tmu_cache_bytes,
            "bytes of each slice's TMU0 and TMU1 cache (64-byte lines; 0: every direct lookup fills from memory)", 0,
            1U << 20);
    v.param("tmu_cache_ways", tmu_cache_ways, "associativity of the TMU caches (LRU)", 1, 64);
    v.param("hang_timeout_ns", hang_timeout_ns, "simulated time a QPU program may run before it is hung", 1000,
            1'000'000'000'000ULL);
  }
};

struct QpuSchedulerServices {
  core::Initiator& memory;
  const core::ClockDomain& clock;
  std::function<bool(std::uint64_t address, std::uint64_t length)> in_dram;
  std::function<void(unsigned qpu)> host_interrupt;  // a QPU wrote host_int
};

// A shader batch from a front end: a fragment shader over 16 fragments (the tile renderer), or a vertex or coordinate
// shader over up to 16 vertices (the renderer's and the binner's vertex fetch). Its code and uniforms, what it reads
// and writes (the fragment port and payload, or the VPM segments), and where the outcome goes.
struct ShaderJob {
  // The SQRSV bit that keeps this kind of shader off a QPU is the kind's value. Bit 1 FS; bits 2 and 3 VS and CS in
  // the order the reference note lists them (reference-vc4-qpu.md 3.1: "meaning of bits 1-3 UNVERIFIED").
  enum class Kind : unsigned { kFragment = 1, kVertex = 2, kCoordinate = 3 };
  struct Status {
    bool done = false;
    std::string error;             // empty: the shader ended normally
    core::Picoseconds end_ps = 0;  // when it ended (the scheduler's local time: it may be ahead of the kernel's)
  };
  Kind kind = Kind::kFragment;
  std::uint32_t pc = 0, uniforms = 0;
  qpu::FragmentPort* port = nullptr;  // a fragment shader's
  qpu::Vector w{}, z{};
  qpu::Vpm* input = nullptr;  // a vertex or coordinate shader's segments
  qpu::Vpm* output = nullptr;
  Status* status = nullptr;  // set when the shader ends or is stopped
  // A fragment shader whose record allows two threads per QPU (flag bit 0 clear): it may share its QPU with another
  // threaded batch, the two taking turns at their thread switches.
  bool threaded = false;
};

class QpuScheduler : public sc_core::sc_module, private qpu::QpuEnvironment {
 public:
  QpuScheduler(sc_core::sc_module_name name, unsigned slices, unsigned qpus_per_slice, const QpuSchedulerParams& params,
               const QpuSchedulerServices& services);
  ~QpuScheduler() override;

  // SRQPC written: queues a program at `pc` with the uniforms at `uniforms`. False when the queue is full (the
  // request is lost and QPURQERR set).
  bool request(std::uint32_t pc, std::uint32_t uniforms, std::uint32_t uniforms_length);
  // SRQCS: queue length (5:0), error (7), requests made (15:8) and programs completed (23:16), both mod 256. A
  // write of 1 to bit 7, 8 or 16 clears the error, the made count or the completed count.
  std::uint32_t srqcs() const;
  void write_srqcs(std::uint32_t value);
  // SQRSV0/1: bit 0 of QPU n's nibble keeps user programs off it.
  void set_reservations(std::uint32_t sqrsv0, std::uint32_t sqrsv1);
  // A front end queues a shader batch at the caller's local time; batches start before queued user programs, in order
  // within their kind, on any QPU whose reservation nibble has the kind's bit clear. A threaded fragment batch that
  // finds no free QPU takes the second thread of a QPU running a threaded one (reference-vc4-qpu.md 5.1: two threads
  // per QPU): the running thread goes on until its thread switch (after the signal's two delay slots), then the other
  // runs until its own, and so on; a thread's end hands the QPU to the other. After LAST_THREAD_SWITCH (sig 6) the
  // later-started thread does not run again until the earlier one has ended (Mesa vc4_qpu_emit.c: so that it cannot
  // take the scoreboard of a quad the earlier one still holds). A stalled thread stalls its QPU (the hardware switches
  // only at the signals). The job's port, segments and status must outlive it.
  void shade(const ShaderJob& job, core::Picoseconds at);
  // Takes back a batch that has not started (its status done, "cancelled"): a front end whose list was reset or hung
  // must not leave work queued behind it (a guest keeping every QPU reserved would let such batches pile up). False
  // when it has started or ended: it runs to its end.
  bool cancel(const ShaderJob::Status* status);
  // Shader jobs queued or running; `shaders_done()` is notified when the count returns to 0.
  unsigned shader_jobs_pending() const { return shader_pending_; }
  const sc_core::sc_event& shaders_done() const { return shaders_done_; }
  const sc_core::sc_event& shader_ended() const { return shader_ended_; }  // each batch's end
  std::uint64_t shader_jobs_ended() const { return shader_jobs_ended_; }   // batches ended so far
  // When the last fragment shader batch ended (the scheduler's local time: it may be ahead of the kernel's).
  core::Picoseconds fragments_end_ps() const { return fragments_end_ps_; }
  // SLCACTL written: its T0CCS (19:16) and T1CCS (27:24) bits clear the TMU caches of those slices.
  void clear_tmu_caches(std::uint32_t slcactl);

  unsigned qpu_count() const { return static_cast<unsigned>(qpus_.size()); }
  const qpu::Qpu& qpu(unsigned n) const { return *qpus_.at(n).core; }
  std::uint64_t programs_completed() const { return completed_.value; }
  const std::vector<std::string>& incidents() const { return engine_.incidents(); }

 private:
  // What belongs to the program one of a QPU's two hardware threads runs.
  struct ThreadState {
    std::unique_ptr<qpu::Qpu> core;
    core::Picoseconds started_ps = 0;
    std::uint64_t first_instruction = 0;  // the core's instruction count when the program started
    std::uint32_t program = 0;            // its code address
    ShaderJob::Status* shader = nullptr;  // the running shader's, null for a user program
    bool fragment_job = false;            // the running program is a fragment shader
    bool threaded = false;                // a threaded fragment shader (may share the QPU)
    std::uint64_t spawn = 0;              // the order threads started in (LAST_THREAD_SWITCH's "earlier")
    bool after_last_switch = false;       // it has passed its LAST_THREAD_SWITCH
  };
  // A QPU: the thread it runs (the ThreadState base: `core` issues) and, for threaded fragment shaders, the other
  // thread, which waits for its turn.
  struct Slot : ThreadState {
    bool busy = false;
    // The QPU's own clock: the cycle of its next issue (the scheduler's cycle_ unless it started behind), and when
    // its last program ended.
    std::uint64_t cycle = 0;
    std::uint64_t free_cycle = 0;
    // When each of its reservation bits (user programs, FS, VS, CS) was last cleared.
    std::array<core::Picoseconds, 4> available_ps{};
    ThreadState other;        // the QPU's other thread
    bool other_busy = false;  // it holds a started threaded fragment shader
    core::FetchLine code_line{64};
    core::FetchLine uniform_line{64};
    core::Counter* instructions = nullptr;
    core::Counter* busy_cycles = nullptr;
    core::Counter* semaphore_stall_cycles = nullptr;
    core::Counter* mutex_stall_cycles = nullptr;
    core::Counter* tmu_stall_cycles = nullptr;
    core::Counter* dma_stall_cycles = nullptr;
    core::Counter* scoreboard_stall_cycles = nullptr;
    core::Counter* thread_switches = nullptr;
    core::Counter* programs = nullptr;
    int track = 0;
    std::unique_ptr<core::OpenSpan> span;
  };
  struct Request {
    std::uint32_t pc, uniforms, uniforms_length;
    core::Picoseconds arrival_ps;  // when software wrote SRQPC (the front end queued the batch)
    bool is_shader = false;        // a front end's batch, `shader` (else a user program)
    ShaderJob shader;
  };

  void run();
  void dispatch();
  void finish(unsigned n, bool completed);
  // Every running QPU waits and no queued program can start: only a new request can release them.
  bool all_waiting(const std::vector<unsigned>& stalled) const;
  static core::Counter* stall_counter(const Slot& s);
  // Sleeps until a request comes or the oldest program's time runs out; then the waiting QPUs are a deadlock.
  void sleep_while_waiting(const std::vector<unsigned>& stalled);
  // Reservation bit `bit` of QPU n: 0 user programs, else a ShaderJob::Kind.
  bool reserved(unsigned n, unsigned bit = 0) const { return ((reservations_ >> (4 * n + bit)) & 1U) != 0; }
  void start(unsigned n, const Request& r);
  // Starts a threaded fragment batch on QPU n's other thread (the QPU runs a threaded one).
  void start_other_thread(unsigned n, const Request& r);
  // QPU n's running thread and its other thread change places (the span on its track follows the running one).
  void switch_threads(unsigned n);
  // At a thread switch of QPU n's running thread: whether the other thread may run (not a later thread waiting, after
  // its last switch, for this earlier one to end).
  bool other_thread_may_run(const Slot& s) const {
    return s.other_busy && !(s.other.after_last_switch && s.other.spawn > s.spawn);
  }
  bool fetch_through(core::FetchLine& line, std::uint32_t address, void* data, unsigned bytes);

  // QpuEnvironment
  bool fetch_instruction(std::uint32_t address, std::uint64_t& instruction) override;
  bool read_uniform(std::uint32_t address, std::uint32_t& value) override;
  bool semaphore(unsigned number, bool acquire) override;
  bool mutex_acquire(unsigned qpu) override;
  void mutex_release(unsigned qpu) override;
  void host_interrupt(unsigned qpu) override;
  qpu::Vpm& vpm() override { return vpm_; }
  bool read_memory(std::uint32_t address, void* data, std::uint32_t bytes) override;
  bool write_memory(std::uint32_t address, const void* data, std::uint32_t bytes) override;
  std::uint64_t take_memory_cycles() override;
  bool tmu_lookup(unsigned qpu, unsigned tmu, const qpu::Vector& addresses, qpu::Vector& data,
                  std::uint64_t& fill_cycles, unsigned& failed) override;
  qpu::DmaMemory& texel_memory() override { return texels_; }
  std::uint64_t tmu_fill_cycles(unsigned qpu, unsigned tmu, const std::vector<std::uint32_t>& lines) override;
  // Texels as a texture lookup reads them: memory as it is, untimed (the lines are charged by tmu_fill_cycles).
  class TexelMemory : public qpu::DmaMemory {
   public:
    explicit TexelMemory(QpuScheduler& scheduler) : scheduler_(scheduler) {}
    bool read_memory(std::uint32_t address, void* data, std::uint32_t bytes) override;
    bool write_memory(std::uint32_t, const void*, std::uint32_t) override { return false; }

   private:
    QpuScheduler& scheduler_;
  };
  TexelMemory texels_{*this};
  // A timed bus access at the scheduler's local time; its latency counts towards take_memory_cycles.
  bool timed_access(bool write, std::uint32_t physical, void* data, std::uint32_t bytes);

  QpuSchedulerParams params_;
  QpuSchedulerServices services_;
  core::EngineKit engine_;
  sc_core::sc_event kick_;
  // Requests and reservation changes so far: an event notified while the thread waits out its quantum is lost, so the
  // thread compares this count across its sync before it waits for the event.
  std::uint64_t kicks_ = 0;
  void kick() {
    ++kicks_;
    kick_.notify(sc_core::SC_ZERO_TIME);
  }
  std::vector<Slot> qpus_;
  std::deque<Request> queue_;
  std::deque<Request> shader_queue_;
  unsigned shader_pending_ = 0;
  std::uint64_t shader_jobs_ended_ = 0;
  core::Picoseconds fragments_end_ps_ = 0;
  sc_core::sc_event shaders_done_, shader_ended_;
  unsigned running_ = 0;
  std::uint64_t cycle_ = 0;    // V3D cycles the scheduler has run: the QPUs' clock
  std::uint64_t spawned_ = 0;  // programs started so far (ThreadState::spawn)
  unsigned stepping_ = 0;      // the QPU whose instruction runs (for the environment's calls)
  std::uint64_t reservations_ = 0;
  bool queue_error_ = false;
  std::uint32_t made_count_ = 0, completed_count_ = 0;  // SRQCS's, cleared by software
  std::array<unsigned, 16> semaphores_{};
  std::uint64_t mutex_owner_ = 0;  // the owning program's ThreadState::spawn, 0: free
  qpu::Vpm vpm_;
  unsigned qpus_per_slice_;
  std::vector<std::array<core::CacheTags, 2>> tmu_caches_;  // per slice: TMU0's and TMU1's (tags: lines / 64)
  core::Picoseconds memory_latency_ps_ = 0;                 // the slowest access since take_memory_cycles
  core::StatsGroup stats_;
  core::Counter& requests_;
  core::Counter& completed_;
  core::Counter& failed_;
  core::Counter& dma_load_words_;
  core::Counter& dma_store_words_;
  core::Counter& tmu_requests_;
  core::Counter& fragment_batches_;
  core::Counter& vertex_batches_;
  core::Counter& tmu_cache_hits_;
  core::Counter& tmu_cache_misses_;
  std::vector<core::StatsGroup> qpu_stats_;
};

}  // namespace gpuvp::vc4
