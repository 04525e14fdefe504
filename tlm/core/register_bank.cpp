#include "tlm/core/register_bank.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <stdexcept>
#include <systemc>

#include "tlm/core/report.h"

namespace gpuvp::core {

const char* to_string(Access access) {
  switch (access) {
    case Access::kReadWrite:
      return "rw";
    case Access::kReadOnly:
      return "ro";
    case Access::kWriteOnly:
      return "wo";
    case Access::kWriteOneToClear:
      return "w1c";
    case Access::kMasked:
      return "masked";
  }
  return "?";
}

Register::Register(RegisterDef def) : def_(std::move(def)) { reset(); }

std::uint64_t Register::field(const std::string& name) const {
  for (const auto& f : def_.fields) {
    if (f.name == name) return f.extract(value_);
  }
  throw std::out_of_range("register " + def_.name + " has no field " + name);
}

std::uint64_t Register::bus_read() {
  if (def_.access == Access::kWriteOnly) return 0;
  return (read_hook_ ? read_hook_(*this, value_) : value_) & width_mask();
}

void Register::bus_write(std::uint64_t data, std::uint64_t byte_mask) {
  const std::uint64_t old = value_;
  const std::uint64_t writable = def_.writable_mask & byte_mask & width_mask();
  switch (def_.access) {
    case Access::kReadOnly:
      break;
    case Access::kReadWrite:
    case Access::kWriteOnly:
      value_ = (value_ & ~writable) | (data & writable);
      break;
    case Access::kWriteOneToClear:
      value_ &= ~(data & writable);
      break;
    case Access::kMasked: {
      // Bits 31:16 of the data are the write enables of bits 15:0. A write that does not carry the upper half
      // (e.g. a byte write) enables nothing.
      const std::uint64_t enables = (data & byte_mask) >> 16 & 0xFFFF;
      const std::uint64_t change = enables & writable & 0xFFFF;
      value_ = (value_ & ~change) | (data & change);
      break;
    }
  }
  if (write_hook_) write_hook_(*this, old, data);
}

RegisterBank::RegisterBank(std::string block_name) : block_name_(std::move(block_name)) {}

Register& RegisterBank::add(RegisterDef def) {
  if (def.width_bits != 32 && def.width_bits != 64) {
    throw std::logic_error(block_name_ + ": register " + def.name + " must be 32 or 64 bits wide");
  }
  if (def.offset % 4 != 0) throw std::logic_error(block_name_ + ": register " + def.name + " is not dword aligned");
  if (def.access == Access::kMasked && def.width_bits != 32) {
    throw std::logic_error(block_name_ + ": masked register " + def.name + " must be 32 bits wide");
  }
  const std::uint32_t end = def.offset + def.width_bits / 8;
  for (Register* r : sorted_) {
    if (def.offset < r->offset() + r->size_bytes() && r->offset() < end) {
      throw std::logic_error(block_name_ + ": register " + def.name + " overlaps " + r->name());
    }
  }
  registers_.push_back(std::make_unique<Register>(std::move(def)));
  Register* reg = registers_.back().get();
  by_offset_[reg->offset()] = reg;
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), reg,
                                  [](const Register* a, const Register* b) { return a->offset() < b->offset(); }),
                 reg);
  return *reg;
}

Register* RegisterBank::find(std::uint32_t offset) {
  auto it = by_offset_.find(offset);
  return it == by_offset_.end() ? nullptr : it->second;
}

Register& RegisterBank::at(std::uint32_t offset) {
  Register* r = find(offset);
  if (!r) throw std::out_of_range(block_name_ + ": no register at " + format_hex(offset));
  return *r;
}

Register& RegisterBank::by_name(const std::string& name) {
  for (auto& r : registers_) {
    if (r->name() == name) return *r;
  }
  throw std::out_of_range(block_name_ + ": no register named " + name);
}

// Calls fn(reg, first byte of the access inside the register, first byte of the register inside the access, count)
// for every register overlapping [offset, offset + len). Returns false when some byte is not covered.
template <typename Fn>
bool RegisterBank::for_each_covered(std::uint32_t offset, unsigned len, Fn&& fn) const {
  const std::uint64_t end = static_cast<std::uint64_t>(offset) + len;
  std::uint64_t covered = 0;
  // The first register that may overlap starts at most 8 bytes before offset.
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), offset >= 8 ? offset - 8 : 0,
                             [](const Register* r, std::uint32_t o) { return r->offset() < o; });
  for (; it != sorted_.end() && (*it)->offset() < end; ++it) {
    Register* r = *it;
    const std::uint64_t r_end = static_cast<std::uint64_t>(r->offset()) + r->size_bytes();
    if (r_end <= offset) continue;
    const std::uint64_t lo = std::max<std::uint64_t>(offset, r->offset());
    const std::uint64_t hi = std::min<std::uint64_t>(end, r_end);
    fn(*r, static_cast<unsigned>(lo - r->offset()), static_cast<unsigned>(lo - offset), static_cast<unsigned>(hi - lo));
    covered += hi - lo;
  }
  return covered == len;
}

