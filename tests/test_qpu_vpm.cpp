// The VPM's 8- and 16-bit modes (vc4::qpu::VpmPort over a Vpm and a small memory): generic reads and writes,
// horizontal and vertical, packed and laned, and the VCD's loads and the VDW's stores of 8- and 16-bit elements,
// every expected VPM word and memory byte worked out by hand from the layout tlm/vc4/qpu/vpm.cpp states (and its
// sources); then the setups the model refuses, each naming its value.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/vc4/qpu/vpm.h"

namespace gpuvp::vc4::qpu {
namespace {

constexpr std::uint32_t kBase = 0x10000;     // the fake memory's bus address
constexpr std::uint32_t kFill = 0x5A5A5A5A;  // what every VPM word holds before a test writes it
constexpr std::uint8_t kMemoryFill = 0xEE;

// 4 KiB of memory at kBase, filled with kMemoryFill.
class FakeMemory : public DmaMemory {
 public:
  bool read_memory(std::uint32_t address, void* data, std::uint32_t bytes) override {
    if (address < kBase || address - kBase + bytes > bytes_.size()) return false;
    std::memcpy(data, bytes_.data() + (address - kBase), bytes);
    return true;
  }
  bool write_memory(std::uint32_t address, const void* data, std::uint32_t bytes) override {
    if (address < kBase || address - kBase + bytes > bytes_.size()) return false;
    std::memcpy(bytes_.data() + (address - kBase), data, bytes);
    return true;
  }
  std::uint8_t& at(std::uint32_t address) { return bytes_.at(address - kBase); }
  // The bytes from `address` on.
  std::vector<std::uint8_t> bytes(std::uint32_t address, unsigned count) const {
    return {bytes_.begin() + (address - kBase), bytes_.begin() + (address - kBase + count)};
  }

