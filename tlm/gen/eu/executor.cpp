#include "tlm/gen/eu/executor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <type_traits>

#include "tlm/core/format_hex.h"
#include "tlm/gen/eu/disassembler.h"
#include "tlm/gen/eu/float_convert.h"
#include "tlm/gen/eu/ieee_macro.h"

namespace gpuvp::gen::eu {
namespace {

struct Fault {
  std::string reason;
};

[[noreturn]] void fault(std::string reason) { throw Fault{std::move(reason)}; }

// The arithmetic an instruction is carried out in: 64-bit integers (every integer type, wrapped or clamped to the
// destination on write), binary32 (F, HF and VF operands) or binary64 (DF).
enum class Kind : std::uint8_t { kInt, kFloat, kDouble };

union Lane {
  std::int64_t i;
  float f;
  double d;
};

using Lanes = std::array<Lane, ThreadState::kMaxChannels>;

bool is_float_type(DataType t) {
  return t == DataType::kF || t == DataType::kHf || t == DataType::kVf || t == DataType::kDf;
}
bool is_signed_type(DataType t) {
  return t == DataType::kB || t == DataType::kW || t == DataType::kD || t == DataType::kQ || t == DataType::kV;
}
Kind natural_kind(DataType t) {
  if (t == DataType::kDf) return Kind::kDouble;
  return is_float_type(t) ? Kind::kFloat : Kind::kInt;
}
unsigned type_bits(DataType t) { return type_size(t) * 8; }

// An element's bits, read at its own width (a narrower store forwarded into a wider load stalls the host).
inline std::uint64_t read_bits(const std::uint8_t* p, unsigned size) {
  switch (size) {
    case 1:
      return *p;
    case 2: {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

inline void write_bits(std::uint8_t* p, std::uint64_t bits, unsigned size) {
  switch (size) {
    case 1:
      *p = static_cast<std::uint8_t>(bits);
      break;
    case 2: {
      const auto v = static_cast<std::uint16_t>(bits);
      std::memcpy(p, &v, 2);
      break;
    }
    case 4: {
      const auto v = static_cast<std::uint32_t>(bits);
      std::memcpy(p, &v, 4);
      break;
    }
    default:
      std::memcpy(p, &bits, 8);
      break;
  }
}

// Condition modifiers (brw_eu_defines.h brw_conditional_mod).
enum Cond : std::uint8_t { kNone = 0, kZ = 1, kNz = 2, kG = 3, kGe = 4, kL = 5, kLe = 6, kO = 8, kU = 9 };

// Opcode numbers the executor dispatches on (brw_eu.cpp opcode_descs, gen < 12).
enum Opcode : std::uint8_t {
  kMov = 1,
  kSel = 2,
  kNot = 4,
  kAnd = 5,
  kOr = 6,
  kXor = 7,
  kShr = 8,
  kShl = 9,
  kAsr = 12,
  kCmp = 16,
  kCmpn = 17,
  kCsel = 18,
  kBfrev = 23,
  kBfe = 24,
  kBfi1 = 25,
  kBfi2 = 26,
  kIf = 34,
  kElse = 36,
  kEndif = 37,
  kWhile = 39,
  kBreak = 40,
  kCont = 41,
  kHalt = 42,
  kGoto = 46,
  kJoin = 47,
  kSend = 49,
  kSendc = 50,
  kSends = 51,
  kSendsc = 52,
  kMath = 56,
  kAdd = 64,
  kMul = 65,
  kAvg = 66,
  kFrc = 67,
  kRndu = 68,
  kRndd = 69,
  kRnde = 70,
  kRndz = 71,
  kMac = 72,
  kMach = 73,
  kLzd = 74,
  kFbh = 75,
  kFbl = 76,
  kCbit = 77,
  kAddc = 78,
  kSubb = 79,
  kMad = 91,
  kLrp = 92,
  kNop = 126,
  kMovi = 3,
  kSmov = 10,
  kJmpi = 32,
  kBrd = 33,
  kBrc = 35,
  kCalla = 43,
  kCall = 44,
  kRet = 45,
  kMadm = 93,
};

// Math functions (brw_eu_defines.h BRW_MATH_FUNCTION_*).
enum MathFn : std::uint8_t {
  kInv = 1,
  kLog = 2,
  kExp = 3,
  kSqrt = 4,
  kRsq = 5,
  kSin = 6,
  kCos = 7,
  kFdiv = 9,
  kPow = 10,
  kIntDivQr = 11,
  kIntQuotient = 12,
  kIntRemainder = 13,
  kInvm = 14,
  kRsqtm = 15,
};

std::int64_t wrap(std::int64_t value, DataType type) {
  const unsigned bits = type_bits(type);
  if (bits == 64) return value;
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  const std::uint64_t low = static_cast<std::uint64_t>(value) & mask;
  if (is_signed_type(type) && (low >> (bits - 1)) != 0) return static_cast<std::int64_t>(low | ~mask);
  return static_cast<std::int64_t>(low);
}

std::int64_t clamp_to(std::int64_t value, DataType type) {
  const unsigned bits = type_bits(type);
  if (bits == 64) return value;
  const std::int64_t max = is_signed_type(type) ? (std::int64_t{1} << (bits - 1)) - 1 : (std::int64_t{1} << bits) - 1;
  const std::int64_t min = is_signed_type(type) ? -(std::int64_t{1} << (bits - 1)) : 0;
  return std::clamp(value, min, max);
}

float vf_to_float(unsigned vf) {
  // Restricted 8-bit float: sign 7, exponent 6:4 (bias 3), mantissa 3:0; 0x00 and 0x80 are zeros (Mesa
  // brw_vf_to_float).
  if ((vf & 0x7FU) == 0) return (vf & 0x80U) != 0 ? -0.0F : 0.0F;
  const std::uint32_t bits = (vf & 0x80U) << 24 | (((vf & 0x70U) >> 4) + 124) << 23 | (vf & 0x0FU) << 19;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <typename T>
T from_bits(std::uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

template <typename T>
bool compare(Cond cond, T a, T b) {
  switch (cond) {
    case kZ:
      return a == b;
    case kNz:
      return a != b;
    case kG:
      return a > b;
    case kGe:
      return a >= b;
    case kL:
      return a < b;
    case kLe:
      return a <= b;
    default:
      return false;
  }
}

// The state of one instruction's execution.
class Step {
 public:
  Step(ThreadState& t, const ExecInstruction& x, Program& program, SharedFunctions& shared, HostFloatMode& fp)
      : t_(t), x_(x), d_(x.inst), program_(program), shared_(shared), fp_(fp) {}

  // Returns the stop reason when the thread stops after this instruction.
  std::optional<StopReason> execute();

 private:
  std::uint32_t exec_mask() const;
  std::uint32_t predicate_mask() const;
  bool flag_bit(unsigned index) const;
  void set_flag_bit(unsigned index, bool value);
  unsigned flag_index(unsigned channel) const {
    return d_.flag_reg * 32U + d_.flag_subreg * 16U + d_.channel_offset + channel;
  }

  // Register spans: the GRF or one ARF register (with the bytes after it that a region may run into).
  struct Span {
    std::uint8_t* base;
    unsigned size;
  };
  Span span(const Operand& o, bool write);
  std::uint8_t* element(const Operand& o, unsigned channel, bool write, bool ternary);

  Lane load(const Operand& o, unsigned channel, Kind kind, bool ternary, bool logic);
  void store(const Operand& o, unsigned channel, Kind kind, Lane value);
  Lane saturate(Kind kind, Lane v, DataType dst) const;
  bool condition(Kind kind, Lane v) const;

  void alu();
  void math_macro();
  Lane compute(Kind kind, const Lane* s, unsigned channel, bool predicate_bit);
  template <typename T>
  Lane real_op(const Lane* s, unsigned channel, bool predicate_bit);
  Lane int_op(const Lane* s, unsigned channel, bool predicate_bit);
  template <typename T>
  T float_math(T a, T b) const;
  std::int64_t int_math(std::int64_t a, std::int64_t b, unsigned fn) const;
  bool int_compare(Cond cond, std::int64_t a, std::int64_t b, unsigned first_source, unsigned sources) const;

  void branch(std::uint32_t taken, std::uint32_t target, bool thread_jumps);
  void resume_lowest(std::uint32_t fallback);
  std::uint32_t flow_channels() const;
  std::uint32_t instruction_channels(std::uint32_t mask) const;
  std::optional<StopReason> control_flow();
  std::optional<StopReason> flow();
  std::optional<StopReason> wait();
  std::optional<StopReason> send();

  ThreadState& t_;
  const ExecInstruction& x_;
  const DecodedInstruction& d_;
  Program& program_;
  SharedFunctions& shared_;
  HostFloatMode& fp_;
  std::array<std::uint8_t, 64> scratch_{};  // null reads, ce, ip
};

std::uint32_t Step::exec_mask() const {
  const std::uint64_t all = d_.exec_size == 32 ? 0xFFFFFFFFULL : (1ULL << d_.exec_size) - 1;
  if (d_.no_mask) return static_cast<std::uint32_t>(all);
  return static_cast<std::uint32_t>((std::uint64_t{t_.active} >> d_.channel_offset) & all);
}

bool Step::flag_bit(unsigned index) const {
  index %= 64;  // f0 and f1 as one 64-bit file: an index past f1 wraps (not a layout the compilers emit)
  return ((t_.flags[index / 32] >> (index % 32)) & 1U) != 0;
}

void Step::set_flag_bit(unsigned index, bool value) {
  index %= 64;
  const std::uint32_t bit = 1U << (index % 32);
  t_.flags[index / 32] = value ? t_.flags[index / 32] | bit : t_.flags[index / 32] & ~bit;
}

// Channel n of an instruction predicates on flag bit f.sub*16 + group offset + n, as Mesa's flag dataflow
// (brw_fs.cpp flag_mask) counts them; anyNh/allNh combine aligned groups of N channels.
std::uint32_t Step::predicate_mask() const {
  const std::uint32_t all = d_.exec_size == 32 ? 0xFFFFFFFFU : (1U << d_.exec_size) - 1;
  if (d_.pred_ctrl == 0) return all;
  if (d_.align16 && d_.pred_ctrl > 1) {
    // Align16 (Mesa brw_eu_defines.h BRW_PREDICATE_ALIGN16_*): 2-5 replicate the x, y, z or w channel's bit to its
    // group of four, 6 any4h, 7 all4h; 1 is the sequential mapping of Align1.
    if (d_.pred_ctrl > 7) fault("reserved Align16 predicate control " + std::to_string(d_.pred_ctrl));
    std::uint32_t mask = 0;
    for (unsigned c = 0; c < d_.exec_size; ++c) {
      const unsigned first = flag_index(c) / 4 * 4;
      bool value = false;
      if (d_.pred_ctrl <= 5) {
        value = flag_bit(first + d_.pred_ctrl - 2U);
      } else {
        const bool any = d_.pred_ctrl == 6;
        value = !any;
        for (unsigned k = 0; k < 4; ++k) value = any ? value || flag_bit(first + k) : value && flag_bit(first + k);
      }
      mask |= static_cast<std::uint32_t>(value) << c;
    }
    return d_.pred_inv ? ~mask & all : mask;
  }
  if (d_.pred_ctrl > 11) fault("reserved predicate control " + std::to_string(d_.pred_ctrl));
  std::uint32_t mask = 0;
  if (d_.pred_ctrl == 1) {
    const unsigned first = flag_index(0) % 64;
    if (first + d_.exec_size <= 64) {
      const std::uint64_t flags = std::uint64_t{t_.flags[1]} << 32 | t_.flags[0];
      mask = static_cast<std::uint32_t>(flags >> first) & all;
    } else {
      for (unsigned c = 0; c < d_.exec_size; ++c) mask |= static_cast<std::uint32_t>(flag_bit(flag_index(c))) << c;
    }
  } else {
    const bool any = d_.pred_ctrl % 2 == 0;
    const unsigned group = 1U << (d_.pred_ctrl / 2);  // 2: any2h ... 11: all32h
    for (unsigned c = 0; c < d_.exec_size; ++c) {
      const unsigned first = flag_index(c) / group * group;
      bool value = !any;
      for (unsigned k = 0; k < group; ++k) value = any ? value || flag_bit(first + k) : value && flag_bit(first + k);
      mask |= static_cast<std::uint32_t>(value) << c;
    }
  }
  return d_.pred_inv ? ~mask & all : mask;
}

Step::Span Step::span(const Operand& o, bool write) {
  if (o.file == RegFile::kGrf) return {t_.grf.data(), ThreadState::kGrfBytes};
  const unsigned number = o.reg & 0x0FU;
  auto bytes = [](auto& array) { return reinterpret_cast<std::uint8_t*>(array.data()); };
  switch (o.reg & 0xF0U) {
    case arf::kNull:
      scratch_.fill(0);
      return {scratch_.data(), static_cast<unsigned>(scratch_.size())};
    case arf::kAddress:
      if (number == 0) return {t_.a0.data(), static_cast<unsigned>(t_.a0.size())};
      break;
    case arf::kAccumulator:
      if (number < 2) return {t_.acc.data() + 32 * number, 64 - 32 * number};
      break;
    case arf::kFlag:
      if (number < 2) return {bytes(t_.flags) + 4 * number, 8 - 4 * number};
      break;
    case arf::kChannelEnable:
      if (write) fault("write to the read-only channel enable register ce");
      std::memcpy(scratch_.data(), &t_.active, 4);
      return {scratch_.data(), 4};
    case arf::kStackPointer:
      return {reinterpret_cast<std::uint8_t*>(&t_.sp), sizeof t_.sp};
    case arf::kState:
      if (number == 0) return {bytes(t_.sr0), 16};
      break;
    case arf::kControl:
      if (number == 0) return {bytes(t_.cr0), 16};
      break;
    case arf::kNotification:
      if (number == 0) return {bytes(t_.n0), 16};
      break;
    case arf::kInstructionPointer:
      if (write) fault("writes to ip are not modelled");
      std::memcpy(scratch_.data(), &x_.pc, 4);
      return {scratch_.data(), 4};
    case arf::kThreadDependency:
      if (number == 0) return {bytes(t_.tdr), 16};
      break;
    case arf::kTimestamp:
      if (number == 0) return {bytes(t_.tm0), 16};
      break;
    default:
      break;
  }
  fault("architecture register " + core::format_hex(o.reg) + " is not modelled");
}

// The bytes of element `channel` of a register operand.
// Widths are powers of two (1..16): row and column by shift and mask.
inline unsigned row_of(unsigned channel, unsigned width) {
  return channel >> static_cast<unsigned>(__builtin_ctz(width));
}
inline unsigned column_of(unsigned channel, unsigned width) { return channel & (width - 1); }

std::uint8_t* Step::element(const Operand& o, unsigned channel, bool write, bool ternary) {
  const unsigned size = type_size(o.type);
  if (d_.align16 && !ternary && !write) {
    // An Align16 source (vertical stride 4): channel n reads component swizzle[n % 4] of its group of four (Mesa
    // brw_inst.h da16 swizzle fields; BRW_SWIZZLE_XYZW = 0xE4 keeps every channel in place).
    const unsigned component = (o.swizzle >> (2 * (channel & 3U))) & 3U;
    const unsigned index = (channel & ~3U) + component;
    const Span s = span(o, false);
    const unsigned offset = (o.file == RegFile::kGrf ? o.reg * ThreadState::kRegBytes : 0) + o.subreg + index * size;
    if (offset + size > s.size)
      fault("source region runs outside the register file (byte " + std::to_string(offset) + ")");
    return s.base + offset;
  }
  if (!o.indirect && o.file == RegFile::kGrf && !ternary && !write) {
    // The common case first: a direct GRF source region.
    const unsigned offset =
        o.reg * ThreadState::kRegBytes + o.subreg +
        (row_of(channel, o.region.width) * o.region.vstride + column_of(channel, o.region.width) * o.region.hstride) *
            size;
    if (offset + size > ThreadState::kGrfBytes) {
      fault("source region runs outside the register file (byte " + std::to_string(offset) + ")");
    }
    return t_.grf.data() + offset;
  }
  const Span s = span(o, write);
  long offset = 0;
  if (o.indirect) {
    if (o.file != RegFile::kGrf) fault("indirect addressing of an architecture register");
    const unsigned row = o.region.vxh ? row_of(channel, std::max<unsigned>(o.region.width, 1)) : 0;
    const unsigned word = o.addr_subreg + row;
    if (word >= 16) fault("indirect region reads past a0.15");
    std::uint16_t address = 0;
    std::memcpy(&address, t_.a0.data() + 2 * word, 2);
    offset = static_cast<long>(address & 0x1FFFU) + o.addr_imm;
    if (write) {
      offset += static_cast<long>(channel * o.region.hstride * size);
    } else if (o.region.vxh) {
      offset += static_cast<long>(column_of(channel, o.region.width) * o.region.hstride * size);
    } else {
      const unsigned row_i = row_of(channel, o.region.width);
      offset +=
          static_cast<long>((row_i * o.region.vstride + column_of(channel, o.region.width) * o.region.hstride) * size);
    }
  } else {
    offset = static_cast<long>(o.file == RegFile::kGrf ? o.reg * ThreadState::kRegBytes : 0) + o.subreg;
    if (ternary) {
      offset += o.replicate ? 0 : static_cast<long>(channel * size);
    } else if (write) {
      offset += static_cast<long>(channel * o.region.hstride * size);
    } else {
      const unsigned row = row_of(channel, o.region.width);
      offset +=
          static_cast<long>((row * o.region.vstride + column_of(channel, o.region.width) * o.region.hstride) * size);
    }
  }
  if (offset < 0 || static_cast<unsigned long>(offset) + size > s.size) {
    fault(std::string(write ? "destination" : "source") + " region runs outside the register file (byte " +
          std::to_string(offset) + ")");
  }
  return s.base + offset;
}

Lane Step::load(const Operand& o, unsigned channel, Kind kind, bool ternary, bool logic) {
  std::uint64_t raw = 0;
  DataType type = o.type;
  if (o.file == RegFile::kImm) {
    raw = o.imm;
    if (type == DataType::kV || type == DataType::kUv) {
      raw = (o.imm >> (4 * (channel % 8))) & 0xFU;
      if (type == DataType::kV && (raw & 8U) != 0) raw |= ~std::uint64_t{0xF};
      type = type == DataType::kV ? DataType::kW : DataType::kUw;
      raw &= 0xFFFFU;
    } else if (type == DataType::kVf) {
      const float f = vf_to_float(static_cast<unsigned>(o.imm >> (8 * (channel % 4))) & 0xFFU);
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      raw = bits;
      type = DataType::kF;
    }
  } else {
    raw = read_bits(element(o, channel, false, ternary), type_size(type));
  }
  Lane v{};
  const bool flush32 = (t_.cr0[0] & cr0::kFp32DenormPreserve) == 0 && !fp_.flushes();
  const bool flush64 = (t_.cr0[0] & cr0::kFp64DenormPreserve) == 0 && !fp_.flushes();
  if (logic || !is_float_type(type)) {
    // Integer view (logic instructions read float registers as bits). A signed integer source sign-extends in logic
    // instructions too: IGC masks a QWord with "and (8) dst:q src:q -536870912:d" and means 0xFFFFFFFF_E0000000.
    const unsigned bits = type_bits(type);
    std::int64_t value = static_cast<std::int64_t>(bits == 64 ? raw : raw & ((std::uint64_t{1} << bits) - 1));
    if (!is_float_type(type)) value = wrap(value, type);
    // -(abs)x is -|x|: the absolute value first, then the negation (IGC subtracts |b| with "add r r -(abs)b:q").
    if (o.abs && !logic && value < 0) value = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(value));
    if (o.negate) value = logic ? ~value : static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(value));
    if (kind == Kind::kInt) {
      v.i = value;
    } else if (kind == Kind::kFloat) {
      v.f = is_signed_type(type) || bits < 64 ? static_cast<float>(value)
                                              : static_cast<float>(static_cast<std::uint64_t>(value));
    } else {
      v.d = is_signed_type(type) || bits < 64 ? static_cast<double>(value)
                                              : static_cast<double>(static_cast<std::uint64_t>(value));
    }
    return v;
  }
  if (type == DataType::kDf) {
    double d = from_bits<double>(raw);
    if (flush64) d = flush_denormal(d);
    if (o.abs) d = std::fabs(d);
    if (o.negate) d = -d;
    if (kind == Kind::kDouble) {
      v.d = d;
    } else if (kind == Kind::kFloat) {
      v.f = static_cast<float>(d);
    } else {
      v.i = float_to_int(d, 64, true);
    }
    return v;
  }
  float f =
      type == DataType::kHf ? half_to_float(static_cast<std::uint16_t>(raw)) : from_bits<float>(raw & 0xFFFFFFFFU);
  if (type == DataType::kF && flush32) f = flush_denormal(f);
  if (type == DataType::kHf && (t_.cr0[0] & cr0::kFp16DenormPreserve) == 0)
    f = std::fabs(f) < 6.103515625e-05F ? std::copysign(0.0F, f) : f;
  if (o.abs) f = std::fabs(f);
  if (o.negate) f = -f;
  if (kind == Kind::kFloat) {
    v.f = f;
  } else if (kind == Kind::kDouble) {
    v.d = f;
  } else {
    v.i = float_to_int(f, 64, true);
  }
  return v;
}

// Saturation clamps to the destination's range: [0, 1] for a float destination (NaN to 0), the integer range for an
// integer one (a float converted to an integer is clamped by the conversion itself).
Lane Step::saturate(Kind kind, Lane v, DataType dst) const {
  if (!d_.saturate) return v;
  if (is_float_type(dst)) {
    if (kind == Kind::kFloat) v.f = std::isnan(v.f) ? 0.0F : std::clamp(v.f, 0.0F, 1.0F);
    if (kind == Kind::kDouble) v.d = std::isnan(v.d) ? 0.0 : std::clamp(v.d, 0.0, 1.0);
    if (kind == Kind::kInt) v.i = std::clamp<std::int64_t>(v.i, 0, 1);
  } else if (kind == Kind::kInt) {
    v.i = clamp_to(v.i, dst);
  }
  return v;
}

void Step::store(const Operand& o, unsigned channel, Kind kind, Lane v) {
  if (o.file == RegFile::kArf && (o.reg & 0xF0U) == arf::kNull) return;
  std::uint8_t* p = element(o, channel, true, d_.op->op_class == OpClass::kTernary);
  const Rounding rounding = fp_.rounding();
  // An integer result converts to a real by its source's type: a UQ above 2^63 is a large positive number.
  const bool unsigned_64 = kind == Kind::kInt && d_.sources > 0 && d_.src[0].type == DataType::kUq;
  std::uint64_t raw = 0;
  switch (o.type) {
    case DataType::kF: {
      float f = kind == Kind::kFloat    ? v.f
                : kind == Kind::kDouble ? static_cast<float>(v.d)
                : unsigned_64           ? static_cast<float>(static_cast<std::uint64_t>(v.i))
                                        : static_cast<float>(v.i);
      if ((t_.cr0[0] & cr0::kFp32DenormPreserve) == 0) f = flush_denormal(f);
      std::memcpy(&raw, &f, 4);
      break;
    }
    case DataType::kHf: {
      const float f = kind == Kind::kFloat    ? v.f
                      : kind == Kind::kDouble ? static_cast<float>(v.d)
                                              : static_cast<float>(v.i);
      std::uint16_t h = float_to_half(f, rounding);
      if ((t_.cr0[0] & cr0::kFp16DenormPreserve) == 0 && (h & 0x7C00U) == 0) h &= 0x8000U;
      raw = h;
      break;
    }
    case DataType::kDf: {
      double d = kind == Kind::kDouble  ? v.d
                 : kind == Kind::kFloat ? v.f
                 : unsigned_64          ? static_cast<double>(static_cast<std::uint64_t>(v.i))
                                        : static_cast<double>(v.i);
      if ((t_.cr0[0] & cr0::kFp64DenormPreserve) == 0) d = flush_denormal(d);
      std::memcpy(&raw, &d, 8);
      break;
    }
    default: {
      const unsigned bits = type_bits(o.type);
      if (kind == Kind::kInt) {
        raw = static_cast<std::uint64_t>(d_.saturate ? clamp_to(v.i, o.type) : v.i);
      } else {
        // Float to integer: round toward zero, clamped to the destination's range, NaN to 0.
        raw = static_cast<std::uint64_t>(
            float_to_int(kind == Kind::kFloat ? static_cast<double>(v.f) : v.d, bits, is_signed_type(o.type)));
      }
      break;
    }
  }
  write_bits(p, raw, type_size(o.type));
}

bool Step::condition(Kind kind, Lane v) const {
  const auto cond = static_cast<Cond>(d_.cond_mod);
  if (kind == Kind::kInt) {
    if (cond == kO || cond == kU) return false;
    // The result as the destination holds it: an unsigned 64-bit one above 2^63 is positive.
    if (d_.dst.type == DataType::kUq) return compare<std::uint64_t>(cond, static_cast<std::uint64_t>(v.i), 0);
    return compare<std::int64_t>(cond, v.i, 0);
  }
  const double value = kind == Kind::kFloat ? v.f : v.d;
  if (cond == kU) return std::isnan(value);
  if (cond == kO) return std::isinf(value);
  return compare<double>(cond, value, 0.0);
}

template <typename T>
T Step::float_math(T a, T b) const {
  // Computed in binary64 and rounded once to the destination: within the hardware's documented error bounds
  // (correctly rounded for the IEEE functions inv, sqrt, fdiv).
  const double x = a;
  const double y = b;
  switch (d_.math_fn) {
    case kInv:
      return static_cast<T>(1.0 / x);
    case kLog:
      return static_cast<T>(std::log2(x));
    case kExp:
      return static_cast<T>(std::exp2(x));
    case kSqrt:
      return static_cast<T>(std::sqrt(x));
    case kRsq:
      return static_cast<T>(1.0 / std::sqrt(x));
    case kSin:
      return static_cast<T>(std::sin(x));
    case kCos:
      return static_cast<T>(std::cos(x));
    case kFdiv:
      return static_cast<T>(x / y);
    case kPow:
      return static_cast<T>(std::pow(x, y));
    default:
      fault("math function " + std::to_string(d_.math_fn) + " on floating-point operands");
  }
}

std::int64_t Step::int_math(std::int64_t a, std::int64_t b, unsigned fn) const {
  // Integer division of 32-bit operands (signed when a source type is signed). Division by zero yields a quotient of
  // all ones and the dividend as remainder (the hardware's result is not documented; this one is defined and stated).
  const bool is_signed = is_signed_type(d_.src[0].type) || is_signed_type(d_.src[1].type);
  std::int64_t quotient = -1;
  std::int64_t remainder = a;
  if (b != 0) {
    if (is_signed) {
      quotient = a / b;  // int64: no overflow for 32-bit operands
      remainder = a % b;
    } else {
      const auto ua = static_cast<std::uint64_t>(a) & 0xFFFFFFFFU;
      const auto ub = static_cast<std::uint64_t>(b) & 0xFFFFFFFFU;
      quotient = static_cast<std::int64_t>(ua / ub);
      remainder = static_cast<std::int64_t>(ua % ub);
    }
  }
  switch (fn) {
    case kIntDivQr:  // the quotient to dst (the remainder, to the next register, see alu())
    case kIntQuotient:
      return quotient;
    case kIntRemainder:
      return remainder;
    default:
      fault("math function " + std::to_string(d_.math_fn) + " on integer operands");
  }
}

template <typename T>
T lane_value(const Lane& l) {
  if constexpr (std::is_same_v<T, float>) {
    return l.f;
  } else {
    return l.d;
  }
}

template <typename T>
Lane make_lane(T v) {
  Lane l{};
  if constexpr (std::is_same_v<T, float>) {
    l.f = v;
  } else {
    l.d = v;
  }
  return l;
}

// The first NaN among the sources, in order src0, src1, src2, quieted; `r` when none is a NaN. x86 hands back
// whichever NaN operand an instruction names first, and compilers order commutative operands as they like: the model
// chooses, so that every build and the fast forms (fast_path.cpp) give the same bits. No public source says which NaN
// the EU returns (the stated choice).
template <typename T>
T first_nan(T r, std::initializer_list<T> sources) {
  for (const T s : sources) {
    if (std::isnan(s)) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &s, sizeof s);
      return from_bits<T>(bits | (std::is_same_v<T, float> ? 0x00400000ULL : 0x0008000000000000ULL));
    }
  }
  return r;
}

// F (binary32) and DF (binary64) arithmetic.
template <typename T>
Lane Step::real_op(const Lane* s, unsigned channel, bool predicate_bit) {
  const T a = lane_value<T>(s[0]);
  const T b = lane_value<T>(s[1]);
  T r;
  switch (d_.op->number) {
    case kMov:
      r = a;
      break;
    case kSel:
      if (d_.cond_mod == kL || d_.cond_mod == kGe) {
        // min/max: a NaN source loses to the other, signalling or quiet (IEEE minNum as OpenCL's fmin/fmax want;
        // not the host library's, which may return a quiet NaN for a signalling one); -0 is below +0.
        const bool less = a < b || (a == b && std::signbit(a) && !std::signbit(b));
        const bool greater = a > b || (a == b && !std::signbit(a) && std::signbit(b));
        r = std::isnan(a) ? b : std::isnan(b) ? a : (d_.cond_mod == kL ? less : greater || a == b) ? a : b;
      } else if (d_.cond_mod != kNone) {
        r = compare(static_cast<Cond>(d_.cond_mod), a, b) ? a : b;
      } else {
        r = predicate_bit ? a : b;
      }
      break;
    case kCsel:
      r = compare(static_cast<Cond>(d_.cond_mod), lane_value<T>(s[2]), T{0}) ? a : b;
      break;
    case kAdd:
      r = first_nan(a + b, {a, b});
      break;
    case kMul:
      r = first_nan(a * b, {a, b});
      break;
    case kMac: {
      T acc;
      std::memcpy(&acc, t_.acc.data() + sizeof(T) * channel, sizeof(T));
      r = acc + a * b;
      break;
    }
    case kMad:  // dst = src0 + src1 * src2, fused
      r = first_nan(std::fma(b, lane_value<T>(s[2]), a), {a, b, lane_value<T>(s[2])});
      break;
    case kMadm:  // the macro step: fused too; its mme operands are plain registers here (see ieee_macro.h)
      r = std::fma(lane_value<T>(s[1]), lane_value<T>(s[2]), a);
      break;
    case kLrp:
      r = a * lane_value<T>(s[1]) + (T{1} - a) * lane_value<T>(s[2]);  // src0 * src1 + (1 - src0) * src2
      break;
    case kFrc:
      r = a - std::floor(a);
      break;
    case kRndd:
      r = std::floor(a);
      break;
    case kRndu:
      r = std::ceil(a);
      break;
    case kRndz:
      r = std::trunc(a);
      break;
    case kRnde: {
      const T down = std::floor(a);
      const T frac = a - down;
      r = std::copysign(frac > T{0.5} || (frac == T{0.5} && std::fmod(down, T{2}) != T{0}) ? down + T{1} : down, a);
      break;
    }
    case kMath:
      if constexpr (std::is_same_v<T, double>) fault("math on double-precision operands (Gen9's math takes F/HF)");
      r = float_math(a, b);
      break;
    default:
      fault(std::string(d_.op->name) + " on " + (std::is_same_v<T, float> ? "single" : "double") +
            "-precision operands is not modelled");
  }
  return make_lane(r);
}

// The shift count's low 5 bits, or 6 for a 64-bit operation: a QWord destination makes one even from DWord sources
// (IGC builds 64-bit values with "shl (8) dst:q src:d 32" and relies on it).
unsigned shift_mask(DataType source, DataType destination) {
  return type_bits(source) == 64 || type_bits(destination) == 64 ? 63U : 31U;
}

// Integers compare in the widest source type, unsigned when that type is (a UQ value above 2^63 is positive; a UD
// register equals an immediate -1:d). Lanes hold each source already wrapped to its own type.
bool Step::int_compare(Cond cond, std::int64_t a, std::int64_t b, unsigned first_source, unsigned sources) const {
  unsigned bits = 0;
  bool is_unsigned = false;
  for (unsigned i = first_source; i < first_source + sources; ++i) {
    const unsigned b_i = type_bits(d_.src[i].type);
    if (b_i > bits) {
      bits = b_i;
      is_unsigned = false;
    }
    if (b_i == bits && !is_signed_type(d_.src[i].type)) is_unsigned = true;
  }
  if (!is_unsigned) return compare(cond, a, b);
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  return compare(cond, static_cast<std::uint64_t>(a) & mask, static_cast<std::uint64_t>(b) & mask);
}

Lane Step::int_op(const Lane* s, unsigned channel, bool predicate_bit) {
  Lane r{};
  const std::int64_t a = s[0].i;
  const std::int64_t b = s[1].i;
  const auto ua = static_cast<std::uint64_t>(a);
  const auto ub = static_cast<std::uint64_t>(b);
  const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  switch (d_.op->number) {
    case kMov:
      r.i = a;
      break;
    case kSel:
      if (d_.cond_mod != kNone) {
        r.i = int_compare(static_cast<Cond>(d_.cond_mod), a, b, 0, 2) ? a : b;
      } else {
        r.i = predicate_bit ? a : b;
      }
      break;
    case kNot:
      r.i = ~a;
      break;
    case kAnd:
      r.i = a & b;
      break;
    case kOr:
      r.i = a | b;
      break;
    case kXor:
      r.i = a ^ b;
      break;
    case kShl:
      r.i = static_cast<std::int64_t>(ua << (ub & shift_mask(d_.src[0].type, d_.dst.type)));
      break;
    case kShr: {
      // Logical: the source's bits as unsigned.
      const unsigned bits = type_bits(d_.src[0].type);
      const std::uint64_t value = bits == 64 ? ua : ua & ((std::uint64_t{1} << bits) - 1);
      r.i = static_cast<std::int64_t>(value >> (ub & shift_mask(d_.src[0].type, d_.dst.type)));
      break;
    }
    case kAsr:
      r.i = a >> (ub & shift_mask(d_.src[0].type, d_.dst.type));
      break;
    case kAdd:
      r.i = static_cast<std::int64_t>(ua + ub);
      break;
    case kMul:
      r.i = static_cast<std::int64_t>(ua * ub);
      break;
    case kAvg:
      r.i = (a + b + 1) >> 1;
      break;
    case kMac: {
      std::int32_t acc;
      std::memcpy(&acc, t_.acc.data() + 4 * channel, 4);
      r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(acc) + ua * ub);
      break;
    }
    case kMach: {
      // The high 32 bits of the 64-bit product: Mesa and IGC pair "mul acc0 a b.uw" with "mach dst a b" for
      // exactly this; the low half goes to the accumulator.
      const bool is_signed = is_signed_type(d_.src[0].type) || is_signed_type(d_.src[1].type);
      const std::uint64_t product =
          is_signed ? static_cast<std::uint64_t>(a * b) : (ua & 0xFFFFFFFFU) * (ub & 0xFFFFFFFFU);
      const auto low = static_cast<std::uint32_t>(product);
      std::memcpy(t_.acc.data() + 4 * channel, &low, 4);
      r.i = is_signed ? static_cast<std::int64_t>(product) >> 32 : static_cast<std::int64_t>(product >> 32);
      break;
    }
    case kAddc: {
      const std::uint64_t sum = std::uint64_t{u32(a)} + u32(b);
      const auto carry = static_cast<std::uint32_t>(sum >> 32);
      std::memcpy(t_.acc.data() + 4 * channel, &carry, 4);
      r.i = static_cast<std::int64_t>(sum & 0xFFFFFFFFU);
      break;
    }
    case kSubb: {
      const std::uint32_t borrow = u32(a) < u32(b) ? 1 : 0;
      std::memcpy(t_.acc.data() + 4 * channel, &borrow, 4);
      r.i = static_cast<std::int64_t>(u32(a) - u32(b));
      break;
    }
    case kBfrev: {
      std::uint32_t v = u32(a);
      std::uint32_t out = 0;
      for (int k = 0; k < 32; ++k, v >>= 1) out = (out << 1) | (v & 1U);
      r.i = out;
      break;
    }
    case kCbit:
      r.i = __builtin_popcount(u32(a));
      break;
    case kLzd:
      r.i = u32(a) == 0 ? 32 : __builtin_clz(u32(a));
      break;
    case kFbl:
      r.i = u32(a) == 0 ? 0xFFFFFFFF : __builtin_ctz(u32(a));
      break;
    case kFbh: {
      // Unsigned: leading zeros before the first 1 from the MSB; signed: before the first bit that differs from the
      // sign. None: all ones.
      std::uint32_t v = u32(a);
      if (is_signed_type(d_.src[0].type) && (v >> 31) != 0) v = ~v;
      r.i = v == 0 ? 0xFFFFFFFF : __builtin_clz(v);
      break;
    }
    case kBfe: {
      // bfe dst width offset value (Mesa's ubitfield_extract / ibitfield_extract lowering).
      const unsigned width = u32(s[0].i) & 31U;
      const unsigned offset = u32(s[1].i) & 31U;
      const bool is_signed = is_signed_type(d_.src[2].type);
      const std::uint32_t value = u32(s[2].i);
      if (width == 0) {
        r.i = 0;
      } else if (width + offset < 32) {
        const std::uint32_t shifted = value << (32 - width - offset);
        r.i = is_signed ? static_cast<std::int64_t>(static_cast<std::int32_t>(shifted) >> (32 - width))
                        : static_cast<std::int64_t>(shifted >> (32 - width));
      } else {
        r.i = is_signed ? static_cast<std::int64_t>(static_cast<std::int32_t>(value) >> offset)
                        : static_cast<std::int64_t>(value >> offset);
      }
      break;
    }
    case kBfi1: {
      const unsigned width = u32(a) & 31U;
      const unsigned offset = u32(b) & 31U;
      r.i = static_cast<std::int64_t>(((std::uint64_t{1} << width) - 1) << offset & 0xFFFFFFFFU);
      break;
    }
    case kBfi2:
      r.i = (s[0].i & s[1].i) | (~s[0].i & s[2].i);
      break;
    case kCsel:
      r.i = int_compare(static_cast<Cond>(d_.cond_mod), s[2].i, std::int64_t{0}, 2, 1) ? a : b;
      break;
    case kMad:
      r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(s[0].i) +
                                      static_cast<std::uint64_t>(s[1].i) * static_cast<std::uint64_t>(s[2].i));
      break;
    case kMath:
      r.i = int_math(a, b, d_.math_fn);
      break;
    default:
      fault(std::string(d_.op->name) + " on integer operands is not modelled");
  }
  return r;
}

Lane Step::compute(Kind kind, const Lane* s, unsigned channel, bool predicate_bit) {
  if (kind == Kind::kFloat) return real_op<float>(s, channel, predicate_bit);
  if (kind == Kind::kDouble) return real_op<double>(s, channel, predicate_bit);
  return int_op(s, channel, predicate_bit);
}

bool integer_only(unsigned op) {
  switch (op) {
    case kNot:
    case kAnd:
    case kOr:
    case kXor:
    case kShl:
    case kShr:
    case kAsr:
    case kBfrev:
    case kBfe:
    case kBfi1:
    case kBfi2:
    case kCbit:
    case kLzd:
    case kFbh:
    case kFbl:
    case kAddc:
    case kSubb:
    case kMach:
    case kAvg:
      return true;
    default:
      return false;
  }
}

void Step::alu() {
  const unsigned op = d_.op->number;
  switch (op) {
    case kCmpn:
    case 80:  // sad2
    case 81:  // sada2
    case 84:  // dp4
    case 85:  // dph
    case 86:  // dp3
    case 87:  // dp2
    case 89:  // line
    case 90:  // pln
      fault(std::string(d_.op->name) + " is not modelled (a graphics/media instruction OpenCL kernels do not use)");
    case kMovi:
    case kSmov:
      // No public source gives their semantics: Mesa (brw_eu.cpp opcode_descs) lists movi with two sources and smov
      // by number only and emits neither; IGC's documentation and IGA give no description; IGC's Gen9 gathers
      // (private arrays, sub-group shuffles) use mov with a0-indirect regions instead.
      fault(std::string(d_.op->name) + " is not modelled (its semantics are not public)");
    case kMath:
      if (d_.math_fn == kInvm || d_.math_fn == kRsqtm) {
        math_macro();
        return;
      }
      break;
    default:
      break;
  }
  if (d_.align16 && d_.op->op_class != OpClass::kTernary) {
    // Align16 swizzles and write masks select 32-bit components; how they apply to 64-bit data (pairs of components)
    // is not modelled.
    for (unsigned i = 0; i < d_.sources; ++i) {
      if (type_size(d_.src[i].type) == 8)
        fault("Align16 one- or two-source instruction on 64-bit data is not modelled");
    }
    if (type_size(d_.dst.type) == 8) fault("Align16 one- or two-source instruction on 64-bit data is not modelled");
  }
  const bool logic = d_.op->has(OpcodeInfo::kLogic);
  Kind kind = Kind::kInt;
  if (op == kMov) {
    kind = natural_kind(d_.src[0].type);
  } else if (!integer_only(op)) {
    for (unsigned i = 0; i < d_.sources; ++i) {
      const Kind k = natural_kind(d_.src[i].type);
      if (k == Kind::kDouble || (k == Kind::kFloat && kind == Kind::kInt)) kind = k;
    }
    if (op == kMath && d_.math_fn >= kIntDivQr) kind = Kind::kInt;
  }
  // math idiv (Mesa BRW_MATH_FUNCTION_INT_DIV_QUOTIENT_AND_REMAINDER, a two-register response): the quotient to dst,
  // the remainder to the same region one register further. Where the remainder of a quotient spanning two registers
  // goes is not documented publicly: such an instruction is a fault.
  const bool two_results = op == kMath && d_.math_fn == kIntDivQr;
  Operand remainder_dst = d_.dst;
  if (two_results) {
    if (d_.dst.file != RegFile::kGrf || d_.dst.indirect) fault("math idiv to other than a direct GRF destination");
    if (d_.dst.subreg + (d_.exec_size - 1U) * d_.dst.region.hstride * type_size(d_.dst.type) >=
        ThreadState::kRegBytes) {
      fault("math idiv with a quotient spanning two registers is not modelled");
    }
    if (d_.dst.reg + 1U >= ThreadState::kGrfCount) fault("math idiv remainder runs past r127");
    remainder_dst.reg = static_cast<std::uint8_t>(d_.dst.reg + 1);
  }
  Lanes remainders;
  const bool is_cmp = op == kCmp;
  const bool is_sel = op == kSel;
  const std::uint32_t exec = exec_mask();
  const std::uint32_t pred = predicate_mask();
  // sel uses its predicate to choose a source, not to disable channels.
  const std::uint32_t enabled = is_sel && d_.pred_ctrl != 0 ? exec : exec & pred;
  const bool ternary = d_.op->op_class == OpClass::kTernary;
  // Raw copies keep every bit (NaN payloads, denormals): a mov between equal types without modifiers.
  const bool raw_copy = op == kMov && d_.src[0].type == d_.dst.type && d_.src[0].file != RegFile::kImm &&
                        !d_.saturate && !d_.src[0].abs && !d_.src[0].negate;
  Lanes results;  // only enabled channels are written and read: no need to clear 32 lanes per instruction
  std::array<std::uint64_t, ThreadState::kMaxChannels> raw;  // likewise
  for (unsigned c = 0; c < d_.exec_size; ++c) {
    if ((enabled >> c & 1U) == 0) continue;
    if (raw_copy) {
      raw[c] = read_bits(element(d_.src[0], c, false, false), type_size(d_.src[0].type));
      continue;
    }
    std::array<Lane, 3> s{};
    for (unsigned i = 0; i < d_.sources; ++i) s[i] = load(d_.src[i], c, kind, ternary, logic);
    if (is_cmp) {
      bool r;
      if (kind == Kind::kInt) {
        r = int_compare(static_cast<Cond>(d_.cond_mod), s[0].i, s[1].i, 0, 2);
      } else {
        const double a = kind == Kind::kFloat ? s[0].f : s[0].d;
        const double b = kind == Kind::kFloat ? s[1].f : s[1].d;
        r = d_.cond_mod == kU ? std::isnan(a) || std::isnan(b) : compare(static_cast<Cond>(d_.cond_mod), a, b);
      }
      results[c].i = r ? 1 : 0;
      continue;
    }
    results[c] = compute(kind, s.data(), c, (pred >> c & 1U) != 0);
    if (two_results) remainders[c].i = int_math(s[0].i, s[1].i, kIntRemainder);
  }
  // An Align16 write mask selects components x..w of each group of four channels.
  const bool masked = d_.write_mask != 0xF;
  if (masked && type_size(d_.dst.type) == 8) fault("an Align16 write mask on a 64-bit destination is not modelled");
  // Write after all reads: a destination that overlaps a source reads the old values, as the hardware does.
  for (unsigned c = 0; c < d_.exec_size; ++c) {
    if ((enabled >> c & 1U) == 0) continue;
    if (masked && (d_.write_mask >> (c % 4) & 1U) == 0) continue;
    if (raw_copy) {
      if (!(d_.dst.file == RegFile::kArf && (d_.dst.reg & 0xF0U) == arf::kNull)) {
        write_bits(element(d_.dst, c, true, false), raw[c], type_size(d_.dst.type));
      }
      if (d_.cond_mod != kNone) {
        set_flag_bit(flag_index(c), condition(kind, load(d_.dst, c, kind, false, false)));
      }
      continue;
    }
    if (is_cmp) {
      // cmp writes all ones for true and zero for false in the destination type (Mesa brw_CMP, Gen6+).
      const bool r = results[c].i != 0;
      if (!(d_.dst.file == RegFile::kArf && (d_.dst.reg & 0xF0U) == arf::kNull)) {
        const std::uint64_t bits = r ? ~std::uint64_t{0} : 0;
        write_bits(element(d_.dst, c, true, false), bits, type_size(d_.dst.type));
      }
      set_flag_bit(flag_index(c), r);
      continue;
    }
    Lane v = saturate(kind, results[c], d_.dst.type);
    if (kind == Kind::kInt && !d_.saturate && !is_float_type(d_.dst.type)) v.i = wrap(v.i, d_.dst.type);
    store(d_.dst, c, kind, v);
    if (two_results) {
      Lane r = saturate(kind, remainders[c], d_.dst.type);
      if (!d_.saturate && !is_float_type(d_.dst.type)) r.i = wrap(r.i, d_.dst.type);
      store(remainder_dst, c, kind, r);
    }
    if (d_.acc_wr_en) {
      Operand acc = d_.dst;
      acc.file = RegFile::kArf;
      acc.reg = arf::kAccumulator;
      acc.subreg = 0;
      acc.indirect = false;
      acc.region.hstride = 1;
      store(acc, c, kind, v);
    }
    // sel and csel never write the flag (Mesa fs_inst::writes_flag).
    if (d_.cond_mod != kNone && op != kSel && op != kCsel) set_flag_bit(flag_index(c), condition(kind, v));
  }
  if (d_.dst.file == RegFile::kArf && (d_.dst.reg & 0xF0U) == arf::kControl) {
    const std::uint32_t mode = t_.cr0[0];
    fp_.set(static_cast<Rounding>((mode & cr0::kRoundingModeMask) >> cr0::kRoundingModeShift),
            (mode & (cr0::kFp32DenormPreserve | cr0::kFp64DenormPreserve)) == 0);
  }
}

// math.invm / math.rsqtm: per channel, the early-out flag and the final result or the approximation the madm steps
// refine (ieee_macro.h says what is modelled). Operands are whole registers, channel n at element n.
void Step::math_macro() {
  if (d_.dst.type != DataType::kDf || d_.src[0].type != DataType::kDf ||
      (d_.sources == 2 && d_.src[1].type != DataType::kDf)) {
    fault(std::string("math.") + (d_.math_fn == kInvm ? "invm" : "rsqtm") + " on other than DF operands");
  }
  const auto contiguous = [](Operand o) {
    o.region = {8, 8, 1, false};
    return o;
  };
  const Operand dst = contiguous(d_.dst);
  const Operand a_operand = contiguous(d_.src[0]);
  const Operand b_operand = contiguous(d_.src[1]);
  const std::uint32_t enabled = exec_mask() & predicate_mask();
  std::array<MacroStart, ThreadState::kMaxChannels> results;
  for (unsigned c = 0; c < d_.exec_size; ++c) {
    if ((enabled >> c & 1U) == 0) continue;
    const double a = load(a_operand, c, Kind::kDouble, false, false).d;
    results[c] = d_.math_fn == kInvm ? divide_macro_start(a, load(b_operand, c, Kind::kDouble, false, false).d)
                                     : sqrt_macro_start(a);
  }
  for (unsigned c = 0; c < d_.exec_size; ++c) {
    if ((enabled >> c & 1U) == 0) continue;
    Lane v{};
    v.d = results[c].value;
    store(dst, c, Kind::kDouble, v);
    set_flag_bit(flag_index(c), results[c].early_out);
  }
}

// Instruction-relative channel mask -> thread (absolute) channels.
std::uint32_t Step::instruction_channels(std::uint32_t mask) const {
  return static_cast<std::uint32_t>(std::uint64_t{mask} << d_.channel_offset);
}

// Channels in `taken` (thread numbering) go to `target`, the instruction's other channels to the next instruction.
// Active channels outside the instruction's execution range (an exec size smaller than the thread's) follow the
// thread's instruction pointer: to `target` when `thread_jumps`, else on. The thread then continues at the lowest
// pointer of a dispatched channel.
void Step::branch(std::uint32_t taken, std::uint32_t target, bool thread_jumps) {
  const std::uint32_t next = x_.pc + x_.length;
  const std::uint32_t range = instruction_channels(d_.exec_size == 32 ? 0xFFFFFFFFU : (1U << d_.exec_size) - 1);
  const std::uint32_t jumpers = (t_.active & range & taken) | (thread_jumps ? t_.active & ~range : 0);
  const std::uint32_t stayers = t_.active & ~jumpers;
  const std::uint32_t parked = t_.scope & ~t_.active;
  if (parked == 0) {
    // No channel waits elsewhere: a uniform branch moves the whole thread.
    if (jumpers != 0 && stayers == 0) {
      t_.ip = target;
      return;
    }
    if (jumpers == 0) {
      t_.ip = next;
      return;
    }
  }
  for (std::uint32_t m = t_.active; m != 0; m &= m - 1) {
    const unsigned c = static_cast<unsigned>(__builtin_ctz(m));
    t_.channel_ip[c] = (jumpers >> c & 1U) != 0 ? target : next;
  }
  resume_lowest(next);
}

// The thread continues at the lowest instruction pointer of a channel in scope, with the channels waiting there.
void Step::resume_lowest(std::uint32_t fallback) {
  std::uint32_t lowest = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t m = t_.scope; m != 0; m &= m - 1) {
    lowest = std::min(lowest, t_.channel_ip[static_cast<unsigned>(__builtin_ctz(m))]);
  }
  if (t_.scope == 0) lowest = fallback;  // no channel dispatched: the thread just goes on
  t_.ip = lowest;
  t_.active = 0;
  for (std::uint32_t m = t_.scope; m != 0; m &= m - 1) {
    const unsigned c = static_cast<unsigned>(__builtin_ctz(m));
    if (t_.channel_ip[c] == lowest) t_.active |= 1U << c;
  }
}

