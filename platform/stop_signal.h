// SIGINT/SIGTERM (and the wall-time limit's SIGALRM) end a run cleanly: the handler only records the signal
// (async-signal-safe); the run monitor stops the simulation at its next check, a blocked qtest read returns, and the
// run then writes its summary, statistics and trace as usual and exits 128 + the signal number.
#pragma once

namespace gpuvp::platform {

// Installs the handlers for SIGINT and SIGTERM. Blocking system calls are not restarted (they return EINTR, so a
// socket wait sees the request); a second signal of the same kind takes its default action (kills the process).
void install_stop_signals();
// Arms a one-shot host-time limit (--max-wall-time): after `seconds` of wall time SIGALRM arrives and stops the run
// as a stop signal does (stop_signal() then returns SIGALRM), also out of a blocked socket wait.
void arm_wall_time_limit(double seconds);
// The first stop signal received (SIGINT, SIGTERM, or SIGALRM from the wall-time limit), 0 if none.
int stop_signal();

}  // namespace gpuvp::platform
