#include "platform/stop_signal.h"

#include <cmath>
#include <csignal>

#include <sys/time.h>

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

void arm_wall_time_limit(double seconds) {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART, as for the stop signals
  sigaction(SIGALRM, &action, nullptr);
  itimerval timer{};
  const double whole = std::floor(seconds);
  timer.it_value.tv_sec = static_cast<time_t>(whole);
  timer.it_value.tv_usec = static_cast<suseconds_t>((seconds - whole) * 1e6);
  if (timer.it_value.tv_sec == 0 && timer.it_value.tv_usec == 0) timer.it_value.tv_usec = 1;  // 0 would disarm it
  setitimer(ITIMER_REAL, &timer, nullptr);
}

int stop_signal() { return g_signal; }

}  // namespace gpuvp::platform
