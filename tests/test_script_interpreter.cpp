// The host script protocol, command by command, against the default platform; and the socket transport.
#include <cctype>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hw/gen/mi_commands.h"
#include "platform/line_channel.h"
#include "platform/platform.h"
#include "platform/script_interpreter.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"
#include "tests/support/timed_store.h"

using namespace gpuvp;
using platform::ScriptAnswer;

namespace {

// Runs lines through an interpreter on a default platform and returns the answers.
class ScriptTest : public ::testing::Test {
 protected:
  ScriptTest() : platform_("gpuvp", platform::PlatformParams{}), interp_(platform_, "") {}

  std::vector<ScriptAnswer> run(const std::vector<std::string>& lines) {
    std::vector<ScriptAnswer> answers;
    test::run_thread([&] {
      for (const auto& l : lines) answers.push_back(interp_.execute(l));
    });
    return answers;
  }
  std::string answer(const std::string& line) { return run({line}).at(0).text; }

  platform::Platform platform_;
  platform::ScriptInterpreter interp_;
};

}  // namespace

TEST_F(ScriptTest, WritesAndReadsOfEveryWidthAreLittleEndian) {
  auto a = run({"writeq 0x1000 0x0807060504030201", "readb 0x1000", "readw 0x1002", "readl 0x1004", "readq 0x1000",
                "writeb 0x1001 0xff", "readl 0x1000", "writew 0x1006 0xbeef", "readq 0x1000"});
  EXPECT_EQ(a[0].text, "OK");
  EXPECT_EQ(a[1].text, "OK 0x0000000000000001");
  EXPECT_EQ(a[2].text, "OK 0x0000000000000403");
  EXPECT_EQ(a[3].text, "OK 0x0000000008070605");
  EXPECT_EQ(a[4].text, "OK 0x0807060504030201");
  EXPECT_EQ(a[6].text, "OK 0x000000000403ff01");
  EXPECT_EQ(a[8].text, "OK 0xbeef06050403ff01");
  for (const auto& x : a) EXPECT_FALSE(x.error) << x.text;
}

TEST_F(ScriptTest, BulkWriteReadAndMemset) {
  auto a = run({"write 0x2000 4 0xdeadbeef", "read 0x2000 4", "readl 0x2000", "memset 0x2001 2 0x5a", "read 0x2000 4",
                "memset 0x3000 10000 0x11", "readb 0x570f", "readb 0x5710"});
  EXPECT_EQ(a[0].text, "OK");
  EXPECT_EQ(a[1].text, "OK 0xdeadbeef");
  EXPECT_EQ(a[2].text, "OK 0x00000000efbeadde");  // bytes de ad be ef, little-endian dword
  EXPECT_EQ(a[3].text, "OK");
  EXPECT_EQ(a[4].text, "OK 0xde5a5aef");
  EXPECT_EQ(a[6].text, "OK 0x0000000000000011");  // 10000 = 0x2710 bytes: 0x570f is the last one set
  EXPECT_EQ(a[7].text, "OK 0x0000000000000000");  // one past the end untouched
}

TEST_F(ScriptTest, ExpectComparesUnderMask) {
  auto a = run({"writel 0x100 0x12345678", "expectl 0x100 0x12345678", "expectl 0x100 0x5678 0xffff",
                "expectl 0x100 0x5679 0xffff", "expectb 0x103 0x12"});
  EXPECT_EQ(a[1].text, "OK 0x0000000012345678");
  EXPECT_EQ(a[2].text, "OK 0x0000000012345678");
  EXPECT_TRUE(a[3].error);
  EXPECT_EQ(a[3].text, "ERR expect failed at 0x100: expected 0x5679, actual 0x12345678 (mask 0xffff)");
  EXPECT_EQ(a[4].text, "OK 0x0000000000000012");
}

