// ClockedModel: what both RTL adapters do with their verilated model (internal to rtl/*.cpp; includes Verilator
// headers). One clock cycle is a rising and a falling edge of clk_i with the caller's inputs applied before the
// rising edge; the reset is a falling edge of the asynchronous rst_ni; an optional VCD records every evaluation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <verilated.h>
#include <verilated_vcd_c.h>

namespace gpuvp::rtl {

template <typename Top>
class ClockedModel {
 public:
  explicit ClockedModel(const char* name) : top_(&context_, name) {
    top_.clk_i = 0;
    top_.rst_ni = 0;
  }
  ~ClockedModel() {
    top_.final();
    if (vcd_) vcd_->close();
  }
  ClockedModel(const ClockedModel&) = delete;
  ClockedModel& operator=(const ClockedModel&) = delete;

  Top& top() { return top_; }
  const Top& top() const { return top_; }

  // One cycle; clear_strobes() runs after the rising edge so that write/consume strobes last one cycle.
  template <typename ClearStrobes>
  void cycle(ClearStrobes clear_strobes) {
    top_.clk_i = 1;
    eval();
    clear_strobes(top_);
    top_.clk_i = 0;
    eval();
  }
  // Asynchronous reset with the strobes low. The falling edge of rst_ni is made explicitly (1 -> 0 -> 1), also at
  // power-on where the model starts with rst_ni = 0 and would otherwise see no edge.
  template <typename ClearStrobes>
  void reset(ClearStrobes clear_strobes) {
    clear_strobes(top_);
    top_.rst_ni = 1;
    eval();
    top_.rst_ni = 0;
    eval();
    top_.rst_ni = 1;
    eval();
  }
  bool trace_to(const std::string& path) {
    context_.traceEverOn(true);
    auto vcd = std::make_unique<VerilatedVcdC>();
    top_.trace(vcd.get(), 99);
    vcd->open(path.c_str());
    if (!vcd->isOpen()) return false;
    vcd_ = std::move(vcd);
    return true;
  }

 private:
  void eval() {
    top_.eval();
    if (vcd_) vcd_->dump(time_);
    ++time_;
  }

  VerilatedContext context_;
  Top top_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  std::uint64_t time_ = 0;
};

}  // namespace gpuvp::rtl
