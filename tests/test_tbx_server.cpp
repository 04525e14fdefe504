// The TBX server against a test-side TCP client that does what NEO does (NEO tbx_sockets_imp.cpp: CONTROL at
// connect, GTT writes, physical memory writes and reads, MMIO writes and reads) and what a broken client does.
#include <chrono>
#include <csignal>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "hw/gen/engine_regs.h"
#include "hw/gen/gtt_regs.h"
#include "hw/gen/mi_commands.h"
#include "platform/platform.h"
#include "platform/stop_signal.h"
#include "platform/tbx_protocol.h"
#include "platform/tbx_server.h"
#include "tests/support/sc_test.h"
#include "tlm/core/stats.h"

using namespace gpuvp;
namespace tbx = platform::tbx;

namespace {

// A blocking client with NEO's message layouts.
class Client {
 public:
  explicit Client(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() { close(); }
  bool connected() const { return connected_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  void send_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (n > 0) {
      const ssize_t k = ::send(fd_, p, n, MSG_NOSIGNAL);
      if (k <= 0) return;
      p += k;
      n -= static_cast<std::size_t>(k);
    }
  }
  template <std::size_t N>
  void send_array(const std::array<std::uint8_t, N>& a) {
    send_bytes(a.data(), N);
  }
  void header(tbx::MsgType type, std::uint32_t size) {
    send_array(tbx::encode_header({static_cast<std::uint32_t>(type), trans_id_++, size}));
  }
  // Reads exactly n bytes; false at end of input.
  bool recv_bytes(void* out, std::size_t n) {
    auto* p = static_cast<std::uint8_t*>(out);
    while (n > 0) {
      const ssize_t k = ::recv(fd_, p, n, 0);
      if (k <= 0) return false;
      p += k;
      n -= static_cast<std::size_t>(k);
    }
    return true;
  }
  // True when the server closed the connection (nothing more arrives).
  bool closed_by_server() {
    std::uint8_t b;
    return ::recv(fd_, &b, 1, 0) == 0;
  }

  void control() {
    header(tbx::MsgType::kControlReq, tbx::kControlBodyBytes);
    send_array(tbx::encode_control({tbx::kControlHas, tbx::kControlHas | tbx::kControlTimeAdv | tbx::kControlAsync}));
  }
  void mmio_write(std::uint32_t offset, std::uint32_t value) {
    header(tbx::MsgType::kMmioReq, tbx::kMmioBodyBytes);
    tbx::MmioRequest r;
    r.write = true;
    r.offset = offset;
    r.data = value;
    send_array(tbx::encode_mmio(r));
  }
  // The answer's data, or 0xdeadbeef (as NEO) when the answer does not match.
  std::uint32_t mmio_read(std::uint32_t offset) {
    const std::uint32_t id = trans_id_;
    header(tbx::MsgType::kMmioReq, tbx::kMmioBodyBytes);
    tbx::MmioRequest r;
    r.offset = offset;
    send_array(tbx::encode_mmio(r));
    std::uint8_t answer[tbx::kMmioResponseBytes];
    if (!recv_bytes(answer, sizeof answer)) return 0xdeadbeef;
    const tbx::Header h = tbx::decode_header(answer);
    if (h.type != static_cast<std::uint32_t>(tbx::MsgType::kMmioRes) || h.trans_id != id || h.size != 4) {
      return 0xdeadbeef;
    }
    std::uint32_t v;
    std::memcpy(&v, answer + tbx::kHeaderBytes, 4);
    return v;
  }
  void gtt_write(std::uint32_t index, std::uint64_t entry) {
    header(tbx::MsgType::kGttReq, tbx::kGttBodyBytes);
    send_array(tbx::encode_gtt({true, index, entry}));
  }
  std::uint64_t gtt_read(std::uint32_t index) {
    const std::uint32_t id = trans_id_;
    header(tbx::MsgType::kGttReq, tbx::kGttBodyBytes);
    send_array(tbx::encode_gtt({false, index, 0}));
    std::uint8_t answer[tbx::kGttResponseBytes];
    if (!recv_bytes(answer, sizeof answer)) return ~0ULL;
    const tbx::Header h = tbx::decode_header(answer);
    if (h.type != static_cast<std::uint32_t>(tbx::MsgType::kGttRes) || h.trans_id != id || h.size != 8) return ~0ULL;
    std::uint64_t v;
    std::memcpy(&v, answer + tbx::kHeaderBytes, 8);
    return v;
  }
  void write_memory(std::uint64_t address, const std::vector<std::uint8_t>& data, bool frontdoor = false) {
    header(tbx::MsgType::kWriteDataReq, tbx::kDataBodyBytes);
    tbx::DataRequest r;
    r.write = true;
    r.frontdoor = frontdoor;
    r.address = address;
    r.size = static_cast<std::uint32_t>(data.size());
    send_array(tbx::encode_data(r));
    send_bytes(data.data(), data.size());
  }
  // The data answered, empty when the answer does not match the request.
  std::vector<std::uint8_t> read_memory(std::uint64_t address, std::uint32_t size) {
    const std::uint32_t id = trans_id_;
    header(tbx::MsgType::kReadDataReq, tbx::kDataBodyBytes);
    tbx::DataRequest r;
    r.address = address;
    r.size = size;
    send_array(tbx::encode_data(r));
    std::uint8_t answer[tbx::kReadDataResponseBytes];
    if (!recv_bytes(answer, sizeof answer)) return {};
    const tbx::Header h = tbx::decode_header(answer);
    const tbx::DataRequest res = tbx::decode_read_data_response(answer + tbx::kHeaderBytes);
    if (h.type != static_cast<std::uint32_t>(tbx::MsgType::kReadDataRes) || h.trans_id != id || h.size != 12 ||
        res.address != address || res.size != size) {
      return {};
    }
    std::vector<std::uint8_t> data(size);
    if (!recv_bytes(data.data(), size)) return {};
    return data;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::uint32_t trans_id_ = 0;
};

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7);
  return v;
}

// A default platform with a TBX server on a free port; run() serves the clients the body starts until the session
// ends.
class TbxServerTest : public ::testing::Test {
 protected:
  explicit TbxServerTest(const platform::PlatformParams& params = {})
      : platform_("gpuvp", params), server_("tbx", platform_, "tcp:127.0.0.1:0") {}

