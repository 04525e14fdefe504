#include "tlm/core/report.h"

#include <algorithm>
#include <cstdio>

namespace gpuvp::core {

namespace {
bool g_display = true;
std::vector<ReportRecord> g_records;

void log_handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (report.get_severity() >= sc_core::SC_WARNING) {
    g_records.push_back({report.get_severity(), report.get_msg_type(), report.get_msg()});
  }
  sc_core::sc_actions shown = actions;
  if (!g_display) shown &= ~static_cast<sc_core::sc_actions>(sc_core::SC_DISPLAY);
  sc_core::sc_report_handler::default_handler(report, shown);
}
}  // namespace

void ReportLog::install(bool display) {
  g_display = display;
  sc_core::sc_report_handler::set_handler(log_handler);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_LOG | sc_core::SC_DISPLAY | sc_core::SC_CACHE_REPORT);
}

std::vector<ReportRecord>& ReportLog::records() { return g_records; }

std::size_t ReportLog::count(sc_core::sc_severity severity) {
  return static_cast<std::size_t>(
      std::count_if(g_records.begin(), g_records.end(), [&](const ReportRecord& r) { return r.severity == severity; }));
}

std::vector<ReportRecord> ReportLog::take(sc_core::sc_severity severity, const std::string& text) {
  std::vector<ReportRecord> taken;
  auto keep = std::stable_partition(g_records.begin(), g_records.end(), [&](const ReportRecord& r) {
    return !(r.severity == severity && r.message.find(text) != std::string::npos);
  });
  taken.assign(keep, g_records.end());
  g_records.erase(keep, g_records.end());
  return taken;
}

void ReportLog::clear() { g_records.clear(); }

std::string format_hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

}  // namespace gpuvp::core
