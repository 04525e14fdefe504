// The Gen command table: every command the model's engines execute, one row each (name, DW0 match, length rule,
// engines that accept it, generations, and the MI handler or the pipe unit that executes it), in the shape of GVT-g's
// cmd_info table (Linux drivers/gpu/drm/i915/gvt/cmd_parser.c). The streamer takes command lengths and dispatch from
// it; a new command is a row here plus its handler. Facts: docs/gen-command-streamer.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tlm/gen/engine_context.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/gen/pipe_unit.h"

namespace gpuvp::gen {

using MiHandler = Outcome (*)(EngineContext& engine, const Command& cmd);

// Engines that accept a command (GVT-g R_RCS, R_BCS, R_VCS, R_VECS, R_ALL): bit n = Engine n.
using EngineMask = std::uint8_t;
constexpr EngineMask engine_mask(Engine e) { return static_cast<EngineMask>(1u << static_cast<unsigned>(e)); }
constexpr EngineMask kOnRcs = engine_mask(Engine::kRcs);
constexpr EngineMask kOnBcs = engine_mask(Engine::kBcs);
constexpr EngineMask kOnVcs = engine_mask(Engine::kVcs0) | engine_mask(Engine::kVcs1);
constexpr EngineMask kOnVecs = engine_mask(Engine::kVecs);
constexpr EngineMask kOnAll = kOnRcs | kOnBcs | kOnVcs | kOnVecs;
// "render", "blitter", "video" (both VCS), "video-enhancement": the words of the engine errors.
const char* engine_class_name(Engine e);

// How long a command is, in dwords. Fixed (GVT-g F_LEN_CONST: whatever DW0's low bits say) or from a length field
// (F_LEN_VAR): DW0 & field_mask holds the total minus bias (2 for every Gen command, i915 MI_INSTR and
// GFX_OP_PIPE_CONTROL(len)), and only some totals are valid.
struct LengthRule {
  unsigned fixed = 0;  // total dwords; 0: from the field
  std::uint32_t field_mask = 0xFF;
  unsigned bias = 2;
  unsigned min = 0, max = 0;  // valid totals: min, min + step, ... <= max
  unsigned step = 1;
  std::uint64_t only = 0;         // nonzero: bit n set = a total of n dwords is valid (and nothing else)
  const char* hint = "";          // appended to "bad length N for NAME"
  const char* message = nullptr;  // replaces "bad length N for NAME<hint>"

  // The total length of a command whose header is dw0, or 0 when its length field holds an invalid value.
  unsigned length(std::uint32_t dw0) const {
    if (fixed) return fixed;
    const unsigned total = (dw0 & field_mask) + bias;
    if (total < min || total > max || (total - min) % step != 0) return 0;
    if (only && (total >= 64 || !(only >> total & 1))) return 0;
    return total;
  }

  static constexpr LengthRule exactly(unsigned dwords) { return range(dwords, dwords); }
  static constexpr LengthRule range(unsigned min_dwords, unsigned max_dwords, unsigned step_dwords = 1) {
    LengthRule r;
    r.min = min_dwords;
    r.max = max_dwords;
    r.step = step_dwords;
    return r;
  }
  static constexpr LengthRule one_of(std::initializer_list<unsigned> dwords) {
    LengthRule r;
    r.min = 0;
    for (unsigned d : dwords) {
      r.only |= std::uint64_t{1} << d;
      if (d > r.max) r.max = d;
    }
    return r;
  }
  static constexpr LengthRule constant(unsigned dwords) {
    LengthRule r;
    r.fixed = dwords;
    return r;
  }
  constexpr LengthRule with_field(std::uint32_t mask) const {
    LengthRule r = *this;
    r.field_mask = mask;
    return r;
  }
  constexpr LengthRule with_hint(const char* text) const {
    LengthRule r = *this;
    r.hint = text;
    return r;
  }
  constexpr LengthRule with_message(const char* text) const {
    LengthRule r = *this;
    r.message = text;
    return r;
  }
};

struct CommandInfo {
  // Flags.
  static constexpr std::uint8_t kArbitrationPoint = 1u << 0;  // execlists may switch contexts after it

  const char* name;
  // DW0 & mask == value identifies the command; the mask lies in bits 31:16 (type, opcode and the flag bits that
  // change the length, as MI_STORE_DATA_IMM's qword bit does).
  std::uint32_t mask;
  std::uint32_t value;
  LengthRule length;
  EngineMask engines;
  Pipe pipe;          // kNone: an MI command, executed by handler
  MiHandler handler;  // MI commands only
  std::uint8_t flags = 0;
  unsigned first_generation = 8;
  unsigned last_generation = 9;
};

// Every row, of every generation (for tests and documentation).
const std::vector<CommandInfo>& all_commands();

// The rows of one generation, indexed by DW0 bits 31:16.
class CommandTable {
 public:
  explicit CommandTable(unsigned generation);
  // Shared per generation (built on first use).
  static const CommandTable& for_generation(unsigned generation);

  unsigned generation() const { return generation_; }
  // The row whose match DW0 satisfies, or nullptr.
  const CommandInfo* find(std::uint32_t dw0) const {
    const std::uint16_t i = index_[dw0 >> 16];
    return i ? rows_[i - 1] : nullptr;
  }
  // The length in dwords of the command whose header is dw0 on engine, with its row in info; 0 when the engine
  // cannot execute it (unknown command, another engine's command, a bad length), with *reason set when reason is
  // given (the text is built only then: this runs for every new header).
  unsigned decode(std::uint32_t dw0, Engine engine, const CommandInfo*& info, std::string* reason) const;
  // Rows that match a header another row of this generation matched first (a table bug; empty when consistent).
  const std::vector<std::string>& conflicts() const { return conflicts_; }
  const std::vector<const CommandInfo*>& rows() const { return rows_; }

 private:
  unsigned generation_;
  std::vector<const CommandInfo*> rows_;
  std::vector<std::uint16_t> index_;  // 65536 entries: row index + 1, 0 = no row
  std::vector<std::string> conflicts_;
};

}  // namespace gpuvp::gen
