// `gpuvp run --aub FILE`: AUB replay through the command line. Traces built here from the documented layout
// (platform/aub_reader.h encoders), malformed files (exit code 2, one line), and a trace Intel's OpenCL runtime NEO
// writes at test time (AUB mode, SetCommandStreamReceiver=1): replayed, the saxpy kernel's output buffer holds what the
// kernel computes, the same bytes the live TBX run (`gpuvp exec`) gives.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/aub_reader.h"
#include "platform/aub_replay.h"
#include "platform/platform.h"
#include "tests/support/run_gpuvp.h"
#include "tests/support/shell_command.h"

namespace {

namespace aub = gpuvp::platform::aub;
using Bytes = std::vector<std::uint8_t>;

std::string temp_path(const std::string& name) { return ::testing::TempDir() + name; }

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

constexpr std::uint32_t kPhysical = 2;

// ---- Traces built here -------------------------------------------------------------------------------------------

TEST(AubReplay, PhysicalWriteIsDumped) {
  const Bytes data{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
  write_file(temp_path("phys.aub"), concat({aub::encode_version(12, 0), aub::encode_comment("hello"),
                                            aub::encode_memory_write(0x10000, kPhysical, 0, data)}));
  const auto r = gpuvp::test::run_gpuvp_split("run --aub " + temp_path("phys.aub") +
                                              " --aub-dump phys:0x10000:7:" + temp_path("phys.bin") +
                                              " --aub-dump phys:0xFFFF:3:" + temp_path("edge.bin"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(temp_path("phys.bin")), data);
  EXPECT_EQ(read_file(temp_path("edge.bin")), (Bytes{0x00, 0x11, 0x22}));
  EXPECT_NE(r.out.find("workload:       aub " + temp_path("phys.aub") + " (AUB device 12) (3 records)"),
            std::string::npos)
      << r.out;
}

TEST(AubReplay, GgttEntryThenGgttDump) {
  // GGTT entry 3 (byte offset 24 of the entry table) maps GGTT page 0x3000 to physical page 0x50000.
  const std::uint64_t entry = 0x50000 | 1;  // present
  Bytes entry_bytes(8);
  std::memcpy(entry_bytes.data(), &entry, 8);
  write_file(temp_path("ggtt.aub"), concat({aub::encode_version(12, 0), aub::encode_memory_write(24, 4, 0, entry_bytes),
                                            aub::encode_memory_write(0x50010, kPhysical, 0, Bytes{9, 8, 7, 6})}));
  const auto r = gpuvp::test::run_gpuvp_split("run --aub " + temp_path("ggtt.aub") + " --aub-dump ggtt:0x3010:4:" +
                                              temp_path("ggtt.bin") + " --stats " + temp_path("ggtt.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(temp_path("ggtt.bin")), (Bytes{9, 8, 7, 6}));
  std::ifstream stats(temp_path("ggtt.json"));
  const nlohmann::json doc = nlohmann::json::parse(stats);
  EXPECT_EQ(doc["stats"]["aub"]["ggtt_entry_writes"], 1);
  EXPECT_EQ(doc["stats"]["aub"]["memory_writes"], 1);
  EXPECT_EQ(doc["stats"]["aub"]["bytes_written"], 4);
  EXPECT_EQ(doc["stats"]["aub"]["records"], 3);
}

TEST(AubReplay, BinaryDumpRecordWritesIntoTheDumpDirectory) {
  // GGTT page 0x3000 -> physical 0x50000; the trace writes 4 bytes, asks for a dump of them (GTT type 0: GGTT), then
  // overwrites them: the dump holds the values at the record's point in the trace.
  const std::uint64_t entry = 0x50000 | 1;
  Bytes entry_bytes(8);
  std::memcpy(entry_bytes.data(), &entry, 8);
  const std::string dir = temp_path("dumpdir");
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir " + dir).c_str()), 0);
  write_file(temp_path("bin.aub"), concat({aub::encode_memory_write(24, 4, 0, entry_bytes),
                                           aub::encode_memory_write(0x50020, kPhysical, 0, Bytes{1, 2, 3, 4}),
                                           aub::encode_binary_dump(0x3020, 4, 0),
                                           aub::encode_memory_write(0x50020, kPhysical, 0, Bytes{0, 0, 0, 0})}));
  const auto r = gpuvp::test::run_gpuvp_split("run --aub " + temp_path("bin.aub") + " --aub-dump-dir " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir + "/aub-dump-1-0x3020.bin"), (Bytes{1, 2, 3, 4}));
  // Without the directory the record is only counted.
  const auto quiet = gpuvp::test::run_gpuvp_split("run --aub " + temp_path("bin.aub") + " --stats -");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(nlohmann::json::parse(quiet.out)["stats"]["aub"]["dumps"], 1);
}

TEST(AubReplay, RegistersAndPolls) {
  // HWS_PGA (0x2080, the render engine's status page address) is a plain read/write register: written, compared
  // (equal, then different: one guest error), polled for a value it holds (satisfied) and for one it does not
  // (unsatisfied when the idle GPU has nothing to do); a memory poll for a value written earlier is satisfied.
  write_file(
      temp_path("regs.aub"),
      concat({aub::encode_register_write(0x2080, 0x1000), aub::encode_register_compare(0x2080, 0x1000),
              aub::encode_register_compare(0x2080, 0x2000), aub::encode_register_poll(0x2080, ~0u, 0x1000, false),
              aub::encode_register_poll(0x2080, ~0u, 0x1000, true),
              aub::encode_memory_write(0x40000, kPhysical, 0, Bytes{0x78, 0x56, 0x34, 0x12}),
              aub::encode_memory_poll(0x40000, kPhysical, 4, 0xFFFF, 0x5678, false)}));
  const auto r =
      gpuvp::test::run_gpuvp_split("run --aub " + temp_path("regs.aub") + " --stats " + temp_path("regs.json"));
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the failed compare
  EXPECT_NE(r.err.find("register compare at offset 0x30: register 0x2080 reads 0x1000, the trace expects 0x2000"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("(7 records, 1 poll not satisfied when the GPU went idle, 1 compares failed)"),
            std::string::npos)
      << r.out;
  std::ifstream stats(temp_path("regs.json"));
  const nlohmann::json doc = nlohmann::json::parse(stats);
  EXPECT_EQ(doc["stats"]["aub"]["polls"], 3);
  EXPECT_EQ(doc["stats"]["aub"]["polls_unsatisfied"], 1);
  EXPECT_EQ(doc["stats"]["aub"]["compares"], 2);
  EXPECT_EQ(doc["stats"]["aub"]["register_writes"], 1);
}

TEST(AubReplay, MemoryCompareMismatchIsAGuestError) {
  write_file(temp_path("cmp.aub"), concat({aub::encode_memory_write(0x20000, kPhysical, 0, Bytes{1, 2, 3, 4}),
                                           aub::encode_memory_compare(0x20000, kPhysical, Bytes{1, 2, 3, 4}, false),
                                           aub::encode_memory_compare(0x20000, kPhysical, Bytes{1, 9, 3, 9}, false)}));
  const auto r = gpuvp::test::run_gpuvp_split("run --aub " + temp_path("cmp.aub"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("memory compare at offset 0x30: 2 of 4 bytes at 0x20000 (physical memory) differ, the first "
                       "at +0x1: 0x2, expected 0x9"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("3 records, 1 compares failed"), std::string::npos) << r.out;
}

TEST(AubReplay, UnknownRecordIsSkippedWithAWarning) {
  Bytes unknown{0x01, 0x00, 0x7F, 0xF7, 0xAA, 0xBB, 0xCC, 0xDD};  // sub-opcode 0x7F, count 1
  write_file(temp_path("unknown.aub"),
             concat({unknown, aub::encode_memory_write(0x30000, kPhysical, 0, Bytes{5, 6, 7, 8})}));
  const auto r = gpuvp::test::run_gpuvp_split("run --aub " + temp_path("unknown.aub") +
                                              " --aub-dump phys:0x30000:4:" + temp_path("unknown.bin"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sub-opcode 0x7f at offset 0x0: not replayed (8 bytes skipped)"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(temp_path("unknown.bin")), (Bytes{5, 6, 7, 8}));
}

TEST(AubReplay, WriteOutsideDramIsRefused) {
  write_file(temp_path("outside.aub"), aub::encode_memory_write(0xF0000000, kPhysical, 0, Bytes{1, 2, 3, 4}));
  const auto r = gpuvp::test::run_gpuvp_split("run --aub " + temp_path("outside.aub"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("physical address 0xf0000000 is outside DRAM; dropped"), std::string::npos) << r.err;
}

// Found by fuzz_aub_replay: a trace that leaves the render engine waiting on a semaphore nobody will signal (busy, not
// hung: the host may still write it) kept the replay waiting for ever, in a poll and at the trace's end. Each wait
// ends at host.gpu_wait_limit_ns with a warning, and the summary counts them.
TEST(AubReplay, AnEngineWaitingForEverOnASemaphoreDoesNotKeepTheReplayWaiting) {
  constexpr std::uint32_t kGttEntry = 4;
  Bytes entries(16, 0);
  const std::uint64_t ring_pte = 0x100000 | 3, target_pte = 0x101000 | 3;  // present, writable
  std::memcpy(entries.data(), &ring_pte, 8);
  std::memcpy(entries.data() + 8, &target_pte, 8);
  // MI_SEMAPHORE_WAIT, polling GGTT 0x11000 for 0x600D (never written), then MI_NOOPs.
  const std::uint32_t ring_dwords[8] = {(0x1Cu << 23) | (1u << 22) | (1u << 15) | 2u, 0x600D, 0x11000, 0, 0, 0, 0, 0};
  Bytes ring(sizeof ring_dwords);
  std::memcpy(ring.data(), ring_dwords, ring.size());
  write_file(
      temp_path("semaphore.aub"),
      concat({aub::encode_memory_write(0x10 * 8, kGttEntry, 0, entries),
              aub::encode_memory_write(0x100000, kPhysical, 0, ring), aub::encode_register_write(0x2038, 0x10000),
              aub::encode_register_write(0x2034, 0), aub::encode_register_write(0x203C, 1),
              aub::encode_register_write(0x2030, static_cast<std::uint32_t>(ring.size())),
              aub::encode_register_poll(0x2080, ~0u, 0x1234, false)}));
  const auto r =
      gpuvp::test::run_gpuvp_split("run --aub " + temp_path("semaphore.aub") +
                                   " --set host.gpu_wait_limit_ns=1000000 --stats " + temp_path("semaphore.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(7 records, 2 waits cut at host.gpu_wait_limit_ns)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("register poll at offset"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the end of the trace: the GPU is still busy after 1000 us"), std::string::npos) << r.err;
  std::ifstream stats(temp_path("semaphore.json"));
  const nlohmann::json doc = nlohmann::json::parse(stats);
  EXPECT_EQ(doc["stats"]["aub"]["waits_cut"], 2);
  EXPECT_EQ(doc["stats"]["aub"]["polls_unsatisfied"], 0);
}

// In-process traces (what fuzz_aub_replay drives): an AubReplay without a file replays each trace start() hands it,
// and the simulation goes on between them; a malformed trace fails where it stands, in one line.
TEST(AubReplayInProcess, TracesFollowEachOtherWithoutStoppingTheSimulation) {
  gpuvp::platform::Platform soc("gpuvp", gpuvp::platform::PlatformParams{});
  gpuvp::platform::AubReplay replay("aub", soc, "");
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  const auto play = [&](const Bytes& trace) {
    replay.start(std::string(trace.begin(), trace.end()), "trace");
    for (int i = 0; i < 1000 && replay.replaying(); ++i) sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
    EXPECT_FALSE(replay.replaying());
    EXPECT_TRUE(replay.finished());
    Bytes back(4);
    soc.host().debug_read(0x10000, back.data(), 4);
    return back;
  };
  EXPECT_EQ(play(aub::encode_memory_write(0x10000, kPhysical, 0, Bytes{1, 2, 3, 4})), (Bytes{1, 2, 3, 4}));
  EXPECT_FALSE(replay.failed()) << replay.failure();
  Bytes truncated = concat({aub::encode_memory_write(0x10000, kPhysical, 0, Bytes{5, 6, 7, 8}),
                            aub::encode_memory_write(0x20000, kPhysical, 0, Bytes(64, 1))});
  truncated.resize(truncated.size() - 10);
  EXPECT_EQ(play(truncated), (Bytes{5, 6, 7, 8}));  // the records before the bad one were replayed
  EXPECT_TRUE(replay.failed());
  EXPECT_EQ(replay.failure().find('\n'), std::string::npos) << replay.failure();
  EXPECT_EQ(replay.failure().rfind("trace", 0), 0u) << replay.failure();
  EXPECT_EQ(play(aub::encode_memory_write(0x10000, kPhysical, 0, Bytes{9, 9, 9, 9})), (Bytes{9, 9, 9, 9}));
  EXPECT_FALSE(replay.failed()) << replay.failure();
  EXPECT_NE(sc_core::sc_get_status(), sc_core::SC_STOPPED);
}

// ---- Bad host input: exit code 2, one line -----------------------------------------------------------------------

void expect_one_line_error(const std::string& args, const std::string& message) {
  const auto r = gpuvp::test::run_gpuvp_split(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("gpuvp: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(AubReplayErrors, MissingFile) {
  expect_one_line_error("run --aub " + temp_path("no-such.aub"), "File does not exist");
}

TEST(AubReplayErrors, TruncatedRecord) {
  Bytes file = concat({aub::encode_version(12, 0), aub::encode_memory_write(0x1000, kPhysical, 0, Bytes(64, 1))});
  file.resize(file.size() - 5);
  write_file(temp_path("trunc.aub"), file);
  expect_one_line_error("run --aub " + temp_path("trunc.aub"),
                        "AUB file '" + temp_path("trunc.aub") +
                            "': offset 0x18: memory write record of 84 bytes is truncated: the file ends after 79");
}

TEST(AubReplayErrors, NotAnAubFile) {
  write_file(temp_path("text.aub"), Bytes{'h', 'e', 'l', 'l', 'o', '\n'});
  expect_one_line_error("run --aub " + temp_path("text.aub"), "offset 0x0: not an AUB record");
}

TEST(AubReplayErrors, AbsurdSize) {
  // Count 5 and a size of 4 GiB - 16.
  write_file(temp_path("absurd.aub"),
             Bytes{0x05, 0, 0x06, 0xF7, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0xF0, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0});
  expect_one_line_error("run --aub " + temp_path("absurd.aub"), "says 4294967280 data bytes, but the record holds 4");
}

TEST(AubReplayErrors, EmptyFile) {
  write_file(temp_path("empty.aub"), {});
  expect_one_line_error("run --aub " + temp_path("empty.aub"), "is empty");
}

TEST(AubReplayErrors, BadDumpSpecs) {
  write_file(temp_path("ok.aub"), aub::encode_version(12, 0));
  expect_one_line_error("run --aub " + temp_path("ok.aub") + " --aub-dump 0x1000:16",
                        "--aub-dump '0x1000:16': expected [phys:|ggtt:]ADDRESS:SIZE:FILE");
  expect_one_line_error("run --aub " + temp_path("ok.aub") + " --aub-dump 0x1000:lots:x.bin",
                        "size 'lots' is not a number");
  expect_one_line_error("run --aub-dump phys:0:4:x.bin", "--aub-dump needs --aub FILE");
  expect_one_line_error("run --aub " + temp_path("ok.aub") + " --aub-dump-dir " + temp_path("ok.aub"),
                        "--aub-dump-dir '" + temp_path("ok.aub") + "' is not a directory");
  // No context was submitted: a GPU virtual address has no PPGTT to go through (found after the run: --quiet drops
  // the summary).
  expect_one_line_error("run --quiet --aub " + temp_path("ok.aub") + " --aub-dump 0x1000:4:" + temp_path("x.bin"),
                        "the trace submitted no context, so it has no PPGTT");
}

// ---- A trace NEO writes ------------------------------------------------------------------------------------------

using gpuvp::test::run_shell;
using Output = gpuvp::test::ShellResult;

// NEO names each allocation it writes in a comment (aub_command_stream_receiver_hw_base.inl writeMemory):
// "ppgtt: 0x<gpu address> end address: 0x<end> cpu address: 0x<host> size: <bytes>".
struct Allocation {
  std::uint64_t address;
  std::uint64_t size;
};

std::vector<Allocation> neo_allocations(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  aub::AubReader reader(in, path);
  std::vector<Allocation> allocations;
  aub::Record r;
  while (reader.next(r)) {
    if (r.kind != aub::Record::Kind::kComment || r.text.rfind("ppgtt: ", 0) != 0) continue;
    const auto size_at = r.text.find(" size: ");
    if (size_at == std::string::npos) continue;
    allocations.push_back({std::stoull(r.text.substr(7), nullptr, 16), std::stoull(r.text.substr(size_at + 7))});
  }
  return allocations;
}

Bytes floats_as_bytes(const std::vector<float>& values) {
  Bytes b(values.size() * 4);
  std::memcpy(b.data(), values.data(), b.size());
  return b;
}

// cl_corpus saxpy: y = 3 x + y over 4096 floats, x[i] = i / 4, y[i] = 1000 - i (tests/opencl/cl_corpus.c).
constexpr int kSaxpyN = 4096;

TEST(AubReplayNeo, SaxpyTraceReplaysToTheKernelsResult) {
  // The capture: NEO in AUB mode writes skl_1x3x8_0_ocl.aub into the working directory and runs no kernel (its own
  // read-back returns the unchanged buffer, so cl_corpus reports wrong results and exits non-zero: expected).
  const std::string dir = temp_path("neo_saxpy");
  ASSERT_EQ(run_shell("rm -rf " + dir + " && mkdir -p " + dir).status, 0);
  const Output capture = run_shell("cd " + dir +
                                   " && env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD
                                   " NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=skl "
                                   "HardwareInfoOverride=1x3x8 " GPUVP_CL_CORPUS " saxpy 2>&1");
  const std::string trace = dir + "/skl_1x3x8_0_ocl.aub";
  if (read_file(trace).empty()) GTEST_SKIP() << "NEO wrote no AUB file: " << capture.out.substr(0, 400);

  std::vector<float> x(kSaxpyN), y(kSaxpyN), result(kSaxpyN);
  for (int i = 0; i < kSaxpyN; ++i) {
    x[i] = static_cast<float>(i) * 0.25f;
    y[i] = 1000.0f - static_cast<float>(i);
    result[i] = 3.0f * x[i] + y[i];
  }
  const Bytes expected = floats_as_bytes(result);

  // Dump every allocation big enough to hold a buffer; exactly one must hold the kernel's result.
  const std::vector<Allocation> allocations = neo_allocations(trace);
  std::string dumps;
  std::vector<std::string> files;
  for (const auto& a : allocations) {
    if (a.size < expected.size()) continue;
    files.push_back(dir + "/alloc" + std::to_string(files.size()) + ".bin");
    char spec[64];
    std::snprintf(spec, sizeof spec, "0x%llx:%zu:", static_cast<unsigned long long>(a.address), expected.size());
    dumps += std::string(" --aub-dump ") + spec + files.back();
  }
  ASSERT_FALSE(files.empty()) << "no allocation comments in " << trace;
  const auto replay = gpuvp::test::run_gpuvp_split("run --aub " + trace + dumps + " --stats " + dir + "/stats1.json");
  ASSERT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("walkers"), std::string::npos) << replay.out;  // the kernel ran on the model's EUs
  // NEO's completion poll (EXECLIST_STATUS & 0x100: the last switch was active-to-idle) is satisfied.
  EXPECT_EQ(replay.out.find("not satisfied"), std::string::npos) << replay.out;
  int holding_result = 0;
  Bytes unchanged_x = floats_as_bytes(x);
  int holding_x = 0;
  for (const auto& f : files) {
    const Bytes dumped = read_file(f);
    holding_result += dumped == expected;
    holding_x += dumped == unchanged_x;
  }
  EXPECT_EQ(holding_result, 1) << "the replay's buffers do not hold y = 3x + y";
  EXPECT_EQ(holding_x, 1) << "x is not among the replay's buffers";

  // The live run through TBX prints the same bytes.
  const auto live = gpuvp::test::run_gpuvp_split(
      "exec --set sim.time_limit_ns=2000000000 -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD " " GPUVP_CL_CORPUS " saxpy");
  ASSERT_EQ(live.exit_code, 0) << live.err;
  std::string hex;
  for (std::uint8_t b : expected) {
    char h[3];
    std::snprintf(h, sizeof h, "%02x", b);
    hex += h;
  }
  EXPECT_NE(live.out.find("saxpy:x:0:" + hex + "\n"), std::string::npos) << live.out.substr(0, 200);

  // Deterministic: the same file gives the same statistics.
  const auto again = gpuvp::test::run_gpuvp_split("run --aub " + trace + " --stats " + dir + "/stats2.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto stats_of = [](const std::string& path) {
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    return doc["sim_time_ps"].dump() + doc["stats"].dump();
  };
  EXPECT_EQ(stats_of(dir + "/stats1.json"), stats_of(dir + "/stats2.json"));
}

TEST(AubReplayNeo, NeosOwnDumpOfTheReadBackBufferHoldsTheResult) {
  // With AUBDumpBufferFormat=BIN and AUBDumpAllocsOnEnqueueReadOnly=1 (debug_variables_base.inl) NEO follows the
  // completion poll with a binary dump record of the buffer clEnqueueReadBuffer reads: saxpy's y. The replay writes it
  // to the dump directory, where it must hold y = 3x + y.
  const std::string dir = temp_path("neo_saxpy_bin");
  ASSERT_EQ(run_shell("rm -rf " + dir + " && mkdir -p " + dir + "/dumps").status, 0);
  const Output capture =
      run_shell("cd " + dir +
                " && env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD
                " NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=skl "
                "HardwareInfoOverride=1x3x8 AUBDumpBufferFormat=BIN AUBDumpAllocsOnEnqueueReadOnly=1 "
                " " GPUVP_CL_CORPUS " saxpy 2>&1");
  const std::string trace = dir + "/skl_1x3x8_0_ocl.aub";
  if (read_file(trace).empty()) GTEST_SKIP() << "NEO wrote no AUB file: " << capture.out.substr(0, 400);
  std::vector<float> result(kSaxpyN);
  for (int i = 0; i < kSaxpyN; ++i)
    result[i] = 3.0f * (static_cast<float>(i) * 0.25f) + (1000.0f - static_cast<float>(i));
  const Bytes expected = floats_as_bytes(result);

  const auto replay = gpuvp::test::run_gpuvp_split("run --aub " + trace + " --aub-dump-dir " + dir + "/dumps");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const Output listing = run_shell("ls " + dir + "/dumps");
  ASSERT_EQ(count_lines(listing.out), 1) << listing.out;  // one read-back, one dump
  const std::string name = listing.out.substr(0, listing.out.size() - 1);
  EXPECT_EQ(name.rfind("aub-dump-1-0x", 0), 0u) << name;
  Bytes dumped = read_file(dir + "/dumps/" + name);
  ASSERT_GE(dumped.size(), expected.size());  // the whole allocation (NEO rounds buffers up to 64 KiB)
  dumped.resize(expected.size());
  EXPECT_EQ(dumped, expected);
}

// More corpus cases (several kernels, buffers and read-backs, local memory, atomics, doubles, private memory): every
// buffer the case prints under `gpuvp exec` (the live TBX run) is the prefix of the replay's dump of it. cl_corpus
// reads its buffers back in the order it prints them, so the N-th dump is the N-th printed line.
class AubReplayCorpus : public testing::TestWithParam<std::string> {};

TEST_P(AubReplayCorpus, DumpsMatchTheLiveRun) {
  const std::string name = GetParam();
  const std::string dir = temp_path("corpus_" + name);
  ASSERT_EQ(run_shell("rm -rf " + dir + " && mkdir -p " + dir + "/dumps").status, 0);
  run_shell("cd " + dir +
            " && env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD
            " NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=skl HardwareInfoOverride=1x3x8 "
            "AUBDumpBufferFormat=BIN AUBDumpAllocsOnEnqueueReadOnly=1 " GPUVP_CL_CORPUS " " +
            name + " >/dev/null 2>&1");
  const std::string trace = dir + "/skl_1x3x8_0_ocl.aub";
  if (read_file(trace).empty()) GTEST_SKIP() << "NEO wrote no AUB file";
  const auto replay = gpuvp::test::run_gpuvp_split("run --aub " + trace + " --aub-dump-dir " + dir + "/dumps");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.out.find("outcome:        completed\n"), std::string::npos) << replay.out;
  const auto live = gpuvp::test::run_gpuvp_split(
      "exec --quiet --set sim.time_limit_ns=2000000000 -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD " " GPUVP_CL_CORPUS
      " " +
      name);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  std::istringstream lines(live.out);
  int buffers = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto c1 = line.find(':'), c2 = line.find(':', c1 + 1), c3 = line.find(':', c2 + 1);
    if (c3 == std::string::npos) continue;
    ++buffers;
    Bytes printed;
    for (std::size_t i = c3 + 1; i + 1 < line.size(); i += 2) {
      printed.push_back(static_cast<std::uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
    }
    const Output found = run_shell("ls " + dir + "/dumps/aub-dump-" + std::to_string(buffers) + "-*.bin");
    ASSERT_EQ(count_lines(found.out), 1) << line.substr(0, c1) << ": no dump " << buffers;
    Bytes dumped = read_file(found.out.substr(0, found.out.size() - 1));
    ASSERT_GE(dumped.size(), printed.size()) << line.substr(0, c1);
    dumped.resize(printed.size());
    EXPECT_EQ(dumped, printed) << line.substr(0, c1);
  }
  EXPECT_GT(buffers, 0) << live.out;
  // No dump beyond the printed buffers.
  EXPECT_EQ(count_lines(run_shell("ls " + dir + "/dumps").out), buffers);
}

INSTANTIATE_TEST_SUITE_P(Cases, AubReplayCorpus,
                         testing::Values("integer", "two_kernels", "reduce", "global_atomics", "matmul_tiled",
                                         "double"),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