std::uint32_t offset_target(const ExecInstruction& x, std::int32_t offset) {
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(x.pc) + offset);
}

std::optional<StopReason> Step::control_flow() {
  const std::uint32_t exec = instruction_channels(exec_mask()) & t_.active;
  const std::uint32_t pred = instruction_channels(predicate_mask());
  const std::uint32_t jip = offset_target(x_, d_.jip);
  const std::uint32_t uip = offset_target(x_, d_.uip);
  const std::uint32_t next = x_.pc + x_.length;
  // The thread's instruction pointer jumps when every enabled channel of the instruction branches (if, else, break,
  // cont, halt, goto) or when any does (while).
  const auto all = [&](std::uint32_t taken) { return (exec & ~taken) == 0; };
  switch (d_.op->number) {
    case kIf: {
      // Channels whose predicate is false skip to JIP: the instruction after the else (Mesa's patch_IF_ELSE, IGC),
      // or the endif. A JIP at the else itself means the same (the else would hand them its block).
      const ExecInstruction& at_jip = program_.at(jip);
      const bool is_else = at_jip.ok() && at_jip.inst.op->number == kElse;
      const std::uint32_t taken = exec & ~pred;
      branch(taken, is_else ? jip + at_jip.length : jip, all(taken));
      return std::nullopt;
    }
    case kElse:  // the channels that ran the then-block skip to JIP (the endif)
      branch(exec, jip, true);
      return std::nullopt;
    case kEndif:
    case kJoin:
      // The channels waiting here join the ones that reached it (by a branch, or falling through a then-block).
      for (std::uint32_t m = t_.scope & ~t_.active; m != 0; m &= m - 1) {
        const unsigned c = static_cast<unsigned>(__builtin_ctz(m));
        if (t_.channel_ip[c] == x_.pc) t_.active |= 1U << c;
      }
      t_.ip = next;
      return std::nullopt;
    case kWhile:  // channels whose predicate holds loop back to JIP
      branch(exec & pred, jip, (exec & pred) != 0);
      return std::nullopt;
    case kCont:  // to the loop's while (UIP), which re-evaluates its predicate for them
      branch(exec & pred, uip, all(exec & pred));
      return std::nullopt;
    case kBreak: {
      // UIP is the loop's while (Mesa brw_set_uip_jip, Gen7+): broken channels wait after it.
      const ExecInstruction& at_uip = program_.at(uip);
      const bool is_while = at_uip.ok() && at_uip.inst.op->number == kWhile;
      branch(exec & pred, is_while ? uip + at_uip.length : uip, all(exec & pred));
      return std::nullopt;
    }
    case kHalt:  // to UIP, the program's final halt
      branch(exec & pred, uip, all(exec & pred));
      return std::nullopt;
    case kGoto: {
      // To UIP, where a join re-enables them. On Gen8/9 a forward goto sends the channels whose predicate is FALSE
      // (IGC vISA CFGStructurizer::generateGotoJoin: "For BDW/SKL, need to flip goto's pred as false condition will
      // jump", and an unconditional forward goto gets an all-zero flag); a backward goto those whose predicate holds.
      const std::uint32_t taken = uip > x_.pc ? exec & ~pred : exec & pred;
      branch(taken, uip, all(taken));
      return std::nullopt;
    }
    default:
      fault(std::string(d_.op->name) + " is not modelled");
  }
}

