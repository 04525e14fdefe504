#include "tlm/gen/eu/timing_op.h"

#include <algorithm>

namespace gpuvp::gen::eu {

namespace {

// Opcode numbers (Mesa brw_eu.cpp opcode_descs, gen < 12) the table singles out.
enum : std::uint8_t {
  kSel = 2,
  kSends = 51,
  kSendsc = 52,
  kMath = 56,
  kAdd = 64,
  kMul = 65,
  kMac = 72,
  kMach = 73,
  kDp4 = 84,
  kDp2 = 87,
  kLine = 89,
  kPln = 90,
  kMad = 91,
  kLrp = 92,
  kMadm = 93,
};

// Math functions (Mesa brw_eu_defines.h BRW_MATH_FUNCTION_*).
enum : std::uint8_t { kFdiv = 9, kPow = 10, kIntDivQr = 11, kIntRemainder = 13, kInvm = 14, kRsqtm = 15 };

constexpr unsigned kRegBytes = 32;
constexpr unsigned kGrfCount = 128;

bool is_64bit(DataType t) { return t == DataType::kDf || t == DataType::kQ || t == DataType::kUq; }
bool is_dword_int(DataType t) { return t == DataType::kD || t == DataType::kUd; }

// The registers from `reg` that bytes [0, end_byte) of it and its successors occupy, within the register file.
GrfRange bytes_range(unsigned reg, unsigned end_byte) {
  const unsigned count = (end_byte + kRegBytes - 1) / kRegBytes;
  const unsigned clamped = reg >= kGrfCount ? 0 : std::min(count, kGrfCount - reg);
  return {static_cast<std::uint8_t>(reg), static_cast<std::uint8_t>(clamped)};
}

// ARF register numbers (Mesa brw_eu_defines.h BRW_ARF_*): the high nibble names the register file.
std::uint8_t arf_bits(const Operand& o) {
  if (o.file != RegFile::kArf) return 0;
  switch (o.reg >> 4) {
    case 0x1:  // address
      return arf::kA0;
    case 0x2:  // accumulators
      return arf::kAcc;
    case 0x3:  // flags: f0 = 0x30, f1 = 0x31
      return (o.reg & 1U) ? arf::kF1 : arf::kF0;
    default:  // null, state, control, notification, ip, tdr, tm0: not tracked
      return 0;
  }
}

std::uint8_t flag_bit(unsigned flag_reg) { return flag_reg ? arf::kF1 : arf::kF0; }

// The GRFs a direct source reads over the execution size: Align1 by its region, Align16 (and the three-source form)
// as exec_size consecutive elements, or one when replicated.
GrfRange source_range(const DecodedInstruction& d, const Operand& o) {
  if (o.file != RegFile::kGrf || o.indirect) return {};
  const unsigned size = type_size(o.type);
  const unsigned exec = d.exec_size;
  unsigned last = 0;  // byte offset of the last element from the register's start
  if (d.align16 || d.op->op_class == OpClass::kTernary) {
    last = o.subreg + (o.replicate ? 0 : (exec - 1) * size);
  } else {
    const unsigned width = std::max<unsigned>(o.region.width, 1);
    const unsigned columns = std::min(exec, width);
    const unsigned rows = (exec + width - 1) / width;
    last = o.subreg + ((rows - 1) * o.region.vstride + (columns - 1) * o.region.hstride) * size;
  }
  return bytes_range(o.reg, last + size);
}

GrfRange destination_range(const DecodedInstruction& d) {
  const Operand& o = d.dst;
  if (o.file != RegFile::kGrf || o.indirect) return {};
  const unsigned size = type_size(o.type);
  const unsigned stride =
      d.align16 || d.op->op_class == OpClass::kTernary ? 1 : std::max<unsigned>(o.region.hstride, 1);
  return bytes_range(o.reg, o.subreg + (d.exec_size - 1) * stride * size + size);
}

unsigned passes(unsigned exec, unsigned lanes_per_pass) { return (exec + lanes_per_pass - 1) / lanes_per_pass; }

void set_unit(TimingOp& t, TimingPipe pipe, TimingClass cls, unsigned occupancy, unsigned latency) {
  t.pipe = pipe;
  t.cls = cls;
  t.occupancy = static_cast<std::uint8_t>(std::min(occupancy, 255U));
  t.front_end = t.occupancy;
  t.latency = static_cast<std::uint8_t>(latency);
}

void send_timing(const DecodedInstruction& d, TimingOp& t) {
  t.pipe = TimingPipe::kSend;
  t.cls = TimingClass::kSend;
  t.occupancy = 1;
  t.front_end = 2;  // Mesa's send front-end occupancy
  t.eot = d.eot;
  t.barrier = d.sfid == 3 && !d.desc_in_register && (d.desc & 7U) == 4;  // Mesa BRW_SFID_MESSAGE_GATEWAY, barrier
  if (d.desc_in_register) {
    t.dynamic_descriptor = true;
    t.reads_arf |= arf::kA0;
  }
  const bool split = d.op->number == kSends || d.op->number == kSendsc;
  if (split && d.ex_desc_subreg >= 0) {
    t.dynamic_descriptor = true;
    t.reads_arf |= arf::kA0;
  }
  if (t.dynamic_descriptor) return;  // the message's lengths decide its registers
  const unsigned mlen = (d.desc >> 25) & 0xFU;
  const unsigned rlen = (d.desc >> 20) & 0x1FU;
  if (d.src[0].file == RegFile::kGrf) t.reads[0] = bytes_range(d.src[0].reg, mlen * kRegBytes);
  if (split && d.src[1].file == RegFile::kGrf) {
    t.reads[1] = bytes_range(d.src[1].reg, ((d.ex_desc >> 6) & 0xFU) * kRegBytes);
  }
  if (d.dst.file == RegFile::kGrf) t.writes = bytes_range(d.dst.reg, rlen * kRegBytes);
}

}  // namespace

TimingOp timing_of(const DecodedInstruction& d) {
  TimingOp t;
  if (d.op == nullptr) return t;
  t.exec_size = d.exec_size;
  const unsigned number = d.op->number;
  const unsigned exec = d.exec_size;
  if (d.pred_ctrl != 0) t.reads_arf |= flag_bit(d.flag_reg);

  switch (d.op->op_class) {
    case OpClass::kSend:
      send_timing(d, t);
      return t;
    case OpClass::kBranch:
    case OpClass::kFlow:
      // Mesa's front-end occupancy of structured control flow, applied to every branch (stated).
      t.pipe = TimingPipe::kControl;
      t.cls = TimingClass::kControl;
      t.occupancy = 1;
      t.front_end = 8;
      if (d.sources > 0) {  // a register target (jmpi, brd, brc, call, ret)
        t.reads[0] = source_range(d, d.src[0]);
        t.indirect = d.src[0].indirect;
      }
      return t;
    case OpClass::kWait:  // the front end; the thread then waits for its notification
      t.wait = true;
      return t;
    case OpClass::kNop:
      return t;
    default:
      break;
  }

  // ALU, math and three-source instructions: operands.
  const unsigned sources = d.op->op_class == OpClass::kMath ? math_sources(d.math_fn) : d.sources;
  bool any64 = is_64bit(d.dst.type);
  bool all16 = type_size(d.dst.type) <= 2 || d.dst.file == RegFile::kArf;
  for (unsigned i = 0; i < sources && i < 3; ++i) {
    const Operand& s = d.src[i];
    t.reads[i] = source_range(d, s);
    t.reads_arf |= arf_bits(s);
    if (s.indirect) t.indirect = true;
    if (s.file == RegFile::kImm) continue;
    any64 = any64 || is_64bit(s.type);
    all16 = all16 && type_size(s.type) <= 2;
  }
  t.writes = destination_range(d);
  t.writes_arf |= arf_bits(d.dst);
  if (d.dst.indirect) t.indirect = true;
  if (t.indirect) t.reads_arf |= arf::kA0;
  // A condition modifier writes the flag register (sel uses it to choose min or max instead).
  if (d.cond_mod != 0 && number != kSel && d.op->op_class != OpClass::kMath) t.writes_arf |= flag_bit(d.flag_reg);
  if (d.acc_wr_en) t.writes_arf |= arf::kAcc;
  if (number == kMac || number == kMach) t.reads_arf |= arf::kAcc;
  if (number == kMach) t.writes_arf |= arf::kAcc;
  if (number == kMadm || (d.op->op_class == OpClass::kMath && is_math_macro(d.math_fn))) {
    t.reads_arf |= arf::kAcc;  // the math macro extended accumulators
    t.writes_arf |= arf::kAcc;
  }

  if (d.op->op_class == OpClass::kMath) {
    const unsigned fn = d.math_fn;
    if (fn >= kIntDivQr && fn <= kIntRemainder) {
      set_unit(t, TimingPipe::kFpu0, TimingClass::kExtendedMath, 26, 28);
      t.front_end = 2;
      // idiv writes the quotient to the destination and the remainder to the register after it.
      if (fn == kIntDivQr && t.writes.count > 0 && t.writes.first + 2U * t.writes.count <= kGrfCount) {
        t.writes.count = static_cast<std::uint8_t>(2 * t.writes.count);
      }
    } else if (fn == kFdiv || fn == kPow || fn == kInvm || fn == kRsqtm) {
      set_unit(t, TimingPipe::kFpu0, TimingClass::kExtendedMath, 4 * passes(exec, 4), 24);
    } else {
      set_unit(t, TimingPipe::kFpu0, TimingClass::kExtendedMath, 2 * passes(exec, 4), 16);
    }
    return t;
  }
  const bool int_mul = (number == kMul || number == kMach || number == kMad) && is_dword_int(d.dst.type) &&
                       is_dword_int(d.src[0].type) && is_dword_int(d.src[1].type);
  if (any64 || number == kMadm) {
    set_unit(t, TimingPipe::kFpu0, TimingClass::kFpu0Only, passes(exec, 2), 12);
  } else if (int_mul) {
    set_unit(t, TimingPipe::kFpuAny, TimingClass::kFpu, 2 * passes(exec, 4), 12);
  } else if (all16) {
    set_unit(t, TimingPipe::kFpuAny, TimingClass::kFpu, passes(exec, 8), 8);
  } else {
    set_unit(t, TimingPipe::kFpuAny, TimingClass::kFpu, passes(exec, 4), 8);
  }
  if ((number >= kDp4 && number <= kDp2) || number == kLine || number == kPln || number == kLrp) {
    t.latency = 12;
    if (number == kLrp || number == kLine || number == kPln) {
      t.occupancy = static_cast<std::uint8_t>(2 * t.occupancy);
      t.front_end = t.occupancy;
    }
  }

  // Floating-point operations, counted where they are unambiguous: add and mul one per channel, mad and mac two.
  unsigned per_channel = 0;
  if (number == kAdd || number == kMul) per_channel = 1;
  if (number == kMad || number == kMac) per_channel = 2;
  const auto flops = static_cast<std::uint16_t>(per_channel * exec);
  if (d.dst.type == DataType::kF) t.flops32 = flops;
  if (d.dst.type == DataType::kDf) t.flops64 = flops;
  if (d.dst.type == DataType::kHf) t.flops16 = flops;
  return t;
}

}  // namespace gpuvp::gen::eu
