// GuC: the i915 load sequence and every GUC_STATUS field, the boot ROM's failure paths (bad header, wrong size, bad
// signature, DMA out of range), every MMIO mailbox action of the firmware, command transport round trips with fences,
// its log buffer, firmware faults (invalid opcode, access outside the map) and reset + reload. Facts: docs/gen-guc.md
// (i915 intel_guc_reg.h, intel_guc_fw.c, intel_guc_ct.c, abi/guc_errors_abi.h), GuC status 0x800330ED as read by i915
// debugfs i915_guc_load_status on Kaby Lake.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "firmware/guc/guc_abi.h"
#include "firmware/tools/guc_image.h"
#include "platform/platform.h"
#include "tb/host/guc_driver.h"
#include "tb/host/i915_driver.h"
#include "tests/support/sc_test.h"
#include "tlm/core/report.h"
#include "tlm/core/stats.h"

using namespace gpuvp;

namespace {

std::uint32_t bootrom_of(std::uint32_t status) { return (status >> 1) & 0x7F; }
std::uint32_t ukernel_of(std::uint32_t status) { return (status >> 8) & 0xFF; }
std::uint32_t mia_of(std::uint32_t status) { return (status >> 16) & 0x7; }
std::uint32_t auth_of(std::uint32_t status) { return status >> 30; }

class GucTest : public ::testing::Test {
 protected:
  explicit GucTest(const platform::PlatformParams& params = {})
      : soc_("gpuvp", params), port_(soc_.host()), i915_(port_), guc_(i915_) {}
  void TearDown() override {
    for (const auto& f : port_.failures()) ADD_FAILURE() << f;
  }
  gen::Guc& model() { return *soc_.gen()->guc(); }
  static std::vector<std::uint8_t> firmware() { return firmware::read_file(firmware::default_firmware_path()); }
  // A signed image of hand-written x86 code (for fault tests).
  static std::vector<std::uint8_t> image_of(const std::vector<std::uint8_t>& code) {
    return firmware::pack_image(code, firmware::test_key_path(), 0x090100);
  }
  // Expects one boot ROM error report containing text and that the image never ran.
  void expect_rejected(const host::GucDriver::LoadResult& r, std::uint32_t bootrom, const std::string& text) {
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(bootrom_of(r.status), bootrom) << core::format_hex(r.status);
    EXPECT_EQ(ukernel_of(r.status), 0u);
    EXPECT_EQ(mia_of(r.status) & 1, 0u) << "the core must not run";
    EXPECT_EQ(model().instructions(), 0u);
    EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, text).size(), 1u) << text;
  }

  platform::Platform soc_;
  host::BusHostPort port_;
  host::I915Driver i915_;
  host::GucDriver guc_;
};

TEST_F(GucTest, ResetValueSaysInReset) {
  test::run_thread([&] {
    EXPECT_EQ(guc_.status(), GUC_STATUS_MIA_IN_RESET);
    EXPECT_FALSE(model().running());
  });
}

TEST_F(GucTest, LoadSequenceReportsEveryStatusField) {
  test::run_thread([&] {
    const auto image = firmware();
    const auto r = guc_.load(image);
    ASSERT_TRUE(r.ok) << r.error << " " << core::format_hex(r.status);
    // Let the firmware reach its idle HLT.
    port_.wait_for32(i915_.layout().bar + GUC_REG_STATUS, GUC_STATUS_MIA_HALT_REQUESTED, GUC_STATUS_MIA_HALT_REQUESTED,
                     100'000);
    const std::uint32_t s = guc_.status();
    // i915_guc_load_status on Kaby Lake shows 0x800330ED for a loaded GuC idling with uKernel 0x30; ours goes on to
    // READY (0xF0).
    EXPECT_EQ(s & GUC_STATUS_MIA_IN_RESET, 1u);
    EXPECT_EQ(bootrom_of(s), 0x76u);  // JUMP_PASSED
    EXPECT_EQ(ukernel_of(s), 0xF0u);  // READY
    EXPECT_EQ(mia_of(s), 0x3u);       // core state + halted
    EXPECT_EQ(auth_of(s), 2u);        // GOOD
    EXPECT_EQ(s, 0x8003F0EDu);
    // START_DMA cleared by the hardware; the uCode ran.
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DMA_CTRL) & GUC_DMA_START, 0u);
    EXPECT_GT(model().instructions(), 100u);
    EXPECT_TRUE(model().halted());
    EXPECT_NE(guc_.read_log().find("ready"), std::string::npos) << guc_.read_log();
  });
}

void put32(std::vector<std::uint8_t>& bytes, std::size_t offset, std::uint32_t v) {
  std::memcpy(bytes.data() + offset, &v, 4);
}

TEST_F(GucTest, HeaderDefinitionMismatchIsRejected) {
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    // header_size_dw one dword larger: header - key - modulus - exponent is no longer the 128-byte CSS header.
    options.corrupt = [](std::vector<std::uint8_t>& b) { put32(b, 0x04, 32 + 64 + 64 + 1 + 1); };
    expect_rejected(guc_.load(firmware(), options), GUC_BOOTROM_LOADLOC_FAILED, "CSS header definition mismatch");
  });
}

TEST_F(GucTest, WrongKeySizeFindsNoKey) {
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    options.corrupt = [](std::vector<std::uint8_t>& b) { put32(b, 0x1C, 32); };  // key_size_dw
    expect_rejected(guc_.load(firmware(), options), GUC_BOOTROM_NO_KEY_FOUND, "key size 32");
  });
}

TEST_F(GucTest, CopySizeDisagreeingWithTheHeaderIsRejected) {
  test::run_thread([&] {
    const auto image = firmware();
    host::GucDriver::LoadOptions options;
    firmware::ImageLayout layout;
    ASSERT_EQ(firmware::check_image(image, layout), "");
    options.copy_size = static_cast<std::uint32_t>(128 + layout.ucode_size - 4);
    expect_rejected(guc_.load(image, options), GUC_BOOTROM_LOADLOC_FAILED, "DMA_COPY_SIZE is");
  });
}

TEST_F(GucTest, BadSignatureFailsRsaAndAuth) {
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    options.corrupt = [](std::vector<std::uint8_t>& b) { b[0x100] ^= 0x01; };  // one uCode bit
    const auto r = guc_.load(firmware(), options);
    expect_rejected(r, GUC_BOOTROM_RSA_FAILED, "signature");
    EXPECT_EQ(auth_of(r.status), 1u);  // BAD
  });
}

