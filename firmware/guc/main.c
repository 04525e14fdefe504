/* GuC firmware for the gpuvp model: brings the core up (GDT in start.S, IDT, local interrupt controller), reports
 * the uKernel status, then serves the host's MMIO mailbox from the GUC_SEND_INTERRUPT handler and writes what it does
 * to a log buffer in graphics memory that the host can read. */
#include "guc_abi.h"

typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;

extern char __bss_start[], __bss_end[];
extern void guc_host2guc_entry(void);
extern void guc_doorbell_entry(void);
extern void guc_engine_entry(void);

struct idt_gate {
  u16 offset_low;
  u16 selector;
  u8 zero;
  u8 type_attr;
  u16 offset_high;
} __attribute__((packed));

struct idt_pointer {
  u16 limit;
  u32 base;
} __attribute__((packed));

static struct idt_gate idt[256];

/* State kept across mailbox requests. */
static u32 log_base;      /* GuC (= GGTT) address of the log buffer, 0 when the host gave none */
static u32 log_text_size; /* bytes of the text area */
static u32 log_verbosity; /* GUC_LOG_VERBOSITY_* the host asked for (GUC_CTL_DEBUG) */
static u32 forcewake_policy;
static u32 sleep_state;                       /* 0 awake (D0), else the GUC_POWER_* state the host asked for */
static u32 doorbell_owner[GUC_NUM_DOORBELLS]; /* stage id + 1, 0 = free */
static u32 requests;
static u32 wopcm_top; /* GUC_LAPIC_WOPCM_TOP: below it the GuC's addresses are its own SRAM, not the GGTT */

/* GuC submission: the process descriptor of each doorbell's client (0 = none) and whether it rang since its work
 * queue was last drained. */
static u32 client_desc[GUC_NUM_DOORBELLS];
/* Clients whose doorbell rang and whose queue may hold work: a bit per doorbell, so that the scheduler skips 32 idle
 * doorbells at a time. */
static u32 client_ready[GUC_NUM_DOORBELLS / 32];
static u8 client_priority[GUC_NUM_DOORBELLS]; /* GUC_CLIENT_PRIORITY_*, read from the descriptor at allocation */
/* Round robin within a priority level: the doorbell looked at first when the level is next served. */
static u32 next_client[GUC_CLIENT_PRIORITY_NUM];

static void set_ready(u32 db, int ready) {
  if (ready) {
    client_ready[db / 32] |= 1u << (db % 32);
  } else {
    client_ready[db / 32] &= ~(1u << (db % 32));
  }
}
/* Command transport buffers: descriptor GGTT addresses, 0 when not registered. */
static u32 ct_desc[2];

static inline u32 mmio_read(u32 offset) { return *(volatile u32*)(GUC_MMIO_BASE + offset); }
static inline void mmio_write(u32 offset, u32 value) { *(volatile u32*)(GUC_MMIO_BASE + offset) = value; }
static inline void lapic_write(u32 offset, u32 value) { *(volatile u32*)(GUC_LAPIC_BASE + offset) = value; }
static inline u32 lapic_read(u32 offset) { return *(volatile u32*)(GUC_LAPIC_BASE + offset); }
static inline u32 mem_read(u32 addr) { return *(volatile u32*)addr; }
static inline void mem_write(u32 addr, u32 value) { *(volatile u32*)addr = value; }

static void set_ukernel_status(u32 status) { lapic_write(GUC_LAPIC_UKERNEL_STATUS, status); }

/* ---- log buffer ----
 * Only the firmware writes the offset, so it keeps its own copy and publishes it once per string: each character
 * costs one graphics-memory write instead of four accesses. */
static u32 log_offset;

/* Whether lines of this verbosity go to the log: every line costs graphics-memory writes, per character. */
static int log_wants(u32 verbosity) { return log_base && log_verbosity >= verbosity; }

static void log_publish(void) {
  if (log_base) mem_write(log_base + 4, log_offset);
}

static void log_putc(char c) {
  if (!log_base) return;
  if (log_offset >= log_text_size) log_offset = 0;
  volatile u8* text = (volatile u8*)(log_base + GUC_LOG_HEADER_BYTES);
  text[log_offset++] = (u8)c;
  if (log_offset >= log_text_size) log_offset = 0;
  if (c == '\n') log_publish();
}

static void log_puts(const char* s) {
  while (*s) log_putc(*s++);
  log_publish();
}

static void log_hex(u32 v) {
  static const char digits[] = "0123456789abcdef";
  log_puts("0x");
  for (int shift = 28; shift >= 0; shift -= 4) log_putc(digits[(v >> shift) & 0xF]);
  log_publish();
}

/* ---- addresses the host gives ----
 * Every GGTT address that comes from the host (mailbox parameters, boot parameters, descriptors and work items in
 * graphics memory, which the host may rewrite at any time) is checked before the firmware reads or writes through it:
 * dword aligned, at or above the WOPCM top (below it the GuC's addresses are its own code, data and stack; i915
 * intel_guc_ggtt_offset asserts that a GGTT offset handed to the GuC is not below GUC_WOPCM_TOP) and below
 * GUC_GGTT_TOP (the local and register windows start there). */
