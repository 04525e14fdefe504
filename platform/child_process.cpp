#include "platform/child_process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <stdexcept>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gpuvp::platform {

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::vector<std::pair<std::string, std::string>>& env, const std::string& output_file,
                           const std::string* input)
    : program_(argv.empty() ? std::string() : argv.front()) {
  if (argv.empty()) throw std::runtime_error("exec: no program given (gpuvp exec [options] -- PROGRAM ARGS...)");
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos) continue;
    vars[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& [name, value] : env) vars[name] = value;
  std::vector<std::string> env_strings;
  env_strings.reserve(vars.size());
  for (const auto& [name, value] : vars) env_strings.push_back(name + "=" + value);
  // posix_spawnp takes NULL-terminated arrays of (non-const) C strings.
  auto pointers = [](std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
  };
  std::vector<char*> envp = pointers(env_strings);
  std::vector<std::string> args = argv;
  std::vector<char*> argp = pointers(args);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  int pipe_fds[2] = {-1, -1};
  if (input != nullptr) {
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("exec: cannot make a pipe for '" + program_ + "'");
    ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], 0);  // dup2 clears close-on-exec on stdin
  }
  if (!output_file.empty()) {
    if (input == nullptr) ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_addopen(&actions, 1, output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  const int rc = ::posix_spawnp(&pid_, argp[0], &actions, nullptr, argp.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  if (input != nullptr) ::close(pipe_fds[0]);
  if (rc != 0) {
    if (input != nullptr) ::close(pipe_fds[1]);
    throw std::runtime_error("exec: cannot run '" + program_ + "': " + std::strerror(rc));
  }
  if (input != nullptr) {
    // A program that ends without reading it all must not end this process: SIGPIPE is held off for the write.
    struct sigaction ignore {
    }, previous{};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &previous);
    const char* data = input->data();
    std::size_t left = input->size();
    while (left > 0) {
      const ssize_t n = ::write(pipe_fds[1], data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      data += n;
      left -= static_cast<std::size_t>(n);
    }
    ::close(pipe_fds[1]);
    ::sigaction(SIGPIPE, &previous, nullptr);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
}

bool ChildProcess::reap(bool block) {
  if (exited_) return true;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r != pid_) return false;
  exited_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

bool ChildProcess::exited() { return reap(false); }

void ChildProcess::signal(int sig) {
  if (pid_ > 0 && !reap(false)) ::kill(pid_, sig);
}

int ChildProcess::wait(int timeout_ms) {
  constexpr int kStepMs = 10;
  for (int waited = 0; !reap(false); waited += kStepMs) {
    if (waited >= timeout_ms && waited < timeout_ms + kStepMs) ::kill(pid_, SIGTERM);
    if (waited >= timeout_ms + 1000 && waited < timeout_ms + 1000 + kStepMs) ::kill(pid_, SIGKILL);
    ::usleep(kStepMs * 1000);
  }
  return exit_code_;
}

}  // namespace gpuvp::platform
