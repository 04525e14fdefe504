// The data port on its own: messages built as the executor hands them over (descriptors as IGC emits them for Gen9,
// reference-eu-opencl.md §3), memory a host map, results computed by hand.
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "hw/gen/gpgpu_commands.h"
#include "tlm/gen/eu/data_port.h"

using namespace gpuvp::gen;
using namespace gpuvp::gen::eu;

namespace {

// Sparse byte-addressed memory; addresses at or above kHole fault.
class HostMemory final : public GpuMemory {
 public:
  static constexpr std::uint64_t kHole = 0xDEAD'0000'0000ULL;
  bool read(std::uint64_t address, void* data, unsigned bytes) override {
    if (address >= kHole) return false;
    auto* p = static_cast<std::uint8_t*>(data);
    for (unsigned i = 0; i < bytes; ++i) p[i] = bytes_.count(address + i) ? bytes_[address + i] : 0;
    return true;
  }
  bool write(std::uint64_t address, const void* data, unsigned bytes) override {
    if (address >= kHole) return false;
    const auto* p = static_cast<const std::uint8_t*>(data);
    for (unsigned i = 0; i < bytes; ++i) bytes_[address + i] = p[i];
    return true;
  }
  void put32(std::uint64_t a, std::uint32_t v) { write(a, &v, 4); }
  std::uint32_t get32(std::uint64_t a) {
    std::uint32_t v = 0;
    read(a, &v, 4);
    return v;
  }
  void put_words(std::uint64_t a, const std::vector<std::uint32_t>& w) {
    for (std::size_t i = 0; i < w.size(); ++i) put32(a + 4 * i, w[i]);
  }

 private:
  std::map<std::uint64_t, std::uint8_t> bytes_;
};

constexpr std::uint64_t kSsh = 0x10000;
constexpr std::uint64_t kBuffer = 0x40000;

struct Fixture {
  Fixture() : port(memory) {
    // Binding table entry 1 -> a 64-byte buffer at kBuffer; entry 2 -> a null surface.
    memory.put32(kSsh + 4, 0x100);
    memory.put_words(kSsh + 0x100, gpgpu::buffer_surface_state(kBuffer, 64));
    memory.put32(kSsh + 8, 0x140);
    std::vector<std::uint32_t> null_state(16, 0);
    null_state[0] = gpgpu::kSurfaceTypeNull << 29;
    memory.put_words(kSsh + 0x140, null_state);
    slm.assign(1024, 0);
    port.bind({kSsh, 0x100000, 0, &slm});
  }
  Message message(std::uint8_t sfid, std::uint32_t desc, unsigned exec = 16, std::uint32_t mask = 0xFFFF) {
    Message m;
    m.sfid = sfid;
    m.desc = desc;
    m.ex_desc = sfid;
    m.payload_reg = 20;
    m.dst_reg = 40;
    m.exec_size = exec;
    m.channel_mask = mask;
    return m;
  }
  std::uint32_t reg32(unsigned reg, unsigned dword) { return t.grf_read<std::uint32_t>(reg * 32 + dword * 4); }
  void set32(unsigned reg, unsigned dword, std::uint32_t v) { t.grf_write<std::uint32_t>(reg * 32 + dword * 4, v); }
  void set64(unsigned reg, unsigned qword, std::uint64_t v) { t.grf_write<std::uint64_t>(reg * 32 + qword * 8, v); }

  HostMemory memory;
  DataPort port;
  ThreadState t;
  std::vector<std::uint8_t> slm;
};

}  // namespace

TEST(DataPort, UntypedReadXyOfABufferReturnsChannelMajorDataAndZerosPastItsEnd) {
  Fixture f;
  for (unsigned i = 0; i < 16; ++i) f.memory.put32(kBuffer + 4 * i, 0x100 + i);
  // SIMD8 untyped read, channels X and Y (disable mask 0xC), BTI 1: mlen 1, rlen 2 (Mesa brw_dp_untyped_surface_rw).
  const std::uint32_t desc = 1U << 25 | 2U << 20 | 1U << 14 | (2U << 4 | 0xC) << 8 | 1;
  // Byte offsets 0, 8, ..., 48, and 60 for lane 7: its X is the buffer's last dword, its Y lies past the end.
  for (unsigned lane = 0; lane < 8; ++lane) f.set32(20, lane, lane == 7 ? 60 : lane * 8);
  const MessageResult r = f.port.send(f.message(0xC, desc, 8, 0xFF), f.t);
  ASSERT_EQ(r.status, MessageStatus::kDone) << r.error;
  for (unsigned lane = 0; lane < 7; ++lane) {
    EXPECT_EQ(f.reg32(40, lane), 0x100 + 2 * lane) << lane;  // X
    EXPECT_EQ(f.reg32(41, lane), 0x101 + 2 * lane) << lane;  // Y
  }
  EXPECT_EQ(f.reg32(40, 7), 0x10Fu);
  EXPECT_EQ(f.reg32(41, 7), 0u);
  EXPECT_EQ(f.port.stats().out_of_bounds, 1u);
}

