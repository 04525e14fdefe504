#include "platform/stop_signal.h"

#include <csignal>

namespace gpuvp::platform {

namespace {
volatile std::sig_atomic_t g_signal = 0;

void on_stop_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
}
}  // namespace

void install_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // no SA_RESTART: a blocked accept/recv returns EINTR
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int stop_signal() { return g_signal; }

}  // namespace gpuvp::platform
