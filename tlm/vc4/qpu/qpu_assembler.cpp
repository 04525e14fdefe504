// The VideoCore IV QPU assembler: the disassembler's syntax (qpu_disassembler.h) back to 64-bit instructions, with the
// conveniences listed in qpu_assembler.h. Field layout and codes: hw/vc4/qpu_isa.h and
// ../shared/docs/reference-vc4-qpu.md sections 1.2-1.10.
#include "tlm/vc4/qpu/qpu_assembler.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hw/vc4/qpu_isa.h"

namespace gpuvp::vc4::qpu {
namespace {

// A mistake on the current line; assemble() adds the line number and the line.
class SyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& message) { throw SyntaxError(message); }

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// ---- names ----

struct Name {
  const char* text;
  std::uint32_t code;
};

template <std::size_t N>
std::optional<std::uint32_t> lookup(const std::array<Name, N>& names, const std::string& text) {
  for (const Name& name : names) {
    if (text == name.text) return name.code;
  }
  return std::nullopt;
}

constexpr std::array<Name, 24> kAddOps = {
    {{"nop", kAddNop},      {"fadd", kFadd},       {"fsub", kFsub},        {"fmin", kFmin},       {"fmax", kFmax},
     {"fminabs", kFminabs}, {"fmaxabs", kFmaxabs}, {"ftoi", kFtoi},        {"itof", kItof},       {"add", kAdd},
     {"sub", kSub},         {"shr", kShr},         {"asr", kAsr},          {"ror", kRor},         {"shl", kShl},
     {"min", kMin},         {"max", kMax},         {"and", kAnd},          {"or", kOr},           {"xor", kXor},
     {"not", kNot},         {"clz", kClz},         {"v8adds", kAddV8adds}, {"v8subs", kAddV8subs}}};

constexpr std::array<Name, 8> kMulOps = {{{"nop", kMulNop},
                                          {"fmul", kFmul},
                                          {"mul24", kMul24},
                                          {"v8muld", kV8muld},
                                          {"v8min", kV8min},
                                          {"v8max", kV8max},
                                          {"v8adds", kMulV8adds},
                                          {"v8subs", kMulV8subs}}};

// "always" is printed as no suffix; it may be written.
constexpr std::array<Name, 8> kConds = {{{"never", kNever},
                                         {"always", kAlways},
                                         {"zs", kZs},
                                         {"zc", kZc},
                                         {"ns", kNs},
                                         {"nc", kNc},
                                         {"cs", kCs},
                                         {"cc", kCc}}};

constexpr std::array<Name, 13> kBranchConds = {{{"all_zs", kAllZs},
                                                {"all_zc", kAllZc},
                                                {"any_zs", kAnyZs},
                                                {"any_zc", kAnyZc},
                                                {"all_ns", kAllNs},
                                                {"all_nc", kAllNc},
                                                {"any_ns", kAnyNs},
                                                {"any_nc", kAnyNc},
                                                {"all_cs", kAllCs},
                                                {"all_cc", kAllCc},
                                                {"any_cs", kAnyCs},
                                                {"any_cc", kAnyCc},
                                                {"always", kBranchAlways}}};

// The signal prefixes of the ALU form (sig 1, none, has no prefix; 14 and 15 are other forms).
constexpr std::array<Name, 13> kSignals = {{{"sig_brk", kSigBreakpoint},
                                            {"sig_switch", kSigThreadSwitch},
                                            {"sig_end", kSigProgramEnd},
                                            {"sig_wait_score", kSigWaitForScoreboard},
                                            {"sig_unlock_score", kSigScoreboardUnlock},
                                            {"sig_thread_switch", kSigLastThreadSwitch},
                                            {"sig_coverage_load", kSigCoverageLoad},
                                            {"sig_color_load", kSigColorLoad},
                                            {"sig_color_load_end", kSigColorLoadEnd},
                                            {"load_tmu0", kSigLoadTmu0},
                                            {"load_tmu1", kSigLoadTmu1},
                                            {"sig_alpha_mask_load", kSigAlphaMaskLoad},
                                            {"sig_small_imm", kSigSmallImmediate}}};

// Pack suffixes without ".sat" (which adds 8 in the regfile-A pack numbering).
constexpr std::array<Name, 7> kPacks = {{{"16a", kPack16a},
                                         {"16b", kPack16b},
                                         {"8888", kPack8888},
                                         {"8a", kPack8a},
                                         {"8b", kPack8a + 1},
                                         {"8c", kPack8a + 2},
                                         {"8d", kPack8a + 3}}};
constexpr std::uint32_t kPackSaturate = kPack32Sat;

constexpr std::array<Name, 7> kUnpacks = {{{"16a", kUnpack16a},
                                           {"16b", kUnpack16b},
                                           {"8d_rep", kUnpack8dRep},
                                           {"8a", kUnpack8a},
                                           {"8b", kUnpack8a + 1},
                                           {"8c", kUnpack8a + 2},
                                           {"8d", kUnpack8a + 3}}};

// The register file a read or write goes to; kEither for names both files have.
enum class File { kEither, kA, kB };

struct RegisterName {
  const char* text;
  std::uint32_t address;
  File file;
};

constexpr std::array<RegisterName, 15> kSpecialReads = {{{"uni", kReadUniform, File::kEither},
                                                         {"vary", kReadVarying, File::kEither},
                                                         {"elem", kReadElementOrQpu, File::kA},
                                                         {"qpu", kReadElementOrQpu, File::kB},
                                                         {"nop", kReadNop, File::kEither},
                                                         {"x_pix", kReadPixelCoord, File::kA},
                                                         {"y_pix", kReadPixelCoord, File::kB},
                                                         {"ms_flags", kReadMsOrRev, File::kA},
                                                         {"rev_flag", kReadMsOrRev, File::kB},
                                                         {"vpm_read", kReadVpm, File::kEither},
                                                         {"vpm_ld_busy", kReadVpmBusy, File::kA},
                                                         {"vpm_st_busy", kReadVpmBusy, File::kB},
                                                         {"vpm_ld_wait", kReadDmaWait, File::kA},
                                                         {"vpm_st_wait", kReadDmaWait, File::kB},
                                                         {"mutex_acq", kReadMutexAcquire, File::kEither}}};

constexpr std::array<RegisterName, 37> kSpecialWrites = {{{"r0", kWriteAcc0, File::kEither},
                                                          {"r1", kWriteAcc0 + 1, File::kEither},
                                                          {"r2", kWriteAcc0 + 2, File::kEither},
                                                          {"r3", kWriteAcc0 + 3, File::kEither},
                                                          {"tmu_noswap", kWriteTmuNoswap, File::kEither},
                                                          {"r5quad", kWriteR5, File::kA},
                                                          {"r5rep", kWriteR5, File::kB},
                                                          {"host_int", kWriteHostInt, File::kEither},
                                                          {"nop", kWriteNop, File::kEither},
                                                          {"uniforms_addr", kWriteUniformsAddress, File::kEither},
                                                          {"quad_x", kWriteQuadXY, File::kA},
                                                          {"quad_y", kWriteQuadXY, File::kB},
                                                          {"ms_flags", kWriteMsOrRev, File::kA},
                                                          {"rev_flag", kWriteMsOrRev, File::kB},
                                                          {"tlb_stencil_setup", kWriteTlbStencil, File::kEither},
                                                          {"tlb_z", kWriteTlbZ, File::kEither},
                                                          {"tlb_color_ms", kWriteTlbColorMs, File::kEither},
                                                          {"tlb_color_all", kWriteTlbColorAll, File::kEither},
                                                          {"tlb_alpha_mask", kWriteTlbAlphaMask, File::kEither},
                                                          {"vpm", kWriteVpm, File::kEither},
                                                          {"vr_setup", kWriteVpmSetup, File::kA},
                                                          {"vw_setup", kWriteVpmSetup, File::kB},
                                                          {"vr_addr", kWriteVpmAddr, File::kA},
                                                          {"vw_addr", kWriteVpmAddr, File::kB},
                                                          {"mutex_release", kWriteMutexRelease, File::kEither},
                                                          {"sfu_recip", kWriteSfuRecip, File::kEither},
                                                          {"sfu_recipsqrt", kWriteSfuRecipSqrt, File::kEither},
                                                          {"sfu_exp", kWriteSfuExp, File::kEither},
                                                          {"sfu_log", kWriteSfuLog, File::kEither},
                                                          {"tmu0_s", kWriteTmu0S, File::kEither},
                                                          {"tmu0_t", kWriteTmu0S + 1, File::kEither},
                                                          {"tmu0_r", kWriteTmu0S + 2, File::kEither},
                                                          {"tmu0_b", kWriteTmu0S + 3, File::kEither},
                                                          {"tmu1_s", kWriteTmu1S, File::kEither},
                                                          {"tmu1_t", kWriteTmu1S + 1, File::kEither},
                                                          {"tmu1_r", kWriteTmu1S + 2, File::kEither},
                                                          {"tmu1_b", kWriteTmu1S + 3, File::kEither}}};

template <std::size_t N>
const RegisterName* find_register(const std::array<RegisterName, N>& names, const std::string& text) {
  for (const RegisterName& name : names) {
    if (text == name.text) return &name;
  }
  return nullptr;
}

// "raN" / "rbN" with N 0-31 (no leading zeros): the file and N.
std::optional<std::pair<File, std::uint32_t>> register_file_name(const std::string& text) {
  if (text.size() < 3 || text.size() > 4 || text[0] != 'r' || (text[1] != 'a' && text[1] != 'b')) return std::nullopt;
  std::uint32_t number = 0;
  for (std::size_t i = 2; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) return std::nullopt;
    number = number * 10 + static_cast<std::uint32_t>(text[i] - '0');
  }
  if ((text.size() == 4 && text[2] == '0') || number > 31) return std::nullopt;
  return std::make_pair(text[1] == 'a' ? File::kA : File::kB, number);
}

