#include "tests/support/eu_oracle.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>

#include <gtest/gtest.h>
#include <unistd.h>

#include "tlm/gen/eu/disassembler.h"

namespace gpuvp::test::eu_oracle {
namespace fs = std::filesystem;

namespace {

std::string gen_option(eu::Generation gen) { return gen == eu::Generation::kGen9 ? "9" : "8"; }

// A branch whose JIP or UIP is not the offset of an instruction of the kernel.
bool branch_outside(const eu::DecodedInstruction& d, std::uint32_t pc, const std::set<std::int64_t>& starts) {
  if (d.op->op_class != eu::OpClass::kBranch) return false;
  auto outside = [&](std::int32_t offset) { return starts.count(static_cast<std::int64_t>(pc) + offset) == 0; };
  const std::string_view name = d.op->name;
  return outside(d.jip) || (name != "endif" && name != "while" && name != "join" && outside(d.uip));
}

// iga64's text with whitespace collapsed and a send's message description cut (see iga_disassemble).
std::string without_message_description(const std::string& line) {
  const std::size_t comment = line.find("//");
  if (comment == std::string::npos) return collapse_spaces(line);
  std::string text = collapse_spaces(line.substr(0, comment)) + " //";
  std::istringstream fields(line.substr(comment + 2));
  std::string field;
  for (int i = 0; i < 2 && std::getline(fields, field, ';'); ++i)
    text += (i == 0 ? " " : "; ") + collapse_spaces(field);
  return text;
}

}  // namespace

int run(const std::string& command) { return std::system(command.c_str()); }  // NOLINT(cert-env33-c): the oracle

Bytes bytes_from_hex(const std::string& text) {
  Bytes bytes;
  std::istringstream in(text);
  unsigned v = 0;
  while (in >> std::hex >> v) bytes.push_back(static_cast<std::uint8_t>(v));
  return bytes;
}

Word word_from_hex(const std::string& text) {
  const Bytes bytes = bytes_from_hex(text);
  Word w{};
  EXPECT_EQ(bytes.size(), w.size()) << text;
  std::copy_n(bytes.begin(), std::min(bytes.size(), w.size()), w.begin());
  return w;
}

Bytes join(const std::vector<Word>& words) {
  Bytes bytes;
  for (const Word& w : words) bytes.insert(bytes.end(), w.begin(), w.end());
  return bytes;
}

std::string hex_bytes(const std::uint8_t* bytes, std::size_t count) {
  std::string s;
  for (std::size_t i = 0; i < count; ++i) {
    std::array<char, 4> buf{};
    std::snprintf(buf.data(), buf.size(), "%02x ", bytes[i]);
    s += buf.data();
  }
  return s;
}

std::string collapse_spaces(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  std::string token;
  while (in >> token) out += (out.empty() ? "" : " ") + token;
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  // The process id keeps two build trees' runs of the same test (normal and sanitizer) apart.
  return fs::path(::testing::TempDir()) / (std::string(info->name()) + "_" + std::to_string(::getpid()) + "_" + name);
}

Bytes read_bytes(const fs::path& path) {
  const std::string text = read_file(path);
  return {text.begin(), text.end()};
}

std::vector<fs::path> corpus_files(const std::string& extension) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(GPUVP_SOURCE_DIR) / "tests/eu")) {
    if (entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

fs::path ocloc_compile(const fs::path& source, eu::Generation gen) {
  const bool gen9 = gen == eu::Generation::kGen9;
  const fs::path dir = temp_path(source.stem().string() + "_ocloc");
  fs::create_directories(dir);
  const std::string command = std::string(GPUVP_OCLOC) + " compile -q -file " + source.string() + " -device " +
                              (gen9 ? "skl" : "bdw") + " -out_dir " + dir.string() + " > " +
                              (dir / "log.txt").string() + " 2>&1";
  EXPECT_EQ(run(command), 0) << command << "\n" << read_file(dir / "log.txt");
  return dir / (source.stem().string() + (gen9 ? "_Gen9core.bin" : "_Gen8core.bin"));
}

std::vector<std::uint32_t> instruction_offsets(const Bytes& kernel) {
  std::vector<std::uint32_t> offsets;
  std::size_t pc = 0;
  while (pc + 4 <= kernel.size()) {
    const std::size_t length = (kernel[pc + 3] & 0x20) != 0 ? 8 : 16;
    if (pc + length > kernel.size()) break;
    offsets.push_back(static_cast<std::uint32_t>(pc));
    pc += length;
  }
  return offsets;
}

std::vector<std::optional<std::string>> iga_disassemble(const Bytes& kernel, eu::Generation gen) {
  const fs::path bin = temp_path("in.bin");
  const fs::path out = temp_path("out.txt");
  const fs::path err = temp_path("err.txt");
  {
    std::ofstream f(bin, std::ios::binary);
    f.write(reinterpret_cast<const char*>(kernel.data()), static_cast<std::streamsize>(kernel.size()));
  }
  run(std::string(GPUVP_IGA64) + " -d -p=" + gen_option(gen) + " --output-on-fail " + bin.string() + " -o " +
      out.string() + " 2> " + err.string());
  std::vector<std::optional<std::string>> result;
  std::istringstream lines(read_file(out));
  std::string line;
  const std::regex label_line(R"(^\s*L[_N0-9]+:\s*$)");
  while (std::getline(lines, line)) {
    if (std::regex_match(line, label_line) || collapse_spaces(line).empty()) continue;
    const bool illegal = collapse_spaces(line).rfind("illegal", 0) == 0;
    result.push_back(illegal ? std::nullopt : std::optional<std::string>(without_message_description(line)));
  }
  // iga64 reports some rejections only on stderr, at the instruction's byte offset.
  const std::vector<std::uint32_t> offsets = instruction_offsets(kernel);
  std::map<std::uint32_t, std::size_t> index_of;
  for (std::size_t i = 0; i < offsets.size(); ++i) index_of[offsets[i]] = i;
  std::istringstream errors(read_file(err));
  const std::regex offset_error(R"(byte offset 0x([0-9a-fA-F]+): error)");
  while (std::getline(errors, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, offset_error)) continue;
    const auto it = index_of.find(static_cast<std::uint32_t>(std::stoul(m[1].str(), nullptr, 16)));
    if (it != index_of.end() && it->second < result.size()) result[it->second].reset();
  }
  EXPECT_EQ(result.size(), offsets.size()) << "iga64 printed one line per instruction";
  fs::remove(bin);
  fs::remove(out);
  fs::remove(err);
  return result;
}

Bytes iga_assemble(const fs::path& source, const std::string& options) {
  const fs::path bin = temp_path("asm.bin");
  EXPECT_EQ(run(std::string(GPUVP_IGA64) + " -a -p=9 " + options + " " + source.string() + " -o " + bin.string()), 0)
      << "iga64 assembles " << source;
  const std::string bytes = read_file(bin);
  fs::remove(bin);
  return Bytes(bytes.begin(), bytes.end());
}

void compare_with_iga(const Bytes& kernel, eu::Generation gen, Tally& t, const std::string& file) {
  const auto iga = iga_disassemble(kernel, gen);
  const std::vector<std::uint32_t> offsets = instruction_offsets(kernel);
  const std::set<std::int64_t> starts(offsets.begin(), offsets.end());
  const std::string where = file.empty() ? "" : file + ": ";
  for (std::size_t i = 0; i < offsets.size() && i < iga.size(); ++i) {
    const std::uint32_t pc = offsets[i];
    const eu::DecodedAt at = eu::decode_at(kernel.data() + pc, kernel.size() - pc, gen);
    const std::string bytes = hex_bytes(kernel.data() + pc, at.length);
    ++t.instructions;
    if (at.length == 8) ++t.compacted;
    const auto* d = std::get_if<eu::DecodedInstruction>(&at.result);
    const eu::Disassembly ours = eu::disassemble(at.result, pc);
    if (d != nullptr && branch_outside(*d, pc, starts)) {
      ++t.branches_outside;
    } else if (!iga[i]) {
      if (ours.ok()) {
        t.failures.push_back(where + bytes + ": iga64 rejects, ours prints " + ours.text);
      } else {
        ++t.both_rejected;
      }
    } else if (ours.unsupported) {
      ++t.skipped;
      ++t.skip_reasons[ours.error];
    } else if (!ours.ok()) {
      t.failures.push_back(where + bytes + ": iga64 prints " + *iga[i] + ", ours rejects: " + ours.error);
    } else if (collapse_spaces(ours.text) != *iga[i]) {
      t.failures.push_back(where + bytes + ": iga64 prints " + *iga[i] + ", ours " + ours.text);
    } else {
      ++t.matched;
    }
  }
}

void report(const Tally& t) {
  std::printf(
      "matched %zu, both rejected %zu, skipped (unsupported here) %zu, branches leaving the kernel %zu, failures %zu "
      "of %zu instructions (%zu compacted)\n",
      t.matched, t.both_rejected, t.skipped, t.branches_outside, t.failures.size(), t.instructions, t.compacted);
  for (const auto& [reason, n] : t.skip_reasons) std::printf("  skipped %zu: %s\n", n, reason.c_str());
  for (std::size_t i = 0; i < t.failures.size() && i < 40; ++i) std::printf("  %s\n", t.failures[i].c_str());
}

Tally check_corpus(const std::string& options) {
  Tally t;
  for (const fs::path& source : corpus_files(".asm")) {
    compare_with_iga(iga_assemble(source, options), eu::Generation::kGen9, t, source.filename().string());
  }
  report(t);
  EXPECT_TRUE(t.failures.empty());
  EXPECT_EQ(t.matched, t.instructions) << "every corpus instruction is decoded by both and matches";
  EXPECT_GE(t.instructions, 144U) << "the corpus files were read";
  return t;
}

}  // namespace gpuvp::test::eu_oracle
