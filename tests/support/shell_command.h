// Runs a shell command and collects its standard output and exit status: for tests and benchmarks that run programs
// of the project's own (the OpenCL corpus on pocl, programs under `gpuvp exec`). Header-only: the benchmarks use it
// without the test support library.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include <sys/wait.h>

namespace gpuvp::test {

struct ShellResult {
  int status = -1;     // the exit status; -1 when the command could not run or ended on a signal
  std::string out;     // standard output
  double seconds = 0;  // wall time
};

inline ShellResult run_shell(const std::string& command) {
  ShellResult r;
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[65536];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int status = pclose(pipe);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace gpuvp::test