// The channels a call or ret takes: the instruction's enabled and predicated channels; active channels outside a
// narrower instruction's range go along when any of its channels does (a (W) call (1|M0) takes the whole thread).
std::uint32_t Step::flow_channels() const {
  const std::uint32_t range = instruction_channels(d_.exec_size == 32 ? 0xFFFFFFFFU : (1U << d_.exec_size) - 1);
  const std::uint32_t taken = instruction_channels(exec_mask() & predicate_mask());
  return (t_.active & taken) | (taken != 0 ? t_.active & ~range : 0);
}

// jmpi moves the active channels. call and ret keep per-channel instruction pointers, as vISA's call semantics have it
// (IGC documentation/visa/instructions/IFCALL.md: the call is taken when any active channel's predicate holds, and the
// subroutine starts with those channels): the calling channels go to the target, the other channels in scope wait,
// until every calling channel has returned (ret sends its channels to the return address in src0.0; the channels
// still in the subroutine go on at their lowest instruction pointer), and then the thread continues at the lowest
// pointer of the caller's channels. call and calla write the return address (a kernel offset) to dst.0 and the calling
// channels to dst.1; call's register target is an offset from the call instruction (IGC's indirect call computes it
// as target - ip - 32 two instructions before the call: visa Optimizer::expandIndirectCallWithRegTarget), calla's
// immediate an address relative to the instruction base. brd and brc are faults: no compiler for Gen8/9 emits them and
// their semantics are not established from public sources.
std::optional<StopReason> Step::flow() {
  const std::uint32_t next = x_.pc + x_.length;
  const auto register_value = [&](const Operand& o, unsigned channel) {
    std::int32_t v;
    std::memcpy(&v, element(o, channel, false, false), 4);
    return v;
  };
  switch (d_.op->number) {
    case kJmpi: {
      if ((predicate_mask() & 1U) == 0) {  // a scalar instruction: channel 0's predicate
        t_.ip = next;
        return std::nullopt;
      }
      // The offset is relative to the next instruction (the decoder's jip already counts from this one).
      const std::uint32_t target =
          d_.sources == 1 ? next + static_cast<std::uint32_t>(register_value(d_.src[0], 0)) : offset_target(x_, d_.jip);
      branch(t_.active, target, true);
      return std::nullopt;
    }
    case kCall:
    case kCalla: {
      const std::uint32_t calling = flow_channels();
      if (calling == 0) {
        t_.ip = next;
        return std::nullopt;
      }
      std::uint32_t target = 0;
      if (d_.op->number == kCalla) {
        // Relative to the instruction base; the program's kernel starts kernel_address - instruction_base after it.
        target = static_cast<std::uint32_t>(static_cast<std::uint64_t>(static_cast<std::uint32_t>(d_.jip)) -
                                            (program_.kernel_address() - program_.instruction_base()));
      } else {
        target = d_.sources == 1 ? x_.pc + static_cast<std::uint32_t>(register_value(d_.src[0], 0))
                                 : offset_target(x_, d_.jip);
      }
      if (t_.call_depth == ThreadState::kMaxCallDepth) {
        fault("calls nested deeper than " + std::to_string(ThreadState::kMaxCallDepth) + " are not modelled");
      }
      Operand out = d_.dst;
      out.type = DataType::kUd;
      out.region.hstride = 1;
      std::memcpy(element(out, 0, true, false), &next, 4);
      std::memcpy(element(out, 1, true, false), &calling, 4);
      for (std::uint32_t m = t_.active & ~calling; m != 0; m &= m - 1) t_.channel_ip[__builtin_ctz(m)] = next;
      t_.call_scopes[t_.call_depth++] = t_.scope;
      t_.scope = calling;
      t_.active = calling;
      t_.ip = target;
      return std::nullopt;
    }
    case kRet: {
      const std::uint32_t returning = flow_channels();
      if (returning == 0) {
        t_.ip = next;
        return std::nullopt;
      }
      const auto target = static_cast<std::uint32_t>(register_value(d_.src[0], 0));
      for (std::uint32_t m = t_.active; m != 0; m &= m - 1) {
        const unsigned c = static_cast<unsigned>(__builtin_ctz(m));
        t_.channel_ip[c] = (returning >> c & 1U) != 0 ? target : next;
      }
      if (t_.call_depth != 0) {
        t_.scope &= ~returning;  // out of the subroutine: they wait for the others
        if (t_.scope == 0) t_.scope = t_.call_scopes[--t_.call_depth];
      }
      resume_lowest(target);
      return std::nullopt;
    }
    default:
      fault(std::string(d_.op->name) + " is not modelled (no Gen8/Gen9 compiler emits it)");
  }
}