enum range_verdict { RANGE_OK, RANGE_MISALIGNED, RANGE_IN_WOPCM, RANGE_PAST_GGTT_TOP };

static enum range_verdict ggtt_range_check(u32 addr, u32 size) {
  if (addr & 3) return RANGE_MISALIGNED;
  if (addr < wopcm_top) return RANGE_IN_WOPCM;
  if (addr >= GUC_GGTT_TOP || size > GUC_GGTT_TOP - addr) return RANGE_PAST_GGTT_TOP;
  return RANGE_OK;
}

static int ggtt_range_ok(u32 addr, u32 size) { return ggtt_range_check(addr, size) == RANGE_OK; }

/* The check, and on refusal a log line naming what was refused and why (at every verbosity). */
static int host_range_ok(const char* what, u32 addr, u32 size) {
  static const char* const why[] = {"", "not dword aligned", "inside WOPCM (the GuC's own memory)",
                                    "past the GGTT top"};
  const enum range_verdict verdict = ggtt_range_check(addr, size);
  if (verdict == RANGE_OK) return 1;
  log_puts(what);
  log_putc(' ');
  log_hex(addr);
  log_puts(" refused: ");
  log_puts(why[verdict]);
  log_putc('\n');
  return 0;
}

/* A log buffer the firmware may not write (inside WOPCM, past the GGTT top) is refused: the firmware runs without a
 * log, and FORCE_LOG_BUFFER_FLUSH answers GENERIC_FAIL. */
static void log_setup(u32 params, u32 debug) {
  if (!(params & GUC_LOG_VALID) || (debug & GUC_LOG_DISABLED)) return;
  log_verbosity = debug & GUC_LOG_VERBOSITY_MASK;
  const u32 base = params & ~0xFFFu;
  const u32 bytes = (((params & GUC_LOG_PAGES_MASK) >> GUC_LOG_PAGES_SHIFT) + 1) * 4096u;
  if (ggtt_range_ok(base, bytes)) {
    log_base = base;
    log_text_size = bytes - GUC_LOG_HEADER_BYTES;
    mem_write(log_base + 0, GUC_LOG_MAGIC);
    mem_write(log_base + 4, 0);
    log_offset = 0;
    mem_write(log_base + 8, 0);
    mem_write(log_base + 12, log_text_size);
  }
}

/* ---- mailbox actions ---- */
static u32 scratch(u32 n) { return mmio_read(GUC_REG_SOFT_SCRATCH(n)); }

static u32 allocate_doorbell(u32 stage_id, u32 doorbell, u32 process_desc) {
  if (doorbell >= GUC_NUM_DOORBELLS || stage_id >= 1024 || doorbell_owner[doorbell] ||
      (process_desc != 0 && !host_range_ok("process descriptor", process_desc, GUC_PD_BYTES))) {
    log_puts("doorbell allocation refused: ");
    log_hex(doorbell);
    log_putc('\n');
    return GUC_REPLY_ALLOCATE_DOORBELL_FAIL;
  }
  const u32 priority = process_desc ? mem_read(process_desc + GUC_PD_PRIORITY) : GUC_CLIENT_PRIORITY_NORMAL;
  if (priority >= GUC_CLIENT_PRIORITY_NUM) {
    log_puts("doorbell allocation refused: client priority ");
    log_hex(priority);
    log_putc('\n');
    return GUC_REPLY_ALLOCATE_DOORBELL_FAIL;
  }
  doorbell_owner[doorbell] = stage_id + 1;
  client_desc[doorbell] = process_desc;
  set_ready(doorbell, 0);
  client_priority[doorbell] = (u8)priority;
  if (process_desc) mem_write(process_desc + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_ACTIVE);
  mmio_write(GUC_REG_DRBREGL(doorbell), GUC_DRB_VALID | (stage_id << 8));
  if (log_wants(GUC_LOG_VERBOSITY_MED)) {
    log_puts("doorbell ");
    log_hex(doorbell);
    log_puts(" -> stage ");
    log_hex(stage_id);
    log_putc('\n');
  }
  return GUC_REPLY_SUCCESS;
}

static u32 deallocate_doorbell(u32 stage_id, u32 doorbell) {
  if (doorbell >= GUC_NUM_DOORBELLS || doorbell_owner[doorbell] != stage_id + 1) {
    log_puts("doorbell release refused: ");
    log_hex(doorbell);
    log_putc('\n');
    return GUC_REPLY_DEALLOCATE_DOORBELL_FAIL;
  }
  doorbell_owner[doorbell] = 0;
  client_desc[doorbell] = 0;
  set_ready(doorbell, 0);
  mmio_write(GUC_REG_DRBREGL(doorbell), 0);
  if (log_wants(GUC_LOG_VERBOSITY_MED)) {
    log_puts("doorbell released ");
    log_hex(doorbell);
    log_putc('\n');
  }
  return GUC_REPLY_SUCCESS;
}

