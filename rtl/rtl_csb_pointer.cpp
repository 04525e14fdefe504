#include "rtl/rtl_csb_pointer.h"

#include <cstdio>

#include "Vcsb_ptr.h"
#include "rtl/clocked_model.h"

namespace gpuvp::rtl {

namespace {
void clear_strobes(Vcsb_ptr& t) { t.sw_we_i = t.advance_i = 0; }
}  // namespace

struct RtlCsbPointer::Impl {
  ClockedModel<Vcsb_ptr> model{"csb_ptr"};
};

RtlCsbPointer::RtlCsbPointer() : impl_(std::make_unique<Impl>()) { impl_->model.reset(clear_strobes); }

RtlCsbPointer::~RtlCsbPointer() = default;

bool RtlCsbPointer::trace_to(const std::string& path) { return impl_->model.trace_to(path); }

CsbOutputs RtlCsbPointer::cycle(const CsbInputs& in) {
  Vcsb_ptr& t = impl_->model.top();
  if (in.reset) {
    impl_->model.reset(clear_strobes);
    return outputs();
  }
  t.sw_we_i = in.sw_write;
  t.sw_wdata_i = in.data;
  t.advance_i = in.advance;
  impl_->model.cycle(clear_strobes);
  return outputs();
}

CsbOutputs RtlCsbPointer::outputs() const {
  const Vcsb_ptr& t = impl_->model.top();
  CsbOutputs o;
  o.value = t.value_o;
  o.write_pointer = t.write_ptr_o;
  o.read_pointer = t.read_ptr_o;
  o.next_entry = t.next_o;
  return o;
}

std::string CsbInputs::describe() const {
  if (reset) return "reset";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%s", advance ? "advance " : "", sw_write ? "write=" : "");
  std::string s = buf;
  if (sw_write) {
    std::snprintf(buf, sizeof buf, "0x%08x", data);
    s += buf;
  }
  return s.empty() ? "idle" : s;
}

std::string CsbOutputs::describe() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "value=0x%08x write_pointer=%u read_pointer=%u next_entry=%u", value, write_pointer,
                read_pointer, next_entry);
  return buf;
}

}  // namespace gpuvp::rtl