TEST_F(ScriptTest, ClockStepAdvancesSimulatedTimeAndAnswersIt) {
  auto a = run({"clock_step 250", "clock_step 1000", "clock_step"});
  EXPECT_EQ(a[0].text, "OK 250");
  EXPECT_EQ(a[1].text, "OK 1250");
  // Nothing scheduled in the model: one quantum (1 us by default).
  EXPECT_EQ(a[2].text, "OK 2250");
}

// SystemC's time ends at 2^64 - 1 ps: a step past it is an error, not an OK while time stands still.
TEST_F(ScriptTest, ClockStepPastTheEndOfSimulatedTimeIsAnError) {
  const auto a = run({"clock_step 1", "clock_step 18446744073709551"});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].text, "OK 1");
  EXPECT_EQ(a[1].text,
            "ERR clock_step of 18446744073709551 ns goes past the end of simulated time (2^64 - 1 ps, at 1 ns now)");
}

TEST_F(ScriptTest, CommentsAndBlankLinesAreNotAnswered) {
  auto a = run({"", "   ", "# a comment", "readl 0x0 # trailing comment"});
  EXPECT_EQ(a[0].text, "");
  EXPECT_EQ(a[1].text, "");
  EXPECT_EQ(a[2].text, "");
  EXPECT_EQ(a[3].text, "OK 0x0000000000000000");
  EXPECT_EQ(interp_.commands(), 1u);
}

struct MalformedCase {
  const char* command;
  const char* answer;
};
// The case name in test listings, not its bytes.
void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.command; }

class MalformedCommands : public ScriptTest, public ::testing::WithParamInterface<MalformedCase> {};

TEST_P(MalformedCommands, AnswerErrWithTheReason) {
  const auto a = run({GetParam().command});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].error);
  EXPECT_EQ(a[0].text, GetParam().answer);
}

INSTANTIATE_TEST_SUITE_P(
    Script, MalformedCommands,
    ::testing::Values(MalformedCase{"frob 1 2", "ERR unknown command 'frob'"},
                      MalformedCase{"readl", "ERR usage: readl ADDR"},
                      MalformedCase{"readl zz", "ERR bad address 'zz'"},
                      MalformedCase{"writeb 0x0 0x100", "ERR value does not fit in 1 bytes"},
                      MalformedCase{"writel 0x0 1 2", "ERR usage: writel ADDR VALUE"},
                      MalformedCase{"write 0x0 2 0xabc", "ERR data must be 0x followed by exactly 4 hex digits"},
                      MalformedCase{"write 0x0 2 0xabzz", "ERR bad hex digit in data"},
                      MalformedCase{"read 0x0 0", "ERR bad size '0' (1..1048576)"},
                      MalformedCase{"read 0x0 99999999", "ERR bad size '99999999' (1..1048576)"},
                      MalformedCase{"memset 0x0 4 256", "ERR bad byte '256'"},
                      MalformedCase{"expectl 0x0", "ERR usage: expectl ADDR VALUE [MASK]"},
                      MalformedCase{"clock_step -5", "ERR bad time '-5'"},
                      MalformedCase{"irq_wait nosuchline 10", "ERR no interrupt line 'nosuchline'"},
                      MalformedCase{"irq_wait gen", "ERR usage: irq_wait LINE TIMEOUT_NS"},
                      MalformedCase{"load 0x0 /nonexistent/image.bin", "ERR cannot read file '/nonexistent/image.bin'"},
                      MalformedCase{"readl 0x10K", "ERR bad address '0x10K'"},
                      MalformedCase{"polll 0x0 1", "ERR usage: polll ADDR VALUE [MASK] TIMEOUT_NS"},
                      MalformedCase{"polll", "ERR usage: polll ADDR VALUE [MASK] TIMEOUT_NS"},
                      MalformedCase{"pollq 0x0 1 2 3 4", "ERR usage: pollq ADDR VALUE [MASK] TIMEOUT_NS"},
                      MalformedCase{"polll 0x0 1 soon", "ERR bad timeout 'soon'"},
                      MalformedCase{"pollb 0x0 0x100 10", "ERR value does not fit in 1 bytes"},
                      MalformedCase{"pollw 0x0 1 0x1ffff 10", "ERR value does not fit in 2 bytes"},
                      MalformedCase{"polll 0x0 1 0xzz 10", "ERR bad mask '0xzz'"},
                      MalformedCase{"polll 0x0 one 10", "ERR bad value 'one'"},
                      MalformedCase{"polll 0x0 1 -1", "ERR bad timeout '-1'"},
                      MalformedCase{"pollx 0x0 1 10", "ERR unknown command 'pollx'"},
                      MalformedCase{"irq_intercept_in /machine/ioapic", "ERR usage: irq_intercept_in"},
                      // Bounds on what one line may ask of the host (issue 23).
                      MalformedCase{"memset 0x0 0x40000001 0x5a",
                                    "ERR memset of 0x40000001 bytes: more than the protocol's 1 GiB per command"},
                      MalformedCase{"load 0x0 /tmp", "ERR file '/tmp' is not a regular file"},
                      MalformedCase{"load 0x0 /dev/zero", "ERR file '/dev/zero' is not a regular file"}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) {
      // "readl zz" -> "Case2_readl": gtest names are alphanumeric.
      std::string name = "Case" + std::to_string(info.index) + "_";
      for (const char c : std::string(info.param.command)) {
        if (c == ' ') break;
        if (std::isalnum(static_cast<unsigned char>(c))) name += c;
      }
      return name;
    });