// "r0".."r<last>": the accumulator number.
std::optional<std::uint32_t> accumulator_name(const std::string& text, std::uint32_t last) {
  if (text.size() != 2 || text[0] != 'r' || text[1] < '0' || static_cast<std::uint32_t>(text[1] - '0') > last) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(text[1] - '0');
}

// ---- numbers ----

// A decimal or 0x-hex integer with an optional '-', or nullopt. Magnitudes beyond every field saturate, so that range
// checks reject them without overflowing.
std::optional<std::int64_t> parse_integer(const std::string& text) {
  constexpr std::int64_t kSaturated = std::int64_t{1} << 40;
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  std::int64_t base = 10;
  if (text.size() > i + 2 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= text.size()) return std::nullopt;
  std::int64_t value = 0;
  for (; i < text.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    std::int64_t digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (digit < 0 || digit >= base) return std::nullopt;
    value = std::min(value * base + digit, kSaturated);
  }
  return negative ? -value : value;
}

// A decimal float literal with a '.' or an exponent ("1.5", "-0.25", "1e-3"), or nullopt.
std::optional<double> parse_float(const std::string& text) {
  bool has_digit = false;
  bool has_point_or_exponent = false;
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      has_digit = true;
    } else if (c == '.' || c == 'e' || c == 'E') {
      has_point_or_exponent = true;
    } else if (c != '-' && c != '+') {
      return std::nullopt;
    }
  }
  if (!has_digit || !has_point_or_exponent) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

// Any text strtod reads whole, including "nan" and "-inf": what the disassembler prints in parentheses.
bool is_float_text(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  static_cast<void>(std::strtod(text.c_str(), &end));
  return end == text.c_str() + text.size();
}

bool looks_numeric(const std::string& text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) != 0 || text[0] == '-' || text[0] == '.');
}

