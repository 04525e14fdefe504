// The Gen command table (tlm/gen/command_table.h) on its own: command lengths and rows for headers written out as
// i915 gt/intel_gpu_commands.h and Mesa genxml encode them (not with the model's encoders), the engines that accept
// each command (GVT-g gvt/cmd_parser.c ring masks), the errors for commands the model does not execute, the table's
// own consistency, and the render pipe and a few MI handlers against a recording EngineContext.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/gen/command_table.h"
#include "tlm/gen/mi_handlers.h"
#include "tlm/gen/mi_math.h"
#include "tlm/gen/render_pipe.h"

using namespace gpuvp;
using namespace gpuvp::gen;

namespace {

// ---- lengths and rows ----

struct DecodeCase {
  const char* name;
  std::uint32_t dw0;
  unsigned generation;
  Engine engine;
  unsigned length;       // 0: rejected
  const char* expected;  // the row's name, or the error text when rejected
};

// Headers as i915 spells them: MI_INSTR(op, flags) = op << 23 | flags; GFX_OP_PIPE_CONTROL(len) = 3 << 29 | 3 << 27 |
// 2 << 24 | (len - 2); MI_USE_GGTT / MI_MEM_VIRTUAL bit 22.
const DecodeCase kDecodeCases[] = {
    {"noop", 0x0000'0000, 9, Engine::kRcs, 1, "MI_NOOP"},
    {"noop_identify", 0x0040'1234, 9, Engine::kBcs, 1, "MI_NOOP"},  // MI_NOOP_WRITE_ID | id: still 1 dword
    {"user_interrupt", 0x0100'0000, 9, Engine::kVcs0, 1, "MI_USER_INTERRUPT"},
    {"arb_check", 0x0280'0000, 9, Engine::kVecs, 1, "MI_ARB_CHECK"},
    {"arb_on_off", 0x0400'0001, 9, Engine::kRcs, 1, "MI_ARB_ON_OFF"},
    {"batch_buffer_end", 0x0500'0000, 8, Engine::kVcs1, 1, "MI_BATCH_BUFFER_END"},
    // MI_MATH(x) = MI_INSTR(0x1a, x - 1): 1 + x dwords; bits 7:6 count on Gen9 only.
    {"math_4_gen9", 0x0D00'0003, 9, Engine::kRcs, 5, "MI_MATH"},
    {"math_256_gen9", 0x0D00'00FF, 9, Engine::kRcs, 257, "MI_MATH"},
    {"math_bits_7_6_gen9", 0x0D00'00C3, 9, Engine::kRcs, 197, "MI_MATH"},
    {"math_bits_7_6_gen8", 0x0D00'00C3, 8, Engine::kRcs, 5, "MI_MATH"},
    // MI_SEMAPHORE_WAIT = MI_INSTR(0x1c, 2) | MI_SEMAPHORE_GLOBAL_GTT | MI_SEMAPHORE_POLL | MI_SEMAPHORE_SAD_EQ_SDD.
    {"semaphore_wait", 0x0E40'C002, 9, Engine::kBcs, 4, "MI_SEMAPHORE_WAIT"},
    // MI_STORE_DWORD_IMM_GEN4 = MI_INSTR(0x20, 2); the qword form sets bit 21 and is one dword longer.
    {"store_dword_imm", 0x1040'0002, 9, Engine::kVecs, 4, "MI_STORE_DATA_IMM"},
    {"store_qword_imm", 0x1060'0003, 9, Engine::kVecs, 5, "MI_STORE_DATA_IMM (qword)"},
    {"store_dword_imm_7_dwords", 0x1040'0005, 9, Engine::kVecs, 0, "bad length 5 for MI_STORE_DATA_IMM"},
    {"store_qword_imm_4_dwords", 0x1020'0002, 9, Engine::kRcs, 0, "bad length 2 for MI_STORE_DATA_IMM (qword)"},
    // MI_STORE_DWORD_INDEX = MI_INSTR(0x21, 1).
    {"store_dword_index", 0x1080'0001, 9, Engine::kRcs, 3, "MI_STORE_DATA_INDEX"},
    {"store_qword_index", 0x10A0'0002, 9, Engine::kRcs, 4, "MI_STORE_DATA_INDEX (qword)"},
    // MI_LOAD_REGISTER_IMM(x) = MI_INSTR(0x22, 2x - 1), x <= 126 pairs (i915 MI_LRI_LEN checks).
    {"lri_1", 0x1100'0001, 9, Engine::kRcs, 3, "MI_LOAD_REGISTER_IMM"},
    {"lri_126", 0x1100'00FB, 9, Engine::kRcs, 253, "MI_LOAD_REGISTER_IMM"},
    {"lri_127", 0x1100'00FD, 9, Engine::kRcs, 0, "bad length 253 for MI_LOAD_REGISTER_IMM (2n-1, n <= 126)"},
    {"lri_even", 0x1100'0002, 9, Engine::kRcs, 0, "bad length 2 for MI_LOAD_REGISTER_IMM (2n-1, n <= 126)"},
    {"lri_byte_disables", 0x1100'0F01, 9, Engine::kRcs, 3, "MI_LOAD_REGISTER_IMM"},
    // MI_STORE_REGISTER_MEM_GEN8 = MI_INSTR(0x24, 2), MI_LOAD_REGISTER_MEM_GEN8 = MI_INSTR(0x29, 2).
    {"srm", 0x1240'0002, 9, Engine::kVcs0, 4, "MI_STORE_REGISTER_MEM"},
    {"lrm", 0x1480'0002, 9, Engine::kVcs0, 4, "MI_LOAD_REGISTER_MEM"},
    {"lrm_3_dwords", 0x1480'0001, 9, Engine::kVcs0, 0, "bad length 1 for MI_LOAD_REGISTER_MEM"},
    // MI_FLUSH_DW = MI_INSTR(0x26, 1); Gen8+ emits it one dword longer (48-bit address), a qword of data two.
    {"flush_dw", 0x1300'0002, 9, Engine::kBcs, 4, "MI_FLUSH_DW"},
    {"flush_dw_qword", 0x1300'0003, 9, Engine::kVcs1, 5, "MI_FLUSH_DW"},
    {"flush_dw_on_rcs", 0x1300'0002, 9, Engine::kRcs, 0, "MI_FLUSH_DW is not a render-engine command"},
    // MI_ATOMIC = MI_INSTR(0x2f, len - 2): 3 dwords, or inline data for a dword (5), qword (7), octword (11).
    {"atomic", 0x17C0'0501, 9, Engine::kRcs, 3, "MI_ATOMIC"},
    {"atomic_inline_dword", 0x17C4'0503, 9, Engine::kRcs, 5, "MI_ATOMIC"},
    {"atomic_inline_qword", 0x17CC'2705, 9, Engine::kRcs, 7, "MI_ATOMIC"},
    {"atomic_inline_octword", 0x17D4'0509, 9, Engine::kRcs, 11, "MI_ATOMIC"},
    {"atomic_9_dwords", 0x17C0'0507, 9, Engine::kRcs, 0, "bad length 7 for MI_ATOMIC"},
    // MI_BATCH_BUFFER_START_GEN8 = MI_INSTR(0x31, 1); bit 8 PPGTT, bit 22 second level.
    {"batch_buffer_start", 0x1880'0101, 9, Engine::kRcs, 3, "MI_BATCH_BUFFER_START"},
    {"batch_buffer_start_second_level", 0x18C0'0001, 8, Engine::kBcs, 3, "MI_BATCH_BUFFER_START"},
    {"batch_buffer_start_2_dwords", 0x1880'0000, 9, Engine::kRcs, 0, "bad length 0 for MI_BATCH_BUFFER_START"},
    // MI_CONDITIONAL_BATCH_BUFFER_END = MI_INSTR(0x36, 0): 4 dwords on Gen9; Gen8 also 3.
    {"cond_bb_end_gen9", 0x1B60'0002, 9, Engine::kRcs, 4, "MI_CONDITIONAL_BATCH_BUFFER_END"},
    {"cond_bb_end_3_gen8", 0x1B60'0001, 8, Engine::kRcs, 3, "MI_CONDITIONAL_BATCH_BUFFER_END"},
    {"cond_bb_end_3_gen9", 0x1B60'0001, 9, Engine::kRcs, 0, "bad length 1 for MI_CONDITIONAL_BATCH_BUFFER_END"},
    // GFX_OP_PIPE_CONTROL(6) = 0x7a000004.
    {"pipe_control", 0x7A00'0004, 9, Engine::kRcs, 6, "PIPE_CONTROL"},
    {"pipe_control_gen8", 0x7A00'0004, 8, Engine::kRcs, 6, "PIPE_CONTROL"},
    {"pipe_control_5_dwords", 0x7A00'0003, 9, Engine::kRcs, 0, "PIPE_CONTROL with a length other than 6 dwords"},
    {"pipe_control_on_bcs", 0x7A00'0004, 9, Engine::kBcs, 0, "PIPE_CONTROL is a render-engine command"},
    {"pipe_control_on_vecs", 0x7A00'0004, 9, Engine::kVecs, 0, "PIPE_CONTROL is a render-engine command"},
    // Commands the model does not execute.
    {"unknown_mi_opcode", 0x1F00'0000, 9, Engine::kVcs0, 0, "unknown MI opcode 0x3e"},
    {"mi_report_perf_count", 0x1400'0002, 9, Engine::kRcs, 0, "unknown MI opcode 0x28"},
    // 3DSTATE_VS (3, 0, 0x10), Mesa gen9.xml: the 3D pipeline is not modelled. The GPGPU pipe's commands are.
    {"3dstate_vs", 0x7810'0007, 9, Engine::kRcs, 0,
     "3D/media command (pipeline 3, opcode 0, sub-opcode 16) is not modelled"},
    {"gpgpu_walker", 0x7105'000D, 9, Engine::kRcs, 15, "GPGPU_WALKER"},
    {"gpgpu_walker_14_dwords", 0x7105'000C, 9, Engine::kRcs, 0, "bad length 12 for GPGPU_WALKER"},
    {"gpgpu_walker_on_bcs", 0x7105'000D, 9, Engine::kBcs, 0, "GPGPU_WALKER is a render-engine command"},
    {"pipeline_select_gpgpu", 0x6904'1312, 9, Engine::kRcs, 1, "PIPELINE_SELECT"},  // NEO's, with mask bits
    {"state_base_address_gen9", 0x6101'0011, 9, Engine::kRcs, 19, "STATE_BASE_ADDRESS"},
    {"state_base_address_gen8", 0x6101'000E, 8, Engine::kRcs, 16, "STATE_BASE_ADDRESS"},
    {"media_vfe_state", 0x7000'0007, 9, Engine::kRcs, 9, "MEDIA_VFE_STATE"},
    // XY_SRC_COPY_BLT_CMD = 2 << 29 | 0x53 << 22 | 6 (i915 gt/intel_gpu_commands.h): the 2D client is not modelled.
    {"xy_src_copy_blt", 0x54C0'0006, 9, Engine::kBcs, 0, "command type 2 is not modelled"},
};

void PrintTo(const DecodeCase& c, std::ostream* os) { *os << c.name; }

class CommandTableDecode : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(CommandTableDecode, LengthAndRowOrErrorFromTheHeader) {
  const DecodeCase& c = GetParam();
  const CommandTable& table = CommandTable::for_generation(c.generation);
  const CommandInfo* info = nullptr;
  std::string reason;
  EXPECT_EQ(table.decode(c.dw0, c.engine, info, &reason), c.length);
  if (c.length != 0) {
    ASSERT_NE(info, nullptr);
    EXPECT_STREQ(info->name, c.expected);
    EXPECT_EQ(reason, "");
  } else {
    EXPECT_EQ(reason, c.expected);
  }
  // Without a reason pointer the answer is the same (the hot path builds no text).
  const CommandInfo* again = nullptr;
  EXPECT_EQ(table.decode(c.dw0, c.engine, again, nullptr), c.length);
  EXPECT_EQ(again, info);
}

INSTANTIATE_TEST_SUITE_P(I915Headers, CommandTableDecode, ::testing::ValuesIn(kDecodeCases),
                         [](const ::testing::TestParamInfo<DecodeCase>& info) { return std::string(info.param.name); });

// ---- engines ----

struct EngineCase {
  const char* name;
  Engine engine;
  bool flush_dw;        // MI_FLUSH_DW accepted
  bool pipe_control;    // PIPE_CONTROL accepted
  const char* refused;  // the error for the one it refuses
};

const EngineCase kEngineCases[] = {
    {"rcs", Engine::kRcs, false, true, "MI_FLUSH_DW is not a render-engine command"},
    {"bcs", Engine::kBcs, true, false, "PIPE_CONTROL is a render-engine command"},
    {"vcs0", Engine::kVcs0, true, false, "PIPE_CONTROL is a render-engine command"},
    {"vcs1", Engine::kVcs1, true, false, "PIPE_CONTROL is a render-engine command"},
    {"vecs", Engine::kVecs, true, false, "PIPE_CONTROL is a render-engine command"},
};

void PrintTo(const EngineCase& c, std::ostream* os) { *os << c.name; }

class CommandTableEngines : public ::testing::TestWithParam<EngineCase> {};

TEST_P(CommandTableEngines, FlushDwOffTheRenderEnginePipeControlOnItOnlyEveryOtherMiCommandEverywhere) {
  const EngineCase& c = GetParam();
  for (const unsigned generation : {8u, 9u}) {
    const CommandTable& table = CommandTable::for_generation(generation);
    const CommandInfo* info = nullptr;
    std::string reason;
    EXPECT_EQ(table.decode(0x1300'0002, c.engine, info, &reason), c.flush_dw ? 4u : 0u);
    EXPECT_EQ(table.decode(0x7A00'0004, c.engine, info, &reason), c.pipe_control ? 6u : 0u);
    EXPECT_EQ(reason, c.refused);
    for (const CommandInfo* row : table.rows()) {
      const bool accepted = row->engines & engine_mask(c.engine);
      if (std::strcmp(row->name, "MI_FLUSH_DW") == 0) {
        EXPECT_EQ(accepted, c.flush_dw);
      } else if (std::strcmp(row->name, "PIPE_CONTROL") == 0 || row->pipe == Pipe::kGpgpu) {
        EXPECT_EQ(accepted, c.pipe_control) << row->name;  // the render engine's pipes
      } else {
        EXPECT_TRUE(accepted) << row->name;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, CommandTableEngines, ::testing::ValuesIn(kEngineCases),
                         [](const ::testing::TestParamInfo<EngineCase>& info) { return std::string(info.param.name); });

TEST(CommandTableEngines, EngineClassesAndMasksFollowGvtRingMasks) {
  EXPECT_EQ(kOnRcs, 0x01);
  EXPECT_EQ(kOnBcs, 0x02);
  EXPECT_EQ(kOnVcs, 0x0C);
  EXPECT_EQ(kOnVecs, 0x10);
  EXPECT_EQ(kOnAll, 0x1F);
  EXPECT_STREQ(engine_class_name(Engine::kRcs), "render");
  EXPECT_STREQ(engine_class_name(Engine::kBcs), "blitter");
  EXPECT_STREQ(engine_class_name(Engine::kVcs0), "video");
  EXPECT_STREQ(engine_class_name(Engine::kVcs1), "video");
  EXPECT_STREQ(engine_class_name(Engine::kVecs), "video-enhancement");
}

// ---- the table itself ----

class CommandTableRows : public ::testing::TestWithParam<unsigned> {};

TEST_P(CommandTableRows, EveryRowIsFoundByItsOwnHeaderAndNoTwoOverlap) {
  const CommandTable& table = CommandTable::for_generation(GetParam());
  EXPECT_EQ(table.generation(), GetParam());
  EXPECT_TRUE(table.conflicts().empty()) << table.conflicts().front();
  ASSERT_FALSE(table.rows().empty());
  std::set<std::string> names;
  for (const CommandInfo* row : table.rows()) {
    SCOPED_TRACE(row->name);
    EXPECT_TRUE(names.insert(row->name).second) << "two rows of one generation share a name";
    EXPECT_EQ(row->mask & 0xFFFF, 0u) << "the match lies in DW0 bits 31:16";
    EXPECT_EQ(row->value & ~row->mask, 0u);
    EXPECT_EQ(table.find(row->value), row);
    EXPECT_EQ(table.find(row->value | (~row->mask & 0xFFFF'FFFF)), row);
    // An MI command has a handler; a pipe's command has none (its pipe unit executes it).
    EXPECT_EQ(row->pipe == Pipe::kNone, row->handler != nullptr);
    EXPECT_NE(row->engines, 0);
    EXPECT_EQ(row->engines & ~kOnAll, 0);
    EXPECT_LE(row->first_generation, GetParam());
    EXPECT_GE(row->last_generation, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(Gen8AndGen9, CommandTableRows, ::testing::Values(8u, 9u));

TEST(CommandTableRows, EveryRowOfEveryGenerationIsInTheTableOfEachGenerationItCovers) {
  std::size_t rows_gen8 = 0, rows_gen9 = 0;
  for (const CommandInfo& row : all_commands()) {
    rows_gen8 += row.first_generation <= 8 && row.last_generation >= 8;
    rows_gen9 += row.first_generation <= 9 && row.last_generation >= 9;
  }
  EXPECT_EQ(CommandTable::for_generation(8).rows().size(), rows_gen8);
  EXPECT_EQ(CommandTable::for_generation(9).rows().size(), rows_gen9);
  // Only MI_ARB_CHECK is an explicit arbitration point.
  for (const CommandInfo& row : all_commands()) {
    EXPECT_EQ((row.flags & CommandInfo::kArbitrationPoint) != 0, std::strcmp(row.name, "MI_ARB_CHECK") == 0)
        << row.name;
  }
}

TEST(CommandTableRows, LengthRules) {
  // Fixed: whatever the low bits hold.
  EXPECT_EQ(LengthRule::constant(1).length(0x0000'00FF), 1u);
  // A range with a step: 3, 5, ... 253.
  const LengthRule lri = LengthRule::range(3, 253, 2);
  EXPECT_EQ(lri.length(1), 3u);
  EXPECT_EQ(lri.length(2), 0u);
  EXPECT_EQ(lri.length(251), 253u);
  EXPECT_EQ(lri.length(253), 0u);
  // A set of lengths.
  const LengthRule atomic = LengthRule::one_of({3, 5, 7, 11});
  EXPECT_EQ(atomic.length(1), 3u);
  EXPECT_EQ(atomic.length(7), 0u);
  EXPECT_EQ(atomic.length(9), 11u);
  EXPECT_EQ(atomic.length(0xFF), 0u);
  // A narrower field ignores the bits above it.
  EXPECT_EQ(LengthRule::range(2, 65).with_field(0x3F).length(0xC0), 2u);
}

// ---- handlers and the render pipe against a recording engine ----

class RecordingEngine final : public EngineContext {
 public:
  struct Access {
    std::uint64_t gva;
    AddressSpace space;
    std::vector<std::uint8_t> bytes;
    bool write;
  };
  RecordingEngine() {
    for (unsigned n = 0; n < 16; ++n) {
      gprs_.emplace_back(core::RegisterDef{"CS_GPR" + std::to_string(n), 0, 64, 0, core::Access::kReadWrite, "", {}});
    }
  }

  unsigned generation_ = 9;
  std::uint64_t cycles_ = 0;
  std::vector<Access> accesses;
  std::map<std::uint32_t, std::uint32_t> registers;
  std::vector<std::uint32_t> byte_enables;
  std::vector<std::uint32_t> interrupts;
  std::vector<std::string> failures;
  unsigned tlb_invalidations = 0;
  std::deque<core::Register> gprs_;

  unsigned generation() const override { return generation_; }
  void cycles(std::uint64_t n) override { cycles_ += n; }
  void progress() override {}
  bool pause_point() override { return true; }
  std::uint32_t register_cycles() const override { return 4; }
  core::Picoseconds local_time() const override { return 0; }
  std::uint64_t timestamp_ticks() const override { return 0x1234'5678'9ABCull; }
  bool ppgtt_bound() const override { return false; }
  bool access(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) override {
    auto* p = static_cast<std::uint8_t*>(data);
    accesses.push_back({gva, space, std::vector<std::uint8_t>(p, p + len), write});
    if (!write) std::memset(data, 0, len);
    return true;
  }
  bool access_untimed(std::uint64_t gva, AddressSpace space, void* data, unsigned len, bool write) override {
    return access(gva, space, data, len, write);
  }
  bool account_traffic(std::uint64_t, AddressSpace, unsigned, bool, core::Picoseconds) override { return true; }
  std::uint64_t status_page() const override { return 0x7000; }
  void invalidate_tlb() override { ++tlb_invalidations; }
  bool reg_read(std::uint32_t offset, std::uint32_t& value) override {
    value = registers[offset];
    return true;
  }
  bool reg_write(std::uint32_t offset, std::uint32_t value, std::uint32_t enables) override {
    registers[offset] = value;
    byte_enables.push_back(enables);
    return true;
  }
  core::Register& gpr(unsigned n) override { return gprs_[n]; }
  void set_nopid(std::uint32_t id) override { registers[0x94] = id; }
  Outcome raise_interrupt(std::uint32_t bits) override {
    interrupts.push_back(bits);
    return Outcome::kNext;
  }
  Outcome fail(const Command*, const std::string& what) override {
    failures.push_back(what);
    return Outcome::kStopped;
  }
  std::size_t batch_depth() const override { return 0; }
  Outcome batch_buffer_start(const Command&, std::uint64_t, AddressSpace, bool) override { return Outcome::kJumped; }
  Outcome batch_buffer_end() override { return Outcome::kJumped; }
  void set_arbitration(bool) override {}
  core::Picoseconds last_read_written_at() const override { return 0; }
  void end_semaphore_wait() override {}
  Outcome wait_semaphore(bool, bool, core::Picoseconds) override { return Outcome::kRetry; }
  core::Counter& user_interrupts() override { return user_interrupts_; }
  core::Counter& semaphore_polls() override { return semaphore_polls_; }

 private:
  core::Counter user_interrupts_;
  core::Counter semaphore_polls_;
};

Command command(std::initializer_list<std::uint32_t> dwords, unsigned generation = 9) {
  Command cmd{};
  std::copy(dwords.begin(), dwords.end(), cmd.dw.begin());
  cmd.length = static_cast<unsigned>(dwords.size());
  std::string reason;
  CommandTable::for_generation(generation).decode(cmd.dw[0], Engine::kRcs, cmd.info, &reason);
  return cmd;
}

std::uint64_t le(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) v = v << 8 | bytes[i];
  return v;
}

}  // namespace

TEST(RenderPipe, PipeControlStoreDataIndexTimestampTlbInvalidateAndNotify) {
  RecordingEngine e;
  RenderPipe pipe;
  EXPECT_EQ(pipe.pipe(), Pipe::kRender);
  // DW1: notify (8), post-sync timestamp (15:14 = 3), TLB invalidate (18), store data index (21); DW2 index 0x38.
  const Command cmd = command({0x7A00'0004, 1u << 8 | 3u << 14 | 1u << 18 | 1u << 21, 0x38, 0, 0, 0});
  EXPECT_EQ(pipe.execute(e, cmd), Outcome::kNext);
  EXPECT_EQ(e.tlb_invalidations, 1u);
  ASSERT_EQ(e.accesses.size(), 1u);
  EXPECT_EQ(e.accesses[0].gva, 0x7038u);  // status page + 0x38
  EXPECT_EQ(e.accesses[0].space, AddressSpace::kGgtt);
  EXPECT_TRUE(e.accesses[0].write);
  EXPECT_EQ(le(e.accesses[0].bytes), 0x1234'5678'9ABCull);
  EXPECT_EQ(e.interrupts, std::vector<std::uint32_t>{GtInterrupts::kFlushNotify});
  EXPECT_TRUE(e.failures.empty());
}

TEST(RenderPipe, PipeControlImmediateQwordToAPpgttAddressAndDepthCountRefused) {
  RecordingEngine e;
  RenderPipe pipe;
  // Post-sync immediate (1), PPGTT destination (bit 24 clear), address 0x1'2345'6780, data 0xAABBCCDD'11223344.
  EXPECT_EQ(pipe.execute(e, command({0x7A00'0004, 1u << 14, 0x2345'6780, 0x1, 0x1122'3344, 0xAABB'CCDD})),
            Outcome::kNext);
  ASSERT_EQ(e.accesses.size(), 1u);
  EXPECT_EQ(e.accesses[0].gva, 0x1'2345'6780u);
  EXPECT_EQ(e.accesses[0].space, AddressSpace::kPpgtt);
  EXPECT_EQ(le(e.accesses[0].bytes), 0xAABB'CCDD'1122'3344ull);
  EXPECT_TRUE(e.interrupts.empty());
  EXPECT_EQ(pipe.execute(e, command({0x7A00'0004, 2u << 14, 0, 0, 0, 0})), Outcome::kStopped);
  const std::vector<std::string> refused{
      "PIPE_CONTROL post-sync depth count needs the 3D pipeline, which is not modelled"};
  EXPECT_EQ(e.failures, refused);
  EXPECT_EQ(e.accesses.size(), 1u);
  // Stateless: a context switch keeps nothing and touches no memory.
  EXPECT_TRUE(pipe.save_state(e, 0x10000));
  EXPECT_TRUE(pipe.restore_state(e, 0x10000));
  EXPECT_EQ(e.accesses.size(), 1u);
}

TEST(MiHandlers, StoreDataImmAddressIs48BitsOnGen8And64OnGen9) {
  for (const unsigned generation : {8u, 9u}) {
    RecordingEngine e;
    e.generation_ = generation;
    EXPECT_EQ(mi_store_data_imm(e, command({0x1040'0002, 0x1000'0007, 0xFFFF'0001, 0xCAFE}, generation)),
              Outcome::kNext);
    ASSERT_EQ(e.accesses.size(), 1u);
    // Low dword bits 1:0 are dropped; Gen8 keeps high bits 15:0.
    EXPECT_EQ(e.accesses[0].gva, generation == 8 ? 0x1'1000'0004ull : 0xFFFF'0001'1000'0004ull);
    EXPECT_EQ(e.accesses[0].space, AddressSpace::kGgtt);
    EXPECT_EQ(le(e.accesses[0].bytes), 0xCAFEu);
  }
}

TEST(MiHandlers, LoadRegisterImmWritesEachPairWithTheByteEnablesLeftByTheDisables) {
  RecordingEngine e;
  // Byte disables 0b0101 in bits 11:8: bytes 1 and 3 written.
  EXPECT_EQ(mi_load_register_imm(e, command({0x1100'0503, 0x2600, 0x1111'1111, 0x2608, 0x2222'2222})), Outcome::kNext);
  EXPECT_EQ(e.registers.at(0x2600), 0x1111'1111u);
  EXPECT_EQ(e.registers.at(0x2608), 0x2222'2222u);
  EXPECT_EQ(e.byte_enables, (std::vector<std::uint32_t>{0b1010, 0b1010}));
}

TEST(MiHandlers, MathChargesARegisterAccessPerAluDwordAndWritesTheGprs) {
  RecordingEngine e;
  e.gpr(0).set(40);
  e.gpr(1).set(2);
  using A = MiMathAlu;
  EXPECT_EQ(mi_math(e, command({0x0D00'0003, A::encode(A::kLoad, A::kSrcA, 0), A::encode(A::kLoad, A::kSrcB, 1),
                                A::encode(A::kAdd, 0, 0), A::encode(A::kStore, 2, A::kAccu)})),
            Outcome::kNext);
  EXPECT_EQ(e.gpr(2).value(), 42u);
  EXPECT_EQ(e.cycles_, 4u * 4);
  EXPECT_TRUE(e.failures.empty());
}

TEST(MiHandlers, FlushDwPostSyncOperationTwoIsReserved) {
  RecordingEngine e;
  EXPECT_EQ(mi_flush_dw(e, command({0x1300'8002, 0, 0, 0})), Outcome::kStopped);
  EXPECT_EQ(e.failures, std::vector<std::string>{"MI_FLUSH_DW post-sync operation 2 is reserved"});
  EXPECT_TRUE(e.accesses.empty());
}

TEST(MiHandlers, MathStopsAtAnInvalidAluDwordNamingItAndLeavesTheGprsAlone) {
  RecordingEngine e;
  e.gpr(0).set(40);
  using A = MiMathAlu;
  // Dword 1 is valid (LOAD SRCA R0), dword 2 has the unknown opcode 0x7ff.
  EXPECT_EQ(mi_math(e, command({0x0D00'0001, A::encode(A::kLoad, A::kSrcA, 0), 0x7FF0'0000})), Outcome::kStopped);
  ASSERT_EQ(e.failures.size(), 1u);
  EXPECT_EQ(e.failures[0].rfind("MI_MATH ALU dword 2 (0x7ff00000): unknown ALU opcode", 0), 0u) << e.failures[0];
  EXPECT_EQ(e.gpr(0).value(), 40u);
  EXPECT_EQ(e.cycles_, 0u);
}

TEST(RenderPipe, ACommandTheTableDidNotRouteToItIsAModelErrorNotExecuted) {
  RecordingEngine e;
  RenderPipe pipe;
  EXPECT_EQ(pipe.execute(e, command({0x1040'0002, 0x1000, 0, 1})), Outcome::kStopped);
  EXPECT_EQ(e.failures, std::vector<std::string>{"the render pipe has no handler for MI_STORE_DATA_IMM"});
  EXPECT_TRUE(e.accesses.empty());
}

TEST(RenderPipe, ExecutesEveryRowTheTableRoutesToIt) {
  for (const unsigned generation : {8u, 9u}) {
    for (const CommandInfo* row : CommandTable::for_generation(generation).rows()) {
      if (row->pipe != Pipe::kRender) continue;
      SCOPED_TRACE(row->name);
      RecordingEngine e;
      RenderPipe pipe;
      Command cmd{};
      cmd.dw[0] = row->value | (row->length.fixed ? 0 : row->length.min - row->length.bias);
      cmd.length = row->length.length(cmd.dw[0]);
      cmd.info = row;
      ASSERT_NE(cmd.length, 0u);
      EXPECT_EQ(pipe.execute(e, cmd), Outcome::kNext);  // no flags: nothing to do, and no error
      EXPECT_TRUE(e.failures.empty());
    }
  }
}
