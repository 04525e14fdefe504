// A listening socket for the servers a run offers (the qtest script protocol, the TBX server): "tcp:HOST:PORT"
// (port 0 picks a free one) or "unix:PATH".
#pragma once

#include <string>

namespace gpuvp::platform {

struct ListenSocket {
  int fd = -1;
  int port = 0;           // the TCP port actually bound (useful with port 0); 0 for a unix socket
  std::string unix_path;  // removed again by whoever closes fd
};

// Binds and listens; throws std::runtime_error "LABEL 'SPEC': reason" on a bad spec or a socket error. A unix spec
// is refused unless allow_unix. Ignores SIGPIPE from then on: a peer that goes away ends its session, not the run.
ListenSocket listen_on(const std::string& spec, const std::string& label, bool allow_unix);

}  // namespace gpuvp::platform
