// Register kit: access policies, writable masks, 64-bit registers, spanning and unmapped accesses, hooks, debug
// accesses, reset, dump/describe, construction errors, and a RegisterBlock behind a bus.
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/sc_test.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/register_bank.h"
#include "tlm/core/register_block.h"
#include "tlm/core/stats.h"

using namespace gpuvp;
using core::Access;
using core::RegisterBank;
using core::RegisterDef;
using sc_core::SC_NS;
using sc_core::sc_time;
using ::testing::HasSubstr;

namespace {

RegisterDef reg32(std::string name, std::uint32_t offset, std::uint64_t reset = 0, Access access = Access::kReadWrite) {
  RegisterDef d;
  d.name = std::move(name);
  d.offset = offset;
  d.width_bits = 32;
  d.reset = reset;
  d.access = access;
  return d;
}

RegisterDef reg64(std::string name, std::uint32_t offset, std::uint64_t reset = 0, Access access = Access::kReadWrite) {
  RegisterDef d = reg32(std::move(name), offset, reset, access);
  d.width_bits = 64;
  return d;
}

// Little-endian helpers over the bank's byte interface.
std::uint32_t rd32(RegisterBank& bank, std::uint32_t offset, bool* complete = nullptr) {
  unsigned char b[4];
  const bool ok = bank.read(offset, b, 4);
  if (complete) *complete = ok;
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}
std::uint64_t rd64(RegisterBank& bank, std::uint32_t offset, bool* complete = nullptr) {
  unsigned char b[8];
  const bool ok = bank.read(offset, b, 8);
  if (complete) *complete = ok;
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}
bool wr(RegisterBank& bank, std::uint32_t offset, std::uint64_t value, unsigned len) {
  unsigned char b[8];
  for (unsigned i = 0; i < len; ++i) b[i] = static_cast<unsigned char>(value >> (8 * i));
  return bank.write(offset, b, len);
}
bool wr32(RegisterBank& bank, std::uint32_t offset, std::uint32_t value) { return wr(bank, offset, value, 4); }
bool wr64(RegisterBank& bank, std::uint32_t offset, std::uint64_t value) { return wr(bank, offset, value, 8); }

}  // namespace

// ---------------------------------------------------------------------------------------------------------------------
// Access policies

TEST(RegisterBank, ReadWriteRegisterStoresWhatIsWrittenAndStartsAtItsResetValue) {
  RegisterBank bank("blk");
  bank.add(reg32("SCRATCH", 0x10, 0xDEADBEEF));
  EXPECT_EQ(rd32(bank, 0x10), 0xDEADBEEFu);  // reset value before any write
  EXPECT_TRUE(wr32(bank, 0x10, 0xCAFEF00D));
  EXPECT_EQ(rd32(bank, 0x10), 0xCAFEF00Du);
  EXPECT_EQ(bank.at(0x10).value(), 0xCAFEF00Du);
  // A byte write at +2 changes only byte 2: 0xCAFEF00D -> 0xCA 0x5A F0 0D = 0xCA5AF00D.
  EXPECT_TRUE(wr(bank, 0x12, 0x5A, 1));
  EXPECT_EQ(rd32(bank, 0x10), 0xCA5AF00Du);
  // A 16-bit write to the upper half: 0x1234 -> 0x1234F00D.
  EXPECT_TRUE(wr(bank, 0x12, 0x1234, 2));
  EXPECT_EQ(rd32(bank, 0x10), 0x1234F00Du);
  // A 2-byte read of the upper half returns 0x1234.
  unsigned char b[2] = {0, 0};
  EXPECT_TRUE(bank.read(0x12, b, 2));
  EXPECT_EQ(b[0], 0x34);
  EXPECT_EQ(b[1], 0x12);
}

TEST(RegisterBank, ReadOnlyRegisterIgnoresWritesAndWarnsNamingTheRegister) {
  RegisterBank bank("gpu.v3d");
  bank.add(reg32("IDENT0", 0x0, 0x02443356, Access::kReadOnly));
  EXPECT_TRUE(wr32(bank, 0x0, 0xFFFFFFFF));  // the offset is mapped, so the access is complete
  EXPECT_EQ(rd32(bank, 0x0), 0x02443356u);   // unchanged
  auto reports = test::take_reports(sc_core::SC_WARNING, "read-only register IDENT0");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].source, "gpu.v3d");
  EXPECT_THAT(reports[0].message, HasSubstr("0xffffffff"));  // the data written
  EXPECT_THAT(reports[0].message, HasSubstr("ignored"));
  // A second write warns again: one warning per offending access.
  EXPECT_TRUE(wr(bank, 0x1, 0x00, 1));
  EXPECT_EQ(rd32(bank, 0x0), 0x02443356u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "IDENT0").size(), 1u);
  // The hardware side can still change it.
  bank.at(0x0).set(0x11);
  EXPECT_EQ(rd32(bank, 0x0), 0x11u);
}

