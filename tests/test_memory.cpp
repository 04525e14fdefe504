// Memory: the sparse store on its own, then the Memory target behind a bus (latency, byte enables, range errors, DMI,
// image load/dump, statistics).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <unistd.h>

#include "tests/support/sc_test.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/stats.h"

using namespace gpuvp;
using core::SparseStore;
using sc_core::SC_NS;
using sc_core::sc_time;
using ::testing::HasSubstr;

namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint64_t kGiB = 1024 * kMiB;

// Memory at 500 MHz (2 ns per cycle), 10 read / 5 write latency cycles, 8 bytes per cycle, 64 KiB pages.
core::MemoryParams test_memory(std::uint64_t size = 1 * kMiB) {
  core::MemoryParams p;
  p.size = size;
  p.page_size = 64 * kKiB;
  p.clock_hz = 500'000'000;
  p.read_latency_cycles = 10;
  p.write_latency_cycles = 5;
  p.bytes_per_cycle = 8;
  return p;
}

// An initiator that issues raw payloads (byte enables, DMI requests) the Initiator does not expose.
class RawInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<RawInitiator> socket;
  // DMI invalidations received: [start, end] in global addresses.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> invalidated;
  explicit RawInitiator(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_invalidate_direct_mem_ptr(this, &RawInitiator::invalidate);
  }
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { invalidated.emplace_back(start, end); }

  tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data, unsigned len,
                                  unsigned char* be, unsigned be_len, sc_time& delay) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(data);
    p.set_data_length(len);
    p.set_streaming_width(len);
    p.set_byte_enable_ptr(be);
    p.set_byte_enable_length(be_len);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(p, delay);
    return p.get_response_status();
  }
  bool dmi(std::uint64_t addr, tlm::tlm_dmi& out, tlm::tlm_command command = tlm::TLM_WRITE_COMMAND) {
    tlm::tlm_generic_payload p;
    p.set_command(command);
    p.set_address(addr);
    return socket->get_direct_mem_ptr(p, out);
  }
};

std::string temp_path(const std::string& tag) {
  return (std::filesystem::temp_directory_path() /
          ("gpuvp_test_memory_" + std::to_string(::getpid()) + "_" + tag + ".bin"))
      .string();
}

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------------
// SparseStore

TEST(SparseStore, UnwrittenMemoryReadsZeroAndAllocatesNothing) {
  SparseStore s(16 * kMiB, 4 * kKiB);
  std::vector<unsigned char> buf(8192, 0xEE);
  s.read(0x12345, buf.data(), buf.size());
  EXPECT_EQ(std::count(buf.begin(), buf.end(), 0), 8192);
  EXPECT_EQ(s.pages_allocated(), 0u);
  EXPECT_EQ(s.size(), 16 * kMiB);
  EXPECT_EQ(s.page_size(), 4 * kKiB);
}

TEST(SparseStore, PagesAreAllocatedOnlyOnWrite) {
  SparseStore s(1 * kMiB, 4 * kKiB);
  const unsigned char v[4] = {1, 2, 3, 4};
  s.write(0x1000, v, 4);  // page 1
  EXPECT_EQ(s.pages_allocated(), 1u);
  s.write(0x1FFC, v, 4);  // last bytes of page 1: no new page
  EXPECT_EQ(s.pages_allocated(), 1u);
  s.write(0x5000, v, 1);  // page 5
  EXPECT_EQ(s.pages_allocated(), 2u);
  unsigned char back[4] = {};
  s.read(0x1FFC, back, 4);
  EXPECT_EQ(std::memcmp(back, v, 4), 0);
  // The rest of an allocated page is zero.
  s.read(0x1004, back, 4);
  EXPECT_EQ(back[0] | back[1] | back[2] | back[3], 0);
  EXPECT_EQ(s.page_base(0x1FFC), 0x1000u);
  EXPECT_EQ(s.page_base(0x5000), 0x5000u);
}

