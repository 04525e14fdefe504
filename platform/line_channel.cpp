#include "platform/line_channel.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/listen_socket.h"
#include "platform/progress_monitor.h"
#include "platform/stop_signal.h"

namespace gpuvp::platform {

namespace {
// Waits until fd has input (or a peer, or an error to read); false when a stop signal came first. The flag is
// looked at between bounded waits: a signal landing just before a wait would otherwise go unseen until the peer
// sent something.
bool wait_readable(int fd) {
  for (;;) {
    if (stop_signal() != 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, 100);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;  // let the read report the error
  }
}
}  // namespace

StreamChannel::StreamChannel(std::unique_ptr<std::istream> in, std::string label, bool echo_answers)
    : in_(std::move(in)), label_(std::move(label)), echo_(echo_answers) {}

std::unique_ptr<StreamChannel> StreamChannel::open_file(const std::string& path, bool echo_answers) {
  auto in = std::make_unique<std::ifstream>(path);
  if (!*in) throw std::runtime_error("script file '" + path + "' cannot be read");
  return std::make_unique<StreamChannel>(std::move(in), path, echo_answers);
}

std::unique_ptr<StreamChannel> StreamChannel::from_text(const std::string& text, const std::string& label,
                                                        bool echo_answers) {
  return std::make_unique<StreamChannel>(std::make_unique<std::istringstream>(text), label, echo_answers);
}

bool StreamChannel::next(std::string& line) {
  line.clear();
  overlong_ = false;
  std::streambuf* in = in_->rdbuf();
  bool any = false;
  for (int c = in->sbumpc(); c != std::char_traits<char>::eof(); c = in->sbumpc()) {
    any = true;
    if (c == '\n') break;
    if (line.size() == kMaxLineBytes) {
      // A script ends at its first ERR: no need to read on (a file such as /dev/zero has no end).
      overlong_ = true;
      line.clear();
      break;
    }
    line.push_back(static_cast<char>(c));
  }
  if (!any) return false;
  ++line_number_;
  return true;
}

void StreamChannel::answer(const std::string& text) {
  if (!echo_) return;
  ProgressMonitor::clear_line();
  // One answer per line as it happens, so that a harness reading the pipe sees each when it is made.
  std::cout << text << std::endl;
}

SocketChannel::SocketChannel(const std::string& spec) : spec_(spec) {
  const ListenSocket s = listen_on(spec, "qtest", true);
  listen_fd_ = s.fd;
  bound_port_ = s.port;
  unix_path_ = s.unix_path;
}

void SocketChannel::close_peer() {
  if (peer_fd_ >= 0) ::close(peer_fd_);
  peer_fd_ = -1;
}

SocketChannel::~SocketChannel() {
  close_peer();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (!unix_path_.empty()) ::unlink(unix_path_.c_str());
}

void SocketChannel::accept_peer() {
  std::cerr << "gpuvp: qtest listening on " << spec_;
  if (bound_port_) std::cerr << " (port " << bound_port_ << ")";
  std::cerr << std::endl;
  // Stopped (SIGINT/SIGTERM) before a peer came: a session without commands.
  if (!wait_readable(listen_fd_)) return;
  do {
    peer_fd_ = ::accept(listen_fd_, nullptr, nullptr);
  } while (peer_fd_ < 0 && errno == EINTR);
  if (peer_fd_ < 0) throw std::runtime_error("qtest '" + spec_ + "': accept: " + std::strerror(errno));
}

bool SocketChannel::next(std::string& line) {
  overlong_ = false;
  for (;;) {
    const std::size_t nl = buffer_.find('\n');
    if (discarding_) {
      // The rest of a line already answered as overlong: dropped up to its newline; what follows is the next line.
      if (nl == std::string::npos) {
        buffer_.clear();
      } else {
        buffer_.erase(0, nl + 1);
        discarding_ = false;
        continue;
      }
    } else if (nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      buffer_.erase(0, nl + 1);
      ++line_number_;
      return true;
    }
    if (peer_fd_ < 0) return false;
    if (!wait_readable(peer_fd_)) return false;  // SIGINT/SIGTERM while waiting for the peer: the session ends
    char chunk[4096];
    ssize_t n;
    do {
      n = ::recv(peer_fd_, chunk, sizeof chunk, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      // Peer closed: a last line without newline still counts.
      if (buffer_.empty()) return false;
      line.swap(buffer_);
      buffer_.clear();
      ++line_number_;
      return true;
    }
    const std::size_t before = buffer_.size();
    buffer_.append(chunk, static_cast<std::size_t>(n));
    // A line longer than the protocol allows is answered at once (the peer may be waiting for that answer); the rest
    // of it, up to its newline, is dropped, and the lines after it are served as usual.
    const std::size_t nl_in_chunk = buffer_.find('\n', before);
    const std::size_t line_end = nl_in_chunk == std::string::npos ? buffer_.size() : nl_in_chunk;
    if (!discarding_ && line_end > kMaxLineBytes) {
      buffer_.erase(0, line_end);  // keeps the newline (if it came), which ends the dropped line
      discarding_ = nl_in_chunk == std::string::npos;
      if (!discarding_) buffer_.erase(0, 1);
      ++line_number_;
      line.clear();
      overlong_ = true;
      return true;
    }
  }
}

void SocketChannel::answer(const std::string& text) {
  const std::string out = text + "\n";
  std::size_t sent = 0;
  while (sent < out.size()) {
    ssize_t n = ::send(peer_fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // peer gone; next() will see the end
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace gpuvp::platform