TEST(RegisterBank, WriteOnlyRegisterReadsZeroButKeepsTheWrittenValue) {
  RegisterBank bank("blk");
  bank.add(reg32("DOORBELL", 0x8, 0x55, Access::kWriteOnly));
  EXPECT_EQ(rd32(bank, 0x8), 0u);  // even the reset value 0x55 reads as 0
  EXPECT_TRUE(wr32(bank, 0x8, 0x12345678));
  EXPECT_EQ(rd32(bank, 0x8), 0u);
  EXPECT_EQ(bank.at(0x8).value(), 0x12345678u);  // stored for the block's side effects
  // A read hook does not make a write-only register readable.
  bank.at(0x8).on_read([](core::Register&, std::uint64_t) { return 0xABCDu; });
  EXPECT_EQ(rd32(bank, 0x8), 0u);
}

TEST(RegisterBank, WriteOneToClearClearsOnlyTheBitsWrittenAsOne) {
  RegisterBank bank("blk");
  bank.add(reg32("STATUS", 0x4, 0, Access::kWriteOneToClear));
  bank.at(0x4).set(0xF0F0);  // hardware sets status bits
  EXPECT_EQ(rd32(bank, 0x4), 0xF0F0u);
  // 0xF0F0 & ~0x0030 = 0xF0C0
  EXPECT_TRUE(wr32(bank, 0x4, 0x0030));
  EXPECT_EQ(rd32(bank, 0x4), 0xF0C0u);
  // Writing 0 changes nothing; writing 1s to clear bits changes nothing.
  EXPECT_TRUE(wr32(bank, 0x4, 0x0));
  EXPECT_EQ(rd32(bank, 0x4), 0xF0C0u);
  EXPECT_TRUE(wr32(bank, 0x4, 0x0F0F));
  EXPECT_EQ(rd32(bank, 0x4), 0xF0C0u);
  // A byte write of 0xFF to byte 1 clears bits 15:8: 0xF0C0 -> 0x00C0.
  EXPECT_TRUE(wr(bank, 0x5, 0xFF, 1));
  EXPECT_EQ(rd32(bank, 0x4), 0x00C0u);
  EXPECT_TRUE(wr32(bank, 0x4, 0xFFFFFFFF));
  EXPECT_EQ(rd32(bank, 0x4), 0u);
}

TEST(RegisterBank, MaskedRegisterUpperHalfSelectsWhichLowBitsChange) {
  RegisterBank bank("blk");
  bank.add(reg32("MODE", 0x20, 0, Access::kMasked));
  EXPECT_TRUE(wr32(bank, 0x20, 0x00010001));  // enable bit 0, value 1: sets bit 0
  EXPECT_EQ(rd32(bank, 0x20), 0x1u);
  EXPECT_TRUE(wr32(bank, 0x20, 0x00010000));  // enable bit 0, value 0: clears it
  EXPECT_EQ(rd32(bank, 0x20), 0x0u);
  EXPECT_TRUE(wr32(bank, 0x20, 0x0000FFFF));  // no enables: nothing changes
  EXPECT_EQ(rd32(bank, 0x20), 0x0u);
  // Enables 0x00F0 with data 0x0FF0: only bits 7:4 take the data -> 0x00F0.
  EXPECT_TRUE(wr32(bank, 0x20, 0x00F00FF0));
  EXPECT_EQ(rd32(bank, 0x20), 0x00F0u);
  // Enables 0x8030, data 0x8010: bit 15 set, bit 5 cleared, bit 4 set -> 0x00F0 & ~0x0020 | 0x8010 = 0x80D0.
  EXPECT_TRUE(wr32(bank, 0x20, 0x80308010));
  EXPECT_EQ(rd32(bank, 0x20), 0x80D0u);
  // A write that does not carry the enables (16-bit write of the low half, byte write) enables nothing.
  EXPECT_TRUE(wr(bank, 0x20, 0x0000, 2));
  EXPECT_TRUE(wr(bank, 0x20, 0x00, 1));
  EXPECT_EQ(rd32(bank, 0x20), 0x80D0u);
  // A 16-bit write of only the enables carries no data bits: nothing changes either.
  EXPECT_TRUE(wr(bank, 0x22, 0xFFFF, 2));
  EXPECT_EQ(rd32(bank, 0x20), 0x80D0u);
}

TEST(RegisterBank, WritableMaskProtectsTheOtherBitsUnderEveryPolicy) {
  RegisterBank bank("blk");
  RegisterDef rw = reg32("CTRL", 0x0, 0xA0000000);
  rw.writable_mask = 0x0000FF0F;
  bank.add(rw);
  RegisterDef w1c = reg32("ISR", 0x4, 0, Access::kWriteOneToClear);
  w1c.writable_mask = 0x3;
  bank.add(w1c);
  RegisterDef masked = reg32("MMODE", 0x8, 0, Access::kMasked);
  masked.writable_mask = 0x00FF;
  bank.add(masked);

  // RW: 0xA0000000 keeps bits outside 0xFF0F; 0xFFFFFFFF & 0xFF0F = 0xFF0F -> 0xA000FF0F.
  EXPECT_TRUE(wr32(bank, 0x0, 0xFFFFFFFF));
  EXPECT_EQ(rd32(bank, 0x0), 0xA000FF0Fu);
  // 0x12345678: writable bits take 0x5608, the rest keep 0xA0000000 -> 0xA0005608.
  EXPECT_TRUE(wr32(bank, 0x0, 0x12345678));
  EXPECT_EQ(rd32(bank, 0x0), 0xA0005608u);

  // W1C: only bits 1:0 can be cleared; 0xF & ~(0xF & 0x3) = 0xC.
  bank.at(0x4).set(0xF);
  EXPECT_TRUE(wr32(bank, 0x4, 0xF));
  EXPECT_EQ(rd32(bank, 0x4), 0xCu);

  // Masked: enables 0xFFFF, data 0xFFFF, writable 0x00FF -> 0x00FF.
  EXPECT_TRUE(wr32(bank, 0x8, 0xFFFFFFFF));
  EXPECT_EQ(rd32(bank, 0x8), 0x00FFu);
}