TEST(SparseStore, ZerosWrittenToUntouchedPagesAllocateNothingButOverwriteWrittenData) {
  SparseStore s(1 * kMiB, 4 * kKiB);
  const std::vector<unsigned char> zeros(3 * 4096, 0);
  s.write(0x2000, zeros.data(), zeros.size());  // pages 2-4, untouched: nothing changes
  EXPECT_EQ(s.pages_allocated(), 0u);
  const unsigned char v[4] = {1, 2, 3, 4};
  s.write(0x3FFE, v, 4);  // across pages 3 and 4
  EXPECT_EQ(s.pages_allocated(), 2u);
  s.write(0x2000, zeros.data(), zeros.size());  // now zeros overwrite what was written; page 2 stays untouched
  EXPECT_EQ(s.pages_allocated(), 2u);
  unsigned char back[4] = {9, 9, 9, 9};
  s.read(0x3FFE, back, 4);
  EXPECT_EQ(back[0] | back[1] | back[2] | back[3], 0);
  // A write that is partly non-zero allocates the page it touches.
  const unsigned char mixed[8] = {0, 0, 0, 0, 0, 0, 0, 7};
  s.write(0x6000, mixed, 8);
  EXPECT_EQ(s.pages_allocated(), 3u);
  s.read(0x6004, back, 4);
  EXPECT_EQ(back[3], 7);
}

TEST(SparseStore, ZeroFillOfUntouchedPagesAllocatesNothingButOtherFillsDo) {
  SparseStore s(1 * kMiB, 4 * kKiB);
  s.fill(0, 0, 1 * kMiB);  // whole store, all untouched
  EXPECT_EQ(s.pages_allocated(), 0u);
  // A non-zero fill of [0x1800, 0x3800) touches pages 1, 2 and 3.
  s.fill(0x1800, 0xAB, 0x2000);
  EXPECT_EQ(s.pages_allocated(), 3u);
  unsigned char b[4];
  s.read(0x17FE, b, 4);  // two bytes before, two bytes inside
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 0);
  EXPECT_EQ(b[2], 0xAB);
  EXPECT_EQ(b[3], 0xAB);
  s.read(0x37FE, b, 4);  // two inside, two after
  EXPECT_EQ(b[0], 0xAB);
  EXPECT_EQ(b[1], 0xAB);
  EXPECT_EQ(b[2], 0);
  EXPECT_EQ(b[3], 0);
  // A zero fill over allocated pages clears them (and over untouched ones still allocates nothing).
  s.fill(0x0, 0, 0x10000);
  EXPECT_EQ(s.pages_allocated(), 3u);
  s.read(0x2000, b, 4);
  EXPECT_EQ(b[0] | b[1] | b[2] | b[3], 0);
}

TEST(SparseStore, SixtyFourGibStoreCostsOnlyTouchedPages) {
  SparseStore s(64 * kGiB, 64 * kKiB);
  const std::uint64_t v = 0x0123456789ABCDEFULL;
  s.write(0, reinterpret_cast<const unsigned char*>(&v), 8);
  s.write(32 * kGiB + 12345, reinterpret_cast<const unsigned char*>(&v), 8);
  s.write(64 * kGiB - 8, reinterpret_cast<const unsigned char*>(&v), 8);  // the very last 8 bytes
  EXPECT_EQ(s.pages_allocated(), 3u);
  std::uint64_t back = 0;
  s.read(64 * kGiB - 8, reinterpret_cast<unsigned char*>(&back), 8);
  EXPECT_EQ(back, v);
  s.read(32 * kGiB + 12345, reinterpret_cast<unsigned char*>(&back), 8);
  EXPECT_EQ(back, v);
  s.read(48 * kGiB, reinterpret_cast<unsigned char*>(&back), 8);
  EXPECT_EQ(back, 0u);
  EXPECT_TRUE(s.contains(64 * kGiB - 8, 8));
  EXPECT_FALSE(s.contains(64 * kGiB - 4, 8));
  EXPECT_FALSE(s.contains(0, 64 * kGiB + 1));
  EXPECT_TRUE(s.contains(64 * kGiB, 0));
  EXPECT_FALSE(s.contains(~0ULL, 2));  // no wrap-around
}

