// Register kit: a block declares its registers once in a table (name, offset, width, reset value, access policy,
// fields); the bank decodes accesses, applies the policy, runs side-effect hooks, answers debug accesses and dumps
// itself. It knows nothing about SystemC sockets (see RegisterBlock for that), so it can be tested on its own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuvp::core {

enum class Access {
  kReadWrite,
  kReadOnly,
  kWriteOnly,        // reads return 0
  kWriteOneToClear,  // writing 1 to a bit clears it
  kMasked,           // upper 16 bits of a write select which of the lower 16 bits change (Intel "masked" registers)
};
const char* to_string(Access access);

struct RegisterField {
  std::string name;
  unsigned lsb = 0;
  unsigned width = 1;
  std::string description;
  std::uint64_t extract(std::uint64_t value) const {
    return width >= 64 ? value >> lsb : (value >> lsb) & ((1ULL << width) - 1);
  }
};

struct RegisterDef {
  std::string name;
  std::uint32_t offset = 0;
  unsigned width_bits = 32;  // 32 or 64
  std::uint64_t reset = 0;
  Access access = Access::kReadWrite;
  std::string description;
  std::vector<RegisterField> fields;
  // Bits that software can change (others keep their value on writes); defaults to all bits of the width.
  std::uint64_t writable_mask = ~0ULL;
};

class Register {
 public:
  // Computes the value a read returns (e.g. a live counter); gets the stored value.
  using ReadHook = std::function<std::uint64_t(Register& reg, std::uint64_t stored)>;
  // Runs after a write has been applied by the policy: old and new stored values and the raw data written.
  using WriteHook = std::function<void(Register& reg, std::uint64_t old_value, std::uint64_t written)>;

  explicit Register(RegisterDef def);

  const RegisterDef& def() const { return def_; }
  const std::string& name() const { return def_.name; }
  std::uint32_t offset() const { return def_.offset; }
  unsigned size_bytes() const { return def_.width_bits / 8; }
  std::uint64_t width_mask() const { return def_.width_bits == 64 ? ~0ULL : (1ULL << def_.width_bits) - 1; }

  // Stored value, without hooks (hardware-side view; blocks update their own status registers with set()).
  std::uint64_t value() const { return value_; }
  void set(std::uint64_t v) { value_ = v & width_mask(); }
  void set_bits(std::uint64_t bits) { set(value_ | bits); }
  void clear_bits(std::uint64_t bits) { set(value_ & ~bits); }
  std::uint64_t field(const std::string& name) const;
  void reset() { value_ = def_.reset & width_mask(); }

  Register& on_read(ReadHook hook) {
    read_hook_ = std::move(hook);
    return *this;
  }
  Register& on_write(WriteHook hook) {
    write_hook_ = std::move(hook);
    return *this;
  }

  // Bus-side accesses. byte_mask selects the bytes of the register the access covers (bit i*8..i*8+7 set for byte i).
  std::uint64_t bus_read();
  void bus_write(std::uint64_t data, std::uint64_t byte_mask);

 private:
  RegisterDef def_;
  std::uint64_t value_ = 0;
  ReadHook read_hook_;
  WriteHook write_hook_;
};

class RegisterBank {
 public:
  // Reports unmapped accesses and policy violations under this name (the owning module's hierarchical name).
  explicit RegisterBank(std::string block_name);
  RegisterBank(const RegisterBank&) = delete;
  RegisterBank& operator=(const RegisterBank&) = delete;

  // Declares a register; throws std::logic_error on a misaligned, mis-sized or overlapping declaration.
  Register& add(RegisterDef def);
  Register* find(std::uint32_t offset);
  Register& at(std::uint32_t offset);          // throws std::out_of_range
  Register& by_name(const std::string& name);  // throws std::out_of_range
  const std::vector<std::unique_ptr<Register>>& registers() const { return registers_; }
  const std::string& block_name() const { return block_name_; }

  // Little-endian access of len bytes at offset; may span several registers. Bytes not covered by a register read as
  // zero and are reported once per access as a warning naming block and offset. Returns false if any byte was
  // unmapped.
  bool read(std::uint32_t offset, unsigned char* data, unsigned len);
  bool write(std::uint32_t offset, const unsigned char* data, unsigned len);
  // Side-effect free access for transport_dbg: reads the stored values, writes them directly (no policy, no hooks).
  bool debug_read(std::uint32_t offset, unsigned char* data, unsigned len) const;
  bool debug_write(std::uint32_t offset, const unsigned char* data, unsigned len);

  void reset();
  // Accesses are logged through SC_REPORT_INFO when tracing is on.
  void set_trace(bool on) { trace_ = on; }

  // "NAME @0xOFFSET = 0xVALUE" per register, with decoded fields.
  void dump(std::ostream& out) const;
  // The table as JSON (gpuvp info --json, documentation).
  nlohmann::json describe() const;

 private:
  template <typename Fn>
  bool for_each_covered(std::uint32_t offset, unsigned len, Fn&& fn) const;
  // The register that starts at offset and is exactly len bytes wide (the usual MMIO access: no search, no byte
  // loops), else nullptr. The register found last is checked first: drivers and firmware poll and rewrite the same one.
  Register* exact(std::uint32_t offset, unsigned len) {
    Register* r = last_exact_;
    if (r == nullptr || r->offset() != offset) {
      r = find(offset);
      if (r == nullptr) return nullptr;
      last_exact_ = r;
    }
    return r->size_bytes() == len ? r : nullptr;
  }
  // A bus access of one register (bytes selected by byte_mask), with the policy warning and the trace.
  std::uint64_t read_register(Register& r);
  void write_register(Register& r, std::uint64_t v, std::uint64_t byte_mask);
  void report_unmapped(const char* what, std::uint32_t offset, unsigned len) const;

  std::string block_name_;
  std::vector<std::unique_ptr<Register>> registers_;
  std::unordered_map<std::uint32_t, Register*> by_offset_;  // offset of each register's first byte
  std::vector<Register*> sorted_;                           // by offset, for spanning accesses
  Register* last_exact_ = nullptr;                          // see exact()
  bool trace_ = false;
};

}  // namespace gpuvp::core