TEST_F(GucTest, ImageSignedWithAnotherKeyFailsRsa) {
  test::run_thread([&] {
    auto image = firmware();
    firmware::ImageLayout layout;
    ASSERT_EQ(firmware::check_image(image, layout), "");
    image[layout.rsa_offset + 17] ^= 0x80;  // the signature itself
    expect_rejected(guc_.load(image), GUC_BOOTROM_RSA_FAILED, "signature");
  });
}

TEST_F(GucTest, DmaBeyondWopcmFails) {
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    options.wopcm_size = 0x2000;  // nothing fits above the load address
    expect_rejected(guc_.load(firmware(), options), GUC_BOOTROM_WOPCM_FAILED, "does not fit");
  });
}

TEST_F(GucTest, DmaFromUnmappedGraphicsMemoryFails) {
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    options.source = 0x3000'0000;  // no GGTT entry there
    expect_rejected(guc_.load(firmware(), options), GUC_BOOTROM_LOADLOC_FAILED, "not mapped in the GGTT");
    EXPECT_EQ(test::take_reports(sc_core::SC_WARNING).size(), 1u);  // the GTT's fault report
  });
}

TEST_F(GucTest, DmaFromBelowWopcmTopFails) {
  test::run_thread([&] {
    host::GucDriver::LoadOptions options;
    options.source = 0x4000;  // i915: the GuC cannot reach GGTT addresses below WOPCM_TOP
    expect_rejected(guc_.load(firmware(), options), GUC_BOOTROM_LOADLOC_FAILED, "outside the GuC's GGTT range");
  });
}

class GucMailboxTest : public GucTest {
 protected:
  explicit GucMailboxTest(const platform::PlatformParams& params = {}) : GucTest(params) {}
  void boot() {
    const auto r = guc_.load(firmware());
    ASSERT_TRUE(r.ok) << r.error;
  }
};

TEST_F(GucMailboxTest, SampleForcewake) {
  test::run_thread([&] {
    boot();
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0x3}), GUC_REPLY_SUCCESS);
    EXPECT_NE(guc_.read_log().find("forcewake policy 0x00000003"), std::string::npos) << guc_.read_log();
  });
}

TEST_F(GucMailboxTest, AllocateAndDeallocateDoorbell) {
  test::run_thread([&] {
    boot();
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DRBREGL(5)) & GUC_DRB_VALID, 0u);
    EXPECT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 3, 5}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DRBREGL(5)) & GUC_DRB_VALID, 1u);
    EXPECT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 4, 5}), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);      // taken
    EXPECT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 4, 256}), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);    // no such
    EXPECT_EQ(guc_.send({GUC_ACTION_DEALLOCATE_DOORBELL, 4, 5}), GUC_REPLY_DEALLOCATE_DOORBELL_FAIL);  // not owner
    EXPECT_EQ(guc_.send({GUC_ACTION_DEALLOCATE_DOORBELL, 3, 5}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DRBREGL(5)) & GUC_DRB_VALID, 0u);
    EXPECT_EQ(guc_.send({GUC_ACTION_DEALLOCATE_DOORBELL, 3, 5}), GUC_REPLY_DEALLOCATE_DOORBELL_FAIL);  // already
  });
}

TEST_F(GucMailboxTest, RingingAValidDoorbellInterruptsTheFirmware) {
  test::run_thread([&] {
    boot();
    ASSERT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 3, 5}), GUC_REPLY_SUCCESS);
    const std::uint64_t interrupts = core::stats().counter_value("gpuvp.gen.guc.interrupts");
    guc_.ring_doorbell(5, 0x1234);
    sc_core::wait(20, sc_core::SC_US);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.doorbell_rings"), 1u);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.interrupts"), interrupts + 1);
    EXPECT_NE(guc_.read_log().find("doorbell 0x00000005 rang, cookie 0x00001234\n"), std::string::npos)
        << guc_.read_log();
    // Two rings in the same instant are one interrupt serving both doorbells, the lowest first. (Two host writes are
    // a bus access apart, time enough for the firmware to serve the first: the test writes the register bank
    // directly, as two doorbell snoops in one cycle.)
    ASSERT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 4, 9}), GUC_REPLY_SUCCESS);
    const auto ring_now = [&](std::uint32_t doorbell, std::uint32_t cookie) {
      unsigned char bytes[4];
      std::memcpy(bytes, &cookie, 4);
      ASSERT_TRUE(soc_.gen()->regs().write(GUC_REG_DRBREGU(doorbell), bytes, 4));
    };
    ring_now(9, 7);
    ring_now(5, 8);
    sc_core::wait(20, sc_core::SC_US);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.doorbell_rings"), 3u);
    const std::string log = guc_.read_log();
    const auto five = log.find("doorbell 0x00000005 rang, cookie 0x00000008\n");
    const auto nine = log.find("doorbell 0x00000009 rang, cookie 0x00000007\n");
    ASSERT_NE(five, std::string::npos) << log;
    ASSERT_NE(nine, std::string::npos) << log;
    EXPECT_LT(five, nine) << "the firmware reads the lowest rung doorbell first";
  });
}

TEST_F(GucMailboxTest, RingingADoorbellThatIsNotValidIsDropped) {
  test::run_thread([&] {
    boot();
    const std::uint64_t interrupts = core::stats().counter_value("gpuvp.gen.guc.interrupts");
    guc_.ring_doorbell(6, 1);
    sc_core::wait(20, sc_core::SC_US);
    EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "doorbell 6 rang while DRBREGL valid is clear").size(), 1u);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.doorbell_rings"), 0u);
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.interrupts"), interrupts);
    EXPECT_EQ(guc_.read_log().find("rang"), std::string::npos) << guc_.read_log();
  });
}

TEST_F(GucMailboxTest, EnterAndExitSleepState) {
  test::run_thread([&] {
    boot();
    const auto shared = i915_.alloc(4096);
    i915_.fill(shared, 0);
    EXPECT_EQ(guc_.send({GUC_ACTION_EXIT_S_STATE, 1, static_cast<std::uint32_t>(shared.gfx)}),
              GUC_REPLY_GENERIC_FAIL);  // not asleep
    EXPECT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, static_cast<std::uint32_t>(shared.gfx)}), GUC_REPLY_SUCCESS);
    // The firmware wrote its suspend record into the host's page through the GGTT.
    EXPECT_EQ(port_.read32(shared.phys), 0x50454C53u);
    EXPECT_EQ(port_.read32(shared.phys + 4), 2u);
    EXPECT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, static_cast<std::uint32_t>(shared.gfx)}),
              GUC_REPLY_GENERIC_FAIL);  // already asleep
    EXPECT_EQ(guc_.send({GUC_ACTION_EXIT_S_STATE, 1, static_cast<std::uint32_t>(shared.gfx)}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(port_.read32(shared.phys), 0u);
  });
}

