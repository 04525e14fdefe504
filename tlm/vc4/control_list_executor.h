// ControlListExecutor: one of the two control list executor (CLE) threads of the V3D, CT0 (binning) or CT1
// (rendering). It fetches control-list packets from physical memory (vc4 has no MMU) with timing, decodes every opcode
// of the V3D 2.1 packet table with its exact length, executes the control-flow packets (HALT, NOP, BRANCH,
// BRANCH_TO_SUB_LIST, RETURN_FROM_SUB_LIST, semaphores), records the last value of every state packet, and hands the
// other packets to its unit (the PTB binner on CT0, the tile renderer on CT1); without a unit it counts and reports
// them (once per thread and packet type) as not modelled. Facts: docs/vc4-v3d.md; opcodes and sizes in
// hw/vc4/packets.h (Linux drivers/gpu/drm/vc4/vc4_packet.h), CTnCS bits in hw/vc4/v3d_regs.h (vc4_regs.h), vc4_gem.c
// (submit_cl: "Writing the end register is what starts the job"; hangcheck compares CTnCA).
//
// A guest can never crash or hang the simulator through it: an unknown opcode, a packet running past the end address,
// a branch outside DRAM, a fetch the bus refuses, a return with an empty stack or sub-lists nested deeper than two
// levels stop the thread with CTERR set and a SystemC error; a thread that makes no progress for hang_timeout_ns is
// declared hung with a report and parks until CTRSTA (or CTRUN = 0) resets it.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <vector>

#include "hw/vc4/packets.h"
#include "hw/vc4/v3d_regs.h"
#include "tlm/core/config.h"
#include "tlm/core/engine_kit.h"
#include "tlm/core/initiator.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/stats.h"
#include "tlm/core/timeline.h"
#include "tlm/core/timing.h"
#include "tlm/vc4/compressed_list.h"

namespace gpuvp::vc4 {

// What executing a packet needs beyond the CLE itself.
enum class PacketUnit : std::uint8_t {
  kCle,       // the CLE executes it completely (control flow, semaphores, state recorded for later units)
  kBinner,    // needs the PTB binner (TileBinner, CT0's unit)
  kRenderer,  // needs the tile renderer (TileRenderer, CT1's unit)
};

// The model's packet table: the opcodes, names and lengths of hw/vc4/packets.h and the unit each packet needs.
struct PacketInfo {
  const char* name;
  std::uint8_t length;  // total bytes including the opcode; 0 = variable (escape-terminated)
  PacketUnit unit;
};

// The packet table entry of an opcode, or nullptr for an opcode the hardware does not define.
const PacketInfo* packet_info(std::uint8_t opcode);

// The V3D's counting semaphore between the two CLE threads (CTnCS.CTSEMA, bits 14:12: three bits, so at most 7).
class CleSemaphore {
 public:
  static constexpr unsigned kMax = 7;
  unsigned count() const { return count_; }
  // False when the count is already at its maximum (the increment is lost). Waiters wake after delay (the
  // incrementing thread's local time offset).
  bool increment(const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);
  bool try_decrement();
  void reset();
  const sc_core::sc_event& changed() const { return changed_; }

 private:
  unsigned count_ = 0;
  sc_core::sc_event changed_;
};

struct ControlListExecutorParams {
  std::uint32_t packet_cycles = 2;              // every packet (and every entry of a compressed primitive list)
  std::uint32_t byte_cycles = 1;                // every byte after the opcode
  std::uint32_t fetch_bytes = 32;               // bytes the CLE fetches from memory at once (aligned)
  std::uint64_t hang_timeout_ns = 100'000'000;  // the Linux driver's hangcheck period (vc4_gem.c, 100 ms)

