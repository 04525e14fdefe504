#include "platform/tbx_server.h"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hw/gen/engines.h"
#include "hw/gen/gtt_regs.h"
#include "platform/progress_monitor.h"
#include "platform/stop_signal.h"
#include "tlm/core/format_hex.h"
#include "tlm/core/report.h"

namespace gpuvp::platform {

namespace {

// Data moves in chunks of this size: a 4 GiB request never needs a 4 GiB buffer.
constexpr std::size_t kChunkBytes = 64 * 1024;
// An unknown message's body is skipped when it is at most this long; a longer one is taken for garbage.
constexpr std::uint32_t kMaxSkippedBody = 1 << 20;
// Between checks of the stop signal and of the client process while waiting for input.
constexpr int kWaitMs = 100;

std::string hex(std::uint64_t v) { return core::format_hex(v); }

// NEO sends a data request's header and its data in two send() calls, and reads an answer's header and data with two
// recv() calls: with Nagle's algorithm on one side and delayed ACKs on the other each such exchange would wait ~40 ms.
// Answers go out at once (TCP_NODELAY) and every segment received is acknowledged at once (TCP_QUICKACK, which Linux
// clears again, hence after every recv).
void quick_ack(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
}

}  // namespace

TbxServer::TbxServer(sc_core::sc_module_name name, Platform& platform, const std::string& spec)
    : sc_module(name),
      platform_(platform),
      spec_(spec),
      listen_(spec.empty() ? ListenSocket{} : listen_on(spec, "tbx", false)),
      poll_interval_(platform.params().host.poll_interval_ns * core::kPsPerNs),
      read_wait_(platform.params().host.tbx_read_wait_ns * core::kPsPerNs),
      stall_timeout_(platform.params().host.tbx_stall_timeout_ns * core::kPsPerNs),
      wait_limit_(platform.params().host.gpu_wait_limit_ns * core::kPsPerNs),
      stats_(this->name()),
      requests_(stats_.counter("requests", "messages", "TBX messages served")),
      connections_accepted_(stats_.counter("connections", "connections", "TBX client connections accepted")),
      mmio_reads_(stats_.counter("mmio_reads", "requests", "MMIO_REQ reads of GPU registers")),
      mmio_writes_(stats_.counter("mmio_writes", "requests", "MMIO_REQ writes of GPU registers")),
      gtt_reads_(stats_.counter("gtt_reads", "requests", "GTT_REQ reads of GGTT entries")),
      gtt_writes_(stats_.counter("gtt_writes", "requests", "GTT_REQ writes of GGTT entries")),
      memory_reads_(stats_.counter("memory_reads", "requests", "READ_DATA_REQ reads of physical memory")),
      memory_writes_(stats_.counter("memory_writes", "requests", "WRITE_DATA_REQ writes of physical memory")),
      bytes_read_(stats_.counter("bytes_read", "bytes", "bytes returned by READ_DATA_REQ")),
      bytes_written_(stats_.counter("bytes_written", "bytes", "bytes written by WRITE_DATA_REQ")),
      protocol_errors_(stats_.counter("protocol_errors", "events", "malformed or unknown TBX messages")),
      settle_ps_(stats_.counter("settle_ps", "ps",
                                "simulated time spent before answering reads, waiting for the GPU to go idle")),
      drain_ps_(stats_.counter("drain_ps", "ps",
                               "simulated time the GPU went on with work the clients left when the session ended")) {
  in_process_ = spec.empty();
  SC_HAS_PROCESS(TbxServer);
  SC_THREAD(run);
}

TbxServer::~TbxServer() { close_connections(); }

void TbxServer::close_connections() {
  for (auto& c : connections_) ::close(c->fd);
  connections_.clear();
  if (listen_.fd >= 0) ::close(listen_.fd);
  listen_.fd = -1;
}

void TbxServer::attach(int fd) {
  if (!in_session_) {
    in_session_ = true;
    finished_ = false;
    stalled_ = false;
    failure_.clear();
    incidents_seen_ = 0;
    incidents_before_ = engine_incidents();
    quiet_since_ = core::now_ps();
    attached_.notify(sc_core::SC_ZERO_TIME);
  }
  auto c = std::make_unique<Connection>();
  c->fd = fd;
  c->id = ++accepted_;
  ++connections_accepted_;
  connections_.push_back(std::move(c));
}

void TbxServer::run() {
  if (!in_process_) {
    serve_session();
    sc_core::sc_stop();
    return;
  }
  // In-process: one session per attach, the simulation going on between them.
  for (;;) {
    while (!in_session_) sc_core::wait(attached_);
    serve_session();
    // A session that ended on a stall or a stop leaves connections open: the client sees the end.
    for (auto& c : connections_) ::close(c->fd);
    connections_.clear();
    in_session_ = false;
  }
}

void TbxServer::reset_failed_engines() {
  gen::GenGpu* gpu = platform_.gen();
  if (gpu == nullptr) return;
  std::uint32_t domains = 0;
  for (int e = 0; e < gen::kEngineCount; ++e) {
    const gen::CommandStreamer* cs = gpu->engine(static_cast<gen::Engine>(e));
    if (cs != nullptr && (cs->state() == core::EngineState::kError || cs->state() == core::EngineState::kHung)) {
      domains |= gen::engine_info(static_cast<gen::Engine>(e)).reset_domain;
    }
  }
  if (domains == 0) return;
  // GEN6_GDRST: the engines reset, and the hardware clears the bits when done (engine_regs.h).
  core::Initiator& host = platform_.host();
  const std::uint64_t gdrst = platform_.params().gen.base + gen::kGdrst;
  std::uint64_t value = domains;
  host.write(gdrst, &value, 4);
  for (int poll = 0; poll < 1000 && (value & domains) != 0; ++poll) {
    host.read(gdrst, &value, 4);
    host.sync();
  }
  incidents_before_ = engine_incidents();
}

void TbxServer::serve_session() {
  // A new session is a new client process: engines an earlier one left stopped on an error or hang are reset first,
  // as the kernel's hang recovery would have reset them (i915 intel_gt_handle_error), so that this session's work
  // runs and its own failures are its own.
  if (in_process_) reset_failed_engines();
  while (Connection* c = next_ready()) serve(*c);
  // A stalled session did not finish, nor one a stop (a signal, --max-wall-time) cut short: exec ends the program,
  // and the run's exit code is the model's.
  finished_ = !stalled_ && stop_signal() == 0;
  // Work the clients submitted and did not wait for (a program that flushes and exits) runs to its end, as on a GPU
  // whose driver outlives the program, so that statistics and traces cover it. Bounded: engine watchdogs stop what
  // hangs, host.gpu_wait_limit_ns what waits for ever (a semaphore nobody signals keeps an engine busy without a
  // hang), sim.time_limit_ns and a stop signal end the run.
  if (finished_) {
    const core::Picoseconds step = poll_interval_ ? poll_interval_ : core::kPsPerNs;
    core::Picoseconds drained = 0;
    while (stop_signal() == 0 && gpu_busy()) {
      if (wait_limit_ != 0 && drained >= wait_limit_) {
        core::report_guest_warning(name(), "the GPU is still busy " + std::to_string(drained / core::kPsPerUs) +
                                               " us after the session ended (host.gpu_wait_limit_ns): an engine "
                                               "waits for what no client will do; the session ends");
        break;
      }
      sc_core::wait(core::to_sc_time(step));
      drain_ps_ += step;
      drained += step;
    }
  }
}

bool TbxServer::session_over() const {
  if (!connections_.empty()) return false;
  if (in_process_) return true;
  return client_exited_ ? client_exited_() : accepted_ > 0;
}

void TbxServer::accept_pending() {
  for (;;) {
    pollfd p{listen_.fd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return;
    const int fd = ::accept(listen_.fd, nullptr, nullptr);
    if (fd < 0) return;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    quick_ack(fd);
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->id = ++accepted_;
    ++connections_accepted_;
    connections_.push_back(std::move(c));
  }
}

TbxServer::Connection* TbxServer::next_ready() {
  for (;;) {
    if (stop_signal() != 0 || stalled_) return nullptr;
    // Messages already received come first, the oldest connection's first: NEO sends each message whole before the
    // next, so what is buffered was sent before what is not.
    for (auto& c : connections_) {
      if (c->buffered()) return c.get();
    }
    // In-process: nothing to accept, so a session without connections is over at once.
    if (in_process_ && connections_.empty()) return nullptr;
    std::vector<pollfd> fds;
    fds.push_back({listen_.fd, POLLIN, 0});
    for (auto& c : connections_) fds.push_back({c->fd, POLLIN, 0});
    const int r = ::poll(fds.data(), fds.size(), kWaitMs);
    if (r < 0 && errno != EINTR) throw std::runtime_error("tbx: poll: " + std::string(std::strerror(errno)));
    if (r > 0) {
      if (fds[0].revents) accept_pending();
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents) return connections_[i - 1].get();
      }
      continue;
    }
    if (r == 0 && session_over()) {
      // The client may have connected (or sent) just before it exited: look once more before ending.
      accept_pending();
      if (connections_.empty()) return nullptr;
    }
  }
}