/* Suspend record the firmware leaves in the host's shared page (ENTER_S_STATE) and checks on resume. */
#define SLEEP_RECORD_MAGIC 0x50454C53u /* bytes "SLEP" */
#define SLEEP_RECORD_BYTES 16u

static u32 enter_s_state(u32 state, u32 shared) {
  if (sleep_state != 0 || state < 2 || state > 4 || !host_range_ok("S state shared page", shared, SLEEP_RECORD_BYTES)) {
    return GUC_REPLY_GENERIC_FAIL;
  }
  u32 allocated = 0;
  for (u32 i = 0; i < GUC_NUM_DOORBELLS; ++i) allocated += doorbell_owner[i] != 0;
  mem_write(shared + 0, SLEEP_RECORD_MAGIC);
  mem_write(shared + 4, state);
  mem_write(shared + 8, allocated);
  mem_write(shared + 12, requests);
  sleep_state = state;
  if (log_wants(GUC_LOG_VERBOSITY_MED)) {
    log_puts("enter S state ");
    log_hex(state);
    log_putc('\n');
  }
  return GUC_REPLY_SUCCESS;
}

static u32 exit_s_state(u32 state, u32 shared) {
  if (sleep_state == 0 || state != 1 || !host_range_ok("S state shared page", shared, SLEEP_RECORD_BYTES) ||
      mem_read(shared) != SLEEP_RECORD_MAGIC) {
    return GUC_REPLY_GENERIC_FAIL;
  }
  mem_write(shared + 0, 0);
  sleep_state = 0;
  if (log_wants(GUC_LOG_VERBOSITY_MED)) log_puts("exit S state\n");
  return GUC_REPLY_SUCCESS;
}

static u32 flush_log(void) {
  if (!log_base) return GUC_REPLY_GENERIC_FAIL;
  mem_write(log_base + 8, mem_read(log_base + 8) + 1);
  mmio_write(GUC_REG_SOFT_SCRATCH(15), scratch(15) | GUC_EVENT_FLUSH_LOG_BUFFER);
  lapic_write(GUC_LAPIC_HOST_INTERRUPT, 1);
  return GUC_REPLY_SUCCESS;
}

static u32 register_ct(u32 desc, u32 desc_size, u32 type);
static u32 deregister_ct(u32 type);

/* p[0..2]: the action's first parameters (unused ones are 0). */
static u32 dispatch(u32 action, const u32* p) {
  switch (action) {
    case GUC_ACTION_SAMPLE_FORCEWAKE:
      forcewake_policy = p[0];
      if (log_wants(GUC_LOG_VERBOSITY_MED)) {
        log_puts("forcewake policy ");
        log_hex(forcewake_policy);
        log_putc('\n');
      }
      return GUC_REPLY_SUCCESS;
    case GUC_ACTION_ALLOCATE_DOORBELL:
      return allocate_doorbell(p[0], p[1], p[2]);
    case GUC_ACTION_DEALLOCATE_DOORBELL:
      return deallocate_doorbell(p[0], p[1]);
    case GUC_ACTION_ENTER_S_STATE:
      return enter_s_state(p[0], p[1]);
    case GUC_ACTION_EXIT_S_STATE:
      return exit_s_state(p[0], p[1]);
    case GUC_ACTION_FORCE_LOG_BUFFER_FLUSH:
      return flush_log();
    case GUC_ACTION_LOG_BUFFER_FILE_FLUSH_COMPLETE:
      return GUC_REPLY_SUCCESS;
    case GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER:
      return register_ct(p[0], p[1], p[2]);
    case GUC_ACTION_DEREGISTER_COMMAND_TRANSPORT_BUFFER:
      return deregister_ct(p[1]);
    default:
      log_puts("unknown action ");
      log_hex(action);
      log_putc('\n');
      return GUC_REPLY_GENERIC_FAIL;
  }
}

/* ---- command transport ---- */
static u32 register_ct(u32 desc, u32 desc_size, u32 type) {
  if (type > GUC_CTB_TYPE_RECV || desc_size != GUC_CTB_DESC_BYTES ||
      !host_range_ok("CT descriptor", desc, GUC_CTB_DESC_BYTES)) {
    log_puts("CT registration refused\n");
    return GUC_REPLY_GENERIC_FAIL;
  }
  const u32 addr = mem_read(desc + GUC_CTB_DESC_ADDR);
  const u32 size = mem_read(desc + GUC_CTB_DESC_SIZE);
  if (size == 0 || (size & 3) || !host_range_ok("CT buffer", addr, size)) {
    log_puts("CT buffer refused: ");
    log_hex(addr);
    log_putc(' ');
    log_hex(size);
    log_putc('\n');
    return GUC_REPLY_GENERIC_FAIL;
  }
  ct_desc[type] = desc;
  if (log_wants(GUC_LOG_VERBOSITY_MED)) {
    log_puts(type == GUC_CTB_TYPE_SEND ? "CT send buffer " : "CT receive buffer ");
    log_hex(addr);
    log_putc('\n');
  }
  return GUC_REPLY_SUCCESS;
}