TEST_F(GucMailboxTest, CommandTransportRoundTripsWithFences) {
  test::run_thread([&] {
    boot();
    ASSERT_TRUE(guc_.ct_enable());
    EXPECT_NE(guc_.read_log().find("CT send buffer"), std::string::npos);
    // Requests through the send buffer: the GuC writes each fence and status to the descriptor.
    EXPECT_EQ(guc_.ct_send({GUC_ACTION_SAMPLE_FORCEWAKE, 3}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(port_.read32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_FENCE), 1u);
    EXPECT_EQ(guc_.ct_send({GUC_ACTION_ALLOCATE_DOORBELL, 7, 9}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DRBREGL(9)) & GUC_DRB_VALID, 1u);
    EXPECT_EQ(guc_.ct_send({GUC_ACTION_ALLOCATE_DOORBELL, 7, 9}), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);
    EXPECT_EQ(port_.read32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_FENCE), 3u);
    // The GuC consumed everything: head caught up with tail.
    EXPECT_EQ(port_.read32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_HEAD),
              port_.read32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_TAIL));
    // SEND_STATUS: the status also comes back as a GuC-to-host response message with the GuC-to-host interrupt.
    EXPECT_FALSE(guc_.interrupt_pending());
    EXPECT_EQ(guc_.ct_send({GUC_ACTION_DEALLOCATE_DOORBELL, 7, 9}, true), GUC_REPLY_SUCCESS);
    // The response follows the descriptor update: wait for it in the receive buffer, as i915 waits for a response.
    EXPECT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_TAIL, 12, ~0u, 50'000));
    EXPECT_TRUE(guc_.wait_for_interrupt(1'000));
    const auto messages = guc_.ct_receive();
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0].header, 2u | GUC_CT_MSG_IS_RESPONSE | GUC_ACTION_DEALLOCATE_DOORBELL << 16);
    EXPECT_EQ(messages[0].data, (std::vector<std::uint32_t>{4u, GUC_REPLY_SUCCESS}));
    guc_.ack_interrupt();
    EXPECT_FALSE(guc_.interrupt_pending());
    EXPECT_TRUE(guc_.ct_receive().empty());
    // The mailbox still works next to the channel.
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}), GUC_REPLY_SUCCESS);
  });
}

TEST_F(GucMailboxTest, CommandTransportRegistrationChecksItsArguments) {
  test::run_thread([&] {
    boot();
    const auto page = i915_.alloc(4096);
    i915_.fill(page, 0);  // buffer size 0
    EXPECT_EQ(guc_.send({GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER, static_cast<std::uint32_t>(page.gfx), 64, 0}),
              GUC_REPLY_GENERIC_FAIL);
    EXPECT_EQ(guc_.send({GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER, static_cast<std::uint32_t>(page.gfx), 32, 0}),
              GUC_REPLY_GENERIC_FAIL);  // descriptor size
    EXPECT_EQ(guc_.send({GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER, static_cast<std::uint32_t>(page.gfx), 64, 2}),
              GUC_REPLY_GENERIC_FAIL);  // type
    EXPECT_EQ(guc_.send({GUC_ACTION_DEREGISTER_COMMAND_TRANSPORT_BUFFER, 0, 0}), GUC_REPLY_GENERIC_FAIL);
    ASSERT_TRUE(guc_.ct_enable());
    EXPECT_EQ(guc_.send({GUC_ACTION_DEREGISTER_COMMAND_TRANSPORT_BUFFER, 0, GUC_CTB_TYPE_SEND}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(guc_.ct_send({GUC_ACTION_SAMPLE_FORCEWAKE, 3}, false, 20'000), 0u);  // nobody reads it any more
  });
}

TEST_F(GucMailboxTest, MalformedCommandTransportMessageSetsTheErrorFlag) {
  test::run_thread([&] {
    boot();
    ASSERT_TRUE(guc_.ct_enable());
    guc_.ct_send_raw({GUC_ACTION_SAMPLE_FORCEWAKE << 16 | GUC_CT_MSG_WRITE_FENCE_TO_DESC | 0 /* no fence */});
    port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_IS_IN_ERROR, 1, ~0u, 50'000);
    EXPECT_EQ(port_.read32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_IS_IN_ERROR), 1u);
    // The firmware survives and still answers the mailbox (once the handler that found the error has returned: the
    // next interrupt is taken only after its EOI, so the log line below is complete).
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}), GUC_REPLY_SUCCESS);
    EXPECT_NE(guc_.read_log().find("CT error: message length\n"), std::string::npos) << guc_.read_log();
  });
}

TEST_F(GucMailboxTest, UnknownActionFails) {
  test::run_thread([&] {
    boot();
    EXPECT_EQ(guc_.send({0x1234}), GUC_REPLY_GENERIC_FAIL);
    EXPECT_NE(guc_.read_log().find("unknown action 0x00001234"), std::string::npos);
  });
}