// ---------------------------------------------------------------------------------------------------------------------
// 64-bit registers and spanning accesses

TEST(RegisterBank, SixtyFourBitRegisterAccessedWholeAndAsTwoHalves) {
  RegisterBank bank("blk");
  bank.add(reg64("TIMESTAMP", 0x100, 0x1122334455667788ULL));
  EXPECT_EQ(rd64(bank, 0x100), 0x1122334455667788ULL);
  EXPECT_EQ(rd32(bank, 0x100), 0x55667788u);  // low half
  EXPECT_EQ(rd32(bank, 0x104), 0x11223344u);  // high half

  EXPECT_TRUE(wr64(bank, 0x100, 0xCAFEBABEDEADBEEFULL));
  EXPECT_EQ(bank.at(0x100).value(), 0xCAFEBABEDEADBEEFULL);
  // Writing the high half leaves the low half alone, and vice versa.
  EXPECT_TRUE(wr32(bank, 0x104, 0x01020304));
  EXPECT_EQ(rd64(bank, 0x100), 0x01020304DEADBEEFULL);
  EXPECT_TRUE(wr32(bank, 0x100, 0xA0B0C0D0));
  EXPECT_EQ(rd64(bank, 0x100), 0x01020304A0B0C0D0ULL);
  // The register is found only by its first offset; the high half is not a register of its own.
  EXPECT_NE(bank.find(0x100), nullptr);
  EXPECT_EQ(bank.find(0x104), nullptr);
  EXPECT_EQ(bank.at(0x100).size_bytes(), 8u);
  EXPECT_EQ(bank.at(0x100).width_mask(), ~0ULL);
}

TEST(RegisterBank, SixtyFourBitWriteOneToClearHighHalf) {
  RegisterBank bank("blk");
  bank.add(reg64("ISR64", 0x0, 0, Access::kWriteOneToClear));
  bank.at(0x0).set(0xFFFF0000FFFF0000ULL);
  // Writing 1s to the high half at +4 clears bits 63:48 only: 0x0000_0000_FFFF_0000.
  EXPECT_TRUE(wr32(bank, 0x4, 0xFFFF0000));
  EXPECT_EQ(bank.at(0x0).value(), 0x00000000FFFF0000ULL);
}

TEST(RegisterBank, AlternatingSingleRegisterAccessesEachReachTheirOwnRegister) {
  // Whole-register accesses take a path that remembers the register found last: switching registers, switching
  // width, and a dword access at a qword register's offset (not the whole register) must each find the right bytes.
  RegisterBank bank("blk");
  bank.add(reg32("A", 0x10, 0xAAAA0000));
  bank.add(reg32("B", 0x14, 0xBBBB0000));
  bank.add(reg64("Q", 0x18, 0x1111222233334444ULL));
  EXPECT_EQ(rd32(bank, 0x10), 0xAAAA0000u);
  EXPECT_EQ(rd32(bank, 0x14), 0xBBBB0000u);
  wr32(bank, 0x10, 0xA0A0A0A0);
  EXPECT_EQ(rd32(bank, 0x14), 0xBBBB0000u);
  EXPECT_EQ(rd32(bank, 0x10), 0xA0A0A0A0u);
  EXPECT_EQ(rd64(bank, 0x18), 0x1111222233334444ULL);
  EXPECT_EQ(rd32(bank, 0x18), 0x33334444u);  // low half of Q
  EXPECT_EQ(rd32(bank, 0x1C), 0x11112222u);  // high half of Q
  wr32(bank, 0x18, 0x55556666);
  EXPECT_EQ(rd64(bank, 0x18), 0x1111222255556666ULL);
  bool complete = true;
  EXPECT_EQ(rd32(bank, 0x20, &complete), 0u);  // nothing there, after a hit on Q
  EXPECT_FALSE(complete);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "0x20").size(), 1u);
  EXPECT_EQ(rd32(bank, 0x14), 0xBBBB0000u);
}

TEST(RegisterBank, AccessSpanningTwoAdjacentRegisters) {
  RegisterBank bank("blk");
  bank.add(reg32("LO", 0x10, 0x33221100));
  bank.add(reg32("HI", 0x14, 0x77665544));
  // One 8-byte read covers both registers, little-endian.
  bool complete = false;
  EXPECT_EQ(rd64(bank, 0x10, &complete), 0x7766554433221100ULL);
  EXPECT_TRUE(complete);
  // A 4-byte read at 0x12 takes bytes 2,3 of LO and bytes 0,1 of HI: 0x5544_3322.
  EXPECT_EQ(rd32(bank, 0x12, &complete), 0x55443322u);
  EXPECT_TRUE(complete);
  // An 8-byte write updates both.
  EXPECT_TRUE(wr64(bank, 0x10, 0x89ABCDEF01234567ULL));
  EXPECT_EQ(bank.at(0x10).value(), 0x01234567u);
  EXPECT_EQ(bank.at(0x14).value(), 0x89ABCDEFu);
  // A 4-byte write at 0x12 of 0xAABBCCDD: LO bytes 2,3 = DD,CC -> 0xCCDD4567; HI bytes 0,1 = BB,AA -> 0x89ABAABB.
  EXPECT_TRUE(wr32(bank, 0x12, 0xAABBCCDD));
  EXPECT_EQ(bank.at(0x10).value(), 0xCCDD4567u);
  EXPECT_EQ(bank.at(0x14).value(), 0x89ABAABBu);
}

