// A vc4-like host driver model: physically contiguous buffers (vc4 has no MMU), Mesa-style binning control lists with
// NV shader state (pre-shaded vertices: the model has no QPUs yet), the kernel's render control list construction
// (vc4_render_cl.c), the kernel's validation of user binning lists (vc4_validate.c vc4_validate_bin_cl), render
// set-ups (vc4_render_cl.c vc4_get_rcl) and whole submissions against a BO table (Vc4Submit, vc4_gem.c submit
// ioctl; docs/vc4-v3d.md), the kernel's bin memory set-up (a 512 KiB bin slot: tile state data array,
// then tile allocation memory), the binner out-of-memory interrupt handler (vc4_irq.c), submission through
// CT0CA/CT0EA and CT1CA/CT1EA (vc4_gem.c submit_cl) and waiting for FLDONE/FRDONE. It reaches the platform only
// through a HostPort, so the same code runs live or is recorded as a host script.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/vc4/packets.h"
#include "tb/host/host_port.h"

namespace gpuvp::host {

struct Vc4Layout {
  std::uint64_t v3d = 0xE100'0000;          // V3D register window
  std::uint32_t memory_base = 0x0800'0000;  // physical memory the driver hands out (128 MiB up)
  std::uint32_t memory_size = 0x0800'0000;  // 128 MiB
};

// A pre-shaded vertex: screen position in pixels (stored as 12.4 fixed point), Z and 1/W, and the values of the
// scene's varyings (the first Vc4Scene::varyings of them; GL scenes carry the first four).
struct Vc4Vertex {
  float x = 0;
  float y = 0;
  float z = 0.5f;
  float inv_w = 1.0f;
  std::array<float, 8> varyings{};
};

// One draw call's worth of a scene: triangles (16-bit indices) over NV-shaded vertices, or over vertices the GL
// shader state's coordinate and vertex shaders shade.
struct Vc4Scene {
  unsigned width = 0;  // pixels
  unsigned height = 0;
  std::vector<Vc4Vertex> vertices;
  std::vector<std::uint16_t> indices;
  // The draw's primitive mode (GL_INDEXED_PRIMITIVE: 0 points, 1 lines, 2 line loop, 3 line strip, 4 triangles,
  // 5 triangle strip, 6 triangle fan) and, for points and lines, POINT_SIZE and LINE_WIDTH in pixels.
  unsigned mode = 4;
  float point_size = 1, line_width = 1;
  std::uint32_t color = 0xFFFFFFFF;  // the flat fragment shader's colour (0xAARRGGBB, as the tile buffer holds it)
  // The fragment shader (encoded QPU instructions; empty: the flat shader of `color`) and the varyings (0-4) it reads.
  std::vector<std::uint64_t> fragment_shader;
  unsigned varyings = 0;
  std::vector<std::uint32_t> fragment_uniforms;  // its uniform stream (texture parameters, constants)
  // CONFIGURATION_BITS' depth test: the function (0 never, 1 less, ... 7 always) and whether Z is updated.
  unsigned depth_func = 7;
  bool depth_write = false;
  // CONFIGURATION_BITS' early Z (b16) and early-Z updates (b17), as Mesa sets them for LESS / LEQUAL (vc4_state.c).
  bool early_z = false;
  // GL shader state instead of NV, when both are given: the coordinate and vertex shaders (encoded QPU instructions:
  // the driver model has no compiler) run on the QPUs. Attribute 0 is each vertex's clip-space position (x W, y W,
  // z W, W) with W = 1 / inv_w and x, y the pixel position mapped to [-1, 1] over the frame; attribute 1 its four
  // varyings (16 bytes each, one 32-byte stride). The coordinate shader reads attribute 0 at VPM row 0, the vertex
  // shader attribute 0 at row 0 and 1 at row 4; both take two uniforms, the half width and half height in 1/16
  // pixel (the viewport scale, as Mesa's shaders apply it), and VIEWPORT_OFFSET moves the origin to the centre.
  std::vector<std::uint64_t> coordinate_shader, vertex_shader;
  // The shader record's flag bit 0 ("FS single-threaded") clear: the fragment shader runs two threads per QPU (it
  // must then switch threads around its TMU lookups and keep to registers 0-15).
  bool threaded_fragment_shader = false;
  // NV shader state with clipping: the record's clipping flag and clip header (Xc, Yc, Zc, Wc ahead of each shaded
  // vertex, as the GL path's attribute 0), positions relative to the frame's centre with VIEWPORT_OFFSET there.
  bool nv_clip_header = false;
};

// The smallest fragment shader (the shape of Broadcom's compiled flat shaders): the constant `color` to the tile
// buffer's colour for every sample, the thread end and its two delay slots, the scoreboard unlock on the last.
std::vector<std::uint64_t> flat_color_fragment_shader(std::uint32_t color);

// The kernel's render set-up (struct drm_vc4_submit_cl fields that shape the render list).
struct Vc4RenderSetup {
  std::uint32_t color_address = 0;  // colour write surface (0: none)
  unsigned width = 0;
  unsigned height = 0;
  // TILE_RENDERING_MODE_CONFIG bits: RGBA8888 (VC4_RENDER_CONFIG_FORMAT_RGBA8888).
  std::uint16_t color_bits = 1u << vc4::TileBufferFields::kConfigFormatShift;
  bool use_clear_color = false;
  std::uint32_t clear_color[2] = {0, 0};
  std::uint32_t clear_z = 0;
  std::uint8_t clear_s = 0;
  bool has_bin = false;          // a binning list precedes: WAIT_ON_SEMAPHORE and BRANCH_TO_SUB_LIST per tile
  std::uint32_t tile_alloc = 0;  // tile allocation memory of the bin job
  unsigned bin_tiles_x = 0;
  unsigned bin_tiles_y = 0;
  unsigned min_x_tile = 0;
  unsigned min_y_tile = 0;
  unsigned max_x_tile = 0;  // inclusive
  unsigned max_y_tile = 0;
};

// The smallest stand-in for what the kernel's submit ioctl sees (struct drm_vc4_submit_cl in vc4_drm.h and the GEM
// objects its handle array names), enough to run the kernel's checks (vc4_gem.c vc4_submit_cl_ioctl, vc4_get_bcl;
// vc4_validate.c; vc4_render_cl.c vc4_get_rcl). GEM handles become positions in `bos`.
struct Vc4Bo {
  std::uint32_t addr = 0;
  std::uint32_t size = 0;
  // A BO the kernel validated as a shader (vc4_validate_shaders.c, run at BO creation). The model has no shader
  // validator and no QPUs: these fields state what it would have found.
  bool shader = false;
  bool threaded = false;                // validated_shader->is_threaded
  std::uint32_t uniforms_src_size = 0;  // bytes of the uniform stream the shader reads
};
// struct drm_vc4_submit_rcl_surface.
struct Vc4SubmitSurface {
  static constexpr std::uint32_t kNone = ~0u;
  static constexpr std::uint16_t kReadIsFullRes = 1u << 0;  // VC4_SUBMIT_RCL_SURFACE_READ_IS_FULL_RES
  std::uint32_t hindex = kNone;                             // position in Vc4Submit::bos; kNone: no surface
  std::uint32_t offset = 0;
  std::uint16_t bits = 0;  // LOAD/STORE_TILE_BUFFER_GENERAL bits, or TILE_RENDERING_MODE_CONFIG bits
  std::uint16_t flags = 0;
};
struct Vc4Submit {
  // Submit flags (vc4_drm.h VC4_SUBMIT_CL_*).
  static constexpr std::uint32_t kUseClearColor = 1u << 0;
  static constexpr std::uint32_t kFixedRclOrder = 1u << 1;
  static constexpr std::uint32_t kRclOrderIncreasingX = 1u << 2;
  static constexpr std::uint32_t kRclOrderIncreasingY = 1u << 3;