  void visit(core::ParamVisitor& v) {
    v.param("packet_cycles", packet_cycles, "V3D cycles to decode any control-list packet", 0, 100000);
    v.param("byte_cycles", byte_cycles, "V3D cycles per packet byte after the opcode", 0, 100000);
    v.param("fetch_bytes", fetch_bytes, "control-list fetch size in bytes (power of two)", 4, 4096);
    v.param("hang_timeout_ns", hang_timeout_ns, "simulated time without progress before a CLE thread is hung", 1000,
            1'000'000'000'000ULL);
  }
};

// The last value of one state packet.
struct StatePacket {
  bool seen = false;
  std::uint32_t address = 0;  // where it was fetched
  std::uint8_t length = 0;
  std::array<std::uint8_t, packet::kMaxFixedLength> bytes{};  // including the opcode
  std::uint8_t u8(unsigned offset) const { return bytes.at(offset); }
  std::uint16_t u16(unsigned offset) const { return static_cast<std::uint16_t>(u8(offset) | u8(offset + 1) << 8); }
  std::uint32_t u32(unsigned offset) const { return u16(offset) | static_cast<std::uint32_t>(u16(offset + 2)) << 16; }
};

// End of frame: STORE_MS_TILE_BUFFER_AND_EOF, or the EOF bit of a full-resolution or general store's address word
// (vc4_packet.h VC4_LOADSTORE_FULL_RES_EOF, VC4_LOADSTORE_TILE_BUFFER_EOF). The CLE raises RFC on it; the renderer
// ends the frame's last tile there.
bool ends_frame(const StatePacket& p);

// Per-thread record of what the list did: the last value of every packet type (state packets are what later
// units consume) and how often each opcode ran.
struct ControlListState {
  std::array<StatePacket, 256> last{};
  std::array<std::uint64_t, 256> executed{};
  std::uint8_t primitive_list_format() const {
    return last[packet::kPrimitiveListFormat].seen ? last[packet::kPrimitiveListFormat].u8(1) : 0;
  }
};

// The unit a CLE thread hands its non-control-flow packets to: the PTB binner on CT0 (TileBinner), the tile renderer
// on CT1 (TileRenderer). The unit runs on the CLE thread's SystemC thread and may wait (memory, out-of-memory stall).
struct UnitContext {
  core::LocalTime& time;                  // the CLE thread's local time offset
  const sc_core::sc_event& kick;          // notified when software stops or resets the thread
  std::function<bool()> running;          // false once software stopped or reset the thread
  core::Picoseconds hang_timeout_ps = 0;  // how long a stall may last before it is a hang
  int track = 0;                          // the thread's timeline track
  std::uint64_t frame = 0;                // the thread's list count, as the trace's "(frame N)" names it
};

struct UnitResult {
  enum class Kind : std::uint8_t {
    kDone,     // executed
    kIgnored,  // not a packet of this unit: the CLE warns once per packet type and goes on
    kError,    // the thread stops with CTERR; message says why
    kHang,     // the unit cannot progress (message says why): the thread is declared hung
    kAborted,  // software stopped or reset the thread while the unit waited
  };
  Kind kind = Kind::kDone;
  std::string message;
  static UnitResult done() { return {}; }
  static UnitResult ignored() { return {Kind::kIgnored, {}}; }
  static UnitResult error(std::string m) { return {Kind::kError, std::move(m)}; }
  static UnitResult hang(std::string m) { return {Kind::kHang, std::move(m)}; }
  static UnitResult aborted() { return {Kind::kAborted, {}}; }
};

class ControlListUnit {
 public:
  virtual ~ControlListUnit() = default;
  virtual const char* unit_name() const = 0;
  // Every packet except HALT, NOP, branches, returns and the semaphores.
  virtual UnitResult execute(const StatePacket& p, UnitContext& ctx) = 0;
  // One primitive entry of a compressed list (render thread) reached the unit, decoded to its vertex indices.
  // kError stops the thread with CTERR at the entry, as execute()'s errors do.
  virtual UnitResult compressed_primitive(std::uint32_t /*address*/, std::uint8_t /*list_format*/,
                                          const compressed::Primitive& /*primitive*/, UnitContext&) {
    return UnitResult::done();
  }
  // CTRSTA, or a fresh start of the thread (EA written while stopped).
  virtual void thread_reset() {}

