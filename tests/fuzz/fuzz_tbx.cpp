// libFuzzer harness: the TBX server's message loop (platform/tbx_server), as Intel's OpenCL runtime NEO drives it in
// TBX mode. The input is the byte stream a client sends on one connection (12-byte headers, bodies, write data:
// docs/gen-tbx.md); the harness hands the server one end of a socketpair (TbxServer::attach, a new session on the
// platform kept across inputs) and a client thread writes the input, shuts its side down and reads the answers. The
// server must serve the session to its end within the input's simulated time and close the connection.
//
// Checks beyond libFuzzer's: what the client receives is a sequence of well-formed answers (MMIO_RES, GTT_RES,
// READ_DATA_RES with its data), the connection ends, and every diagnostic the server writes is one line of bounded
// length (what a broken client is told: "gpuvp: tbx client N: ... (connection closed)"). A client stops reading after
// 1 MiB of answers and closes (a READ_DATA_REQ may ask for 4 GiB); the server must then see it gone.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/tbx_protocol.h"
#include "platform/tbx_server.h"
#include "tests/fuzz/fuzz_platform.h"

namespace {

namespace tbx = gpuvp::platform::tbx;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_tbx: %s\n", what.c_str());
  std::abort();
}

// Checks the answers as they arrive: whole messages of the three answer types, each with its body (and a read's data).
class AnswerChecker {
 public:
  void feed(const std::uint8_t* data, std::size_t n) {
    for (std::size_t i = 0; i < n;) {
      if (data_left_ > 0) {
        const std::size_t take = std::min<std::size_t>(n - i, data_left_);
        data_left_ -= take;
        i += take;
        continue;
      }
      pending_.push_back(data[i++]);
      if (pending_.size() == tbx::kHeaderBytes) {
        const tbx::Header h = tbx::decode_header(pending_.data());
        const auto type = static_cast<tbx::MsgType>(h.type);
        const std::size_t expected = type == tbx::MsgType::kMmioRes       ? tbx::kMmioResponseBytes
                                     : type == tbx::MsgType::kGttRes      ? tbx::kGttResponseBytes
                                     : type == tbx::MsgType::kReadDataRes ? tbx::kReadDataResponseBytes
                                                                          : 0;
        if (expected == 0 || h.size != expected - tbx::kHeaderBytes) {
          fail("the server sent a message that is no answer: " + tbx::type_name(h.type) + " with " +
               std::to_string(h.size) + " body bytes");
        }
        message_ = expected;
      }
      if (message_ != 0 && pending_.size() == message_) {
        if (static_cast<tbx::MsgType>(tbx::decode_header(pending_.data()).type) == tbx::MsgType::kReadDataRes) {
          data_left_ = tbx::decode_read_data_response(pending_.data() + tbx::kHeaderBytes).size;
        }
        pending_.clear();
        message_ = 0;
        ++answers_;
      }
    }
  }
  // Whether the stream stopped between answers.
  bool whole() const { return pending_.empty() && data_left_ == 0; }
  std::uint64_t answers() const { return answers_; }

 private:
  std::vector<std::uint8_t> pending_;  // the current answer's header and body
  std::size_t message_ = 0;            // its size, once the header is in
  std::uint64_t data_left_ = 0;        // read data still to come
  std::uint64_t answers_ = 0;
};

constexpr std::size_t kMaxAnswerBytes = 1 << 20;

// The client's traffic: writes the input (draining answers meanwhile, as the server blocks on a full socket), shuts
// its side down, reads to the end. Returns whether the server closed the connection (false: the client gave up
// reading).
bool talk(int fd, const std::uint8_t* data, std::size_t size, AnswerChecker& answers) {
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  std::size_t sent = 0, received = 0;
  bool shut = false;
  std::vector<std::uint8_t> buffer(64 * 1024);
  for (;;) {
    if (!shut && sent == size) {
      ::shutdown(fd, SHUT_WR);
      shut = true;
    }
    pollfd p{fd, static_cast<short>(POLLIN | (shut ? 0 : POLLOUT)), 0};
    if (::poll(&p, 1, -1) < 0) continue;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t k = ::recv(fd, buffer.data(), buffer.size(), 0);
      if (k == 0) return true;  // the server closed the connection
      if (k > 0) {
        answers.feed(buffer.data(), static_cast<std::size_t>(k));
        received += static_cast<std::size_t>(k);
        if (received >= kMaxAnswerBytes) return false;
      } else if (errno != EAGAIN && errno != EINTR) {
        return true;  // reset by the server
      }
    }
    if (!shut && (p.revents & POLLOUT)) {
      const ssize_t k = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
      if (k > 0) sent += static_cast<std::size_t>(k);
      if (k < 0 && errno == EPIPE) {
        shut = true;  // the server closed first: its answers may still be there to read
      }
    }
  }
}

// The client: talks, then closes its end (a client that gave up reading is gone for the server too).
bool client(int fd, const std::uint8_t* data, std::size_t size, AnswerChecker& answers) {
  const bool closed_by_server = talk(fd, data, size, answers);
  ::close(fd);
  return closed_by_server;
}

// Every line the server wrote: "gpuvp: " and a bounded text.
void check_diagnostics(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("gpuvp: ", 0) != 0 || line.size() > 1024) fail("diagnostic not one bounded line: " + line);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuvp;
  fuzz::FuzzPlatform& fp = fuzz::FuzzPlatform::instance();
  platform::TbxServer& server = fp.tbx();

  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) fail("socketpair failed");
  server.attach(fds[1]);
  AnswerChecker answers;
  bool closed_by_server = false;
  std::thread peer([&] { closed_by_server = client(fds[0], data, size, answers); });
  // Hung sessions and the model's watchdogs end well within this: reads wait at most host.tbx_read_wait_ns (100 us
  // here) each.
  fuzz::FuzzRunLimits limits;
  limits.commands = 2'000 * core::kPsPerUs + size * 200 * core::kPsPerUs;
  std::ostringstream diagnostics;
  std::streambuf* const cerr = std::cerr.rdbuf(diagnostics.rdbuf());
  fp.run_until([&] { return !server.in_session(); }, limits);
  std::cerr.rdbuf(cerr);
  peer.join();

  check_diagnostics(diagnostics.str());
  if (server.failure().find('\n') != std::string::npos) fail("failure text spans lines: " + server.failure());
  if (closed_by_server && !answers.whole()) fail("the connection ended in the middle of an answer");
  if (server.in_session()) fail("the session did not end");
  return 0;
}