  std::vector<Vc4Bo> bos;            // bo_handles / bo_handle_count
  std::vector<std::uint8_t> bin_cl;  // the user's binning list (GEM_HANDLES packets name BOs by position)
  // Per GL_SHADER_STATE, in order: 3 + attribute-count u32 BO positions (FS, VS, CS, then one per attribute), then
  // the shader record itself (36 + 8 x attributes bytes, or 100 + 4 x attributes extended), as Mesa packs them.
  std::vector<std::uint8_t> shader_rec;
  std::uint32_t shader_rec_count = 0;
  std::uint32_t uniforms_size = 0;  // bytes of uniforms supplied (their contents are not modelled)
  Vc4SubmitSurface color_read, color_write, zs_read, zs_write, msaa_color_write, msaa_zs_write;
  std::uint16_t width = 0;
  std::uint16_t height = 0;
  std::uint8_t min_x_tile = 0, min_y_tile = 0, max_x_tile = 0, max_y_tile = 0;
  std::uint32_t flags = 0;
  std::uint32_t pad2 = 0;
  std::uint32_t perfmonid = 0;
};

class Vc4Driver {
 public:
  struct Buffer {
    std::uint32_t addr = 0;
    std::uint32_t size = 0;
  };
  // vc4_v3d.c: the bin BO is carved into 512 KiB slots; a job's bin memory (and an overflow block) is one slot.
  static constexpr std::uint32_t kBinSlotSize = 512 * 1024;
  // TILE_BINNING_MODE_CONFIG flags the kernel forces (vc4_validate.c): auto-init TSDA, 32-byte initial blocks,
  // 128-byte further blocks.
  static constexpr std::uint8_t kKernelBinFlags =
      vc4::BinningModeConfigFields::kConfigAutoInitTsda | 2u << vc4::BinningModeConfigFields::kConfigBlockShift;

