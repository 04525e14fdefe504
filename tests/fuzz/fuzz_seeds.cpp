// Writes the seed corpora of the fuzz harnesses, built with the project's own host drivers and encoders (the inputs
// the tests use), so each harness starts from inputs that reach deep: `fuzz_seeds DIR` writes DIR/NAME/seed-N.
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hw/gen/engine_regs.h"
#include "hw/gen/engines.h"
#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "hw/vc4/qpu_isa.h"
#include "platform/aub_reader.h"
#include "platform/tbx_protocol.h"
#include "tb/host/gpgpu_kernels.h"
#include "tb/host/host_port.h"
#include "tb/host/i915_driver.h"
#include "tb/host/vc4_driver.h"

namespace {

using Bytes = std::vector<std::uint8_t>;

void put_dwords(Bytes& out, const std::vector<std::uint32_t>& dwords) {
  for (const std::uint32_t d : dwords) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(d >> (8 * i)));
  }
}
void put_u16(Bytes& out, std::size_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}

void write_seed(const std::filesystem::path& dir, const std::string& name, int n, const Bytes& bytes) {
  std::filesystem::create_directories(dir / name);
  std::ofstream(dir / name / ("seed-" + std::to_string(n)), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// What the demo's batches do: stores, register loads, MI_MATH, a flush, the end.
std::vector<std::uint32_t> demo_batch(gpuvp::gen::Engine engine) {
  namespace mi = gpuvp::gen::mi;
  using Alu = mi::Alu;
  const gpuvp::gen::EngineInfo& info = gpuvp::gen::engine_info(engine);
  std::vector<std::uint32_t> cmds;
  constexpr std::uint64_t kOut = 0x100000;  // the first GGTT page the driver maps
  for (std::uint32_t d = 0; d < 4; ++d) mi::emit(cmds, mi::store_data_imm(kOut + 4 * d, 0x1000 + d));
  const std::uint32_t gpr = info.mmio_base + gpuvp::gen::engine_reg::kGpr0;
  mi::emit(cmds, mi::load_register_imm({{gpr, 1000}, {gpr + 8, 234}}));
  mi::emit(cmds, mi::math({Alu::encode(Alu::kLoad, Alu::kSrcA, 0), Alu::encode(Alu::kLoad, Alu::kSrcB, 1),
                           Alu::encode(Alu::kAdd, 0, 0), Alu::encode(Alu::kStore, 2, Alu::kAccu)}));
  mi::emit(cmds, mi::store_register_mem(gpr + 16, kOut + 64));
  mi::emit(cmds, mi::semaphore_wait(kOut, 0x1000, mi::Compare::kEqual));
  if (info.render) {
    mi::emit(cmds, mi::pipe_control(mi::kPcCsStall | mi::kPcPostSyncImm | mi::kPcDestGgtt, kOut + 72, 0x600DF00Dull));
  } else {
    mi::emit(cmds, mi::flush_dw(kOut + 72, 0x600DF00D, true, false));
  }
  mi::emit(cmds, mi::batch_buffer_end());
  return cmds;
}

// A legacy ring on the render engine in one GGTT page (GGTT 0x10000 -> physical 0x100000): the demo's batch commands
// inline (their stores go to GGTT 0x100000 -> physical 0x102000), ending in MI_STORE_DATA_IMM of 0xC0FFEE to GGTT
// 0x11000 (-> physical 0x101000). What both the TBX and the AUB seeds submit.
constexpr std::uint64_t kRingPage = 0x100000;
constexpr std::uint64_t kTargetPage = 0x101000;
constexpr std::uint64_t kOutPage = 0x102000;
Bytes ring_bytes() {
  namespace mi = gpuvp::gen::mi;
  std::vector<std::uint32_t> ring = demo_batch(gpuvp::gen::Engine::kRcs);
  ring.pop_back();  // the batch end: a ring goes on to its tail
  mi::emit(ring, mi::store_data_imm(0x11000, 0xC0FFEE));
  if (ring.size() % 2) ring.push_back(0);  // MI_NOOP: the tail is qword aligned
  Bytes bytes;
  put_dwords(bytes, ring);
  return bytes;
}
// The ring's registers in the order a driver writes them: start, head, control (valid, one page), tail last.
std::vector<std::pair<std::uint32_t, std::uint32_t>> ring_registers(std::size_t ring_size) {
  namespace reg = gpuvp::gen::engine_reg;
  const std::uint32_t base = gpuvp::gen::engine_info(gpuvp::gen::Engine::kRcs).mmio_base;
  return {{base + reg::kStart, 0x10000},
          {base + reg::kHead, 0},
          {base + reg::kCtl, 1},
          {base + reg::kTail, static_cast<std::uint32_t>(ring_size)}};
}

// A TBX client's messages (NEO tbx_sockets_imp.cpp layouts).
class TbxStream {
 public:
  void control() {
    namespace tbx = gpuvp::platform::tbx;
    header(tbx::MsgType::kControlReq, tbx::kControlBodyBytes);
    put(tbx::encode_control({tbx::kControlHas, tbx::kControlHas | tbx::kControlTimeAdv | tbx::kControlAsync}));
  }
  void mmio(bool write, std::uint32_t offset, std::uint32_t value) {
    namespace tbx = gpuvp::platform::tbx;
    header(tbx::MsgType::kMmioReq, tbx::kMmioBodyBytes);
    tbx::MmioRequest r;
    r.write = write;
    r.offset = offset;
    r.data = value;
    put(tbx::encode_mmio(r));
  }
  void gtt(bool write, std::uint32_t index, std::uint64_t entry) {
    namespace tbx = gpuvp::platform::tbx;
    header(tbx::MsgType::kGttReq, tbx::kGttBodyBytes);
    put(tbx::encode_gtt({write, index, entry}));
  }
  void data(bool write, std::uint64_t address, const Bytes& bytes, std::uint32_t read_size = 0) {
    namespace tbx = gpuvp::platform::tbx;
    header(write ? tbx::MsgType::kWriteDataReq : tbx::MsgType::kReadDataReq, tbx::kDataBodyBytes);
    tbx::DataRequest r;
    r.write = write;
    r.address = address;
    r.size = write ? static_cast<std::uint32_t>(bytes.size()) : read_size;
    put(tbx::encode_data(r));
    out_.insert(out_.end(), bytes.begin(), bytes.end());
  }
  const Bytes& bytes() const { return out_; }

 private:
  void header(gpuvp::platform::tbx::MsgType type, std::size_t size) {
    put(gpuvp::platform::tbx::encode_header(
        {static_cast<std::uint32_t>(type), trans_id_++, static_cast<std::uint32_t>(size)}));
  }
  template <std::size_t N>
  void put(const std::array<std::uint8_t, N>& a) {
    out_.insert(out_.end(), a.begin(), a.end());
  }
  Bytes out_;
  std::uint32_t trans_id_ = 0;
};

// ---- fuzz_qpu: QPU programs encoded with hw/vc4/qpu_isa.h ----

namespace qpu = gpuvp::vc4::qpu;
using QpuProgram = std::vector<std::uint64_t>;

constexpr std::uint32_t qpu_acc(unsigned n) { return qpu::kWriteAcc0 + n; }  // rN as a write address
// The add ALU's `op` into `dest` (file A for 0-31, file B with `file_b`) from muxes a and b.
qpu::AluInstruction qpu_add(std::uint32_t op, std::uint32_t dest, std::uint32_t a, std::uint32_t b,
                            bool file_b = false) {
  qpu::AluInstruction i;
  i.op_add = op;
  i.waddr_add = dest;
  i.add_a = a;
  i.add_b = b;
  i.ws = file_b ? 1 : 0;
  return i;
}
// `op` of mux a and small immediate `code` (0-15: the value) into `dest`.
std::uint64_t qpu_add_small(std::uint32_t op, std::uint32_t dest, std::uint32_t a, std::uint32_t code) {
  qpu::AluInstruction i = qpu_add(op, dest, a, qpu::kMuxB);
  i.sig = qpu::kSigSmallImmediate;
  i.raddr_b = code;
  return i.encode();
}
// A move from file A's read address `address` (a register, or a special one: uniform, element number, VPM, mutex).
std::uint64_t qpu_read_a(std::uint32_t dest, std::uint32_t address, std::uint32_t sig = qpu::kSigNone) {
  qpu::AluInstruction i = qpu_add(qpu::kOr, dest, qpu::kMuxA, qpu::kMuxA);
  i.raddr_a = address;
  i.sig = sig;
  return i.encode();
}
// A 32-bit load immediate to `dest` of file A (or B: vw_setup and vw_addr are file B's 49 and 50).
std::uint64_t qpu_ldi(std::uint32_t dest, std::uint32_t value, bool file_b = false) {
  qpu::LoadImmediateInstruction i;
  (file_b ? i.waddr_mul : i.waddr_add) = dest;
  i.value = value;
  return i.encode();
}
std::uint64_t qpu_nop() { return qpu::AluInstruction{}.encode(); }
// The program end and its two delay slots.
void qpu_end(QpuProgram& program) {
  qpu::AluInstruction thrend;
  thrend.sig = qpu::kSigProgramEnd;
  program.push_back(thrend.encode());
  program.push_back(qpu_nop());
  program.push_back(qpu_nop());
}

// A fuzz_qpu input (tests/fuzz/fuzz_qpu.cpp): `cores` QPUs run `program`, QPU i from instruction starts[i] with its
// uniforms from word first_uniform[i]; `memory` is the start of the memory window at bus address 0.
Bytes qpu_seed(unsigned cores, const QpuProgram& program, const std::array<std::uint8_t, 4>& starts,
               const std::vector<std::uint32_t>& uniforms = {}, const std::array<std::uint8_t, 4>& first_uniform = {},
               const std::vector<std::uint32_t>& memory = {}, std::uint8_t mode_bits = 0) {
  Bytes seed{static_cast<std::uint8_t>((cores - 2) | mode_bits), static_cast<std::uint8_t>(program.size()),
             static_cast<std::uint8_t>(uniforms.size())};
  seed.insert(seed.end(), starts.begin(), starts.end());
  seed.insert(seed.end(), first_uniform.begin(), first_uniform.end());
  for (const std::uint64_t inst : program) {
    put_dwords(seed, {static_cast<std::uint32_t>(inst), static_cast<std::uint32_t>(inst >> 32)});
  }
  put_dwords(seed, uniforms);
  put_dwords(seed, memory);
  return seed;
}

// Integer and float ops on both ALUs, flags and conditional writes, packs and unpacks, the SFU, on two QPUs.
Bytes qpu_alu_seed() {
  QpuProgram p;
  p.push_back(qpu_ldi(qpu_acc(0), 0x3FC00000));  // 1.5f
  p.push_back(qpu_ldi(qpu_acc(1), 7));
  p.push_back(qpu_add_small(qpu::kAdd, qpu_acc(2), qpu::kR1, 5));
  qpu::AluInstruction both = qpu_add(qpu::kFadd, 0, qpu::kR0, qpu::kR0);  // fadd ra0 ; fmul rb0
  both.op_mul = qpu::kFmul;
  both.waddr_mul = 0;
  p.push_back(both.encode());
  qpu::AluInstruction flags = qpu_add(qpu::kSub, qpu_acc(3), qpu::kR1, qpu::kR2);
  flags.sf = 1;
  p.push_back(flags.encode());
  qpu::AluInstruction if_negative = qpu_add(qpu::kOr, 1, qpu::kR3, qpu::kR3);
  if_negative.cond_add = qpu::kNs;
  p.push_back(if_negative.encode());
  qpu::AluInstruction shift_mul = qpu_add(qpu::kShl, 2, qpu::kR1, qpu::kMuxB);
  shift_mul.sig = qpu::kSigSmallImmediate;
  shift_mul.raddr_b = 3;
  shift_mul.op_mul = qpu::kMul24;
  shift_mul.waddr_mul = qpu_acc(3);
  shift_mul.mul_a = qpu::kR1;
  shift_mul.mul_b = qpu::kR2;
  p.push_back(shift_mul.encode());
  p.push_back(qpu_add(qpu::kItof, qpu_acc(2), qpu::kR1, qpu::kR1).encode());
  p.push_back(qpu_add(qpu::kFtoi, qpu_acc(3), qpu::kR0, qpu::kR0).encode());
  p.push_back(qpu_read_a(3, qpu::kReadElementOrQpu));
  p.push_back(qpu_add(qpu::kOr, qpu::kWriteSfuRecip, qpu::kR0, qpu::kR0).encode());
  qpu::AluInstruction v8 = qpu_add(qpu::kAddV8adds, qpu_acc(1), qpu::kR1, qpu::kR2);
  v8.op_mul = qpu::kV8min;
  v8.waddr_mul = 4;
  v8.mul_a = qpu::kR1;
  v8.mul_b = qpu::kR3;
  p.push_back(v8.encode());
  p.push_back(qpu_nop());
  p.push_back(qpu_add(qpu::kOr, 5, qpu::kR4, qpu::kR4).encode());  // the reciprocal, three instructions on
  qpu::AluInstruction packed = qpu_add(qpu::kFadd, 6, qpu::kR0, qpu::kR0);
  packed.pack = qpu::kPack16a;
  p.push_back(packed.encode());
  qpu::AluInstruction unpacked = qpu_add(qpu::kFmax, qpu_acc(0), qpu::kMuxA, qpu::kR0);
  unpacked.raddr_a = 6;
  unpacked.unpack = qpu::kUnpack16a;
  p.push_back(unpacked.encode());
  qpu::LoadImmediateInstruction per_element;
  per_element.mode = qpu::kLoadPerElementSigned;
  per_element.waddr_add = qpu_acc(1);
  per_element.value = 0x00F0F00F;
  p.push_back(per_element.encode());
  qpu_end(p);
  return qpu_seed(2, p, {0, 0, 0, 0});
}

// A loop of ten: a counter with flags and a relative branch back over its three delay slots, on three QPUs.
Bytes qpu_branch_loop_seed() {
  QpuProgram p;
  p.push_back(qpu_ldi(qpu_acc(0), 10));
  qpu::AluInstruction count = qpu_add(qpu::kSub, qpu_acc(0), qpu::kR0, qpu::kMuxB);
  count.sig = qpu::kSigSmallImmediate;
  count.raddr_b = 1;
  count.sf = 1;
  p.push_back(count.encode());
  qpu::BranchInstruction back;
  back.cond = qpu::kAnyZc;
  back.offset = (1 - (2 + 1 + static_cast<int>(qpu::kBranchDelaySlots))) * 8;  // from the link to instruction 1
  p.push_back(back.encode());
  p.push_back(qpu_add_small(qpu::kAdd, qpu_acc(1), qpu::kR1, 1));
  p.push_back(qpu_nop());
  p.push_back(qpu_nop());
  qpu::BranchInstruction linked;  // a branch over nothing that writes its link to ra2
  linked.waddr_add = 2;
  p.push_back(linked.encode());
  p.push_back(qpu_nop());
  p.push_back(qpu_nop());
  p.push_back(qpu_nop());
  qpu_end(p);
  return qpu_seed(3, p, {0, 0, 0, 0});
}

// Two QPUs hand over through semaphores: QPU 0 releases 3 and waits on 4; QPU 1 waits on 3 and releases 4.
Bytes qpu_semaphore_seed() {
  QpuProgram p;
  p.push_back(qpu_ldi(qpu_acc(0), 1));
  p.push_back(qpu_add(qpu::kAdd, qpu_acc(0), qpu::kR0, qpu::kR0).encode());
  p.push_back(qpu::encode_semaphore(3, false));
  p.push_back(qpu::encode_semaphore(4, true));
  qpu_end(p);
  const auto second = static_cast<std::uint8_t>(p.size());
  p.push_back(qpu::encode_semaphore(3, true));
  p.push_back(qpu_ldi(qpu_acc(1), 2));
  p.push_back(qpu::encode_semaphore(4, false));
  qpu_end(p);
  return qpu_seed(2, p, {0, second, 0, 0});
}

// Three fragment shaders with two varyings each (fuzz_qpu's fragment mode: byte 0 bit 2, varyings in bits 5:3): each
// interpolates a varying with W, loads the tile buffer's colour and writes colour and Z, then unlocks the scoreboard
// in its last delay slot.
Bytes qpu_fragment_seed() {
  QpuProgram p;
  p.push_back(qpu_read_a(qpu_acc(0), qpu::kReadVarying));
  qpu::AluInstruction times_w = qpu_add(qpu::kAddNop, qpu::kWriteNop, 0, 0);
  times_w.op_mul = qpu::kFmul;
  times_w.waddr_mul = qpu_acc(1);
  times_w.mul_a = qpu::kR0;
  times_w.mul_b = qpu::kMuxA;
  times_w.raddr_a = 15;  // W
  p.push_back(times_w.encode());
  p.push_back(qpu_add(qpu::kFadd, qpu::kWriteTlbZ, qpu::kR1, qpu::kR5).encode());
  p.push_back(qpu_read_a(qpu_acc(2), qpu::kReadPixelCoord, qpu::kSigColorLoad));
  p.push_back(qpu_add(qpu::kOr, qpu::kWriteTlbColorAll, qpu::kR4, qpu::kR4).encode());
  qpu_end(p);
  qpu::AluInstruction unlock;
  unlock.sig = qpu::kSigScoreboardUnlock;
  p.back() = unlock.encode();
  return qpu_seed(3, p, {0, 0, 0, 0}, {}, {}, {}, static_cast<std::uint8_t>(4U | (2U << 3)));
}

// Two vertex pipeline shaders (fuzz_qpu's vertex mode: byte 0 bit 6): each reads two rows of its input segment from
// row 3 and writes their sum to its output segment from row 0, as Mesa's shaders set up their VPM accesses.
Bytes qpu_vertex_seed() {
  QpuProgram p;
  p.push_back(qpu_ldi(qpu::kWriteVpmSetup, 0x00201A03, false));  // vr_setup: two rows from row 3
  p.push_back(qpu_ldi(qpu::kWriteVpmSetup, 0x00001A00, true));   // vw_setup: from row 0
  p.push_back(qpu_read_a(qpu_acc(0), qpu::kReadVpm));
  p.push_back(qpu_read_a(qpu_acc(1), qpu::kReadVpm));
  p.push_back(qpu_add(qpu::kAdd, qpu::kWriteVpm, qpu::kR0, qpu::kR1).encode());
  qpu_end(p);
  return qpu_seed(2, p, {0, 0, 0, 0}, {}, {}, {}, 0x40);
}

// Under the mutex, each of two QPUs writes two VPM rows, stores them by DMA to the address its uniform gives, loads
// them back by DMA into another row and reads that row; then it raises the host interrupt.
Bytes qpu_vpm_dma_seed() {
  QpuProgram p;
  p.push_back(qpu_read_a(0, qpu::kReadUniform));  // ra0: the output address
  p.push_back(qpu_read_a(qpu_acc(0), qpu::kReadElementOrQpu));
  p.push_back(qpu_read_a(qpu::kWriteNop, qpu::kReadMutexAcquire));
  p.push_back(qpu_ldi(qpu::kWriteVpmSetup, 0x00001A00, true));  // vw_setup: horizontal 32-bit rows from row 0
  p.push_back(qpu_add(qpu::kOr, qpu::kWriteVpm, qpu::kR0, qpu::kR0).encode());
  p.push_back(qpu_add_small(qpu::kShl, qpu::kWriteVpm, qpu::kR0, 2));
  // VDW store: 2 horizontal units of 16 words from (0, 0).
  p.push_back(qpu_ldi(qpu::kWriteVpmSetup, 0x80000000U | (2U << 23) | (16U << 16) | (1U << 14), true));
  qpu::AluInstruction store = qpu_add(qpu::kOr, qpu::kWriteVpmAddr, qpu::kMuxA, qpu::kMuxA, true);  // vw_addr
  store.raddr_a = 0;
  p.push_back(store.encode());
  qpu::AluInstruction wait = qpu_add(qpu::kOr, qpu::kWriteNop, qpu::kMuxB, qpu::kMuxB);  // vdw_wait
  wait.raddr_b = qpu::kReadDmaWait;
  p.push_back(wait.encode());
  // VCD load: one row of 16 words, 64-byte pitch, into row 8.
  p.push_back(qpu_ldi(qpu::kWriteVpmSetup, 0x80000000U | (3U << 24) | (1U << 16) | (1U << 12) | (8U << 4)));
  qpu::AluInstruction load = qpu_add(qpu::kOr, qpu::kWriteVpmAddr, qpu::kMuxA, qpu::kMuxA);  // vr_addr
  load.raddr_a = 0;
  p.push_back(load.encode());
  p.push_back(qpu_ldi(qpu::kWriteVpmSetup, 0x00101A08));  // vr_setup: one horizontal row from row 8
  p.push_back(qpu_read_a(1, qpu::kReadVpm));
  p.push_back(qpu_add(qpu::kOr, qpu::kWriteMutexRelease, qpu::kR0, qpu::kR0).encode());
  p.push_back(qpu_ldi(qpu::kWriteHostInt, 1));
  qpu_end(p);
  return qpu_seed(2, p, {0, 0, 0, 0}, {0x100, 0x200}, {0, 1, 0, 0});
}

// Direct TMU lookups of each element's word (TMU0 twice, TMU1 once) and their load_tmu0 / load_tmu1, on four QPUs.
Bytes qpu_tmu_seed() {
  QpuProgram p;
  p.push_back(qpu_read_a(qpu_acc(0), qpu::kReadElementOrQpu));
  p.push_back(qpu_add_small(qpu::kShl, qpu_acc(1), qpu::kR0, 2));  // element * 4
  p.push_back(qpu_ldi(qpu_acc(2), 0x40));
  p.push_back(qpu_add(qpu::kAdd, qpu::kWriteTmu0S, qpu::kR1, qpu::kR2).encode());
  p.push_back(qpu_ldi(qpu_acc(2), 0x80));
  p.push_back(qpu_add(qpu::kAdd, qpu::kWriteTmu1S, qpu::kR1, qpu::kR2).encode());
  p.push_back(qpu_add(qpu::kAdd, qpu::kWriteTmu0S, qpu::kR1, qpu::kR1).encode());
  p.push_back(qpu_read_a(qpu_acc(3), 39, qpu::kSigLoadTmu0));  // ldtmu0 (r4)
  qpu::AluInstruction second = qpu_add(qpu::kOr, 2, qpu::kR4, qpu::kR4);
  second.sig = qpu::kSigLoadTmu1;
  p.push_back(second.encode());
  second.sig = qpu::kSigLoadTmu0;
  second.waddr_add = 3;
  p.push_back(second.encode());
  p.push_back(qpu_add(qpu::kOr, 4, qpu::kR4, qpu::kR4).encode());
  qpu_end(p);
  std::vector<std::uint32_t> memory(64);
  for (std::uint32_t i = 0; i < memory.size(); ++i) memory[i] = 0xA000 + i;
  return qpu_seed(4, p, {0, 0, 0, 0}, {}, {}, memory);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuvp;
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  namespace mi = gen::mi;

  // fuzz_gen_ring: the batch started from the ring, per engine; a ring of commands alone.
  for (int e = 0; e < gen::kEngineCount; ++e) {
    Bytes seed{static_cast<std::uint8_t>(0x80 | e)};
    std::vector<std::uint32_t> ring;
    mi::emit(ring, mi::store_data_imm(0x100040, 7));
    put_u16(seed, ring.size() * 4);
    put_dwords(seed, ring);
    put_dwords(seed, demo_batch(static_cast<gen::Engine>(e)));
    write_seed(dir, "fuzz_gen_ring", e, seed);
  }

  // fuzz_gen_execlists: the image i915 builds, and the batch's commands in the ring.
  for (int e = 0; e < gen::kEngineCount; ++e) {
    host::ScriptHostPort port;
    host::I915Driver driver(port);
    const auto& context = driver.create_context(static_cast<gen::Engine>(e));
    Bytes image;
    put_dwords(image, driver.context_image(context));
    image.resize(std::min<std::size_t>(image.size(), 4096));
    Bytes seed{static_cast<std::uint8_t>(e)};
    put_u16(seed, image.size());
    seed.insert(seed.end(), image.begin(), image.end());
    std::vector<std::uint32_t> ring = demo_batch(static_cast<gen::Engine>(e));
    ring.back() = 0;  // MI_NOOP instead of the batch end
    put_dwords(seed, ring);
    write_seed(dir, "fuzz_gen_execlists", e, seed);
  }

  // fuzz_vc4_cle: the demo's binning list on CT0 and a render list on CT1.
  {
    host::ScriptHostPort port;
    host::Vc4Driver driver(port);
    host::Vc4Scene scene;
    scene.width = 64;
    scene.height = 64;
    scene.vertices = {{10, 10}, {50, 10}, {10, 50}};
    scene.indices = {0, 1, 2};
    Bytes bin = driver.build_bin_cl(scene);
    driver.bin_setup(bin);
    Bytes seed{0};
    seed.insert(seed.end(), bin.begin(), bin.end());
    write_seed(dir, "fuzz_vc4_cle", 0, seed);
    // The same draw under GL shader state (the coordinate shader's path; in the harness the record is whatever memory
    // holds there).
    scene.coordinate_shader = scene.vertex_shader = host::flat_color_fragment_shader(0xFFFFFFFF);
    Bytes gl = driver.build_bin_cl(scene);
    driver.bin_setup(gl);
    seed = {0};
    seed.insert(seed.end(), gl.begin(), gl.end());
    write_seed(dir, "fuzz_vc4_cle", 2, seed);
    host::Vc4RenderSetup render;
    render.color_address = 0x0700'0000;
    render.width = 64;
    render.height = 64;
    const Bytes rcl = host::Vc4Driver::build_render_cl(render);
    seed = {1};
    seed.insert(seed.end(), rcl.begin(), rcl.end());
    write_seed(dir, "fuzz_vc4_cle", 1, seed);
    // The renderer's GL side: a render list drawing inline under GL shader state (the vertex shader's path, the record
    // whatever memory holds), a plain and a clipped compressed run (the clipped record's address 8-byte aligned, vertex
    // 2 flagged), then the frame's store.
    namespace pk = vc4::packet;
    Bytes gl_render;
    pk::tile_rendering_mode_config(gl_render, 0x0700'0000, 64, 64, 1U << vc4::TileBufferFields::kConfigFormatShift);
    pk::tile_coordinates(gl_render, 0, 0);
    pk::gl_shader_state(gl_render, 0x0010'0000);
    pk::primitive_list_format(gl_render, pk::kListFormat16BitTriangles);
    gl_render.insert(gl_render.end(), {pk::kCompressedPrimitive, 0x81, 0, 0, 1, 0, 2, 0, 0x80});
    gl_render.push_back(pk::kClippedCompressedPrimitive);
    pk::put_u32(gl_render, 0x0011'0000U | 4U);
    gl_render.insert(gl_render.end(), {0x81, 0, 0, 1, 0, 2, 0, 0x80});
    pk::store_ms_tile_buffer(gl_render, true);
    seed = {1};
    seed.insert(seed.end(), gl_render.begin(), gl_render.end());
    write_seed(dir, "fuzz_vc4_cle", 3, seed);
  }

  // fuzz_guc: no operation (load and boot only); a mailbox action; a CT request.
  write_seed(dir, "fuzz_guc", 0, Bytes{});
  write_seed(dir, "fuzz_guc", 1, Bytes{0, 1, 0x30, 0x55, 0, 0, 0, 0, 0, 0});
  write_seed(dir, "fuzz_guc", 2, Bytes{1, 2, 0x02, 0x10, 0, 0, 0, 0, 0, 0, 0x05, 0x55, 0, 0});

  // fuzz_eu: the driver's kernels, one and four threads of SIMD16, untimed and under the EU array's timing.
  const std::vector<Bytes> kernels = {host::saxpy_kernel(), host::slm_reverse_count_kernel()};
  for (std::size_t k = 0; k < 2 * kernels.size(); ++k) {
    const std::size_t kernel = k % kernels.size();
    Bytes seed{static_cast<std::uint8_t>((kernel ? 0x7 : 0x4) | (k >= kernels.size() ? 0x10 : 0))};
    seed.resize(65);
    seed.insert(seed.end(), kernels[kernel].begin(), kernels[kernel].end());
    write_seed(dir, "fuzz_eu", static_cast<int>(k), seed);
  }

  // fuzz_aub_reader: one record of each kind NEO writes.
  {
    namespace aub = platform::aub;
    Bytes trace;
    for (const Bytes& r :
         {aub::encode_version(9, 0), aub::encode_comment("ppgtt: 0x1000"), aub::encode_register_write(0x2030, 0x10),
          aub::encode_register_poll(0x2034, 1, 0, false), aub::encode_register_compare(0x2030, 0x10),
          aub::encode_memory_write(0x1000, 2, 0, {1, 2, 3, 4}),
          aub::encode_memory_compare(0x1000, 2, {1, 2, 3, 4}, false),
          aub::encode_memory_poll(0x1000, 2, 4, 0xFF, 1, false), aub::encode_binary_dump(0x1000, 64, 1)}) {
      trace.insert(trace.end(), r.begin(), r.end());
    }
    write_seed(dir, "fuzz_aub_reader", 0, trace);
  }

  // fuzz_aub_replay: the same records, and a well-formed replay: GGTT entries for a ring and its target page, the
  // ring, its registers, a poll until the ring's store landed, a compare of it.
  {
    namespace aub = platform::aub;
    const auto kPhysical = static_cast<std::uint32_t>(aub::AddressSpace::kPhysical);
    const auto kGttEntry = static_cast<std::uint32_t>(aub::AddressSpace::kGttEntry);
    const auto kGgtt = static_cast<std::uint32_t>(aub::AddressSpace::kGttGfx);
    Bytes trace;
    for (const Bytes& r :
         {aub::encode_version(12, 0), aub::encode_register_write(0x2030, 0x10),
          aub::encode_memory_write(0x1000, kPhysical, 0, {1, 2, 3, 4}),
          aub::encode_memory_compare(0x1000, kPhysical, {1, 2, 3, 4}, false),
          aub::encode_memory_poll(0x1000, kPhysical, 4, 0xFF, 1, false), aub::encode_binary_dump(0x1000, 64, 1)}) {
      trace.insert(trace.end(), r.begin(), r.end());
    }
    write_seed(dir, "fuzz_aub_replay", 0, trace);
    trace.clear();
    const auto append = [&trace](const Bytes& r) { trace.insert(trace.end(), r.begin(), r.end()); };
    append(aub::encode_version(12, 0));
    append(aub::encode_comment("gpuvp fuzz seed: a legacy ring on RCS"));
    Bytes entries;
    put_dwords(entries, {static_cast<std::uint32_t>(kRingPage | gen::kPtePresent | gen::kPteWritable), 0,
                         static_cast<std::uint32_t>(kTargetPage | gen::kPtePresent | gen::kPteWritable), 0});
    append(aub::encode_memory_write(0x10 * gen::kGgttPteBytes, kGttEntry, 0, entries));
    entries.clear();
    put_dwords(entries, {static_cast<std::uint32_t>(kOutPage | gen::kPtePresent | gen::kPteWritable), 0});
    append(aub::encode_memory_write(0x100 * gen::kGgttPteBytes, kGttEntry, 0, entries));
    const Bytes ring = ring_bytes();
    append(aub::encode_memory_write(kRingPage, kPhysical, 0, ring));
    for (const auto& [offset, value] : ring_registers(ring.size())) append(aub::encode_register_write(offset, value));
    append(aub::encode_memory_poll(0x11000, kGgtt, 4, ~0ULL, 0xC0FFEE, false));
    append(aub::encode_memory_compare(kTargetPage, kPhysical, {0xEE, 0xFF, 0xC0, 0}, false));
    append(aub::encode_register_poll(0x2034, 0x1FFFFC, static_cast<std::uint32_t>(ring.size()), false));
    write_seed(dir, "fuzz_aub_replay", 1, trace);
  }

  // fuzz_tbx: NEO's session opening, then the same ring through GTT, memory and MMIO requests, reads of the result, a
  // register and a GGTT entry; and a session that reads a register only.
  {
    TbxStream s;
    s.control();
    s.gtt(true, 0x10, kRingPage | gen::kPtePresent | gen::kPteWritable);
    s.gtt(true, 0x11, kTargetPage | gen::kPtePresent | gen::kPteWritable);
    s.gtt(true, 0x100, kOutPage | gen::kPtePresent | gen::kPteWritable);
    const Bytes ring = ring_bytes();
    s.data(true, kRingPage, ring);
    for (const auto& [offset, value] : ring_registers(ring.size())) s.mmio(true, offset, value);
    s.data(false, kTargetPage, {}, 4);
    s.mmio(false, 0x2034, 0);
    s.gtt(false, 0x11, 0);
    write_seed(dir, "fuzz_tbx", 0, s.bytes());
    TbxStream t;
    t.control();
    t.mmio(false, 0x44304, 0);  // GEN8_GT_IMR(0)
    write_seed(dir, "fuzz_tbx", 1, t.bytes());
  }

  // fuzz_config: a file and overrides.
  const std::string file = "sim:\n  quantum_ns: 100\ndram:\n  size: 1GiB\ngen:\n  clock_hz: 1.2GHz\n";
  write_seed(dir, "fuzz_config", 0, Bytes(file.begin(), file.end()));
  const std::string sets = "=vc4.v3d.slices=2\ndram.base=0x100000000\ngen.gtt.physical_address_bits=40\n";
  write_seed(dir, "fuzz_config", 1, Bytes(sets.begin(), sets.end()));

  // fuzz_script: a recorded driver session (rings on the render engine) and a vc4 job.
  {
    host::ScriptHostPort port;
    host::I915Driver driver(port);
    driver.enable_interrupts(gen::Engine::kRcs);
    auto& ring = driver.create_ring(gen::Engine::kRcs);
    driver.emit(ring, mi::store_data_imm(0x100040, 7));
    const std::uint32_t seqno = driver.emit_breadcrumb(ring);
    driver.submit(ring);
    driver.wait_seqno(ring, seqno, 100'000);
    const std::string script = port.script();
    write_seed(dir, "fuzz_script", 0, Bytes(script.begin(), script.end()));
  }

  // fuzz_qpu: ALU ops, a branch loop, semaphores between two QPUs, VPM writes with DMA stores and loads under the
  // mutex, TMU lookups with load_tmu; each ends its program.
  write_seed(dir, "fuzz_qpu", 0, qpu_alu_seed());
  write_seed(dir, "fuzz_qpu", 1, qpu_branch_loop_seed());
  write_seed(dir, "fuzz_qpu", 2, qpu_semaphore_seed());
  write_seed(dir, "fuzz_qpu", 3, qpu_vpm_dma_seed());
  write_seed(dir, "fuzz_qpu", 4, qpu_tmu_seed());
  write_seed(dir, "fuzz_qpu", 5, qpu_fragment_seed());
  write_seed(dir, "fuzz_qpu", 6, qpu_vertex_seed());
  return 0;
}
