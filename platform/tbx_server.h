// TbxServer: the TBX server Intel's OpenCL runtime NEO connects to in TBX mode (SetCommandStreamReceiver=2), serving
// the protocol of tbx_protocol.h against the platform: MMIO requests are host accesses to the Gen GTTMMADR BAR's
// registers (ELSP submission included), GTT requests to its GGTT entry window (index * 8 bytes above 8 MiB), data
// requests to physical memory. NEO opens one connection per command stream receiver; the server accepts them all and
// serves one message at a time. docs/gen-tbx.md describes the rules.
//
// Simulated time moves only through requests, so a run does not depend on host timing: the server's SystemC thread
// blocks on its sockets between messages (the whole model waits with it, as for the qtest protocol); MMIO and GTT
// requests and frontdoor data requests are timed host bus transactions, after which the host synchronises with the
// kernel; backdoor data requests (NEO's default) take no time. Before answering a read (MMIO, GTT or READ_DATA) the
// server lets the model run for host.poll_interval_ns (a turn of the client's polling loop), then on in such steps
// while any engine is busy, until host.tbx_read_wait_ns have passed. A GPU that stopped on an error or hang and stays
// idle for host.tbx_stall_timeout_ns while the client reads ends the session as failed: NEO in TBX mode has no kernel
// driver to tell it of a hang and would poll for ever.
//
// In-process sessions (the fuzz harness, tests): a server built without a spec listens nowhere; attach() hands it one
// end of a connected stream socket (socketpair) as a client connection. Such a server serves any number of sessions
// in one simulation: a session ends when its last connection closes, without sc_stop, and the server waits for the
// next attach().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "platform/listen_socket.h"
#include "platform/platform.h"
#include "platform/tbx_protocol.h"
#include "tlm/core/stats_group.h"

namespace gpuvp::platform {

class TbxServer : public sc_core::sc_module {
 public:
  // Listens on spec ("tcp:HOST:PORT", port 0 = a free port); throws std::runtime_error with a one-line reason. An
  // empty spec: in-process sessions only (attach).
  TbxServer(sc_core::sc_module_name name, Platform& platform, const std::string& spec);
  ~TbxServer() override;

  int port() const { return listen_.port; }
  // With a client process (gpuvp exec): the session ends once `exited` returns true and every connection has
  // closed. Without one it ends when every connection has closed, after the first. SIGINT/SIGTERM end it too.
  void set_client_exited(std::function<bool()> exited) { client_exited_ = std::move(exited); }
  // Closes every connection and stops listening (after the run: a client still connected sees the end).
  void close_connections();
  // In-process mode: serves fd (a connected stream socket, which the server closes) as a client connection; the first
  // attach after a session ended starts a new one, with its outcome (finished, failure) cleared.
  void attach(int fd);
  // In-process mode: a session is open (attached connections not all closed yet, or the GPU draining after them).
  bool in_session() const { return in_session_; }

  bool finished() const { return finished_; }
  // A protocol error (a malformed message, a client gone in the middle of one): the first one's text.
  bool failed() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }
  std::uint64_t requests() const { return requests_.value; }

 private:
  struct Connection {
    int fd = -1;
    unsigned id = 0;  // 1, 2, ... in accept order
    std::vector<std::uint8_t> buffer;
    std::size_t pos = 0;  // first unread byte of buffer
    bool buffered() const { return pos < buffer.size(); }
  };

  void run();
  // Serves one session: until every connection has closed (or a stop), then lets the GPU drain.
  void serve_session();
  // The connection whose next message is served next, or nullptr when the session is over.
  Connection* next_ready();
  bool session_over() const;
  void accept_pending();
  // Reads exactly n bytes; false at end of input (got says how many arrived) or on a stop signal.
  bool read_exact(Connection& c, void* out, std::size_t n, std::size_t& got);
  bool send_all(Connection& c, const void* data, std::size_t n);
  void close(Connection& c);
  // A protocol error: one line on stderr, the session fails, and the connection is closed when it cannot go on.
  void protocol_error(Connection& c, const std::string& what, bool close_connection);
  // A request the model refuses (an address outside DRAM, a register outside the BAR): a guest error report.
  void refuse(const Connection& c, const std::string& what);

  void serve(Connection& c);
  bool read_body(Connection& c, const tbx::Header& h, std::size_t expected, std::uint8_t* body);
  void serve_mmio(Connection& c, const tbx::Header& h, const tbx::MmioRequest& r);
  void serve_gtt(Connection& c, const tbx::Header& h, const tbx::GttRequest& r);
  void serve_write(Connection& c, const tbx::DataRequest& r);
  void serve_read(Connection& c, const tbx::Header& h, const tbx::DataRequest& r);
  // Runs the model until the GPU is idle, at most the read wait: what happens before every answer.
  void settle();
  bool gpu_busy() const;
  // After settling: whether an engine has stopped on an error or hang and the GPU has been idle since for the stall
  // timeout; if so the session fails with a text naming the engine's first incident.
  bool check_stall();
  // [address, address + size) lies in one DRAM window.
  bool in_dram(std::uint64_t address, std::uint64_t size) const;

  Platform& platform_;
  std::string spec_;
  ListenSocket listen_;
  std::vector<std::unique_ptr<Connection>> connections_;  // open ones
  unsigned accepted_ = 0;
  std::function<bool()> client_exited_;
  core::Picoseconds poll_interval_;
  core::Picoseconds read_wait_;
  core::Picoseconds stall_timeout_;
  core::Picoseconds wait_limit_;    // host.gpu_wait_limit_ns: the drain at a session's end
  std::size_t incidents_seen_ = 0;  // incidents of every engine since the session began, as last counted
  // Each engine's incidents when the session began: an earlier session's errors are not this session's (an in-process
  // server serves many sessions in one simulation).
  std::vector<std::size_t> incidents_before_;
  // Each engine's errors and hangs so far (0 for an engine the platform lacks).
  std::vector<std::size_t> engine_incidents() const;
  // Resets (GDRST) the engines stopped on an error or hang, at an in-process session's start.
  void reset_failed_engines();
  core::Picoseconds quiet_since_ = 0;  // the last time the GPU was busy or an engine reported an incident
  bool stalled_ = false;
  bool finished_ = false;
  std::string failure_;
  bool in_process_ = false;  // no listening socket: sessions come from attach()
  bool in_session_ = false;
  sc_core::sc_event attached_;

  core::StatsGroup stats_;
  core::Counter& requests_;
  core::Counter& connections_accepted_;
  core::Counter& mmio_reads_;
  core::Counter& mmio_writes_;
  core::Counter& gtt_reads_;
  core::Counter& gtt_writes_;
  core::Counter& memory_reads_;
  core::Counter& memory_writes_;
  core::Counter& bytes_read_;
  core::Counter& bytes_written_;
  core::Counter& protocol_errors_;
  core::Counter& settle_ps_;
  core::Counter& drain_ps_;
};

}  // namespace gpuvp::platform
