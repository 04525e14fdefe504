// MI_ATOMIC read-modify-write semantics; the facts and their sources are listed in mi_atomic.h.
#include "tlm/gen/mi_atomic.h"

#include <utility>

#include "tlm/core/format_hex.h"

namespace gpuvp::gen {
namespace {

const char* base_name(std::uint32_t op4b) {
  switch (op4b) {
    case atomic_op::kAnd:
      return "AND";
    case atomic_op::kOr:
      return "OR";
    case atomic_op::kXor:
      return "XOR";
    case atomic_op::kMove:
      return "MOVE";
    case atomic_op::kInc:
      return "INC";
    case atomic_op::kDec:
      return "DEC";
    case atomic_op::kAdd:
      return "ADD";
    case atomic_op::kSub:
      return "SUB";
    case atomic_op::kRsub:
      return "RSUB";
    case atomic_op::kImax:
      return "IMAX";
    case atomic_op::kImin:
      return "IMIN";
    case atomic_op::kUmax:
      return "UMAX";
    case atomic_op::kUmin:
      return "UMIN";
    case atomic_op::kCmpWr:
      return "CMP_WR";
    case atomic_op::kPredec:
      return "PREDEC";
    default:
      return nullptr;
  }
}

// Valid 4B/8B opcodes: 0x01..0x0F and 0x21..0x2F.
bool is_4b_or_8b(std::uint32_t opcode) {
  const std::uint32_t low = opcode & 0x1F;
  return (opcode & ~0x3Fu) == 0 && (opcode & 0x10) == 0 && low >= 1 && low <= 0x0F;
}

AtomicResult fail(std::string error) { return {false, 0, std::move(error)}; }

}  // namespace

std::string mi_atomic_opcode_name(std::uint32_t opcode) {
  if (opcode == atomic_op::kCmpWr16B) return "CMP_WR16B";
  if (!is_4b_or_8b(opcode)) return {};
  std::string name = base_name(opcode & 0x0F);
  if (opcode & atomic_op::k8B) name += "8B";
  return name;
}

AtomicResult apply_mi_atomic(std::uint32_t opcode, std::uint32_t size, std::uint64_t old_value, std::uint64_t operand1,
                             std::uint64_t operand2) {
  if (size == atomic_size::kOctword) return fail("MI_ATOMIC OCTWORD (16-byte) data size not modelled");
  if (size != atomic_size::kDword && size != atomic_size::kQword)
    return fail("MI_ATOMIC reserved data size " + std::to_string(size));
  if (opcode == atomic_op::kCmpWr16B) return fail("MI_ATOMIC opcode 0x4e (CMP_WR16B) needs OCTWORD, not modelled");
  if (!is_4b_or_8b(opcode)) return fail("unknown MI_ATOMIC opcode " + core::format_hex(opcode, 2));

  const bool qword_op = (opcode & atomic_op::k8B) != 0;
  if (qword_op != (size == atomic_size::kQword)) {
    return fail("MI_ATOMIC opcode " + core::format_hex(opcode, 2) + " (" + mi_atomic_opcode_name(opcode) +
                ") does not match data size " + (size == atomic_size::kQword ? "QWORD" : "DWORD"));
  }

  const std::uint64_t mask = qword_op ? ~0ull : 0xFFFFFFFFull;
  const std::uint64_t old = old_value & mask;
  const std::uint64_t a = operand1 & mask;
  const std::uint64_t b = operand2 & mask;
  // Signed views at the data size.
  const auto as_signed = [qword_op](std::uint64_t v) -> std::int64_t {
    return qword_op ? static_cast<std::int64_t>(v) : static_cast<std::int64_t>(static_cast<std::int32_t>(v));
  };

  std::uint64_t result = old;
  switch (opcode & 0x0F) {
    case atomic_op::kAnd:
      result = old & a;
      break;
    case atomic_op::kOr:
      result = old | a;
      break;
    case atomic_op::kXor:
      result = old ^ a;
      break;
    case atomic_op::kMove:
      result = a;
      break;
    case atomic_op::kInc:
      result = old + 1;
      break;
    case atomic_op::kDec:
      result = old - 1;
      break;
    case atomic_op::kAdd:
      result = old + a;
      break;
    case atomic_op::kSub:
      result = old - a;
      break;
    case atomic_op::kRsub:
      result = a - old;
      break;
    case atomic_op::kImax:
      result = as_signed(old) >= as_signed(a) ? old : a;
      break;
    case atomic_op::kImin:
      result = as_signed(old) <= as_signed(a) ? old : a;
      break;
    case atomic_op::kUmax:
      result = old >= a ? old : a;
      break;
    case atomic_op::kUmin:
      result = old <= a ? old : a;
      break;
    case atomic_op::kCmpWr:
      result = old == a ? b : old;
      break;
    case atomic_op::kPredec:
      result = old - 1;
      break;
    default:
      return fail("unknown MI_ATOMIC opcode " + core::format_hex(opcode, 2));  // unreachable: is_4b_or_8b() checked
  }
  return {true, result & mask, {}};
}

std::uint64_t mi_atomic_return_data(std::uint32_t opcode, std::uint64_t old_value, std::uint64_t new_value) {
  return (opcode & 0x0F) == atomic_op::kPredec && is_4b_or_8b(opcode) ? new_value : old_value;
}

}  // namespace gpuvp::gen
