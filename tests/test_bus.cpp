// Bus: decode, address translation, latency accumulation, contention, DMI forwarding and invalidation, errors.
#include <cstring>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include "tests/support/sc_test.h"
#include "tlm/core/bus.h"
#include "tlm/core/initiator.h"
#include "tlm/core/memory.h"
#include "tlm/core/register_block.h"

using namespace gpuvp;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// A target that records the local address it saw and adds a fixed latency.
class ProbeTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ProbeTarget> socket;
  std::uint64_t last_address = ~0ULL;
  unsigned calls = 0;
  sc_time latency;

  ProbeTarget(sc_core::sc_module_name name, sc_time latency_) : sc_module(name), socket("socket"), latency(latency_) {
    socket.register_b_transport(this, &ProbeTarget::b_transport);
    socket.register_transport_dbg(this, &ProbeTarget::transport_dbg);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
    last_address = t.get_address();
    ++calls;
    delay += latency;
    if (t.is_read()) std::memset(t.get_data_ptr(), 0xA5, t.get_data_length());
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& t) {
    last_address = t.get_address();
    return t.get_data_length();
  }
};

core::MemoryParams small_memory() {
  core::MemoryParams p;
  p.size = 1 << 20;
  p.read_latency_cycles = 10;
  p.write_latency_cycles = 5;
  p.bytes_per_cycle = 8;
  p.clock_hz = 1'000'000'000;  // 1 ns cycles
  return p;
}

}  // namespace