 private:
  std::vector<std::uint8_t> bytes_ = std::vector<std::uint8_t>(0x1000, kMemoryFill);
};

Vpm filled_vpm() {
  Vpm vpm;
  vpm.words.fill(kFill);
  return vpm;
}

Vector elements(std::uint32_t base) {
  Vector v{};
  for (unsigned i = 0; i < 16; ++i) v[i] = base + i;
  return v;
}

// A generic setup: NUM (reads), STRIDE, HORIZ, LANED, SIZE, ADDR (guide tables 32/33).
std::uint32_t generic(unsigned num, unsigned stride, bool horizontal, bool laned, unsigned size, unsigned address) {
  return (num & 15U) << 20 | (stride & 63U) << 12 | (horizontal ? 1U : 0U) << 11 | (laned ? 1U : 0U) << 10 | size << 8 |
         address;
}
// VDW basic setup: UNITS, DEPTH, HORIZ, VPMBASE {Y, X}, MODEW (guide table 34).
std::uint32_t store_setup(unsigned units, unsigned depth, bool horizontal, unsigned y, unsigned x, unsigned modew) {
  return 0x80000000U | (units & 127U) << 23 | (depth & 127U) << 16 | (horizontal ? 1U : 0U) << 14 | (y << 4 | x) << 3 |
         modew;
}
// VDR basic setup: MODEW, MPITCH, ROWLEN, NROWS, VPITCH, VERT, {Y, X} (guide table 36).
std::uint32_t load_setup(unsigned modew, unsigned mpitch, unsigned row_length, unsigned rows, unsigned vpitch,
                         bool vertical, unsigned y, unsigned x) {
  return 0x80000000U | modew << 28 | mpitch << 24 | (row_length & 15U) << 20 | (rows & 15U) << 16 |
         (vpitch & 15U) << 12 | (vertical ? 1U : 0U) << 11 | y << 4 | x;
}

void write_ok(VpmPort& port, Vpm& vpm, std::uint32_t setup, const std::vector<Vector>& vectors) {
  std::string error;
  ASSERT_TRUE(port.write_setup(setup, error)) << error;
  for (const Vector& v : vectors) ASSERT_TRUE(port.write(vpm, v, error)) << error;
}
std::vector<Vector> read_ok(VpmPort& port, Vpm& vpm, std::uint32_t setup, unsigned count) {
  std::string error;
  EXPECT_TRUE(port.read_setup(setup, error)) << error;
  std::vector<Vector> result(count);
  for (Vector& v : result) EXPECT_TRUE(port.read(vpm, v, error)) << error;
  return result;
}

// ---- generic accesses ----

// Horizontal 8-bit packed, ADDR {Y, B}: a vector is the 16 bytes of words 4B..4B+3 of row Y, element i in byte i % 4
// of word 4B + i / 4 (the lowest byte first); the write keeps only each element's low byte and leaves the rest of
// the row. STRIDE 1 moves to the next sub-vector and from B = 3 on to the next row.
TEST(QpuVpm8And16, HorizontalPacked8BitVectorsAreQuarterRows) {
  Vpm vpm = filled_vpm();
  VpmPort port;
  Vector v = elements(0xFFFFFFA0);  // low bytes 0xa0..0xaf
  write_ok(port, vpm, generic(0, 1, true, false, 0, 3 << 2 | 2), {v, elements(0x1B0), elements(0xC0)});
  EXPECT_EQ(vpm.at(3, 8), 0xA3A2A1A0U);
  EXPECT_EQ(vpm.at(3, 9), 0xA7A6A5A4U);
  EXPECT_EQ(vpm.at(3, 10), 0xABAAA9A8U);
  EXPECT_EQ(vpm.at(3, 11), 0xAFAEADACU);
  EXPECT_EQ(vpm.at(3, 12), 0xB3B2B1B0U);  // the second vector: {3, 3}, low bytes of 0x1b0..
  EXPECT_EQ(vpm.at(3, 15), 0xBFBEBDBCU);
  EXPECT_EQ(vpm.at(4, 0), 0xC3C2C1C0U);  // the third: {4, 0}
  EXPECT_EQ(vpm.at(4, 3), 0xCFCECDCCU);
  EXPECT_EQ(vpm.at(3, 7), kFill);
  EXPECT_EQ(vpm.at(4, 4), kFill);
  // Read back from {3, 2}: zero-extended bytes.
  const std::vector<Vector> r = read_ok(port, vpm, generic(2, 1, true, false, 0, 3 << 2 | 2), 2);
  for (unsigned i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r[0][i], 0xA0 + i);
    EXPECT_EQ(r[1][i], 0xB0 + i);
  }
}

// Horizontal 16-bit packed, ADDR {Y, H}: words 8H..8H+7 of row Y, element i in half-word i % 2 of word 8H + i / 2;
// STRIDE 2 moves one row on (the Raspberry Pi's HEVC code: h16p, stride 2).
TEST(QpuVpm8And16, HorizontalPacked16BitVectorsAreHalfRows) {
  Vpm vpm = filled_vpm();
  VpmPort port;
  write_ok(port, vpm, generic(0, 2, true, false, 1, 5 << 1 | 1), {elements(0xDEAD1000), elements(0x8000)});
  EXPECT_EQ(vpm.at(5, 8), 0x10011000U);
  EXPECT_EQ(vpm.at(5, 11), 0x10071006U);
  EXPECT_EQ(vpm.at(5, 15), 0x100F100EU);
  EXPECT_EQ(vpm.at(5, 7), kFill);
  EXPECT_EQ(vpm.at(6, 8), 0x80018000U);  // {6, 1}
  EXPECT_EQ(vpm.at(6, 15), 0x800F800EU);
  EXPECT_EQ(vpm.at(6, 0), kFill);
  // 0x8000.. reads back zero-extended, not sign-extended.
  const std::vector<Vector> r = read_ok(port, vpm, generic(2, 2, true, false, 1, 5 << 1 | 1), 2);
  for (unsigned i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r[0][i], 0x1000 + i);
    EXPECT_EQ(r[1][i], 0x8000 + i);
  }
}

