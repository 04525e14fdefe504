// Reports: guest mistakes have a message type of their own whose actions the model sets (logged, displayed, counted,
// never thrown) whoever embeds the block; model bugs are SystemC errors, which throw by default.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/sc_test.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"

namespace gpuvp {
namespace {

using sc_core::sc_report_handler;

TEST(GuestReports, AGuestErrorNeverThrowsEvenWhenTheEmbedderMakesErrorsThrow) {
  // An embedder that wants every SystemC error to throw, with SystemC's own handler instead of gpuvp's log.
  sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_LOG | sc_core::SC_DISPLAY | sc_core::SC_THROW);
  sc_report_handler::set_handler(sc_report_handler::default_handler);
  const int before = sc_report_handler::get_count(core::kGuestMsgType, sc_core::SC_ERROR);
  EXPECT_NO_THROW(core::report_guest_error("soc.gpu.rcs", "MI opcode 0x3f is not a command"));
  EXPECT_NO_THROW(core::report_guest_error("soc.gpu.rcs", "engine hung"));
  EXPECT_EQ(sc_report_handler::get_count(core::kGuestMsgType, sc_core::SC_ERROR), before + 2);
  // SystemC's handler shows the block: the message names it.
  const sc_core::sc_report* last = sc_report_handler::get_cached_report();
  ASSERT_NE(last, nullptr);
  EXPECT_STREQ(last->get_msg_type(), "gpuvp/guest");
  EXPECT_STREQ(last->get_msg(), "soc.gpu.rcs: engine hung");
  // A model bug of the same block does throw.
  EXPECT_THROW(core::report_error("soc.gpu.rcs", "nb_transport_fw: only BEGIN_REQ is expected"), sc_core::sc_report);
  core::ReportLog::install(false);
  core::ReportLog::clear();
}

TEST(GuestReports, TheLogSplitsBlockAndTextAndDisplaysTheUsualLine) {
  core::ReportLog::install(false);
  core::report_guest_error("soc.v3d.ct0", "CT0: unknown opcode 0xFF at 0x1000");
  core::report_guest_warning("soc.gen", "read of unmapped register offset 0x4 (4 bytes): returns 0");
  const auto errors = test::take_reports(sc_core::SC_ERROR);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(errors[0].guest());
  EXPECT_EQ(errors[0].msg_type, "gpuvp/guest");
  EXPECT_EQ(errors[0].source, "soc.v3d.ct0");
  EXPECT_EQ(errors[0].message, "CT0: unknown opcode 0xFF at 0x1000");  // the text's own ": " stays
  const auto warnings = test::take_reports(sc_core::SC_WARNING);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].source, "soc.gen");
  EXPECT_EQ(warnings[0].message, "read of unmapped register offset 0x4 (4 bytes): returns 0");

  // The displayed line is "severity at TIME: block: text" for guest reports and model reports alike.
  static std::vector<std::string> lines;
  sc_report_handler::set_handler(
      [](const sc_core::sc_report& r, const sc_core::sc_actions&) { lines.push_back(core::format_report(r, false)); });
  core::report_guest_error("soc.gen.rcs", "bad length");
  core::report_warning("soc.bus", "odd");
  EXPECT_EQ(lines, (std::vector<std::string>{"error at 0 s: soc.gen.rcs: bad length", "warning at 0 s: soc.bus: odd"}));
  core::ReportLog::install(false);
}

// A guest looping over one mistake: the first reports of a kind are shown, then one notice, then only a count.
TEST(GuestReports, EachKindIsShownUpToTheLimitThenOneNoticeThenOnlyCounted) {
  core::ReportLog::install(false);
  core::ReportLog::clear();
  core::Counter suppressed;
  core::set_suppressed_counter(&suppressed);
  core::set_guest_report_limit(3);
  for (int i = 0; i < 10; ++i) {
    // One kind: this block, a warning, this source line, whatever the offset.
    core::report_guest_warning("soc.gen", "write of unmapped register offset " + core::format_hex(0x100 + i));
  }
  core::report_guest_warning("soc.v3d", "another block, another kind");
  core::report_guest_error("soc.gen", "an error is a kind of its own");
  const auto warnings = test::take_reports(sc_core::SC_WARNING);
  ASSERT_EQ(warnings.size(), 5u);
  EXPECT_EQ(warnings[0].message, "write of unmapped register offset 0x100");  // the first three unchanged
  EXPECT_EQ(warnings[2].message, "write of unmapped register offset 0x102");
  EXPECT_EQ(warnings[3].message,
            "further reports like this one are suppressed after 3 (sim.guest_report_limit; the run summary counts "
            "them): write of unmapped register offset 0x103");
  EXPECT_EQ(warnings[4].source, "soc.v3d");
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR).size(), 1u);
  EXPECT_EQ(core::suppressed_guest_reports(sc_core::SC_WARNING), 6u);  // 10 - 3 shown - 1 notice
  EXPECT_EQ(core::suppressed_guest_reports(sc_core::SC_ERROR), 0u);
  EXPECT_EQ(suppressed.value, 6u);

  // clear() starts afresh; a limit of 0 shows everything.
  core::ReportLog::clear();
  EXPECT_EQ(core::suppressed_guest_reports(sc_core::SC_WARNING), 0u);
  core::set_guest_report_limit(0);
  for (int i = 0; i < 20; ++i) core::report_guest_warning("soc.gen", "again");
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING).size(), 20u);
  EXPECT_EQ(suppressed.value, 6u);
  core::set_suppressed_counter(nullptr);
  core::set_guest_report_limit(core::kDefaultGuestReportLimit);
}

TEST(ModelReports, AModelErrorThrowsAndIsLoggedAsNoGuestReport) {
  core::ReportLog::install(false);
  EXPECT_THROW(core::report_error("soc.bus", "nb_transport_fw: the bus supports blocking transport only"),
               sc_core::sc_report);
  const auto bugs = test::take_reports(sc_core::SC_ERROR);
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_FALSE(bugs[0].guest());
  EXPECT_EQ(bugs[0].source, "soc.bus");
  EXPECT_EQ(bugs[0].message, "nb_transport_fw: the bus supports blocking transport only");
}

}  // namespace
}  // namespace gpuvp