bool TbxServer::read_exact(Connection& c, void* out, std::size_t n, std::size_t& got) {
  auto* dst = static_cast<std::uint8_t*>(out);
  got = 0;
  while (got < n) {
    if (c.buffered()) {
      const std::size_t take = std::min(n - got, c.buffer.size() - c.pos);
      std::memcpy(dst + got, c.buffer.data() + c.pos, take);
      c.pos += take;
      got += take;
      continue;
    }
    pollfd p{c.fd, POLLIN, 0};
    const int r = ::poll(&p, 1, kWaitMs);
    if (stop_signal() != 0) return false;
    if (r == 0 || (r < 0 && errno == EINTR)) continue;
    c.buffer.resize(kChunkBytes);
    c.pos = 0;
    ssize_t k;
    do {
      k = ::recv(c.fd, c.buffer.data(), c.buffer.size(), 0);
    } while (k < 0 && errno == EINTR);
    quick_ack(c.fd);
    c.buffer.resize(k > 0 ? static_cast<std::size_t>(k) : 0);
    if (k <= 0) return false;
  }
  return true;
}

bool TbxServer::send_all(Connection& c, const void* data, std::size_t n) {
  const auto* src = static_cast<const std::uint8_t*>(data);
  std::size_t sent = 0;
  while (sent < n) {
    // A client that stops reading fills the socket: wait for room in steps, as reads wait for data, so that a stop
    // signal or --max-wall-time still ends the run (a blocking send would wait for the client for ever).
    pollfd p{c.fd, POLLOUT, 0};
    const int r = ::poll(&p, 1, kWaitMs);
    if (stop_signal() != 0) return false;
    if (r == 0 || (r < 0 && errno == EINTR)) continue;
    const ssize_t k = ::send(c.fd, src + sent, n - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (k <= 0) {
      protocol_error(c, std::string("cannot send the answer: ") + std::strerror(errno), true);
      return false;
    }
    sent += static_cast<std::size_t>(k);
  }
  return true;
}

void TbxServer::close(Connection& c) {
  ::close(c.fd);
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (it->get() == &c) {
      connections_.erase(it);
      return;
    }
  }
}

