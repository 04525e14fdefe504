#include "tlm/core/timeline.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace gpuvp::core {

namespace {
// Chrome-trace timestamps are microseconds; keep picosecond precision as a fraction.
std::string micros(Picoseconds ps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%06llu", static_cast<unsigned long long>(ps / kPsPerUs),
                static_cast<unsigned long long>(ps % kPsPerUs));
  return buf;
}
std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }
}  // namespace

Timeline::~Timeline() { close(); }

void Timeline::open(const std::string& path) {
  close();
  out_.open(path);
  if (!out_) throw std::runtime_error("cannot write trace file '" + path + "'");
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out_ << "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"gpuvp\"}}";
  enabled_ = true;
  events_ = 0;
  for (const auto& [name, id] : tracks_) write_track_name(id, name);
}

void Timeline::close() {
  if (!enabled_) return;
  for (TimelineSource* source : sources_) source->flush_to_timeline();
  out_ << "\n]}\n";
  out_.close();
  enabled_ = false;
}

void Timeline::detach(TimelineSource* source) {
  sources_.erase(std::remove(sources_.begin(), sources_.end(), source), sources_.end());
}

int Timeline::track(const std::string& name) {
  auto it = tracks_.find(name);
  if (it != tracks_.end()) return it->second;
  int id = static_cast<int>(tracks_.size()) + 1;
  tracks_.emplace(name, id);
  if (enabled_) write_track_name(id, name);
  return id;
}

void Timeline::begin_event() {
  out_ << ",\n";
  ++events_;
}

void Timeline::write_track_name(int track, const std::string& name) {
  out_ << ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":" << track
       << ",\"name\":\"thread_name\",\"args\":{\"name\":" << quoted(name) << "}}";
}

void Timeline::write_span(int track, const char* name, Picoseconds start, Picoseconds duration,
                          const std::string& args) {
  begin_event();
  out_ << "{\"ph\":\"X\",\"pid\":1,\"tid\":" << track << ",\"name\":" << quoted(name) << ",\"ts\":" << micros(start)
       << ",\"dur\":" << micros(duration);
  if (!args.empty()) out_ << ",\"args\":" << args;
  out_ << "}";
}

void Timeline::write_instant(int track, const char* name, Picoseconds at) {
  begin_event();
  out_ << "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":" << track << ",\"name\":" << quoted(name)
       << ",\"ts\":" << micros(at) << "}";
}

void Timeline::write_value(int track, const char* name, Picoseconds at, double v) {
  begin_event();
  out_ << "{\"ph\":\"C\",\"pid\":1,\"tid\":" << track << ",\"name\":" << quoted(name) << ",\"ts\":" << micros(at)
       << ",\"args\":{\"value\":" << nlohmann::json(v).dump() << "}}";
}

void OpenSpan::begin(int track, std::string name, Picoseconds at, std::string args) {
  if (!timeline_.enabled()) return;
  end(at);
  open_ = true;
  track_ = track;
  name_ = std::move(name);
  args_ = std::move(args);
  since_ps_ = at;
}

void OpenSpan::end(Picoseconds at) {
  if (!open_) return;
  open_ = false;
  timeline_.span(track_, name_.c_str(), since_ps_, at > since_ps_ ? at - since_ps_ : 0, args_);
}

void OpenSpan::flush_to_timeline() { end(now_ps()); }

Timeline& timeline() {
  static Timeline instance;
  return instance;
}

}  // namespace gpuvp::core
