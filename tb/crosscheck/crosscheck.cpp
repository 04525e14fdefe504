#include "tb/crosscheck/crosscheck.h"

namespace gpuvp::crosscheck {

namespace {

constexpr std::uint32_t kPage = 4096;
constexpr std::uint32_t kMaxPages = 512;

std::uint32_t ctl_for_pages(std::uint32_t pages, bool enable = true) {
  return ((pages - 1) << 12) | (enable ? gen::RingPointer::kCtlEnable : 0u);
}

template <typename In, typename Out>
std::string mismatch_report(const char* block, std::uint64_t seed, std::uint64_t cycle, const In& in, const Out& rtl,
                            const Out& ref) {
  return std::string("MISMATCH ") + block + " seed=" + std::to_string(seed) + " cycle=" + std::to_string(cycle) +
         "\n  inputs: " + in.describe() + "\n  rtl:    " + rtl.describe() + "\n  c++:    " + ref.describe();
}

}  // namespace

// ---- ring_ptr ----

bool RingCrossCheck::step(const rtl::RingInputs& in) {
  ++cycles_;
  // The C++ model sees the cycle's events in the order the RTL gives them: the consume is computed from the
  // registers before the edge, then the writes (a HEAD write wins over the consume's new HEAD).
  bool wrapped = false;
  if (in.reset) {
    ref_.reset();
    ++resets_;
  } else {
    if (in.consume) wrapped = ref_.consume(in.consume_bytes);
    if (in.start_we) ref_.write_start(in.start);
    if (in.ctl_we) ref_.write_ctl(in.ctl);
    if (in.head_we) ref_.write_head(in.head);
    if (in.tail_we) ref_.write_tail(in.tail);
  }
  if (wrapped) ++wraps_;
  if (ref_.empty()) ++empty_cycles_;
  const rtl::RingOutputs got = rtl_.cycle(in);
  const rtl::RingOutputs want = rtl::outputs_of(ref_, wrapped);
  if (got == want) return true;
  failure_ = mismatch_report("ring_ptr", seed_, cycles_, in, got, want);
  return false;
}

bool RingCrossCheck::run_directed() {
  auto write = [&](bool rtl::RingInputs::*we, std::uint32_t rtl::RingInputs::*field, std::uint32_t v) {
    rtl::RingInputs in;
    in.*we = true;
    in.*field = v;
    return step(in);
  };
  auto ctl = [&](std::uint32_t v) { return write(&rtl::RingInputs::ctl_we, &rtl::RingInputs::ctl, v); };
  auto head = [&](std::uint32_t v) { return write(&rtl::RingInputs::head_we, &rtl::RingInputs::head, v); };
  auto tail = [&](std::uint32_t v) { return write(&rtl::RingInputs::tail_we, &rtl::RingInputs::tail, v); };
  auto start = [&](std::uint32_t v) { return write(&rtl::RingInputs::start_we, &rtl::RingInputs::start, v); };
  auto consume = [&](std::uint32_t bytes) {
    rtl::RingInputs in;
    in.consume = true;
    in.consume_bytes = bytes;
    return step(in);
  };
  auto reset = [&] {
    rtl::RingInputs in;
    in.reset = true;
    return step(in);
  };

  // Reset from a busy state: every register back to 0.
  if (!start(0xFFFFFFFF) || !ctl(0xFFFFFFFF) || !head(0xFFFFFFFF) || !tail(0xFFFFFFFF) || !reset()) return false;

  // A wrap at every ring size (every page count 1..512): HEAD 64 bytes before the end, TAIL 64 bytes after it;
  // consume 16 bytes at a time across the end, then exactly to TAIL.
  for (std::uint32_t pages = 1; pages <= kMaxPages; ++pages) {
    const std::uint32_t size = pages * kPage;
    if (!ctl(ctl_for_pages(pages)) || !start(0x10000000u + size) || !head((pages & 0x7FF) << 21 | (size - 64)) ||
        !tail(0x40)) {
      return false;
    }
    for (int i = 0; i < 8; ++i) {
      if (!consume(16)) return false;
    }
    // Exactly to the end of the ring from a fresh HEAD: HEAD becomes 0, the wrap count moves.
    if (!head(size - 0x100) || !tail(0) || !consume(0x100) || !consume(0)) return false;
    // Consuming past TAIL (a buggy guest): HEAD moves on modulo the size, one wrap count per lap.
    if (!consume(0x8) || !consume(0xFFC) || !consume(3 * size + 4) || !consume(0xFFFFFFFF)) return false;
  }

  // Full and empty at every power-of-two size: HEAD == TAIL (empty); TAIL = HEAD - 64 (the driver's full: space 0);
  // TAIL = HEAD - 8 (most the hardware can hold), all at HEAD 0, mid-ring and at the end.
  for (std::uint32_t size = kPage; size <= kMaxPages * kPage; size *= 2) {
    if (!ctl(ctl_for_pages(size / kPage))) return false;
    for (std::uint32_t h : {0u, size / 2, size - 8}) {
      if (!head(h) || !tail(h) || !tail((h + size - 64) % size) || !tail((h + size - 8) % size)) return false;
      // Offsets beyond the size (a shrunk ring): taken modulo the size.
      if (!tail(h + size) || !head(h + size)) return false;
    }
    if (!ctl(ctl_for_pages(size / kPage, false))) return false;  // disabled
  }

  // TAIL written while consuming, every cycle, across several laps of a 4 KiB and a 2 MiB ring.
  for (std::uint32_t pages : {1u, 3u, kMaxPages}) {
    const std::uint32_t size = pages * kPage;
    if (!ctl(ctl_for_pages(pages)) || !head(size - 0x200) || !tail(size - 0x100)) return false;
    std::uint32_t t = size - 0x100;
    for (int i = 0; i < 3000; ++i) {
      rtl::RingInputs in;
      in.consume = true;
      in.consume_bytes = 8 + 8 * (i % 5);
      t = (t + 8 + 8 * (i % 3)) % size;
      in.tail_we = true;
      in.tail = t;
      if (!step(in)) return false;
    }
    // HEAD written while consuming: the software write wins.
    rtl::RingInputs in;
    in.consume = true;
    in.consume_bytes = 0x40;
    in.head_we = true;
    in.head = 0x123458;
    if (!step(in)) return false;
    // Everything at once.
    in.start_we = in.ctl_we = in.tail_we = true;
    in.start = 0xABCDE123;
    in.ctl = ctl_for_pages(pages == 1 ? 2 : 1);
    in.tail = 0x88;
    if (!step(in)) return false;
  }
  return reset();
}

std::string RingCrossCheck::summary() const {
  return ", " + std::to_string(wraps_) + " wraps, " + std::to_string(resets_) + " resets, " +
         std::to_string(empty_cycles_) + " cycles empty";
}

std::uint32_t RingCrossCheck::random_ctl() {
  const std::uint64_t r = rng_();
  switch (r % 8) {
    case 0:
      return static_cast<std::uint32_t>(r >> 8);  // anything: the mask drops what does not exist
    case 1:
    case 2:
      return ctl_for_pages(static_cast<std::uint32_t>((r >> 8) % kMaxPages) + 1, (r >> 20) & 1);
    default:
      return ctl_for_pages(1u << ((r >> 8) % 10));  // the driver's power-of-two sizes
  }
}

rtl::RingInputs RingCrossCheck::random_inputs() {
  rtl::RingInputs in;
  const std::uint64_t r = rng_();
  const std::uint32_t roll = static_cast<std::uint32_t>(r % 1000);
  const std::uint32_t size = ref_.size_bytes();
  const std::uint32_t bits = static_cast<std::uint32_t>(r >> 32);
  auto legal_consume = [&] {
    // What a command streamer does: a command of 1..258 dwords that is below TAIL, or anything up to the port.
    const std::uint32_t avail = ref_.bytes_available();
    const std::uint32_t limit = avail < 1032 ? avail : 1032;
    if (limit == 0) return 0u;
    return (bits & 3) == 0 ? limit : 4 * (bits % (limit / 4 + 1));  // often all of it: the ring runs empty
  };
  auto driver_tail = [&] {
    // The driver moves TAIL forward by a qword-aligned amount that keeps 64 bytes free.
    const std::uint32_t space = ref_.driver_space();
    // Mostly a few commands at a time, sometimes as much as fits.
    const std::uint32_t most = (bits & 0x70) == 0 ? space : (space < 512 ? space : 512);
    const std::uint32_t step = most == 0 ? 0 : 8 * ((bits >> 3) % (most / 8 + 1));
    return (ref_.tail_offset() + step) % size;
  };
  if (roll == 0 && (r >> 12) % 64 == 0) {
    in.reset = true;
  } else if (roll < 400) {
    in.consume = true;
    in.consume_bytes = (roll % 20 == 0) ? bits : legal_consume();
  } else if (roll < 650) {
    in.tail_we = true;
    in.tail = (roll % 25 == 0) ? bits : driver_tail();
  } else if (roll < 800) {
    in.consume = true;
    in.consume_bytes = legal_consume();
    in.tail_we = true;
    in.tail = driver_tail();
  } else if (roll < 830) {
    in.ctl_we = true;
    in.ctl = random_ctl();
  } else if (roll < 850) {
    in.head_we = true;
    in.head = (roll % 2) ? bits : (bits & ~0x1FFFFFu) | ((bits & 0x1FFFFC) % size);
  } else if (roll < 870) {
    in.start_we = true;
    in.start = bits;
  } else if (roll < 890) {
    // Several writes and a consume in one cycle.
    in.consume = (bits & 1) != 0;
    in.consume_bytes = bits >> 4;
    in.head_we = (bits & 2) != 0;
    in.head = static_cast<std::uint32_t>(rng_());
    in.tail_we = (bits & 4) != 0;
    in.tail = static_cast<std::uint32_t>(rng_());
    in.ctl_we = (bits & 8) != 0;
    in.ctl = random_ctl();
    in.start_we = true;
    in.start = static_cast<std::uint32_t>(rng_());
  }  // else an idle cycle
  return in;
}

bool RingCrossCheck::run_random(std::uint64_t ops) {
  // Start from a working ring so that the constrained ops have something to do.
  rtl::RingInputs init;
  init.ctl_we = true;
  init.ctl = ctl_for_pages(1);
  if (!step(init)) return false;
  for (std::uint64_t i = 0; i < ops; ++i) {
    if (!step(random_inputs())) return false;
  }
  return true;
}

// ---- csb_ptr ----

rtl::CsbOutputs outputs_of(const gen::CsbPointer& csb) {
  rtl::CsbOutputs o;
  o.value = csb.value();
  o.write_pointer = csb.write_pointer();
  o.read_pointer = csb.read_pointer();
  o.next_entry = csb.next_entry();
  return o;
}

bool CsbCrossCheck::step(const rtl::CsbInputs& in) {
  ++cycles_;
  // Same cycle: the hardware advance first, then the software write's enabled fields.
  if (in.reset) {
    ref_.reset();
  } else {
    if (in.advance) {
      ref_.advance();
      ++advances_;
    }
    if (in.sw_write) ref_.write(in.data);
  }
  const rtl::CsbOutputs got = rtl_.cycle(in);
  const rtl::CsbOutputs want = outputs_of(ref_);
  if (got == want) return true;
  failure_ = mismatch_report("csb_ptr", seed_, cycles_, in, got, want);
  return false;
}

bool CsbCrossCheck::run_directed() {
  auto advance = [&] {
    rtl::CsbInputs in;
    in.advance = true;
    return step(in);
  };
  auto write = [&](std::uint32_t data, bool with_advance = false) {
    rtl::CsbInputs in;
    in.sw_write = true;
    in.data = data;
    in.advance = with_advance;
    return step(in);
  };
  rtl::CsbInputs reset;
  reset.reset = true;
  if (!step(reset)) return false;
  for (int i = 0; i < 14; ++i) {  // 0..5, 0..5, 0, 1
    if (!advance()) return false;
  }
  // Software read pointer through the mask; bits without their enable and reserved bits do not change.
  for (std::uint32_t rp = 0; rp < 8; ++rp) {
    if (!write(0x07000000u | rp << 8) || !write(rp << 8 | 0x7) || !write(0xFFFF0000u | 0xF8F8)) return false;
  }
  // i915 reset_csb_pointers: both fields to 5; then 6 and 7 written by software; then with an advance.
  for (std::uint32_t wp : {5u, 6u, 7u, 0u}) {
    if (!write(0xFFFF0000u | wp << 8 | wp) || !advance() || !write(0x00070000u | wp, true)) return false;
  }
  return step(reset);
}

bool CsbCrossCheck::run_random(std::uint64_t ops) {
  for (std::uint64_t i = 0; i < ops; ++i) {
    const std::uint64_t r = rng_();
    rtl::CsbInputs in;
    const std::uint32_t roll = static_cast<std::uint32_t>(r % 100);
    const std::uint32_t bits = static_cast<std::uint32_t>(r >> 32);
    if (roll == 0 && (r >> 8) % 1000 == 0) {
      in.reset = true;
    } else {
      in.advance = roll < 60;
      in.sw_write = roll >= 50 && roll < 80;
      // The driver's read pointer update, the reset write of both fields, or anything.
      switch (bits % 3) {
        case 0:
          in.data = 0x07000000u | ((bits >> 8) & 7) << 8;
          break;
        case 1:
          in.data = 0x07070000u | ((bits >> 8) & 0x707);
          break;
        default:
          in.data = bits;
          break;
      }
    }
    if (!step(in)) return false;
  }
  return true;
}

}  // namespace gpuvp::crosscheck