 protected:
  // A timed access through port on the CLE thread's local time (the bus's delay is added to ctx.time); false when
  // the bus refuses it.
  static bool timed_access(core::Initiator& port, UnitContext& ctx, bool write, std::uint64_t address, void* data,
                           unsigned len);
};

// What a thread needs from the V3D around it.
struct ControlListServices {
  core::RegisterBank& regs;
  core::Initiator& memory;
  const core::ClockDomain& clock;
  CleSemaphore& semaphore;
  // True when [address, address + length) lies in the platform's DRAM (the only memory the CLE may read).
  std::function<bool(std::uint64_t address, std::uint64_t length)> in_dram;
  // A FLUSH completed (BFC and FLDONE) / an end-of-frame tile store completed (RFC and FRDONE).
  std::function<void()> flush_done;
  std::function<void()> frame_done;
  // The other thread is running (a semaphore wait is not a hang while it works).
  std::function<bool()> peer_running;
  // The other thread waits on the semaphore (running or hung there): two threads waiting on each other are
  // deadlocked, as only an INCREMENT_SEMAPHORE of a thread releases the other.
  std::function<bool()> peer_waiting;
};

// CTnCS bits (kCtMode, kCtErr, ...): CtnCsFields in hw/vc4/v3d_regs.h.
class ControlListExecutor : public sc_core::sc_module, public CtnCsFields {
 public:
  // kStopped (not started, finished or stopped by software), kRunning, kError, kHung; never kIdle.
  using State = core::EngineState;
  static constexpr unsigned kMaxSubListDepth = 2;

  // thread 0 = CT0 (binning), 1 = CT1 (rendering); its registers go into the V3D's bank.
  ControlListExecutor(sc_core::sc_module_name name, unsigned thread, const ControlListExecutorParams& params,
                      const ControlListServices& services);

  unsigned thread() const { return thread_; }
  State state() const { return engine_.state(); }
  const ControlListState& list_state() const { return list_state_; }
  std::uint32_t current_address() const { return static_cast<std::uint32_t>(ca_->value()); }
  std::uint32_t end_address() const { return static_cast<std::uint32_t>(ea_->value()); }
  unsigned return_depth() const { return static_cast<unsigned>(stack_.size()); }
  bool waiting_on_semaphore() const { return waiting_semaphore_; }
  // True while the thread runs from the guest's point of view (CTRUN): running, or hung and not yet reset.
  bool run_bit() const { return engine_.running() || engine_.state() == State::kHung; }
  const std::vector<std::string>& incidents() const { return engine_.incidents(); }
  std::uint64_t packets_executed() const { return packets_.value; }

  // CTRSTA: stop the thread and reset its status (error, return stack, semaphore).
  void reset();

  // The binner or renderer fed by this thread (nullptr: their packets are counted and reported as not modelled).
  // With a unit attached an INCREMENT_SEMAPHORE is queued and takes effect at the thread's next completion point. The
  // guide's packet table gives it for both threads: "Increment Semaphore: after tile lists are flushed or last tile
  // written" (Broadcom VideoCore IV 3D Architecture Reference Guide, transcribed in PeterLemon CONTROL_LIST.INC). On
  // CT0 that is the FLUSH completing in the PTB (vc4_validate.c "the FLUSH ... actually triggers the queued semaphore
  // increment"; Mesa vc4_job.c "doesn't act until the FLUSH completes"); on CT1 it is the last tile of the frame
  // written, i.e. the end-of-frame store completing (the point RFC counts and FRDONE rises). A bare CLE (no unit)
  // applies increments at once.
  void set_unit(ControlListUnit* unit) { unit_ = unit; }
  bool semaphore_increment_waits_for_flush() const { return unit_ != nullptr && thread_ == 0; }
  bool semaphore_increment_waits_for_frame() const { return unit_ != nullptr && thread_ == 1; }
  void on_binner_flush_complete();
  void on_frame_complete();
  unsigned pending_semaphore_increments() const { return pending_increments_; }
  // CTnPC: primitives remaining in the primitive packet being binned (the binner updates it).
  void set_primitives_remaining(std::uint32_t n) { pc_->set(n); }