static u32 deregister_ct(u32 type) {
  if (type > GUC_CTB_TYPE_RECV || !ct_desc[type]) return GUC_REPLY_GENERIC_FAIL;
  ct_desc[type] = 0;
  return GUC_REPLY_SUCCESS;
}

static void ct_error(u32 desc, const char* why) {
  mem_write(desc + GUC_CTB_DESC_IS_IN_ERROR, 1);
  log_puts("CT error: ");
  log_puts(why);
  log_putc('\n');
}

/* Appends a message to the receive buffer and raises the GuC-to-host interrupt; 0 if it could not. */
static int ct_post(const u32* message, u32 dwords) {
  const u32 desc = ct_desc[GUC_CTB_TYPE_RECV];
  if (!desc || mem_read(desc + GUC_CTB_DESC_IS_IN_ERROR)) return 0;
  const u32 addr = mem_read(desc + GUC_CTB_DESC_ADDR);
  const u32 size = mem_read(desc + GUC_CTB_DESC_SIZE);
  const u32 head = mem_read(desc + GUC_CTB_DESC_HEAD);
  u32 tail = mem_read(desc + GUC_CTB_DESC_TAIL);
  if (size == 0 || (size & 3) || !ggtt_range_ok(addr, size)) {
    ct_error(desc, "receive buffer moved inside WOPCM or past the GGTT top");
    return 0;
  }
  if (head >= size || tail >= size || (tail & 3)) {
    ct_error(desc, "receive buffer offsets");
    return 0;
  }
  const u32 used = tail >= head ? tail - head : size - head + tail;
  if (size - used <= 4 * dwords) return 0; /* full: the host has not drained it */
  for (u32 i = 0; i < dwords; ++i) {
    mem_write(addr + tail, message[i]);
    tail = (tail + 4) % size;
  }
  mem_write(desc + GUC_CTB_DESC_TAIL, tail);
  lapic_write(GUC_LAPIC_HOST_INTERRUPT, 1);
  return 1;
}

/* GuC-to-host events wait here while the receive buffer is full; they go out in order at the next interrupt of any
 * kind (a host request, a doorbell, an engine event) once the host has drained the buffer. The scheduler starts work
 * only while this queue has room for the event of every item running (work_has_event_room), so none is lost. */
#define EVENT_QUEUE 64u
#define EVENT_DWORDS (1u + GUC_WORK_ITEM_DONE_LEN)
static u32 held_events[EVENT_QUEUE][EVENT_DWORDS];
static u32 held_first, held_count;
static u32 work_held_logged; /* the "work held" diagnostic was given since the queue last emptied */

static void flush_events(void) {
  while (held_count && ct_post(held_events[held_first], EVENT_DWORDS)) {
    held_first = (held_first + 1) % EVENT_QUEUE;
    --held_count;
  }
  if (!held_count) work_held_logged = 0;
}

static void post_event(const u32* message) {
  flush_events();
  if (!held_count && ct_post(message, EVENT_DWORDS)) return;
  if (held_count == EVENT_QUEUE) {
    log_puts("CT receive buffer and event queue full: event lost\n"); /* unreachable while work_has_event_room holds */
    return;
  }
  if (!held_count) log_puts("CT receive buffer full: events held\n");
  u32* slot = held_events[(held_first + held_count) % EVENT_QUEUE];
  for (u32 i = 0; i < EVENT_DWORDS; ++i) slot[i] = message[i];
  ++held_count;
}

/* A response to the host: {header: 2 dwords follow, is-response, action}, fence, status. */
static void ct_respond(u32 action, u32 fence, u32 status) {
  const u32 message[3] = {2u | GUC_CT_MSG_IS_RESPONSE | (action << GUC_CT_MSG_ACTION_SHIFT), fence, status};
  if (!ct_post(message, 3)) log_puts("CT receive buffer full: response dropped\n");
}

/* Consumes every message the host put in the send buffer. */
static void ct_process(void) {
  const u32 desc = ct_desc[GUC_CTB_TYPE_SEND];
  if (!desc || mem_read(desc + GUC_CTB_DESC_IS_IN_ERROR)) return;
  const u32 addr = mem_read(desc + GUC_CTB_DESC_ADDR);
  const u32 size = mem_read(desc + GUC_CTB_DESC_SIZE);
  u32 head = mem_read(desc + GUC_CTB_DESC_HEAD);
  const u32 tail = mem_read(desc + GUC_CTB_DESC_TAIL);
  if (size == 0 || (size & 3) || !ggtt_range_ok(addr, size)) {
    ct_error(desc, "send buffer moved inside WOPCM or past the GGTT top");
    return;
  }
  if (head >= size || tail >= size || ((head | tail) & 3)) {
    ct_error(desc, "send buffer offsets");
    return;
  }
  while (head != tail) {
    const u32 available = (tail >= head ? tail - head : size - head + tail) / 4;
    const u32 header = mem_read(addr + head);
    const u32 len = header & GUC_CT_MSG_LEN_MASK;
    if (len == 0 || len + 1 > available) {
      ct_error(desc, "message length");
      return;
    }
    u32 words[GUC_CT_MSG_LEN_MASK + 1];
    for (u32 i = 0; i < len; ++i) words[i] = mem_read(addr + (head + 4 * (i + 1)) % size);
    const u32 fence = words[0];
    u32 p[3] = {0, 0, 0};
    for (u32 i = 1; i < len && i <= 3; ++i) p[i - 1] = words[i];
    const u32 action = header >> GUC_CT_MSG_ACTION_SHIFT;
    ++requests;
    const u32 status = dispatch(action, p);
    head = (head + 4 * (len + 1)) % size;
    mem_write(desc + GUC_CTB_DESC_HEAD, head);
    if (header & GUC_CT_MSG_WRITE_FENCE_TO_DESC) {
      mem_write(desc + GUC_CTB_DESC_STATUS, status);
      mem_write(desc + GUC_CTB_DESC_FENCE, fence);
    }
    if (header & GUC_CT_MSG_SEND_STATUS) ct_respond(action, fence, status);
  }
}