TEST_F(GucMailboxTest, LogFlushRaisesTheHostInterrupt) {
  test::run_thread([&] {
    boot();
    // The driver enabled GUC_INTR_GUC2HOST in GEN8_GT_IER/IMR(2) and GEN8_MASTER_IRQ before loading.
    core::InterruptLine& irq = soc_.gen()->irq();
    EXPECT_FALSE(irq.level());
    EXPECT_EQ(guc_.log_flush_count(), 0u);
    EXPECT_EQ(guc_.send({GUC_ACTION_FORCE_LOG_BUFFER_FLUSH}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(guc_.log_flush_count(), 1u);
    EXPECT_EQ(guc_.scratch(15), GUC_EVENT_FLUSH_LOG_BUFFER);
    // GEN8_GT_IIR(2) bit 31 (GUC_INTR_GUC2HOST << 16) and GEN8_MASTER_IRQ bit 5 (GEN8_GT_GUC_IRQ) drive the line.
    EXPECT_TRUE(irq.level());
    EXPECT_EQ(i915_.mmio_read(0x44328), 1u << 31);
    EXPECT_EQ(i915_.mmio_read(0x44200), 1u << 31 | 1u << 5);
    // i915's handler: clear IIR, then read and acknowledge SOFT_SCRATCH(15).
    guc_.ack_interrupt();
    EXPECT_FALSE(irq.level());
    guc_.ack_events(GUC_EVENT_FLUSH_LOG_BUFFER);
    EXPECT_EQ(guc_.scratch(15), 0u);
    EXPECT_FALSE(guc_.interrupt_pending());
    EXPECT_EQ(guc_.send({GUC_ACTION_LOG_BUFFER_FILE_FLUSH_COMPLETE}), GUC_REPLY_SUCCESS);
  });
}

// ---- Addresses the host gives (issue 23) ----
// Below the WOPCM top the GuC's addresses are its own SRAM (i915 intel_guc_ggtt_offset asserts that a GGTT offset
// handed to the GuC is not below GUC_WOPCM_TOP); from GUC_GGTT_TOP up its local and register windows. The firmware
// refuses an address there in its reply and its log, and writes nothing through it.
constexpr std::uint32_t kWopcmTop = 0x80000;  // the driver's GUC_WOPCM_SIZE (i915 GUC_WOPCM_SIZE_VALUE)

class GucHostAddressTest : public GucMailboxTest {
 protected:
  explicit GucHostAddressTest(const platform::PlatformParams& params = {}) : GucMailboxTest(params) {}
  // Boots and keeps a copy of the loaded image (CSS header and uCode) as WOPCM holds it.
  void boot_and_keep_image() {
    boot();
    loaded_ = loaded_image();
  }
  std::vector<std::uint8_t> loaded_image() {
    firmware::ImageLayout layout;
    const auto image = firmware();
    EXPECT_EQ(firmware::check_image(image, layout), "");
    const auto begin = model().wopcm().begin() + GUC_WOPCM_LOAD_ADDRESS;
    return {begin, begin + static_cast<std::ptrdiff_t>(layout.ucode_offset + layout.ucode_size)};
  }
  // The firmware's code and data are as loaded, it took no fault and still answers the mailbox.
  void expect_intact() {
    EXPECT_TRUE(loaded_image() == loaded_) << "the loaded image in WOPCM changed";
    EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.faults"), 0u);
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 1}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(ukernel_of(guc_.status()), GUC_UKERNEL_READY);
  }
  void expect_logged(const std::string& line) {
    const std::string log = guc_.read_log();
    EXPECT_NE(log.find(line + "\n"), std::string::npos) << line << "\nnot in the log:\n" << log;
  }
  std::vector<std::uint8_t> loaded_;
};

// The reproducer: ENTER_S_STATE with the shared page on the firmware's own code overwrote it (the next
// request faulted). Now refused, and so are a page straddling the WOPCM top, one past the GGTT top (on the GuC's
// register window), a misaligned one, and EXIT_S_STATE with such a page.
TEST_F(GucHostAddressTest, SleepStateSharedPageInsideWopcmOrPastTheGgttTopIsRefused) {
  test::run_thread([&] {
    boot_and_keep_image();
    for (const std::uint32_t shared : {GUC_UCODE_ENTRY, 0x1000u, kWopcmTop - 16, kWopcmTop - 8}) {
      EXPECT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, shared}), GUC_REPLY_GENERIC_FAIL) << core::format_hex(shared);
    }
    expect_logged("S state shared page 0x00002080 refused: inside WOPCM (the GuC's own memory)");
    expect_logged("S state shared page 0x0007fff8 refused: inside WOPCM (the GuC's own memory)");
    for (const std::uint32_t shared : {GUC_GGTT_TOP - 8, GUC_MMIO_BASE + GUC_REG_SOFT_SCRATCH(0), 0xFFFFFFF0u}) {
      EXPECT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, shared}), GUC_REPLY_GENERIC_FAIL) << core::format_hex(shared);
    }
    expect_logged("S state shared page 0xfedffff8 refused: past the GGTT top");
    expect_logged("S state shared page 0xff00c180 refused: past the GGTT top");
    const auto page = i915_.alloc(4096);
    i915_.fill(page, 0);
    const auto gfx = static_cast<std::uint32_t>(page.gfx);
    EXPECT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, gfx + 2}), GUC_REPLY_GENERIC_FAIL);
    expect_logged("S state shared page " + core::format_hex(gfx + 2, 8) + " refused: not dword aligned");
    EXPECT_EQ(port_.read32(page.phys), 0u);
    expect_intact();
    // A good page is still accepted; EXIT_S_STATE checks its page the same way.
    ASSERT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, gfx}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(guc_.send({GUC_ACTION_EXIT_S_STATE, 1, GUC_UCODE_ENTRY}), GUC_REPLY_GENERIC_FAIL);
    EXPECT_EQ(guc_.send({GUC_ACTION_EXIT_S_STATE, 1, GUC_GGTT_TOP}), GUC_REPLY_GENERIC_FAIL);
    EXPECT_EQ(guc_.send({GUC_ACTION_EXIT_S_STATE, 1, gfx}), GUC_REPLY_SUCCESS);
    expect_intact();
  });
}