// Laned: element i in word i of row Y, in byte lane B or half-word lane H; the other lanes stay. STRIDE 1 from B = 1
// moves to lane 2 of the same words.
TEST(QpuVpm8And16, HorizontalLanedVectorsAreOneLaneOfARow) {
  Vpm vpm = filled_vpm();
  VpmPort port;
  write_ok(port, vpm, generic(0, 1, true, true, 0, 2 << 2 | 1), {elements(0x310), elements(0x20)});
  EXPECT_EQ(vpm.at(2, 0), 0x5A20105AU);
  EXPECT_EQ(vpm.at(2, 9), 0x5A29195AU);
  EXPECT_EQ(vpm.at(2, 15), 0x5A2F1F5AU);
  EXPECT_EQ(vpm.at(1, 0), kFill);
  EXPECT_EQ(vpm.at(3, 0), kFill);
  write_ok(port, vpm, generic(0, 1, true, true, 1, 7 << 1 | 1), {elements(0xABCD0000)});
  EXPECT_EQ(vpm.at(7, 0), 0x00005A5AU);
  EXPECT_EQ(vpm.at(7, 12), 0x000C5A5AU);
  const std::vector<Vector> r = read_ok(port, vpm, generic(1, 1, true, true, 0, 2 << 2 | 2), 1);
  const std::vector<Vector> h = read_ok(port, vpm, generic(1, 1, true, true, 1, 7 << 1 | 0), 1);
  for (unsigned i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r[0][i], 0x20 + i);
    EXPECT_EQ(h[0][i], 0x5A5AU);  // the low half-words the write left
  }
}

// Vertical, ADDR {Y[5:4], X, B} / {Y[5:4], X, H}: column X of the 16 rows from 16 * Y[5:4]; packed takes 4 (8-bit)
// or 8 (16-bit) successive rows, B or H choosing which, laned all 16 rows' lane B or H.
TEST(QpuVpm8And16, VerticalVectorsRunDownAColumn) {
  Vpm vpm = filled_vpm();
  VpmPort port;
  write_ok(port, vpm, generic(0, 1, false, false, 0, (16 | 5) << 2 | 2), {elements(0x40)});  // v8p(16, 5, 2)
  EXPECT_EQ(vpm.at(24, 5), 0x43424140U);
  EXPECT_EQ(vpm.at(25, 5), 0x47464544U);
  EXPECT_EQ(vpm.at(27, 5), 0x4F4E4D4CU);
  EXPECT_EQ(vpm.at(23, 5), kFill);
  EXPECT_EQ(vpm.at(28, 5), kFill);
  EXPECT_EQ(vpm.at(24, 6), kFill);
  write_ok(port, vpm, generic(0, 1, false, false, 1, (32 | 9) << 1 | 1), {elements(0x7700)});  // v16p(32, 9, 1)
  EXPECT_EQ(vpm.at(40, 9), 0x77017700U);
  EXPECT_EQ(vpm.at(47, 9), 0x770F770EU);
  EXPECT_EQ(vpm.at(39, 9), kFill);
  write_ok(port, vpm, generic(0, 1, false, true, 0, (48 | 15) << 2 | 3), {elements(0x60)});  // v8l(48, 15, 3)
  EXPECT_EQ(vpm.at(48, 15), 0x605A5A5AU);
  EXPECT_EQ(vpm.at(63, 15), 0x6F5A5A5AU);
  write_ok(port, vpm, generic(0, 1, false, true, 1, 2 << 1), {elements(0x9990)});  // v16l(0, 2, 0)
  EXPECT_EQ(vpm.at(0, 2), 0x5A5A9990U);
  EXPECT_EQ(vpm.at(15, 2), 0x5A5A999FU);
  EXPECT_EQ(vpm.at(16, 2), kFill);
  const std::vector<Vector> p8 = read_ok(port, vpm, generic(1, 1, false, false, 0, (16 | 5) << 2 | 2), 1);
  const std::vector<Vector> p16 = read_ok(port, vpm, generic(1, 1, false, false, 1, (32 | 9) << 1 | 1), 1);
  const std::vector<Vector> l8 = read_ok(port, vpm, generic(1, 1, false, true, 0, (48 | 15) << 2 | 3), 1);
  for (unsigned i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(p8[0][i], 0x40 + i);
    EXPECT_EQ(p16[0][i], 0x7700 + i);
    EXPECT_EQ(l8[0][i], 0x60 + i);
  }
}

// The 8-bit address is the whole ADDR byte: from 0xff ({63, 3}) STRIDE 1 wraps to 0 ({0, 0}). LANED is ignored for
// 32-bit elements.
TEST(QpuVpm8And16, AddressesWrapAndLanedIsIgnoredFor32Bit) {
  Vpm vpm = filled_vpm();
  VpmPort port;
  write_ok(port, vpm, generic(0, 1, true, false, 0, 0xFF), {elements(0x10), elements(0x20)});
  EXPECT_EQ(vpm.at(63, 12), 0x13121110U);
  EXPECT_EQ(vpm.at(0, 0), 0x23222120U);
  write_ok(port, vpm, generic(0, 1, true, true, 2, 9), {elements(0x12345600)});
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(vpm.at(9, i), 0x12345600 + i) << i;
}