void TbxServer::protocol_error(Connection& c, const std::string& what, bool close_connection) {
  ++protocol_errors_;
  const std::string text = "tbx client " + std::to_string(c.id) + ": " + what +
                           (close_connection ? " (connection closed)" : " (message skipped)");
  ProgressMonitor::clear_line();
  std::cerr << "gpuvp: " << text << std::endl;
  if (failure_.empty()) failure_ = text;
  if (close_connection) close(c);
}

void TbxServer::refuse(const Connection& c, const std::string& what) {
  core::report_guest_error(name(), "client " + std::to_string(c.id) + ": " + what);
}

void TbxServer::serve(Connection& c) {
  std::uint8_t header[tbx::kHeaderBytes];
  std::size_t got = 0;
  if (!read_exact(c, header, sizeof header, got)) {
    if (stop_signal() != 0) return;
    if (got == 0) {
      close(c);  // a clean end between messages
    } else {
      protocol_error(c, "disconnected in the middle of a message header (" + std::to_string(got) + " of 12 bytes)",
                     true);
    }
    return;
  }
  ++requests_;
  const tbx::Header h = tbx::decode_header(header);
  std::uint8_t body[tbx::kMmioExtBodyBytes];
  switch (static_cast<tbx::MsgType>(h.type)) {
    case tbx::MsgType::kControlReq:
      // The client's mode flags (NEO: HAS mode, synchronous, no time advance): gpuvp serves one way only.
      read_body(c, h, tbx::kControlBodyBytes, body);
      return;
    case tbx::MsgType::kMmioReq:
      if (read_body(c, h, h.size == tbx::kMmioExtBodyBytes ? h.size : tbx::kMmioBodyBytes, body)) {
        serve_mmio(c, h, tbx::decode_mmio(body));
      }
      return;
    case tbx::MsgType::kGttReq:
      if (read_body(c, h, tbx::kGttBodyBytes, body)) serve_gtt(c, h, tbx::decode_gtt(body));
      return;
    case tbx::MsgType::kWriteDataReq:
      if (read_body(c, h, tbx::kDataBodyBytes, body)) serve_write(c, tbx::decode_data(true, body));
      return;
    case tbx::MsgType::kReadDataReq:
      if (read_body(c, h, tbx::kDataBodyBytes, body)) serve_read(c, h, tbx::decode_data(false, body));
      return;
    default:
      break;
  }
  // Unknown, or an answer type a client has no business sending: skipped when its body is plausible.
  const std::string what = "unsupported message " + tbx::type_name(h.type) + " (transaction " +
                           std::to_string(h.trans_id) + ", " + std::to_string(h.size) + " body bytes)";
  if (h.size > kMaxSkippedBody) {
    protocol_error(c, what, true);
    return;
  }
  std::vector<std::uint8_t> skipped(h.size);
  if (!read_exact(c, skipped.data(), skipped.size(), got)) {
    if (stop_signal() == 0) protocol_error(c, what + ": disconnected in the middle of it", true);
    return;
  }
  protocol_error(c, what, false);
}