  void run(const std::function<void(int port)>& client_body) {
    std::thread client([&] { client_body(server_.port()); });
    sc_core::sc_start();
    client.join();
    EXPECT_TRUE(server_.finished());
  }
  std::uint64_t stat(const std::string& name) { return core::stats().counter_value("tbx." + name); }

  platform::Platform platform_;
  platform::TbxServer server_;
};

}  // namespace

TEST_F(TbxServerTest, NeoLikeSessionWritesAndReadsBack) {
  const std::vector<std::uint8_t> page = pattern(4096, 3);
  const std::vector<std::uint8_t> front = pattern(100, 99);
  std::uint32_t imr = 0, hws = 0, csb = 0;
  std::uint64_t gtt = 0;
  std::vector<std::uint8_t> back, front_back;
  run([&](int port) {
    Client c(port);
    ASSERT_TRUE(c.connected());
    c.control();
    c.gtt_write(3, 0x69003);        // GGTT page 3 -> physical 0x69000, present and writable
    c.write_memory(0x69000, page);  // backdoor, as NEO
    c.write_memory(0x6A010, front, true);
    c.mmio_write(0x2080, 0x3000);  // RCS HWS_PGA (i915 RING_HWS_PGA(0x2000))
    imr = c.mmio_read(0x44304);    // GEN8_GT_IMR(0): reset value all ones
    csb = c.mmio_read(0x23A0);     // RCS CONTEXT_STATUS_PTR: reset value 7 (write pointer 7 = "none yet")
    hws = c.mmio_read(0x2080);
    gtt = c.gtt_read(3);
    back = c.read_memory(0x69000, 4096);
    front_back = c.read_memory(0x6A010, 100);
  });
  EXPECT_FALSE(server_.failed()) << server_.failure();
  EXPECT_EQ(imr, 0xFFFFFFFFu);
  EXPECT_EQ(csb, 7u);
  EXPECT_EQ(hws, 0x3000u);
  EXPECT_EQ(gtt, 0x69003u);
  EXPECT_EQ(back, page);
  EXPECT_EQ(front_back, front);
  // The GGTT entry landed in the entry table in stolen memory (index 3: 24 bytes in), as i915's gen8_set_pte does.
  std::uint64_t pte = 0;
  platform_.host().debug_read(platform_.memory_map().gsm_base + 24, &pte, 8);
  EXPECT_EQ(pte, 0x69003u);
  EXPECT_EQ(stat("requests"), 11u);
  EXPECT_EQ(stat("mmio_writes"), 1u);
  EXPECT_EQ(stat("mmio_reads"), 3u);
  EXPECT_EQ(stat("gtt_writes"), 1u);
  EXPECT_EQ(stat("gtt_reads"), 1u);
  EXPECT_EQ(stat("memory_writes"), 2u);
  EXPECT_EQ(stat("bytes_written"), 4196u);
  EXPECT_EQ(stat("bytes_read"), 4196u);
  // Every read (3 MMIO, 1 GGTT, 2 memory) cost one poll interval of an idle GPU (host.poll_interval_ns = 100).
  EXPECT_EQ(stat("settle_ps"), 6u * 100'000u);
}

TEST_F(TbxServerTest, ReadsWaitUntilTheGpuIsIdle) {
  // A legacy ring on the RCS: 500 MI_NOOPs (about a microsecond of decoding), then MI_STORE_DATA_IMM of 0xC0FFEE to
  // GGTT 0x11000. The read right after the RING_TAIL write sees the stored value: the server ran the model until
  // the engine had nothing left to do.
  namespace mi = gen::mi;
  std::vector<std::uint32_t> ring(500, mi::instr(mi::kNoop, 0));
  for (std::uint32_t dw : {mi::instr(mi::kStoreDataImm, mi::kUseGgtt | 2), 0x11000u, 0u, 0xC0FFEEu}) ring.push_back(dw);
  std::vector<std::uint8_t> ring_bytes(ring.size() * 4);
  std::memcpy(ring_bytes.data(), ring.data(), ring_bytes.size());
  std::vector<std::uint8_t> stored;
  run([&](int port) {
    Client c(port);
    c.gtt_write(0x10, 0x100000 | gen::kPtePresent | gen::kPteWritable);  // the ring page
    c.gtt_write(0x11, 0x101000 | gen::kPtePresent | gen::kPteWritable);  // the target page
    c.write_memory(0x100000, ring_bytes);
    c.mmio_write(0x2000 + gen::engine_reg::kStart, 0x10000);
    c.mmio_write(0x2000 + gen::engine_reg::kHead, 0);
    c.mmio_write(0x2000 + gen::engine_reg::kCtl, 1);  // RING_VALID, one page
    c.mmio_write(0x2000 + gen::engine_reg::kTail, static_cast<std::uint32_t>(ring_bytes.size()));
    stored = c.read_memory(0x101000, 4);
  });
  EXPECT_EQ(stored, (std::vector<std::uint8_t>{0xEE, 0xFF, 0xC0, 0x00}));
  // More than one poll interval, less than the read wait (1 ms).
  EXPECT_GT(stat("settle_ps"), 100'000u);
  EXPECT_LT(stat("settle_ps"), 1'000'000'000u);
}

TEST_F(TbxServerTest, MalformedBodySizeClosesTheConnectionWithADiagnostic) {
  bool closed = false;
  run([&](int port) {
    Client c(port);
    c.control();
    c.header(tbx::MsgType::kMmioReq, 7);  // an MMIO_REQ body is 12 bytes
    c.send_bytes("1234567", 7);
    closed = c.closed_by_server();
  });
  EXPECT_TRUE(closed);
  EXPECT_EQ(server_.failure(),
            "tbx client 1: MMIO_REQ (transaction 1) has a body of 7 bytes, expected 12 (connection closed)");
  EXPECT_EQ(stat("protocol_errors"), 1u);
}

TEST_F(TbxServerTest, UnknownMessageIsSkippedAndTheSessionGoesOn) {
  std::uint32_t imr = 0;
  run([&](int port) {
    Client c(port);
    c.header(static_cast<tbx::MsgType>(26), 8);  // HAS_RPC_REQ: not served
    c.send_bytes("abcdefgh", 8);
    imr = c.mmio_read(0x44304);
  });
  EXPECT_EQ(imr, 0xFFFFFFFFu);
  EXPECT_EQ(server_.failure(),
            "tbx client 1: unsupported message type 26 (transaction 0, 8 body bytes) (message skipped)");
}

TEST_F(TbxServerTest, ClientGoneInTheMiddleOfAHeader) {
  run([&](int port) {
    Client c(port);
    c.control();
    c.send_bytes("\x04\x00\x00\x00\x09\x00", 6);
    c.close();
  });
  EXPECT_EQ(server_.failure(),
            "tbx client 1: disconnected in the middle of a message header (6 of 12 bytes) (connection closed)");
}

TEST_F(TbxServerTest, ClientGoneInTheMiddleOfWriteData) {
  run([&](int port) {
    Client c(port);
    c.header(tbx::MsgType::kWriteDataReq, tbx::kDataBodyBytes);
    tbx::DataRequest r;
    r.write = true;
    r.address = 0x10000;
    r.size = 4096;
    c.send_array(tbx::encode_data(r));
    c.send_bytes(pattern(1000, 1).data(), 1000);
    c.close();
  });
  EXPECT_EQ(server_.failure(),
            "tbx client 1: disconnected in the middle of the data of a memory write of 0x1000 bytes at 0x10000 (0x3e8 "
            "bytes received) (connection closed)");
}

TEST_F(TbxServerTest, AccessesOutsideDramAreRefusedWithAGuestError) {
  std::vector<std::uint8_t> back;
  std::uint32_t after = 0;
  run([&](int port) {
    Client c(port);
    c.write_memory(0xF0000000, pattern(64, 5));  // in the PCI hole above the 2 GiB of DRAM
    back = c.read_memory(0xF0000000, 64);
    after = c.mmio_read(0x44304);  // the connection goes on
  });
  EXPECT_FALSE(server_.failed());
  EXPECT_EQ(back, std::vector<std::uint8_t>(64, 0));
  EXPECT_EQ(after, 0xFFFFFFFFu);
  const auto reports = test::take_reports(sc_core::SC_ERROR, "outside DRAM");
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].message, "client 1: memory write of 0x40 bytes at 0xf0000000: outside DRAM; dropped");
  EXPECT_EQ(reports[1].message, "client 1: memory read of 0x40 bytes at 0xf0000000: outside DRAM; answered with zeros");
}

TEST_F(TbxServerTest, SeveralConnectionsAsNeoOpensOnePerCommandStreamReceiver) {
  std::uint32_t second = 0;
  run([&](int port) {
    Client a(port);
    Client b(port);
    a.control();
    b.control();
    a.mmio_write(0x2080, 0x5000);
    second = b.mmio_read(0x2080);
  });
  EXPECT_EQ(second, 0x5000u);
  EXPECT_EQ(stat("connections"), 2u);
  EXPECT_FALSE(server_.failed());
}

// A client that asks for a large read and stops reading fills the socket: the server's send must still see a stop
// (here --max-wall-time's SIGALRM) and let the run end, as a blocked read does.
TEST_F(TbxServerTest, AClientThatStopsReadingDoesNotHoldTheRunPastTheWallTimeLimit) {
  platform::install_stop_signals();
  platform::arm_wall_time_limit(0.5);
  std::thread client([&] {
    Client c(server_.port());
    c.header(tbx::MsgType::kReadDataReq, tbx::kDataBodyBytes);
    tbx::DataRequest r;
    r.address = 0;
    r.size = 256u << 20;  // far more than the socket buffers hold
    c.send_array(tbx::encode_data(r));
    std::this_thread::sleep_for(std::chrono::seconds(4));  // never reads; then goes away
  });
  const auto start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  client.join();
  EXPECT_LT(took, 2.0) << "the run waited for the client to go away";
  EXPECT_EQ(platform::stop_signal(), SIGALRM);
  EXPECT_FALSE(server_.finished());
}

platform::PlatformParams short_gpu_wait() {
  platform::PlatformParams p;
  p.host.gpu_wait_limit_ns = 1'000'000;  // 1 ms
  return p;
}

class TbxServerShortWaitTest : public TbxServerTest {
 protected:
  TbxServerShortWaitTest() : TbxServerTest(short_gpu_wait()) {}
};

// Found by fuzz_tbx: a client that leaves an engine waiting on a semaphore nobody will signal and goes away kept the
// server draining for ever (the engine is busy, not hung: the host may still write the semaphore). The drain ends at
// host.gpu_wait_limit_ns with a warning, and the session counts as finished.
TEST_F(TbxServerShortWaitTest, AnEngineWaitingForEverOnASemaphoreDoesNotKeepTheSessionGoing) {
  namespace mi = gen::mi;
  std::vector<std::uint32_t> ring = mi::semaphore_wait(0x11000, 0x600D, mi::Compare::kEqual);  // never written
  ring.resize(8, 0);
  std::vector<std::uint8_t> ring_bytes(ring.size() * 4);
  std::memcpy(ring_bytes.data(), ring.data(), ring_bytes.size());
  run([&](int port) {
    Client c(port);
    c.gtt_write(0x10, 0x100000 | gen::kPtePresent | gen::kPteWritable);
    c.gtt_write(0x11, 0x101000 | gen::kPtePresent | gen::kPteWritable);
    c.write_memory(0x100000, ring_bytes);
    c.mmio_write(0x2000 + gen::engine_reg::kStart, 0x10000);
    c.mmio_write(0x2000 + gen::engine_reg::kHead, 0);
    c.mmio_write(0x2000 + gen::engine_reg::kCtl, 1);
    c.mmio_write(0x2000 + gen::engine_reg::kTail, static_cast<std::uint32_t>(ring_bytes.size()));
  });
  EXPECT_FALSE(server_.failed()) << server_.failure();
  EXPECT_TRUE(platform_.gen()->busy()) << "the engine still waits";
  EXPECT_GE(stat("drain_ps"), 1'000'000'000u);
  EXPECT_LT(stat("drain_ps"), 1'001'000'000u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "after the session ended (host.gpu_wait_limit_ns)").size(), 1u);
}

// In-process sessions (what fuzz_tbx drives): no listening socket; each attach() of one end of a socketpair starts a
// session, which ends without stopping the simulation, and the next attach starts another.
namespace {

struct InProcessSession {
  bool finished = false, failed = false;
  std::string failure;
  std::vector<std::uint32_t> reads;  // each MMIO read's answer, in order
};

using MmioRequests = std::vector<std::pair<std::uint32_t, std::optional<std::uint32_t>>>;

// Runs one in-process session of MMIO requests (offset, and the value of a write; none: a read) on `server`, the
// client sending them all and reading every answer; the simulation runs until the session ends.
InProcessSession run_in_process_session(platform::TbxServer& server, const MmioRequests& mmio) {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  server.attach(fds[1]);
  EXPECT_TRUE(server.in_session());
  std::vector<std::uint8_t> request;
  const auto put = [&request](const auto& a) { request.insert(request.end(), a.begin(), a.end()); };
  std::size_t reads = 0;
  std::uint32_t id = 0;
  for (const auto& [offset, value] : mmio) {
    tbx::MmioRequest m;
    m.write = value.has_value();
    m.offset = offset;
    m.data = value.value_or(0);
    reads += m.write ? 0 : 1;
    put(tbx::encode_header({static_cast<std::uint32_t>(tbx::MsgType::kMmioReq), ++id, tbx::kMmioBodyBytes}));
    put(tbx::encode_mmio(m));
  }
  std::vector<std::uint8_t> answers(reads * tbx::kMmioResponseBytes);
  std::size_t got = 0;
  std::thread client([&] {
    ::send(fds[0], request.data(), request.size(), MSG_NOSIGNAL);
    ::shutdown(fds[0], SHUT_WR);
    for (ssize_t k; got < answers.size() && (k = ::recv(fds[0], answers.data() + got, answers.size() - got, 0)) > 0;) {
      got += static_cast<std::size_t>(k);
    }
    ::close(fds[0]);
  });
  for (int i = 0; i < 100000 && server.in_session(); ++i) sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
  client.join();
  EXPECT_FALSE(server.in_session());
  InProcessSession result{server.finished(), server.failed(), server.failure(), {}};
  for (std::size_t r = 0; (r + 1) * tbx::kMmioResponseBytes <= got; ++r) {
    std::uint32_t value = 0;
    std::memcpy(&value, answers.data() + r * tbx::kMmioResponseBytes + tbx::kHeaderBytes, 4);
    result.reads.push_back(value);
  }
  return result;
}

}  // namespace

TEST(TbxServerInProcess, SessionsFollowEachOtherWithoutStoppingTheSimulation) {
  platform::Platform soc("gpuvp", platform::PlatformParams{});
  platform::TbxServer server("tbx", soc, "");
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  // RCS HWS_PGA written, then read back.
  const auto session = [&](std::uint32_t value) {
    const InProcessSession s = run_in_process_session(server, {{0x2080, value}, {0x2080, std::nullopt}});
    EXPECT_TRUE(s.finished);
    EXPECT_FALSE(s.failed) << s.failure;
    EXPECT_EQ(s.reads.size(), 1u);
    return s.reads.empty() ? 0 : s.reads[0];
  };
  EXPECT_EQ(session(0x3000), 0x3000u);
  EXPECT_EQ(session(0x5000), 0x5000u);
  EXPECT_NE(sc_core::sc_get_status(), sc_core::SC_STOPPED);
  EXPECT_EQ(core::stats().counter_value("tbx.connections"), 2u);
}

// An engine stopped on an error in one session does not fail the next: the stall check counts the incidents since
// its session began, and the engine is reset at the next session's start (as the kernel's hang recovery would). The
// first session starts the render ring at an unmapped GGTT address (the fetch faults: an incident) and reads on past
// the stall timeout (5 us): it fails as stalled. The second only reads, as long: it finishes (before the baseline was
// per session, the first session's incident failed it too). The third faults the ring again: the engine, reset, ran
// and failed anew, and the session fails on its own incident.
TEST(TbxServerInProcess, AnEarlierSessionsEngineErrorDoesNotFailTheNext) {
  platform::PlatformParams params;
  params.host.tbx_stall_timeout_ns = 5'000;
  platform::Platform soc("gpuvp", params);
  platform::TbxServer server("tbx", soc, "");
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  const MmioRequests reads(200, {0x2080, std::nullopt});
  MmioRequests faulting = {{0x2000 + gen::engine_reg::kStart, 0x7000000},
                           {0x2000 + gen::engine_reg::kHead, 0},
                           {0x2000 + gen::engine_reg::kCtl, 1},
                           {0x2000 + gen::engine_reg::kTail, 0x40}};
  faulting.insert(faulting.end(), reads.begin(), reads.end());
  const InProcessSession first = run_in_process_session(server, faulting);
  EXPECT_TRUE(first.failed);
  EXPECT_NE(first.failure.find("the GPU stopped on an error or hang (rcs"), std::string::npos) << first.failure;
  const InProcessSession second = run_in_process_session(server, reads);
  EXPECT_FALSE(second.failed) << second.failure;
  EXPECT_TRUE(second.finished);
  EXPECT_EQ(second.reads.size(), 200u);
  const InProcessSession third = run_in_process_session(server, faulting);
  EXPECT_TRUE(third.failed);
  EXPECT_NE(third.failure.find("the GPU stopped on an error or hang (rcs"), std::string::npos) << third.failure;
  // The fault's reports (the GTT's and the engine's), once per faulting session.
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "translation fault: client rcs, GGTT address 0x7000000").size(),
            2u);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "rcs: command fetch at 0x7000000 failed").size(), 2u);
}
