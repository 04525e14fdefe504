// csb_ptr: write/read pointer logic of the execlists context status buffer (CSB) of one engine, the
// RING_CONTEXT_STATUS_PTR register (engine base + 0x3A0).
//
// Facts (i915 intel_lrc.c / gt/intel_execlists_submission.c, GVT-g gvt/execlist.c):
//   bits 2:0  write pointer: the entry the hardware wrote last; hardware advances it 0, 1, .., ENTRIES-1, 0, ..
//   bits 10:8 read pointer: written by software (the entry it consumed last)
//   masked register: bits 31:16 of a write enable the change of bits 15:0
//   reset: write pointer 7 ("no entry written yet": the next entry is 0), read pointer 0 (GVT-g
//   init_vgpu_execlist; older GVT-g versions also set the read pointer to 7, current ones 0). Only the two pointer
//   fields are stored; other bits read 0.
// A write pointer that is not a valid entry (6 or 7, e.g. written by software) makes the next entry 0, as GVT-g's
// emulate_csb_update does for 7 and its modulo does for 6 (wp + 1 >= ENTRIES).
//
// Cycle semantics: a hardware advance and a software write may arrive in the same cycle; the advance applies first
// and the software write then changes the fields it enables (the C++ model gpuvp::gen::CsbPointer is the reference).
module csb_ptr #(
    parameter int ENTRIES = 6,
    parameter int PTR_W   = 3
) (
    input  logic             clk_i,
    input  logic             rst_ni,     // asynchronous, active low

    input  logic             sw_we_i,    // software register write
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [31:0]      sw_wdata_i, // masked: bits 31:16 enable bits 15:0 (only the pointer fields are kept)
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic             advance_i,  // hardware writes the next CSB entry

    output logic [31:0]      value_o,     // register read-back
    output logic [PTR_W-1:0] write_ptr_o,
    output logic [PTR_W-1:0] read_ptr_o,
    output logic [PTR_W-1:0] next_o       // entry the next advance writes
);
  localparam logic [PTR_W-1:0] RESET_WP = {PTR_W{1'b1}};
  localparam int READ_LSB = 8;

  logic [PTR_W-1:0] wp_q, rp_q, next;
  assign next = (wp_q == RESET_WP || 32'(wp_q) + 1 >= ENTRIES) ? '0 : wp_q + 1'b1;

  // Write pointer after a possible advance, then the software write's enabled bits.
  logic [PTR_W-1:0] wp_adv, wp_en, rp_en;
  assign wp_adv = advance_i ? next : wp_q;
  assign wp_en  = sw_we_i ? sw_wdata_i[16 +: PTR_W] : '0;
  assign rp_en  = sw_we_i ? sw_wdata_i[16 + READ_LSB +: PTR_W] : '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wp_q <= RESET_WP;
      rp_q <= '0;
    end else begin
      wp_q <= (wp_adv & ~wp_en) | (sw_wdata_i[0 +: PTR_W] & wp_en);
      rp_q <= (rp_q & ~rp_en) | (sw_wdata_i[READ_LSB +: PTR_W] & rp_en);
    end
  end

  assign value_o     = 32'({rp_q, {(READ_LSB - PTR_W){1'b0}}, wp_q});
  assign write_ptr_o = wp_q;
  assign read_ptr_o  = rp_q;
  assign next_o      = next;
endmodule
