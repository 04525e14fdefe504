// Reporting: thin helpers over SC_REPORT_* with the module's hierarchical name as message type, and a report log
// that records every warning and error so that runs can summarise them and tests can assert on them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <systemc>

namespace gpuvp::core {

// The helpers report the caller's file and line (shown with --verbose), not this header's.
inline void report_info(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
  sc_core::sc_report_handler::report(sc_core::SC_INFO, who, msg.c_str(), sc_core::SC_MEDIUM, file, line);
}
inline void report_warning(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                           int line = __builtin_LINE()) {
  sc_core::sc_report_handler::report(sc_core::SC_WARNING, who, msg.c_str(), file, line);
}
// Errors are modelled-hardware diagnostics: they are logged and counted but do not throw (see install_report_log).
inline void report_error(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                         int line = __builtin_LINE()) {
  sc_core::sc_report_handler::report(sc_core::SC_ERROR, who, msg.c_str(), file, line);
}

struct ReportRecord {
  sc_core::sc_severity severity;
  std::string msg_type;
  std::string message;
};

// Records warnings and errors. Errors from the model are diagnostics of guest behaviour, so the log turns off the
// default throw action for SC_ERROR; fatal reports still abort.
class ReportLog {
 public:
  // Installs the log as the report handler of this process. display=false keeps reports off stderr (tests).
  // Displayed reports are one line each on stderr (SystemC's own handler writes several lines to stdout, where
  // they would mix with script answers): "warning at 691 ns: gpuvp.vc4.v3d: message"; verbose adds
  // " [file:line, process NAME]".
  static void install(bool display = true, bool verbose = false);
  static std::vector<ReportRecord>& records();
  static std::size_t count(sc_core::sc_severity severity);
  // Removes and returns the records whose message contains text (all records when text is empty).
  static std::vector<ReportRecord> take(sc_core::sc_severity severity, const std::string& text = {});
  static void clear();
  // Called before a report line is written, so that a status line on the terminal (the progress line) can be
  // cleared first; nullptr for none.
  static void set_before_display(void (*hook)());
};

// The one-line form of a report, as the log displays it.
std::string format_report(const sc_core::sc_report& report, bool verbose);

std::string format_hex(std::uint64_t value);

}  // namespace gpuvp::core