std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A 32-bit immediate: an integer (-2^31 .. 2^32 - 1, two's complement) or a float literal's IEEE single bits.
std::uint32_t immediate_value(const std::string& text) {
  if (const auto integer = parse_integer(text)) {
    if (*integer < -(std::int64_t{1} << 31) || *integer > 0xffffffffLL) {
      fail("immediate " + text + " is out of range (-2147483648 .. 0xffffffff)");
    }
    return static_cast<std::uint32_t>(*integer);
  }
  if (const auto real = parse_float(text)) {
    if (!(std::fabs(*real) <= FLT_MAX)) fail("immediate " + text + " is out of range of a 32-bit float");
    return float_bits(static_cast<float>(*real));
  }
  fail(quoted(text) + " is not an integer or a float");
}

// The small immediate (sig 13's raddr_b) the disassembler prints as `text`: 0..15, -16..-1 (16..31), 1.0..128.0
// (32..39) and 1/256..1/2 (40..47), the floats matched to the six decimals "%f" prints.
std::optional<std::uint32_t> small_immediate_code(const std::string& text) {
  if (const auto integer = parse_integer(text)) {
    if (*integer >= 0 && *integer <= 15) return static_cast<std::uint32_t>(*integer);
    if (*integer >= -16 && *integer <= -1) return static_cast<std::uint32_t>(*integer + 32);
    return std::nullopt;
  }
  if (const auto real = parse_float(text)) {
    for (std::uint32_t code = 32; code <= 47; ++code) {
      const double value =
          code <= 39 ? std::ldexp(1.0, static_cast<int>(code) - 32) : std::ldexp(1.0, static_cast<int>(code) - 48);
      if (std::fabs(*real - value) <= 1e-6) return code;
    }
  }
  return std::nullopt;
}

// ---- tokens ----

struct Token {
  bool is_word;  // else one punctuation character
  std::string text;
};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.'; }

// A decimal number so far that ends in its exponent's 'e', so that a following sign belongs to it ("1.5e-3").
bool ends_in_exponent(const std::string& word) {
  const std::size_t start = !word.empty() && word[0] == '-' ? 1 : 0;
  if (word.size() < start + 2 || (word.back() != 'e' && word.back() != 'E')) return false;
  if (word[start + 1] == 'x' || word[start + 1] == 'X') return false;
  return std::isdigit(static_cast<unsigned char>(word[start])) != 0 || word[start] == '.';
}

// Words are runs of letters, digits, '_' and '.', with a leading '-' when one follows directly ("-16", "-0.25",
// "-nan"); every other character is a token of its own.
std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    const bool signed_word = c == '-' && i + 1 < text.size() && is_word_char(text[i + 1]);
    if (!is_word_char(c) && !signed_word) {
      tokens.push_back({false, std::string(1, c)});
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < text.size()) {
      if (is_word_char(text[end])) {
        ++end;
      } else if ((text[end] == '+' || text[end] == '-') && end + 1 < text.size() &&
                 std::isdigit(static_cast<unsigned char>(text[end + 1])) != 0 &&
                 ends_in_exponent(text.substr(i, end - i))) {
        end += 2;
      } else {
        break;
      }
    }
    tokens.push_back({true, text.substr(i, end - i)});
    i = end;
  }
  return tokens;
}

// A word's name and its '.'-separated suffixes: "fadd.sf.zs" is "fadd" and {"sf", "zs"}.
struct DottedWord {
  std::string name;
  std::vector<std::string> suffixes;
};

DottedWord split_suffixes(const std::string& word) {
  DottedWord result;
  std::size_t start = 0;
  bool first = true;
  while (true) {
    const std::size_t dot = word.find('.', start);
    const std::string part = word.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) fail("empty name or suffix in " + quoted(word));
    if (first) {
      result.name = part;
      first = false;
    } else {
      result.suffixes.push_back(part);
    }
    if (dot == std::string::npos) return result;
    start = dot + 1;
  }
}