static void schedule(void);

void guc_host2guc_isr(void) {
  /* Work held for want of event room may start once the host has drained the receive buffer (the doorbell and engine
   * interrupts schedule anyway). */
  const u32 work_was_held = work_held_logged;
  flush_events();
  /* One interrupt serves both channels: a mailbox request (SOFT_SCRATCH(0) holds an action, not a response; action
   * 0 = DEFAULT means none) and new messages in the CT send buffer. */
  const u32 action = scratch(0);
  if (action != GUC_ACTION_DEFAULT && !GUC_REPLY_IS_RESPONSE(action)) {
    ++requests;
    const u32 p[3] = {scratch(1), scratch(2), scratch(3)};
    mmio_write(GUC_REG_SOFT_SCRATCH(0), dispatch(action, p));
  }
  ct_process();
  if (work_was_held) schedule();
  lapic_write(GUC_LAPIC_EOI, 0);
}

/* ---- GuC submission ----
 * The firmware owns the engines' execlists: it writes ELSP itself, one context at a time per engine, and learns that
 * the context completed from the engine's context status buffer when the context-switch interrupt (steered to the
 * GuC by the host) arrives. Clients are served by priority (GUC_CLIENT_PRIORITY_*, lower first) and round robin
 * within a priority; a client's work queue is in order, so an item waiting for a busy engine holds the items behind
 * it. A completed item is reported to the host with a GUC_ACTION_WORK_ITEM_DONE message in the CT receive buffer. */
static const u32 engine_base[GUC_MAX_ENGINES_NUM] = GUC_ENGINE_BASES;
static const char* const engine_name[GUC_MAX_ENGINES_NUM] = {"rcs", "vcs0", "bcs", "vecs", "vcs1"};
/* Where an engine's events land in GUC_LAPIC_ENGINE_IIR(n) (the GT interrupt bank layout). */
static const u8 engine_iir_index[GUC_MAX_ENGINES_NUM] = {0, 1, 0, 2, 1};
static const u8 engine_iir_shift[GUC_MAX_ENGINES_NUM] = {0, 0, 16, 0, 16};
static u32 engines_present; /* bit per GuC engine id (GUC_LAPIC_ENGINES) */

struct engine_state {
  u32 busy;    /* a context runs: ours (submitted, not completed) or, after a GuC reset, somebody else's */
  u32 foreign; /* the running context is not ours (found active when the firmware first looked) */
  u32 failed;  /* the engine stopped with a command streamer error: work held until the host resets it */
  u32 stage;   /* the stage id and fence of our running work item */
  u32 fence;
  u32 context_id; /* the context ID given with the ELSP write */
  u32 csb_read;   /* the last CSB entry consumed; GUC_CSB_ENTRIES until the firmware first looked */
  u32 warned;     /* interrupts-not-steered diagnostic given */
};
static struct engine_state engines[GUC_MAX_ENGINES_NUM];

static void wq_error(u32 desc, u32 head, u32 status, const char* why, u32 value) {
  log_puts("work queue error: ");
  log_puts(why);
  log_putc(' ');
  log_hex(value);
  log_puts(" at offset ");
  log_hex(head);
  log_putc('\n');
  mem_write(desc + GUC_PD_ERROR_OFFSET, head);
  mem_write(desc + GUC_PD_WQ_STATUS, status); /* last: the host may read the log once it sees the status */
}

/* The firmware only learns that a context completed from the context-switch interrupt: without it an engine would
 * stay busy for ever, so work for an engine whose interrupts the host did not steer to the GuC is held. */
static int engine_interrupts_routed(u32 id) {
  const u32 ier = mmio_read(GUC_REG_BCS_RCS_IER + 4u * engine_iir_index[id]);
  return (mmio_read(engine_base[id] + GUC_ENGINE_RING_MODE) & GUC_RING_MODE_INTERRUPT_STEERING) &&
         ((ier >> engine_iir_shift[id]) & GUC_ENGINE_CONTEXT_SWITCH);
}