TEST(RegisterBank, SpanningWriteAppliesEachRegistersOwnPolicy) {
  RegisterBank bank("blk");
  bank.add(reg32("RW", 0x0, 0));
  bank.add(reg32("RO", 0x4, 0x5555, Access::kReadOnly));
  bank.add(reg32("W1C", 0x8, 0, Access::kWriteOneToClear));
  bank.at(0x8).set(0xFF);
  unsigned char data[12];
  std::memset(data, 0x0F, sizeof data);
  EXPECT_TRUE(bank.write(0x0, data, 12));
  EXPECT_EQ(bank.at(0x0).value(), 0x0F0F0F0Fu);  // RW took it
  EXPECT_EQ(bank.at(0x4).value(), 0x5555u);      // RO ignored it
  EXPECT_EQ(bank.at(0x8).value(), 0xF0u);        // 0xFF & ~0x0F
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read-only register RO").size(), 1u);
}

// ---------------------------------------------------------------------------------------------------------------------
// Unmapped accesses

TEST(RegisterBank, UnmappedReadReturnsZeroAndWarnsNamingBlockAndOffset) {
  RegisterBank bank("soc.gen");
  bank.add(reg32("A", 0x0, 0xFFFFFFFF));
  bool complete = true;
  EXPECT_EQ(rd32(bank, 0x40, &complete), 0u);
  EXPECT_FALSE(complete);
  auto reports = test::take_reports(sc_core::SC_WARNING, "unmapped register offset 0x40");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].source, "soc.gen");
  EXPECT_THAT(reports[0].message, HasSubstr("read"));
  EXPECT_THAT(reports[0].message, HasSubstr("returns 0"));
}

TEST(RegisterBank, UnmappedWriteIsIgnoredAndWarnsNamingBlockAndOffset) {
  RegisterBank bank("soc.gen");
  bank.add(reg32("A", 0x0, 0x1));
  EXPECT_FALSE(wr32(bank, 0x7C, 0xFFFFFFFF));
  EXPECT_EQ(bank.at(0x0).value(), 0x1u);
  auto reports = test::take_reports(sc_core::SC_WARNING, "write of unmapped register offset 0x7c");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].source, "soc.gen");
  EXPECT_THAT(reports[0].message, HasSubstr("ignored"));
}

TEST(RegisterBank, PartlyMappedAccessServesTheMappedBytesAndWarnsOnce) {
  RegisterBank bank("blk");
  bank.add(reg32("ONLY", 0x14, 0xA1B2C3D4));
  // 8 bytes at 0x14: 0x14..0x17 is ONLY, 0x18..0x1B is a hole that reads 0.
  bool complete = true;
  EXPECT_EQ(rd64(bank, 0x14, &complete), 0x00000000A1B2C3D4ULL);
  EXPECT_FALSE(complete);
  // 8 bytes at 0x10: the hole comes first.
  EXPECT_EQ(rd64(bank, 0x10, &complete), 0xA1B2C3D400000000ULL);
  EXPECT_FALSE(complete);
  // A write across the hole still reaches the mapped register.
  EXPECT_FALSE(wr64(bank, 0x10, 0x1122334455667788ULL));
  EXPECT_EQ(bank.at(0x14).value(), 0x11223344u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read of unmapped register offset 0x14 (8 bytes)").size(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "read of unmapped register offset 0x10 (8 bytes)").size(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "write of unmapped register offset 0x10 (8 bytes)").size(), 1u);
}

// ---------------------------------------------------------------------------------------------------------------------
// Hooks

TEST(RegisterBank, WriteHookRunsAfterThePolicyAndSeesOldAndNewValues) {
  RegisterBank bank("blk");
  struct Call {
    std::uint64_t old_value, written, new_value;
  };
  std::vector<Call> calls;
  bank.add(reg32("IIR", 0x0, 0, Access::kWriteOneToClear))
      .on_write([&](core::Register& r, std::uint64_t old, std::uint64_t w) {
        calls.push_back({old, w, r.value()});
      });
  bank.at(0x0).set(0xFF);
  EXPECT_TRUE(wr32(bank, 0x0, 0x0F));  // W1C: 0xFF -> 0xF0
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].old_value, 0xFFu);
  EXPECT_EQ(calls[0].written, 0x0Fu);
  EXPECT_EQ(calls[0].new_value, 0xF0u);  // the hook runs after the policy is applied

  // A byte write at +1 passes the data in register position: 0xAB at byte 1 = 0xAB00.
  EXPECT_TRUE(wr(bank, 0x1, 0xAB, 1));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].old_value, 0xF0u);
  EXPECT_EQ(calls[1].written, 0xAB00u);
  EXPECT_EQ(calls[1].new_value, 0xF0u);  // bits 15:8 were already clear
}

