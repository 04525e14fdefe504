// The TBX protocol codec against byte strings written out by hand from NEO's structures (compute-runtime 22.43
// shared/source/tbx/tbx_proto.h: HasHdr, HasMmioReq, HasGtt64Req, HasWriteDataReq, HasReadDataReq, HasReadDataRes,
// HasControlReq; bit-fields allocated from bit 0 upwards as GCC does on x86-64) and the message NEO really sent at
// connect (captured: `0b000000 00000000 04000000 02003200`).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "platform/tbx_protocol.h"

using namespace gpuvp::platform::tbx;

namespace {

template <std::size_t N>
std::vector<std::uint8_t> bytes(const std::array<std::uint8_t, N>& a) {
  return {a.begin(), a.end()};
}

TEST(TbxProtocol, ControlRequestNeoSendsAtConnect) {
  const std::vector<std::uint8_t> wire = {0x0B, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0x02, 0x00, 0x32, 0x00};
  const Header h = decode_header(wire.data());
  EXPECT_EQ(h.type, 11u);
  EXPECT_EQ(h.trans_id, 0u);
  EXPECT_EQ(h.size, 4u);
  const ControlRequest c = decode_control(wire.data() + kHeaderBytes);
  EXPECT_EQ(c.flags, kControlHas);                                     // has = 1, time_adv = 0, async = 0
  EXPECT_EQ(c.mask, (kControlHas | kControlTimeAdv | kControlAsync));  // the three masks
  EXPECT_EQ(bytes(encode_control(c)), std::vector<std::uint8_t>(wire.begin() + 12, wire.end()));
  EXPECT_EQ(bytes(encode_header(h)), std::vector<std::uint8_t>(wire.begin(), wire.begin() + 12));
}

TEST(TbxProtocol, MmioWriteAsNeoEncodesIt) {
  // NEO writeMMIO(0x2080, 0x1000): write 1, size 4 (bits 3:1), msg_type MMIO, delay 0.
  MmioRequest w;
  w.write = true;
  w.size = 4;
  w.offset = 0x2080;
  w.data = 0x1000;
  EXPECT_EQ(bytes(encode_mmio(w)), (std::vector<std::uint8_t>{0x09, 0, 0, 0, 0x80, 0x20, 0, 0, 0x00, 0x10, 0, 0}));
  const std::vector<std::uint8_t> read = {0x08, 0x00, 0x34, 0x12, 0x30, 0x22, 0, 0, 0xEF, 0xBE, 0xAD, 0xDE};
  const MmioRequest r = decode_mmio(read.data());
  EXPECT_FALSE(r.write);
  EXPECT_EQ(r.size, 4u);
  EXPECT_EQ(r.device, 0u);
  EXPECT_EQ(r.space, kSpaceMmio);
  EXPECT_EQ(r.delay, 0x1234u);
  EXPECT_EQ(r.offset, 0x2230u);
  EXPECT_EQ(r.data, 0xDEADBEEFu);
  // Device index 5:4 and space 8:6.
  const std::vector<std::uint8_t> io = {0x78, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // 0b0_0111_1000
  EXPECT_EQ(decode_mmio(io.data()).device, 3u);
  EXPECT_EQ(decode_mmio(io.data()).space, 1u);
}

TEST(TbxProtocol, GttWriteCarriesTheIndex) {
  // NEO writeGTT(offset 0x18, entry 0x0000000A_00069003): index = 0x18 / 8 = 3.
  GttRequest g;
  g.write = true;
  g.index = 3;
  g.entry = 0x0000000A00069003ULL;
  const std::vector<std::uint8_t> wire = {1, 0, 0, 0, 3, 0, 0, 0, 0x03, 0x90, 0x06, 0x00, 0x0A, 0, 0, 0};
  EXPECT_EQ(bytes(encode_gtt(g)), wire);
  const GttRequest back = decode_gtt(wire.data());
  EXPECT_TRUE(back.write);
  EXPECT_EQ(back.index, 3u);
  EXPECT_EQ(back.entry, 0x0000000A00069003ULL);
}

TEST(TbxProtocol, WriteDataFlagsAndFortyBitAddress) {
  // addr_type 0, mask_exist bit 1, frontdoor bit 2, memory_type 7:6, address_h 31:24.
  const std::vector<std::uint8_t> wire = {0x46, 0x00, 0x00, 0x12, 0x00, 0x90, 0x06, 0x00, 0x00, 0x10, 0x00, 0x00};
  const DataRequest w = decode_data(true, wire.data());
  EXPECT_TRUE(w.write);
  EXPECT_EQ(w.addr_type, 0u);
  EXPECT_TRUE(w.mask);
  EXPECT_TRUE(w.frontdoor);
  EXPECT_EQ(w.memory_type, 1u);
  EXPECT_EQ(w.address, 0x1200069000ULL);
  EXPECT_EQ(w.size, 0x1000u);
  EXPECT_EQ(bytes(encode_data(w)), wire);
}

TEST(TbxProtocol, ReadDataFlagsDifferFromWriteData) {
  // In HasReadDataReq bit 1 is frontdoor (it is mask_exist in a write).
  const std::vector<std::uint8_t> wire = {0x02, 0x00, 0x00, 0x01, 0x00, 0x90, 0x06, 0x00, 0x40, 0x00, 0x00, 0x00};
  const DataRequest r = decode_data(false, wire.data());
  EXPECT_FALSE(r.write);
  EXPECT_FALSE(r.mask);
  EXPECT_TRUE(r.frontdoor);
  EXPECT_EQ(r.address, 0x100069000ULL);
  EXPECT_EQ(r.size, 0x40u);
  EXPECT_EQ(bytes(encode_data(r)), wire);
}

TEST(TbxProtocol, Responses) {
  EXPECT_EQ(bytes(encode_mmio_response(7, 0x12345678)),
            (std::vector<std::uint8_t>{1, 0, 0, 0, 7, 0, 0, 0, 4, 0, 0, 0, 0x78, 0x56, 0x34, 0x12}));
  EXPECT_EQ(bytes(encode_gtt_response(9, 0x0000000100069003ULL)),
            (std::vector<std::uint8_t>{3, 0, 0, 0, 9, 0, 0, 0, 8, 0, 0, 0, 0x03, 0x90, 0x06, 0, 1, 0, 0, 0}));
  const auto res = encode_read_data_response(0x1234, 0x2200069000ULL, 0x1000);
  EXPECT_EQ(bytes(res), (std::vector<std::uint8_t>{6, 0, 0, 0,    0x34, 0x12, 0,    0,    12,   0,    0, 0,
                                                   0, 0, 0, 0x22, 0x00, 0x90, 0x06, 0x00, 0x00, 0x10, 0, 0}));
  const DataRequest back = decode_read_data_response(res.data() + kHeaderBytes);
  EXPECT_EQ(back.address, 0x2200069000ULL);
  EXPECT_EQ(back.size, 0x1000u);
}

TEST(TbxProtocol, TypeNames) {
  EXPECT_EQ(type_name(0), "MMIO_REQ");
  EXPECT_EQ(type_name(5), "READ_DATA_REQ");
  EXPECT_EQ(type_name(11), "CONTROL_REQ");
  EXPECT_EQ(type_name(26), "type 26");
}

}  // namespace