TEST_F(GucHostAddressTest, CommandTransportInsideWopcmOrPastTheGgttTopIsRefused) {
  test::run_thread([&] {
    boot_and_keep_image();
    const auto do_register = [&](std::uint32_t desc) {
      return guc_.send({GUC_ACTION_REGISTER_COMMAND_TRANSPORT_BUFFER, desc, GUC_CTB_DESC_BYTES, GUC_CTB_TYPE_RECV});
    };
    // The descriptor itself: inside WOPCM, straddling its top, reaching past the GGTT top, on the local registers.
    for (const std::uint32_t desc : {0x3000u, kWopcmTop - 32, GUC_GGTT_TOP - 32, GUC_LAPIC_BASE}) {
      EXPECT_EQ(do_register(desc), GUC_REPLY_GENERIC_FAIL) << core::format_hex(desc);
    }
    expect_logged("CT descriptor 0x00003000 refused: inside WOPCM (the GuC's own memory)");
    expect_logged("CT descriptor 0x0007ffe0 refused: inside WOPCM (the GuC's own memory)");
    expect_logged("CT descriptor 0xfedfffe0 refused: past the GGTT top");
    expect_logged("CT descriptor 0xfee00000 refused: past the GGTT top");
    // A descriptor in graphics memory naming a buffer inside WOPCM, or one that runs past the GGTT top.
    const auto page = i915_.alloc(4096);
    i915_.fill(page, 0);
    port_.write32(page.phys + GUC_CTB_DESC_SIZE, 1024);
    port_.write32(page.phys + GUC_CTB_DESC_ADDR, GUC_WOPCM_LOAD_ADDRESS);
    EXPECT_EQ(do_register(static_cast<std::uint32_t>(page.gfx)), GUC_REPLY_GENERIC_FAIL);
    expect_logged("CT buffer 0x00002000 refused: inside WOPCM (the GuC's own memory)");
    port_.write32(page.phys + GUC_CTB_DESC_ADDR, GUC_GGTT_TOP - 512);
    EXPECT_EQ(do_register(static_cast<std::uint32_t>(page.gfx)), GUC_REPLY_GENERIC_FAIL);
    expect_logged("CT buffer 0xfedffe00 refused: past the GGTT top");
    expect_intact();

    // Registered channels whose descriptors the host later points into WOPCM: the firmware checks the buffer at every
    // use, flags the channel in error and writes nothing there.
    ASSERT_TRUE(guc_.ct_enable());
    port_.write32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_ADDR, GUC_WOPCM_LOAD_ADDRESS);
    EXPECT_EQ(guc_.ct_send({GUC_ACTION_SAMPLE_FORCEWAKE, 2}, /*g2h_status=*/true), GUC_REPLY_SUCCESS);
    EXPECT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_RECV) + GUC_CTB_DESC_IS_IN_ERROR, 1, ~0u, 50'000));
    port_.write32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_ADDR, GUC_UCODE_ENTRY);
    guc_.ct_send_raw({GUC_ACTION_SAMPLE_FORCEWAKE << 16 | 1, 99});
    EXPECT_TRUE(port_.wait_for32(guc_.ct_descriptor(GUC_CTB_TYPE_SEND) + GUC_CTB_DESC_IS_IN_ERROR, 1, ~0u, 50'000));
    expect_intact();
    expect_logged("CT error: receive buffer moved inside WOPCM or past the GGTT top");
    expect_logged("CT error: send buffer moved inside WOPCM or past the GGTT top");
  });
}

TEST_F(GucHostAddressTest, ProcessDescriptorWorkQueueAndContextInsideWopcmAreRefused) {
  test::run_thread([&] {
    boot_and_keep_image();
    EXPECT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 1, 2, 0x4000}), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);
    expect_logged("process descriptor 0x00004000 refused: inside WOPCM (the GuC's own memory)");
    EXPECT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 1, 2, GUC_GGTT_TOP - 16}), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);
    expect_logged("process descriptor 0xfedffff0 refused: past the GGTT top");
    EXPECT_EQ(i915_.mmio_read(GUC_REG_DRBREGL(2)) & GUC_DRB_VALID, 0u);

    // A client whose work queue the host moves into WOPCM: a work-queue error, nothing written.
    host::GucDriver::Client moved;
    ASSERT_EQ(guc_.create_client(moved, 1, 2), GUC_REPLY_SUCCESS);
    port_.write64(moved.desc() + GUC_PD_WQ_BASE, 0x3000);
    const std::uint32_t in_order = GUC_WQ_TYPE_INORDER | (GUC_WQ_ITEM_BYTES / 4 - 1) << GUC_WQ_LEN_SHIFT;
    ASSERT_TRUE(guc_.submit_raw(moved, {in_order, 0x3000u | GUC_LRC_DESC_VALID, 0, 1}));
    EXPECT_TRUE(port_.wait_for32(moved.desc() + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_CMD_ERROR, ~0u, 50'000));
    expect_logged("work queue error: work queue geometry, tail 0x00000010 at offset 0x00000000");

    // A work item whose context (LRCA) lies in WOPCM: the firmware would write the ring tail into its own memory.
    host::GucDriver::Client client;
    ASSERT_EQ(guc_.create_client(client, 3, 4), GUC_REPLY_SUCCESS);
    const std::uint32_t context_desc =
        0x3000u | GUC_LRC_DESC_VALID | GUC_LRC_DESC_PRIVILEGE | GUC_LRC_LEGACY_64B << GUC_LRC_DESC_ADDRESSING_SHIFT;
    ASSERT_TRUE(guc_.submit_raw(client, {in_order | GUC_RENDER_ENGINE << GUC_WQ_TARGET_SHIFT, context_desc, 0, 1}));
    EXPECT_TRUE(port_.wait_for32(client.desc() + GUC_PD_WQ_STATUS, GUC_WQ_STATUS_CMD_ERROR, ~0u, 50'000));
    expect_logged("work queue error: bad context descriptor " + core::format_hex(context_desc, 8) +
                  " at offset 0x00000000");
    expect_intact();
  });
}

// A log buffer the firmware may not write: it runs without a log (the flush request answers the failure) and WOPCM
// keeps the image as loaded.
TEST_F(GucHostAddressTest, LogBufferInsideWopcmOrPastTheGgttTopIsRefused) {
  test::run_thread([&] {
    for (const std::uint32_t base : {0x3000u, GUC_GGTT_TOP - 0x1000}) {
      SCOPED_TRACE(core::format_hex(base, 8));
      host::GucDriver::LoadOptions options;
      options.log_params = base | 3u << GUC_LOG_PAGES_SHIFT | GUC_LOG_VALID;  // 4 pages
      ASSERT_TRUE(guc_.load(firmware(), options).ok);
      loaded_ = loaded_image();
      EXPECT_EQ(guc_.send({GUC_ACTION_FORCE_LOG_BUFFER_FLUSH}), GUC_REPLY_GENERIC_FAIL);
      EXPECT_EQ(guc_.read_log(), "");  // the driver's own buffer was not named: untouched
      EXPECT_TRUE(loaded_image() == loaded_);
      EXPECT_EQ(core::stats().counter_value("gpuvp.gen.guc.faults"), 0u);
      EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 1}), GUC_REPLY_SUCCESS);
      ASSERT_TRUE(guc_.reset());
    }
  });
}

// The boundary: with a 1 MiB WOPCM the driver's first graphics buffer sits exactly at the WOPCM top. The firmware
// takes the top from the size it was loaded with (not a constant): the page at the top is accepted, the dwords just
// below it are refused.
platform::PlatformParams with_wopcm_1mib() {
  platform::PlatformParams p;
  p.gen.gpu.guc.wopcm_size = 0x100000;
  return p;
}

class GucWopcmTopTest : public GucHostAddressTest {
 protected:
  GucWopcmTopTest() : GucHostAddressTest(with_wopcm_1mib()) {}
};

