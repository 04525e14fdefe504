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
  struct Request {
    std::uint64_t address;
    unsigned bytes;
    bool write;
    bool operator==(const Request& o) const { return address == o.address && bytes == o.bytes && write == o.write; }
  };
  bool read(std::uint64_t address, void* data, unsigned bytes) override {
    if (logging) requests.push_back({address, bytes, false});
    if (address >= kHole) return false;
    auto* p = static_cast<std::uint8_t*>(data);
    for (unsigned i = 0; i < bytes; ++i) p[i] = bytes_.count(address + i) ? bytes_[address + i] : 0;
    return true;
  }
  bool write(std::uint64_t address, const void* data, unsigned bytes) override {
    if (logging) requests.push_back({address, bytes, true});
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
  // The requests the data port made since `logging` was set (test setup does not count).
  bool logging = false;
  std::vector<Request> requests;

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

// The data port coalesces a message's lanes into one memory request per 64-byte line (Junkins, Gen9 compute
// architecture, section 5.4): the request covers the bytes the lanes read in that line, and a write sends back each run
// of written bytes. Stateless (BTI 255) addresses are relative to General State Base 0x100000.
TEST(DataPort, AMessageReachesMemoryOncePerLineItTouches) {
  using Request = HostMemory::Request;
  Fixture f;
  constexpr std::uint64_t kGsb = 0x100000;
  // SIMD16 untyped read of X (SIMD16 mode, Y/Z/W disabled), stateless: mlen 2, rlen 2.
  const std::uint32_t read16 = 2U << 25 | 2U << 20 | 1U << 14 | (1U << 4 | 0xE) << 8 | kBtiStateless;
  const auto requests_of = [&](std::uint32_t desc, std::uint32_t mask, auto address_of) {
    for (unsigned lane = 0; lane < 16; ++lane) f.set32(20 + lane / 8, lane % 8, address_of(lane));
    f.memory.requests.clear();
    f.memory.logging = true;
    const MessageResult r = f.port.send(f.message(0xC, desc, 16, mask), f.t);
    f.memory.logging = false;
    EXPECT_EQ(r.status, MessageStatus::kDone) << r.error;
    return f.memory.requests;
  };
  for (unsigned i = 0; i < 16; ++i) f.memory.put32(kGsb + 0x1000 + 4 * i, 0xC0 + i);
  // Consecutive dwords: one line, one 64-byte read.
  EXPECT_EQ(requests_of(read16, 0xFFFF, [](unsigned lane) { return 0x1000 + 4 * lane; }),
            (std::vector<Request>{{kGsb + 0x1000, 64, false}}));
  EXPECT_EQ(f.reg32(40, 3), 0xC3u);
  EXPECT_EQ(f.reg32(41, 7), 0xCFu);
  EXPECT_EQ(f.port.stats().lines_read, 1u);
  // A stride of 64 bytes: a line per lane, each request the lane's dword.
  const auto strided = requests_of(read16, 0xFFFF, [](unsigned lane) { return 0x2000 + 64 * lane; });
  ASSERT_EQ(strided.size(), 16u);
  for (unsigned lane = 0; lane < 16; ++lane) EXPECT_EQ(strided[lane], (Request{kGsb + 0x2000 + 64 * lane, 4, false}));
  EXPECT_EQ(f.port.stats().lines_read, 17u);
  // Every lane at one address: one request; disabled lanes ask for nothing.
  EXPECT_EQ(requests_of(read16, 0xFFFF, [](unsigned) { return 0x1008; }),
            (std::vector<Request>{{kGsb + 0x1008, 4, false}}));
  EXPECT_EQ(requests_of(read16, 0x0003, [](unsigned lane) { return 0x3000 + 64 * lane; }),
            (std::vector<Request>{{kGsb + 0x3000, 4, false}, {kGsb + 0x3040, 4, false}}));

  // SIMD16 untyped write of X with lane 5 disabled: one line, two runs of written bytes.
  const std::uint32_t write16 = 4U << 25 | 9U << 14 | (1U << 4 | 0xE) << 8 | kBtiStateless;
  for (unsigned lane = 0; lane < 16; ++lane) f.set32(22 + lane / 8, lane % 8, 0xD0 + lane);
  EXPECT_EQ(requests_of(write16, 0xFFFF & ~(1U << 5), [](unsigned lane) { return 0x4000 + 4 * lane; }),
            (std::vector<Request>{{kGsb + 0x4000, 20, true}, {kGsb + 0x4018, 40, true}}));
  EXPECT_EQ(f.memory.get32(kGsb + 0x4010), 0xD4u);
  EXPECT_EQ(f.memory.get32(kGsb + 0x4014), 0u);
  EXPECT_EQ(f.memory.get32(kGsb + 0x403C), 0xDFu);
  EXPECT_EQ(f.port.stats().lines_written, 1u);

  // SIMD16 untyped atomic INC (op 5, no return) by every lane on one dword: one read, one write, sixteen increments.
  const std::uint32_t inc16 = 2U << 25 | 2U << 14 | 5U << 8 | kBtiStateless;
  f.memory.put32(kGsb + 0x5004, 100);
  EXPECT_EQ(requests_of(inc16, 0xFFFF, [](unsigned) { return 0x5004; }),
            (std::vector<Request>{{kGsb + 0x5004, 4, false}, {kGsb + 0x5004, 4, true}}));
  EXPECT_EQ(f.memory.get32(kGsb + 0x5004), 116u);

  // Lanes past a buffer's end make no request: BTI 1 is 64 bytes, lanes 8-15 read from 64 up. The first message
  // through a binding table entry reads the entry and the surface state it points to.
  const std::uint32_t read_buffer = (read16 & ~0xFFU) | 1;
  EXPECT_EQ(requests_of(read_buffer, 0xFFFF, [](unsigned lane) { return 8 * lane; }),
            (std::vector<Request>{{kSsh + 4, 4, false}, {kSsh + 0x100, 64, false}, {kBuffer, 60, false}}));

  // A64 scattered qword read, SIMD16 (control: subtype 2, SIMD16 bit 4), contiguous: two lines.
  const std::uint32_t a64_qwords = 4U << 25 | 4U << 20 | 0x10U << 14 | 0x12U << 8 | 0xFF;
  for (unsigned lane = 0; lane < 16; ++lane) f.set64(20 + lane / 4, lane % 4, 0x9000'0000 + 8ULL * lane);
  f.memory.requests.clear();
  f.memory.logging = true;
  ASSERT_EQ(f.port.send(f.message(0xC, a64_qwords, 16, 0xFFFF), f.t).status, MessageStatus::kDone);
  f.memory.logging = false;
  EXPECT_EQ(f.memory.requests, (std::vector<Request>{{0x9000'0000, 64, false}, {0x9000'0040, 64, false}}));

  // An access across a line boundary is two requests: an unaligned OWord block read of 2 OWords at byte 56.
  for (unsigned i = 0; i < 32; ++i) f.memory.put32(kGsb + 0x6000 + 4 * i, 0xE0 + i);
  const std::uint32_t unaligned = 1U << 25 | 1U << 20 | 1U << 19 | 1U << 14 | 2U << 8 | kBtiStateless;
  f.set32(20, 2, 0x6000 + 56);
  f.memory.requests.clear();
  f.memory.logging = true;
  ASSERT_EQ(f.port.send(f.message(0xA, unaligned, 8, 0xFF), f.t).status, MessageStatus::kDone);
  f.memory.logging = false;
  EXPECT_EQ(f.memory.requests, (std::vector<Request>{{kGsb + 0x6038, 8, false}, {kGsb + 0x6040, 24, false}}));
  EXPECT_EQ(f.reg32(40, 0), 0xE0u + 14);
  EXPECT_EQ(f.reg32(40, 7), 0xE0u + 21);
}

// With a memory log (array timing), a message notes the lines it touched after coalescing, SLM lines by their offset,
// and its atomic lanes; without one nothing is noted.
TEST(DataPort, AMessageLogsItsLinesForTheTimingModel) {
  Fixture f;
  constexpr std::uint64_t kGsb = 0x100000;
  MemoryLog log;
  f.t.memory_log = &log;
  // SIMD16 untyped read, stateless, a stride of 64 bytes: a line per lane.
  const std::uint32_t read16 = 2U << 25 | 2U << 20 | 1U << 14 | (1U << 4 | 0xE) << 8 | kBtiStateless;
  for (unsigned lane = 0; lane < 16; ++lane) f.set32(20 + lane / 8, lane % 8, 0x2000 + 64 * lane);
  ASSERT_EQ(f.port.send(f.message(0xC, read16, 16, 0xFFFF), f.t).status, MessageStatus::kDone);
  ASSERT_EQ(log.lines.size(), 16u);
  for (unsigned lane = 0; lane < 16; ++lane) {
    EXPECT_EQ(log.lines[lane].address, kGsb + 0x2000 + 64 * lane);
    EXPECT_EQ(log.lines[lane].flags, MemoryLine::kRead);
  }
  EXPECT_EQ(log.pending_atomics, 0u);
  // SIMD16 atomic INC by every lane on one dword: one line read and written, sixteen atomic lanes.
  log.clear();
  const std::uint32_t inc16 = 2U << 25 | 2U << 14 | 5U << 8 | kBtiStateless;
  for (unsigned lane = 0; lane < 16; ++lane) f.set32(20 + lane / 8, lane % 8, 0x5004);
  ASSERT_EQ(f.port.send(f.message(0xC, inc16, 16, 0xFFFF), f.t).status, MessageStatus::kDone);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0].address, kGsb + 0x5000);
  EXPECT_EQ(log.lines[0].flags, MemoryLine::kRead | MemoryLine::kWrite);
  EXPECT_EQ(log.pending_atomics, 16u);
  // An SLM atomic (IMAX, one lane at offset 80): SLM line 64, read and written.
  log.clear();
  const std::uint32_t imax = 2U << 25 | 2U << 14 | (0x10U | 10) << 8 | kBtiSlm;
  f.set32(20, 0, 80);
  f.set32(21, 0, 5);
  ASSERT_EQ(f.port.send(f.message(0xC, imax, 8, 0x1), f.t).status, MessageStatus::kDone);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0].address, 64u);
  EXPECT_EQ(log.lines[0].flags, MemoryLine::kSlm | MemoryLine::kRead | MemoryLine::kWrite);
  EXPECT_EQ(log.pending_atomics, 1u);
  // Without a log the port notes nothing.
  f.t.memory_log = nullptr;
  log.clear();
  ASSERT_EQ(f.port.send(f.message(0xC, read16, 16, 0xFFFF), f.t).status, MessageStatus::kDone);
  EXPECT_TRUE(log.lines.empty());
}

// A line whose read faults ends the message as a memory fault before any lane's data is used or written.
TEST(DataPort, ALineThatFaultsEndsTheMessageAsAMemoryFault) {
  Fixture f;
  const std::uint32_t a64_read = 2U << 25 | 1U << 20 | 0x10U << 14 | 0x01U << 8 | 0xFF;  // SIMD8 dword
  f.set64(20, 0, 0x9000'0000);
  f.set64(20, 1, HostMemory::kHole + 64);
  f.set32(40, 0, 0x77);
  const MessageResult r = f.port.send(f.message(0xC, a64_read, 8, 0x3), f.t);
  EXPECT_EQ(r.status, MessageStatus::kError);
  EXPECT_EQ(r.error, "memory fault");
  EXPECT_TRUE(f.port.memory_faulted());
  EXPECT_EQ(f.reg32(40, 0), 0x77u);  // no response
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
