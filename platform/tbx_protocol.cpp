#include "platform/tbx_protocol.h"

#include <algorithm>

namespace gpuvp::platform::tbx {

namespace {

std::uint32_t load32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

void store32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint32_t bit(bool b, unsigned at) { return static_cast<std::uint32_t>(b) << at; }

// The flags dword of a data request or response: bits 39:32 of the address in 31:24.
std::uint32_t address_high_bits(std::uint64_t address) { return static_cast<std::uint32_t>(address >> 32) << 24; }
std::uint64_t address_of(std::uint32_t flags, std::uint32_t low) {
  return static_cast<std::uint64_t>(flags >> 24) << 32 | low;
}

}  // namespace

std::string type_name(std::uint32_t type) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kMmioReq:
      return "MMIO_REQ";
    case MsgType::kMmioRes:
      return "MMIO_RES";
    case MsgType::kGttReq:
      return "GTT_REQ";
    case MsgType::kGttRes:
      return "GTT_RES";
    case MsgType::kWriteDataReq:
      return "WRITE_DATA_REQ";
    case MsgType::kReadDataReq:
      return "READ_DATA_REQ";
    case MsgType::kReadDataRes:
      return "READ_DATA_RES";
    case MsgType::kControlReq:
      return "CONTROL_REQ";
  }
  return "type " + std::to_string(type);
}

Header decode_header(const std::uint8_t* bytes) { return {load32(bytes), load32(bytes + 4), load32(bytes + 8)}; }

std::array<std::uint8_t, kHeaderBytes> encode_header(const Header& header) {
  std::array<std::uint8_t, kHeaderBytes> out{};
  store32(out.data(), header.type);
  store32(out.data() + 4, header.trans_id);
  store32(out.data() + 8, header.size);
  return out;
}

MmioRequest decode_mmio(const std::uint8_t* body) {
  const std::uint32_t flags = load32(body);
  MmioRequest r;
  r.write = flags & 1;
  r.size = (flags >> 1) & 0x7;
  r.device = (flags >> 4) & 0x3;
  r.space = (flags >> 6) & 0x7;
  r.delay = flags >> 16;
  r.offset = load32(body + 4);
  r.data = load32(body + 8);
  return r;
}

std::array<std::uint8_t, kMmioBodyBytes> encode_mmio(const MmioRequest& request) {
  std::array<std::uint8_t, kMmioBodyBytes> out{};
  store32(out.data(), bit(request.write, 0) | (request.size & 0x7) << 1 | (request.device & 0x3) << 4 |
                          (request.space & 0x7) << 6 | (request.delay & 0xFFFF) << 16);
  store32(out.data() + 4, request.offset);
  store32(out.data() + 8, request.data);
  return out;
}

GttRequest decode_gtt(const std::uint8_t* body) {
  GttRequest r;
  r.write = load32(body) & 1;
  r.index = load32(body + 4);
  r.entry = static_cast<std::uint64_t>(load32(body + 12)) << 32 | load32(body + 8);
  return r;
}

std::array<std::uint8_t, kGttBodyBytes> encode_gtt(const GttRequest& request) {
  std::array<std::uint8_t, kGttBodyBytes> out{};
  store32(out.data(), bit(request.write, 0));
  store32(out.data() + 4, request.index);
  store32(out.data() + 8, static_cast<std::uint32_t>(request.entry));
  store32(out.data() + 12, static_cast<std::uint32_t>(request.entry >> 32));
  return out;
}

DataRequest decode_data(bool write, const std::uint8_t* body) {
  const std::uint32_t flags = load32(body);
  DataRequest r;
  r.write = write;
  r.addr_type = flags & 1;
  if (write) {
    r.mask = (flags >> 1) & 1;
    r.frontdoor = (flags >> 2) & 1;
    r.memory_type = (flags >> 6) & 0x3;
  } else {
    r.frontdoor = (flags >> 1) & 1;
  }
  r.address = address_of(flags, load32(body + 4));
  r.size = load32(body + 8);
  return r;
}

std::array<std::uint8_t, kDataBodyBytes> encode_data(const DataRequest& request) {
  std::uint32_t flags = (request.addr_type & 1) | address_high_bits(request.address);
  if (request.write) {
    flags |= bit(request.mask, 1) | bit(request.frontdoor, 2) | (request.memory_type & 0x3) << 6;
  } else {
    flags |= bit(request.frontdoor, 1);
  }
  std::array<std::uint8_t, kDataBodyBytes> out{};
  store32(out.data(), flags);
  store32(out.data() + 4, static_cast<std::uint32_t>(request.address));
  store32(out.data() + 8, request.size);
  return out;
}

ControlRequest decode_control(const std::uint8_t* body) {
  const std::uint32_t v = load32(body);
  return {v & 0xFFFF, v >> 16};
}

std::array<std::uint8_t, kControlBodyBytes> encode_control(const ControlRequest& request) {
  std::array<std::uint8_t, kControlBodyBytes> out{};
  store32(out.data(), (request.flags & 0xFFFF) | (request.mask & 0xFFFF) << 16);
  return out;
}

std::array<std::uint8_t, kMmioResponseBytes> encode_mmio_response(std::uint32_t trans_id, std::uint32_t data) {
  std::array<std::uint8_t, kMmioResponseBytes> out{};
  const auto header = encode_header({static_cast<std::uint32_t>(MsgType::kMmioRes), trans_id, 4});
  std::copy(header.begin(), header.end(), out.begin());
  store32(out.data() + kHeaderBytes, data);
  return out;
}

std::array<std::uint8_t, kGttResponseBytes> encode_gtt_response(std::uint32_t trans_id, std::uint64_t entry) {
  std::array<std::uint8_t, kGttResponseBytes> out{};
  const auto header = encode_header({static_cast<std::uint32_t>(MsgType::kGttRes), trans_id, 8});
  std::copy(header.begin(), header.end(), out.begin());
  store32(out.data() + kHeaderBytes, static_cast<std::uint32_t>(entry));
  store32(out.data() + kHeaderBytes + 4, static_cast<std::uint32_t>(entry >> 32));
  return out;
}

std::array<std::uint8_t, kReadDataResponseBytes> encode_read_data_response(std::uint32_t trans_id,
                                                                           std::uint64_t address, std::uint32_t size) {
  std::array<std::uint8_t, kReadDataResponseBytes> out{};
  const auto header = encode_header({static_cast<std::uint32_t>(MsgType::kReadDataRes), trans_id, 12});
  std::copy(header.begin(), header.end(), out.begin());
  store32(out.data() + kHeaderBytes, address_high_bits(address));
  store32(out.data() + kHeaderBytes + 4, static_cast<std::uint32_t>(address));
  store32(out.data() + kHeaderBytes + 8, size);
  return out;
}

DataRequest decode_read_data_response(const std::uint8_t* body) {
  DataRequest r;
  const std::uint32_t flags = load32(body);
  r.addr_type = flags & 1;
  r.mask = (flags >> 1) & 1;
  r.address = address_of(flags, load32(body + 4));
  r.size = load32(body + 8);
  return r;
}

}  // namespace gpuvp::platform::tbx