TEST(SparseStore, AccessesCrossingPageBoundaries) {
  SparseStore s(1 * kMiB, 4 * kKiB);
  unsigned char pattern[16];
  for (int i = 0; i < 16; ++i) pattern[i] = static_cast<unsigned char>(0x10 + i);
  s.write(0x2000 - 8, pattern, 16);  // 8 bytes in page 1, 8 in page 2
  EXPECT_EQ(s.pages_allocated(), 2u);
  unsigned char back[16] = {};
  s.read(0x2000 - 8, back, 16);
  EXPECT_EQ(std::memcmp(back, pattern, 16), 0);
  // A write spanning three pages (page 4 whole) allocates exactly those three.
  std::vector<unsigned char> big(4096 + 200, 0x77);
  s.write(0x4000 - 100, big.data(), big.size());  // 0x3F9C..0x5063: pages 3, 4, 5
  EXPECT_EQ(s.pages_allocated(), 5u);
  std::vector<unsigned char> rb(big.size() + 2);
  s.read(0x4000 - 101, rb.data(), rb.size());
  EXPECT_EQ(rb.front(), 0);
  EXPECT_EQ(rb.back(), 0);
  EXPECT_EQ(std::count(rb.begin(), rb.end(), 0x77), static_cast<long>(big.size()));
  // A read crossing from an allocated page into an unallocated one: bytes 0x5064.. are zero.
  unsigned char edge[4] = {0xEE, 0xEE, 0xEE, 0xEE};
  s.read(0x6000 - 2, edge, 4);  // page 5 (allocated, zeros here) into page 6 (unallocated)
  EXPECT_EQ(edge[0] | edge[1] | edge[2] | edge[3], 0);
}

TEST(SparseStore, InvalidGeometryIsRejected) {
  EXPECT_THROW(SparseStore(1 * kMiB, 2048), std::invalid_argument);  // below 4 KiB
  EXPECT_THROW(SparseStore(1 * kMiB, 6144), std::invalid_argument);  // not a power of two
  EXPECT_THROW(SparseStore(0, 4096), std::invalid_argument);
  // A size that is not a multiple of the page size still gets its last partial page.
  SparseStore s(4096 + 16, 4096);
  const unsigned char v = 0x42;
  s.write(4096 + 15, &v, 1);
  unsigned char b = 0;
  s.read(4096 + 15, &b, 1);
  EXPECT_EQ(b, 0x42);
  EXPECT_EQ(s.pages_allocated(), 1u);
}

// ---------------------------------------------------------------------------------------------------------------------
// Memory behind a bus