 private:
  enum class Outcome { kNext, kJumped, kRetry, kStopped };
  struct Packet {
    std::uint32_t address = 0;
    std::uint8_t opcode = 0;
    unsigned length = 0;
    std::array<std::uint8_t, packet::kMaxFixedLength> bytes{};
    std::uint32_t u32(unsigned offset) const {
      return static_cast<std::uint32_t>(bytes[offset]) | static_cast<std::uint32_t>(bytes[offset + 1]) << 8 |
             static_cast<std::uint32_t>(bytes[offset + 2]) << 16 | static_cast<std::uint32_t>(bytes[offset + 3]) << 24;
    }
  };

  void run();
  void step();
  void step_compressed(std::uint32_t ca, std::uint32_t ea);
  Outcome execute(Packet& p);
  Outcome branch(const Packet& p, bool sub_list);
  Outcome return_from_sub_list(const Packet& p);
  Outcome wait_on_semaphore(const Packet& p);
  void increment_semaphore();
  void apply_semaphore_increments();
  void without_unit(const Packet& p, PacketUnit unit);
  // Reads len bytes of the list at address through the fetch buffer; false with reason set when the bytes are not
  // in DRAM or the bus refuses the read.
  bool fetch(std::uint32_t address, unsigned len, std::uint8_t* out, std::string& reason);

  // Starts (EA written) or resumes (CTRUN written 1) the thread at CA.
  void start(bool fresh);
  void stop(State s);
  void finish_at_end();
  Outcome fail(std::uint32_t address, int opcode, const std::string& what);
  void declare_hang(const std::string& cause = {});
  Outcome run_unit(const Packet& p, const StatePacket& rec);
  void set_ca(std::uint32_t ca);
  void update_stack_registers();
  std::string thread_name() const;
  std::string describe_registers() const;
  std::uint32_t cs_value() const;
  void cycles(std::uint64_t n) { engine_.cycles(n); }
  // What decoding a packet or compressed-list entry of len bytes costs: packet_cycles and byte_cycles per byte after
  // the first, and at least one cycle for a jump, even when the configuration makes packets free, so that a list that
  // loops on itself moves time and meets the hang watchdog.
  std::uint64_t decode_cycles(unsigned len, bool jump) const {
    const std::uint64_t n = params_.packet_cycles + static_cast<std::uint64_t>(params_.byte_cycles) * (len - 1);
    return jump && n == 0 ? 1 : n;
  }
  void set_state(State s);

  unsigned thread_;
  ControlListExecutorParams params_;
  ControlListServices services_;
  // Local time, state and busy time, watchdog (progress: list bytes beyond the furthest reached since the start),
  // errors/hangs statistics and incidents.
  core::EngineKit engine_;
  std::vector<std::uint32_t> stack_;  // return addresses, at most kMaxSubListDepth
  bool waiting_semaphore_ = false;
  bool in_compressed_ = false;  // inside a compressed primitive list (until its escape byte)
  std::uint8_t compressed_opcode_ = 0;
  compressed::Primitive previous_primitive_;  // base of the relative codings
  unsigned pending_increments_ = 0;
  sc_core::sc_event kick_;
  core::FetchLine fetch_line_;
  ControlListState list_state_;
  std::bitset<256> warned_;
  ControlListUnit* unit_ = nullptr;
  UnitContext unit_ctx_;
  // Counts resets. A unit's call began in one generation; running() is false once another has begun, so a packet
  // that waited across a reset and a restart in the same delta ends instead of going on into the new list.
  std::uint64_t generation_ = 0;
  std::uint64_t unit_generation_ = 0;
  std::bitset<256> ignored_warned_;

  core::Register* cs_;
  core::Register* ea_;
  core::Register* ca_;
  core::Register* ra0_;
  core::Register* lc_;
  core::Register* pc_;

  // The list on the timeline: "bin list <CA>" (CT0) or "render list <CA>" (CT1) with its frame number (the thread's
  // count of lists started by a CTnEA write), from the start to its end, error, hang or reset.
  core::OpenSpan list_span_;
  std::uint64_t frames_ = 0;
  core::StatsGroup stats_;
  core::Counter& packets_;
  core::Counter& bytes_;
  core::Counter& not_modelled_;
  core::Counter& semaphore_waits_;
};

}  // namespace gpuvp::vc4