TEST_F(ScriptTest, BusErrorsAreAnsweredNotCrashed) {
  auto a = run({"readl 0xf0000000", "writeq 0x7ffffffc 0", "readl 0x7ffffffc"});
  EXPECT_EQ(a[0].text, "ERR read at 0xf0000000 failed: address error");
  EXPECT_EQ(a[1].text, "ERR write at 0x7ffffffc failed: address error");  // crosses the end of DRAM
  EXPECT_EQ(a[2].text, "OK 0x0000000000000000");
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0xf0000000").size(), 1u);
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "crosses the end of window 'dram'").size(), 1u);
}

TEST_F(ScriptTest, LoadCopiesAFileIntoMemoryThroughTheBus) {
  const std::string path = ::testing::TempDir() + "image.bin";
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 5000; ++i) f.put(static_cast<char>(i & 0xFF));
  }
  auto a = run({"load 0x40000 " + path, "readb 0x40000", "readb 0x41387", "readl 0x41384", "readl 0x41388"});
  EXPECT_EQ(a[0].text, "OK");
  EXPECT_EQ(a[1].text, "OK 0x0000000000000000");
  EXPECT_EQ(a[2].text, "OK 0x0000000000000087");  // byte 4999 = 0x1387 -> 0x87
  EXPECT_EQ(a[3].text, "OK 0x0000000087868584");  // bytes 4996..4999 = 84 85 86 87
  EXPECT_EQ(a[4].text, "OK 0x0000000000000000");  // nothing beyond the file
  EXPECT_EQ(platform_.dram().store().pages_allocated(), 1u);
}

namespace {
// Raises the vc4 line 300 ns into the simulation, lowers it 10 ns later.
struct IrqPulser : sc_core::sc_module {
  core::InterruptLine& line;
  IrqPulser(sc_core::sc_module_name n, core::InterruptLine& l) : sc_module(n), line(l) {
    SC_HAS_PROCESS(IrqPulser);
    SC_THREAD(run);
  }
  void run() {
    sc_core::wait(300, sc_core::SC_NS);
    line.raise();
    sc_core::wait(10, sc_core::SC_NS);
    line.lower();
  }
};
}  // namespace

