// Runs the gpuvp executable as a user would (tests that go through the command line).
#pragma once

#include <string>

namespace gpuvp::test {

struct ProcessResult {
  int exit_code;
  std::string out;  // stdout and stderr together
};

struct SplitResult {
  int exit_code;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `gpuvp ARGS` (the build's executable) and collects its output.
ProcessResult run_gpuvp(const std::string& args);
// The same with stdout and stderr kept apart (tests of what goes where).
SplitResult run_gpuvp_split(const std::string& args);
// Writes text to a file in the test's temporary directory and returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);

}  // namespace gpuvp::test
