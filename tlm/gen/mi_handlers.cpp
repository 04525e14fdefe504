#include "tlm/gen/mi_handlers.h"

#include <cstdio>

#include "hw/gen/mi_commands.h"
#include "tlm/gen/gt_interrupts.h"
#include "tlm/gen/mi_atomic.h"
#include "tlm/gen/mi_math.h"

namespace gpuvp::gen {

namespace {
AddressSpace space_of(std::uint32_t dw0) { return (dw0 & mi::kUseGgtt) ? AddressSpace::kGgtt : AddressSpace::kPpgtt; }

bool compare(mi::Compare op, std::uint32_t memory, std::uint32_t data) {
  switch (op) {
    case mi::Compare::kGreater:
      return memory > data;
    case mi::Compare::kGreaterEqual:
      return memory >= data;
    case mi::Compare::kLess:
      return memory < data;
    case mi::Compare::kLessEqual:
      return memory <= data;
    case mi::Compare::kEqual:
      return memory == data;
    case mi::Compare::kNotEqual:
      return memory != data;
  }
  return false;
}
}  // namespace

std::uint64_t command_address(unsigned generation, std::uint32_t low, std::uint32_t high) {
  const std::uint64_t hi = generation >= 9 ? high : (high & 0xFFFF);
  return hi << 32 | (low & ~3u);
}

bool post_sync_write(EngineContext& e, const PostSync& p) {
  const std::uint64_t address = p.store_index ? e.status_page() + p.status_page_offset : p.address;
  const AddressSpace space = p.store_index ? AddressSpace::kGgtt : p.space;
  std::uint64_t value = p.immediate;
  unsigned bytes = p.bytes;
  if (p.operation == 3) {
    value = e.timestamp_ticks();
    bytes = 8;
  }
  return e.access(address, space, &value, bytes, true);
}

Outcome mi_noop(EngineContext& e, const Command& cmd) {
  if (cmd.dw[0] & mi::kNoopIdentify) e.set_nopid(cmd.dw[0] & 0x3FFFFF);
  return Outcome::kNext;
}

Outcome mi_user_interrupt(EngineContext& e, const Command&) {
  ++e.user_interrupts();
  return e.raise_interrupt(GtInterrupts::kUserInterrupt);
}

// An arbitration point and nothing else: the streamer switches contexts after rows flagged kArbitrationPoint.
Outcome mi_arb_check(EngineContext&, const Command&) { return Outcome::kNext; }

Outcome mi_arb_on_off(EngineContext& e, const Command& cmd) {
  e.set_arbitration(cmd.dw[0] & 1);
  return Outcome::kNext;
}

Outcome mi_batch_buffer_start(EngineContext& e, const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  const AddressSpace space = (dw0 & mi::kBbPpgtt) ? AddressSpace::kPpgtt : AddressSpace::kGgtt;
  return e.batch_buffer_start(cmd, command_address(e.generation(), cmd.dw[1], cmd.dw[2]), space,
                              dw0 & mi::kBbSecondLevel);
}

Outcome mi_batch_buffer_end(EngineContext& e, const Command&) { return e.batch_buffer_end(); }

Outcome mi_conditional_batch_buffer_end(EngineContext& e, const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  // Compare Semaphore clear: no comparison takes place and the batch goes on (media-driver MHW description).
  if (!(dw0 & mi::kCondCompareSemaphore)) return Outcome::kNext;
  if (dw0 & (1u << 19)) return e.fail(&cmd, "MI_CONDITIONAL_BATCH_BUFFER_END compare mask mode is not modelled");
  const std::uint64_t address = command_address(e.generation(), cmd.dw[2], cmd.length == 4 ? cmd.dw[3] : 0);
  std::uint32_t memory;
  if (!e.access(address, space_of(dw0), &memory, 4, false)) return Outcome::kStopped;
  // The batch goes on while the memory data is greater than the compare data (unsigned), and ends otherwise.
  if (memory <= cmd.dw[1]) {
    if (e.batch_depth() == 0) return Outcome::kNext;
    return e.batch_buffer_end();
  }
  return Outcome::kNext;
}

Outcome mi_store_data_imm(EngineContext& e, const Command& cmd) {
  const std::uint64_t address = command_address(e.generation(), cmd.dw[1], cmd.dw[2]);
  const bool qword = cmd.dw[0] & mi::kStoreQword;
  std::uint32_t data[2] = {cmd.dw[3], qword ? cmd.dw[4] : 0};
  if (!e.access(address, space_of(cmd.dw[0]), data, qword ? 8 : 4, true)) return Outcome::kStopped;
  return Outcome::kNext;
}

Outcome mi_store_data_index(EngineContext& e, const Command& cmd) {
  // Offset into the hardware status page (bits 11:2), always in the GGTT.
  const std::uint64_t address = e.status_page() + (cmd.dw[1] & 0xFFC);
  const bool qword = cmd.dw[0] & mi::kStoreQword;
  std::uint32_t data[2] = {cmd.dw[2], qword ? cmd.dw[3] : 0};
  if (!e.access(address, AddressSpace::kGgtt, data, qword ? 8 : 4, true)) return Outcome::kStopped;
  return Outcome::kNext;
}

Outcome mi_load_register_imm(EngineContext& e, const Command& cmd) {
  // Byte write disables, bits 11:8: a set bit keeps that byte of the register.
  const std::uint32_t enables = ~(cmd.dw[0] >> 8) & 0xF;
  for (unsigned i = 1; i + 1 < cmd.length; i += 2) {
    if (!e.reg_write(cmd.dw[i] & 0x7FFFFC, cmd.dw[i + 1], enables)) return Outcome::kStopped;
  }
  return Outcome::kNext;
}

Outcome mi_store_register_mem(EngineContext& e, const Command& cmd) {
  std::uint32_t value;
  if (!e.reg_read(cmd.dw[1] & 0x7FFFFC, value)) return Outcome::kStopped;
  const std::uint64_t address = command_address(e.generation(), cmd.dw[2], cmd.dw[3]);
  if (!e.access(address, space_of(cmd.dw[0]), &value, 4, true)) return Outcome::kStopped;
  return Outcome::kNext;
}

Outcome mi_load_register_mem(EngineContext& e, const Command& cmd) {
  std::uint32_t value;
  const std::uint64_t address = command_address(e.generation(), cmd.dw[2], cmd.dw[3]);
  if (!e.access(address, space_of(cmd.dw[0]), &value, 4, false)) return Outcome::kStopped;
  if (!e.reg_write(cmd.dw[1] & 0x7FFFFC, value, 0xF)) return Outcome::kStopped;
  return Outcome::kNext;
}

Outcome mi_semaphore_wait(EngineContext& e, const Command& cmd) {
  const auto op = static_cast<mi::Compare>(cmd.dw[0] >> 12 & 7);
  if (static_cast<std::uint32_t>(op) > 5) return e.fail(&cmd, "reserved semaphore compare operation");
  std::uint32_t memory;
  const std::uint64_t address = command_address(e.generation(), cmd.dw[2], cmd.dw[3]);
  if (!e.access(address, space_of(cmd.dw[0]), &memory, 4, false)) return Outcome::kStopped;
  ++e.semaphore_polls();
  const core::Picoseconds written = e.last_read_written_at();
  const bool visible = written <= e.local_time();
  if (visible && compare(op, memory, cmd.dw[1])) {
    e.end_semaphore_wait();
    return Outcome::kNext;
  }
  return e.wait_semaphore(!(cmd.dw[0] & mi::kSemaphorePoll), visible, written);
}

Outcome mi_flush_dw(EngineContext& e, const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  if (dw0 & mi::kFlushTlbInvalidate) e.invalidate_tlb();
  const std::uint32_t operation = dw0 >> 14 & 3;
  if (operation == 2) return e.fail(&cmd, "MI_FLUSH_DW post-sync operation 2 is reserved");
  if (operation != 0) {
    // The immediate data is a qword in the 5-dword form.
    const PostSync p{operation,
                     (dw0 & mi::kFlushStoreIndex) != 0,
                     cmd.dw[1] & 0xFF8,
                     command_address(e.generation(), cmd.dw[1] & ~7u, cmd.dw[2]),
                     (cmd.dw[1] & mi::kFlushDestGgtt) ? AddressSpace::kGgtt : AddressSpace::kPpgtt,
                     cmd.dw[3] | (cmd.length == 5 ? std::uint64_t{cmd.dw[4]} << 32 : 0),
                     cmd.length == 5 ? 8u : 4u};
    if (!post_sync_write(e, p)) return Outcome::kStopped;
  }
  if (dw0 & mi::kFlushNotify) return e.raise_interrupt(GtInterrupts::kFlushNotify);
  return Outcome::kNext;
}

Outcome mi_math(EngineContext& e, const Command& cmd) {
  MiMathAlu::Gprs gprs;
  for (unsigned n = 0; n < 16; ++n) gprs[n] = e.gpr(n).value();
  MiMathAlu alu;  // each MI_MATH starts from a clean ALU
  for (unsigned i = 1; i < cmd.length; ++i) {
    const std::string error = alu.execute(cmd.dw[i], gprs);
    if (!error.empty()) {
      char dword[16];
      std::snprintf(dword, sizeof dword, "0x%08x", cmd.dw[i]);
      return e.fail(&cmd, "MI_MATH ALU dword " + std::to_string(i) + " (" + dword + "): " + error);
    }
  }
  for (unsigned n = 0; n < 16; ++n) e.gpr(n).set(gprs[n]);
  e.cycles(std::uint64_t{e.register_cycles()} * (cmd.length - 1));
  return Outcome::kNext;
}

Outcome mi_atomic(EngineContext& e, const Command& cmd) {
  const std::uint32_t dw0 = cmd.dw[0];
  const std::uint32_t size = dw0 >> 19 & 3;
  const std::uint32_t opcode = dw0 >> 8 & 0xFF;
  const unsigned bytes = size == 1 ? 8 : 4;
  if (size > 1) return e.fail(&cmd, "MI_ATOMIC octword operations are not modelled");
  const std::uint64_t address = command_address(e.generation(), cmd.dw[1], cmd.dw[2]);
  std::uint64_t operand1, operand2;
  if (dw0 & mi::kAtomicInlineData) {
    // Inline operands interleave: DW3 operand1[31:0], DW4 operand2[31:0], DW5 operand1[63:32], DW6 operand2[63:32]
    // (Mesa gen9.xml, media-driver mhw_mi_hwcmd_g9_X.h).
    const auto dword = [&](unsigned i) -> std::uint64_t { return i < cmd.length ? cmd.dw[i] : 0; };
    operand1 = dword(3) | (size == 1 ? dword(5) << 32 : 0);
    operand2 = dword(4) | (size == 1 ? dword(6) << 32 : 0);
  } else {
    // Without inline data: operand1 from CS_GPR0, operand2 from CS_GPR2 (media-driver MI_ATOMIC description).
    operand1 = e.gpr(0).value();
    operand2 = e.gpr(2).value();
  }
  std::uint64_t old_value = 0;
  if (!e.access(address, space_of(dw0), &old_value, bytes, false)) return Outcome::kStopped;
  const AtomicResult r = apply_mi_atomic(opcode, size, old_value, operand1, operand2);
  if (!r.ok) return e.fail(&cmd, "MI_ATOMIC: " + r.error);
  std::uint64_t new_value = r.new_value;
  if (!e.access(address, space_of(dw0), &new_value, bytes, true)) return Outcome::kStopped;
  if (dw0 & mi::kAtomicReturnData) {
    // Return data goes to CS_GPR4; Gen9 writes only its low dword for dword atomics, Gen8 the whole register.
    const std::uint64_t ret = mi_atomic_return_data(opcode, old_value, new_value);
    core::Register& gpr4 = e.gpr(4);
    if (size == 0 && e.generation() >= 9) {
      gpr4.set((gpr4.value() & ~0xFFFFFFFFULL) | (ret & 0xFFFFFFFFULL));
    } else {
      gpr4.set(ret);
    }
  }
  return Outcome::kNext;
}

}  // namespace gpuvp::gen
