// V3D register block of the VideoCore IV 3D core: offsets from the V3D base and their fields (Linux
// drivers/gpu/drm/vc4/vc4_regs.h names; field widths the header leaves out from the Broadcom VideoCore IV 3D
// Architecture Reference Guide's tables, transcribed in PeterLemon/RaspberryPi LIB/V3D.INC; docs/vc4-v3d.md).
#pragma once

#include <cstdint>

namespace gpuvp::vc4 {

constexpr std::uint32_t kV3dIdent0 = 0x000;
constexpr std::uint32_t kV3dIdent1 = 0x004;
constexpr std::uint32_t kV3dIdent2 = 0x008;
constexpr std::uint32_t kV3dScratch = 0x010;
constexpr std::uint32_t kV3dL2cactl = 0x020;
constexpr std::uint32_t kV3dSlcactl = 0x024;
constexpr std::uint32_t kV3dIntctl = 0x030;
constexpr std::uint32_t kV3dIntena = 0x034;
constexpr std::uint32_t kV3dIntdis = 0x038;
constexpr std::uint32_t kV3dCtnCs(unsigned n) { return 0x100 + 4 * n; }
constexpr std::uint32_t kV3dCtnEa(unsigned n) { return 0x108 + 4 * n; }
constexpr std::uint32_t kV3dCtnCa(unsigned n) { return 0x110 + 4 * n; }
constexpr std::uint32_t kV3dCtnRa0(unsigned n) { return 0x118 + 4 * n; }
constexpr std::uint32_t kV3dCtnLc(unsigned n) { return 0x120 + 4 * n; }
constexpr std::uint32_t kV3dCtnPc(unsigned n) { return 0x128 + 4 * n; }
constexpr std::uint32_t kV3dPcs = 0x130;
constexpr std::uint32_t kV3dBfc = 0x134;
constexpr std::uint32_t kV3dRfc = 0x138;
constexpr std::uint32_t kV3dBpca = 0x300;
constexpr std::uint32_t kV3dBpcs = 0x304;
constexpr std::uint32_t kV3dBpoa = 0x308;
constexpr std::uint32_t kV3dBpos = 0x30C;
// The QPU scheduler: reservations, control, and the user-program request queue (vc4_regs.h V3D_SQRSV0 ... V3D_SRQCS).
constexpr std::uint32_t kV3dSqrsv0 = 0x410;
constexpr std::uint32_t kV3dSqrsv1 = 0x414;
constexpr std::uint32_t kV3dSqcntl = 0x418;
constexpr std::uint32_t kV3dSrqpc = 0x430;
constexpr std::uint32_t kV3dSrqua = 0x434;
constexpr std::uint32_t kV3dSrqul = 0x438;
constexpr std::uint32_t kV3dSrqcs = 0x43C;
// SRQCS fields: 5:0 queue length, 7 error, 15:8 requests made, 23:16 programs completed (the guide via PeterLemon's
// V3D.INC; gpu_fft_base.c clears bits 7, 8 and 16).
constexpr std::uint32_t kV3dSrqcsError = 1u << 7;
constexpr std::uint32_t kV3dSrqcsClearMade = 1u << 8;
constexpr std::uint32_t kV3dSrqcsClearCompleted = 1u << 16;
constexpr unsigned kV3dSrqcsMadeShift = 8;
constexpr unsigned kV3dSrqcsCompletedShift = 16;
// VPM allocator (vc4_regs.h V3D_VPACNTL, V3D_VPMBASE).
constexpr std::uint32_t kV3dVpacntl = 0x500;
constexpr std::uint32_t kV3dVpmbase = 0x504;
// Debug: global enable, and the QPU host interrupts (vc4_regs.h V3D_DBCFG, V3D_DBQITE, V3D_DBQITC).
constexpr std::uint32_t kV3dDbcfg = 0xE00;
constexpr std::uint32_t kV3dDbqite = 0xE2C;
constexpr std::uint32_t kV3dDbqitc = 0xE30;
constexpr std::uint32_t kV3dDbge = 0xF00;
constexpr std::uint32_t kV3dFdbgo = 0xF04;
constexpr std::uint32_t kV3dFdbgb = 0xF08;
constexpr std::uint32_t kV3dFdbgr = 0xF0C;
constexpr std::uint32_t kV3dFdbgs = 0xF10;
constexpr std::uint32_t kV3dErrstat = 0xF20;
constexpr std::uint64_t kV3dWindowSize = 0x1000;

// 'V' '3' 'D' and technology version 2 (vc4_regs.h V3D_EXPECTED_IDENT0).
constexpr std::uint32_t kV3dExpectedIdent0 = 0x02443356;

// INTCTL / INTENA / INTDIS bits (vc4_regs.h V3D_INT_*).
constexpr std::uint32_t kV3dIntFrdone = 1u << 0;
constexpr std::uint32_t kV3dIntFldone = 1u << 1;
constexpr std::uint32_t kV3dIntOutomem = 1u << 2;
constexpr std::uint32_t kV3dIntSpilluse = 1u << 3;
constexpr std::uint32_t kV3dIntAll = 0xF;
// L2CACTL bits (vc4_regs.h).
constexpr std::uint32_t kV3dL2cEna = 1u << 0;
constexpr std::uint32_t kV3dL2cDis = 1u << 1;
constexpr std::uint32_t kV3dL2cClr = 1u << 2;
// PCS bits (vc4_regs.h).
constexpr std::uint32_t kV3dPcsBmActive = 1u << 0;
constexpr std::uint32_t kV3dPcsBmBusy = 1u << 1;
constexpr std::uint32_t kV3dPcsRmActive = 1u << 2;
constexpr std::uint32_t kV3dPcsRmBusy = 1u << 3;
constexpr std::uint32_t kV3dPcsBmOom = 1u << 8;

// CTnCS bits (vc4_regs.h V3D_CTNCS_*: CTMODE, CTERR, CTSUBS, CTRUN, CTRTSD 9:8, CTSEMA 14:12, CTRSTA).
struct CtnCsFields {
  static constexpr std::uint32_t kCtMode = 1u << 0;
  static constexpr std::uint32_t kCtErr = 1u << 3;
  static constexpr std::uint32_t kCtSubs = 1u << 4;
  static constexpr std::uint32_t kCtRun = 1u << 5;
  static constexpr unsigned kCtRtsdShift = 8;   // 9:8 return-stack depth
  static constexpr unsigned kCtSemaShift = 12;  // 14:12 semaphore count
  static constexpr std::uint32_t kCtRsta = 1u << 15;
};

}  // namespace gpuvp::vc4
