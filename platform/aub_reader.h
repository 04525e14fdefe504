// AubReader: splits an AUB file (the "memtrace" format Intel's OpenCL runtime NEO writes in AUB mode,
// SetCommandStreamReceiver=1) into records, free of SystemC. It frames and decodes every record NEO 22.43 writes for
// Gen8/Gen9 and frames the rest of the documented ones so that replay can skip them. docs/gen-aub.md lists what
// replay does with each.
//
// Layouts: NEO (compute-runtime 22.43.24595.41) shared/source/aub_mem_dump/definitions/aub_services.h (the
// CmdServicesMemTrace* records), aub_header.h (AubCmdHdr, AubPpgttContextCreate); what it writes:
// shared/source/command_stream/aub_command_stream_receiver.cpp (AubFileStream) and aub_mem_dump.inl.
//
// Every record starts with a header dword: type 31:29 (always 7), opcode 28:23, sub-opcode 22:16, dword count 15:0.
// The memtrace records (opcode 0x2E) are count + 1 dwords long, header included; the one opcode-1 record NEO can
// write (PPGTT context create, sub-opcode 0x14) follows the GPU-command convention, count + 2 dwords. No record is
// longer than 65537 dwords, so a record is read whole into a bounded buffer: a malformed length can never make the
// reader allocate more than 256 KiB.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp::platform::aub {

constexpr std::uint32_t kRecordType = 7;
constexpr std::uint32_t kOpcodeMemtrace = 0x2E;
constexpr std::uint32_t kOpcodeLegacy = 0x01;  // AubPpgttContextCreate and older records

// Sub-opcodes of memtrace records (aub_services.h subOpcode()).
enum class SubOp : std::uint32_t {
  kRegisterCompare = 0x1,
  kRegisterPoll = 0x2,
  kRegisterWrite = 0x3,
  kMemoryCompare = 0x4,
  kMemoryPoll = 0x5,
  kMemoryWrite = 0x6,
  kFrameBegin = 0x7,
  kComment = 0x8,
  kDelay = 0x9,
  kMemoryDump = 0xA,
  kMemoryWriteDiscontiguous = 0xB,
  kTestPhaseMarker = 0xC,
  kMemoryContinuousRegion = 0xD,
  kVersion = 0xE,
  kPredicate = 0xF,
  kDumpCompress = 0x10,
};
constexpr std::uint32_t kSubOpContextCreate = 0x14;  // opcode 1
constexpr std::uint32_t kSubOpBinaryDump = 0x15;     // opcode 1: AubCaptureBinaryDumpHD
constexpr std::uint32_t kSubOpBitmapDump = 0x44;     // opcode 1: AubCmdDumpBmpHd

// Address spaces of memory records (CmdServicesMemTraceMemoryWrite::AddressSpaceValues).
enum class AddressSpace : std::uint32_t {
  kGttGfx = 0,      // a GGTT graphics address
  kLocal = 1,       // device-local memory (discrete GPUs)
  kPhysical = 2,    // "Nonlocal": physical system memory; NEO's default for data
  kGttPdEntry = 3,  // physical address of a legacy page-directory entry
  kGttEntry = 4,    // byte offset into the GGTT entry table (8 bytes an entry)
  kPpgttGfx = 5,    // a PPGTT graphics address
  kPpgttEntry = 6,  // physical address of a PPGTT page-table entry
  kNonapertureGttGfx = 7,
  kPhysicalPdpEntry = 8,  // physical address of a PDP entry
  kPpgttPdEntry = 9,      // physical address of a page-directory entry
  kPml4Entry = 10,        // physical address of a PML4 entry
  kPowerContext = 11,
};
const char* to_string(AddressSpace space);
std::string address_space_name(std::uint32_t space);  // the name, or "address space N"

// Register space of register records (RegisterSpaceValues): only MMIO is a GPU register.
constexpr std::uint32_t kRegisterSpaceMmio = 0;