TEST(RegisterBank, WriteHookCanImplementSideEffectsOnOtherRegisters) {
  RegisterBank bank("blk");
  core::Register& status = bank.add(reg32("STATUS", 0x4, 0, Access::kReadOnly));
  bank.add(reg32("CMD", 0x0)).on_write([&](core::Register& r, std::uint64_t, std::uint64_t) {
    if (r.value() & 1) status.set_bits(0x80000000);
  });
  EXPECT_TRUE(wr32(bank, 0x0, 0x2));
  EXPECT_EQ(rd32(bank, 0x4), 0u);
  EXPECT_TRUE(wr32(bank, 0x0, 0x3));
  EXPECT_EQ(rd32(bank, 0x4), 0x80000000u);
}

TEST(RegisterBank, ReadHookComputesTheValueFromTheStoredOne) {
  RegisterBank bank("blk");
  int calls = 0;
  bank.add(reg32("COUNTER", 0x0, 100)).on_read([&](core::Register&, std::uint64_t stored) {
    ++calls;
    return stored + 0x100000000ULL + calls;  // bits above the width are masked off
  });
  EXPECT_EQ(rd32(bank, 0x0), 101u);  // 100 + 1
  EXPECT_EQ(rd32(bank, 0x0), 102u);  // 100 + 2
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(bank.at(0x0).value(), 100u);  // stored value untouched
  // A 2-byte read of the upper half still runs the hook once: (100 + 3) >> 16 = 0.
  unsigned char b[2] = {0xEE, 0xEE};
  EXPECT_TRUE(bank.read(0x2, b, 2));
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Debug accesses, reset, fields

TEST(RegisterBank, DebugAccessesBypassPoliciesAndHooks) {
  RegisterBank bank("blk");
  int hook_calls = 0;
  bank.add(reg32("RO", 0x0, 0x1234, Access::kReadOnly)).on_write([&](core::Register&, std::uint64_t, std::uint64_t) {
    ++hook_calls;
  });
  bank.add(reg32("WO", 0x4, 0x0, Access::kWriteOnly)).on_read([&](core::Register&, std::uint64_t) {
    ++hook_calls;
    return 0ULL;
  });
  bank.add(reg32("W1C", 0x8, 0xF0, Access::kWriteOneToClear))
      .on_write([&](core::Register&, std::uint64_t, std::uint64_t) { ++hook_calls; });
  bank.add(reg32("CNT", 0xC, 7)).on_read([&](core::Register&, std::uint64_t s) {
    ++hook_calls;
    return s * 2;
  });

  const std::uint32_t ro = 0xAAAA5555, wo = 0x600DF00D, w1c = 0x0F;
  EXPECT_TRUE(bank.debug_write(0x0, reinterpret_cast<const unsigned char*>(&ro), 4));
  EXPECT_TRUE(bank.debug_write(0x4, reinterpret_cast<const unsigned char*>(&wo), 4));
  EXPECT_TRUE(bank.debug_write(0x8, reinterpret_cast<const unsigned char*>(&w1c), 4));
  EXPECT_EQ(bank.at(0x0).value(), 0xAAAA5555u);  // read-only written anyway
  EXPECT_EQ(bank.at(0x8).value(), 0x0Fu);        // stored directly, not "cleared"

  std::uint32_t v[4] = {};
  EXPECT_TRUE(bank.debug_read(0x0, reinterpret_cast<unsigned char*>(v), 16));
  EXPECT_EQ(v[0], 0xAAAA5555u);
  EXPECT_EQ(v[1], 0x600DF00Du);  // write-only register shows its stored value
  EXPECT_EQ(v[2], 0x0Fu);
  EXPECT_EQ(v[3], 7u);  // stored value, not the hook's 14
  EXPECT_EQ(hook_calls, 0);

  // A 1-byte debug write at +1 changes only byte 1: 0x0F -> 0x990F.
  const unsigned char byte = 0x99;
  EXPECT_TRUE(bank.debug_write(0x9, &byte, 1));
  EXPECT_EQ(bank.at(0x8).value(), 0x990Fu);

  // Debug accesses to holes report completeness but never warn.
  std::uint32_t hole = 0xFFFFFFFF;
  EXPECT_FALSE(bank.debug_read(0x40, reinterpret_cast<unsigned char*>(&hole), 4));
  EXPECT_EQ(hole, 0u);
  EXPECT_FALSE(bank.debug_write(0x40, reinterpret_cast<const unsigned char*>(&ro), 4));
  EXPECT_EQ(hook_calls, 0);
  EXPECT_TRUE(core::ReportLog::records().empty());
}

TEST(RegisterBank, ResetRestoresEveryResetValue) {
  RegisterBank bank("blk");
  bank.add(reg32("A", 0x0, 0x11));
  bank.add(reg32("B", 0x4, 0x22, Access::kReadOnly));
  bank.add(reg64("C", 0x8, 0x3333333344444444ULL));
  bank.add(reg32("D", 0x10, 0x1FFFFFFFFULL));  // reset wider than the register: truncated to 0xFFFFFFFF
  EXPECT_EQ(bank.at(0x10).value(), 0xFFFFFFFFu);
  wr32(bank, 0x0, 0xAA);
  bank.at(0x4).set(0xBB);
  wr64(bank, 0x8, 0);
  wr32(bank, 0x10, 0);
  EXPECT_EQ(bank.at(0x0).value(), 0xAAu);
  bank.reset();
  EXPECT_EQ(bank.at(0x0).value(), 0x11u);
  EXPECT_EQ(bank.at(0x4).value(), 0x22u);
  EXPECT_EQ(bank.at(0x8).value(), 0x3333333344444444ULL);
  EXPECT_EQ(bank.at(0x10).value(), 0xFFFFFFFFu);
}

TEST(RegisterBank, FieldsLookupAndSetHelpers) {
  RegisterBank bank("blk");
  RegisterDef d = reg32("CFG", 0x0, 0xABCD1234);
  d.fields = {{"LOW", 0, 8, "low byte"}, {"MID", 8, 12, ""}, {"TOP", 28, 4, ""}};
  core::Register& r = bank.add(d);
  EXPECT_EQ(r.field("LOW"), 0x34u);   // bits 7:0
  EXPECT_EQ(r.field("MID"), 0xD12u);  // bits 19:8 of 0xABCD1234 = 0xCD12 & 0xFFF
  EXPECT_EQ(r.field("TOP"), 0xAu);    // bits 31:28
  EXPECT_THROW(r.field("NOPE"), std::out_of_range);
  r.set(0x1FFFFFFFFULL);  // truncated to the width
  EXPECT_EQ(r.value(), 0xFFFFFFFFu);
  r.clear_bits(0xF0);
  EXPECT_EQ(r.value(), 0xFFFFFF0Fu);
  r.set_bits(0x10);
  EXPECT_EQ(r.value(), 0xFFFFFF1Fu);
  EXPECT_EQ(&bank.by_name("CFG"), &r);
  EXPECT_EQ(&bank.at(0x0), &r);
  EXPECT_THROW(bank.by_name("NOPE"), std::out_of_range);
  EXPECT_THROW(bank.at(0x4), std::out_of_range);
  EXPECT_EQ(bank.find(0x4), nullptr);
}

// ---------------------------------------------------------------------------------------------------------------------
// dump() and describe()

TEST(RegisterBank, DumpListsRegistersInOffsetOrderWithDecodedFields) {
  RegisterBank bank("blk");
  RegisterDef ctrl = reg32("CTRL", 0x8, 0x00000305);
  ctrl.fields = {{"EN", 0, 1, ""}, {"MODE", 8, 2, ""}};
  bank.add(ctrl);
  bank.add(reg32("IDENT", 0x0, 0x02443356, Access::kReadOnly));  // added after CTRL, dumped first
  bank.add(reg64("BASE", 0x10, 0x100000000ULL));
  std::ostringstream out;
  bank.dump(out);
  // Names are left-justified in 24 columns.
  const std::string expected =
      "IDENT                    @0x0 = 0x2443356\n"
      "CTRL                     @0x8 = 0x305 EN=0x1 MODE=0x3\n"
      "BASE                     @0x10 = 0x100000000\n";
  EXPECT_EQ(out.str(), expected);
}

TEST(RegisterBank, DescribeGivesTheTableAsJson) {
  RegisterBank bank("blk");
  RegisterDef mode = reg32("MODE", 0x20, 0x10, Access::kMasked);
  mode.description = "mode select";
  mode.fields = {{"SEL", 4, 2, "selector"}};
  bank.add(mode);
  bank.add(reg64("TS", 0x8, 0, Access::kReadOnly));
  bank.add(reg32("ISR", 0x0, 0, Access::kWriteOneToClear));
  bank.add(reg32("DB", 0x4, 0, Access::kWriteOnly));
  bank.add(reg32("RW", 0x10, 0xFF));
  const nlohmann::json j = bank.describe();
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 5u);
  // Sorted by offset: ISR 0x0, DB 0x4, TS 0x8, RW 0x10, MODE 0x20.
  EXPECT_EQ(j[0]["name"], "ISR");
  EXPECT_EQ(j[0]["access"], "w1c");
  EXPECT_EQ(j[1]["name"], "DB");
  EXPECT_EQ(j[1]["access"], "wo");
  EXPECT_EQ(j[2]["name"], "TS");
  EXPECT_EQ(j[2]["width"], 64);
  EXPECT_EQ(j[2]["access"], "ro");
  EXPECT_EQ(j[3]["name"], "RW");
  EXPECT_EQ(j[3]["access"], "rw");
  EXPECT_EQ(j[3]["reset"], "0xff");
  const nlohmann::json expected_mode = {
      {"name", "MODE"},
      {"offset", "0x20"},
      {"width", 32},
      {"reset", "0x10"},
      {"access", "masked"},
      {"description", "mode select"},
      {"fields", nlohmann::json::array({{{"name", "SEL"}, {"lsb", 4}, {"width", 2}, {"description", "selector"}}})}};
  EXPECT_EQ(j[4], expected_mode);
}