TEST_F(ScriptTest, IrqWaitReturnsWhenTheLineRisesAndTimesOutOtherwise) {
  IrqPulser pulser("pulser", *platform_.find_irq("vc4"));
  auto a = run({"irq_wait vc4 1000", "irq_wait 1 500", "clock_step 20", "irq_wait 1 500", "clock_step 0"});
  EXPECT_EQ(a[0].text, "OK 300");
  EXPECT_EQ(a[1].text, "OK 300");  // still high: answered at once
  EXPECT_EQ(a[2].text, "OK 320");  // low again since 310
  EXPECT_EQ(a[3].text, "ERR timeout: interrupt line gpuvp.v3d.irq not raised within 500 ns");
  EXPECT_EQ(a[4].text, "OK 820");
}

namespace {
// A qtest peer on a loopback TCP channel: sends `text` whole, then reads every answer until the channel closes. The
// channel's side answers each line it reads "OK N" (an overlong line shows as "(overlong)" in `lines`).
struct SocketSession {
  std::vector<std::string> lines;
  std::string received;
};
SocketSession serve_lines(const std::string& text) {
  platform::SocketChannel channel("tcp:127.0.0.1:0");
  EXPECT_GT(channel.bound_port(), 0);
  SocketSession session;
  std::thread client([&] {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(channel.bound_port()));
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    for (std::size_t sent = 0; sent < text.size();) {
      const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, 0);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    char buf[256];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) session.received.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
  });
  channel.accept_peer();
  std::string line;
  while (channel.next(line)) {
    session.lines.push_back(channel.overlong() ? "(overlong)" : line);
    channel.answer("OK " + std::to_string(session.lines.size()));
  }
  channel.close_peer();  // lets the client's recv loop end
  client.join();
  return session;
}
}  // namespace

TEST(SocketChannel, ServesLinesOverTcpAndAnswersThem) {
  const SocketSession s = serve_lines("readl 0x0\r\nclock_step 5\nlast-without-newline");
  EXPECT_EQ(s.lines, (std::vector<std::string>{"readl 0x0", "clock_step 5", "last-without-newline"}));
  EXPECT_EQ(s.received, "OK 1\nOK 2\nOK 3\n");
}

// A line longer than the protocol's 4 MiB is answered at once as rejected; the rest of it is dropped up to its
// newline, and the commands after it in the same transfer are served and answered.
TEST(SocketChannel, AnOverlongLineIsAnsweredAndTheLinesAfterItAreServed) {
  const SocketSession s = serve_lines("readl 0x0\n" + std::string(platform::LineChannel::kMaxLineBytes + 100, 'x') +
                                      "\nreadl 0x4\nclock_step 5\n");
  EXPECT_EQ(s.lines, (std::vector<std::string>{"readl 0x0", "(overlong)", "readl 0x4", "clock_step 5"}));
  EXPECT_EQ(s.received, "OK 1\nOK 2\nOK 3\nOK 4\n");
}

// A script stream that never ends a line (/dev/zero) is read up to the limit, not to the end of host memory.
TEST(StreamChannel, ALineLongerThanTheLimitIsRejectedWithoutReadingOn) {
  const std::string text = "readl 0x0\n" + std::string(platform::LineChannel::kMaxLineBytes, 'y') + "\n" +
                           std::string(platform::LineChannel::kMaxLineBytes + 1, 'z') + "\nreadl 0x4\n";
  auto channel = platform::StreamChannel::from_text(text, "t", false);
  std::string line;
  ASSERT_TRUE(channel->next(line));
  EXPECT_EQ(line, "readl 0x0");
  ASSERT_TRUE(channel->next(line));  // exactly the limit: accepted
  EXPECT_FALSE(channel->overlong());
  EXPECT_EQ(line.size(), platform::LineChannel::kMaxLineBytes);
  ASSERT_TRUE(channel->next(line));
  EXPECT_TRUE(channel->overlong());
  EXPECT_TRUE(line.empty());
  EXPECT_EQ(channel->where(), "t:3");
}

