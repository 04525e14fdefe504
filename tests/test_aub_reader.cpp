// The AUB reader (platform/aub_reader.h): records built byte by byte from the layouts of NEO 22.43's
// shared/source/aub_mem_dump/definitions/aub_services.h and aub_header.h, then decoded; malformed files give one-line
// errors naming the offset.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platform/aub_reader.h"

namespace {

using gpuvp::platform::aub::AubError;
using gpuvp::platform::aub::AubReader;
using gpuvp::platform::aub::Record;
namespace aub = gpuvp::platform::aub;

using Bytes = std::vector<std::uint8_t>;

Bytes dwords(std::initializer_list<std::uint32_t> values) {
  Bytes b;
  for (std::uint32_t v : values) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  return b;
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

std::vector<Record> read_all(const Bytes& file) {
  std::istringstream in(std::string(file.begin(), file.end()));
  AubReader reader(in, "t.aub");
  std::vector<Record> records;
  Record r;
  while (reader.next(r)) records.push_back(r);
  return records;
}

std::string error_of(const Bytes& file) {
  try {
    read_all(file);
  } catch (const AubError& e) {
    return e.what();
  }
  return "";
}

// Header dword: type 7 in 31:29, opcode 0x2E in 28:23, sub-opcode in 22:16, dword count in 15:0.
constexpr std::uint32_t header(std::uint32_t sub, std::uint32_t count) {
  return 7u << 29 | 0x2Eu << 23 | sub << 16 | count;
}

TEST(AubReader, VersionRecordAsNeoWritesIt) {
  // AubFileStream::init: 6 dwords, count 5; device 12 (SKL) in bits 15:8 of dword 2, recording method 1 (physical)
  // in 19:18, capture tool 1 in 31:28; command line "NEO".
  const Bytes expected = dwords({0xF70E0005, 0, 0x10040C00, 0, 0, 0x004F454E});
  EXPECT_EQ(aub::encode_version(12, 0), expected);
  const auto records = read_all(expected);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, Record::Kind::kVersion);
  EXPECT_EQ(records[0].device, 12u);
  EXPECT_EQ(records[0].stepping, 0u);
  EXPECT_EQ(records[0].text, "NEO");
  EXPECT_EQ(records[0].length, 24u);
}

TEST(AubReader, CommentIsPaddedToDwords) {
  // AubFileStream::addComment: header, flags dword, text with its NUL padded to dwords; count = text dwords + 1.
  const Bytes expected = concat({dwords({header(8, 3), 0}), Bytes{'s', 'a', 'x', 'p', 'y', 0, 0, 0}});
  EXPECT_EQ(aub::encode_comment("saxpy"), expected);
  const auto records = read_all(expected);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, Record::Kind::kComment);
  EXPECT_EQ(records[0].text, "saxpy");
  EXPECT_EQ(records[0].length, 16u);
}

TEST(AubReader, RegisterWrite) {
  // AubFileStream::writeMMIOImpl: offset, flags (size 2 = dword in 19:16, space 0 = MMIO in 31:28), write mask
  // low 0xFFFFFFFF, high 0, value. This is NEO's ELSP write of context descriptor 0x6119.
  const Bytes expected = dwords({header(3, 5), 0x2230, 0x00020000, 0xFFFFFFFF, 0, 0x6119});
  EXPECT_EQ(aub::encode_register_write(0x2230, 0x6119), expected);
  const auto r = read_all(expected).at(0);
  EXPECT_EQ(r.kind, Record::Kind::kRegisterWrite);
  EXPECT_EQ(r.register_offset, 0x2230u);
  EXPECT_EQ(r.access_size, 4u);
  EXPECT_EQ(r.register_space, 0u);
  EXPECT_EQ(r.mask, 0xFFFFFFFFu);
  EXPECT_EQ(r.value, 0x6119u);
}

TEST(AubReader, RegisterPollAndCompare) {
  // NEO's completion poll: EXECLIST_STATUS 0x2234, mask = value = 0x100; pollNotEqual is bit 2 of the flags.
  const Bytes poll = dwords({header(2, 5), 0x2234, 0x00020000, 0x100, 0, 0x100});
  EXPECT_EQ(aub::encode_register_poll(0x2234, 0x100, 0x100, false), poll);
  const Bytes poll_ne = dwords({header(2, 5), 0x2234, 0x00020004, 0x100, 0, 0x100});
  EXPECT_EQ(aub::encode_register_poll(0x2234, 0x100, 0x100, true), poll_ne);
  // expectMMIO: both mask halves set.
  const Bytes compare = dwords({header(1, 5), 0x2358, 0x00020000, 0xFFFFFFFF, 0xFFFFFFFF, 42});
  EXPECT_EQ(aub::encode_register_compare(0x2358, 42), compare);
  const auto records = read_all(concat({poll, poll_ne, compare}));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].kind, Record::Kind::kRegisterPoll);
  EXPECT_FALSE(records[0].not_equal);
  EXPECT_EQ(records[0].mask, 0x100u);
  EXPECT_EQ(records[0].value, 0x100u);
  EXPECT_TRUE(records[1].not_equal);
  EXPECT_EQ(records[1].offset, 24u);
  EXPECT_EQ(records[2].kind, Record::Kind::kRegisterCompare);
  EXPECT_EQ(records[2].value, 42u);
  EXPECT_EQ(records[2].offset, 48u);
}

