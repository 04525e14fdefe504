// Timeline writer: Chrome-trace / Perfetto JSON with one track per block. Off by default; every recording call is a
// single branch when off.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tlm/core/timing.h"

namespace gpuvp::core {

// A block that holds events back until it knows they are final (bandwidth windows: accesses arrive out of time order
// under temporal decoupling) and writes the rest when the file closes.
class TimelineSource {
 public:
  virtual ~TimelineSource() = default;
  // Writes what is held back; called by Timeline::close() while the timeline is still enabled.
  virtual void flush_to_timeline() = 0;
};

class Timeline {
 public:
  ~Timeline();

  // Starts writing to a file; throws std::runtime_error naming the file when it cannot be opened.
  void open(const std::string& path);
  // Finishes the JSON document and closes the file (also done by the destructor).
  void close();
  bool enabled() const { return enabled_; }

  // A track is a named row in the viewer (a thread of the "gpuvp" process). Returns a small id; the same name gives
  // the same id. Works while disabled too, so blocks can register at construction.
  int track(const std::string& name);

  // A span of activity on a track, [start, start + duration).
  // args: empty, or a JSON object's text, the event's "args" (what a viewer shows with it, what a report reads).
  void span(int track, const char* name, Picoseconds start, Picoseconds duration, const std::string& args = {}) {
    if (enabled_) write_span(track, name, start, duration, args);
  }
  // A point event.
  void instant(int track, const char* name, Picoseconds at) {
    if (enabled_) write_instant(track, name, at);
  }
  // A counter sample drawn as a graph.
  void value(int track, const char* name, Picoseconds at, double v) {
    if (enabled_) write_value(track, name, at, v);
  }

  std::uint64_t events_written() const { return events_; }

  // Sources are flushed in the order they attached; a source detaches before it is destroyed.
  void attach(TimelineSource* source) { sources_.push_back(source); }
  void detach(TimelineSource* source);

 private:
  void write_span(int track, const char* name, Picoseconds start, Picoseconds duration, const std::string& args);
  void write_instant(int track, const char* name, Picoseconds at);
  void write_value(int track, const char* name, Picoseconds at, double v);
  void write_track_name(int track, const std::string& name);
  void begin_event();

  bool enabled_ = false;
  std::ofstream out_;
  std::map<std::string, int> tracks_;
  std::vector<TimelineSource*> sources_;
  std::uint64_t events_ = 0;
};

// The timeline of this simulation.
Timeline& timeline();

// A span that opens and closes at different places of a block (a batch from its start to its end, an interrupt from
// its delivery to its EOI), written when it closes; one still open when the timeline closes ends at the kernel's time
// (the end of the run). Nothing is recorded while the timeline is off.
class OpenSpan : public TimelineSource {
 public:
  explicit OpenSpan(Timeline& timeline = core::timeline()) : timeline_(timeline) { timeline_.attach(this); }
  ~OpenSpan() override { timeline_.detach(this); }
  OpenSpan(const OpenSpan&) = delete;
  OpenSpan& operator=(const OpenSpan&) = delete;

  // Opens the span on track at time at (an open one is written first, ending there).
  void begin(int track, std::string name, Picoseconds at, std::string args = {});
  // Writes the span ending at time at; nothing when it is not open.
  void end(Picoseconds at);
  bool open() const { return open_; }
  void flush_to_timeline() override;

 private:
  Timeline& timeline_;
  bool open_ = false;
  int track_ = 0;
  std::string name_;
  std::string args_;
  Picoseconds since_ps_ = 0;
};

}  // namespace gpuvp::core