TEST_F(GucWopcmTopTest, AnAddressAtTheWopcmTopIsAcceptedAndOneBelowRefused) {
  test::run_thread([&] {
    constexpr std::uint32_t kTop = 0x100000;
    const auto at_top = i915_.alloc(4096);
    ASSERT_EQ(at_top.gfx, kTop);
    i915_.fill(at_top, 0);
    host::GucDriver::LoadOptions options;
    options.wopcm_size = kTop;
    ASSERT_TRUE(guc_.load(firmware(), options).ok);
    loaded_ = loaded_image();
    EXPECT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, kTop - 4}), GUC_REPLY_GENERIC_FAIL);
    expect_logged("S state shared page 0x000ffffc refused: inside WOPCM (the GuC's own memory)");
    EXPECT_EQ(guc_.send({GUC_ACTION_ALLOCATE_DOORBELL, 1, 2, kTop - GUC_PD_BYTES}), GUC_REPLY_ALLOCATE_DOORBELL_FAIL);
    // 512 KiB (the default top) is WOPCM here too.
    EXPECT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, kWopcmTop}), GUC_REPLY_GENERIC_FAIL);
    ASSERT_EQ(guc_.send({GUC_ACTION_ENTER_S_STATE, 2, kTop}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(port_.read32(at_top.phys), 0x50454C53u);  // the suspend record, "SLEP"
    EXPECT_EQ(guc_.send({GUC_ACTION_EXIT_S_STATE, 1, kTop}), GUC_REPLY_SUCCESS);
    EXPECT_EQ(port_.read32(at_top.phys), 0u);
    expect_intact();
  });
}

TEST_F(GucTest, InvalidOpcodeStopsTheCoreWithAnException) {
  test::run_thread([&] {
    // nop; nop; ud2
    const auto r = guc_.load(image_of({0x90, 0x90, 0x0F, 0x0B}));
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(bootrom_of(r.status), 0x76u);
    EXPECT_EQ(ukernel_of(r.status), GUC_UKERNEL_EXCEPTION);
    EXPECT_EQ(mia_of(r.status), 0u);
    EXPECT_EQ(guc_.scratch(GUC_SCRATCH_EXCEPTION_EIP), GUC_UCODE_ENTRY + 2);
    EXPECT_EQ(guc_.scratch(15) & GUC_EVENT_CRASH_DUMP_POSTED, GUC_EVENT_CRASH_DUMP_POSTED);
    EXPECT_TRUE(guc_.interrupt_pending());
    const auto reports = test::take_reports(sc_core::SC_ERROR, "firmware fault");
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].message.find("ud2"), std::string::npos) << reports[0].message;
    EXPECT_NE(reports[0].message.find("EIP    0x00002082"), std::string::npos) << reports[0].message;
  });
}

TEST_F(GucTest, AccessOutsideTheMapIsAFault) {
  test::run_thread([&] {
    // mov eax, [0xFEF00000] (between the local registers and the register window)
    const auto r = guc_.load(image_of({0xA1, 0x00, 0x00, 0xF0, 0xFE, 0xF4}));
    EXPECT_EQ(ukernel_of(r.status), GUC_UKERNEL_EXCEPTION);
    const auto reports = test::take_reports(sc_core::SC_ERROR, "outside the GuC memory map");
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].message.find("0xfef00000"), std::string::npos) << reports[0].message;
  });
}

TEST_F(GucTest, InterruptWithoutAnIdtIsATripleFault) {
  test::run_thread([&] {
    // sti; hlt; jmp $-3 : interrupts on but no IDT loaded (limit 0)
    const auto r = guc_.load(image_of({0xFB, 0xF4, 0xEB, 0xFC}), {});
    (void)r;
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}, 20'000), 0u);  // no answer
    EXPECT_EQ(ukernel_of(guc_.status()), GUC_UKERNEL_EXCEPTION);
    EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "triple fault").size(), 1u);
  });
}

TEST_F(GucTest, HaltWithInterruptsOffStaysHaltedWithoutStallingTheSimulation) {
  test::run_thread([&] {
    // cli; hlt; jmp $-3 : a pending host interrupt can never be taken. The core stays halted (as an x86 does) while
    // simulated time goes on for everyone else; a reset brings it back.
    guc_.load(image_of({0xFA, 0xF4, 0xEB, 0xFD}), {});
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}, 20'000), 0u);  // no answer, and the call returns
    EXPECT_EQ(model().instructions(), 2u);                               // cli, hlt
    ASSERT_TRUE(guc_.reset());
    ASSERT_TRUE(guc_.load(firmware()).ok);
  });
}

TEST_F(GucTest, FirmwareJumpingToAddressZeroKeepsExecuting) {
  test::run_thread([&] {
    // xor eax, eax; jmp eax : WOPCM address 0 is mapped memory; the core runs on from there (it used to be
    // Unicorn's stop address, which stalled the core at EIP 0 without executing): through the zeroed WOPCM (4096
    // two-byte "add [eax], al") into the CSS header at 0x2000, whose bytes end in a modelled fault.
    guc_.load(image_of({0x31, 0xC0, 0xFF, 0xE0}), {});
    guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}, 20'000);
    EXPECT_GT(model().instructions(), 4096u);
    EXPECT_EQ(ukernel_of(guc_.status()), GUC_UKERNEL_EXCEPTION);
    EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "firmware fault").size(), 1u);
    test::take_reports(sc_core::SC_WARNING, "translation fault");
    ASSERT_TRUE(guc_.reset());
  });
}

platform::PlatformParams short_guc_watchdog() {
  platform::PlatformParams p;
  p.gen.gpu.guc.hang_timeout_ns = 1'000'000;  // 1 ms
  return p;
}

class GucWatchdogTest : public GucTest {
 protected:
  GucWatchdogTest() : GucTest(short_guc_watchdog()) {}
};