TEST(Bus, DecodesWindowsAndTranslatesToTargetLocalAddresses) {
  core::Bus bus("bus");  // 1 GHz: 1 cycle = 1 ns
  core::Initiator cpu("cpu");
  ProbeTarget a("a", sc_time(3, SC_NS)), b("b", sc_time(7, SC_NS));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(a.socket, "a", 0x1000, 0x1000, {2, 0});
  bus.attach_target(b.socket, "b", 0x8000, 0x100, {5, 0});
  test::run_thread([&] {
    std::uint32_t v = 0;
    EXPECT_EQ(cpu.read(0x1234, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(a.last_address, 0x234u);
    EXPECT_EQ(v, 0xA5A5A5A5u);
    EXPECT_EQ(cpu.read(0x80FC, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(b.last_address, 0xFCu);
    EXPECT_EQ(a.calls, 1u);
    EXPECT_EQ(b.calls, 1u);
  });
  ASSERT_NE(bus.decode(0x1FFF), nullptr);
  EXPECT_EQ(bus.decode(0x1FFF)->name, "a");
  EXPECT_EQ(bus.decode(0x2000), nullptr);
  EXPECT_EQ(bus.decode(0xFFF), nullptr);
}

TEST(Bus, LatencyIsHopPlusTargetAndAccumulatesInTheInitiatorsLocalTime) {
  core::set_global_quantum(1'000'000);  // 1 us: no sync during the test body
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  ProbeTarget a("a", sc_time(3, SC_NS));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(a.socket, "a", 0, 0x1000, {2, 0});
  test::run_thread([&] {
    std::uint32_t v;
    cpu.read(0, &v, 4);
    EXPECT_EQ(cpu.local_time().offset_ps(), 5'000u);  // 2 hop cycles at 1 GHz + 3 ns target
    cpu.read(4, &v, 4);
    EXPECT_EQ(cpu.local_time().offset_ps(), 10'000u);
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::SC_ZERO_TIME);  // decoupled: the kernel has not moved
    cpu.sync();
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(10, SC_NS));
  });
}

TEST(Bus, QuantumOfZeroSynchronisesAfterEveryAccess) {
  core::set_global_quantum(0);
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  ProbeTarget a("a", sc_time(3, SC_NS));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(a.socket, "a", 0, 0x1000, {2, 0});
  test::run_thread([&] {
    std::uint32_t v;
    cpu.read(0, &v, 4);
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(5, SC_NS));
    EXPECT_EQ(cpu.local_time().offset_ps(), 0u);
  });
}

TEST(Bus, AccessToAHoleIsAnAddressErrorCountedAndReported) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  ProbeTarget a("a", sc_time(1, SC_NS));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(a.socket, "a", 0x1000, 0x1000, {});
  test::run_thread([&] {
    std::uint64_t v = 0;
    EXPECT_EQ(cpu.read(0x5000, &v, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Starts inside the window but runs past its end.
    EXPECT_EQ(cpu.write(0x1FFC, &v, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(a.calls, 0u);
  });
  EXPECT_EQ(bus.address_errors(), 2u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0x5000").size(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "crosses the end of window 'a' at 0x1ffc").size(), 1u);
  std::uint32_t d = 0;
  EXPECT_EQ(cpu.debug_read(0x9000, &d, 4), 0u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0x9000").size(), 1u);
}

TEST(Bus, OverlappingWindowsAreRejectedAtConstruction) {
  core::Bus bus("bus");
  ProbeTarget a("a", sc_time(1, SC_NS)), b("b", sc_time(1, SC_NS));
  bus.attach_target(a.socket, "a", 0x1000, 0x1000, {});
  EXPECT_THROW(bus.attach_target(b.socket, "b", 0x1800, 0x1000, {}), std::invalid_argument);
}

TEST(Bus, DebugTransportIsTranslatedAndTakesNoTime) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  ProbeTarget a("a", sc_time(1, SC_NS));
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(a.socket, "a", 0x4000, 0x1000, {});
  test::run_thread([&] {
    std::uint32_t v;
    EXPECT_EQ(cpu.debug_read(0x4010, &v, 4), 4u);
    EXPECT_EQ(a.last_address, 0x10u);
    EXPECT_EQ(a.calls, 0u);  // b_transport untouched
    EXPECT_EQ(cpu.local_time().offset_ps(), 0u);
  });
}

namespace {
struct Worker : sc_core::sc_module {
  std::function<void()> body;
  Worker(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
    SC_HAS_PROCESS(Worker);
    SC_THREAD(run);
  }
  void run() { body(); }
};
}  // namespace

TEST(Bus, TwoInitiatorsHammeringOneTargetTakeLongerThanOne) {
  // The port moves 8 bytes per cycle at 1 GHz, so a 64-byte write occupies it for 8 ns. Memory adds no latency and
  // one transfer cycle. Alone, an access costs 1 hop + 8 occupancy + 1 = 10 ns and the port is free again when the
  // next one arrives: 100 writes take 1000 ns. Two initiators need the port for 200 x 8 ns = 1600 ns in total, so
  // the last one cannot finish before 1600 ns, and somebody must have queued.
  core::set_global_quantum(0);
  core::MemoryParams mp = small_memory();
  mp.write_latency_cycles = 0;
  mp.bytes_per_cycle = 64;
  core::Bus bus("bus");
  core::Memory mem("mem", mp);
  bus.attach_target(mem.socket, "mem", 0, 1 << 20, {1, 8});
  core::Initiator cpu0("cpu0"), cpu1("cpu1");
  bus.attach_initiator(cpu0.socket, "cpu0");
  bus.attach_initiator(cpu1.socket, "cpu1");
  sc_time finish[2];
  int done = 0;
  auto hammer = [&](core::Initiator& cpu, int index) {
    unsigned char line[64] = {};
    for (int n = 0; n < 100; ++n) ASSERT_EQ(cpu.write(0x1000 * index + 64 * n, line, 64), tlm::TLM_OK_RESPONSE);
    finish[index] = sc_core::sc_time_stamp();
    if (++done == 2) sc_core::sc_stop();
  };
  Worker w0("w0", [&] { hammer(cpu0, 0); });
  Worker w1("w1", [&] { hammer(cpu1, 1); });
  sc_core::sc_start();
  ASSERT_EQ(done, 2);
  EXPECT_GE(std::max(finish[0], finish[1]), sc_time(1600, SC_NS));
  EXPECT_GT(core::stats().counter_value("bus.mem.contention_wait_ps"), 0u);
  EXPECT_EQ(core::stats().counter_value("bus.mem.transactions"), 200u);
  EXPECT_EQ(core::stats().busy_times(core::now_ps()).at("bus.mem.busy"), 1600u * 1000u);
}

TEST(Bus, OneInitiatorAloneIsNotSlowedByTheContentionModel) {
  core::set_global_quantum(0);
  core::MemoryParams mp = small_memory();
  mp.write_latency_cycles = 0;
  mp.bytes_per_cycle = 64;
  core::Bus bus("bus");
  core::Memory mem("mem", mp);
  bus.attach_target(mem.socket, "mem", 0, 1 << 20, {1, 8});
  core::Initiator cpu("cpu");
  bus.attach_initiator(cpu.socket, "cpu");
  test::run_thread([&] {
    unsigned char line[64] = {};
    for (int n = 0; n < 100; ++n) cpu.write(64 * n, line, 64);
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(1000, SC_NS));
  });
  EXPECT_EQ(core::stats().counter_value("bus.mem.contention_wait_ps"), 0u);
}

TEST(Bus, ForwardsDmiWithGlobalAddressesAndInvalidatesIt) {
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::Memory mem("mem", small_memory());
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(mem.socket, "mem", 0x4000'0000, 1 << 20, {2, 0});
  cpu.set_mode(core::AccessMode::kDmi);
  test::run_thread([&] {
    std::uint32_t v = 0x11223344;
    ASSERT_EQ(cpu.write(0x4000'1000, &v, 4), tlm::TLM_OK_RESPONSE);  // b_transport, then the DMI grant
    ASSERT_EQ(cpu.dmi_cache().size(), 1u);
    const tlm::tlm_dmi* region = cpu.dmi_cache().region_for(0x4000'1000);
    ASSERT_NE(region, nullptr);
    // Memory grants its 64 KiB page; the bus hands it out in global addresses.
    EXPECT_EQ(region->get_start_address(), 0x4000'0000u);
    EXPECT_EQ(region->get_end_address(), 0x4000'FFFFu);
    // The pointer really is the memory: what DMI writes, b_transport/debug reads back.
    unsigned char* p = region->get_dmi_ptr() + 0x2000;
    p[0] = 0x5A;
    unsigned char back = 0;
    mem.store().read(0x2000, &back, 1);
    EXPECT_EQ(back, 0x5A);
    // Latency includes the hop (2 ns) on top of the memory's 10-cycle read latency.
    EXPECT_EQ(region->get_read_latency(), sc_time(12, SC_NS));
    const auto before = core::stats().counter_value("cpu.dmi_accesses");
    std::uint32_t r = 0;
    cpu.read(0x4000'1000, &r, 4);
    EXPECT_EQ(r, 0x11223344u);
    EXPECT_EQ(core::stats().counter_value("cpu.dmi_accesses"), before + 1);
    mem.invalidate_dmi();
    EXPECT_EQ(cpu.dmi_cache().size(), 0u);
  });
}

TEST(Bus, TwoWindowsOntoOneTargetTranslateDmiAndShareThePortsContention) {
  // The platform's remapped DRAM: [0x4000'0000, +0x8000) reaches memory [0, 0x8000) and [0x1'0000'0000, +0x8000)
  // reaches memory [0x8000, 0x10000); the memory grants DMI per 64 KiB page, which straddles both windows.
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::Memory mem("mem", small_memory());
  bus.attach_initiator(cpu.socket, "cpu");
  const unsigned port = bus.attach_target(mem.socket, "mem", 0x4000'0000, 0x8000, {2, 8});
  bus.map("mem_hi", 0x1'0000'0000, 0x8000, port, {2, 8}, 0x8000);
  EXPECT_THROW(bus.map("mem_hi", 0x2'0000'0000, 0x1000, port, {2, 8}, 0), std::invalid_argument);  // name in use
  ASSERT_EQ(bus.mappings().size(), 2u);
  EXPECT_EQ(bus.mappings()[1].target_offset, 0x8000u);
  cpu.set_mode(core::AccessMode::kDmi);
  test::run_thread([&] {
    std::uint32_t v = 0xA1B2C3D4;
    ASSERT_EQ(cpu.write(0x1'0000'0010, &v, 4), tlm::TLM_OK_RESPONSE);
    std::uint32_t in_memory = 0;
    mem.store().read(0x8010, reinterpret_cast<unsigned char*>(&in_memory), 4);
    EXPECT_EQ(in_memory, 0xA1B2C3D4u);
    // The grant for the upper window: the page [0, 0xFFFF] clipped to [0x8000, 0xFFFF], the pointer moved with it.
    ASSERT_NE(cpu.dmi_cache().region_for(0x1'0000'0010), nullptr);
    const tlm::tlm_dmi high = *cpu.dmi_cache().region_for(0x1'0000'0010);  // a copy: the cache may move its regions
    EXPECT_EQ(high.get_start_address(), 0x1'0000'0000u);
    EXPECT_EQ(high.get_end_address(), 0x1'0000'7FFFu);
    high.get_dmi_ptr()[0x20] = 0x5A;
    unsigned char back = 0;
    mem.store().read(0x8020, &back, 1);
    EXPECT_EQ(back, 0x5A);
    // The lower window gets its own half of the same page.
    ASSERT_EQ(cpu.write(0x4000'7FFC, &v, 4), tlm::TLM_OK_RESPONSE);
    ASSERT_NE(cpu.dmi_cache().region_for(0x4000'7FFC), nullptr);
    const tlm::tlm_dmi low = *cpu.dmi_cache().region_for(0x4000'7FFC);
    EXPECT_EQ(low.get_start_address(), 0x4000'0000u);
    EXPECT_EQ(low.get_end_address(), 0x4000'7FFFu);
    EXPECT_EQ(static_cast<void*>(low.get_dmi_ptr() + 0x8000), static_cast<void*>(high.get_dmi_ptr()));
    // An access crossing the end of the lower window is refused, although the memory behind it is contiguous.
    cpu.set_mode(core::AccessMode::kTransport);
    std::uint64_t q = 0;
    EXPECT_EQ(cpu.read(0x4000'7FFC, &q, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Invalidating the memory drops both windows' regions.
    mem.invalidate_dmi();
    EXPECT_EQ(cpu.dmi_cache().size(), 0u);
    // One port: an access through the upper window queues behind one through the lower at the same time. 64 bytes
    // at 8 bytes per cycle occupy the port 8 ns.
    cpu.sync();
    std::vector<unsigned char> block(64);
    sc_time d1 = sc_core::SC_ZERO_TIME, d2 = sc_core::SC_ZERO_TIME;
    tlm::tlm_generic_payload t1, t2;
    for (auto [t, addr] : {std::pair{&t1, 0x4000'0100ULL}, std::pair{&t2, 0x1'0000'0100ULL}}) {
      t->set_command(tlm::TLM_READ_COMMAND);
      t->set_address(addr);
      t->set_data_ptr(block.data());
      t->set_data_length(64);
      t->set_streaming_width(64);
    }
    cpu.socket->b_transport(t1, d1);
    cpu.socket->b_transport(t2, d2);
    // hop 2 + occupancy 8 + memory 10 + 8 transfer = 28 ns; the second waits the first's 8 ns of occupancy.
    EXPECT_EQ(d1, sc_time(28, SC_NS));
    EXPECT_EQ(d2, sc_time(36, SC_NS));
  });
  // Statistics are the port's: both windows count under "mem".
  EXPECT_EQ(core::stats().counter_value("bus.mem.contention_wait_ps"), 8000u);
  EXPECT_FALSE(core::stats().has("bus.mem_hi.transactions"));
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "access crosses the end of window 'mem'").size(), 1u);
}

TEST(Bus, AfterAnInvalidationTheInlineDmiPathFallsBackToTransport) {
  // The initiator's inline fast path keeps the last region: an invalidation must drop it too, or accesses would go
  // on through a stale pointer.
  core::Bus bus("bus");
  core::Initiator cpu("cpu");
  core::Memory mem("mem", small_memory());
  bus.attach_initiator(cpu.socket, "cpu");
  bus.attach_target(mem.socket, "mem", 0x4000'0000, 1 << 20, {2, 0});
  cpu.set_mode(core::AccessMode::kDmi);
  test::run_thread([&] {
    std::uint32_t v = 7;
    ASSERT_EQ(cpu.write(0x4000'0100, &v, 4), tlm::TLM_OK_RESPONSE);
    const auto transactions = core::stats().counter_value("cpu.transactions");
    const auto dmi = core::stats().counter_value("cpu.dmi_accesses");
    ASSERT_EQ(cpu.write(0x4000'0104, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(core::stats().counter_value("cpu.dmi_accesses"), dmi + 1);
    mem.invalidate_dmi();
    ASSERT_EQ(cpu.write(0x4000'0108, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(core::stats().counter_value("cpu.transactions"), transactions + 1);
    EXPECT_EQ(core::stats().counter_value("cpu.dmi_accesses"), dmi + 1);
    // A write-only use of the region does not serve a read of another page through it.
    std::uint32_t r = 0;
    ASSERT_EQ(cpu.read(0x4001'0000, &r, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(core::stats().counter_value("cpu.transactions"), transactions + 2);
  });
}

TEST(Initiator, DmiServesRepeatedAccessesWithTheGrantedLatencyAndDropsStaleRegions) {
  core::Bus bus("bus");
  core::Initiator port("gpu_port", core::Initiator::Counting::kReadsAndWrites);
  core::Memory mem("mem", small_memory());
  bus.attach_initiator(port.socket, "gpu");
  bus.attach_target(mem.socket, "mem", 0x4000'0000, 1 << 20, {2, 0});
  port.set_mode(core::AccessMode::kDmi);
  test::run_thread([&] {
    const std::uint32_t v = 0xCAFEF00D;
    sc_time delay = sc_core::SC_ZERO_TIME;
    ASSERT_EQ(port.write(0x4000'0200, &v, 4, delay), tlm::TLM_OK_RESPONSE);  // b_transport, then the grant
    EXPECT_EQ(port.dmi_accesses(), 0u);
    // Through DMI: a read from the write's page and a write to another granted page.
    delay = sc_core::SC_ZERO_TIME;
    std::uint32_t r = 0;
    ASSERT_EQ(port.read(0x4000'0200, &r, 4, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(r, 0xCAFEF00Du);
    EXPECT_EQ(port.dmi_accesses(), 1u);
    EXPECT_EQ(delay, sc_time(12, SC_NS));  // the 2 ns hop + the memory's 10-cycle read latency, no transfer cycles
    delay = sc_core::SC_ZERO_TIME;
    ASSERT_EQ(port.write(0x4000'0204, &v, 4, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(port.dmi_accesses(), 2u);
    EXPECT_EQ(port.reads() + port.writes(), 3u);
    std::uint32_t back = 0;
    mem.store().read(0x204, reinterpret_cast<unsigned char*>(&back), 4);
    EXPECT_EQ(back, 0xCAFEF00Du);
    mem.invalidate_dmi();
    ASSERT_EQ(port.read(0x4000'0200, &r, 4, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(port.dmi_accesses(), 2u);  // through the bus again
    EXPECT_EQ(core::stats().counter_value("mem.reads"), 1u);
  });
}

namespace {

// Two identical systems, bus_a/mem_a and bus_b/mem_b (a "dram" window each), saw the same traffic: every bus and
// memory statistic agrees.
// Two identical systems of a bus, a memory and an initiator (a and b), whose statistics tests compare.
struct TwoSystems {
  core::Bus bus_a{"bus_a"}, bus_b{"bus_b"};
  core::Memory mem_a{"mem_a", small_memory()}, mem_b{"mem_b", small_memory()};
  core::Initiator cpu_a{"cpu_a"}, cpu_b{"cpu_b"};
  TwoSystems() {
    bus_a.attach_target(mem_a.socket, "dram", 0, 1 << 20, {2, 8});
    bus_b.attach_target(mem_b.socket, "dram", 0, 1 << 20, {2, 8});
    bus_a.attach_initiator(cpu_a.socket, "cpu");
    bus_b.attach_initiator(cpu_b.socket, "cpu");
  }
};

void expect_same_bus_and_memory_statistics() {
  for (const char* stat : {"transactions", "dram.transactions", "dram.bytes", "dram.contention_wait_ps"}) {
    EXPECT_EQ(core::stats().counter_value(std::string("bus_a.") + stat),
              core::stats().counter_value(std::string("bus_b.") + stat))
        << stat;
  }
  for (const char* stat : {"reads", "writes", "bytes_read", "bytes_written"}) {
    EXPECT_EQ(core::stats().counter_value(std::string("mem_a.") + stat),
              core::stats().counter_value(std::string("mem_b.") + stat))
        << stat;
  }
  const auto busy = core::stats().busy_times(core::now_ps());
  EXPECT_EQ(busy.at("bus_a.dram.busy"), busy.at("bus_b.dram.busy"));
  EXPECT_EQ(busy.at("mem_a.busy"), busy.at("mem_b.busy"));
}

// A target that grants plain DMI onto its own buffer without answering a timed DMI request (as a third-party memory
// model would).
class PlainDmiTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PlainDmiTarget> socket;
  unsigned calls = 0;
  unsigned char buffer[4096] = {};

  explicit PlainDmiTarget(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &PlainDmiTarget::b_transport);
    socket.register_get_direct_mem_ptr(this, &PlainDmiTarget::get_direct_mem_ptr);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
    ++calls;
    delay += sc_time(7, SC_NS);
    unsigned char* p = buffer + t.get_address();
    if (t.is_read()) {
      std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    } else {
      std::memcpy(p, t.get_data_ptr(), t.get_data_length());
    }
    t.set_dmi_allowed(true);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(buffer);
    dmi.set_start_address(0);
    dmi.set_end_address(sizeof buffer - 1);
    dmi.allow_read_write();
    dmi.set_read_latency(sc_time(7, SC_NS));
    dmi.set_write_latency(sc_time(7, SC_NS));
    return true;
  }
};

}  // namespace

TEST(Initiator, TimedDmiChargesWhatTransportWouldIncludingContention) {
  // Two identical systems at the same kernel time, each with two GPU-like ports on a narrow DRAM port (8 bytes per
  // cycle, so 64- and 256-byte accesses queue behind each other): A reaches memory through b_transport, B through
  // timed DMI. After every access both ports' local offsets and the data read must agree, and at the end every bus
  // and memory statistic.
  core::Bus bus_a("bus_a"), bus_b("bus_b");
  core::Memory mem_a("mem_a", small_memory()), mem_b("mem_b", small_memory());
  core::Initiator a0("a0"), a1("a1"), b0("b0"), b1("b1");
  bus_a.attach_target(mem_a.socket, "dram", 0x4000'0000, 1 << 20, {2, 8});
  bus_b.attach_target(mem_b.socket, "dram", 0x4000'0000, 1 << 20, {2, 8});
  bus_a.attach_initiator(a0.socket, "p0");
  bus_a.attach_initiator(a1.socket, "p1");
  bus_b.attach_initiator(b0.socket, "p0");
  bus_b.attach_initiator(b1.socket, "p1");
  b0.set_mode(core::AccessMode::kTimedDmi);
  b1.set_mode(core::AccessMode::kTimedDmi);
  test::run_thread([&] {
    core::Initiator* ports_a[2] = {&a0, &a1};
    core::Initiator* ports_b[2] = {&b0, &b1};
    sc_time delay_a[2] = {sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME};
    sc_time delay_b[2] = {sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME};
    const unsigned lengths[] = {4, 8, 64, 256, 4, 64};
    std::uint32_t lfsr = 0xACE1u;
    for (int i = 0; i < 400; ++i) {
      lfsr = (lfsr >> 1) ^ (-(lfsr & 1u) & 0xB400u);
      const unsigned port = lfsr & 1;
      const bool write = (lfsr >> 1) & 1;
      const unsigned len = lengths[(lfsr >> 2) % 6];
      const std::uint64_t addr = 0x4000'0000 + ((lfsr >> 5) & 1) * 0x10000 + ((lfsr >> 6) & 0x3F) * 256;
      unsigned char out[256], in_a[256] = {}, in_b[256] = {};
      for (unsigned k = 0; k < len; ++k) out[k] = static_cast<unsigned char>(i + k);
      if (write) {
        ASSERT_EQ(ports_a[port]->write(addr, out, len, delay_a[port]), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(ports_b[port]->write(addr, out, len, delay_b[port]), tlm::TLM_OK_RESPONSE);
      } else {
        ASSERT_EQ(ports_a[port]->read(addr, in_a, len, delay_a[port]), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(ports_b[port]->read(addr, in_b, len, delay_b[port]), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(std::memcmp(in_a, in_b, len), 0) << "access " << i;
      }
      ASSERT_EQ(delay_a[port], delay_b[port]) << "access " << i << " port " << port << " len " << len;
      if (i % 16 == 15) {  // the kernel moves on; the ports' offsets shrink by as much
        const sc_time step(100, SC_NS);
        sc_core::wait(step);
        for (int p = 0; p < 2; ++p) {
          delay_a[p] = delay_a[p] > step ? delay_a[p] - step : sc_core::SC_ZERO_TIME;
          delay_b[p] = delay_b[p] > step ? delay_b[p] - step : sc_core::SC_ZERO_TIME;
        }
      }
    }
    // The transport side never used DMI, the timed side mostly did.
    EXPECT_EQ(a0.dmi_accesses() + a1.dmi_accesses(), 0u);
    EXPECT_GT(b0.dmi_accesses() + b1.dmi_accesses(), 350u);
    // An invalidation sends the next access through the bus again.
    mem_b.invalidate_dmi();
    const std::uint64_t dmi_before = b0.dmi_accesses();
    std::uint32_t v = 0;
    ASSERT_EQ(a0.read(0x4000'0000, &v, 4, delay_a[0]), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(b0.read(0x4000'0000, &v, 4, delay_b[0]), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(b0.dmi_accesses(), dmi_before);
    EXPECT_EQ(delay_a[0], delay_b[0]);
  });
  EXPECT_GT(core::stats().counter_value("bus_a.dram.contention_wait_ps"), 0u);
  expect_same_bus_and_memory_statistics();
}

TEST(Initiator, TimedDmiStaysOnTransportWhenATargetGrantsWithoutTiming) {
  // Without the target's stage the grant would lose its latency: the port keeps using b_transport. The same target
  // is used through plain DMI when asked for.
  core::Bus bus("bus");
  PlainDmiTarget target("target");
  core::Initiator timed("timed"), plain("plain");
  bus.attach_target(target.socket, "target", 0x1000, 4096, {2, 0});
  bus.attach_initiator(timed.socket, "timed");
  bus.attach_initiator(plain.socket, "plain");
  timed.set_mode(core::AccessMode::kTimedDmi);
  plain.set_mode(core::AccessMode::kDmi);
  test::run_thread([&] {
    std::uint32_t v = 0x12345678;
    for (int i = 0; i < 3; ++i) {
      sc_time d = sc_core::SC_ZERO_TIME;
      ASSERT_EQ(timed.write(0x1010, &v, 4, d), tlm::TLM_OK_RESPONSE);
      EXPECT_EQ(d, sc_time(9, SC_NS));  // 2 ns hop + the target's 7 ns, every time through the target
    }
    EXPECT_EQ(target.calls, 3u);
    EXPECT_EQ(timed.dmi_accesses(), 0u);
    for (int i = 0; i < 3; ++i) {
      sc_time d = sc_core::SC_ZERO_TIME;
      ASSERT_EQ(plain.read(0x1010, &v, 4, d), tlm::TLM_OK_RESPONSE);
      EXPECT_EQ(v, 0x12345678u);
      EXPECT_EQ(d, sc_time(9, SC_NS));  // the granted 7 ns + the bus's hop
    }
    EXPECT_EQ(target.calls, 4u);  // the first read went through the target and brought the grant
    EXPECT_EQ(plain.dmi_accesses(), 2u);
  });
}

TEST(Initiator, ParsesTheConfiguredAccessModes) {
  EXPECT_EQ(core::Initiator::parse_mode("transport"), core::AccessMode::kTransport);
  EXPECT_EQ(core::Initiator::parse_mode("timed_dmi"), core::AccessMode::kTimedDmi);
  EXPECT_EQ(core::Initiator::parse_mode("dmi"), core::AccessMode::kDmi);
  EXPECT_THROW(core::Initiator::parse_mode("fast"), std::invalid_argument);
}

TEST(Initiator, TimedDmiKeepsTheLocalTimeAndStatisticsOfTransport) {
  // The host-side initiator in timed DMI mode: the same local time after every access and the same bus and memory
  // statistics as one that issues a transaction per access, while serving most accesses through the pointer.
  core::set_global_quantum(core::kPsPerUs);
  TwoSystems two;
  auto &cpu_a = two.cpu_a, &cpu_b = two.cpu_b;
  cpu_b.set_mode(core::AccessMode::kTimedDmi);
  test::run_thread([&] {
    unsigned char line[64] = {};
    for (unsigned i = 0; i < 200; ++i) {
      const unsigned len = i % 3 == 0 ? 64 : 4;
      const std::uint64_t addr = (i % 7) * 0x10000 + (i % 13) * 64;
      line[0] = static_cast<unsigned char>(i);
      if (i % 2 == 0) {
        ASSERT_EQ(cpu_a.write(addr, line, len), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(cpu_b.write(addr, line, len), tlm::TLM_OK_RESPONSE);
      } else {
        unsigned char ra[64], rb[64];
        ASSERT_EQ(cpu_a.read(addr, ra, len), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(cpu_b.read(addr, rb, len), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(std::memcmp(ra, rb, len), 0) << "access " << i;
      }
      ASSERT_EQ(cpu_a.local_time().now(), cpu_b.local_time().now()) << "access " << i;
    }
  });
  EXPECT_EQ(core::stats().counter_value("cpu_a.dmi_accesses"), 0u);
  EXPECT_GT(core::stats().counter_value("cpu_b.dmi_accesses"), 150u);
  expect_same_bus_and_memory_statistics();
}

TEST(Initiator, ReadsOfNeverWrittenMemoryGetNoDmiPointerAndAllocateNothing) {
  // A guest scanning memory it never wrote must not make the model allocate it: such reads (and traffic) stay on
  // b_transport (and read zero) until the page is written.
  core::Bus bus("bus");
  core::Memory mem("mem", small_memory());
  core::Initiator port("port");
  bus.attach_target(mem.socket, "mem", 0, 1 << 20, {2, 0});
  bus.attach_initiator(port.socket, "port");
  port.set_mode(core::AccessMode::kTimedDmi);
  test::run_thread([&] {
    for (std::uint64_t addr = 0; addr < (1 << 20); addr += 4096) {
      std::uint32_t v = 0xFFFFFFFF;
      sc_time d = sc_core::SC_ZERO_TIME;
      ASSERT_EQ(port.read(addr, &v, 4, d), tlm::TLM_OK_RESPONSE);
      EXPECT_EQ(v, 0u);
    }
    EXPECT_EQ(mem.store().pages_allocated(), 0u);
    EXPECT_EQ(port.dmi_accesses(), 0u);
    // Nor may traffic (accesses without data: the EU array's DRAM lines), writes included: they write nothing.
    for (std::uint64_t addr = 0; addr < (1 << 20); addr += 4096) {
      sc_time t = sc_core::SC_ZERO_TIME;
      ASSERT_EQ(port.traffic(addr, 64, addr % 8192 == 0, t), tlm::TLM_OK_RESPONSE);
    }
    EXPECT_EQ(mem.store().pages_allocated(), 0u);
    EXPECT_EQ(port.dmi_accesses(), 0u);
    const std::uint32_t one = 1;
    sc_time d = sc_core::SC_ZERO_TIME;
    ASSERT_EQ(port.write(0x20000, &one, 4, d), tlm::TLM_OK_RESPONSE);
    std::uint32_t v = 0;
    ASSERT_EQ(port.read(0x20004, &v, 4, d), tlm::TLM_OK_RESPONSE);  // the written page: through its pointer
    EXPECT_EQ(port.dmi_accesses(), 1u);
    EXPECT_EQ(mem.store().pages_allocated(), 1u);
  });
}

// Traffic (Initiator::traffic): the time and statistics of an access whose data moved elsewhere. Against an initiator
// that reads and writes the same addresses and lengths, through transport and through timed DMI: the same delays and
// the same bus and memory statistics, and the memory behind the traffic keeps every byte.
namespace {
void traffic_against_accesses(core::AccessMode mode) {
  core::set_global_quantum(core::kPsPerUs);
  TwoSystems two;
  auto &cpu_a = two.cpu_a, &cpu_b = two.cpu_b;
  cpu_a.set_mode(mode);
  cpu_b.set_mode(mode);
  // Memory with a pattern in both, so that reads may get DMI pointers.
  std::vector<unsigned char> pattern(1 << 20);
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<unsigned char>(i * 7 + 3);
  two.mem_a.store().write(0, pattern.data(), pattern.size());
  two.mem_b.store().write(0, pattern.data(), pattern.size());
  test::run_thread([&] {
    sc_time delay_a = sc_core::SC_ZERO_TIME, delay_b = sc_core::SC_ZERO_TIME;
    unsigned char line[64] = {};
    for (unsigned i = 0; i < 200; ++i) {
      const unsigned len = i % 3 == 0 ? 64 : 4;
      const std::uint64_t addr = (i % 7) * 0x10000 + (i % 13) * 64;
      const bool write = i % 2 == 0;
      ASSERT_EQ(write ? cpu_a.write(addr, line, len, delay_a) : cpu_a.read(addr, line, len, delay_a),
                tlm::TLM_OK_RESPONSE);
      ASSERT_EQ(cpu_b.traffic(addr, len, write, delay_b), tlm::TLM_OK_RESPONSE);
      ASSERT_EQ(delay_a, delay_b) << "access " << i;
    }
  });
  expect_same_bus_and_memory_statistics();
  EXPECT_EQ(core::stats().counter_value("cpu_b.transactions"), core::stats().counter_value("cpu_a.transactions"));
  std::vector<unsigned char> after(pattern.size());
  two.mem_b.store().read(0, after.data(), after.size());
  EXPECT_TRUE(after == pattern);
}
}  // namespace

TEST(Initiator, TrafficThroughTransportTakesTheTimeAndStatisticsOfAccessesAndMovesNoByte) {
  traffic_against_accesses(core::AccessMode::kTransport);
  EXPECT_EQ(core::stats().counter_value("cpu_b.dmi_accesses"), 0u);
}

TEST(Initiator, TrafficThroughTimedDmiTakesTheTimeAndStatisticsOfAccessesAndMovesNoByte) {
  traffic_against_accesses(core::AccessMode::kTimedDmi);
  EXPECT_GT(core::stats().counter_value("cpu_b.dmi_accesses"), 150u);
  EXPECT_EQ(core::stats().counter_value("cpu_b.dmi_accesses"), core::stats().counter_value("cpu_a.dmi_accesses"));
}

// A target that takes no byte enables (registers) answers traffic with an error.
TEST(Initiator, TrafficToRegistersIsAByteEnableError) {
  core::Bus bus("bus");
  core::RegisterBlock block("block", 0x1000, core::ClockDomain("block", 1'000'000'000), 1);
  core::Initiator cpu("cpu");
  bus.attach_target(block.socket, "mmio", 0, 0x1000, {2, 4});
  bus.attach_initiator(cpu.socket, "cpu");
  test::run_thread([&] {
    sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(cpu.traffic(0x10, 4, true, delay), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  });
  EXPECT_EQ(core::stats().counter_value("cpu.errors"), 1u);
}
