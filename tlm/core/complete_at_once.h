// complete_at_once: the non-blocking half of a target that serves every request at once through its b_transport
// (memory, register blocks). The base protocol allows TLM_COMPLETED in answer to BEGIN_REQ; any other phase means the
// initiator runs a handshake these targets do not take part in, which is reported as an error.
#pragma once

#include <systemc>
#include <tlm>

#include "tlm/core/report.h"

namespace gpuvp::core {

template <typename BTransport>
tlm::tlm_sync_enum complete_at_once(const char* target, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                    sc_core::sc_time& delay, BTransport&& b_transport) {
  if (phase != tlm::BEGIN_REQ) {
    report_error(target, "nb_transport_fw: only BEGIN_REQ is expected (requests complete at once)");
    return tlm::TLM_COMPLETED;
  }
  b_transport(trans, delay);
  phase = tlm::BEGIN_RESP;
  return tlm::TLM_COMPLETED;
}

}  // namespace gpuvp::core