TEST(DataPort, ByteScatteredWritesTheLowBytesOfEachLaneAndDisabledLanesWriteNothing) {
  Fixture f;
  // DC0 byte scattered write, SIMD16, 16-bit data (control bit 0 | 1 << 2), BTI 1: mlen 4.
  const std::uint32_t desc = 4U << 25 | 12U << 14 | (1U | 1U << 2) << 8 | 1;
  for (unsigned lane = 0; lane < 16; ++lane) {
    f.set32(20 + lane / 8, lane % 8, lane * 2);
    f.set32(22 + lane / 8, lane % 8, 0xABCD0000 | lane);
  }
  ASSERT_EQ(f.port.send(f.message(0xA, desc, 16, 0x7FFF), f.t).status, MessageStatus::kDone);
  for (unsigned lane = 0; lane < 15; ++lane) EXPECT_EQ(f.memory.get32(kBuffer + lane * 2) & 0xFFFF, lane);
  EXPECT_EQ(f.memory.get32(kBuffer + 30) & 0xFFFF, 0u);  // lane 15 disabled
}

TEST(DataPort, A64ScatteredQwordReadAndUntypedAtomicsWithReturn) {
  Fixture f;
  f.memory.put32(0x9000'0000, 0x1111'2222);
  f.memory.put32(0x9000'0004, 0x3333'4444);
  // A64 scattered read SIMD8, qword subtype, one element: control 0x02; mlen 2 (8 x 64-bit addresses), rlen 2.
  const std::uint32_t read = 2U << 25 | 2U << 20 | 0x10U << 14 | 0x02U << 8 | 0xFF;
  for (unsigned lane = 0; lane < 8; ++lane) f.set64(20 + lane / 4, lane % 4, 0x9000'0000);
  ASSERT_EQ(f.port.send(f.message(0xC, read, 8, 0x0F), f.t).status, MessageStatus::kDone);
  EXPECT_EQ(f.reg32(40, 0), 0x1111'2222u);
  EXPECT_EQ(f.reg32(40, 1), 0x3333'4444u);
  EXPECT_EQ(f.reg32(40, 6), 0x1111'2222u);  // lane 3
  EXPECT_EQ(f.reg32(41, 0), 0u);            // lane 4 disabled: untouched

  // A64 untyped atomic CMPWR with return (op 14, bit 5): lane 0 compares 0x11112222 and swaps in 7; lane 1 then
  // compares the same old value, fails and returns the 7 lane 0 wrote.
  const std::uint32_t cmpwr = 4U << 25 | 1U << 20 | 0x12U << 14 | (0x20U | 14) << 8 | 0xFF;
  f.set32(22, 0, 0x1111'2222);
  f.set32(22, 1, 0x1111'2222);
  f.set32(23, 0, 7);
  f.set32(23, 1, 9);
  ASSERT_EQ(f.port.send(f.message(0xC, cmpwr, 8, 0x3), f.t).status, MessageStatus::kDone);
  EXPECT_EQ(f.reg32(40, 0), 0x1111'2222u);
  EXPECT_EQ(f.reg32(40, 1), 7u);
  EXPECT_EQ(f.memory.get32(0x9000'0000), 7u);
  EXPECT_EQ(f.port.stats().atomics, 2u);
}

TEST(DataPort, SignedAndUnsignedAtomicMaxOnSharedLocalMemory) {
  Fixture f;
  const std::uint32_t minus_two = 0xFFFF'FFFE;
  std::memcpy(f.slm.data() + 16, &minus_two, 4);
  std::memcpy(f.slm.data() + 20, &minus_two, 4);
  // Untyped atomic SIMD8 (control bit 4) without return: IMAX (10) at offset 16, then UMAX (12) at offset 20.
  for (const auto& [op, offset] : {std::pair<unsigned, unsigned>{10, 16}, {12, 20}}) {
    const std::uint32_t desc = 2U << 25 | 2U << 14 | (0x10U | op) << 8 | kBtiSlm;
    f.set32(20, 0, offset);
    f.set32(21, 0, 5);
    ASSERT_EQ(f.port.send(f.message(0xC, desc, 8, 0x1), f.t).status, MessageStatus::kDone);
  }
  std::uint32_t imax = 0, umax = 0;
  std::memcpy(&imax, f.slm.data() + 16, 4);
  std::memcpy(&umax, f.slm.data() + 20, 4);
  EXPECT_EQ(imax, 5u);            // max(-2, 5)
  EXPECT_EQ(umax, 0xFFFF'FFFEu);  // max(0xFFFFFFFE, 5)
}

TEST(DataPort, OwordBlockReadsUnalignedInBytesAndAlignedInOwordsAndScratchIsGeneralStateRelative) {
  Fixture f;
  for (unsigned i = 0; i < 16; ++i) f.memory.put32(kBuffer + 4 * i, 0xA0 + i);
  // Unaligned OWord block read, 2 OWords (control 2), header, BTI 1: header DW2 = byte offset 4.
  const std::uint32_t unaligned = 1U << 25 | 1U << 20 | 1U << 19 | 1U << 14 | 2U << 8 | 1;
  f.set32(20, 2, 4);
  ASSERT_EQ(f.port.send(f.message(0xA, unaligned, 8, 0xFF), f.t).status, MessageStatus::kDone);
  EXPECT_EQ(f.reg32(40, 0), 0xA1u);
  EXPECT_EQ(f.reg32(40, 7), 0xA8u);
  // Aligned: header DW2 = 1 OWord = byte 16.
  const std::uint32_t aligned = 1U << 25 | 1U << 20 | 1U << 19 | 0U << 14 | 2U << 8 | 1;
  f.set32(20, 2, 1);
  ASSERT_EQ(f.port.send(f.message(0xA, aligned, 8, 0xFF), f.t).status, MessageStatus::kDone);
  EXPECT_EQ(f.reg32(40, 0), 0xA4u);

  // Scratch write of 2 registers (13:12 = 1) at offset 3 x 32 bytes, header r0.5 = 0x800 (scratch offset): lands at
  // General State Base 0x100000 + 0x800 + 96.
  const std::uint32_t scratch_write = 3U << 25 | 1U << 19 | 1U << 18 | 1U << 17 | 1U << 12 | 3;
  f.set32(20, 5, 0x800 | 0x7);  // FFTID bits are not part of the offset
  f.set32(21, 0, 0x5151);
  f.set32(22, 7, 0x5252);
  ASSERT_EQ(f.port.send(f.message(0xA, scratch_write, 8, 0xFF), f.t).status, MessageStatus::kDone);
  EXPECT_EQ(f.memory.get32(0x100000 + 0x800 + 96), 0x5151u);
  EXPECT_EQ(f.memory.get32(0x100000 + 0x800 + 96 + 32 + 28), 0x5252u);
}

TEST(DataPort, NullSurfacesReadZeroAndBadMessagesAreErrorsNamingThemselves) {
  Fixture f;
  const std::uint32_t read_null = 1U << 25 | 1U << 20 | 1U << 14 | (2U << 4 | 0xE) << 8 | 2;
  f.set32(40, 0, 0x1234);
  ASSERT_EQ(f.port.send(f.message(0xC, read_null, 8, 0xFF), f.t).status, MessageStatus::kDone);
  EXPECT_EQ(f.reg32(40, 0), 0u);

  const auto error = [&](std::uint8_t sfid, std::uint32_t desc) {
    const MessageResult r = f.port.send(f.message(sfid, desc, 8, 0xFF), f.t);
    EXPECT_EQ(r.status, MessageStatus::kError);
    return r.error;
  };
  EXPECT_EQ(error(0xC, 1U << 25 | 5U << 14 | 1),
            "data cache (DC1) message type 0x5 is not modelled (typed surfaces, "
            "media block and float atomics come later)");
  EXPECT_EQ(error(0xC, 1U << 25 | 1U << 20 | 1U << 14 | (2U << 4 | 0xE) << 8 | 7),
            "binding table entry 7 is a surface of type 0 (only buffer and null surfaces are modelled; images and "
            "the sampler come later)");
  // Untyped read XYZW SIMD16 needs 8 response registers; rlen 2 is too short.
  EXPECT_EQ(error(0xC, 2U << 25 | 2U << 20 | 1U << 14 | (1U << 4) << 8 | 1),
            "response length 2 is shorter than the 8 registers its type returns");
  EXPECT_FALSE(f.port.memory_faulted());
  // A64 access to an address the memory refuses: a memory fault, which stops the GPU.
  const std::uint32_t a64_read = 2U << 25 | 1U << 20 | 0x10U << 14 | 0x01U << 8 | 0xFF;
  for (unsigned lane = 0; lane < 8; ++lane) f.set64(20 + lane / 4, lane % 4, HostMemory::kHole);
  EXPECT_EQ(error(0xC, a64_read), "memory fault");
  EXPECT_TRUE(f.port.memory_faulted());
}
