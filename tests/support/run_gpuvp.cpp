#include "tests/support/run_gpuvp.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpuvp::test {

namespace {
// Runs the shell command `gpuvp ARGS REDIRECTION` and returns its exit code and stdout.
ProcessResult run_command(const std::string& args, const std::string& redirection) {
  // The rtl.* copies of the suites (GPUVP_RING_MODEL=rtl) run the executable in the same ring model.
  std::string extra;
  const char* model = std::getenv("GPUVP_RING_MODEL");
  if (model && args.rfind("run", 0) == 0) extra = std::string(" --set gen.ring_model=") + model;
  // The functional.* copies (GPUVP_GPGPU_TIMING=functional) run walkers on the functional timing rule: the option goes
  // right after the command, before an exec's program.
  std::string command = args;
  const char* timing = std::getenv("GPUVP_GPGPU_TIMING");
  for (const char* verb : {"run ", "exec "}) {
    if (timing && command.rfind(verb, 0) == 0) {
      command.insert(std::string(verb).size(), std::string("--set gen.gpgpu.timing=") + timing + " ");
    }
  }
  const std::string cmd = std::string(GPUVP_EXE) + " " + command + extra + " " + redirection;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}
}  // namespace

ProcessResult run_gpuvp(const std::string& args) { return run_command(args, "2>&1"); }

SplitResult run_gpuvp_split(const std::string& args) {
  const std::string err_path = ::testing::TempDir() + "gpuvp-stderr-" + std::to_string(::getpid()) + ".txt";
  const ProcessResult r = run_command(args, "2>" + err_path);
  std::ifstream in(err_path);
  const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(err_path.c_str());
  return {r.exit_code, r.out, err};
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace gpuvp::test
