// GuC GDB stub: Debian's gdb, in batch mode, connects to gen.guc.gdb_port, stops the firmware at a breakpoint on a
// symbol of guc.elf, reads registers and WOPCM (the CSS header the boot ROM copied to 0x2000), single-steps and
// detaches; the firmware then finishes booting. Also: a port that cannot be opened is a one-line configuration error.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "platform/platform.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"

using namespace gpuvp;

namespace {

std::uint16_t test_port() { return static_cast<std::uint16_t>(42000 + getpid() % 2000); }

platform::PlatformParams with_gdb(std::uint16_t port) {
  platform::PlatformParams p;
  p.gen.gpu.guc.gdb_port = port;
  return p;
}

TEST(GucGdb, BatchSessionBreaksStepsAndReadsMemory) {
  const std::uint16_t port = test_port();
  platform::Platform soc("gpuvp", with_gdb(port));
  host::BusHostPort bus(soc.host());
  host::I915Driver i915(bus);
  host::GucDriver guc(i915);
  std::string transcript;
  test::run_thread([&] {
    const std::string command =
        std::string("gdb -batch -nx -ex 'set confirm off' -ex 'target remote 127.0.0.1:") + std::to_string(port) +
        "' -ex 'print/x $pc' -ex 'break guc_main' -ex 'continue' -ex 'print/x $pc' -ex 'x/2xw 0x2000'"
        " -ex 'stepi' -ex 'print/x $pc' -ex 'detach' " +
        firmware::default_firmware_elf_path() + " 2>&1";
    FILE* gdb = ::popen(command.c_str(), "r");
    ASSERT_NE(gdb, nullptr);
    // The GuC waits for gdb at its first instruction; the load completes once gdb has detached.
    const auto r = guc.load(firmware::read_file(firmware::default_firmware_path()));
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, gdb)) > 0) transcript.append(buffer, n);
    EXPECT_EQ(::pclose(gdb), 0) << transcript;
    EXPECT_TRUE(r.ok) << r.error << "\n" << transcript;
  });
  // First stop: the entry point right after the CSS header.
  EXPECT_NE(transcript.find("$1 = 0x2080"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("Breakpoint 1, "), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("guc_main"), std::string::npos) << transcript;
  // WOPCM 0x2000: the CSS header's module_type (6) and header_size_dw (32 + 64 + 64 + 1 = 161).
  EXPECT_NE(transcript.find("0x00000006\t0x000000a1"), std::string::npos) << transcript;
  // stepi moved the PC: $2 (the breakpoint) differs from $3.
  const auto pc2 = transcript.find("$2 = ");
  const auto pc3 = transcript.find("$3 = ");
  ASSERT_NE(pc2, std::string::npos) << transcript;
  ASSERT_NE(pc3, std::string::npos) << transcript;
  EXPECT_NE(transcript.substr(pc2 + 5, 6), transcript.substr(pc3 + 5, 6)) << transcript;
}

TEST(GucGdb, PortInUseIsAConfigurationError) {
  const std::uint16_t port = static_cast<std::uint16_t>(test_port() + 3000);
  gen::GucGdbStub holder(port, nullptr, 0);
  ASSERT_EQ(holder.listen(), "");
  try {
    platform::Platform soc("gpuvp", with_gdb(port));
    FAIL() << "a second listener on the same port must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("gen.guc.gdb_port: cannot listen on 127.0.0.1:" + std::to_string(port)),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