/* Tells the host how a work item ended: WORK_ITEM_DONE, or WORK_ITEM_FAILED when it did not complete. */
static void report(u32 id, u32 action) {
  struct engine_state* e = &engines[id];
  if (action != GUC_ACTION_WORK_ITEM_DONE || log_wants(GUC_LOG_VERBOSITY_HIGH)) {
    log_puts("stage ");
    log_hex(e->stage);
    log_puts(" fence ");
    log_hex(e->fence);
    log_puts(action == GUC_ACTION_WORK_ITEM_DONE ? " done on " : " FAILED on ");
    log_puts(engine_name[id]);
    log_putc('\n');
  }
  const u32 message[EVENT_DWORDS] = {GUC_WORK_ITEM_DONE_LEN | (action << GUC_CT_MSG_ACTION_SHIFT), e->stage, e->fence,
                                     id};
  post_event(message);
}

/* Brings the firmware's view of an engine up to date with its context status buffer. New entries are consumed: a
 * COMPLETE of our context ends its work item, a PREEMPTED without COMPLETE means somebody else's ELSP write took the
 * engine (the item did not finish: reported as failed). A write pointer of 7 means nothing was written since the
 * engine's reset: whatever ran is gone. The first look takes the buffer's contents as history and an active
 * element (after a GuC reset) as somebody else's context, waited for. Also run at the start of every scheduling
 * pass, so that a completion whose interrupt went elsewhere is not missed. */
static void sync_engine(u32 id) {
  struct engine_state* e = &engines[id];
  const u32 mmio = engine_base[id];
  const u32 write = mmio_read(mmio + GUC_ENGINE_CSB_POINTER) & 7u;
  const int active = (mmio_read(mmio + GUC_ENGINE_EXECLIST_STATUS_LO) & GUC_EXECLIST_ACTIVE) != 0;
  if (write >= GUC_CSB_ENTRIES || e->csb_read >= GUC_CSB_ENTRIES) {
    if (e->csb_read < GUC_CSB_ENTRIES && write >= GUC_CSB_ENTRIES && (e->busy || e->failed)) {
      log_puts(engine_name[id]);
      log_puts(": engine reset\n");
      if (e->busy && !e->foreign) report(id, GUC_ACTION_WORK_ITEM_FAILED);
    }
    e->csb_read = write < GUC_CSB_ENTRIES ? write : GUC_CSB_ENTRIES - 1;
    e->failed = 0;
    e->busy = active;
    e->foreign = active;
    return;
  }
  while (e->csb_read != write) {
    e->csb_read = (e->csb_read + 1) % GUC_CSB_ENTRIES;
    const u32 status = mmio_read(mmio + GUC_ENGINE_CSB(e->csb_read));
    const u32 context_id = mmio_read(mmio + GUC_ENGINE_CSB(e->csb_read) + 4);
    if (e->busy && e->foreign) {
      if (status & GUC_CSB_ACTIVE_TO_IDLE) e->busy = e->foreign = 0;
    } else if (e->busy && context_id == e->context_id && (status & (GUC_CSB_COMPLETE | GUC_CSB_PREEMPTED))) {
      report(id, (status & GUC_CSB_COMPLETE) ? GUC_ACTION_WORK_ITEM_DONE : GUC_ACTION_WORK_ITEM_FAILED);
      e->busy = 0;
    }
  }
  /* The read pointer tells whoever looks at the register what the firmware consumed (masked write, 10:8). */
  mmio_write(mmio + GUC_ENGINE_CSB_POINTER, (7u << 24) | (e->csb_read << 8));
}

enum submit_result { SUBMIT_NOTHING, SUBMIT_DONE, SUBMIT_BLOCKED };

/* Every work item started ends in exactly one event (done or failed). A new item may start only while the event queue
 * could hold the events of all running items and of the new one, should the host leave the receive buffer full: then
 * work waits in the work queues, not events in a queue that overflows. */
static int work_has_event_room(void) {
  u32 running = 0;
  for (u32 id = 0; id < GUC_MAX_ENGINES_NUM; ++id) running += engines[id].busy && !engines[id].foreign;
  if (held_count + running < EVENT_QUEUE) return 1;
  if (!work_held_logged) {
    log_puts("CT receive buffer and event queue full: work held until the host drains the buffer\n");
    work_held_logged = 1;
  }
  return 0;
}