// Our firmware halts whenever it has nothing to do: a core that runs on without HLT for gen.guc.hang_timeout_ns
// spins forever, and the watchdog stops it as it stops a faulting core (uKernel exception, crash event, report).
TEST_F(GucWatchdogTest, ACoreSpinningWithoutHaltingIsStoppedAtTheHangTimeout) {
  test::run_thread([&] {
    guc_.load(image_of({0xEB, 0xFE}), {});                                  // jmp $
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}, 2'000'000), 0u);  // no answer
    EXPECT_EQ(ukernel_of(guc_.status()), GUC_UKERNEL_EXCEPTION);
    EXPECT_EQ(mia_of(guc_.status()), 0u);
    EXPECT_EQ(guc_.scratch(GUC_SCRATCH_EXCEPTION_EIP), GUC_UCODE_ENTRY);
    EXPECT_EQ(guc_.scratch(15) & GUC_EVENT_CRASH_DUMP_POSTED, GUC_EVENT_CRASH_DUMP_POSTED);
    // 1 ms at 400 MHz and one cycle an instruction is 400,000 jumps; the watchdog expires at the next one.
    EXPECT_EQ(model().instructions(), 400'001u);
    const auto reports = test::take_reports(
        sc_core::SC_ERROR,
        "firmware fault: hung: the core ran 1000000 ns without halting (the GuC watchdog, gen.guc.hang_timeout_ns)");
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].message.find("jmp"), std::string::npos) << reports[0].message;
    ASSERT_TRUE(guc_.reset());
    ASSERT_TRUE(guc_.load(firmware()).ok);
  });
}

// Firmware polling a GPU register the model does not have, forever: ten warnings and a notice are shown, the rest
// only counted, until the watchdog stops the core.
TEST_F(GucWatchdogTest, FirmwarePollingAnUnmappedRegisterGivesBoundedWarningsThenTheWatchdog) {
  test::run_thread([&] {
    guc_.load(image_of({0xA1, 0x00, 0xB0, 0x00, 0xFF, 0xEB, 0xF9}), {});  // mov eax, [0xFF00B000]; jmp back
    guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 0}, 2'000'000);
    EXPECT_EQ(ukernel_of(guc_.status()), GUC_UKERNEL_EXCEPTION);
  });
  EXPECT_EQ(test::take_reports(sc_core::SC_WARNING, "unmapped register offset 0xb000").size(),
            core::kDefaultGuestReportLimit + 1);
  EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "firmware fault: hung: the core ran 1000000 ns").size(), 1u);
  EXPECT_GT(core::suppressed_guest_reports(sc_core::SC_WARNING), 1000u);
  EXPECT_EQ(core::stats().counter_value("gpuvp.reports.guest_suppressed"),
            core::suppressed_guest_reports(sc_core::SC_WARNING));
}

TEST_F(GucTest, FirmwareResettingItselfIsSafe) {
  test::run_thread([&] {
    // mov dword [0xFF00941C], 0x20 (GDRST GuC domain through the register window); hlt
    const auto r = guc_.load(image_of({0xC7, 0x05, 0x1C, 0x94, 0x00, 0xFF, 0x20, 0x00, 0x00, 0x00, 0xF4}));
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(guc_.status(), GUC_STATUS_MIA_IN_RESET);
    EXPECT_FALSE(model().running());
    EXPECT_EQ(model().instructions(), 1u);
    ASSERT_TRUE(guc_.load(firmware()).ok);
  });
}

TEST_F(GucTest, ResetAndReloadAfterAFault) {
  test::run_thread([&] {
    guc_.load(image_of({0x0F, 0x0B}));
    EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "firmware fault").size(), 1u);
    ASSERT_TRUE(guc_.reset());
    EXPECT_EQ(guc_.status(), GUC_STATUS_MIA_IN_RESET);
    // The crash interrupt stays latched in GEN8_GT_IIR(2) until the host clears it; a reset posts no new event.
    EXPECT_TRUE(guc_.interrupt_pending());
    guc_.ack_interrupt();
    EXPECT_FALSE(guc_.interrupt_pending());
    const auto r = guc_.load(firmware());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 1}), GUC_REPLY_SUCCESS);
  });
}

// A reset reuses the core Unicorn built for the first boot (building one costs milliseconds), so the next boot must
// see exactly what a new core shows: the x86 reset state, whatever the previous image left in the registers, and the
// new image's code rather than blocks translated from the old one at the same addresses.
TEST_F(GucTest, ResetThenBootAgainStartsFromTheResetStateAndRunsTheNewImage) {
  // B reports its reset state in SOFT_SCRATCH(1..5) and halts: EAX, EBX, ESP, EFLAGS and the IDT base (sidt [0x1000]).
  const std::vector<std::uint8_t> report = {0xA3, 0x84, 0xC1, 0x00, 0xFF,              // mov [SOFT_SCRATCH(1)], eax
                                            0x89, 0x1D, 0x88, 0xC1, 0x00, 0xFF,        // mov [SOFT_SCRATCH(2)], ebx
                                            0x89, 0x25, 0x8C, 0xC1, 0x00, 0xFF,        // mov [SOFT_SCRATCH(3)], esp
                                            0x9C, 0x58,                                // pushfd; pop eax
                                            0xA3, 0x90, 0xC1, 0x00, 0xFF,              // mov [SOFT_SCRATCH(4)], eax
                                            0x0F, 0x01, 0x0D, 0x00, 0x10, 0x00, 0x00,  // sidt [0x1000]
                                            0xA1, 0x02, 0x10, 0x00, 0x00,              // mov eax, [0x1002]
                                            0xA3, 0x94, 0xC1, 0x00, 0xFF,              // mov [SOFT_SCRATCH(5)], eax
                                            0xF4};                                     // hlt
  // A leaves other values everywhere B looks: registers, the direction flag, an IDT.
  const std::vector<std::uint8_t> clobber = {
      0xB8, 0x78, 0x56, 0x34, 0x12,                                // mov eax, 0x12345678
      0x89, 0xC3,                                                  // mov ebx, eax
      0xC7, 0x05, 0x00, 0x10, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x30,  // mov dword [0x1000], 0x3000FFFF
      0xC7, 0x05, 0x04, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // mov dword [0x1004], 0
      0x0F, 0x01, 0x1D, 0x00, 0x10, 0x00, 0x00,                    // lidt [0x1000]: base 0x3000
      0xFD,                                                        // std
      0xF4};                                                       // hlt
  const auto boot_and_read = [&](const std::vector<std::uint8_t>& code) {
    const std::uint64_t before = model().instructions();
    guc_.load(image_of(code), {});
    std::vector<std::uint32_t> seen;
    for (unsigned i = 1; i <= 5; ++i) seen.push_back(guc_.scratch(i));
    seen.push_back(static_cast<std::uint32_t>(model().instructions() - before));
    return seen;
  };
  test::run_thread([&] {
    const std::vector<std::uint32_t> fresh = boot_and_read(report);
    EXPECT_EQ(fresh[2], GUC_WOPCM_LOAD_ADDRESS) << "ESP as the boot ROM's jump sets it";
    EXPECT_EQ(fresh[5], 10u) << "instructions up to and including hlt";
    ASSERT_TRUE(guc_.reset());
    boot_and_read(clobber);
    ASSERT_TRUE(guc_.reset());
    EXPECT_EQ(boot_and_read(report), fresh);
  });
}