class Cursor {
 public:
  explicit Cursor(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  bool at_end() const { return position_ >= tokens_.size(); }
  bool next_is_word() const { return !at_end() && tokens_[position_].is_word; }
  bool next_is(char punct) const {
    return !at_end() && !tokens_[position_].is_word && tokens_[position_].text[0] == punct;
  }
  // The text `ahead` tokens on, or "" past the end.
  std::string peek(std::size_t ahead = 0) const {
    return position_ + ahead < tokens_.size() ? tokens_[position_ + ahead].text : std::string();
  }
  bool ends_after(std::size_t ahead) const { return position_ + ahead >= tokens_.size(); }
  bool has_punct_ahead(char punct) const {
    for (std::size_t i = position_; i < tokens_.size(); ++i) {
      if (!tokens_[i].is_word && tokens_[i].text[0] == punct) return true;
    }
    return false;
  }

  bool accept(char punct) {
    if (!next_is(punct)) return false;
    ++position_;
    return true;
  }
  void expect(char punct, const std::string& where) {
    if (!accept(punct)) fail("expected '" + std::string(1, punct) + "' " + where + ", found " + describe_next());
  }
  std::string word(const std::string& what) {
    if (!next_is_word()) fail("expected " + what + ", found " + describe_next());
    return tokens_[position_++].text;
  }
  void expect_end() {
    if (at_end()) return;
    std::string rest;
    for (std::size_t i = position_; i < tokens_.size(); ++i) rest += (i == position_ ? "" : " ") + tokens_[i].text;
    fail("unexpected " + quoted(rest) + " after the instruction");
  }
  std::string describe_next() const { return at_end() ? "the end of the line" : quoted(tokens_[position_].text); }

 private:
  std::vector<Token> tokens_;
  std::size_t position_ = 0;
};

// ---- operands ----

struct Read {
  enum class Kind { kAccumulator, kRegister, kSmallImmediate };
  Kind kind = Kind::kAccumulator;
  File file = File::kEither;  // kRegister: the file(s) it can come from; kSmallImmediate: B
  std::uint32_t value = 0;    // accumulator number, read address or small immediate code
  std::uint32_t unpack = kUnpackNone;
  std::optional<std::uint32_t> rotation;  // the small immediate code (48-63) of a written rotation
  std::string text;
};

// The unpack suffixes written on a read: none or one, on a regfile-A read or r4.
void apply_unpack(Read& read, const std::vector<std::string>& suffixes, const std::string& written) {
  if (suffixes.empty()) return;
  if (suffixes.size() > 1 || read.unpack != kUnpackNone) fail("more than one unpack on " + quoted(written));
  const auto unpack_code = lookup(kUnpacks, suffixes[0]);
  if (!unpack_code) fail("unknown unpack '." + suffixes[0] + "' on " + quoted(written));
  const bool is_r4 = read.kind == Read::Kind::kAccumulator && read.value == kR4;
  const bool may_be_file_a = read.kind == Read::Kind::kRegister && read.file != File::kB;
  if (!is_r4 && !may_be_file_a) fail("only regfile-A reads and r4 are unpacked: " + quoted(written));
  read.unpack = *unpack_code;
}

Read parse_read(Cursor& cursor, bool is_mul) {
  const std::string word = cursor.word("a source");
  Read read;
  read.text = word;
  if (looks_numeric(word)) {
    const auto code = small_immediate_code(word);
    if (!parse_integer(word) && !parse_float(word)) fail(quoted(word) + " is not a number");
    if (!code) {
      fail("small immediate " + word + " is out of range (0..15, -16..-1, 1.0, 2.0 .. 128.0, 1/256 .. 1/2)");
    }
    read.kind = Read::Kind::kSmallImmediate;
    read.file = File::kB;
    read.value = *code;
    return read;
  }
  const DottedWord dotted = split_suffixes(word);
  if (const auto accumulator = accumulator_name(dotted.name, 5)) {
    read.value = *accumulator;
  } else if (const auto file_register = register_file_name(dotted.name)) {
    read.kind = Read::Kind::kRegister;
    read.file = file_register->first;
    read.value = file_register->second;
  } else if (const RegisterName* special = find_register(kSpecialReads, dotted.name)) {
    read.kind = Read::Kind::kRegister;
    read.file = special->file;
    read.value = special->address;
  } else {
    fail("unknown register " + quoted(dotted.name));
  }
  apply_unpack(read, dotted.suffixes, word);
  if (cursor.accept('+')) {
    if (!is_mul) fail("only the mul op's inputs rotate: " + quoted(word + "+" + cursor.peek()));
    if (read.kind != Read::Kind::kAccumulator) fail("a rotation is written on accumulator inputs (r0-r5) only");
    // The disassembler prints an unpacked rotated r4 as "r4+3.8a": the unpack follows the amount.
    const std::string written = cursor.word("a rotation (1..15 or r5)");
    const DottedWord amount = split_suffixes(written);
    if (amount.name == "r5") {
      read.rotation = kSmallImmRotateByR5;
    } else {
      const auto integer = parse_integer(amount.name);
      if (!integer || *integer < 1 || *integer > 15) {
        fail("rotation " + amount.name + " is out of range (1..15 or r5)");
      }
      read.rotation = kSmallImmRotateByR5 + static_cast<std::uint32_t>(*integer);
    }
    read.text += "+" + written;
    apply_unpack(read, amount.suffixes, read.text);
  }
  return read;
}

struct Destination {
  std::uint32_t address = kWriteNop;
  File file = File::kEither;
  bool is_regfile_a_register = false;  // ra0-ra31
  std::optional<std::uint32_t> pack;   // in the regfile-A pack numbering (".sat" adds 8)
  std::optional<std::uint32_t> cond;   // load-immediate destinations only
  std::string text = "nop";
};

Destination parse_destination(Cursor& cursor, bool allow_pack, bool allow_cond) {
  const std::string word = cursor.word("a destination");
  const DottedWord dotted = split_suffixes(word);
  Destination dst;
  dst.text = word;
  if (const auto file_register = register_file_name(dotted.name)) {
    dst.file = file_register->first;
    dst.address = file_register->second;
    dst.is_regfile_a_register = dst.file == File::kA;
  } else if (const RegisterName* special = find_register(kSpecialWrites, dotted.name)) {
    dst.file = special->file;
    dst.address = special->address;
  } else {
    fail("unknown register " + quoted(dotted.name));
  }
  std::optional<std::uint32_t> pack_base;
  bool saturate = false;
  for (const std::string& suffix : dotted.suffixes) {
    if (const auto code = lookup(kPacks, suffix); code && !pack_base && allow_pack) {
      pack_base = code;
    } else if (suffix == "sat" && !saturate && allow_pack) {
      saturate = true;
    } else if (const auto cond = lookup(kConds, suffix); cond && !dst.cond && allow_cond) {
      dst.cond = cond;
    } else {
      fail("unexpected suffix '." + suffix + "' on " + quoted(word));
    }
  }
  if (pack_base || saturate) dst.pack = pack_base.value_or(kPackNone) + (saturate ? kPackSaturate : 0);
  return dst;
}

// ---- write-file, pack and pm choice ----

struct WriteFields {
  std::uint32_t ws = 0, pm = 0, pack = kPackNone;
};

bool is_mul_pack(std::uint32_t pack_code) { return pack_code == kPackNone || (pack_code >= 3 && pack_code <= 7); }

bool file_allows(File required, bool in_file_a) {
  return required == File::kEither || (required == File::kA) == in_file_a;
}

// ws, pm and pack for the two destinations as written. pm = 0 packs the regfile-A write (the disassembler prints the
// pack on the destination in file A); pm = 1 packs the mul output (printed on the mul destination). `pm_needed` is the
// pm an unpack suffix of the reads needs.
WriteFields resolve_writes(const Destination& add, const Destination& mul, std::optional<std::uint32_t> pm_needed) {
  if (add.file != File::kEither && add.file == mul.file) {
    fail("both destinations are in regfile " + std::string(add.file == File::kA ? "A" : "B") + " (" + add.text + ", " +
         mul.text + "): one op writes regfile A and the other regfile B");
  }
  if (add.pack && mul.pack) {
    fail("both destinations are packed (" + add.text + ", " + mul.text + "): an instruction has one pack field");
  }
  // A colour pack suffix on the mul destination reads as the mul pack, unless it is a regfile-A register.
  const bool mul_pack_first = mul.pack && is_mul_pack(*mul.pack) && !mul.is_regfile_a_register;
  for (const std::uint32_t pm_choice : {mul_pack_first ? 1U : 0U, mul_pack_first ? 0U : 1U}) {
    if (pm_needed && *pm_needed != pm_choice) continue;
    for (const std::uint32_t ws_choice : {0U, 1U}) {
      const bool add_in_a = ws_choice == 0;
      if (!file_allows(add.file, add_in_a) || !file_allows(mul.file, !add_in_a)) continue;
      if (pm_choice == 0) {
        const Destination& in_a = add_in_a ? add : mul;
        const Destination& in_b = add_in_a ? mul : add;
        if (in_b.pack) continue;
        return {ws_choice, 0, in_a.pack.value_or(kPackNone)};
      }
      if (add.pack || (mul.pack && !is_mul_pack(*mul.pack))) continue;
      return {ws_choice, 1, mul.pack.value_or(kPackNone)};
    }
  }
  const Destination& packed = add.pack ? add : mul;
  if (pm_needed) {
    fail("the pack of " + quoted(packed.text) +
         " and the unpack of the reads need different pm values (pm = 0 packs the regfile-A write and unpacks "
         "regfile-A reads, pm = 1 packs the mul output and unpacks r4)");
  }
  fail("cannot pack " + quoted(packed.text) +
       ": only the regfile-A write or the mul output (.8888, .8a-.8d) is packed");
}

// ---- ALU instructions ----

struct Op {
  std::string mnemonic;
  std::uint32_t code = 0;
  bool sets_flags = false;
  std::optional<std::uint32_t> cond;
  Destination dst;
  std::vector<Read> sources;  // none for a bare "nop"; one for mov and a unary op read by both inputs
  bool is_nop = false;
  bool written_as_idiom_pair = false;  // "or x, x" / "v8min x, x": the same mux would print "mov"
};

bool is_unary_add_op(std::uint32_t code) { return code == kFtoi || code == kItof || code == kNot || code == kClz; }

std::optional<std::uint32_t> op_code(const std::string& name, bool is_mul) {
  return is_mul ? lookup(kMulOps, name) : lookup(kAddOps, name);
}

Op parse_op(Cursor& cursor, bool is_mul) {
  Op op;
  op.mnemonic = cursor.word(is_mul ? "the mul op" : "the add op");
  const DottedWord dotted = split_suffixes(op.mnemonic);
  const bool is_mov = dotted.name == "mov";
  // The mov idioms: mul "v8min x, x", add "or x, x".
  const std::uint32_t idiom_code = is_mul ? static_cast<std::uint32_t>(kV8min) : static_cast<std::uint32_t>(kOr);
  if (is_mov) {
    op.code = idiom_code;
  } else if (const auto code = op_code(dotted.name, is_mul)) {
    op.code = *code;
  } else if (op_code(dotted.name, !is_mul)) {
    fail(quoted(dotted.name) +
         (is_mul ? " is an add op: the mul op comes after ';'" : " is a mul op: the add op comes first, before ';'"));
  } else {
    fail("unknown op " + quoted(dotted.name));
  }
  op.is_nop = !is_mov && op.code == 0;
  for (const std::string& suffix : dotted.suffixes) {
    if (suffix == "sf" && !op.sets_flags) {
      op.sets_flags = true;
    } else if (const auto cond = lookup(kConds, suffix); cond && !op.cond) {
      op.cond = cond;
    } else {
      fail("unexpected suffix '." + suffix + "' on " + quoted(op.mnemonic));
    }
  }
  // A bare "nop" stands for "nop nop, r0, r0".
  if (op.is_nop && (cursor.at_end() || cursor.next_is(';'))) return op;
  op.dst = parse_destination(cursor, true, false);
  cursor.expect(',', "after the destination " + quoted(op.dst.text));
  op.sources.push_back(parse_read(cursor, is_mul));
  if (cursor.accept(',')) op.sources.push_back(parse_read(cursor, is_mul));
  const std::size_t count = op.sources.size();
  if (is_mov && count != 1) fail("mov takes one source");
  if (!is_mov && count != 2 && !(!is_mul && is_unary_add_op(op.code))) {
    fail(quoted(dotted.name) + " takes two sources");
  }
  op.written_as_idiom_pair = !is_mov && count == 2 && op.code == idiom_code && op.sources[0].text == op.sources[1].text;
  return op;
}

// The reads' muxes, read addresses, small immediate and unpack, chosen so that the instruction prints as written.
struct ReadFields {
  std::array<std::uint32_t, 4> mux{};  // add_a, add_b, mul_a, mul_b
  std::uint32_t raddr_a = kReadNop, raddr_b = kReadNop;
  bool small_immediate = false;  // sig 13: raddr_b holds a small immediate or rotation
  std::uint32_t unpack = kUnpackNone;
  std::optional<std::uint32_t> pm_needed;
};

ReadFields resolve_reads(const Op& add, const Op& mul, bool explicit_small_immediate_signal) {
  // Each input slot reads one of `reads`; a single source feeds both inputs of its op.
  std::vector<Read> reads;
  std::array<std::size_t, 4> slot_read{};
  const Read bare_nop_input;  // r0, as "nop nop, r0, r0" prints
  const std::array<const Op*, 2> ops = {&add, &mul};
  for (std::size_t op_index = 0; op_index < 2; ++op_index) {
    const Op& op = *ops[op_index];
    const std::size_t first = reads.size();
    if (op.sources.empty()) {
      reads.push_back(bare_nop_input);
    } else {
      reads.insert(reads.end(), op.sources.begin(), op.sources.end());
    }
    slot_read[op_index * 2] = first;
    slot_read[op_index * 2 + 1] = reads.size() - 1;
  }

  ReadFields fields;
  // The rotation is printed on every accumulator input of the mul op.
  std::optional<std::uint32_t> rotation;
  bool any_unrotated_mul_accumulator = false;
  for (std::size_t slot = 2; slot < 4; ++slot) {
    const Read& read = reads[slot_read[slot]];
    if (read.kind != Read::Kind::kAccumulator) continue;
    if (!read.rotation) {
      any_unrotated_mul_accumulator = true;
    } else if (rotation && *rotation != *read.rotation) {
      fail("the mul inputs rotate by one amount: " + quoted(reads[slot_read[2]].text) + ", " +
           quoted(reads[slot_read[3]].text));
    } else {
      rotation = read.rotation;
    }
  }
  if (rotation && any_unrotated_mul_accumulator) {
    fail("the rotation applies to both mul inputs: write it on each accumulator input (" +
         quoted(reads[slot_read[2]].text) + ", " + quoted(reads[slot_read[3]].text) + ")");
  }
  std::optional<std::uint32_t> small_code;
  std::string small_text;
  for (const Read& read : reads) {
    if (read.kind != Read::Kind::kSmallImmediate) continue;
    if (small_code && *small_code != read.value) {
      fail("two different small immediates (" + small_text + ", " + read.text + "): an instruction has one");
    }
    small_code = read.value;
    small_text = read.text;
  }
  if (small_code && rotation) fail("a small immediate and a rotation both need the raddr_b field");
  fields.small_immediate = explicit_small_immediate_signal || small_code || rotation;
  if (small_code) fields.raddr_b = *small_code;
  if (rotation) fields.raddr_b = *rotation;

  // One unpack field, for regfile-A reads (pm = 0) or for r4 (pm = 1), applied to every such read.
  bool unpacks_r4 = false;
  bool unpacks_file_a = false;
  std::string unpacked_text;
  for (const Read& read : reads) {
    if (read.unpack == kUnpackNone) continue;
    if (fields.unpack != kUnpackNone && fields.unpack != read.unpack) {
      fail("two different unpacks (" + unpacked_text + ", " + read.text + "): an instruction has one unpack field");
    }
    fields.unpack = read.unpack;
    unpacked_text = read.text;
    (read.kind == Read::Kind::kAccumulator ? unpacks_r4 : unpacks_file_a) = true;
  }
  if (unpacks_r4 && unpacks_file_a) {
    fail("an unpack of r4 (pm = 1) and of a regfile-A read (pm = 0) cannot be in one instruction");
  }
  if (unpacks_r4) {
    for (const Read& read : reads) {
      if (read.kind == Read::Kind::kAccumulator && read.value == kR4 && read.unpack == kUnpackNone) {
        fail("every r4 read of the instruction is unpacked: write the unpack on each (" + unpacked_text + ", " +
             read.text + ")");
      }
    }
    fields.pm_needed = 1;
  }
  if (unpacks_file_a) fields.pm_needed = 0;

  // Reads that can only come from one file.
  std::optional<std::uint32_t> fixed_a;
  std::optional<std::uint32_t> fixed_b;
  std::string fixed_a_text;
  std::string fixed_b_text;
  for (const Read& read : reads) {
    if (read.kind != Read::Kind::kRegister) continue;
    const bool in_a = read.file == File::kA || (read.file == File::kEither && read.unpack != kUnpackNone);
    if (in_a) {
      if (unpacks_file_a && read.unpack == kUnpackNone) {
        fail("every regfile-A read of the instruction is unpacked: " + quoted(read.text) + " has no unpack, " +
             quoted(unpacked_text) + " has");
      }
      if (fixed_a && *fixed_a != read.value) {
        fail("the regfile-A reads need two different addresses (" + fixed_a_text + ", " + read.text +
             "): an instruction has one raddr_a");
      }
      fixed_a = read.value;
      fixed_a_text = read.text;
    } else if (read.file == File::kB) {
      if (fields.small_immediate) {
        fail("the small immediate is in the raddr_b field: it cannot be read together with regfile-B read " +
             quoted(read.text));
      }
      if (fixed_b && *fixed_b != read.value) {
        fail("the regfile-B reads need two different addresses (" + fixed_b_text + ", " + read.text +
             "): an instruction has one raddr_b");
      }
      fixed_b = read.value;
      fixed_b_text = read.text;
    }
  }

  // Names both files have: try every assignment (at most 2^4), preferring A, and different muxes for "or x, x" and
  // "v8min x, x" written with two operands.
  std::vector<std::size_t> either;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (reads[i].kind == Read::Kind::kRegister && reads[i].file == File::kEither && reads[i].unpack == kUnpackNone) {
      either.push_back(i);
    }
  }
  struct Assignment {
    std::vector<std::uint32_t> muxes;
    std::optional<std::uint32_t> address_a, address_b;
    int penalty = 0;
  };
  std::optional<Assignment> best;
  for (std::uint32_t mask = 0; mask < (1U << either.size()); ++mask) {
    Assignment candidate{std::vector<std::uint32_t>(reads.size()), fixed_a, fixed_b, 0};
    for (std::size_t i = 0; i < reads.size(); ++i) {
      const Read& read = reads[i];
      if (read.kind == Read::Kind::kAccumulator) {
        candidate.muxes[i] = read.value;
      } else {
        candidate.muxes[i] = read.file == File::kA || read.unpack != kUnpackNone ? kMuxA : kMuxB;
      }
    }
    bool possible = true;
    for (std::size_t bit = 0; bit < either.size() && possible; ++bit) {
      const Read& read = reads[either[bit]];
      // The first read's bit is the mask's highest, so that earlier reads keep regfile A longest.
      const bool to_b = ((mask >> (either.size() - 1 - bit)) & 1U) != 0;
      std::optional<std::uint32_t>& address = to_b ? candidate.address_b : candidate.address_a;
      // The small immediate takes raddr_b; regfile-A reads are all unpacked when one is.
      possible = !(to_b ? fields.small_immediate : unpacks_file_a) && (!address || *address == read.value);
      address = read.value;
      candidate.muxes[either[bit]] = to_b ? kMuxB : kMuxA;
    }
    if (!possible) continue;
    for (std::size_t op_index = 0; op_index < 2; ++op_index) {
      const auto& muxes = candidate.muxes;
      if (ops[op_index]->written_as_idiom_pair &&
          muxes[slot_read[op_index * 2]] == muxes[slot_read[op_index * 2 + 1]]) {
        ++candidate.penalty;
      }
    }
    if (!best || candidate.penalty < best->penalty) best = std::move(candidate);
  }
  if (!best) {
    std::string texts;
    for (const Read& read : reads) {
      if (read.kind != Read::Kind::kAccumulator) texts += (texts.empty() ? "" : ", ") + read.text;
    }
    fail("the reads (" + texts + ") need more than the one regfile-A and one regfile-B read address of an instruction");
  }
  // Unused read addresses read nop, which has no side effect.
  fields.raddr_a = best->address_a.value_or(kReadNop);
  if (!fields.small_immediate) fields.raddr_b = best->address_b.value_or(kReadNop);
  for (std::size_t slot = 0; slot < 4; ++slot) fields.mux[slot] = best->muxes[slot_read[slot]];
  return fields;
}

