// ring_ptr: ring buffer pointer logic of one Gen command streamer engine: RING_START, RING_CTL, RING_HEAD and
// RING_TAIL with their register masks, hardware consumption of commands (HEAD advance with wrap count) and the
// derived status (empty, bytes available, the driver's free-space rule, GGTT address of the next command).
//
// Register layout (i915 gt/intel_engine_regs.h, gt/intel_ring.h):
//   RING_CTL  bit 0 RING_VALID, bits 20:12 RING_NR_PAGES (pages - 1)
//   RING_HEAD bits 20:2 HEAD_ADDR, bits 31:21 HEAD_WRAP_COUNT
//   RING_TAIL bits 20:3 TAIL_ADDR
//   RING_START bits 31:12 (4 KiB aligned GGTT address)
//   driver free space = (head - tail - 64) & (size - 1)   (i915 __intel_ring_space, CACHELINE_BYTES = 64)
//
// Cycle semantics (the C++ model gpuvp::gen::RingPointer is the reference; rtl_ring_pointer / the cross-check drive
// both with the same events): register writes and a consume may arrive in the same cycle. The consume is computed
// from the registers as they were before the edge; a software HEAD write in the same cycle wins over the consume.
// `wrap_o` is high for the cycle after a consume that crossed the end of the ring (once or more: a consume beyond
// the available commands, which no correct command stream causes, may lap the ring several times; the wrap count
// then counts every crossing).
//
// Offsets at or beyond the ring size (software wrote them, or shrank the ring) are taken modulo the size by the
// hardware-side outputs; the size may be any page count 1..2^PAGES_W (i915 only programs powers of two).
module ring_ptr #(
    parameter int PAGE_SHIFT = 12,  // 4 KiB pages
    parameter int PAGES_W    = 9,   // RING_NR_PAGES width: up to 512 pages (2 MiB)
    parameter int CONSUME_W  = 32   // consume port width (bytes; the low two bits are ignored)
) (
    input  logic        clk_i,
    input  logic        rst_ni,          // asynchronous, active low: every register to 0 (ring disabled)

    input  logic        start_we_i,
    input  logic [31:0] start_wdata_i,
    input  logic        ctl_we_i,
    input  logic [31:0] ctl_wdata_i,
    input  logic        head_we_i,
    input  logic [31:0] head_wdata_i,
    input  logic        tail_we_i,
    input  logic [31:0] tail_wdata_i,

    input  logic                 consume_i,        // hardware consumed consume_bytes_i bytes of commands
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [CONSUME_W-1:0] consume_bytes_i,  // low two bits ignored (HEAD is dword aligned)
    /* verilator lint_on UNUSEDSIGNAL */

    output logic [31:0] start_o,  // register read-back
    output logic [31:0] ctl_o,
    output logic [31:0] head_o,
    output logic [31:0] tail_o,

    output logic                          enabled_o,
    output logic [PAGE_SHIFT+PAGES_W:0]   size_bytes_o,       // 4 KiB .. 2 MiB
    output logic [PAGE_SHIFT+PAGES_W-1:0] head_offset_o,      // HEAD_ADDR as written/advanced
    output logic [31-PAGE_SHIFT-PAGES_W:0] wrap_count_o,
    output logic [PAGE_SHIFT+PAGES_W-1:0] tail_offset_o,
    output logic                          empty_o,            // no commands between HEAD and TAIL
    output logic [PAGE_SHIFT+PAGES_W:0]   bytes_available_o,  // hardware's notion of available commands
    output logic [PAGE_SHIFT+PAGES_W-1:0] driver_space_o,     // the driver's free-space rule
    output logic [31:0]                   head_address_o,     // GGTT address of the next command
    output logic                          wrap_o              // the consume of the previous cycle wrapped
);
  localparam int OFF_W  = PAGE_SHIFT + PAGES_W;  // 21: offset bits 20:0
  localparam int WRAP_W = 32 - OFF_W;            // 11: wrap count bits 31:21
  localparam logic [31:0] CTL_MASK   = {{(32 - OFF_W){1'b0}}, {PAGES_W{1'b1}}, {(PAGE_SHIFT - 1){1'b0}}, 1'b1};
  localparam logic [31:0] HEAD_MASK  = 32'hFFFF_FFFC;
  localparam logic [31:0] TAIL_MASK  = {{(32 - OFF_W){1'b0}}, {(OFF_W - 3){1'b1}}, 3'b000};
  localparam logic [31:0] START_MASK = {{(32 - PAGE_SHIFT){1'b1}}, {PAGE_SHIFT{1'b0}}};
  localparam logic [OFF_W-1:0] CACHELINE = OFF_W'(64);

  logic [31:0] start_q, ctl_q, head_q, tail_q;
  logic        wrap_q;

  // Ring size in pages (1 .. 2^PAGES_W) and bytes.
  logic [PAGES_W:0] pages;
  logic [OFF_W:0]   size;
  assign pages = {1'b0, ctl_q[OFF_W-1:PAGE_SHIFT]} + 1'b1;
  assign size  = {pages, {PAGE_SHIFT{1'b0}}};

  // Offsets modulo the ring size: the page number modulo the page count, the byte within the page unchanged.
  logic [OFF_W-1:0] head_off, tail_off, head_mod, tail_mod;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PAGES_W:0] head_page, tail_page;  // < pages <= 2^PAGES_W: the top bit is always 0
  /* verilator lint_on UNUSEDSIGNAL */
  assign head_off  = head_q[OFF_W-1:0];
  assign tail_off  = tail_q[OFF_W-1:0];
  assign head_page = {1'b0, head_off[OFF_W-1:PAGE_SHIFT]} % pages;
  assign tail_page = {1'b0, tail_off[OFF_W-1:PAGE_SHIFT]} % pages;
  assign head_mod  = {head_page[PAGES_W-1:0], head_off[PAGE_SHIFT-1:0]};
  assign tail_mod  = {tail_page[PAGES_W-1:0], tail_off[PAGE_SHIFT-1:0]};

  // Consume: HEAD (modulo the size) + bytes, modulo the size, one wrap count per crossing of the end. The sum is
  // split at the page boundary: its page number divided by the page count gives the crossings and the new page.
  localparam int SUM_W = (CONSUME_W > OFF_W ? CONSUME_W : OFF_W) + 1;
  logic [SUM_W-1:0]            advance_sum;
  logic [SUM_W-PAGE_SHIFT-1:0] advance_pages, advance_laps;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [SUM_W-PAGE_SHIFT-1:0] advance_page;  // < pages: only the low PAGES_W bits can be set
  /* verilator lint_on UNUSEDSIGNAL */
  logic [OFF_W-1:0]            advance_off;
  logic [31:0]                 head_consumed;
  assign advance_sum   = SUM_W'(head_mod) + SUM_W'({consume_bytes_i[CONSUME_W-1:2], 2'b00});
  assign advance_pages = advance_sum[SUM_W-1:PAGE_SHIFT];
  assign advance_laps  = advance_pages / (SUM_W - PAGE_SHIFT)'(pages);
  assign advance_page  = advance_pages % (SUM_W - PAGE_SHIFT)'(pages);
  assign advance_off   = {advance_page[PAGES_W-1:0], advance_sum[PAGE_SHIFT-1:0]};
  // The wrap count is 11 bits: it counts the crossings modulo 2048.
  assign head_consumed = {head_q[31:OFF_W] + advance_laps[WRAP_W-1:0], advance_off};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      start_q <= '0;
      ctl_q   <= '0;
      head_q  <= '0;
      tail_q  <= '0;
      wrap_q  <= 1'b0;
    end else begin
      wrap_q <= consume_i && advance_laps != '0;
      if (start_we_i) start_q <= start_wdata_i & START_MASK;
      if (ctl_we_i) ctl_q <= ctl_wdata_i & CTL_MASK;
      if (tail_we_i) tail_q <= tail_wdata_i & TAIL_MASK;
      if (head_we_i) head_q <= head_wdata_i & HEAD_MASK;
      else if (consume_i) head_q <= head_consumed;
    end
  end

  assign start_o = start_q;
  assign ctl_o   = ctl_q;
  assign head_o  = head_q;
  assign tail_o  = tail_q;

  assign enabled_o         = ctl_q[0];
  assign size_bytes_o      = size;
  assign head_offset_o     = head_off;
  assign wrap_count_o      = head_q[31:OFF_W];
  assign tail_offset_o     = tail_off;
  assign bytes_available_o = tail_mod >= head_mod ? {1'b0, tail_mod - head_mod}
                                                  : {1'b0, tail_mod} + size - {1'b0, head_mod};
  assign empty_o           = tail_mod == head_mod;
  assign driver_space_o    = (head_off - tail_off - CACHELINE) & OFF_W'(size - 1'b1);
  assign head_address_o    = start_q + 32'(head_mod);
  assign wrap_o            = wrap_q;
endmodule