// ---------------------------------------------------------------------------------------------------------------------
// Construction errors

TEST(RegisterBank, MisalignedOverlappingAndMisSizedDeclarationsThrowLogicError) {
  RegisterBank bank("blk");
  bank.add(reg64("WIDE", 0x10));
  bank.add(reg32("NEXT", 0x18));
  // Not dword aligned.
  try {
    bank.add(reg32("ODD", 0x2));
    ADD_FAILURE() << "misaligned register accepted";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("ODD"));
    EXPECT_THAT(e.what(), HasSubstr("aligned"));
  }
  // Overlaps the high half of WIDE (0x10..0x17).
  try {
    bank.add(reg32("INSIDE", 0x14));
    ADD_FAILURE() << "overlapping register accepted";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("INSIDE overlaps WIDE"));
  }
  // A 64-bit register at 0xC would cover 0xC..0x13 and overlap WIDE.
  EXPECT_THROW(bank.add(reg64("STRADDLE", 0xC)), std::logic_error);
  // Same offset as NEXT.
  EXPECT_THROW(bank.add(reg32("DUP", 0x18)), std::logic_error);
  // Masked registers must be 32 bits wide.
  try {
    bank.add(reg64("MASKED64", 0x40, 0, Access::kMasked));
    ADD_FAILURE() << "64-bit masked register accepted";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("MASKED64"));
  }
  // Only 32 and 64 bits.
  RegisterDef narrow = reg32("NARROW", 0x50);
  narrow.width_bits = 16;
  EXPECT_THROW(bank.add(narrow), std::logic_error);
  // Nothing was added by the failed declarations; the neighbours 0xC and 0x1C are still free.
  EXPECT_EQ(bank.registers().size(), 2u);
  EXPECT_NO_THROW(bank.add(reg32("BEFORE", 0xC)));
  EXPECT_NO_THROW(bank.add(reg32("AFTER", 0x1C)));
  EXPECT_EQ(bank.registers().size(), 4u);
}