// ---- DMA stores (VDW) ----

// Horizontal: DEPTH elements from MODEW's byte or half-word offset in word (Y, X), along the row; UNITS rows, each
// unit STRIDE bytes after the previous one's end. An odd length writes exactly its bytes.
TEST(QpuVpm8And16, HorizontalStoresTakeBytesOrHalfWordsFromTheirOffset) {
  Vpm vpm = filled_vpm();
  vpm.at(2, 4) = 0x44434241;
  vpm.at(2, 5) = 0x48474645;
  vpm.at(3, 4) = 0x54535251;
  vpm.at(3, 5) = 0x58575655;
  FakeMemory memory;
  VpmPort port;
  std::string error;
  ASSERT_TRUE(port.write_setup(store_setup(2, 5, true, 2, 4, 5), error)) << error;  // 8-bit, byte offset 1
  ASSERT_TRUE(port.write_setup(0xC0000000U | 3, error)) << error;
  ASSERT_TRUE(port.store(vpm, memory, kBase + 0x101, error)) << error;
  EXPECT_EQ(memory.bytes(kBase + 0x100, 15), (std::vector<std::uint8_t>{0xEE, 0x42, 0x43, 0x44, 0x45, 0x46, 0xEE, 0xEE,
                                                                        0xEE, 0x52, 0x53, 0x54, 0x55, 0x56, 0xEE}));
  EXPECT_EQ(port.last_transfer_words(), 3U);                                        // 10 bytes
  ASSERT_TRUE(port.write_setup(store_setup(1, 3, true, 2, 4, 3), error)) << error;  // 16-bit, half-word offset 1
  ASSERT_TRUE(port.write_setup(0xC0000000U, error)) << error;
  ASSERT_TRUE(port.store(vpm, memory, kBase + 0x200, error)) << error;
  EXPECT_EQ(memory.bytes(kBase + 0x200, 7), (std::vector<std::uint8_t>{0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0xEE}));
  EXPECT_EQ(port.last_transfer_words(), 2U);  // 6 bytes
}

// Vertical: unit u runs down column X + u from row Y, four bytes or two half-words a word, from MODEW's offset.
TEST(QpuVpm8And16, VerticalStoresRunDownColumnsPacked) {
  Vpm vpm = filled_vpm();
  vpm.at(10, 3) = 0x13121110;
  vpm.at(11, 3) = 0x17161514;
  vpm.at(10, 4) = 0x23222120;
  vpm.at(11, 4) = 0x27262524;
  FakeMemory memory;
  VpmPort port;
  std::string error;
  ASSERT_TRUE(port.write_setup(store_setup(2, 6, false, 10, 3, 6), error)) << error;  // 8-bit, byte offset 2
  ASSERT_TRUE(port.write_setup(0xC0000000U | 2, error)) << error;
  ASSERT_TRUE(port.store(vpm, memory, kBase, error)) << error;
  EXPECT_EQ(memory.bytes(kBase, 15), (std::vector<std::uint8_t>{0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0xEE, 0xEE, 0x22,
                                                                0x23, 0x24, 0x25, 0x26, 0x27, 0xEE}));
  ASSERT_TRUE(port.write_setup(store_setup(1, 3, false, 10, 3, 2), error)) << error;  // 16-bit from half-word 0
  ASSERT_TRUE(port.store(vpm, memory, kBase + 0x100, error)) << error;
  EXPECT_EQ(memory.bytes(kBase + 0x100, 7), (std::vector<std::uint8_t>{0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0xEE}));
}