// wait n0.N: goes on when the notification count is non-zero (and takes one), else the thread waits here (the
// gateway's barrier release increments it; run() again retries the wait).
std::optional<StopReason> Step::wait() {
  const unsigned n = d_.src[0].subreg / 4U % 4U;
  if (t_.n0[n] == 0) return StopReason::kSuspended;
  --t_.n0[n];
  t_.ip = x_.pc + x_.length;
  return std::nullopt;
}

std::optional<StopReason> Step::send() {
  const std::uint32_t exec = exec_mask();
  Message m;
  m.pc = x_.pc;
  m.sfid = d_.sfid;
  m.desc = d_.desc;
  m.ex_desc = d_.ex_desc;
  // Descriptors in a0: the message descriptor in a0.0, a sends extended descriptor in a0.<n> (dwords).
  if (d_.desc_in_register) std::memcpy(&m.desc, t_.a0.data(), 4);
  if (d_.ex_desc_subreg >= 0) {
    std::memcpy(&m.ex_desc, t_.a0.data() + 4 * d_.ex_desc_subreg, 4);
    m.sfid = static_cast<std::uint8_t>(m.ex_desc & 0xFU);  // a register extended descriptor names the SFID too
  }
  m.payload_reg = d_.src[0].reg;
  m.split = d_.op->number == kSends || d_.op->number == kSendsc;
  if (m.split) m.payload1_reg = d_.src[1].reg;
  m.dst_null = d_.dst.file == RegFile::kArf;
  m.dst_reg = d_.dst.reg;
  m.exec_size = d_.exec_size;
  m.channel_offset = d_.channel_offset;
  m.channel_mask = exec & predicate_mask();
  m.eot = d_.eot;
  if (d_.src[0].file != RegFile::kGrf) fault("send payload not in the GRF");
  if (m.payload_reg + m.message_length() > ThreadState::kGrfCount) fault("send payload runs past r127");
  // A split send's second part: its length is the extended descriptor's bits 9:6.
  if (m.split && m.payload1_reg + ((m.ex_desc >> 6) & 0xFU) > ThreadState::kGrfCount) {
    fault("sends second payload runs past r127");
  }
  if (!m.dst_null && m.dst_reg + m.response_length() > ThreadState::kGrfCount) fault("send response runs past r127");
  MemoryLog* log = t_.memory_log;
  const std::size_t first_line = log != nullptr ? log->lines.size() : 0;
  if (log != nullptr) log->pending_atomics = 0;
  const MessageResult r = shared_.send(m, t_);
  if (r.status == MessageStatus::kError) fault("message to shared function " + std::to_string(m.sfid) + ": " + r.error);
  // Every send is logged (one message each, in order) so that the timing run pairs its sends with their lines.
  if (log != nullptr) {
    log->messages.push_back({static_cast<std::uint32_t>(first_line),
                             static_cast<std::uint16_t>(std::min<std::size_t>(log->lines.size() - first_line, 0xFFFF)),
                             log->pending_atomics});
  }
  t_.ip = x_.pc + x_.length;
  if (m.eot) {
    t_.ended = true;
    return StopReason::kEndOfThread;
  }
  if (r.status == MessageStatus::kSuspend) return StopReason::kSuspended;
  return std::nullopt;
}

