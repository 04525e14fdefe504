#include "tlm/vc4/qpu_scheduler.h"

#include <algorithm>
#include <cstring>

#include "tlm/core/format_hex.h"
#include "tlm/vc4/qpu/qpu_disassembler.h"

namespace gpuvp::vc4 {

namespace {
// The V3D's bus addresses carry cache-alias bits in 31:30 (gpu_fft: 0x4... L2-cached, 0xC... direct; BUS_TO_PHYS
// drops them): every alias reaches the same DRAM.
constexpr std::uint32_t kAliasMask = 0x3FFFFFFFU;
}  // namespace

QpuScheduler::QpuScheduler(sc_core::sc_module_name name, unsigned slices, unsigned qpus_per_slice,
                           const QpuSchedulerParams& params, const QpuSchedulerServices& services)
    : sc_module(name),
      params_(params),
      services_(services),
      engine_(this->name(), services.clock, params.hang_timeout_ns * core::kPsPerNs, core::EngineState::kIdle),
      qpus_(slices * qpus_per_slice),
      qpus_per_slice_(std::max(1U, qpus_per_slice)),
      stats_(this->name()),
      requests_(stats_.counter("programs_requested", "events", "user programs queued through SRQPC")),
      completed_(stats_.counter("programs_completed", "events", "user programs that reached their program end")),
      failed_(stats_.counter("programs_failed", "events", "user programs stopped by an error, a deadlock or a hang")),
      dma_load_words_(stats_.counter("dma_load_words", "words", "words the VCD's DMA loaded into the VPM")),
      dma_store_words_(stats_.counter("dma_store_words", "words", "words the VDW's DMA stored from the VPM")),
      tmu_requests_(stats_.counter("tmu_requests", "events", "TMU direct lookups (16 elements each)")),
      fragment_batches_(stats_.counter("fragment_batches", "events", "fragment shader batches (16 fragments) run")),
      vertex_batches_(
          stats_.counter("vertex_batches", "events", "vertex and coordinate shader batches (up to 16 vertices) run")),
      tmu_cache_hits_(
          stats_.counter("tmu_cache_hits", "lines", "64-byte lines TMU direct lookups found in their TMU's cache")),
      tmu_cache_misses_(stats_.counter("tmu_cache_misses", "lines",
                                       "64-byte lines TMU direct lookups filled from memory through the bus")) {
  const unsigned tmu_lines = params.tmu_cache_bytes / 64;
  const unsigned ways = std::min(std::max(1U, params.tmu_cache_ways), std::max(1U, tmu_lines));
  tmu_caches_.assign(slices, {core::CacheTags(tmu_lines / ways, ways), core::CacheTags(tmu_lines / ways, ways)});
  for (unsigned n = 0; n < qpus_.size(); ++n) {
    Slot& s = qpus_[n];
    qpu::QpuEnvironment& environment = *this;
    const qpu::QpuTiming timing{params.tmu_latency_cycles, params.dma_setup_cycles, params.dma_cycles_per_word};
    s.core = std::make_unique<qpu::Qpu>(n, environment, timing);
    s.other.core = std::make_unique<qpu::Qpu>(n, environment, timing);
    qpu_stats_.push_back(stats_.subgroup("qpu" + std::to_string(n)));
    core::StatsGroup& g = qpu_stats_.back();
    s.instructions = &g.counter("instructions", "instructions", "instructions issued");
    s.busy_cycles = &g.counter("busy_cycles", "cycles", "V3D cycles running a program");
    s.semaphore_stall_cycles =
        &g.counter("semaphore_stall_cycles", "cycles", "V3D cycles waiting on a semaphore (part of busy_cycles)");
    s.mutex_stall_cycles =
        &g.counter("mutex_stall_cycles", "cycles", "V3D cycles waiting for the mutex (part of busy_cycles)");
    s.tmu_stall_cycles =
        &g.counter("tmu_stall_cycles", "cycles", "V3D cycles a load_tmu waited for its data (part of busy_cycles)");
    s.dma_stall_cycles = &g.counter("dma_stall_cycles", "cycles",
                                    "V3D cycles waiting for a VPM DMA transfer to end (part of busy_cycles)");
    s.scoreboard_stall_cycles =
        &g.counter("scoreboard_stall_cycles", "cycles",
                   "V3D cycles a fragment shader waited for the scoreboard (part of busy_cycles)");
    s.thread_switches = &g.counter("thread_switches", "events",
                                   "times a threaded fragment shader's switch handed the QPU to its other thread");
    s.programs = &g.counter("programs", "events", "programs that ran to their end on this QPU");
    s.track = core::timeline().track(std::string(this->name()) + ".qpu" + std::to_string(n));
    s.span = std::make_unique<core::OpenSpan>();
  }
  SC_HAS_PROCESS(QpuScheduler);
  SC_THREAD(run);
}

QpuScheduler::~QpuScheduler() = default;

bool QpuScheduler::request(std::uint32_t pc, std::uint32_t uniforms, std::uint32_t uniforms_length) {
  if (queue_.size() >= params_.queue_depth) {
    queue_error_ = true;
    return false;
  }
  queue_.push_back({pc, uniforms, uniforms_length, core::to_ps(sc_core::sc_time_stamp()), false, ShaderJob{}});
  made_count_ = (made_count_ + 1) & 0xFFU;
  ++requests_;
  kick();
  return true;
}

std::uint32_t QpuScheduler::srqcs() const {
  return (static_cast<std::uint32_t>(queue_.size()) & 0x3FU) | (queue_error_ ? 1U << 7 : 0U) | made_count_ << 8 |
         completed_count_ << 16;
}

void QpuScheduler::write_srqcs(std::uint32_t value) {
  // gpu_fft_base.c writes (1 << 7) + (1 << 8) + (1 << 16): "Reset error bit and counts".
  if ((value & (1U << 7)) != 0) queue_error_ = false;
  if ((value & (1U << 8)) != 0) made_count_ = 0;
  if ((value & (1U << 16)) != 0) completed_count_ = 0;
}

void QpuScheduler::set_reservations(std::uint32_t sqrsv0, std::uint32_t sqrsv1) {
  const std::uint64_t was = reservations_;
  reservations_ = static_cast<std::uint64_t>(sqrsv1) << 32 | sqrsv0;
  // A QPU freed now can take a queued program from now on, not from when the program was queued.
  for (unsigned n = 0; n < qpus_.size(); ++n) {
    for (unsigned bit = 0; bit < 4; ++bit) {
      if (((was >> (4 * n + bit)) & 1U) != 0 && !reserved(n, bit)) {
        qpus_[n].available_ps[bit] = core::to_ps(sc_core::sc_time_stamp());
      }
    }
  }
  kick();
}

void QpuScheduler::clear_tmu_caches(std::uint32_t slcactl) {
  for (unsigned slice = 0; slice < tmu_caches_.size() && slice < 4; ++slice) {
    if (((slcactl >> (16 + slice)) & 1U) != 0) tmu_caches_[slice][0].invalidate();
    if (((slcactl >> (24 + slice)) & 1U) != 0) tmu_caches_[slice][1].invalidate();
  }
}

void QpuScheduler::shade(const ShaderJob& job, core::Picoseconds at) {
  shader_queue_.push_back({job.pc, job.uniforms, 0, at, true, job});
  ++shader_pending_;
  kick();
}

bool QpuScheduler::cancel(const ShaderJob::Status* status) {
  const auto it = std::find_if(shader_queue_.begin(), shader_queue_.end(),
                               [&](const Request& r) { return r.shader.status == status; });
  if (it == shader_queue_.end()) return false;
  it->shader.status->done = true;
  it->shader.status->error = "cancelled";
  shader_queue_.erase(it);
  if (--shader_pending_ == 0) shaders_done_.notify(sc_core::SC_ZERO_TIME);
  return true;
}

void QpuScheduler::dispatch() {
  // Batches start in order within their kind: a free QPU takes, of the kinds its reservations allow, the batch that
  // arrived first, so a kind every QPU refuses does not hold the others back. Front ends queue batches at their own
  // local time, each in its order, but one running ahead in its quantum may queue before another's earlier batch:
  // the arrival time, not the queue order, decides between kinds (queue order between equal times).
  for (unsigned n = 0; n < qpus_.size() && !shader_queue_.empty(); ++n) {
    if (qpus_[n].busy) continue;
    auto it = shader_queue_.end();
    for (auto candidate = shader_queue_.begin(); candidate != shader_queue_.end(); ++candidate) {
      if (reserved(n, static_cast<unsigned>(candidate->shader.kind))) continue;
      if (it == shader_queue_.end() || candidate->arrival_ps < it->arrival_ps) it = candidate;
    }
    if (it == shader_queue_.end()) continue;
    const Request r = *it;
    shader_queue_.erase(it);
    start(n, r);
  }
  // Second threads: a QPU running a threaded fragment shader takes the oldest fragment batch it may run when that one
  // is threaded too (free QPUs took theirs first).
  for (unsigned n = 0; n < qpus_.size() && !shader_queue_.empty(); ++n) {
    const Slot& s = qpus_[n];
    if (!s.busy || !s.threaded || s.other_busy) continue;
    const auto it = std::find_if(shader_queue_.begin(), shader_queue_.end(), [&](const Request& r) {
      return r.shader.kind == ShaderJob::Kind::kFragment && !reserved(n, static_cast<unsigned>(r.shader.kind));
    });
    // A batch requested ahead of the scheduler's clock waits for it (its requester runs ahead in its quantum): a
    // second thread starts at once, so that would make its time depend on the quantum.
    if (it == shader_queue_.end() || !it->shader.threaded || it->arrival_ps > engine_.now()) continue;
    const Request r = *it;
    shader_queue_.erase(it);
    start_other_thread(n, r);
  }
  for (unsigned n = 0; n < qpus_.size() && !queue_.empty(); ++n) {
    if (qpus_[n].busy || reserved(n)) continue;
    const Request r = queue_.front();
    queue_.pop_front();
    start(n, r);
  }
}

void QpuScheduler::start(unsigned n, const Request& r) {
  {
    Slot& s = qpus_[n];
    s.busy = true;
    // Running ahead of the kernel (temporal decoupling), the scheduler may see a request after the time it was made:
    // the program starts then (its QPU catches up in the next round), so that its time does not depend on the
    // quantum.
    const core::Picoseconds now = engine_.now();
    const core::Picoseconds since =
        std::max(r.arrival_ps, s.available_ps[r.is_shader ? static_cast<unsigned>(r.shader.kind) : 0]);
    if (since > now) {
      // Requested ahead of the scheduler's clock (its requester runs ahead in its quantum): the QPU waits until then.
      s.cycle = std::max(cycle_ + services_.clock.cycles_in(since - now), s.free_cycle);
      s.started_ps = now + services_.clock.cycles(s.cycle - cycle_);
    } else {
      const std::uint64_t behind = services_.clock.cycles_in(now - since);
      s.cycle = std::max(behind < cycle_ ? cycle_ - behind : 0, s.free_cycle);
      s.started_ps = now - services_.clock.cycles(cycle_ - std::min(s.cycle, cycle_));
    }
    s.program = r.pc;
    s.first_instruction = s.core->instructions();
    s.code_line.invalidate();
    s.uniform_line.invalidate();
    s.shader = r.is_shader ? r.shader.status : nullptr;
    s.threaded = r.is_shader && r.shader.kind == ShaderJob::Kind::kFragment && r.shader.threaded;
    s.spawn = ++spawned_;
    s.after_last_switch = false;
    const char* what = "program ";
    if (!r.is_shader) {
      s.core->start(r.pc, r.uniforms);
    } else if (r.shader.kind == ShaderJob::Kind::kFragment) {
      s.core->start_fragment(r.pc, r.uniforms, *r.shader.port, r.shader.w, r.shader.z, s.threaded);
      what = "fragments ";
    } else {
      s.core->start_vertex(r.pc, r.uniforms, *r.shader.input, *r.shader.output);
      what = r.shader.kind == ShaderJob::Kind::kVertex ? "vertices " : "coordinates ";
    }
    s.fragment_job = r.is_shader && r.shader.kind == ShaderJob::Kind::kFragment;
    ++running_;
    // The name is formatted only for a trace: a batch of fragments starts every few hundred instructions.
    if (core::timeline().enabled()) s.span->begin(s.track, what + core::format_hex(r.pc, 8), engine_.now());
  }
}

void QpuScheduler::start_other_thread(unsigned n, const Request& r) {
  Slot& s = qpus_[n];
  ThreadState& t = s.other;
  s.other_busy = true;
  // It waits for its turn on a QPU that runs: its time counts from now (the hang timeout too).
  t.started_ps = std::max(engine_.now(), r.arrival_ps);
  t.program = r.pc;
  t.first_instruction = t.core->instructions();
  t.shader = r.shader.status;
  t.fragment_job = true;
  t.threaded = true;
  t.spawn = ++spawned_;
  t.after_last_switch = false;
  t.core->start_fragment(r.pc, r.uniforms, *r.shader.port, r.shader.w, r.shader.z, true);
}

void QpuScheduler::switch_threads(unsigned n) {
  Slot& s = qpus_[n];
  std::swap(static_cast<ThreadState&>(s), s.other);
  ++*s.thread_switches;
  if (core::timeline().enabled()) {
    s.span->end(engine_.now());
    s.span->begin(s.track, "fragments " + core::format_hex(s.program, 8), engine_.now());
  }
}

void QpuScheduler::finish(unsigned n, bool completed) {
  Slot& s = qpus_[n];
  s.busy = false;
  s.free_cycle = s.cycle;
  --running_;
  s.span->end(engine_.now());
  if (mutex_owner_ == s.spawn) mutex_owner_ = 0;  // a stopped program must not keep the others out
  if (s.core->shading()) {
    // A shader batch: its outcome goes to the front end, not to SRQCS's counts.
    ++(s.fragment_job ? fragment_batches_ : vertex_batches_);
    if (s.shader != nullptr) {
      s.shader->done = true;
      s.shader->error = completed ? std::string() : s.core->error().empty() ? "stopped" : s.core->error();
      s.shader->end_ps = engine_.now();
    }
    s.shader = nullptr;
    // The front end sees the end at the shader's time, not at the start of the scheduler's quantum.
    if (s.fragment_job) fragments_end_ps_ = std::max(fragments_end_ps_, engine_.now());
    ++shader_jobs_ended_;
    shader_ended_.notify(engine_.time().offset());
    if (--shader_pending_ == 0) shaders_done_.notify(engine_.time().offset());
  } else if (completed) {
    completed_count_ = (completed_count_ + 1) & 0xFFU;
    ++completed_;
    ++*s.programs;
  } else {
    ++failed_;
  }
  dma_load_words_.value += s.core->dma_load_words();
  dma_store_words_.value += s.core->dma_store_words();
  tmu_requests_.value += s.core->tmu_requests();
  if (s.other_busy) {
    // The QPU's other thread takes over. After a thread stopped by a deadlock, a hang or an error, its hang timeout
    // counts from now: it could not run while the stopped one held the QPU.
    s.other_busy = false;
    switch_threads(n);
    s.busy = true;
    ++running_;
    if (!completed) s.started_ps = std::max(s.started_ps, engine_.now());
  }
}

core::Counter* QpuScheduler::stall_counter(const Slot& s) {
  switch (s.core->stall()) {
    case qpu::Qpu::Stall::kMutex:
      return s.mutex_stall_cycles;
    case qpu::Qpu::Stall::kTmu:
      return s.tmu_stall_cycles;
    case qpu::Qpu::Stall::kDma:
      return s.dma_stall_cycles;
    case qpu::Qpu::Stall::kScoreboard:
      return s.scoreboard_stall_cycles;
    default:
      return s.semaphore_stall_cycles;
  }
}

bool QpuScheduler::all_waiting(const std::vector<unsigned>& stalled) const {
  // Only QPUs change the QPU semaphores and the mutex; a QPU waiting for its own TMU data or DMA goes on by itself.
  if (stalled.empty() || stalled.size() != running_) return false;
  for (unsigned n : stalled) {
    const qpu::Qpu::Stall why = qpus_[n].core->stall();
    if (why != qpu::Qpu::Stall::kSemaphore && why != qpu::Qpu::Stall::kMutex && why != qpu::Qpu::Stall::kScoreboard) {
      return false;
    }
  }
  for (unsigned n = 0; n < qpus_.size(); ++n) {
    if (qpus_[n].busy) continue;
    if (!queue_.empty() && !reserved(n)) return false;
    if (std::any_of(shader_queue_.begin(), shader_queue_.end(),
                    [&](const Request& r) { return !reserved(n, static_cast<unsigned>(r.shader.kind)); })) {
      return false;
    }
  }
  return true;
}

void QpuScheduler::sleep_while_waiting(const std::vector<unsigned>& stalled) {
  const std::uint64_t kicks = kicks_;
  const core::Picoseconds from = engine_.now();
  engine_.time().sync();
  core::Picoseconds deadline = ~core::Picoseconds{0};
  for (unsigned n : stalled) deadline = std::min(deadline, qpus_[n].started_ps + engine_.hang_timeout_ps() + 1);
  // A request that came while the thread caught up (its kick lost) ends the sleep at once.
  if (kicks == kicks_ && deadline > engine_.now()) sc_core::wait(core::to_sc_time(deadline - engine_.now()), kick_);
  // The sleep counts as waiting for each QPU.
  const std::uint64_t cycles = services_.clock.cycles_in(engine_.now() - from);
  for (unsigned n : stalled) {
    Slot& s = qpus_[n];
    *s.busy_cycles += cycles;
    *stall_counter(s) += cycles;
    s.cycle += cycles;
  }
  cycle_ += cycles;
  if (engine_.now() < deadline) return;  // a request came
  std::string report = "deadlock: every running QPU waits, nothing releases it and no program came to start within " +
                       std::to_string(engine_.hang_timeout_ps() / core::kPsPerNs) + " ns of the oldest one's start:";
  for (unsigned n : stalled) {
    const qpu::Qpu& q = *qpus_[n].core;
    std::uint64_t inst = 0;
    read_memory(q.pc(), &inst, 8);
    report += " QPU " + std::to_string(n) + " at " + core::format_hex(q.pc(), 8) + " '" + qpu::disassemble(inst) +
              "' (" +
              (q.stall() == qpu::Qpu::Stall::kMutex        ? "the mutex"
               : q.stall() == qpu::Qpu::Stall::kScoreboard ? "the scoreboard"
                                                           : "a semaphore") +
              ");";
  }
  std::string counts;
  for (unsigned i = 0; i < semaphores_.size(); ++i) counts += (i ? "," : "") + std::to_string(semaphores_[i]);
  report += " semaphores " + counts;
  engine_.record_hang(report);
  for (unsigned n : stalled) {
    qpus_[n].core->stop("stopped: a deadlock (every running QPU waited)");
    finish(n, false);
  }
}

void QpuScheduler::run() {
  const std::uint64_t round_cycles = params_.issue_cycles;
  std::vector<unsigned> stalled, ended;
  for (;;) {
    dispatch();
    if (running_ == 0) {
      engine_.set_state(core::EngineState::kIdle);
      const std::uint64_t kicks = kicks_;
      engine_.time().sync();
      if (kicks == kicks_) sc_core::wait(kick_);  // else a request came while it caught up
      continue;
    }
    // Every running QPU starts later (requested ahead of the scheduler's clock): the scheduler idles until the first.
    std::uint64_t earliest = ~std::uint64_t{0};
    for (const Slot& s : qpus_) {
      if (s.busy) earliest = std::min(earliest, s.cycle);
    }
    if (earliest > cycle_) {
      engine_.set_state(core::EngineState::kIdle);
      engine_.cycles(earliest - cycle_);
      cycle_ = earliest;
      engine_.time().sync_if_needed();
    }
    engine_.set_state(core::EngineState::kRunning);
    stalled.clear();
    ended.clear();
    bool progressed = false;
    for (unsigned n = 0; n < qpus_.size(); ++n) {
      Slot& s = qpus_[n];
      if (!s.busy) continue;
      stepping_ = n;
      // One issue per round; a QPU whose program started behind the scheduler's clock issues until it is level.
      qpu::Qpu::Step last = qpu::Qpu::Step::kIssued;
      while (s.cycle <= cycle_ && last != qpu::Qpu::Step::kEnded && last != qpu::Qpu::Step::kError) {
        *s.busy_cycles += round_cycles;
        last = s.core->step(s.cycle);
        s.cycle += round_cycles;
        if (last == qpu::Qpu::Step::kIssued) {
          const qpu::Qpu::ThreadSwitch sw = s.core->take_thread_switch();
          if (sw == qpu::Qpu::ThreadSwitch::kLast) s.after_last_switch = true;
          if (sw != qpu::Qpu::ThreadSwitch::kNone && other_thread_may_run(s)) switch_threads(n);
        }
        if (last == qpu::Qpu::Step::kIssued || last == qpu::Qpu::Step::kEnded) ++*s.instructions;
        if (last != qpu::Qpu::Step::kStalled) progressed = true;
        if (last == qpu::Qpu::Step::kStalled) *stall_counter(s) += round_cycles;
      }
      if (last == qpu::Qpu::Step::kStalled) stalled.push_back(n);
      if (last == qpu::Qpu::Step::kEnded || last == qpu::Qpu::Step::kError) ended.push_back(n);
    }
    engine_.cycles(round_cycles);
    cycle_ += round_cycles;
    if (!ended.empty()) {
      // Software sees a program end (SRQCS's count, an error) at the end of its last instruction, not at the start
      // of the scheduler's quantum.
      engine_.time().sync();
      for (unsigned n : ended) {
        const bool completed = qpus_[n].core->error().empty();
        if (!completed) engine_.record_error(qpus_[n].core->error());
        finish(n, completed);
      }
    }
    // A QPU that issued or ended this round may have released what the stalled ones wait for (a semaphore, the
    // scoreboard in a shader's last delay slot) after they tried: they try again next round.
    if (!progressed && all_waiting(stalled)) {
      sleep_while_waiting(stalled);
      continue;
    }
    for (unsigned n = 0; n < qpus_.size(); ++n) {
      Slot& s = qpus_[n];
      if (!s.busy || engine_.now() <= s.started_ps + engine_.hang_timeout_ps()) continue;  // (it may start ahead)
      engine_.record_hang("QPU " + std::to_string(n) + ": the program at " + core::format_hex(s.program, 8) +
                          " has run " + std::to_string(s.core->instructions() - s.first_instruction) +
                          " instructions without ending (now at " + core::format_hex(s.core->pc(), 8) + ")");
      s.core->stop("stopped: hung (no end within the hang timeout)");
      finish(n, false);
    }
    engine_.time().sync_if_needed();
  }
}

// ---- the QPUs' environment ----

bool QpuScheduler::timed_access(bool write, std::uint32_t physical, void* data, std::uint32_t bytes) {
  // At the scheduler's local time, so that what a QPU writes is stamped when it happens, whatever the quantum; the
  // bus and DRAM add their latency and contention, which a DMA transfer or a TMU fill waits for (the QPU issuing the
  // instruction is not delayed by it).
  sc_core::sc_time delay = engine_.time().offset();
  const core::Picoseconds start = core::to_ps(delay);
  const tlm::tlm_response_status status = write ? services_.memory.write(physical, data, bytes, delay)
                                                : services_.memory.read(physical, data, bytes, delay);
  memory_latency_ps_ = std::max(memory_latency_ps_, core::to_ps(delay) - start);
  return status == tlm::TLM_OK_RESPONSE;
}

bool QpuScheduler::read_memory(std::uint32_t address, void* data, std::uint32_t bytes) {
  const std::uint32_t physical = address & kAliasMask;
  if (bytes == 0 || !services_.in_dram(physical, bytes)) return false;
  return timed_access(false, physical, data, bytes);
}

bool QpuScheduler::write_memory(std::uint32_t address, const void* data, std::uint32_t bytes) {
  const std::uint32_t physical = address & kAliasMask;
  if (bytes == 0 || !services_.in_dram(physical, bytes)) return false;
  // TLM's data pointer is non-const by design; the memory does not modify write data.
  if (!timed_access(true, physical, const_cast<void*>(data), bytes)) return false;
  // A QPU may store into code or uniforms another QPU reads: their lines go.
  for (Slot& s : qpus_) {
    for (std::uint32_t a = physical & ~63U; a < physical + bytes; a += 64) {
      s.code_line.written(a);
      s.uniform_line.written(a);
    }
  }
  return true;
}

std::uint64_t QpuScheduler::take_memory_cycles() {
  const core::Picoseconds period = services_.clock.cycles(1);
  const std::uint64_t cycles = (memory_latency_ps_ + period - 1) / period;
  memory_latency_ps_ = 0;
  return cycles;
}

bool QpuScheduler::TexelMemory::read_memory(std::uint32_t address, void* data, std::uint32_t bytes) {
  const std::uint32_t physical = address & kAliasMask;
  if (bytes == 0 || !scheduler_.services_.in_dram(physical, bytes)) return false;
  return scheduler_.services_.memory.debug_read(physical, data, bytes) == bytes;
}

std::uint64_t QpuScheduler::tmu_fill_cycles(unsigned qpu, unsigned tmu, const std::vector<std::uint32_t>& lines) {
  core::CacheTags& cache = tmu_caches_[(qpu / qpus_per_slice_) % tmu_caches_.size()][tmu & 1U];
  take_memory_cycles();
  std::array<unsigned char, 64> scratch{};
  for (const std::uint32_t line : lines) {
    const std::uint32_t physical = line & kAliasMask & ~63U;
    if (cache.access(physical / 64)) {
      ++tmu_cache_hits_;
    } else {
      ++tmu_cache_misses_;
      if (services_.in_dram(physical, 64)) timed_access(false, physical, scratch.data(), 64);
    }
  }
  return take_memory_cycles();
}

bool QpuScheduler::tmu_lookup(unsigned qpu, unsigned tmu, const qpu::Vector& addresses, qpu::Vector& data,
                              std::uint64_t& fill_cycles, unsigned& failed) {
  // The 16 elements' lines, each looked up once in the slice's cache of that TMU: a miss reads the line through the
  // bus (its time is the fill's), a hit costs the hit latency alone. The cache holds tags only: the words come from
  // memory as it is now (the model's TMU cache is coherent; the hardware's is not, and software clears it through
  // SLCACTL before a program reads data written since, as gpu_fft does).
  core::CacheTags& cache = tmu_caches_[(qpu / qpus_per_slice_) % tmu_caches_.size()][tmu & 1U];
  std::array<std::uint32_t, 16> lines{};
  std::array<unsigned char, 16 * 64> bytes{};
  unsigned count = 0;
  take_memory_cycles();
  for (unsigned i = 0; i < addresses.size(); ++i) {
    const std::uint32_t physical = addresses[i] & kAliasMask;
    const std::uint32_t line = physical & ~63U;
    unsigned k = 0;
    while (k < count && lines[k] != line) ++k;
    if (k == count) {
      if (!services_.in_dram(line, 64)) {
        failed = i;
        return false;
      }
      lines[count++] = line;
      unsigned char* buffer = &bytes[static_cast<std::size_t>(k) * 64];
      if (cache.access(line / 64)) {
        ++tmu_cache_hits_;
        if (services_.memory.debug_read(line, buffer, 64) != 64) {
          failed = i;
          return false;
        }
      } else {
        ++tmu_cache_misses_;
        if (!timed_access(false, line, buffer, 64)) {
          failed = i;
          return false;
        }
      }
    }
    std::memcpy(&data[i], &bytes[static_cast<std::size_t>(k) * 64 + (physical & 63U)], 4);
  }
  fill_cycles = take_memory_cycles();
  return true;
}

bool QpuScheduler::fetch_through(core::FetchLine& line, std::uint32_t address, void* data, unsigned bytes) {
  const std::uint32_t physical = address & kAliasMask;
  if ((physical & (bytes - 1)) != 0) return false;  // instructions and uniforms are aligned
  if (!line.holds(physical)) {
    const std::uint64_t start = line.line_of(physical);
    if (!services_.in_dram(start, line.size())) return read_memory(physical, data, bytes);
    sc_core::sc_time delay = engine_.time().offset();
    if (services_.memory.read(start, line.buffer(), line.size(), delay) != tlm::TLM_OK_RESPONSE) return false;
    line.filled(start, 0, start);
  }
  std::memcpy(data, line.at(physical), bytes);
  return true;
}

bool QpuScheduler::fetch_instruction(std::uint32_t address, std::uint64_t& instruction) {
  return fetch_through(qpus_[stepping_].code_line, address, &instruction, 8);
}

bool QpuScheduler::read_uniform(std::uint32_t address, std::uint32_t& value) {
  return fetch_through(qpus_[stepping_].uniform_line, address, &value, 4);
}

bool QpuScheduler::semaphore(unsigned number, bool acquire) {
  // 16 four-bit counting semaphores: an acquire waits at 0, a release at 15 (VC4C's emulator).
  unsigned& count = semaphores_[number & 15U];
  if (acquire ? count == 0 : count == 15) return false;
  count = acquire ? count - 1 : count + 1;
  return true;
}

bool QpuScheduler::mutex_acquire(unsigned qpu) {
  // The owner is the program (its thread), not the QPU: a QPU's two threads are two programs.
  if (mutex_owner_ != 0) return false;
  mutex_owner_ = qpus_[qpu].spawn;
  return true;
}

void QpuScheduler::mutex_release(unsigned qpu) {
  if (mutex_owner_ == qpus_[qpu].spawn) mutex_owner_ = 0;
}

void QpuScheduler::host_interrupt(unsigned qpu) {
  // The interrupt reaches the host at the QPU's time, not ahead of the kernel's.
  engine_.time().sync();
  if (services_.host_interrupt) services_.host_interrupt(qpu);
}

}  // namespace gpuvp::vc4
