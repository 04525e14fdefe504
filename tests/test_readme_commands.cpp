// The README's Running section, command by command, as a user types it: each one runs and does what its comment says.
// The commands are read from README.md itself, so a command changed there is tested as changed.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/aub_reader.h"
#include "platform/tbx_protocol.h"
#include "tests/support/run_gpuvp.h"

namespace {

using gpuvp::test::run_gpuvp;
using gpuvp::test::run_gpuvp_split;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The commands of the first ```sh block after "## Running", without their comments.
std::vector<std::string> running_commands() {
  std::istringstream readme(slurp(std::string(GPUVP_SOURCE_DIR) + "/README.md"));
  std::vector<std::string> commands;
  bool in_section = false, in_block = false;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Running";
    if (!in_section) continue;
    if (line.rfind("```", 0) == 0) {
      if (in_block) break;
      in_block = true;
      continue;
    }
    if (!in_block) continue;
    const auto comment = line.find("  #");
    if (comment != std::string::npos) line.erase(comment);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) commands.push_back(line);
  }
  return commands;
}

// A TCP port nobody listens on now (bound and released; the qtest server binds it next).
int free_tcp_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(s);
  return port;
}

// Connects to 127.0.0.1:port once the server listens, sends the lines (or bytes), closes its sending side and returns
// what came back until the server closed.
std::string talk_tcp(int port, const std::string& lines) {
  for (int attempt = 0; attempt < 400; ++attempt) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      EXPECT_EQ(::write(s, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
      ::shutdown(s, SHUT_WR);
      std::string answers;
      char buf[4096];
      for (ssize_t n; (n = ::read(s, buf, sizeof buf)) > 0;) answers.append(buf, static_cast<std::size_t>(n));
      ::close(s);
      return answers;
    }
    ::close(s);
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ADD_FAILURE() << "nothing listens on port " << port;
  return {};
}

// As NEO at start-up: CONTROL, then an MMIO read of GEN8_GT_IMR(0) (0x44304); returns the value answered, or 0 when
// the answer is wrong. The connection's end (talk_tcp closes its side after sending) ends the server's session.
std::uint32_t tbx_read_imr(int port) {
  namespace tbx = gpuvp::platform::tbx;
  std::string out;
  auto put = [&out](const auto& a) { out.append(a.begin(), a.end()); };
  put(tbx::encode_header({static_cast<std::uint32_t>(tbx::MsgType::kControlReq), 0, 4}));
  put(tbx::encode_control({tbx::kControlHas, tbx::kControlHas}));
  put(tbx::encode_header({static_cast<std::uint32_t>(tbx::MsgType::kMmioReq), 1, 12}));
  tbx::MmioRequest read;
  read.offset = 0x44304;
  put(tbx::encode_mmio(read));
  const std::string answer = talk_tcp(port, out);
  std::uint32_t value = 0;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(answer.data());
  if (answer.size() == tbx::kMmioResponseBytes && tbx::decode_header(bytes).trans_id == 1) {
    std::memcpy(&value, bytes + tbx::kHeaderBytes, 4);
  }
  return value;
}

class ReadmeRunning : public ::testing::Test {
 protected:
  void SetUp() override {
    // Each test case is its own process: run in a fresh directory, as a user's working directory.
    std::string dir = ::testing::TempDir() + "gpuvp-readme-XXXXXX";
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    ASSERT_EQ(::chdir(dir.c_str()), 0);
    commands_ = running_commands();
  }
  std::vector<std::string> commands_;
};

TEST_F(ReadmeRunning, TheSectionListsTheCommandsThisTestKnows) {
  // Every line is a gpuvp command; a new line in the README needs its check here.
  ASSERT_EQ(commands_.size(), 15u);
  for (const auto& c : commands_) EXPECT_EQ(c.rfind("gpuvp", 0), 0u) << c;
}

TEST_F(ReadmeRunning, EveryCommandWorksAsShown) {
  // The placeholders of the section: FILE is a host script (the demo, dumped first), my.yaml a config file of the
  // user's; the qtest port is the one free port this machine has (4000 may be taken).
  ASSERT_EQ(run_gpuvp("run --quiet --dump-demo demo.gpuvp").exit_code, 0);
  std::ofstream("my.yaml") << "sim:\n  seed: 7\n";
  unsigned checked = 0;
  for (std::string command : commands_) {
    SCOPED_TRACE(command);
    std::string args = command.substr(std::string("gpuvp").size());
    if (!args.empty() && args[0] == ' ') args.erase(0, 1);
    if (const auto aub = args.find("--aub FILE"); aub != std::string::npos) {
      // An AUB file of two records: the version (SKL) and a physical memory write, dumped back after the run.
      namespace aub_records = gpuvp::platform::aub;
      std::ofstream trace("trace.aub", std::ios::binary);
      for (const auto& record : {aub_records::encode_version(12, 0),
                                 aub_records::encode_memory_write(0x8000, 2, 0, {0xC0, 0xFF, 0xEE, 0x00})}) {
        trace.write(reinterpret_cast<const char*>(record.data()), static_cast<std::streamsize>(record.size()));
      }
      trace.close();
      args.replace(aub, 10, "--aub trace.aub --aub-dump phys:0x8000:4:dump.bin");
      const auto r = run_gpuvp_split(args);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.out.find("workload:       aub trace.aub (AUB device 12) (2 records)"), std::string::npos) << r.out;
      EXPECT_EQ(slurp("dump.bin"), std::string("\xC0\xFF\xEE\x00", 4));
      ++checked;
      continue;
    }
    if (const auto file = args.find(" FILE"); file != std::string::npos) args.replace(file, 5, " demo.gpuvp");
    if (args.find("--qtest tcp:127.0.0.1:4000") != std::string::npos) {
      const int port = free_tcp_port();
      ASSERT_NE(port, 0);
      args.replace(args.find("4000"), 4, std::to_string(port));
      auto server = std::async(std::launch::async, [&] { return run_gpuvp_split(args); });
      const std::string answers = talk_tcp(port, "clock_step 1000\nreadl 0x1000\n");
      const auto r = server.get();
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(answers, "OK 1000\nOK 0x0000000000000000\n");  // qtest answers reads in 64-bit hex
      ++checked;
      continue;
    }
    if (args.find("--tbx tcp:127.0.0.1:4321") != std::string::npos) {
      const int port = free_tcp_port();
      ASSERT_NE(port, 0);
      args.replace(args.find("4321"), 4, std::to_string(port));
      auto server = std::async(std::launch::async, [&] { return run_gpuvp_split(args); });
      EXPECT_EQ(tbx_read_imr(port), 0xFFFFFFFFu);  // the interrupt mask's reset value
      const auto r = server.get();
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.err.find("gpuvp: tbx server listening on tcp:127.0.0.1:" + std::to_string(port)), std::string::npos)
          << r.err;
      ++checked;
      continue;
    }
    if (args.find("exec -- clinfo") != std::string::npos) {
      const auto r = run_gpuvp_split(args);
      if (r.exit_code == 2 && r.err.find("cannot run 'clinfo'") != std::string::npos) {
        GTEST_SKIP() << "clinfo is not installed (Debian package clinfo; ./dev.sh installs it)";
      }
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.out.find("Intel(R) Graphics [0x1902]"), std::string::npos) << r.out;
      EXPECT_NE(r.err.find("gpuvp run summary"), std::string::npos) << r.err;
      ++checked;
      continue;
    }
    if (args.find("info [--json]") != std::string::npos) {
      const auto text = run_gpuvp_split("info");
      EXPECT_EQ(text.exit_code, 0) << text.err;
      EXPECT_NE(text.out.find("memory map"), std::string::npos) << text.out;
      const auto json = run_gpuvp_split("info --json");
      EXPECT_EQ(json.exit_code, 0) << json.err;
      EXPECT_TRUE(nlohmann::json::accept(json.out));
      ++checked;
      continue;
    }
    if (const auto disasm = args.find("disasm [--gen 9|8] KERNEL.bin"); disasm != std::string::npos) {
      // Raw bytes of one Gen9 instruction (iga64 -Xprint-bits of "mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f").
      std::ofstream("kernel.bin", std::ios::binary)
          << std::string("\x01\x00\x60\x00\xe8\x3a\x40\x20\x60\x00\x8d\x00\x00\x00\x00\x00", 16);
      const auto r = run_gpuvp_split("disasm --gen 9 kernel.bin");
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, "mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f\n");
      ++checked;
      continue;
    }
    if (const auto pipe = args.find(" | jq .stats"); pipe != std::string::npos) {
      // No jq on a plain machine: parse what it would have read.
      args.erase(pipe);
      const auto r = run_gpuvp_split(args);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      const auto doc = nlohmann::json::parse(r.out);
      EXPECT_TRUE(doc.contains("stats"));
      EXPECT_NE(r.err.find("gpuvp run summary"), std::string::npos) << r.err;
      ++checked;
      continue;
    }
    const auto r = run_gpuvp_split(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    if (args.find("--script demo.gpuvp") != std::string::npos) {
      EXPECT_NE(r.out.find("OK"), std::string::npos) << r.out;  // one answer per command
      EXPECT_EQ(r.out.find("ERR"), std::string::npos) << r.out;
    } else if (args.find("--dump-demo demo.gpuvp") != std::string::npos) {
      EXPECT_NE(slurp("demo.gpuvp").find("polll "), std::string::npos);
    } else if (args.find("--dump-fb frame.png") != std::string::npos) {
      // The demo's 256x128 frame (test_framebuffer_png reads its pixels): a PNG, named in the summary.
      EXPECT_EQ(slurp("frame.png").compare(0, 8, "\x89PNG\r\n\x1a\n"), 0);
      EXPECT_NE(r.out.find("frame:          frame.png (256x128 RGBA8888 raster at "), std::string::npos) << r.out;
    } else if (args.find("--stats stats.json --stats-interval 10000") != std::string::npos) {
      const auto doc = nlohmann::json::parse(slurp("stats.json"));
      EXPECT_EQ(doc["series"]["interval_ps"], 10'000'000);
      EXPECT_GT(doc["series"]["time_ps"].size(), 2u);
    } else if (args.find("--stats stats.json --trace trace.json") != std::string::npos) {
      EXPECT_TRUE(nlohmann::json::parse(slurp("stats.json")).contains("stats"));
      EXPECT_FALSE(nlohmann::json::parse(slurp("trace.json"))["traceEvents"].empty());
    } else {
      // The demo on the default platform, from the config file and --set, or with options and no "run".
      EXPECT_NE(r.out.find("outcome:        completed"), std::string::npos) << r.out;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 15u);
}

}  // namespace