// One decoded record. Fields not used by a kind are zero.
struct Record {
  enum class Kind {
    kVersion,          // the trace's first record: device, stepping, capture tool
    kComment,          // text (NEO names allocations: "ppgtt: 0x... end address: ... size: N")
    kRegisterWrite,    // register, size, mask, value
    kRegisterPoll,     // register, size, mask, value, not_equal, timeout_ignore
    kRegisterCompare,  // register, size, mask, value, no_read_expect
    kMemoryWrite,      // address, address_space, hint, data
    kMemoryPoll,       // address, address_space, size (1, 2, 4, 8), mask, value, not_equal, timeout_ignore
    kMemoryCompare,    // address, address_space, data, compare_not_equal, no_read_expect
    kContextCreate,    // opcode 1: a PPGTT context's handle and root (the model reads the root from the context)
    kBinaryDump,       // opcode 1: dump address, size (width x height, pitch) and GTT (NEO AUBDumpBufferFormat=BIN)
    kOther,            // framed but not decoded (sub_opcode/opcode say which); replay skips it
  };
  Kind kind = Kind::kOther;
  std::uint64_t offset = 0;  // of the header in the file
  std::uint32_t header = 0;
  std::uint32_t opcode = 0;
  std::uint32_t sub_opcode = 0;
  std::uint32_t length = 0;  // bytes, header included

  // Register records.
  std::uint32_t register_offset = 0;
  std::uint32_t register_space = 0;
  // Register and memory-poll records: access size in bytes (1, 2, 4 or 8), mask and value.
  std::uint32_t access_size = 0;
  std::uint64_t mask = 0;
  std::uint64_t value = 0;
  bool not_equal = false;       // poll: until the masked value differs; compare: expect a difference
  bool timeout_ignore = false;  // poll: a timeout is not an error
  bool no_read_expect = false;  // compare: read without checking

  // Memory records.
  std::uint64_t address = 0;
  std::uint32_t address_space = 0;
  std::uint32_t hint = 0;          // data type hint (DataTypeHintValues), informational
  std::vector<std::uint8_t> data;  // memory write and compare: exactly the record's data size

  // Version.
  std::uint32_t device = 0;  // DeviceValues: 11 BDW, 12 SKL, 16 KBL, ...
  std::uint32_t stepping = 0;
  // Comment text, or the version record's command line.
  std::string text;

  // Binary dump: a request to the simulator to write memory to a file at this point of the trace.
  std::uint64_t dump_width = 0;  // bytes per row
  std::uint64_t dump_height = 0;
  std::uint64_t dump_pitch = 0;
  std::uint32_t dump_gtt = 0;  // GttType: 1 PPGTT (NEO's buffers), 0 GGTT

  // Context create.
  std::uint32_t context_handle = 0;
  bool context_64bit = false;
  std::uint64_t context_root = 0;  // PML4 (64-bit) or PDP0
};

// A malformed file: one line naming the file, the offset and the problem.
class AubError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AubReader {
 public:
  // Reads from `in`; `name` prefixes error messages (the file name).
  AubReader(std::istream& in, std::string name);

  // The next record, or false at the end of the file. Throws AubError on a malformed record.
  bool next(Record& record);

  std::uint64_t offset() const { return offset_; }
  std::uint64_t records() const { return records_; }

 private:
  [[noreturn]] void fail(std::uint64_t at, const std::string& what) const;
  void decode(Record& r) const;

  std::istream& in_;
  std::string name_;
  std::uint64_t offset_ = 0;
  std::uint64_t records_ = 0;
  std::vector<std::uint8_t> body_;  // the current record, header included
};

// The name of a sub-opcode ("memory write", ...) or "sub-opcode 0xN".
std::string sub_opcode_name(std::uint32_t opcode, std::uint32_t sub_opcode);

// Encoders for tests and tools: records as NEO's AubFileStream writes them.
std::vector<std::uint8_t> encode_version(std::uint32_t device, std::uint32_t stepping);
std::vector<std::uint8_t> encode_comment(const std::string& text);
std::vector<std::uint8_t> encode_register_write(std::uint32_t offset, std::uint32_t value);
std::vector<std::uint8_t> encode_register_poll(std::uint32_t offset, std::uint32_t mask, std::uint32_t value,
                                               bool not_equal);
std::vector<std::uint8_t> encode_register_compare(std::uint32_t offset, std::uint32_t value);
std::vector<std::uint8_t> encode_memory_write(std::uint64_t address, std::uint32_t address_space, std::uint32_t hint,
                                              const std::vector<std::uint8_t>& data);
std::vector<std::uint8_t> encode_memory_compare(std::uint64_t address, std::uint32_t address_space,
                                                const std::vector<std::uint8_t>& data, bool not_equal);
std::vector<std::uint8_t> encode_binary_dump(std::uint64_t address, std::uint64_t size, std::uint32_t gtt);
std::vector<std::uint8_t> encode_memory_poll(std::uint64_t address, std::uint32_t address_space,
                                             std::uint32_t size_bytes, std::uint64_t mask, std::uint64_t value,
                                             bool not_equal);

}  // namespace gpuvp::platform::aub