std::optional<StopReason> Step::execute() {
  if (!x_.ok()) fault(x_.error);
  switch (d_.op->op_class) {
    case OpClass::kNop:
      break;
    case OpClass::kAlu:
    case OpClass::kMath:
    case OpClass::kTernary:
      alu();
      break;
    case OpClass::kBranch:
      return control_flow();
    case OpClass::kSend:
      return send();
    case OpClass::kFlow:
      return flow();
    case OpClass::kWait:
      return wait();
  }
  t_.ip = x_.pc + x_.length;
  return std::nullopt;
}

}  // namespace

RunResult Executor::run(ThreadState& thread, std::uint64_t budget, std::vector<const TimingOp*>* trace) {
  RunResult result;
  if (thread.ended) {
    result.reason = StopReason::kEndOfThread;
    return result;
  }
  const std::uint32_t mode = thread.cr0[0];
  HostFloatMode fp(static_cast<Rounding>((mode & cr0::kRoundingModeMask) >> cr0::kRoundingModeShift),
                   (mode & (cr0::kFp32DenormPreserve | cr0::kFp64DenormPreserve)) == 0);
  // The fast forms of floating-point arithmetic assume round-to-nearest-even and, for float and double, the host
  // handling denormals the way cr0 asks (fast_mode); re-evaluated after every instruction the generic interpreter runs
  // (a cr0 write).
  const auto fast_modes = [&] {
    if (fp.rounding() != Rounding::kNearestEven) return fast_mode::kAny;
    const std::uint32_t mode = thread.cr0[0];
    std::uint8_t modes = fast_mode::kAny | fast_mode::kHalf;
    if (((mode & cr0::kFp32DenormPreserve) != 0) != fp.flushes()) modes |= fast_mode::kSingle;
    if (((mode & cr0::kFp64DenormPreserve) != 0) != fp.flushes()) modes |= fast_mode::kDouble;
    return modes;
  };
  std::uint8_t fast = fast_modes();
  std::uint64_t executed = 0;  // a local: the compiler keeps it in a register
  std::uint64_t fast_executed = 0;
  while (executed < budget) {
    const ExecInstruction& x = program_.at(thread.ip);
    ++executed;
    if (trace != nullptr) trace->push_back(&x.timing);
    const FastOp& f = x.fast;
    if (f.fn != nullptr && (f.no_mask || (thread.active & f.channels) == f.channels) && (fast & f.mode) != 0) {
      f.fn(thread, f);
      ++fast_executed;
      thread.ip = x.pc + x.length;
      continue;
    }
    try {
      Step step(thread, x, program_, shared_, fp);
      if (const auto stop = step.execute()) {
        // A wait that must wait runs again when the thread resumes: it issues once, then.
        if (*stop == StopReason::kSuspended && thread.ip == x.pc && trace != nullptr) trace->pop_back();
        result.reason = *stop;
        result.instructions = executed;
        result.fast_instructions = fast_executed;
        return result;
      }
      fast = fast_modes();
    } catch (const Fault& error) {
      result.reason = StopReason::kFault;
      result.instructions = executed;
      result.fast_instructions = fast_executed;
      result.fault_pc = x.pc;
      std::string text;
      if (x.ok()) {
        const Disassembly dis = disassemble(x.inst, x.pc);
        if (dis.ok()) text = " (" + dis.text + ")";
      }
      result.fault = "EU fault at " + core::format_hex(program_.kernel_address() + x.pc) + " (kernel offset " +
                     core::format_hex(x.pc) + "): " + error.reason + text;
      return result;
    }
  }
  result.reason = StopReason::kBudget;
  result.instructions = executed;
  result.fast_instructions = fast_executed;
  return result;
}

}  // namespace gpuvp::gen::eu