  explicit Vc4Driver(HostPort& port, Vc4Layout layout = {});
  HostPort& port() { return port_; }
  const Vc4Layout& layout() const { return layout_; }

  // Contiguous physical memory; throws std::runtime_error when the driver's memory is exhausted.
  Buffer alloc(std::uint32_t size, std::uint32_t align = 4096);
  void upload(const Buffer& buffer, std::uint32_t offset, const std::vector<std::uint8_t>& bytes);

  // An RGBA8888 texture (0xAARRGGBB texels, row 0 first: t = 0) at level 0 only, laid out as the TMU reads it and as
  // Mesa lays it out (vc4_resource.c: LT when either side is at most 4 micro-tiles, vc4_size_is_lt; T-format
  // otherwise, padded to whole tiles) in a 4 KiB-aligned buffer, and its config parameters P0 and P1 for a fragment
  // shader's uniforms (vc4_packet.h VC4_TEX_P0/P1_*; nearest or bilinear filtering, the wrap mode for s and t:
  // 0 repeat, 1 clamp, 2 mirror).
  struct Texture {
    Buffer buffer;
    std::uint32_t p0 = 0, p1 = 0;
  };
  Texture upload_texture(unsigned width, unsigned height, const std::vector<std::uint32_t>& texels,
                         bool bilinear = false, unsigned wrap = 0);

  // vc4_irq.c postinstall: clear INTCTL, enable FLDONE, FRDONE and OUTOMEM.
  void enable_interrupts();

  // Mesa-style binning list for a scene (vc4_draw.c / vc4_job.c, NV shader state instead of GL: no QPU): the vertex
  // data, indices and shader record are uploaded; TILE_BINNING_MODE_CONFIG carries the tile grid and placeholder
  // addresses that bin_setup() fills in, as the kernel does. Ends INCREMENT_SEMAPHORE, FLUSH.
  std::vector<std::uint8_t> build_bin_cl(const Vc4Scene& scene);

  // The kernel's checks of a user binning list (vc4_validate.c vc4_validate_bin_cl and helpers): an empty string when
  // the list passes, else the first problem with its byte offset. `shader_rec_count` is the number of GL shader
  // records the submission provides.
  static std::string validate_bin_cl(const std::vector<std::uint8_t>& cl, unsigned shader_rec_count = 1);
  // The kernel's checks of the render set-up (vc4_render_cl.c vc4_get_rcl and its surface set-up).
  static std::string validate_render_setup(const Vc4RenderSetup& setup);
  // Everything the submit ioctl checks before a job is queued, in its order (vc4_gem.c vc4_submit_cl_ioctl): submit
  // flags, pad2, the BO table, the exec sizes (vc4_get_bcl), the binning list with its BO references (indexed draws
  // against their index buffer, array draws), the GL shader records (handles, shader BOs, threading, uniforms,
  // attribute bounds against max index x stride), the render tiles and every surface (vc4_get_rcl), the perfmon id.
  // Empty when the job would be accepted. Texture relocations (vc4_validate.c reloc_tex) are not checked: the model
  // has no shader validator to name the texture samples a shader makes, so no texture ever reaches a check.
  std::string validate_submit(const Vc4Submit& job) const;
  // vc4_get_bcl's arithmetic over the exec arguments (32-bit: shader records after the list rounded to 16 bytes, then
  // uniforms, then 8 bytes of shader state per record): empty, or the overflow.
  static std::string check_exec_sizes(std::uint32_t bin_cl_size, std::uint32_t shader_rec_size,
                                      std::uint32_t uniforms_size, std::uint32_t shader_rec_count);
  // A performance monitor id of this file (vc4_perfmon.c ids start at 1); the counters themselves are not modelled.
  std::uint32_t create_perfmon() { return perfmons_.emplace_back(static_cast<std::uint32_t>(perfmons_.size() + 1)); }