// The project's firmware booted, reset and booted again: the same boot, to the instruction, and the same answer. The
// first load also allocates the driver's image and log buffers (GGTT writes), so host time is compared from the
// second boot on: the same to the picosecond.
TEST_F(GucTest, ResetThenBootAgainGivesTheSameBootAndStatistics) {
  const auto counter = [](const char* name) {
    return core::stats().counter_value(std::string("gpuvp.gen.guc.") + name);
  };
  struct Boot {
    std::uint64_t instructions, mmio, memory, starts, interrupts;
    core::Picoseconds took;
    std::uint32_t status, reply;
    bool same_work(const Boot& o) const {
      return instructions == o.instructions && mmio == o.mmio && memory == o.memory && starts == o.starts &&
             interrupts == o.interrupts && status == o.status && reply == o.reply;
    }
  };
  const auto boot = [&] {
    const std::uint64_t i0 = counter("instructions"), m0 = counter("mmio_accesses"), g0 = counter("memory_accesses"),
                        s0 = counter("emulation_starts"), n0 = counter("interrupts");
    const core::Picoseconds t0 = core::now_ps();
    const auto r = guc_.load(firmware());
    EXPECT_TRUE(r.ok) << r.error;
    const std::uint32_t reply = guc_.send({GUC_ACTION_SAMPLE_FORCEWAKE, 1});
    return Boot{counter("instructions") - i0,
                counter("mmio_accesses") - m0,
                counter("memory_accesses") - g0,
                counter("emulation_starts") - s0,
                counter("interrupts") - n0,
                core::now_ps() - t0,
                r.status,
                reply};
  };
  test::run_thread([&] {
    const Boot first = boot();
    EXPECT_EQ(first.reply, GUC_REPLY_SUCCESS);
    EXPECT_GT(first.instructions, 0u);
    std::vector<Boot> again;
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(guc_.reset());
      again.push_back(boot());
      EXPECT_TRUE(again.back().same_work(first))
          << "boot " << i + 2 << ": " << again.back().instructions << " instructions; first: " << first.instructions;
    }
    EXPECT_EQ(again[0].took, again[1].took);
    EXPECT_EQ(counter("boots"), 3u);
  });
}

// gen.guc.cycles_per_instruction is fractional: each instruction takes cpi x the 2.5 ns cycle (400 MHz), rounded to
// whole picoseconds. 1000 NOPs then ud2: the fault interrupt comes 1001 instruction times (the NOPs and the ud2
// that faults) after the jump to the image, whatever the quantum cut the run into.
platform::PlatformParams with_guc_cpi(double cpi) {
  platform::PlatformParams params;
  params.gen.gpu.guc.cycles_per_instruction = cpi;
  return params;
}

class GucCpiTest : public GucTest, public ::testing::WithParamInterface<double> {
 protected:
  GucCpiTest() : GucTest(with_guc_cpi(GetParam())) {}
};

TEST_P(GucCpiTest, EachInstructionTakesCyclesPerInstructionCycles) {
  core::Picoseconds fault_at = 0;
  soc_.gen()->irq().on_change([&](bool level) {
    if (level && fault_at == 0) fault_at = core::now_ps();
  });
  test::run_thread([&] {
    std::vector<std::uint8_t> code(1002, 0x90);  // nop
    code[1000] = 0x0F;                           // ud2
    code[1001] = 0x0B;
    guc_.load(image_of(code));
    EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "firmware fault").size(), 1u);
  });
  const auto instruction_ps = static_cast<core::Picoseconds>(std::llround(GetParam() * 2500.0));
  ASSERT_GT(fault_at, model().started_ps());
  EXPECT_EQ(model().instructions(), 1001u);
  EXPECT_EQ(fault_at - model().started_ps(), 1001 * instruction_ps);
}

INSTANTIATE_TEST_SUITE_P(Fractional, GucCpiTest, ::testing::Values(1.0, 1.5, 2.25));

// sim.quantum_ns=0 (issue 23): firmware running into zero-filled WOPCM executes straight-line code; the core started
// Unicorn for every instruction (0.5 ms of host time each). It now runs gen.guc.min_slice_instructions per start, and
// the modelled time stays one instruction time per instruction: the watchdog (0.5 ms here, before the run reaches the
// WOPCM top) stops it at the same instruction as at any quantum.
platform::PlatformParams with_quantum_0() {
  platform::PlatformParams params;
  params.sim.quantum_ns = 0;
  params.gen.gpu.guc.hang_timeout_ns = 500'000;
  return params;
}

class GucQuantumZeroTest : public GucTest {
 protected:
  GucQuantumZeroTest() : GucTest(with_quantum_0()) {}
};

TEST_F(GucQuantumZeroTest, StraightLineCodeRunsInSlicesNotInstructionByInstruction) {
  core::Picoseconds fault_at = 0;
  soc_.gen()->irq().on_change([&](bool level) {
    if (level && fault_at == 0) fault_at = core::now_ps();
  });
  test::run_thread([&] {
    // jmp 0x3000, into zeroed WOPCM: "add [eax], al", two bytes at a time.
    const std::uint32_t rel = 0x3000 - (GUC_UCODE_ENTRY + 5);
    guc_.load(image_of({0xE9, static_cast<std::uint8_t>(rel), static_cast<std::uint8_t>(rel >> 8), 0, 0}), {});
    EXPECT_EQ(test::take_reports(sc_core::SC_ERROR, "firmware fault: hung").size(), 1u);
  });
  // 0.5 ms at 400 MHz and one cycle an instruction: the jump and 199,999 adds, then the one at which the watchdog
  // expires.
  constexpr std::uint64_t kInstructions = 200'001;
  EXPECT_EQ(model().instructions(), kInstructions);
  const std::uint64_t starts = core::stats().counter_value("gpuvp.gen.guc.emulation_starts");
  const std::uint64_t min_slice = gen::GucParams{}.min_slice_instructions;
  EXPECT_LE(starts, kInstructions / min_slice + 2) << "Unicorn started " << starts << " times";
  EXPECT_EQ(fault_at - model().started_ps(), kInstructions * 2500);  // 400 MHz, one cycle per instruction
}

}  // namespace
