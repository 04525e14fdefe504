// Reporting: thin helpers over SC_REPORT_* with the module's hierarchical name as message type, and a report log
// that records every warning and error so that runs can summarise them and tests can assert on them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <systemc>

namespace gpuvp::core {

inline void report_info(const char* who, const std::string& msg) { SC_REPORT_INFO_VERB(who, msg.c_str(), sc_core::SC_MEDIUM); }
inline void report_warning(const char* who, const std::string& msg) { SC_REPORT_WARNING(who, msg.c_str()); }
// Errors are modelled-hardware diagnostics: they are logged and counted but do not throw (see install_report_log).
inline void report_error(const char* who, const std::string& msg) { SC_REPORT_ERROR(who, msg.c_str()); }

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
  static void install(bool display = true);
  static std::vector<ReportRecord>& records();
  static std::size_t count(sc_core::sc_severity severity);
  // Removes and returns the records whose message contains text (all records when text is empty).
  static std::vector<ReportRecord> take(sc_core::sc_severity severity, const std::string& text = {});
  static void clear();
};

std::string format_hex(std::uint64_t value);

}  // namespace gpuvp::core