std::uint64_t assemble_alu(Cursor& cursor, std::optional<std::uint32_t> signal, const std::string& signal_name) {
  // Which op comes first: the add op when a ';' follows, else the one op written (its name's table decides).
  bool first_is_mul = false;
  if (!cursor.has_punct_ahead(';') && cursor.next_is_word()) {
    const std::string name = split_suffixes(cursor.peek()).name;
    first_is_mul = name != "mov" && !op_code(name, false) && op_code(name, true);
  }
  Op add;
  Op mul;
  add.is_nop = true;
  mul.is_nop = true;
  if (first_is_mul) {
    mul = parse_op(cursor, true);
  } else {
    add = parse_op(cursor, false);
    if (cursor.accept(';')) mul = parse_op(cursor, true);
  }
  cursor.expect_end();

  if (mul.sets_flags && add.code != kAddNop) {
    fail("the flags come from the add op unless it is nop: write .sf on " + quoted(add.mnemonic));
  }
  const bool small_signal = signal && *signal == kSigSmallImmediate;
  const ReadFields reads = resolve_reads(add, mul, small_signal);
  if (reads.small_immediate && signal && !small_signal) {
    fail("a small immediate or rotation needs the signal field (sig_small_imm): it cannot go with " + signal_name);
  }
  const WriteFields writes = resolve_writes(add.dst, mul.dst, reads.pm_needed);

  AluInstruction alu;
  alu.sig = reads.small_immediate ? kSigSmallImmediate : signal.value_or(kSigNone);
  alu.unpack = reads.unpack;
  alu.pm = writes.pm;
  alu.pack = writes.pack;
  alu.sf = add.sets_flags || mul.sets_flags ? 1 : 0;
  // A nop op's condition is never, except a mul nop the flags come from (they update only where it holds).
  const bool flags_from_mul = alu.sf != 0 && add.code == kAddNop;
  alu.cond_add = add.cond.value_or(add.is_nop ? kNever : kAlways);
  alu.cond_mul = mul.cond.value_or(mul.is_nop && !flags_from_mul ? kNever : kAlways);
  alu.ws = writes.ws;
  alu.waddr_add = add.dst.address;
  alu.waddr_mul = mul.dst.address;
  alu.op_add = add.code;
  alu.op_mul = mul.code;
  alu.raddr_a = reads.raddr_a;
  alu.raddr_b = reads.raddr_b;
  alu.add_a = reads.mux[0];
  alu.add_b = reads.mux[1];
  alu.mul_a = reads.mux[2];
  alu.mul_b = reads.mux[3];
  return alu.encode();
}