// The Raspberry Pi's HEVC QPU code's pattern: h8p vectors at B, one row each (stride 4), stored by a VDW from
// X = 4B, and its 16-bit variant: h16p at H with stride 2, stored from X = 8H. Generic layout and DMA agree.
TEST(QpuVpm8And16, PackedVectorsStoreFromTheirFirstWord) {
  Vpm vpm = filled_vpm();
  FakeMemory memory;
  VpmPort port;
  std::string error;
  write_ok(port, vpm, generic(0, 4, true, false, 0, 16 << 2 | 2), {elements(0x100), elements(0x110)});
  ASSERT_TRUE(port.write_setup(store_setup(2, 6, true, 16, 10, 4), error)) << error;  // X = 4B + 2: elements 8-13
  ASSERT_TRUE(port.write_setup(0xC0000000U, error)) << error;
  ASSERT_TRUE(port.store(vpm, memory, kBase, error)) << error;
  EXPECT_EQ(memory.bytes(kBase, 13),
            (std::vector<std::uint8_t>{0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0xEE}));
  write_ok(port, vpm, generic(0, 2, true, false, 1, 20 << 1 | 1), {elements(0xA000), elements(0xB000)});
  ASSERT_TRUE(port.write_setup(store_setup(2, 3, true, 20, 8, 2), error)) << error;  // X = 8H
  ASSERT_TRUE(port.write_setup(0xC0000000U | 4, error)) << error;
  ASSERT_TRUE(port.store(vpm, memory, kBase + 0x100, error)) << error;
  EXPECT_EQ(memory.bytes(kBase + 0x100, 17),
            (std::vector<std::uint8_t>{0x00, 0xA0, 0x01, 0xA0, 0x02, 0xA0, 0xEE, 0xEE, 0xEE, 0xEE, 0x00, 0xB0, 0x01,
                                       0xB0, 0x02, 0xB0, 0xEE}));
}

// ---- DMA loads (VCD) ----

// Horizontal 8-bit: row r goes to the quarter-row vector VPITCH vectors on, the first the one {Y, B} selects:
// {4, 2} = row 4 bytes 32..36, then {5, 1} = row 5 bytes 16..20, then {6, 0}; the rest of the words stays.
TEST(QpuVpm8And16, HorizontalLoadsFill8BitVectorsVpitchApart) {
  Vpm vpm = filled_vpm();
  FakeMemory memory;
  for (unsigned k = 0; k < 0x60; ++k) memory.at(kBase + k) = static_cast<std::uint8_t>(k);
  VpmPort port;
  std::string error;
  ASSERT_TRUE(port.read_setup(load_setup(6, 2, 5, 3, 3, false, 4, 0), error)) << error;  // B = 2, 32-byte pitch
  ASSERT_TRUE(port.load(vpm, memory, kBase, error)) << error;
  EXPECT_EQ(vpm.at(4, 8), 0x03020100U);
  EXPECT_EQ(vpm.at(4, 9), 0x5A5A5A04U);
  EXPECT_EQ(vpm.at(4, 7), kFill);
  EXPECT_EQ(vpm.at(5, 4), 0x23222120U);
  EXPECT_EQ(vpm.at(5, 5), 0x5A5A5A24U);
  EXPECT_EQ(vpm.at(6, 0), 0x43424140U);
  EXPECT_EQ(vpm.at(6, 1), 0x5A5A5A44U);
  EXPECT_EQ(vpm.at(6, 2), kFill);
  EXPECT_EQ(port.last_transfer_words(), 4U);  // 15 bytes
}

// Horizontal 16-bit with the extended pitch (10 bytes): {7, 1} = row 7 bytes 32..37, then {8, 0}; a packed 16-bit
// read of those vectors returns the half-words zero-extended.
TEST(QpuVpm8And16, HorizontalLoadsFill16BitVectorsThatReadsReturn) {
  Vpm vpm = filled_vpm();
  FakeMemory memory;
  const std::uint8_t row0[] = {0x01, 0x80, 0x02, 0x80, 0x03, 0x80};
  const std::uint8_t row1[] = {0x11, 0x11, 0x22, 0x22, 0x33, 0x33};
  std::memcpy(&memory.at(kBase + 0x40), row0, 6);
  std::memcpy(&memory.at(kBase + 0x4A), row1, 6);
  VpmPort port;
  std::string error;
  ASSERT_TRUE(port.read_setup(0x90000000U | 10, error)) << error;
  ASSERT_TRUE(port.read_setup(load_setup(3, 0, 3, 2, 1, false, 7, 0), error)) << error;  // H = 1
  ASSERT_TRUE(port.load(vpm, memory, kBase + 0x40, error)) << error;
  EXPECT_EQ(vpm.at(7, 8), 0x80028001U);
  EXPECT_EQ(vpm.at(7, 9), 0x5A5A8003U);
  EXPECT_EQ(vpm.at(8, 0), 0x22221111U);
  EXPECT_EQ(vpm.at(8, 1), 0x5A5A3333U);
  EXPECT_EQ(port.last_transfer_words(), 3U);  // 12 bytes
  const std::vector<Vector> r = read_ok(port, vpm, generic(2, 1, true, false, 1, 7 << 1 | 1), 2);
  EXPECT_EQ(r[0][0], 0x8001U);
  EXPECT_EQ(r[0][2], 0x8003U);
  EXPECT_EQ(r[0][3], 0x5A5AU);
  EXPECT_EQ(r[1][1], 0x2222U);
}

