// Test support for SystemC: every test runs in its own process (gtest_discover_tests), runs its stimulus in a thread
// process, and fails if the model reported a warning or error the test did not take with take_reports().
#pragma once

#include <functional>
#include <string>
#include <systemc>
#include <vector>

#include <gtest/gtest.h>

#include "tlm/core/report.h"

namespace gpuvp::test {

// Runs body inside an SC_THREAD and simulates until it returns (or until limit of simulated time passes, which fails
// the test). Create all modules before calling it: the kernel elaborates once.
void run_thread(std::function<void()> body, const sc_core::sc_time& limit = sc_core::sc_time(1, sc_core::SC_SEC));

// Removes and returns the recorded reports of a severity whose message contains text. Tests that provoke warnings
// or errors take them with this; anything left at the end of the test fails it.
std::vector<core::ReportRecord> take_reports(sc_core::sc_severity severity, const std::string& text = {});

// Fails the current test if reports that nobody took remain (called by the test main after every test).
void expect_no_unexpected_reports();

}  // namespace gpuvp::test