TEST(AubReader, QwordRegisterNeedsTwoDataDwords) {
  const Bytes qword = dwords({header(3, 6), 0x2000, 0x00030000, 0xFFFFFFFF, 0xFFFFFFFF, 0x11111111, 0x22222222});
  const auto r = read_all(qword).at(0);
  EXPECT_EQ(r.access_size, 8u);
  EXPECT_EQ(r.value, 0x2222222211111111u);
  EXPECT_NE(error_of(dwords({header(3, 5), 0x2000, 0x00030000, 0xFFFFFFFF, 0xFFFFFFFF, 1})).find("at least 7"),
            std::string::npos);
}

TEST(AubReader, MemoryWriteInEachAddressSpaceNeoUses) {
  // AubFileStream::writeMemoryWriteHeader: address (u64), flags (hint 27:20, address space 31:28), size, data padded
  // to dwords; count = dwords - 1. Spaces NEO writes for Gen9: 2 physical, 4 GGTT entries, 6 PT, 9 PD, 8 PDP, 10 PML4.
  for (std::uint32_t space : {2u, 4u, 6u, 8u, 9u, 10u}) {
    const Bytes data{1, 2, 3, 4, 5, 6};
    const Bytes expected =
        concat({dwords({header(6, 6), 0x20001000, 0x1, 42u << 20 | space << 28, 6}), Bytes{1, 2, 3, 4, 5, 6, 0, 0}});
    EXPECT_EQ(aub::encode_memory_write(0x120001000, space, 42, data), expected);
    const auto r = read_all(expected).at(0);
    EXPECT_EQ(r.kind, Record::Kind::kMemoryWrite);
    EXPECT_EQ(r.address, 0x120001000u);
    EXPECT_EQ(r.address_space, space);
    EXPECT_EQ(r.hint, 42u);
    EXPECT_EQ(r.data, data);
    EXPECT_EQ(r.length, 28u);
  }
}

TEST(AubReader, MemoryCompareAndPoll) {
  // expectMemory: address low, address high, flags (compareOperation bit 7: 1 = not equal), size, data.
  const Bytes compare =
      concat({dwords({header(4, 5), 0x3000, 0x1, 2u << 28 | 1u << 7, 4}), Bytes{0xAA, 0xBB, 0xCC, 0xDD}});
  EXPECT_EQ(aub::encode_memory_compare(0x100003000, 2, {0xAA, 0xBB, 0xCC, 0xDD}, true), compare);
  // Memory poll: address (2 dwords), flags (pollNotEqual bit 0, data size 5:4: 2 = dword), mask (2), data.
  const Bytes poll = dwords({header(5, 6), 0x4000, 0, 2u << 28 | 2u << 4, 0xFF, 0, 7});
  EXPECT_EQ(aub::encode_memory_poll(0x4000, 2, 4, 0xFF, 7, false), poll);
  const auto records = read_all(concat({compare, poll}));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, Record::Kind::kMemoryCompare);
  EXPECT_TRUE(records[0].not_equal);
  EXPECT_EQ(records[0].address, 0x100003000u);
  EXPECT_EQ(records[0].data, (Bytes{0xAA, 0xBB, 0xCC, 0xDD}));
  EXPECT_EQ(records[1].kind, Record::Kind::kMemoryPoll);
  EXPECT_EQ(records[1].access_size, 4u);
  EXPECT_EQ(records[1].mask, 0xFFu);
  EXPECT_EQ(records[1].value, 7u);
}

TEST(AubReader, ContextCreateUsesTheCommandLengthConvention) {
  // AubPpgttContextCreate (aub_header.h): type 7, opcode 1, sub-opcode 0x14, DwordLength = 11 dwords - 2 = 9.
  const Bytes create = dwords({7u << 29 | 1u << 23 | 0x14u << 16 | 9, 5, 2, 0x20000000, 0, 0, 0, 0, 0, 0, 0});
  const auto records = read_all(concat({create, aub::encode_comment("after")}));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, Record::Kind::kContextCreate);
  EXPECT_EQ(records[0].context_handle, 5u);
  EXPECT_TRUE(records[0].context_64bit);
  EXPECT_EQ(records[0].context_root, 0x20000000u);
  EXPECT_EQ(records[1].text, "after");
}