// ---- refused setups ----

std::string read_setup_error(std::uint32_t value) {
  VpmPort port;
  std::string error;
  EXPECT_FALSE(port.read_setup(value, error));
  return error;
}
std::string write_setup_error(std::uint32_t value) {
  VpmPort port;
  std::string error;
  EXPECT_FALSE(port.write_setup(value, error));
  return error;
}

TEST(QpuVpm8And16, UnmodelledAndUndefinedSetupsAreErrorsNamingThem) {
  EXPECT_EQ(read_setup_error(0x00001B00),
            "VPM generic setup 0x00001b00 with SIZE 3: the size is reserved (0 = 8-bit, 1 = 16-bit, 2 = 32-bit)");
  EXPECT_EQ(write_setup_error(0x00000300),
            "VPM generic setup 0x00000300 with SIZE 3: the size is reserved (0 = 8-bit, 1 = 16-bit, 2 = 32-bit)");
  EXPECT_EQ(read_setup_error(load_setup(4, 3, 16, 1, 1, true, 0, 0)),
            "VCD DMA load setup 0xc3011800: an 8-bit load (MODEW 4) into VPM columns (VERT) is not modelled: the "
            "guide adds VPITCH to the Y address and the byte or half-word select in vertical mode too and does not "
            "say where each row lands; only horizontal 8- and 16-bit loads are modelled");
  EXPECT_EQ(read_setup_error(load_setup(2, 3, 16, 1, 1, false, 0, 4)),
            "VCD DMA load setup 0xa3011004: a 16-bit load (MODEW 2) starting at X = 4 is not modelled: the byte or "
            "half-word select picks a 16-element vector of the VPM row and the guide does not say how X combines "
            "with it; only X = 0 is modelled");
  EXPECT_EQ(write_setup_error(store_setup(1, 16, true, 0, 0, 1)),
            "VDW DMA store setup 0x80904001 with MODEW 1: the guide leaves it unused (no width)");
  EXPECT_EQ(write_setup_error(store_setup(1, 16, true, 0, 0, 4) | 1U << 15),
            "VDW DMA store setup 0x8090c004 with LANED (bit 15) set: the guide says write it as 0");
  EXPECT_EQ(write_setup_error(0xC0010040),
            "VDW DMA stride setup 0xc0010040 with BLOCKMODE 1 (rows packed consecutively in the VPM) is not "
            "modelled: only BLOCKMODE 0 (a VPM row or column per unit) is");
}

// A refused setup changes nothing: the store before it stays, and an 8-bit store to memory that is not there names
// its unit and address.
TEST(QpuVpm8And16, ARefusedSetupKeepsThePreviousOneAndMissingMemoryIsAnError) {
  Vpm vpm = filled_vpm();
  FakeMemory memory;
  VpmPort port;
  std::string error;
  ASSERT_TRUE(port.write_setup(store_setup(2, 3, true, 0, 0, 4), error)) << error;
  EXPECT_FALSE(port.write_setup(store_setup(2, 3, true, 0, 0, 1), error));
  ASSERT_TRUE(port.store(vpm, memory, kBase + 0xFFA, error)) << error;  // 3 + 3 bytes: the last 6 of the memory
  EXPECT_EQ(memory.bytes(kBase + 0xFFA, 6), (std::vector<std::uint8_t>{0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A}));
  EXPECT_FALSE(port.store(vpm, memory, kBase + 0xFFB, error));
  EXPECT_EQ(error, "VDW DMA store unit 1 to 0x00010ffe: no memory there");
}

}  // namespace
}  // namespace gpuvp::vc4::qpu