class BadSocketSpecs : public ::testing::TestWithParam<const char*> {};

TEST_P(BadSocketSpecs, AreOneLineErrors) {
  const std::string spec = GetParam();
  try {
    platform::SocketChannel c(spec);
    ADD_FAILURE() << spec << " accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_EQ(what.rfind("qtest '" + spec + "'", 0), 0u) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(SocketChannel, BadSocketSpecs,
                         ::testing::Values("tcp:127.0.0.1", "tcp:localhost:4000", "tcp:127.0.0.1:70000", "udp:1",
                                           "unix:"));

using test::kDramReadNs;
using test::TimedStore;

TEST_F(ScriptTest, PollAnswersTheCompletionOfTheFirstReadAtOrAfterTheStore) {
  // Reads start every 100 ns (host.poll_interval_ns) from 0: those at 0..1200 see 0, the one at 1300 sees the store
  // of 1234 and completes 64 ns later.
  TimedStore store("store", platform_, 0x1000, 7, sc_core::sc_time(1234, sc_core::SC_NS));
  auto a = run({"polll 0x1000 7 5000", "readl 0x1000"});
  EXPECT_EQ(a[0].text, "OK " + std::to_string(1300 + kDramReadNs));
  EXPECT_EQ(a[1].text, "OK 0x0000000000000007");
}

TEST_F(ScriptTest, PollStartingAtTheInstantOfTheStoreSeesIt) {
  // The store and the read at 1300 fall on the same instant: the poll lets the rest of that instant run first.
  TimedStore store("store", platform_, 0x1000, 7, sc_core::sc_time(1300, sc_core::SC_NS));
  auto a = run({"polll 0x1000 7 5000"});
  EXPECT_EQ(a[0].text, "OK " + std::to_string(1300 + kDramReadNs));
}

TEST_F(ScriptTest, PollComparesUnderMaskAtEveryWidth) {
  TimedStore store("store", platform_, 0x2000, 0xA5C3, sc_core::sc_time(150, sc_core::SC_NS));
  auto a =
      run({"pollb 0x2001 0xa0 0xf0 1000", "pollw 0x2000 0xa5c3 0", "pollq 0x2000 0xc3 0xff 0", "pollb 0x2000 0xc3 0"});
  EXPECT_EQ(a[0].text, "OK " + std::to_string(200 + kDramReadNs));      // reads at 0, 100 miss; at 200 matches
  EXPECT_EQ(a[1].text, "OK " + std::to_string(200 + 2 * kDramReadNs));  // a time-out of 0: one read
  EXPECT_EQ(a[2].text, "OK " + std::to_string(200 + 3 * kDramReadNs));
  EXPECT_EQ(a[3].text, "OK " + std::to_string(200 + 4 * kDramReadNs));
}

TEST_F(ScriptTest, PollTimeoutIsAnErrAfterTheLastReadWithinTheTimeout) {
  // Reads at 0, 100, ..., 1000 (the last one starts at the deadline), then the host is at 1064.
  auto a = run(
      {"writel 0x3000 0x12", "clock_step 36", "polll 0x3000 0x13 0xff 1000", "clock_step 0", "polll 0xf0000000 0 100"});
  EXPECT_EQ(a[1].text, "OK 80");  // the write took 44 ns
  EXPECT_TRUE(a[2].error);
  EXPECT_EQ(a[2].text, "ERR timeout at 0x3000: expected 0x13 (mask 0xff), last read 0x12 (11 reads in 1000 ns)");
  EXPECT_EQ(a[3].text, "OK " + std::to_string(80 + 1000 + kDramReadNs));
  EXPECT_EQ(a[4].text, "ERR poll read at 0xf0000000 failed: address error");
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "no target at 0xf0000000").size(), 1u);
}

