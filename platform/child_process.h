// The program `gpuvp exec` runs next to the model: started with extra environment variables, watched without
// blocking, waited for at the end.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace gpuvp::platform {

class ChildProcess {
 public:
  // Starts argv[0] (searched in PATH, as a shell does) with this process's environment plus `env` (NAME, VALUE;
  // they replace variables of the same name). With an output file, the program's stdout and stderr go there and its
  // stdin reads /dev/null; with input, stdin reads that text (written by the constructor; the program must read it
  // all before it writes much). Throws std::runtime_error naming the program when it cannot start.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
               const std::string& output_file = {}, const std::string* input = nullptr);
  // Ends a program still running (SIGKILL) and reaps it.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // True once the program has exited (reaps it; never blocks).
  bool exited();
  // Sends a signal to a program still running.
  void signal(int sig);
  // Waits for the program up to timeout_ms, then sends SIGTERM and, a second later, SIGKILL. Returns its exit code:
  // its status, or 128 + the signal that ended it (as a shell reports it).
  int wait(int timeout_ms);
  // Waits for the program to exit however long it runs; returns its exit code as wait() does.
  int wait_for_exit() {
    reap(true);
    return exit_code_;
  }
  int exit_code() const { return exit_code_; }
  const std::string& program() const { return program_; }

 private:
  bool reap(bool block);

  std::string program_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_code_ = -1;
};

}  // namespace gpuvp::platform
