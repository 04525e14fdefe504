// The OpenCL corpus (tests/opencl/cl_corpus.c, the project's own host code) through Intel's real runtime: NEO and IGC
// drive the model over TBX under `gpuvp exec`, and every output buffer must agree with the one pocl (a CPU OpenCL
// platform) computes: bit for bit for integers and correctly rounded operations, within the ulps the program states
// for builtins the OpenCL specification lets differ. The program also checks results against values it computes.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/run_gpuvp.h"
#include "tests/support/shell_command.h"

namespace {

using gpuvp::test::run_shell;
using Output = gpuvp::test::ShellResult;

// One printed buffer: CASE.BUFFER:KIND:ULPS:HEX.
struct Buffer {
  std::string kind;
  int ulps = 0;
  std::vector<std::uint8_t> bytes;
};

std::map<std::string, Buffer> parse(const std::string& text) {
  std::map<std::string, Buffer> buffers;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto c1 = line.find(':'), c2 = line.find(':', c1 + 1), c3 = line.find(':', c2 + 1);
    if (c3 == std::string::npos) continue;
    Buffer b;
    b.kind = line.substr(c1 + 1, c2 - c1 - 1);
    b.ulps = std::stoi(line.substr(c2 + 1, c3 - c2 - 1));
    for (std::size_t i = c3 + 1; i + 1 < line.size(); i += 2)
      b.bytes.push_back(static_cast<std::uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
    buffers[line.substr(0, c1)] = std::move(b);
  }
  return buffers;
}

// Distance in representable values between two floats of the same format; -1 for two NaNs (of any payload).
template <typename Float, typename Bits>
double ulp_distance(const std::uint8_t* pa, const std::uint8_t* pb) {
  Float a, b;
  std::memcpy(&a, pa, sizeof a);
  std::memcpy(&b, pb, sizeof b);
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? -1 : 1e30;
  Bits ia, ib;
  std::memcpy(&ia, pa, sizeof ia);
  std::memcpy(&ib, pb, sizeof ib);
  const Bits sign = Bits(1) << (8 * sizeof(Bits) - 1);
  // Map sign-magnitude to a monotonic integer line (long double: exact for 63-bit magnitudes on x86).
  const long double la = (ia & sign) ? -static_cast<long double>(ia & ~sign) : static_cast<long double>(ia);
  const long double lb = (ib & sign) ? -static_cast<long double>(ib & ~sign) : static_cast<long double>(ib);
  return static_cast<double>(std::fabs(la - lb));
}

double half_ulp_distance(const std::uint8_t* pa, const std::uint8_t* pb) {
  std::uint16_t ia, ib;
  std::memcpy(&ia, pa, 2);
  std::memcpy(&ib, pb, 2);
  const auto is_nan = [](std::uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF); };
  if (is_nan(ia) || is_nan(ib)) return is_nan(ia) && is_nan(ib) ? -1 : 1e30;
  const auto line = [](std::uint16_t h) { return (h & 0x8000) ? -static_cast<double>(h & 0x7FFF) : double(h); };
  return std::fabs(line(ia) - line(ib));
}

// Empty when the model's buffer agrees with pocl's, else what differs first.
std::string compare(const std::string& name, const Buffer& model, const Buffer& pocl) {
  if (model.kind != pocl.kind || model.ulps != pocl.ulps || model.bytes.size() != pocl.bytes.size())
    return name + ": kind, tolerance or size differ";
  const std::size_t size = model.kind == "f64" ? 8 : model.kind == "f32" ? 4 : model.kind == "f16" ? 2 : 1;
  const bool floating = model.kind[0] == 'f';
  int reported = 0;
  std::string diff;
  for (std::size_t i = 0; i + size <= model.bytes.size(); i += size) {
    const std::uint8_t* m = &model.bytes[i];
    const std::uint8_t* p = &pocl.bytes[i];
    if (std::memcmp(m, p, size) == 0) continue;
    double distance = 1e30;
    if (floating && size == 8) distance = ulp_distance<double, std::uint64_t>(m, p);
    if (floating && size == 4) distance = ulp_distance<float, std::uint32_t>(m, p);
    if (floating && size == 2) distance = half_ulp_distance(m, p);
    // NaN payloads may differ; bit-exact buffers allow nothing else (-0 and +0 are 0 apart only under a tolerance).
    if (distance < 0 || (model.ulps > 0 && distance <= model.ulps)) continue;
    if (reported++ < 8) {
      std::string hm, hp;
      for (std::size_t b = size; b-- > 0;) {
        char x[3];
        std::snprintf(x, sizeof x, "%02x", m[b]);
        hm += x;
        std::snprintf(x, sizeof x, "%02x", p[b]);
        hp += x;
      }
      diff += name + " element " + std::to_string(i / size) + ": model 0x" + hm + ", pocl 0x" + hp + " (" +
              std::to_string(distance) + " ulp, " + std::to_string(model.ulps) + " allowed)\n";
    }
  }
  if (reported > 8) diff += "... " + std::to_string(reported) + " elements differ\n";
  return diff;
}