TEST_F(ScriptTest, IrqNoticesComeBeforeTheAnswerOfTheCommandDuringWhichTheLineChanged) {
  IrqPulser pulser("pulser", *platform_.find_irq("vc4"));
  std::vector<std::string> out;
  interp_.set_notice_sink([&](const std::string& text) { out.push_back(text); });
  test::run_thread([&] {
    for (const char* line :
         {"clock_step 100", "irq_intercept_in", "irq_intercept_in", "clock_step 250", "clock_step 100"}) {
      out.push_back(interp_.execute(line).text);
    }
  });
  // Nothing before irq_intercept_in; a second one is harmless (no doubled notices); vc4 is line 1.
  EXPECT_EQ(out, (std::vector<std::string>{"OK 100", "OK", "OK", "IRQ raise 1", "IRQ lower 1", "OK 350", "OK 450"}));
}

namespace {
// A ring on the render engine that raises a user interrupt and then stores 0x5a5a, recorded as script lines; then
// the host waits for the interrupt and polls for the store. Returns the answers' times {irq_wait, poll}.
std::pair<std::uint64_t, std::uint64_t> interrupt_then_store(std::uint64_t poll_interval_ns) {
  platform::PlatformParams params;
  params.sim.quantum_ns = 0;  // the engine makes each store visible at its own time, not ahead of the kernel
  params.host.poll_interval_ns = poll_interval_ns;
  platform::Platform soc("gpuvp", params);
  platform::ScriptInterpreter interp(soc, "");
  host::ScriptHostPort recording;
  host::I915Driver driver(recording);
  const auto data = driver.alloc(4096);
  driver.enable_interrupts(gen::Engine::kRcs);
  auto& ring = driver.create_ring(gen::Engine::kRcs, 4096);
  driver.emit(ring, gen::mi::user_interrupt());
  driver.emit(ring, gen::mi::store_data_imm(data.gfx, 0x5A5A));
  driver.submit(ring);
  std::istringstream lines(recording.script() + "irq_wait gen 100000\npolll " + core::format_hex(data.phys) +
                           " 0x5a5a 100000\n");
  std::vector<std::string> answers;
  test::run_thread([&] {
    for (std::string line; std::getline(lines, line);) {
      const ScriptAnswer a = interp.execute(line);
      EXPECT_FALSE(a.error) << line << ": " << a.text;
      if (!a.text.empty()) answers.push_back(a.text);
    }
  });
  EXPECT_GE(answers.size(), 2u);
  if (answers.size() < 2) return {};
  return {std::stoull(answers[answers.size() - 2].substr(3)), std::stoull(answers.back().substr(3))};
}
}  // namespace

// The engine's store lands 100 to 128 ns after irq_wait answers: MI_STORE_DATA_IMM's decode, a GGTT walk on a TLB
// miss (a PTE read from DRAM) and the DRAM write. The poll's first read, at the instant irq_wait answered, misses it;
// which later read sees it depends only on the interval.
TEST(ScriptPollGpu, StoreAfterAnInterruptIsSeenByTheFirstReadAfterIt) {
  const auto [irq, poll] = interrupt_then_store(100);  // reads at irq, +100, +200: the third sees the store
  EXPECT_GT(irq, 0u);
  EXPECT_EQ(poll, irq + 200 + kDramReadNs);
}

TEST(ScriptPollGpu, TheIntervalIsTheConfiguredOne) {
  const auto [irq, poll] = interrupt_then_store(1000);  // reads at irq, +1000: the second sees it
  EXPECT_GT(irq, 0u);
  EXPECT_EQ(poll, irq + 1000 + kDramReadNs);
}

TEST(ScriptPollGpu, AnIntervalOfZeroReadsBackToBack) {
  const auto [irq, poll] = interrupt_then_store(0);  // reads at irq, +64, +128: the third sees it
  EXPECT_GT(irq, 0u);
  EXPECT_EQ(poll, irq + 3 * kDramReadNs);
}