// ---------------------------------------------------------------------------------------------------------------------
// RegisterBlock behind a bus

TEST(RegisterBlock, TimedAccessesThroughABusAreOkAndTakeBlockPlusHopLatency) {
  core::set_global_quantum(1'000'000'000);  // 1 ms: only the block makes the initiator wait
  core::Bus bus("bus");                     // 1 GHz: 1 cycle = 1 ns
  core::Initiator cpu("cpu");
  // 250 MHz = 4 ns per cycle; 3 cycles per access = 12 ns.
  core::RegisterBlock blk("blk", 0x100, core::ClockDomain("blk_clk", 250'000'000), 3);
  blk.regs().add(reg32("SCRATCH", 0x0, 0x5A5A5A5A));
  blk.regs().add(reg32("ID", 0x4, 0xC0FFEE, Access::kReadOnly));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(blk.socket, "blk", 0x4000, 0x100, {2, 0});  // 2 hop cycles = 2 ns, no contention
  test::run_thread([&] {
    tlm::tlm_response_status s = tlm::TLM_INCOMPLETE_RESPONSE;
    EXPECT_EQ(cpu.read_value<std::uint32_t>(0x4000, &s), 0x5A5A5A5Au);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    // Each access takes effect at the initiator's local time: the block waits it out, so the kernel's time moves
    // and the offset is zero after each access.
    EXPECT_EQ(cpu.local_time().now(), 14'000u);  // 12 ns block + 2 ns hop
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(14, SC_NS));
    EXPECT_EQ(cpu.write_value<std::uint32_t>(0x4000, 0x12345678u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.local_time().now(), 28'000u);
    EXPECT_EQ(cpu.read_value<std::uint32_t>(0x4000), 0x12345678u);
    EXPECT_EQ(cpu.read_value<std::uint32_t>(0x4004), 0xC0FFEEu);
    EXPECT_EQ(cpu.local_time().now(), 56'000u);  // 4 accesses x 14 ns
    // An 8-byte access spanning both registers is one transaction: 14 ns.
    EXPECT_EQ(cpu.read_value<std::uint64_t>(0x4000), 0x00C0FFEE12345678ULL);
    EXPECT_EQ(cpu.local_time().now(), 70'000u);
    EXPECT_EQ(cpu.local_time().offset_ps(), 0u);
    cpu.sync();
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(70, SC_NS));
  });
  EXPECT_EQ(blk.regs().at(0x0).value(), 0x12345678u);
  EXPECT_EQ(core::stats().counter_value("blk.mmio_reads"), 4u);
  EXPECT_EQ(core::stats().counter_value("blk.mmio_writes"), 1u);
  EXPECT_EQ(core::stats().counter_value("blk.unmapped_accesses"), 0u);
}

TEST(RegisterBlock, AccessesOutsideTheBlockAreAddressErrors) {
  core::set_global_quantum(1'000'000'000);
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::RegisterBlock blk("blk", 0x100, core::ClockDomain("blk_clk", 1'000'000'000), 5);
  blk.regs().add(reg32("R0", 0x0, 0x1));
  bus.attach_initiator(cpu.socket, "cpu");
  // The bus window (4 KiB) is larger than the block (256 bytes), so the block itself sees out-of-range offsets.
  bus.attach_target(blk.socket, "blk", 0x10000, 0x1000, {1, 0});
  test::run_thread([&] {
    std::uint32_t v = 0xFFFFFFFF;
    // Inside the bus window, beyond the block: the block answers with an address error.
    EXPECT_EQ(cpu.read(0x10200, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Straddles the end of the block (0xFC..0x103).
    const std::uint64_t v64 = 0xFFFFFFFFFFFFFFFF;
    EXPECT_EQ(cpu.write(0x100FC, &v64, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Outside every bus window: the bus answers.
    EXPECT_EQ(cpu.read(0x20000, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Still fine inside.
    EXPECT_EQ(cpu.read(0x10000, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0x1u);
  });
  EXPECT_EQ(core::stats().counter_value("blk.mmio_reads"), 1u);  // only the good access reached the registers
  EXPECT_EQ(core::stats().counter_value("blk.mmio_writes"), 0u);
  EXPECT_EQ(core::stats().counter_value("cpu.errors"), 3u);
  EXPECT_EQ(bus.address_errors(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0x20000").size(), 1u);
}

TEST(RegisterBlock, UnmappedOffsetInsideTheBlockReadsZeroWarnsAndIsCounted) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::RegisterBlock blk("gen", 0x1000, core::ClockDomain("gen_clk", 1'000'000'000), 1);
  blk.regs().add(reg32("R0", 0x0, 0x1));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(blk.socket, "gen", 0xE0000000, 0x1000, {});
  test::run_thread([&] {
    tlm::tlm_response_status s = tlm::TLM_INCOMPLETE_RESPONSE;
    EXPECT_EQ(cpu.read_value<std::uint32_t>(0xE0000800, &s), 0u);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);  // an unmapped register is not a bus error
    EXPECT_EQ(cpu.write_value<std::uint32_t>(0xE0000804, 7), tlm::TLM_OK_RESPONSE);
  });
  EXPECT_EQ(core::stats().counter_value("gen.unmapped_accesses"), 2u);
  auto r = test::take_reports(sc_core::SC_WARNING, "read of unmapped register offset 0x800");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].source, "gen");
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "write of unmapped register offset 0x804").size(), 1u);
}

TEST(RegisterBlock, DebugTransportBypassesPolicyHooksAndTime) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::RegisterBlock blk("blk", 0x100, core::ClockDomain("blk_clk", 100'000'000), 10);
  int hooks = 0;
  blk.regs().add(reg32("RO", 0x0, 0xAB, Access::kReadOnly)).on_read([&](core::Register&, std::uint64_t s) {
    ++hooks;
    return s;
  });
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(blk.socket, "blk", 0x0, 0x100, {});
  test::run_thread([&] {
    const std::uint32_t w = 0x77;
    EXPECT_EQ(cpu.debug_write(0x0, &w, 4), 4u);
    std::uint32_t v = 0;
    EXPECT_EQ(cpu.debug_read(0x0, &v, 4), 4u);
    EXPECT_EQ(v, 0x77u);
    EXPECT_EQ(cpu.debug_read(0xFE, &v, 4), 0u);  // crosses the end of the block
    EXPECT_EQ(cpu.local_time().offset_ps(), 0u);
  });
  EXPECT_EQ(hooks, 0);
  EXPECT_EQ(core::stats().counter_value("blk.mmio_reads"), 0u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "crosses the end of window 'blk'").size(), 1u);
}

// An initiator bound straight to the block's socket, for the calls the bus never makes.
struct DirectInitiator : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
  tlm::tlm_initiator_socket<> socket{"socket"};
  explicit DirectInitiator(sc_core::sc_module_name name) : sc_module(name) { socket.bind(*this); }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    ADD_FAILURE() << "the block answered on the backward path";
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

TEST(RegisterBlock, NonBlockingRequestCompletesAtOnceAndNoDmiIsGranted) {
  // 100 MHz, 2 cycles per access: 20 ns.
  core::RegisterBlock blk("blk", 0x100, core::ClockDomain("blk_clk", 100'000'000), 2);
  blk.regs().add(reg32("SCRATCH", 0x8, 0x0));
  DirectInitiator cpu("cpu");
  cpu.socket.bind(blk.socket);
  test::run_thread([&] {
    std::uint32_t v = 0x600DF00D;
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(0x8);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    p.set_data_length(4);
    p.set_streaming_width(4);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(cpu.socket->nb_transport_fw(p, phase, delay), tlm::TLM_COMPLETED);
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    EXPECT_EQ(p.get_response_status(), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(delay, sc_time(20, SC_NS));
    // A phase of a handshake the block does not run is a bug of the initiator, a model block: a SystemC error, which
    // throws by default (guest mistakes never do), and nothing is accessed.
    v = 0xBAD;
    phase = tlm::END_RESP;
    try {
      cpu.socket->nb_transport_fw(p, phase, delay);
      ADD_FAILURE() << "a model error did not throw";
    } catch (const sc_core::sc_report& e) {
      EXPECT_EQ(e.get_severity(), sc_core::SC_ERROR);
      EXPECT_STREQ(e.get_msg_type(), "blk");
    }
    tlm::tlm_dmi dmi;
    p.set_command(tlm::TLM_READ_COMMAND);
    EXPECT_FALSE(cpu.socket->get_direct_mem_ptr(p, dmi));
    EXPECT_EQ(dmi.get_start_address(), 0u);  // denied for the whole block
    EXPECT_EQ(dmi.get_end_address(), 0xFFu);
  });
  EXPECT_EQ(blk.regs().at(0x8).value(), 0x600DF00Du);
  EXPECT_EQ(core::stats().counter_value("blk.mmio_writes"), 1u);
  const auto bugs = test::take_reports(sc_core::SC_ERROR, "only BEGIN_REQ is expected");
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_FALSE(bugs[0].guest());
}
