// Reporting: thin helpers over SC_REPORT_* with the module's hierarchical name as message type, and a report log
// that records every warning and error so that runs can summarise them and tests can assert on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "tlm/core/format_hex.h"

namespace gpuvp::core {

struct Counter;

// The helpers report the caller's file and line (shown with --verbose), not this header's.
inline void report_info(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
  sc_core::sc_report_handler::report(sc_core::SC_INFO, who, msg.c_str(), sc_core::SC_MEDIUM, file, line);
}
inline void report_warning(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                           int line = __builtin_LINE()) {
  sc_core::sc_report_handler::report(sc_core::SC_WARNING, who, msg.c_str(), file, line);
}
// A bug in the model (a broken protocol between blocks, an impossible state): a SystemC error, which throws unless
// whoever embeds the model decides otherwise. Never for what a guest can cause.
inline void report_error(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                         int line = __builtin_LINE()) {
  sc_core::sc_report_handler::report(sc_core::SC_ERROR, who, msg.c_str(), file, line);
}

// Guest mistakes: what the modelled hardware says about the software driving it (a malformed command, a fault, a
// hang, an access to a register that does not exist). They have a SystemC message type of their own, whose actions
// the model sets itself on first use: an error is logged, displayed and counted (SystemC counts per message type:
// sc_report_handler::get_count(kGuestMsgType, SC_ERROR)) and never throws, whoever embeds the block and whatever
// they did to SC_ERROR's default actions. The message reads "<block>: <text>", so it names the block in any handler;
// ReportLog splits it again into ReportRecord::source and ::message.
inline constexpr const char* kGuestMsgType = "gpuvp/guest";
void report_guest(sc_core::sc_severity severity, const char* who, const std::string& msg, const char* file, int line);
inline void report_guest_error(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                               int line = __builtin_LINE()) {
  report_guest(sc_core::SC_ERROR, who, msg, file, line);
}
inline void report_guest_warning(const char* who, const std::string& msg, const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  report_guest(sc_core::SC_WARNING, who, msg, file, line);
}

// Guest reports are rate-limited per kind: the reporting block, the severity, the source line that reports it and the
// message without its numbers (one kind of diagnostic, whatever addresses or counts it names). The first `limit`
// reports of a kind are shown and logged as usual; the next one is shown once as a notice that the rest are suppressed;
// the rest are only counted. A guest looping over one mistake then costs neither stdout nor host memory without bound.
// 0 = no limit.
inline constexpr std::uint64_t kDefaultGuestReportLimit = 10;
void set_guest_report_limit(std::uint64_t limit);
std::uint64_t guest_report_limit();
// Guest reports not shown (past the notice of their kind), per severity, since the start or the last
// ReportLog::clear().
std::uint64_t suppressed_guest_reports(sc_core::sc_severity severity);
// A counter (a statistic of whoever embeds the blocks) that counts every suppressed guest report; nullptr for none.
void set_suppressed_counter(Counter* counter);

// A block's incident list (its errors and hangs, for the run summary) keeps the first kMaxIncidents, then one line
// saying the rest were not kept: a guest that fails and is reset forever grows no list without bound.
inline constexpr std::size_t kMaxIncidents = 64;
void keep_incident(std::vector<std::string>& incidents, std::string text);

struct ReportRecord {
  sc_core::sc_severity severity;
  std::string msg_type;  // kGuestMsgType for guest mistakes, else the reporting block's name
  std::string source;    // the block that reported (a guest report's "<block>: " prefix, else the message type)
  std::string message;   // without the "<block>: " prefix of a guest report
  bool guest() const { return msg_type == kGuestMsgType; }
};

// Records warnings and errors, guest mistakes and model bugs alike. It changes no actions: guest errors never throw
// (report_guest sets their actions), model errors (SC_ERROR of any other message type) throw as SystemC's default
// actions say, fatal reports abort.
class ReportLog {
 public:
  // Installs the log as the report handler of this process. display=false keeps reports off stderr (tests).
  // Displayed reports are one line each on stderr (SystemC's own handler writes several lines to stdout, where
  // they would mix with script answers): "warning at 691 ns: gpuvp.vc4.v3d: message"; verbose adds
  // " [file:line, process NAME]".
  static void install(bool display = true, bool verbose = false);
  static std::vector<ReportRecord>& records();
  // Records kept (suppressed guest reports are not kept: suppressed_guest_reports counts them).
  static std::size_t count(sc_core::sc_severity severity);
  // Removes and returns the records whose message contains text (all records when text is empty).
  static std::vector<ReportRecord> take(sc_core::sc_severity severity, const std::string& text = {});
  // Drops the records and starts the rate limit of guest reports afresh.
  static void clear();
  // Called before a report line is written, so that a status line on the terminal (the progress line) can be
  // cleared first; nullptr for none.
  static void set_before_display(void (*hook)());
};

// The one-line form of a report, as the log displays it.
std::string format_report(const sc_core::sc_report& report, bool verbose);

}  // namespace gpuvp::core