// exec's platform reaches NEO's page tables by default (docs/gen-tbx.md); a bound on simulated time.
const char* const kExecOptions = "--set sim.time_limit_ns=2000000000";

void expect_same_as_pocl(const std::string& cases) {
  const std::string program = std::string(GPUVP_CL_CORPUS) + " " + cases;
  const Output pocl = run_shell("OCL_ICD_VENDORS=" GPUVP_POCL_ICD " " + program);
  ASSERT_EQ(pocl.status, 0) << pocl.out;
  const auto pocl_buffers = parse(pocl.out);
  ASSERT_FALSE(pocl_buffers.empty()) << pocl.out;
  const gpuvp::test::SplitResult model = gpuvp::test::run_gpuvp_split(
      std::string("exec ") + kExecOptions + " -- env OCL_ICD_VENDORS=" GPUVP_INTEL_ICD " " + program);
  EXPECT_EQ(model.exit_code, 0) << model.err;
  const auto model_buffers = parse(model.out);
  EXPECT_EQ(model_buffers.size(), pocl_buffers.size()) << model.out;
  for (const auto& [name, pocl_buffer] : pocl_buffers) {
    const auto it = model_buffers.find(name);
    if (it == model_buffers.end()) {
      ADD_FAILURE() << name << " missing from the model's output";
      continue;
    }
    const std::string diff = compare(name, it->second, pocl_buffer);
    EXPECT_TRUE(diff.empty()) << diff;
  }
  EXPECT_NE(model.err.find("walkers"), std::string::npos) << model.err;  // the kernels ran on the model's EUs
  // Everything NEO sends and its kernels do is modelled: no error, no warning (an unmapped register, a dropped access).
  EXPECT_NE(model.err.find("reports:        0 errors, 0 warnings"), std::string::npos) << model.err;
}

// Every case of the program, one test each (the list is the program's own: `cl_corpus --list`).
std::vector<std::string> corpus_cases() {
  const Output list = run_shell(std::string(GPUVP_CL_CORPUS) + " --list");
  std::vector<std::string> names;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) names.push_back(line);
  return names;
}

class OpenClCorpus : public testing::TestWithParam<std::string> {};

TEST_P(OpenClCorpus, ThroughNeoOnTheModelAgreesWithPocl) { expect_same_as_pocl(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, OpenClCorpus, testing::ValuesIn(corpus_cases()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(OpenClCorpusList, HasAtLeastFortyKernels) { EXPECT_GE(corpus_cases().size(), 40u); }

// The comparison itself: a float one ulp apart passes only with a tolerance, NaNs of any payload agree.
TEST(OpenClCorpusCompare, UlpToleranceAndNans) {
  const auto one_ulp = parse("a.0:f32:0:0000803f\nb.0:f32:1:0000803f\n");
  const auto next = parse("a.0:f32:0:0100803f\nb.0:f32:1:0100803f\n");
  EXPECT_FALSE(compare("a.0", next.at("a.0"), one_ulp.at("a.0")).empty());
  EXPECT_TRUE(compare("b.0", next.at("b.0"), one_ulp.at("b.0")).empty());
  const auto nan1 = parse("n:f64:0:000000000000f87f\n"), nan2 = parse("n:f64:0:010000000000f8ff\n");
  EXPECT_TRUE(compare("n", nan1.at("n"), nan2.at("n")).empty());
  const auto zero = parse("z:f32:3:00000000\n"), minus = parse("z:f32:3:00000080\n");
  EXPECT_TRUE(compare("z", zero.at("z"), minus.at("z")).empty());  // +0 and -0 are 0 ulp apart
  const auto d1 = parse("d:f64:1:ffaa175d9c51ea3f\n"), d2 = parse("d:f64:1:00ab175d9c51ea3f\n");
  EXPECT_TRUE(compare("d", d1.at("d"), d2.at("d")).empty());  // neighbours carrying into the mantissa's byte 1
  const auto i1 = parse("i:i32:5:01000000\n"), i2 = parse("i:i32:5:02000000\n");
  EXPECT_FALSE(compare("i", i1.at("i"), i2.at("i")).empty());  // integers are always exact
}

}  // namespace