TEST(AubReader, BinaryDumpRequest) {
  // AubCaptureBinaryDumpHD (aub_header.h), as NEO writes it with AUBDumpBufferFormat=BIN (aub_alloc_dump.inl
  // dumpBufferInBinFormat): type 7, opcode 1, sub-opcode 0x15, DwordLength 12 (14 dwords); base, width, height 1,
  // pitch (u64 each); GTT type 1 (PPGTT) in bits 5:4; handle, two reserved dwords, file name.
  const Bytes expected = dwords(
      {7u << 29 | 1u << 23 | 0x15u << 16 | 12, 0x97EA0000, 0x5638, 0x10000, 0, 1, 0, 0x10000, 0, 0x10, 0, 0, 0, 0});
  EXPECT_EQ(aub::encode_binary_dump(0x563897EA0000, 0x10000, 1), expected);
  const auto records = read_all(concat({expected, aub::encode_comment("after")}));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, Record::Kind::kBinaryDump);
  EXPECT_EQ(records[0].address, 0x563897EA0000u);
  EXPECT_EQ(records[0].dump_width, 0x10000u);
  EXPECT_EQ(records[0].dump_height, 1u);
  EXPECT_EQ(records[0].dump_pitch, 0x10000u);
  EXPECT_EQ(records[0].dump_gtt, 1u);
  EXPECT_EQ(records[0].length, 56u);
  EXPECT_EQ(records[1].offset, 56u);
}

TEST(AubReader, UnknownSubOpcodeIsFramedAndKept) {
  // Sub-opcode 0x7F is no record NEO knows: framed by its count and returned as kOther for replay to skip.
  const Bytes unknown = dwords({header(0x7F, 2), 0xDEAD, 0xBEEF});
  const auto records = read_all(concat({unknown, aub::encode_comment("next")}));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, Record::Kind::kOther);
  EXPECT_EQ(records[0].sub_opcode, 0x7Fu);
  EXPECT_EQ(records[0].length, 12u);
  EXPECT_EQ(records[1].kind, Record::Kind::kComment);
  EXPECT_EQ(records[1].offset, 12u);
}

TEST(AubReader, EmptyFileHasNoRecords) { EXPECT_TRUE(read_all({}).empty()); }

TEST(AubReader, TruncatedHeader) {
  const Bytes file = concat({aub::encode_comment("x"), Bytes{0x05, 0x00}});
  EXPECT_EQ(error_of(file), "t.aub: offset 0xc: truncated record header (2 of 4 bytes)");
}

TEST(AubReader, NotAnAubFile) {
  EXPECT_EQ(error_of(Bytes{'E', 'L', 'F', '!', 0, 0, 0, 0}),
            "t.aub: offset 0x0: not an AUB record: header 0x21464c45 has type 1, expected 7 (is this an AUB file?)");
}

TEST(AubReader, UndocumentedOpcodeCannotBeFramed) {
  EXPECT_EQ(error_of(dwords({7u << 29 | 0x10u << 23 | 1})),
            "t.aub: offset 0x0: record header 0xe8000001 has opcode 0x10, which no AUB source documents");
}

TEST(AubReader, TruncatedData) {
  // A memory write of 64 bytes whose file ends after 10 of them.
  Bytes file = aub::encode_memory_write(0x1000, 2, 0, Bytes(64, 0x5A));
  file.resize(20 + 10);
  EXPECT_EQ(error_of(file), "t.aub: offset 0x0: memory write record of 84 bytes is truncated: the file ends after 30");
}

TEST(AubReader, SizeFieldLargerThanTheRecord) {
  // The size says 0xFFFFFFF0 bytes; the record (count 5) holds 4: an error, and no allocation of the size.
  const Bytes file = dwords({header(6, 5), 0x1000, 0, 2u << 28, 0xFFFFFFF0, 0});
  EXPECT_EQ(error_of(file),
            "t.aub: offset 0x0: memory write record says 4294967280 data bytes, but the record holds 4");
}

TEST(AubReader, SizeFieldSmallerThanTheRecord) {
  // 4 data bytes in a record with room for 12: more than the dword padding.
  const Bytes file = dwords({header(6, 7), 0x1000, 0, 2u << 28, 4, 1, 2, 3});
  EXPECT_EQ(error_of(file), "t.aub: offset 0x0: memory write record says 4 data bytes, but the record holds 12");
}

TEST(AubReader, RecordTooShortForItsKind) {
  // A register write with count 2 (3 dwords): no room for flags, mask and value.
  EXPECT_EQ(error_of(dwords({header(3, 2), 0x2000, 0})),
            "t.aub: offset 0x0: register write record has 3 dwords, at least 6 expected");
}

TEST(AubReader, LargestCountIsBounded) {
  // Count 0xFFFF: a 256 KiB record, and the file holds 8 bytes of it.
  EXPECT_EQ(error_of(dwords({header(6, 0xFFFF), 0})),
            "t.aub: offset 0x0: memory write record of 262144 bytes is truncated: the file ends after 8");
}

TEST(AubReader, ErrorOffsetIsTheRecordsOffset) {
  const Bytes file = concat({aub::encode_version(12, 0), aub::encode_comment("ok"), dwords({header(3, 1), 0})});
  EXPECT_EQ(error_of(file), "t.aub: offset 0x24: register write record has 2 dwords, at least 6 expected");
}

}  // namespace