void RegisterBank::report_unmapped(const char* what, std::uint32_t offset, unsigned len) const {
  report_guest_warning(block_name_.c_str(), std::string(what) + " of unmapped register offset " + format_hex(offset) +
                                                " (" + std::to_string(len) + " bytes)" +
                                                (what[0] == 'r' ? ": returns 0" : ": ignored"));
}

namespace {
std::uint64_t byte_mask(unsigned first, unsigned count) {
  return count >= 8 ? ~0ULL : ((1ULL << (count * 8)) - 1) << (first * 8);
}
}  // namespace

// The register bytes of an access are little-endian, as the host's (the single-register paths copy whole values).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "register accesses assume a little-endian host");

std::uint64_t RegisterBank::read_register(Register& r) {
  const std::uint64_t v = r.bus_read();
  if (trace_) report_info(block_name_.c_str(), "read " + r.name() + " = " + format_hex(v));
  return v;
}

void RegisterBank::write_register(Register& r, std::uint64_t v, std::uint64_t byte_mask) {
  if (r.def().access == Access::kReadOnly) {
    report_guest_warning(block_name_.c_str(), "write of " + format_hex(v) + " to read-only register " + r.name() +
                                                  " (" + format_hex(r.offset()) + ") ignored");
  }
  r.bus_write(v, byte_mask);
  if (trace_) report_info(block_name_.c_str(), "write " + r.name() + " <- " + format_hex(v));
}

bool RegisterBank::read(std::uint32_t offset, unsigned char* data, unsigned len) {
  if (Register* r = exact(offset, len)) {
    const std::uint64_t v = read_register(*r);
    std::memcpy(data, &v, len);  // len is 4 or 8: the low bytes of v
    return true;
  }
  std::memset(data, 0, len);
  bool complete = for_each_covered(offset, len, [&](Register& r, unsigned in_reg, unsigned in_access, unsigned n) {
    const std::uint64_t v = read_register(r);
    for (unsigned i = 0; i < n; ++i) data[in_access + i] = static_cast<unsigned char>(v >> ((in_reg + i) * 8));
  });
  if (!complete) report_unmapped("read", offset, len);
  return complete;
}

bool RegisterBank::write(std::uint32_t offset, const unsigned char* data, unsigned len) {
  if (Register* r = exact(offset, len)) {
    std::uint64_t v = 0;
    std::memcpy(&v, data, len);
    write_register(*r, v, byte_mask(0, len));
    return true;
  }
  bool complete = for_each_covered(offset, len, [&](Register& r, unsigned in_reg, unsigned in_access, unsigned n) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(data[in_access + i]) << ((in_reg + i) * 8);
    write_register(r, v, byte_mask(in_reg, n));
  });
  if (!complete) report_unmapped("write", offset, len);
  return complete;
}

bool RegisterBank::debug_read(std::uint32_t offset, unsigned char* data, unsigned len) const {
  std::memset(data, 0, len);
  return for_each_covered(offset, len, [&](Register& r, unsigned in_reg, unsigned in_access, unsigned n) {
    for (unsigned i = 0; i < n; ++i) data[in_access + i] = static_cast<unsigned char>(r.value() >> ((in_reg + i) * 8));
  });
}

bool RegisterBank::debug_write(std::uint32_t offset, const unsigned char* data, unsigned len) {
  return for_each_covered(offset, len, [&](Register& r, unsigned in_reg, unsigned in_access, unsigned n) {
    std::uint64_t v = r.value();
    for (unsigned i = 0; i < n; ++i) {
      const unsigned shift = (in_reg + i) * 8;
      v = (v & ~(0xFFULL << shift)) | static_cast<std::uint64_t>(data[in_access + i]) << shift;
    }
    r.set(v);
  });
}

void RegisterBank::reset() {
  for (auto& r : registers_) r->reset();
}

void RegisterBank::dump(std::ostream& out) const {
  for (const Register* r : sorted_) {
    out << std::left << std::setw(24) << r->name() << " @" << format_hex(r->offset()) << " = "
        << format_hex(r->value());
    for (const auto& f : r->def().fields) out << ' ' << f.name << '=' << format_hex(f.extract(r->value()));
    out << '\n';
  }
}

nlohmann::json RegisterBank::describe() const {
  nlohmann::json regs = nlohmann::json::array();
  for (const Register* r : sorted_) {
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& f : r->def().fields) {
      fields.push_back({{"name", f.name}, {"lsb", f.lsb}, {"width", f.width}, {"description", f.description}});
    }
    regs.push_back({{"name", r->name()},
                    {"offset", format_hex(r->offset())},
                    {"width", r->def().width_bits},
                    {"reset", format_hex(r->def().reset)},
                    {"access", to_string(r->def().access)},
                    {"description", r->def().description},
                    {"fields", fields}});
  }
  return regs;
}

}  // namespace gpuvp::core
