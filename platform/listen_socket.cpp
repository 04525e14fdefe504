#include "platform/listen_socket.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tlm/core/config.h"

namespace gpuvp::platform {

ListenSocket listen_on(const std::string& spec, const std::string& label, bool allow_unix) {
  std::signal(SIGPIPE, SIG_IGN);
  ListenSocket s;
  const std::string prefix = label + " '" + spec + "': ";
  auto fail = [&](const std::string& what) {
    const std::string reason = std::strerror(errno);
    if (s.fd >= 0) ::close(s.fd);
    throw std::runtime_error(prefix + what + ": " + reason);
  };
  if (spec.rfind("tcp:", 0) == 0) {
    const std::string rest = spec.substr(4);
    const std::size_t colon = rest.rfind(':');
    std::uint64_t port = 0;
    if (colon == std::string::npos || !core::parse_u64(rest.substr(colon + 1), port) || port > 65535) {
      throw std::runtime_error(prefix + "expected tcp:HOST:PORT");
    }
    const std::string host = rest.substr(0, colon);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
      throw std::runtime_error(prefix + "'" + host + "' is not an IPv4 address");
    }
    s.fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s.fd < 0) fail("socket");
    int one = 1;
    ::setsockopt(s.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) fail("bind");
    socklen_t len = sizeof addr;
    ::getsockname(s.fd, reinterpret_cast<sockaddr*>(&addr), &len);
    s.port = ntohs(addr.sin_port);
  } else if (allow_unix && spec.rfind("unix:", 0) == 0) {
    s.unix_path = spec.substr(5);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (s.unix_path.empty() || s.unix_path.size() >= sizeof addr.sun_path) {
      throw std::runtime_error(prefix + "bad socket path");
    }
    std::memcpy(addr.sun_path, s.unix_path.c_str(), s.unix_path.size() + 1);
    s.fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (s.fd < 0) fail("socket");
    ::unlink(s.unix_path.c_str());
    if (::bind(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) fail("bind");
  } else {
    throw std::runtime_error(prefix + (allow_unix ? "expected tcp:HOST:PORT or unix:PATH" : "expected tcp:HOST:PORT"));
  }
  // A TBX client (NEO) opens one connection per command stream receiver, several at start-up.
  if (::listen(s.fd, 16) < 0) fail("listen");
  return s;
}

}  // namespace gpuvp::platform