  // Bin memory set-up of a validated list (vc4_validate.c validate_tile_binning_config): a fresh bin slot; TSDA at its
  // start, tile allocation memory after roundup(48 * tiles, 4096), the rest of the slot as its size, flags forced.
  // Returns the tile allocation address; the list is rewritten in place.
  struct BinSetup {
    std::uint32_t tsda = 0;
    std::uint32_t tile_alloc = 0;
    std::uint32_t tile_alloc_size = 0;
    unsigned tiles_x = 0;
    unsigned tiles_y = 0;
  };
  BinSetup bin_setup(std::vector<std::uint8_t>& bin_cl);

  // The render list as vc4_render_cl.c builds it (header: optional CLEAR_COLORS + TILE_COORDINATES(0,0) + no-op
  // store, then TILE_RENDERING_MODE_CONFIG; per tile, y outer and x inner: TILE_COORDINATES, WAIT_ON_SEMAPHORE before
  // the first tile's branch, BRANCH_TO_SUB_LIST into the tile's list, STORE_MS_TILE_BUFFER, _AND_EOF on the last).
  static std::vector<std::uint8_t> build_render_cl(const Vc4RenderSetup& setup);

  // Writes the lists to memory and starts them (vc4_gem.c: cache flush, then CT0 and CT1 through CA and EA; a thread
  // whose list is empty is not started).
  void submit(const std::vector<std::uint8_t>& bin_cl, const std::vector<std::uint8_t>& render_cl);
  // Supplies an overflow block before the job (what a script can do, since it cannot react to OUTOMEM).
  void supply_overspill(std::uint32_t size = kBinSlotSize);
  // The OUTOMEM handler (vc4_irq.c vc4_irq + vc4_overflow_mem_work): INTDIS, a new slot in BPOA/BPOS, ack, INTENA.
  // Returns true when it handled one.
  bool service_interrupts();
  // Waits for FRDONE (serving OUTOMEM in between when service_oom; a script waits the whole budget at once) and
  // acknowledges FLDONE and FRDONE. False on time-out.
  bool wait_frame(std::uint64_t timeout_ns, bool service_oom = true);

  unsigned overflow_blocks_supplied() const { return overflow_blocks_; }

  // ---- QPU user programs ----
  // Uploads a QPU program (64-bit instructions) or uniforms into a new buffer; returns its bus address.
  std::uint32_t upload_qpu_code(const std::vector<std::uint64_t>& code);
  std::uint32_t upload_uniforms(const std::vector<std::uint32_t>& uniforms);
  // Runs one program per entry of `uniforms` (the bus address of each program's uniforms), all at `code`, as
  // gpu_fft's direct mode does (gpu_fft_base.c gpu_fft_base_exec_direct; no firmware): DBCFG = 0, DBQITE = 0,
  // DBQITC = all, L2CACTL clear, SLCACTL clear, SRQCS error and counts reset, SRQUA and SRQPC per program (SRQUL is
  // never written); then polls SRQCS until the completed count reaches the number of programs. False on time-out.
  bool run_qpu_programs(std::uint32_t code, const std::vector<std::uint32_t>& uniforms, std::uint64_t timeout_ns);

 private:
  std::uint64_t reg(std::uint32_t offset) const { return layout_.v3d + offset; }

  HostPort& port_;
  Vc4Layout layout_;
  std::uint32_t next_ = 0;
  unsigned overflow_blocks_ = 0;
  std::vector<std::uint32_t> perfmons_;
};

}  // namespace gpuvp::host