bool TbxServer::read_body(Connection& c, const tbx::Header& h, std::size_t expected, std::uint8_t* body) {
  const std::string what = tbx::type_name(h.type) + " (transaction " + std::to_string(h.trans_id) + ")";
  if (h.size != expected) {
    // The client would wait for an answer the server cannot give: it is better told by the connection closing.
    protocol_error(
        c, what + " has a body of " + std::to_string(h.size) + " bytes, expected " + std::to_string(expected), true);
    return false;
  }
  std::size_t got = 0;
  if (read_exact(c, body, expected, got)) return true;
  if (stop_signal() == 0) {
    protocol_error(c,
                   "disconnected in the middle of " + what + " (" + std::to_string(got) + " of " +
                       std::to_string(expected) + " body bytes)",
                   true);
  }
  return false;
}

void TbxServer::serve_mmio(Connection& c, const tbx::Header& h, const tbx::MmioRequest& r) {
  (r.write ? mmio_writes_ : mmio_reads_) += 1;
  core::Initiator& host = platform_.host();
  // 8 bytes for the bus whatever the access size (little-endian: the low bytes are the access's).
  std::uint64_t value = r.write ? r.data : 0;
  const bool sized = r.size == 1 || r.size == 2 || r.size == 4;
  const std::string access = std::string("MMIO ") + (r.write ? "write" : "read") + " of " + std::to_string(r.size) +
                             " bytes at " + hex(r.offset);
  if (!platform_.gen()) {
    refuse(c, access + ": this platform has no Gen GPU (gen.enabled is false)");
  } else if (r.space != tbx::kSpaceMmio || !sized || r.offset + std::uint64_t{r.size} > gen::kBarSize) {
    refuse(c, access + (r.space != tbx::kSpaceMmio ? " in I/O space " + std::to_string(r.space) + ": not modelled"
                                                   : ": not a register access of the 16 MiB GTTMMADR BAR"));
  } else {
    const std::uint64_t address = platform_.params().gen.base + r.offset;
    if (!r.write) settle();
    const auto status = r.write ? host.write(address, &value, r.size) : host.read(address, &value, r.size);
    host.sync();
    if (status != tlm::TLM_OK_RESPONSE) refuse(c, access + ": bus error");
  }
  if (!r.write) {
    const auto answer = tbx::encode_mmio_response(h.trans_id, static_cast<std::uint32_t>(value));
    send_all(c, answer.data(), answer.size());
  }
}