/* Submits the client's next work item to its engine. */
static enum submit_result submit_next(u32 db) {
  const u32 desc = client_desc[db];
  if (mem_read(desc + GUC_PD_WQ_STATUS) != GUC_WQ_STATUS_ACTIVE) return SUBMIT_NOTHING;
  const u32 base = mem_read(desc + GUC_PD_WQ_BASE);
  const u32 size = mem_read(desc + GUC_PD_WQ_SIZE);
  const u32 head = mem_read(desc + GUC_PD_HEAD);
  const u32 tail = mem_read(desc + GUC_PD_TAIL);
  if (size == 0 || (size % GUC_WQ_ITEM_BYTES) || !ggtt_range_ok(base, size) || head >= size || tail >= size ||
      (head % GUC_WQ_ITEM_BYTES) || (tail % GUC_WQ_ITEM_BYTES)) {
    wq_error(desc, head, GUC_WQ_STATUS_CMD_ERROR, "work queue geometry, tail", tail);
    return SUBMIT_NOTHING;
  }
  if (head == tail) return SUBMIT_NOTHING;
  const u32 header = mem_read(base + head);
  const u32 context_desc = mem_read(base + head + 4);
  const u32 info = mem_read(base + head + 8);
  const u32 fence = mem_read(base + head + 12);
  if ((header & GUC_WQ_TYPE_MASK) != GUC_WQ_TYPE_INORDER ||
      ((header & GUC_WQ_LEN_MASK) >> GUC_WQ_LEN_SHIFT) != GUC_WQ_ITEM_BYTES / 4 - 1) {
    wq_error(desc, head, GUC_WQ_STATUS_CMD_ERROR, "bad item header", header);
    return SUBMIT_NOTHING;
  }
  const u32 id = (header & GUC_WQ_TARGET_MASK) >> GUC_WQ_TARGET_SHIFT;
  if (id >= GUC_MAX_ENGINES_NUM || !(engines_present & (1u << id)) ||
      !(mem_read(desc + GUC_PD_ENGINE_PRESENCE) & (1u << id))) {
    wq_error(desc, head, GUC_WQ_STATUS_ENGINE_ID_NOT_USED, "engine not present or not the client's, header", header);
    return SUBMIT_NOTHING;
  }
  const u32 lrca = context_desc & ~0xFFFu;
  const u32 addressing = (context_desc & GUC_LRC_DESC_ADDRESSING_MASK) >> GUC_LRC_DESC_ADDRESSING_SHIFT;
  if (!(context_desc & GUC_LRC_DESC_VALID) || !(context_desc & GUC_LRC_DESC_PRIVILEGE) ||
      (addressing != GUC_LRC_LEGACY_32B && addressing != GUC_LRC_LEGACY_64B) || !ggtt_range_ok(lrca, 2 * 4096u)) {
    wq_error(desc, head, GUC_WQ_STATUS_CMD_ERROR, "bad context descriptor", context_desc);
    return SUBMIT_NOTHING;
  }
  struct engine_state* e = &engines[id];
  if (!engine_interrupts_routed(id)) {
    if (!e->warned) {
      log_puts(engine_name[id]);
      log_puts(": context-switch interrupts not steered to the GuC: work held\n");
      e->warned = 1;
    }
    return SUBMIT_BLOCKED;
  }
  if (e->csb_read >= GUC_CSB_ENTRIES) sync_engine(id); /* first look: maybe found running after a GuC reset */
  if (e->busy || e->failed || !work_has_event_room()) return SUBMIT_BLOCKED;
  const u32 mmio = engine_base[id];
  if (log_wants(GUC_LOG_VERBOSITY_HIGH)) {
    log_puts("stage ");
    log_hex(doorbell_owner[db] - 1);
    log_puts(" fence ");
    log_hex(fence);
    log_puts(" -> ");
    log_puts(engine_name[id]);
    log_putc('\n');
  }
  mem_write(lrca + GUC_LRC_RING_TAIL_OFFSET, ((info >> GUC_WQ_RING_TAIL_SHIFT) & GUC_WQ_RING_TAIL_MAX) * 8u);
  e->busy = 1;
  e->stage = doorbell_owner[db] - 1;
  e->fence = fence;
  e->context_id = lrca >> 12; /* the work item carries only the descriptor's lower dword */
  mem_write(desc + GUC_PD_HEAD, (head + GUC_WQ_ITEM_BYTES) % size);
  /* Element 1 unused, element 0 last (the write that submits). */
  mmio_write(mmio + GUC_ENGINE_ELSP, 0);
  mmio_write(mmio + GUC_ENGINE_ELSP, 0);
  mmio_write(mmio + GUC_ENGINE_ELSP, e->context_id);
  mmio_write(mmio + GUC_ENGINE_ELSP, context_desc);
  return SUBMIT_DONE;
}

/* Hands work to idle engines: the highest-priority ready client first, round robin within a priority level; after
 * every submission the search starts again from the top priority. */
static void schedule(void) {
  /* One consistent view of the engines for the whole pass (a completion noticed halfway would let a lower priority
   * in before a higher one already passed over); a completion or reset whose interrupt went elsewhere is found here. */
  for (u32 id = 0; id < GUC_MAX_ENGINES_NUM; ++id) {
    if (engines[id].csb_read < GUC_CSB_ENTRIES) sync_engine(id);
  }
  for (;;) {
    int submitted = 0;
    for (u32 prio = 0; prio < GUC_CLIENT_PRIORITY_NUM && !submitted; ++prio) {
      for (u32 i = 0; i < GUC_NUM_DOORBELLS;) {
        const u32 db = (next_client[prio] + i) % GUC_NUM_DOORBELLS;
        const u32 later = client_ready[db / 32] >> (db % 32); /* this doorbell and the rest of its word */
        if (!later) {
          i += 32 - db % 32;
          continue;
        }
        if (!(later & 1u)) {
          i += (u32)__builtin_ctz(later);
          continue;
        }
        ++i;
        if (client_priority[db] != prio) continue;
        const enum submit_result r = submit_next(db);
        if (r == SUBMIT_NOTHING) set_ready(db, 0);
        if (r == SUBMIT_DONE) {
          next_client[prio] = (db + 1) % GUC_NUM_DOORBELLS;
          submitted = 1;
          break;
        }
      }
    }
    if (!submitted) return;
  }
}

