// jmpi, brd, brc, call, calla, ret, wait, movi, smov and the math macros (madm, math.invm/rsqtm) in the forms IGA's
// assembler writes: assembled and disassembled by iga64 and disassembled by gpuvp (tests/test_eu_disasm.cpp).
START:
(W) jmpi (1|M0) FWD
(W&f0.1) jmpi (1|M0) START
(W) jmpi (1|M0) r2.0<0;1,0>:d
FWD:
brd (1|M0) NEXT
NEXT:
brd (1|M0) r2.1<0;1,0>:d
brc (1|M0) NEXT2 START
NEXT2:
(f1.0) brc (1|M0) r2.0<0;1,0>:d
call (8|M0) r10.0<1>:ud SUB
call (16|M0) r11.0 r12.0
(f0.0) calla (16|M0) r10.0 0x30
SUB:
ret (8|M0) r10.0<0;1,0>:ud
(f0.0) ret (16|M0) r10.0
wait (1|M0) n0.0<0;1,0>:ud
wait n0.1:ud
movi (8|M0) r2.0<1>:uw r[a0.0,0]<1,0>:uw
(f0.0) movi (16|M0) (sat)r2.0<1>:uw r[a0.1,4]<1,0>:uw
movi (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud
smov (8|M0) r2.0<1>:d r3.0<8;8,1>:d 4:d
(f1.0) smov (8|M8) r2.0<1>:b r3.1<8;8,1>:b 4:w
madm (8|M0) r4.mme0:df r5.mme1:df r6.mme2:df r7.mme3:df
(f0.0) madm (4|M0) (sat)r4.nomme:df -r5.mme1:df (abs)r6.mme2:df r7.mme7:df {NoDDClr}
madm (8|M0) r4.mme0:f r5.mme1:f r6.mme2:f r7.mme3:f
math.rsqtm (8|M0) (eo)f1.1 r4.mme7:df r5.nomme:df
math.invm (4|M4) (eo)f0.1 r4.mme7:df -r5.nomme:df (abs)r7.mme6:df
nop