// ---- load immediates and semaphores ----

// Per-element values: element i is {imm[16 + i], imm[i]}, -2..1 when signed, 0..3 when not.
std::uint32_t per_element_word(Cursor& cursor, bool is_signed) {
  std::uint32_t word = 0;
  for (unsigned element = 0; element < kElements; ++element) {
    if (element != 0) cursor.expect(',', "between the 16 element values");
    const std::string text = cursor.word("an element value");
    const auto value = parse_integer(text);
    const std::int64_t low = is_signed ? -2 : 0;
    if (!value || *value < low || *value > low + 3) {
      fail("element value " + text + " is out of range (" + (is_signed ? "-2..1" : "0..3") + ")");
    }
    const auto bits = static_cast<std::uint32_t>(*value) & 3U;
    word |= ((bits & 1U) << element) | ((bits >> 1) << (16 + element));
  }
  cursor.expect(']', "after the 16 element values");
  return word;
}

LoadImmediateInstruction parse_load_immediate(Cursor& cursor, bool in_semaphore) {
  const std::string mnemonic = cursor.word("load_imm");
  const DottedWord dotted = split_suffixes(mnemonic);
  if (dotted.name != "load_imm") fail("expected load_imm, found " + quoted(mnemonic));
  LoadImmediateInstruction load;
  std::optional<std::uint32_t> mode;
  for (const std::string& suffix : dotted.suffixes) {
    if (suffix == "per_elem_signed" && !mode) {
      mode = kLoadPerElementSigned;
    } else if (suffix == "per_elem_unsigned" && !mode) {
      mode = kLoadPerElementUnsigned;
    } else if (suffix == "sf" && load.sf == 0) {
      load.sf = 1;
    } else {
      fail("unexpected suffix '." + suffix + "' on " + quoted(mnemonic));
    }
  }
  load.mode = mode.value_or(kLoad32);
  if (in_semaphore && mode) fail("a semaphore's immediate is a 32-bit load_imm, not a per-element one");

  const Destination add = parse_destination(cursor, true, true);
  cursor.expect(',', "after the destination " + quoted(add.text));
  Destination mul;
  if (cursor.next_is_word() && !looks_numeric(cursor.peek())) {
    mul = parse_destination(cursor, true, true);
    cursor.expect(',', "after the destination " + quoted(mul.text));
  }
  if (load.mode == kLoad32) {
    load.value = immediate_value(cursor.word("an immediate"));
    // The disassembler's "(float)" restates the word.
    if (cursor.accept('(')) {
      const std::string restated = cursor.word("a float");
      if (!is_float_text(restated)) fail(quoted(restated) + " is not a float");
      cursor.expect(')', "after the float");
    }
  } else {
    std::optional<std::uint32_t> raw;
    if (cursor.next_is_word()) raw = immediate_value(cursor.word("an immediate"));
    if (cursor.accept('[')) {
      const std::uint32_t listed = per_element_word(cursor, load.mode == kLoadPerElementSigned);
      if (raw && *raw != listed) fail("the word and the element values do not agree");
      raw = listed;
    }
    if (!raw) fail("expected the per-element word or the 16 element values, found " + cursor.describe_next());
    load.value = *raw;
  }
  cursor.expect_end();

  const WriteFields writes = resolve_writes(add, mul, std::nullopt);
  load.pm = writes.pm;
  load.pack = writes.pack;
  load.ws = writes.ws;
  load.waddr_add = add.address;
  load.waddr_mul = mul.address;
  // A nop destination's condition is never, except the add one of a flag-setting load (flags update only where it
  // holds).
  load.cond_add = add.cond.value_or(add.address != kWriteNop || load.sf != 0 ? kAlways : kNever);
  load.cond_mul = mul.cond.value_or(mul.address != kWriteNop ? kAlways : kNever);
  return load;
}