void TbxServer::serve_gtt(Connection& c, const tbx::Header& h, const tbx::GttRequest& r) {
  (r.write ? gtt_writes_ : gtt_reads_) += 1;
  core::Initiator& host = platform_.host();
  std::uint64_t entry = 0;
  const std::string access = std::string("GGTT entry ") + (r.write ? "write" : "read") + " at index " + hex(r.index);
  if (!platform_.gen()) {
    refuse(c, access + ": this platform has no Gen GPU (gen.enabled is false)");
  } else if (std::uint64_t{r.index} >= platform_.params().gen.gpu.gtt.ggtt_size / 4096) {
    refuse(c, access + ": beyond the GGTT (gen.gtt.ggtt_size " + hex(platform_.params().gen.gpu.gtt.ggtt_size) + ")");
  } else {
    const std::uint64_t address =
        platform_.params().gen.base + gen::kGgttPteWindowOffset + std::uint64_t{r.index} * gen::kGgttPteBytes;
    if (!r.write) settle();
    const auto status = r.write ? host.write(address, &r.entry, 8) : host.read(address, &entry, 8);
    host.sync();
    if (status != tlm::TLM_OK_RESPONSE) refuse(c, access + ": bus error");
  }
  if (!r.write) {
    const auto answer = tbx::encode_gtt_response(h.trans_id, entry);
    send_all(c, answer.data(), answer.size());
  }
}

bool TbxServer::in_dram(std::uint64_t address, std::uint64_t size) const {
  return size == 0 || platform_.memory_map().find(address, size) != nullptr;
}

void TbxServer::serve_write(Connection& c, const tbx::DataRequest& r) {
  ++memory_writes_;
  if (r.mask) {
    // NEO never sends one, and no public source gives the mask's layout: the rest of the stream cannot be framed.
    protocol_error(c, "WRITE_DATA_REQ with a byte mask (mask_exist) is not supported", true);
    return;
  }
  const std::string access = "memory write of " + hex(r.size) + " bytes at " + hex(r.address);
  bool ok = true;
  if (r.addr_type != 0 || r.memory_type != 0) {
    refuse(c, access + ": only physical system memory is modelled (addr_type " + std::to_string(r.addr_type) +
                  ", memory_type " + std::to_string(r.memory_type) + "); dropped");
    ok = false;
  } else if (!in_dram(r.address, r.size)) {
    refuse(c, access + ": outside DRAM; dropped");
    ok = false;
  }
  core::Initiator& host = platform_.host();
  std::vector<std::uint8_t> chunk(std::min<std::size_t>(r.size, kChunkBytes));
  for (std::uint64_t done = 0; done < r.size;) {
    const auto n = static_cast<unsigned>(std::min<std::uint64_t>(r.size - done, kChunkBytes));
    std::size_t got = 0;
    if (!read_exact(c, chunk.data(), n, got)) {
      if (stop_signal() == 0) {
        protocol_error(
            c, "disconnected in the middle of the data of a " + access + " (" + hex(done + got) + " bytes received)",
            true);
      }
      return;
    }
    if (ok) {
      const std::uint64_t at = r.address + done;
      // HAS backdoor: straight into memory, no bus time; frontdoor: through the bus as the host would.
      const bool written = r.frontdoor ? host.write(at, chunk.data(), n) == tlm::TLM_OK_RESPONSE
                                       : host.debug_write(at, chunk.data(), n) == n;
      if (!written) {
        refuse(c, access + ": bus error at " + hex(at));
        ok = false;
      }
    }
    done += n;
  }
  if (ok) bytes_written_ += r.size;
  if (r.frontdoor) host.sync();
}