static int e_busy_ours(u32 id) { return engines[id].busy && !engines[id].foreign; }

/* Engine events steered to the GuC: context switches complete work and free the engine for the next item. */
void guc_engine_isr(void) {
  flush_events();
  for (;;) {
    u32 events[GUC_IER_COUNT];
    u32 any = 0;
    for (u32 n = 0; n < GUC_IER_COUNT; ++n) {
      events[n] = lapic_read(GUC_LAPIC_ENGINE_IIR(n));
      if (events[n]) lapic_write(GUC_LAPIC_ENGINE_IIR(n), events[n]);
      any |= events[n];
    }
    if (!any) break;
    for (u32 id = 0; id < GUC_MAX_ENGINES_NUM; ++id) {
      const u32 bits = (events[engine_iir_index[id]] >> engine_iir_shift[id]) & 0xFFFFu;
      if ((bits & GUC_ENGINE_CONTEXT_SWITCH) && engines[id].csb_read < GUC_CSB_ENTRIES) sync_engine(id);
      if (bits & GUC_ENGINE_CS_ERROR) {
        /* The engine stopped at a bad command (its error registers say which): the item will not complete, and the
         * engine takes no more work until the host resets it. */
        log_puts(engine_name[id]);
        log_puts(": command streamer error, work held until the engine is reset\n");
        if (e_busy_ours(id)) report(id, GUC_ACTION_WORK_ITEM_FAILED);
        engines[id].busy = 0;
        engines[id].failed = 1;
      }
    }
  }
  schedule();
  lapic_write(GUC_LAPIC_EOI, 0);
}

/* A valid doorbell rang: serve every doorbell the hardware latched. */
void guc_doorbell_isr(void) {
  flush_events();
  for (u32 db = lapic_read(GUC_LAPIC_DOORBELL_PENDING); db != GUC_DOORBELL_NONE;
       db = lapic_read(GUC_LAPIC_DOORBELL_PENDING)) {
    if (db >= GUC_NUM_DOORBELLS) break;
    if (!doorbell_owner[db] || log_wants(GUC_LOG_VERBOSITY_HIGH)) {
      log_puts("doorbell ");
      log_hex(db);
      log_puts(" rang, cookie ");
      log_hex(mmio_read(GUC_REG_DRBREGU(db)));
      if (!doorbell_owner[db]) log_puts(" (not allocated: ignored)");
      log_putc('\n');
    }
    if (doorbell_owner[db] && client_desc[db]) set_ready(db, 1);
  }
  schedule();
  lapic_write(GUC_LAPIC_EOI, 0);
}

static void set_gate(u32 vector, void (*handler)(void)) {
  const u32 target = (u32)handler;
  idt[vector].offset_low = (u16)target;
  idt[vector].selector = 0x08;
  idt[vector].zero = 0;
  idt[vector].type_attr = 0x8E; /* present, ring 0, 32-bit interrupt gate */
  idt[vector].offset_high = (u16)(target >> 16);
}

void guc_main(void) {
  for (char* p = __bss_start; p < __bss_end; ++p) *p = 0;
  set_ukernel_status(GUC_UKERNEL_GDT_DONE);

  set_gate(GUC_VECTOR_HOST2GUC, guc_host2guc_entry);
  set_gate(GUC_VECTOR_DOORBELL, guc_doorbell_entry);
  set_gate(GUC_VECTOR_ENGINE, guc_engine_entry);
  struct idt_pointer idtr = {sizeof(idt) - 1, (u32)idt};
  __asm__ volatile("lidt %0" : : "m"(idtr));
  set_ukernel_status(GUC_UKERNEL_IDT_DONE);

  lapic_write(GUC_LAPIC_EOI, 0);
  set_ukernel_status(GUC_UKERNEL_LAPIC_DONE);

  wopcm_top = lapic_read(GUC_LAPIC_WOPCM_TOP);
  log_setup(scratch(1 + GUC_CTL_LOG_PARAMS), scratch(1 + GUC_CTL_DEBUG));
  engines_present = lapic_read(GUC_LAPIC_ENGINES);
  for (u32 id = 0; id < GUC_MAX_ENGINES_NUM; ++id) engines[id].csb_read = GUC_CSB_ENTRIES;
  log_puts("gpuvp GuC firmware ");
  log_hex((GUC_FIRMWARE_VERSION_MAJOR << 16) | GUC_FIRMWARE_VERSION_MINOR);
  log_puts(" ready\n");
  set_ukernel_status(GUC_UKERNEL_READY);

  for (;;) __asm__ volatile("sti\n\thlt" ::: "memory");
}