TEST(Memory, TimedLatencyIsLatencyCyclesPlusTransferCyclesPlusHop) {
  core::set_global_quantum(1'000'000'000);  // 1 ms: no sync inside the body
  core::Bus bus("bus");                     // 1 GHz
  core::Initiator cpu("cpu");
  core::Memory mem("mem", test_memory());
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(mem.socket, "mem", 0x8000'0000, 1 * kMiB, {3, 0});  // 3 ns hop, no port occupancy
  test::run_thread([&] {
    std::vector<unsigned char> buf(256, 0x5A);
    auto cost = [&](bool write, std::uint64_t addr, unsigned len) {
      const auto before = cpu.local_time().offset_ps();
      auto s = write ? cpu.write(addr, buf.data(), len) : cpu.read(addr, buf.data(), len);
      EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
      return cpu.local_time().offset_ps() - before;
    };
    // read 4 B:   (10 + ceil(4/8)=1)  = 11 cycles x 2 ns = 22 ns + 3 ns hop = 25 ns
    EXPECT_EQ(cost(false, 0x8000'0000, 4), 25'000u);
    // read 8 B:   (10 + 1)  x 2 + 3 = 25 ns
    EXPECT_EQ(cost(false, 0x8000'0100, 8), 25'000u);
    // read 9 B:   (10 + 2)  x 2 + 3 = 27 ns
    EXPECT_EQ(cost(false, 0x8000'0200, 9), 27'000u);
    // read 64 B:  (10 + 8)  x 2 + 3 = 39 ns
    EXPECT_EQ(cost(false, 0x8000'0300, 64), 39'000u);
    // read 65 B:  (10 + 9)  x 2 + 3 = 41 ns
    EXPECT_EQ(cost(false, 0x8000'0400, 65), 41'000u);
    // write 1 B:  (5 + 1)   x 2 + 3 = 15 ns
    EXPECT_EQ(cost(true, 0x8000'0500, 1), 15'000u);
    // write 17 B: (5 + 3)   x 2 + 3 = 19 ns
    EXPECT_EQ(cost(true, 0x8000'0600, 17), 19'000u);
    // write 256 B: (5 + 32) x 2 + 3 = 77 ns
    EXPECT_EQ(cost(true, 0x8000'0700, 256), 77'000u);
    // Total 25+25+27+39+41+15+19+77 = 268 ns; the kernel has not moved until the initiator syncs.
    EXPECT_EQ(cpu.local_time().offset_ps(), 268'000u);
    cpu.sync();
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(268, SC_NS));
  });
}

TEST(Memory, DataWrittenThroughTheBusReadsBack) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::Memory mem("mem", test_memory());
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(mem.socket, "mem", 0x1000'0000, 1 * kMiB, {});
  test::run_thread([&] {
    EXPECT_EQ(cpu.write_value<std::uint64_t>(0x1000'FFFC, 0x8877665544332211ULL),
              tlm::TLM_OK_RESPONSE);  // crosses a page
    EXPECT_EQ(cpu.read_value<std::uint64_t>(0x1000'FFFC), 0x8877665544332211ULL);
    EXPECT_EQ(cpu.read_value<std::uint32_t>(0x1001'0000), 0x88776655u);
    EXPECT_EQ(cpu.read_value<std::uint32_t>(0x1002'0000), 0u);  // never written
  });
  EXPECT_EQ(mem.store().pages_allocated(), 2u);  // 0xFFFC..0x10003 spans pages 0 and 1
  unsigned char b = 0;
  mem.store().read(0x10003, &b, 1);
  EXPECT_EQ(b, 0x88);
}

TEST(Memory, ByteEnablesSelectWhichBytesAreWrittenAndRead) {
  core::set_global_quantum(1'000'000'000);
  core::Bus bus("bus");
  RawInitiator raw("raw");
  core::Memory mem("mem", test_memory());
  bus.attach_initiator(raw.socket, "raw");
  bus.attach_target(mem.socket, "mem", 0, 1 * kMiB, {0, 0});
  std::vector<unsigned char> init(8, 0x11);
  mem.store().write(0x100, init.data(), 8);
  test::run_thread([&] {
    sc_time delay = sc_core::SC_ZERO_TIME;
    unsigned char data[8] = {0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7};
    unsigned char be[4] = {0xFF, 0x00, 0xFF, 0x00};  // shorter than the data: the pattern repeats
    EXPECT_EQ(raw.access(tlm::TLM_WRITE_COMMAND, 0x100, data, 8, be, 4, delay), tlm::TLM_OK_RESPONSE);
    // Byte enables do not change the timing: (5 + 1) cycles x 2 ns = 12 ns, no hop.
    EXPECT_EQ(delay, sc_time(12, SC_NS));
    unsigned char stored[8];
    mem.store().read(0x100, stored, 8);
    const unsigned char expect_stored[8] = {0xA0, 0x11, 0xA2, 0x11, 0xA4, 0x11, 0xA6, 0x11};
    EXPECT_EQ(std::memcmp(stored, expect_stored, 8), 0);

    // Read with only bytes 1 and 3 enabled: the enabled bytes carry memory, the disabled ones do not.
    unsigned char rbe[4] = {0x00, 0xFF, 0x00, 0xFF};
    unsigned char rd[4] = {0, 0, 0, 0};
    delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(raw.access(tlm::TLM_READ_COMMAND, 0x100, rd, 4, rbe, 4, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(rd[0], 0x00);  // memory holds 0xA0 here
    EXPECT_EQ(rd[1], 0x11);
    EXPECT_EQ(rd[2], 0x00);  // memory holds 0xA2 here
    EXPECT_EQ(rd[3], 0x11);
    EXPECT_EQ(delay, sc_time(22, SC_NS));  // (10 + 1) x 2 ns
  });
}

TEST(Memory, OutOfRangeAccessIsAnAddressErrorAndIsCounted) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::Memory mem("mem", test_memory(1 * kMiB));
  bus.attach_initiator(cpu.socket, "cpu");
  // The window is twice the memory, so the memory itself sees the out-of-range addresses.
  bus.attach_target(mem.socket, "mem", 0, 2 * kMiB, {});
  test::run_thread([&] {
    std::uint32_t v = 0;
    EXPECT_EQ(cpu.read(1 * kMiB - 4, &v, 4), tlm::TLM_OK_RESPONSE);             // last word
    EXPECT_EQ(cpu.read(1 * kMiB - 2, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // straddles the end
    EXPECT_EQ(cpu.write(1 * kMiB, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);     // first byte past the end
    EXPECT_EQ(cpu.read(0x180000, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Debug transport refuses it too (0 bytes).
    EXPECT_EQ(cpu.debug_read(1 * kMiB, &v, 4), 0u);
  });
  EXPECT_EQ(core::stats().counter_value("mem.errors"), 3u);  // timed accesses only
  EXPECT_EQ(core::stats().counter_value("mem.reads"), 1u);
  EXPECT_EQ(core::stats().counter_value("mem.writes"), 0u);
  EXPECT_EQ(mem.store().pages_allocated(), 0u);
}

TEST(Memory, AccessPastTheEndOfAPartialLastPageIsAnAddressError) {
  // The memory ends 1 KiB into its last page: the page's backing store is larger than the memory, and an access that
  // straddles the end is still an error once that page exists.
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::Memory mem("mem", test_memory(1 * kMiB + 1024));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(mem.socket, "mem", 0, 2 * kMiB, {});
  test::run_thread([&] {
    std::uint32_t v = 0x11223344;
    EXPECT_EQ(cpu.write(1 * kMiB, &v, 4), tlm::TLM_OK_RESPONSE);                    // allocates the last page
    EXPECT_EQ(cpu.write(1 * kMiB + 1020, &v, 4), tlm::TLM_OK_RESPONSE);             // last word
    EXPECT_EQ(cpu.read(1 * kMiB + 1022, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);   // straddles the end
    EXPECT_EQ(cpu.write(1 * kMiB + 1024, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // first byte past the end
  });
  EXPECT_EQ(core::stats().counter_value("mem.errors"), 2u);
  EXPECT_EQ(core::stats().counter_value("mem.writes"), 2u);
}

TEST(Memory, DmiGrantIsOnePageWithTheConfiguredLatencies) {
  core::Bus bus("bus");
  RawInitiator raw("raw");
  core::Memory mem("mem", test_memory(96 * kKiB));  // one and a half 64 KiB pages
  bus.attach_initiator(raw.socket, "raw");
  bus.attach_target(mem.socket, "mem", 0x4000'0000, 96 * kKiB, {3, 0});
  test::run_thread([&] {
    tlm::tlm_dmi dmi;
    // Reading memory never written needs no backing store: no pointer for that.
    EXPECT_FALSE(raw.dmi(0x4000'1234, dmi, tlm::TLM_READ_COMMAND));
    EXPECT_EQ(mem.store().pages_allocated(), 0u);
    ASSERT_TRUE(raw.dmi(0x4000'1234, dmi));
    // Page 0 of the memory, in global addresses.
    EXPECT_EQ(dmi.get_start_address(), 0x4000'0000u);
    EXPECT_EQ(dmi.get_end_address(), 0x4000'FFFFu);
    EXPECT_TRUE(dmi.is_read_write_allowed());
    // 10 read cycles x 2 ns + 3 ns hop = 23 ns; 5 write cycles x 2 ns + 3 ns = 13 ns.
    EXPECT_EQ(dmi.get_read_latency(), sc_time(23, SC_NS));
    EXPECT_EQ(dmi.get_write_latency(), sc_time(13, SC_NS));
    // The pointer is the page itself.
    dmi.get_dmi_ptr()[0x1234] = 0x9C;
    unsigned char b = 0;
    mem.store().read(0x1234, &b, 1);
    EXPECT_EQ(b, 0x9C);

    // The last, partial page ends at the end of the memory.
    tlm::tlm_dmi tail;
    ASSERT_TRUE(raw.dmi(0x4001'7000, tail));
    EXPECT_EQ(tail.get_start_address(), 0x4001'0000u);
    EXPECT_EQ(tail.get_end_address(), 0x4001'7FFFu);
  });
  EXPECT_EQ(mem.store().pages_allocated(), 2u);  // granting DMI for writing allocates the page
  EXPECT_EQ(core::stats().counter_value("mem.dmi_grants"), 2u);
}

// clear() is power-on contents (the fuzz harnesses reset DRAM with it between inputs): every DMI pointer handed out is
// invalidated first, as the pages behind them are then freed, and everything reads zero again.
TEST(Memory, ClearInvalidatesEveryDmiPointerThenFreesEveryPage) {
  core::Bus bus("bus");
  RawInitiator raw("raw");
  const auto& invalidated = raw.invalidated;
  core::Memory mem("mem", test_memory(256 * kKiB));
  bus.attach_initiator(raw.socket, "raw");
  bus.attach_target(mem.socket, "mem", 0x4000'0000, 256 * kKiB, {3, 0});
  test::run_thread([&] {
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(raw.dmi(0x4000'1000, dmi));
    dmi.get_dmi_ptr()[0x1000] = 0x5A;
    unsigned char data[4] = {1, 2, 3, 4};
    sc_time delay = sc_core::SC_ZERO_TIME;
    ASSERT_EQ(raw.access(tlm::TLM_WRITE_COMMAND, 0x4002'0010, data, 4, nullptr, 0, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.store().pages_allocated(), 2u);

    mem.clear();
    // The whole memory, in the initiator's (global) addresses.
    ASSERT_EQ(invalidated.size(), 1u);
    EXPECT_LE(invalidated[0].first, 0x4000'0000u);
    EXPECT_GE(invalidated[0].second, 0x4003'FFFFu);
    EXPECT_EQ(mem.store().pages_allocated(), 0u);
    unsigned char back[4] = {9, 9, 9, 9};
    ASSERT_EQ(raw.access(tlm::TLM_READ_COMMAND, 0x4002'0010, back, 4, nullptr, 0, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(std::vector<unsigned char>(back, back + 4), std::vector<unsigned char>(4, 0));
    unsigned char b = 1;
    mem.store().read(0x1000, &b, 1);
    EXPECT_EQ(b, 0);
  });
}

TEST(Memory, DmiIsRefusedWhenDisabled) {
  core::Bus bus("bus");
  RawInitiator raw("raw");
  core::MemoryParams p = test_memory();
  p.dmi = false;
  core::Memory mem("mem", p);
  bus.attach_initiator(raw.socket, "raw");
  bus.attach_target(mem.socket, "mem", 0, 1 * kMiB, {});
  test::run_thread([&] {
    tlm::tlm_dmi dmi;
    EXPECT_FALSE(raw.dmi(0x1000, dmi));
    // b_transport does not advertise DMI either.
    unsigned char d[4] = {};
    sc_time delay = sc_core::SC_ZERO_TIME;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x1000);
    gp.set_data_ptr(d);
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_dmi_allowed(true);
    raw.socket->b_transport(gp, delay);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(gp.is_dmi_allowed());
  });
  EXPECT_EQ(core::stats().counter_value("mem.dmi_grants"), 0u);
  EXPECT_EQ(mem.store().pages_allocated(), 0u);
}

TEST(Memory, LoadImageAndDumpImageRoundTrip) {
  core::Memory mem("mem", test_memory(4 * kMiB));
  // 1.5 MiB + 3 bytes: larger than the 1 MiB copy buffer, not a multiple of anything.
  const std::size_t n = static_cast<std::size_t>(3 * kMiB / 2 + 3);
  std::vector<unsigned char> image(n);
  for (std::size_t i = 0; i < n; ++i) image[i] = static_cast<unsigned char>((i * 31 + 7) ^ (i >> 11));
  const std::string in_path = temp_path("in"), out_path = temp_path("out");
  {
    std::ofstream f(in_path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(n));
  }
  mem.load_image(in_path, 0x1001);
  unsigned char b[2];
  mem.store().read(0x1000, b, 2);  // one byte before the image, then its first byte
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], image[0]);
  mem.store().read(0x1001 + n - 1, b, 2);  // its last byte, then one after
  EXPECT_EQ(b[0], image[n - 1]);
  EXPECT_EQ(b[1], 0);

  mem.dump_image(out_path, 0x1001, n);
  EXPECT_EQ(read_file(out_path), image);
  // A dump of untouched memory is zeros, and a zero-length dump is an empty file.
  mem.dump_image(out_path, 3 * kMiB, 100);
  EXPECT_EQ(read_file(out_path), std::vector<unsigned char>(100, 0));
  mem.dump_image(out_path, 0, 0);
  EXPECT_TRUE(read_file(out_path).empty());
  std::remove(in_path.c_str());
  std::remove(out_path.c_str());
}

TEST(Memory, LoadImageErrorsNameTheFileAndTheRange) {
  core::Memory mem("dram", test_memory(1 * kMiB));
  const std::string missing = temp_path("missing");
  std::remove(missing.c_str());
  try {
    mem.load_image(missing, 0);
    ADD_FAILURE() << "loading a missing file succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read image file '" + missing + "'");
  }

  const std::string big = temp_path("big");
  {
    std::ofstream f(big, std::ios::binary);
    std::vector<char> z(8192, 1);
    f.write(z.data(), static_cast<std::streamsize>(z.size()));
  }
  try {
    mem.load_image(big, 1 * kMiB - 4096);  // 8 KiB into the last 4 KiB
    ADD_FAILURE() << "an image too large was loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "image file '" + big + "' (8192 bytes) does not fit in dram at offset 0xff000");
  }
  EXPECT_EQ(mem.store().pages_allocated(), 0u);           // nothing was copied
  EXPECT_NO_THROW(mem.load_image(big, 1 * kMiB - 8192));  // exactly fits
  EXPECT_EQ(mem.store().pages_allocated(), 1u);
  std::remove(big.c_str());

  try {
    mem.dump_image(temp_path("x"), 1 * kMiB - 4, 8);
    ADD_FAILURE() << "a dump beyond the end succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "dump range 0xffffc+0x8 is outside dram");
  }
  const std::string bad_dir = temp_path("no_such_dir") + "/out.bin";
  try {
    mem.dump_image(bad_dir, 0, 4);
    ADD_FAILURE() << "a dump into a missing directory succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write dump file '" + bad_dir + "'");
  }
}

TEST(Memory, LoadImageOfADirectoryIsUnreadable) {
  // std::ifstream opens a directory on Linux and tellg() reports LLONG_MAX, which used to surface as
  // "image file 'DIR' (9223372036854775807 bytes) does not fit"; it must be reported as unreadable.
  core::Memory mem("dram", test_memory(1 * kMiB));
  const std::string dir = std::filesystem::temp_directory_path().string();
  try {
    mem.load_image(dir, 0);
    ADD_FAILURE() << "loading a directory succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read image file '" + dir + "'");
  }
  EXPECT_EQ(mem.store().pages_allocated(), 0u);
}

TEST(Memory, StatisticsCountTransactionsAndBytesExactly) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::Memory mem("mem", test_memory());
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(mem.socket, "mem", 0, 1 * kMiB, {});
  test::run_thread([&] {
    std::vector<unsigned char> buf(64, 0x3C);
    EXPECT_EQ(cpu.write(0x0, buf.data(), 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.write(0x100, buf.data(), 16), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.write(0x200, buf.data(), 64), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.read(0x0, buf.data(), 8), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.read(0x200, buf.data(), 32), tlm::TLM_OK_RESPONSE);
    // Debug accesses are not counted.
    EXPECT_EQ(cpu.debug_read(0x0, buf.data(), 64), 64u);
    const std::vector<unsigned char> fresh(64, 0xC3);
    EXPECT_EQ(cpu.debug_write(0x400, fresh.data(), 64), 64u);
  });
  // writes: 3 transactions, 4 + 16 + 64 = 84 bytes; reads: 2 transactions, 8 + 32 = 40 bytes.
  EXPECT_EQ(core::stats().counter_value("mem.writes"), 3u);
  EXPECT_EQ(core::stats().counter_value("mem.bytes_written"), 84u);
  EXPECT_EQ(core::stats().counter_value("mem.reads"), 2u);
  EXPECT_EQ(core::stats().counter_value("mem.bytes_read"), 40u);
  EXPECT_EQ(core::stats().counter_value("mem.errors"), 0u);
  // Busy time is the transfer cycles: ceil(4/8)+ceil(16/8)+ceil(64/8)+ceil(8/8)+ceil(32/8) = 1+2+8+1+4 = 16 cycles
  // at 2 ns = 32 ns.
  EXPECT_EQ(core::stats().busy_times(core::now_ps()).at("mem.busy"), 32'000u);
  // The debug write really wrote.
  unsigned char b = 0;
  mem.store().read(0x43F, &b, 1);
  EXPECT_EQ(b, 0xC3);
}
