// The OpenCL corpus (tests/opencl/cl_corpus.c, the project's own host code) through Intel's real runtime: NEO and IGC
// drive the model over TBX under `gpuvp exec`, and every output buffer must equal the one pocl (a CPU OpenCL
// platform) computes, byte for byte; the program also checks its results against values it computes itself.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "tests/support/run_gpuvp.h"

namespace {

struct Output {
  int status;
  std::string out;
};

Output run_shell(const std::string& command) {
  Output o{-1, {}};
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return o;
  char buf[65536];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) o.out.append(buf, n);
  const int status = pclose(pipe);
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

// NEO's page tables sit at fixed physical addresses up to 516 GiB (docs/gen-tbx.md): the DRAM must reach them.
const char* const kExecOptions =
    "--set dram.size=520GiB --set gen.gtt.physical_address_bits=40 --set sim.time_limit_ns=500000000";

void expect_same_as_pocl(const std::string& cases) {
  const std::string program = std::string(GPUVP_CL_CORPUS) + " " + cases;
  const Output pocl = run_shell("OCL_ICD_VENDORS=" GPUVP_POCL_ICD " " + program);
  ASSERT_EQ(pocl.status, 0) << pocl.out;
  ASSERT_FALSE(pocl.out.empty());
  const gpuvp::test::SplitResult model = gpuvp::test::run_gpuvp_split(
      std::string("exec ") + kExecOptions + " -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD " " + program);
  ASSERT_EQ(model.exit_code, 0) << model.err;
  EXPECT_EQ(model.out, pocl.out);
  EXPECT_NE(model.err.find("walkers"), std::string::npos) << model.err;  // the kernels ran on the model's EUs
  EXPECT_EQ(model.err.find("error at"), std::string::npos) << model.err;
}

}  // namespace

TEST(OpenClCorpus, SaxpyThroughNeoOnTheModelEqualsPocl) { expect_same_as_pocl("saxpy"); }

TEST(OpenClCorpus, IntegerDivisionRemainderShiftsAndLongThroughNeoEqualPocl) { expect_same_as_pocl("integer"); }

// Local memory, barriers inside a loop, a divergent if without else (its channels reconverge at the endif) and a
// global atomic, with four SIMD32 threads per work-group.
TEST(OpenClCorpus, LocalMemoryTreeReductionWithBarriersAndAtomicsThroughNeoEqualsPocl) {
  expect_same_as_pocl("reduce");
}
