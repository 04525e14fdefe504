// Where script commands come from and where answers go: a script file, an embedded text, or a qtest socket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <sstream>
#include <string>

namespace gpuvp::platform {

class LineChannel {
 public:
  // The protocol's longest line: a longer one is rejected (one ERR answer), so that no input grows host memory
  // without a bound.
  static constexpr std::size_t kMaxLineBytes = 4u << 20;

  virtual ~LineChannel() = default;
  // Next command line; false at the end of input. A line over kMaxLineBytes comes back empty with overlong() true.
  virtual bool next(std::string& line) = 0;
  bool overlong() const { return overlong_; }
  virtual void answer(const std::string& text) = 0;
  // An asynchronous line between answers ("IRQ raise 0"), written as a whole line the way answers are.
  virtual void notice(const std::string& text) { answer(text); }
  // "FILE:LINE" of the last line read, for diagnostics.
  virtual std::string where() const = 0;
  // A script ends at the first ERR; an interactive peer decides itself what to do with an ERR.
  virtual bool stop_on_error() const = 0;

 protected:
  bool overlong_ = false;
};

// Lines from a stream (a file or embedded text); answers printed to stdout unless quiet.
class StreamChannel : public LineChannel {
 public:
  StreamChannel(std::unique_ptr<std::istream> in, std::string label, bool echo_answers);
  // Opens a script file; throws std::runtime_error naming the file if it cannot be read.
  static std::unique_ptr<StreamChannel> open_file(const std::string& path, bool echo_answers);
  static std::unique_ptr<StreamChannel> from_text(const std::string& text, const std::string& label, bool echo_answers);

  bool next(std::string& line) override;
  void answer(const std::string& text) override;
  std::string where() const override { return label_ + ":" + std::to_string(line_number_); }
  bool stop_on_error() const override { return true; }

 private:
  std::unique_ptr<std::istream> in_;
  std::string label_;
  bool echo_;
  std::uint64_t line_number_ = 0;
};

// A qtest-style socket peer: "tcp:HOST:PORT" (listens on HOST, accepts one connection) or "unix:PATH".
class SocketChannel : public LineChannel {
 public:
  // Listens and waits for one peer; throws std::runtime_error with a one-line reason on failure.
  explicit SocketChannel(const std::string& spec);
  ~SocketChannel() override;
  // Blocks until a peer connects. Prints where it listens on stderr first.
  void accept_peer();

  bool next(std::string& line) override;
  void answer(const std::string& text) override;
  std::string where() const override { return spec_ + ":" + std::to_string(line_number_); }
  bool stop_on_error() const override { return false; }
  // Ends the session with the peer (it sees end of file).
  void close_peer();
  // The TCP port actually bound (useful with port 0).
  int bound_port() const { return bound_port_; }

 private:
  std::string spec_;
  std::string unix_path_;
  int listen_fd_ = -1;
  int peer_fd_ = -1;
  int bound_port_ = 0;
  std::string buffer_;
  bool discarding_ = false;  // the rest of an overlong line is dropped up to its newline
  std::uint64_t line_number_ = 0;
};

}  // namespace gpuvp::platform
