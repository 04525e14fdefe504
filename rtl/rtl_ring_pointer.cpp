#include "rtl/rtl_ring_pointer.h"

#include <cstdio>

#include "Vring_ptr.h"
#include "rtl/clocked_model.h"

namespace gpuvp::rtl {

namespace {
void clear_strobes(Vring_ptr& t) { t.start_we_i = t.ctl_we_i = t.head_we_i = t.tail_we_i = t.consume_i = 0; }
}  // namespace

struct RtlRingPointer::Impl {
  ClockedModel<Vring_ptr> model{"ring_ptr"};
};

RtlRingPointer::RtlRingPointer(bool lockstep) : impl_(std::make_unique<Impl>()), lockstep_(lockstep) {
  impl_->model.reset(clear_strobes);  // power-on reset
}

RtlRingPointer::~RtlRingPointer() = default;

bool RtlRingPointer::trace_to(const std::string& path) { return impl_->model.trace_to(path); }

RingOutputs RtlRingPointer::cycle(const RingInputs& in) {
  ++cycles_;
  Vring_ptr& t = impl_->model.top();
  if (in.reset) {
    impl_->model.reset(clear_strobes);
    return outputs();
  }
  t.start_we_i = in.start_we;
  t.start_wdata_i = in.start;
  t.ctl_we_i = in.ctl_we;
  t.ctl_wdata_i = in.ctl;
  t.head_we_i = in.head_we;
  t.head_wdata_i = in.head;
  t.tail_we_i = in.tail_we;
  t.tail_wdata_i = in.tail;
  t.consume_i = in.consume;
  t.consume_bytes_i = in.consume_bytes;
  impl_->model.cycle(clear_strobes);
  return outputs();
}

void RtlRingPointer::run_to_cycle(std::uint64_t cycle) {
  if (!lockstep_) return;
  // Every clock edge the engine had since the last operation, with the strobes low. The first operation after
  // power-on starts at cycle 0; an operation that arrives "earlier" than the block's cycle (a host write while the
  // engine ran ahead in its quantum) clocks nothing extra.
  while (cycles_ < cycle) {
    ++cycles_;
    ++idle_cycles_;
    impl_->model.cycle(clear_strobes);
  }
}

RingOutputs RtlRingPointer::outputs() const {
  const Vring_ptr& t = impl_->model.top();
  RingOutputs o;
  o.start = t.start_o;
  o.ctl = t.ctl_o;
  o.head = t.head_o;
  o.tail = t.tail_o;
  o.enabled = t.enabled_o;
  o.size_bytes = t.size_bytes_o;
  o.head_offset = t.head_offset_o;
  o.wrap_count = t.wrap_count_o;
  o.tail_offset = t.tail_offset_o;
  o.empty = t.empty_o;
  o.bytes_available = t.bytes_available_o;
  o.driver_space = t.driver_space_o;
  o.head_address = t.head_address_o;
  o.wrap = t.wrap_o;
  return o;
}

void RtlRingPointer::reset() {
  RingInputs in;
  in.reset = true;
  cycle(in);
}

namespace {
// The inputs of a cycle with one register write.
RingInputs one_write(bool RingInputs::*enable, std::uint32_t RingInputs::*data, std::uint32_t value) {
  RingInputs in;
  in.*enable = true;
  in.*data = value;
  return in;
}
}  // namespace

void RtlRingPointer::write_start(std::uint32_t v) { cycle(one_write(&RingInputs::start_we, &RingInputs::start, v)); }
void RtlRingPointer::write_ctl(std::uint32_t v) { cycle(one_write(&RingInputs::ctl_we, &RingInputs::ctl, v)); }
void RtlRingPointer::write_head(std::uint32_t v) { cycle(one_write(&RingInputs::head_we, &RingInputs::head, v)); }
void RtlRingPointer::write_tail(std::uint32_t v) { cycle(one_write(&RingInputs::tail_we, &RingInputs::tail, v)); }

bool RtlRingPointer::consume(std::uint32_t bytes) {
  return cycle(one_write(&RingInputs::consume, &RingInputs::consume_bytes, bytes)).wrap;
}

std::uint32_t RtlRingPointer::start_reg() const { return impl_->model.top().start_o; }
std::uint32_t RtlRingPointer::ctl_reg() const { return impl_->model.top().ctl_o; }
std::uint32_t RtlRingPointer::head_reg() const { return impl_->model.top().head_o; }
std::uint32_t RtlRingPointer::tail_reg() const { return impl_->model.top().tail_o; }
bool RtlRingPointer::empty() const { return impl_->model.top().empty_o; }
std::uint32_t RtlRingPointer::bytes_available() const { return impl_->model.top().bytes_available_o; }
std::uint32_t RtlRingPointer::driver_space() const { return impl_->model.top().driver_space_o; }
std::uint32_t RtlRingPointer::head_address() const { return impl_->model.top().head_address_o; }

bool RingOutputs::operator==(const RingOutputs& o) const {
  return start == o.start && ctl == o.ctl && head == o.head && tail == o.tail && enabled == o.enabled &&
         size_bytes == o.size_bytes && head_offset == o.head_offset && wrap_count == o.wrap_count &&
         tail_offset == o.tail_offset && empty == o.empty && bytes_available == o.bytes_available &&
         driver_space == o.driver_space && head_address == o.head_address && wrap == o.wrap;
}

std::string RingOutputs::describe() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "start=0x%08x ctl=0x%08x head=0x%08x tail=0x%08x enabled=%d size=0x%x head_offset=0x%x wrap_count=%u "
                "tail_offset=0x%x empty=%d available=0x%x driver_space=0x%x head_address=0x%08x wrap=%d",
                start, ctl, head, tail, enabled, size_bytes, head_offset, wrap_count, tail_offset, empty,
                bytes_available, driver_space, head_address, wrap);
  return buf;
}

std::string RingInputs::describe() const {
  if (reset) return "reset";
  std::string s;
  char buf[48];
  auto add = [&](bool on, const char* name, std::uint32_t v) {
    if (!on) return;
    std::snprintf(buf, sizeof buf, "%s%s=0x%08x", s.empty() ? "" : " ", name, v);
    s += buf;
  };
  add(start_we, "write_start", start);
  add(ctl_we, "write_ctl", ctl);
  add(head_we, "write_head", head);
  add(tail_we, "write_tail", tail);
  add(consume, "consume", consume_bytes);
  return s.empty() ? "idle" : s;
}

RingOutputs outputs_of(const gen::RingPointer& r, bool wrapped) {
  RingOutputs o;
  o.start = r.start_reg();
  o.ctl = r.ctl_reg();
  o.head = r.head_reg();
  o.tail = r.tail_reg();
  o.enabled = r.enabled();
  o.size_bytes = r.size_bytes();
  o.head_offset = r.head_offset();
  o.wrap_count = r.wrap_count();
  o.tail_offset = r.tail_offset();
  o.empty = r.empty();
  o.bytes_available = r.bytes_available();
  o.driver_space = r.driver_space();
  o.head_address = r.head_address();
  o.wrap = wrapped;
  return o;
}

void register_ring_model() {
  gen::register_ring_pointer_model(
      "rtl", []() -> std::unique_ptr<gen::RingPointerModel> { return std::make_unique<RtlRingPointer>(); });
  gen::register_ring_pointer_model("rtl_lockstep", []() -> std::unique_ptr<gen::RingPointerModel> {
    return std::make_unique<RtlRingPointer>(true);
  });
}

}  // namespace gpuvp::rtl
