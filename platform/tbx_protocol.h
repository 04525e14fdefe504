// The TBX ("HAS") protocol Intel's OpenCL runtime NEO speaks to a simulator over TCP when SetCommandStreamReceiver=2
// (NEO shared/source/tbx/tbx_proto.h and tbx_sockets_imp.cpp, compute-runtime 22.43): a 12-byte header {msg_type,
// trans_id, body size} in host (little-endian) order, then the body. Encoding and decoding only, byte-exact and free
// of sockets and SystemC, so both the server (tbx_server.h) and test clients use it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpuvp::platform::tbx {

// HAS_MSG_TYPE values of the messages gpuvp serves or answers with.
enum class MsgType : std::uint32_t {
  kMmioReq = 0,
  kMmioRes = 1,
  kGttReq = 2,
  kGttRes = 3,
  kWriteDataReq = 4,
  kReadDataReq = 5,
  kReadDataRes = 6,
  kControlReq = 11,
};
// "MMIO_REQ", ..., or "type N" for a type gpuvp does not know.
std::string type_name(std::uint32_t type);

constexpr std::size_t kHeaderBytes = 12;
struct Header {
  std::uint32_t type = 0;
  std::uint32_t trans_id = 0;
  std::uint32_t size = 0;  // body bytes that follow (write data comes on top of a WRITE_DATA_REQ body)
};
Header decode_header(const std::uint8_t* bytes);
std::array<std::uint8_t, kHeaderBytes> encode_header(const Header& header);

// Body sizes of the requests (HasMmioReq, HasMmioExtReq, HasGtt64Req, HasWriteDataReq/HasReadDataReq, HasControlReq).
constexpr std::size_t kMmioBodyBytes = 12;
constexpr std::size_t kMmioExtBodyBytes = 16;  // + source id dword, which gpuvp ignores
constexpr std::size_t kGttBodyBytes = 16;
constexpr std::size_t kDataBodyBytes = 12;
constexpr std::size_t kControlBodyBytes = 4;

// MMIO_REQ: dword 0 = write (bit 0), size in bytes (3:1), device index (5:4), space (8:6: 0 MMIO, 1 I/O, 2 "funny
// I/O"), delay (31:16); then offset and data.
constexpr std::uint32_t kSpaceMmio = 0;
struct MmioRequest {
  bool write = false;
  std::uint32_t size = 4;
  std::uint32_t device = 0;
  std::uint32_t space = kSpaceMmio;
  std::uint32_t delay = 0;
  std::uint32_t offset = 0;
  std::uint32_t data = 0;
};
MmioRequest decode_mmio(const std::uint8_t* body);
std::array<std::uint8_t, kMmioBodyBytes> encode_mmio(const MmioRequest& request);

// GTT_REQ with a 64-bit entry: write (bit 0), the entry's INDEX (NEO sends the GGTT byte offset / 8), entry low and
// high dwords.
struct GttRequest {
  bool write = false;
  std::uint32_t index = 0;
  std::uint64_t entry = 0;
};
GttRequest decode_gtt(const std::uint8_t* body);
std::array<std::uint8_t, kGttBodyBytes> encode_gtt(const GttRequest& request);

// WRITE_DATA_REQ and READ_DATA_REQ: a flags dword whose bit layout differs between the two (below), the address's
// low 32 bits, the size. The address's bits 39:32 are flags bits 31:24. Write data (`size` bytes) follows a write.
//   write: addr_type 0, mask_exist 1, frontdoor 2, take_ownership 3, model_owned 4, cacheline_disable 5,
//          memory_type 7:6 (0 system, 1 local memory)
//   read:  addr_type 0, frontdoor 1, ownership_req 2, model_owned 3, cacheline_disable 4
struct DataRequest {
  bool write = false;
  std::uint32_t addr_type = 0;  // 0: physical (all NEO sends)
  bool mask = false;            // write only: a byte mask accompanies the data
  bool frontdoor = false;       // through the memory interface (timed) rather than the backdoor
  std::uint32_t memory_type = 0;
  std::uint64_t address = 0;  // 40 bits
  std::uint32_t size = 0;
};
constexpr std::uint64_t kDataAddressLimit = 1ULL << 40;
DataRequest decode_data(bool write, const std::uint8_t* body);
std::array<std::uint8_t, kDataBodyBytes> encode_data(const DataRequest& request);

// CONTROL_REQ: one dword of flags (bits 12:0) and their masks (bits 28:16); a flag counts only where its mask bit is
// set. NEO sends has=1, time_adv=0, async_msg=0 at connect.
struct ControlRequest {
  std::uint32_t flags = 0;  // bit i: reset, has, rd_on_demand, write_mask, time_adv, async_msg, quit, ...
  std::uint32_t mask = 0;
};
constexpr std::uint32_t kControlHas = 1u << 1;
constexpr std::uint32_t kControlTimeAdv = 1u << 4;
constexpr std::uint32_t kControlAsync = 1u << 5;
ControlRequest decode_control(const std::uint8_t* body);
std::array<std::uint8_t, kControlBodyBytes> encode_control(const ControlRequest& request);

// Responses, header included: MMIO_RES {data}; GTT_RES {entry low, entry high}; READ_DATA_RES {flags (address bits
// 39:32 in 31:24), address low, size}, after which the `size` data bytes follow.
constexpr std::size_t kMmioResponseBytes = kHeaderBytes + 4;
constexpr std::size_t kGttResponseBytes = kHeaderBytes + 8;
constexpr std::size_t kReadDataResponseBytes = kHeaderBytes + 12;
std::array<std::uint8_t, kMmioResponseBytes> encode_mmio_response(std::uint32_t trans_id, std::uint32_t data);
std::array<std::uint8_t, kGttResponseBytes> encode_gtt_response(std::uint32_t trans_id, std::uint64_t entry);
std::array<std::uint8_t, kReadDataResponseBytes> encode_read_data_response(std::uint32_t trans_id,
                                                                           std::uint64_t address, std::uint32_t size);
// A READ_DATA_RES header's address and size (clients and tests).
DataRequest decode_read_data_response(const std::uint8_t* body);

}  // namespace gpuvp::platform::tbx