std::uint64_t assemble_semaphore(Cursor& cursor) {
  const std::string mnemonic = cursor.word("sacq or srel");
  if (mnemonic != "sacq" && mnemonic != "srel") fail("unexpected suffix on " + quoted(mnemonic));
  const bool acquire = mnemonic == "sacq";
  const std::string number_text = cursor.word("a semaphore number");
  const auto number = parse_integer(number_text);
  if (!number) fail(quoted(number_text) + " is not a semaphore number");
  if (*number < 0 || *number >= kSemaphores) {
    fail("semaphore " + number_text + " is out of range (0.." + std::to_string(kSemaphores - 1) + ")");
  }
  const std::uint32_t semaphore_bits = (acquire ? 16U : 0U) | static_cast<std::uint32_t>(*number);
  if (!cursor.accept(';')) {
    cursor.expect_end();
    return encode_semaphore(static_cast<unsigned>(*number), acquire);
  }
  LoadImmediateInstruction load = parse_load_immediate(cursor, true);
  if ((load.value & 31U) != semaphore_bits) {
    fail("the immediate's low five bits must be the semaphore's (" + std::to_string(semaphore_bits) + ")");
  }
  load.mode = kLoadSemaphore;
  return load.encode();
}

// ---- branches ----

bool is_label_name(const std::string& text) {
  if (text.empty() || (std::isalpha(static_cast<unsigned char>(text[0])) == 0 && text[0] != '_')) return false;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  }
  return true;
}

std::int32_t branch_offset(const std::string& text, bool negate) {
  const auto value = parse_integer(text);
  if (!value) fail("expected a byte offset, found " + quoted(text));
  const std::int64_t offset = negate ? -*value : *value;
  if (offset < INT32_MIN || offset > INT32_MAX) fail("branch offset " + text + " is out of range of 32 bits");
  return static_cast<std::int32_t>(offset);
}