void TbxServer::serve_read(Connection& c, const tbx::Header& h, const tbx::DataRequest& r) {
  ++memory_reads_;
  settle();
  const std::string access = "memory read of " + hex(r.size) + " bytes at " + hex(r.address);
  bool ok = true;
  if (r.addr_type != 0) {
    refuse(c, access + ": only physical addresses are modelled (addr_type " + std::to_string(r.addr_type) +
                  "); answered with zeros");
    ok = false;
  } else if (!in_dram(r.address, r.size)) {
    refuse(c, access + ": outside DRAM; answered with zeros");
    ok = false;
  }
  const auto answer = tbx::encode_read_data_response(h.trans_id, r.address, r.size);
  if (!send_all(c, answer.data(), answer.size())) return;
  core::Initiator& host = platform_.host();
  std::vector<std::uint8_t> chunk(std::min<std::size_t>(r.size, kChunkBytes));
  for (std::uint64_t done = 0; done < r.size;) {
    const auto n = static_cast<unsigned>(std::min<std::uint64_t>(r.size - done, kChunkBytes));
    std::fill(chunk.begin(), chunk.end(), 0);
    if (ok) {
      const std::uint64_t at = r.address + done;
      const bool read = r.frontdoor ? host.read(at, chunk.data(), n) == tlm::TLM_OK_RESPONSE
                                    : host.debug_read(at, chunk.data(), n) == n;
      if (!read) {
        refuse(c, access + ": bus error at " + hex(at) + "; the rest answered with zeros");
        ok = false;
        std::fill(chunk.begin(), chunk.end(), 0);
      }
    }
    if (!send_all(c, chunk.data(), n)) return;
    done += n;
  }
  if (ok) bytes_read_ += r.size;
  if (r.frontdoor) host.sync();
}

bool TbxServer::gpu_busy() const {
  const gen::GenGpu* gpu = platform_.gen();
  return gpu && gpu->busy();
}

void TbxServer::settle() {
  platform_.host().sync();
  // Every read is one turn of the client's polling loop (NEO polls the tag page until its task count appears): it
  // costs one poll interval, so that simulated time goes on while a client waits for a GPU that will never answer
  // (engine watchdogs and sim.time_limit_ns still end such a run). Then, while an engine is busy, more intervals, up
  // to the read wait.
  const core::Picoseconds step = poll_interval_ ? poll_interval_ : core::kPsPerNs;
  core::Picoseconds waited = 0;
  do {
    sc_core::wait(core::to_sc_time(step));
    waited += step;
  } while (waited < read_wait_ && gpu_busy());
  settle_ps_ += waited;
  check_stall();
}

std::vector<std::size_t> TbxServer::engine_incidents() const {
  std::vector<std::size_t> counts(gen::kEngineCount, 0);
  gen::GenGpu* gpu = platform_.gen();
  for (int e = 0; gpu != nullptr && e < gen::kEngineCount; ++e) {
    if (const gen::CommandStreamer* cs = gpu->engine(static_cast<gen::Engine>(e))) {
      counts[static_cast<std::size_t>(e)] = cs->incident_count();
    }
  }
  return counts;
}

bool TbxServer::check_stall() {
  gen::GenGpu* gpu = platform_.gen();
  if (!gpu || stall_timeout_ == 0 || stalled_) return stalled_;
  const core::Picoseconds now = core::now_ps();
  // Incidents since the session began (incidents_before_: the session's baseline).
  std::size_t incidents = 0;
  std::string stopped;  // the engines with incidents in this session
  const std::vector<std::size_t> counts = engine_incidents();
  for (std::size_t e = 0; e < counts.size(); ++e) {
    const std::size_t before = e < incidents_before_.size() ? incidents_before_[e] : 0;
    if (counts[e] <= before) continue;
    incidents += counts[e] - before;
    stopped += std::string(stopped.empty() ? "" : ", ") + gen::engine_info(static_cast<gen::Engine>(e)).name;
  }
  if (incidents != incidents_seen_ || gpu_busy()) {
    incidents_seen_ = incidents;
    quiet_since_ = now;
    return false;
  }
  if (incidents == 0 || now - quiet_since_ < stall_timeout_) return false;
  stalled_ = true;
  const std::string text = "the GPU stopped on an error or hang (" + stopped +
                           ": see the incidents) and has been idle for " +
                           std::to_string((now - quiet_since_) / core::kPsPerUs) +
                           " us while the client still reads: it waits for work that cannot complete (NEO in TBX mode "
                           "learns of no hang; host.tbx_stall_timeout_ns), so the session ends";
  ProgressMonitor::clear_line();
  std::cerr << "gpuvp: tbx: " << text << std::endl;
  if (failure_.empty()) failure_ = "tbx: " + text;
  return true;
}

}  // namespace gpuvp::platform
