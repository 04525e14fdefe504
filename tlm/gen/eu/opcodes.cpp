#include "tlm/gen/eu/opcodes.h"

#include <array>

namespace gpuvp::gen::eu {
namespace {

using C = OpClass;
using A = OpcodeInfo;

// Mesa brw_eu.cpp opcode_descs (gen < 12) for the numbers and source counts; IGA's -Xlist-ops for the names; what
// each accepts (predication, condition modifier, saturation, source modifiers) as IGA's Gen9 model (IGA
// Models/bxml/ModelGen9.hpp) lists it: IGA prints only those.
constexpr std::array kOpcodes{
    OpcodeInfo{1, "mov", 1, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{2, "sel", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{3, "movi", 1, C::kAlu, false, A::kPredication | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{4, "not", 1, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSourceModifiers | A::kLogic},
    OpcodeInfo{5, "and", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSourceModifiers | A::kLogic},
    OpcodeInfo{6, "or", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSourceModifiers | A::kLogic},
    OpcodeInfo{7, "xor", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSourceModifiers | A::kLogic},
    OpcodeInfo{8, "shr", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{9, "shl", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{10, "smov", 2, C::kAlu, false, A::kPredication},
    OpcodeInfo{12, "asr", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{16, "cmp", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSourceModifiers},
    OpcodeInfo{17, "cmpn", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSourceModifiers},
    OpcodeInfo{18, "csel", 3, C::kTernary, false, A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{23, "bfrev", 1, C::kAlu, false, A::kPredication},
    OpcodeInfo{24, "bfe", 3, C::kTernary, false, A::kPredication},
    OpcodeInfo{25, "bfi1", 2, C::kAlu, false, A::kPredication},
    OpcodeInfo{26, "bfi2", 3, C::kTernary, false, A::kPredication},
    OpcodeInfo{32, "jmpi", 1, C::kFlow, false, A::kPredication},
    OpcodeInfo{33, "brd", 0, C::kFlow, false, A::kPredication},
    OpcodeInfo{34, "if", 0, C::kBranch, false, A::kPredication},
    OpcodeInfo{35, "brc", 0, C::kFlow, false, A::kPredication},
    OpcodeInfo{36, "else", 0, C::kBranch, false, 0},
    OpcodeInfo{37, "endif", 0, C::kBranch, false, 0},
    OpcodeInfo{39, "while", 0, C::kBranch, false, A::kPredication},
    OpcodeInfo{40, "break", 0, C::kBranch, false, A::kPredication},
    OpcodeInfo{41, "cont", 0, C::kBranch, false, A::kPredication},
    OpcodeInfo{42, "halt", 0, C::kBranch, false, A::kPredication},
    OpcodeInfo{43, "calla", 0, C::kFlow, false, A::kPredication},
    OpcodeInfo{44, "call", 0, C::kFlow, false, A::kPredication},
    OpcodeInfo{45, "ret", 1, C::kFlow, false, A::kPredication},
    OpcodeInfo{46, "goto", 0, C::kBranch, false, A::kPredication},
    OpcodeInfo{47, "join", 0, C::kBranch, false, A::kPredication},
    OpcodeInfo{48, "wait", 1, C::kWait, false, 0},
    OpcodeInfo{49, "send", 1, C::kSend, false, A::kPredication},
    OpcodeInfo{50, "sendc", 1, C::kSend, false, A::kPredication},
    OpcodeInfo{51, "sends", 2, C::kSend, true, A::kPredication},
    OpcodeInfo{52, "sendsc", 2, C::kSend, true, A::kPredication},
    OpcodeInfo{56, "math", 1, C::kMath, false, A::kPredication | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{64, "add", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{65, "mul", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{66, "avg", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{67, "frc", 1, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSourceModifiers},
    OpcodeInfo{68, "rndu", 1, C::kAlu, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{69, "rndd", 1, C::kAlu, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{70, "rnde", 1, C::kAlu, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{71, "rndz", 1, C::kAlu, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{72, "mac", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{73, "mach", 2, C::kAlu, false, A::kPredication | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{74, "lzd", 1, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{75, "fbh", 1, C::kAlu, false, A::kPredication},
    OpcodeInfo{76, "fbl", 1, C::kAlu, false, A::kPredication},
    OpcodeInfo{77, "cbit", 1, C::kAlu, false, A::kPredication},
    OpcodeInfo{78, "addc", 2, C::kAlu, false, A::kPredication | A::kFlagModifier},
    OpcodeInfo{79, "subb", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation},
    OpcodeInfo{80, "sad2", 2, C::kAlu, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{81, "sada2", 2, C::kAlu, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{84, "dp4", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{85, "dph", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{86, "dp3", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{87, "dp2", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{89, "line", 2, C::kAlu, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{90, "pln", 2, C::kAlu, false, A::kPredication | A::kFlagModifier | A::kSaturation},
    OpcodeInfo{91, "mad", 3, C::kTernary, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{92, "lrp", 3, C::kTernary, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{93, "madm", 3, C::kTernary, false,
               A::kPredication | A::kFlagModifier | A::kSaturation | A::kSourceModifiers},
    OpcodeInfo{126, "nop", 0, C::kNop, false, 0},
};

// IGA's math function suffixes (1 inv ... 13 irem; 8 is reserved; 14/15 are the IEEE macros invm and rsqtm that
// work on the math macro extended accumulators, Mesa BRW_MATH_FUNCTION_INVM/RSQRTM).
constexpr std::array<std::string_view, 16> kMathNames{"", "inv",  "log", "exp",  "sqt",  "rsqt", "sin",  "cos",
                                                      "", "fdiv", "pow", "idiv", "iqot", "irem", "invm", "rsqtm"};

}  // namespace

const OpcodeInfo* find_opcode(unsigned number, Generation gen) {
  for (const auto& op : kOpcodes) {
    if (op.number == number) return op.gen9_only && gen != Generation::kGen9 ? nullptr : &op;
  }
  return nullptr;
}

std::string_view math_function_name(unsigned fn) { return fn < kMathNames.size() ? kMathNames[fn] : ""; }

unsigned math_sources(unsigned fn) { return fn >= 9 && fn != 15 ? 2 : 1; }

bool is_math_macro(unsigned fn) { return fn == 14 || fn == 15; }

}  // namespace gpuvp::gen::eu