std::uint64_t assemble_branch(Cursor& cursor, std::optional<std::string>& label_target) {
  const std::string mnemonic = cursor.word("branch");
  const DottedWord dotted = split_suffixes(mnemonic);
  BranchInstruction branch;
  branch.rel = 0;
  std::optional<std::uint32_t> cond;
  for (const std::string& suffix : dotted.suffixes) {
    if (suffix == "rel" && branch.rel == 0) {
      branch.rel = 1;
    } else if (const auto code = lookup(kBranchConds, suffix); code && !cond) {
      cond = code;
    } else {
      fail("unexpected suffix '." + suffix + "' on " + quoted(mnemonic));
    }
  }
  branch.cond = cond.value_or(kBranchAlways);

  const std::string target = cursor.word("a branch target");
  const auto target_register = register_file_name(target);
  if (target_register && target_register->first == File::kA) {
    branch.reg = 1;
    branch.raddr_a = target_register->second;
    // "ra3 + 8", "ra3 - 8", "ra3 -8" or "ra3" alone (offset 0).
    const bool negate = cursor.accept('-');
    if (negate || cursor.accept('+') || (cursor.next_is_word() && looks_numeric(cursor.peek()))) {
      branch.offset = branch_offset(cursor.word("a byte offset"), negate);
    }
  } else if (target_register) {
    fail("a branch target register is read from regfile A (ra0-ra31), not " + quoted(target));
  } else if (looks_numeric(target)) {
    branch.offset = branch_offset(target, false);
  } else if (is_label_name(target)) {
    if (branch.rel == 0) fail("a branch to a label is relative: write branch.rel");
    label_target = target;
  } else {
    fail(quoted(target) + " is not a branch target (a byte offset, a label or ra<n> + offset)");
  }

  if (cursor.accept(',')) {
    const std::string link = cursor.word("link");
    if (link != "link") fail("expected 'link', found " + quoted(link));
    const Destination add = parse_destination(cursor, false, false);
    cursor.expect(',', "between the two link destinations");
    const Destination mul = parse_destination(cursor, false, false);
    branch.ws = resolve_writes(add, mul, std::nullopt).ws;
    branch.waddr_add = add.address;
    branch.waddr_mul = mul.address;
  }
  cursor.expect_end();
  return branch.encode();
}

// ---- lines ----

std::uint64_t assemble_instruction(Cursor& cursor, std::optional<std::string>& label_target) {
  std::optional<std::uint32_t> signal;
  std::string signal_name;
  while (cursor.next_is_word()) {
    const std::string word = cursor.peek();
    if (word == "sig_load_imm" || word == "sig_branch") {
      fail(quoted(word) + " is an instruction form: write load_imm, sacq, srel or branch");
    }
    const auto code = lookup(kSignals, word);
    if (!code) break;
    if (signal) fail("two signals (" + signal_name + ", " + word + "): an instruction has one signal field");
    signal = code;
    signal_name = cursor.word("a signal");
  }
  if (cursor.at_end()) fail("expected an instruction after " + quoted(signal_name));
  const std::string name = cursor.next_is_word() ? split_suffixes(cursor.peek()).name : std::string();
  if (name == "nop" && cursor.ends_after(1) && cursor.peek() == "nop") {
    AluInstruction nop;
    nop.sig = signal.value_or(kSigNone);
    nop.cond_add = kNever;
    nop.cond_mul = kNever;
    return nop.encode();
  }
  const bool other_form = name == "sacq" || name == "srel" || name == "load_imm" || name == "branch";
  if (other_form && signal) {
    fail(quoted(signal_name) + " cannot go with " + name + ": its signal field holds the instruction form");
  }
  if (name == "sacq" || name == "srel") return assemble_semaphore(cursor);
  if (name == "load_imm") return parse_load_immediate(cursor, false).encode();
  if (name == "branch") return assemble_branch(cursor, label_target);
  return assemble_alu(cursor, signal, signal_name);
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string::npos) return std::string();
  const std::size_t last = text.find_last_not_of(" \t\r\n\v\f");
  return text.substr(first, last - first + 1);
}

std::string without_comment(const std::string& line) {
  const std::size_t hash = line.find('#');
  const std::size_t slashes = line.find("//");
  return line.substr(0, std::min(hash, slashes));
}

struct LabelReference {
  std::size_t instruction;
  std::string label;
  std::size_t line_number;
  std::string line;
};

std::string line_error(std::size_t line_number, const std::string& message, const std::string& line) {
  return "line " + std::to_string(line_number) + ": " + message + ": " + trimmed(line);
}

}  // namespace

bool assemble(const std::string& source, AssembledProgram& program, std::string& error) {
  program = AssembledProgram{};
  error.clear();
  AssembledProgram result;
  std::map<std::string, std::size_t> label_lines;
  std::vector<LabelReference> references;
  std::istringstream lines(source);
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    try {
      Cursor cursor(tokenize(without_comment(line)));
      // Labels: "name:" before an instruction or alone.
      while (cursor.next_is_word() && cursor.peek(1) == ":") {
        const std::string label = cursor.word("a label");
        cursor.expect(':', "after the label");
        if (!is_label_name(label)) fail(quoted(label) + " is not a label name (letters, digits and '_')");
        if (register_file_name(label) || accumulator_name(label, 5)) {
          fail("label " + quoted(label) + " is a register name");
        }
        const auto [previous, inserted] = label_lines.emplace(label, line_number);
        if (!inserted) {
          fail("label " + quoted(label) + " is defined twice (first on line " + std::to_string(previous->second) + ")");
        }
        if (result.code.size() >= (std::size_t{1} << 29)) fail("the program is larger than 4 GiB");
        result.labels[label] = static_cast<std::uint32_t>(result.code.size() * sizeof(std::uint64_t));
      }
      if (cursor.at_end()) continue;
      std::optional<std::string> label_target;
      result.code.push_back(assemble_instruction(cursor, label_target));
      if (label_target) references.push_back({result.code.size() - 1, *label_target, line_number, line});
    } catch (const std::exception& e) {
      error = line_error(line_number, e.what(), line);
      return false;
    }
  }
  // Branches to labels: relative to the address after the three delay slots.
  for (const LabelReference& reference : references) {
    const auto label = result.labels.find(reference.label);
    if (label == result.labels.end()) {
      error = line_error(reference.line_number, "undefined label " + quoted(reference.label), reference.line);
      return false;
    }
    const std::int64_t offset =
        static_cast<std::int64_t>(label->second) -
        static_cast<std::int64_t>((reference.instruction + 1 + kBranchDelaySlots) * sizeof(std::uint64_t));
    if (offset < INT32_MIN || offset > INT32_MAX) {
      error = line_error(reference.line_number, "the offset to label " + quoted(reference.label) + " is out of range",
                         reference.line);
      return false;
    }
    std::uint64_t& word = result.code[reference.instruction];
    word = (word & ~std::uint64_t{0xffffffff}) | static_cast<std::uint32_t>(static_cast<std::int32_t>(offset));
  }
  program = std::move(result);
  return true;
}

}  // namespace gpuvp::vc4::qpu
