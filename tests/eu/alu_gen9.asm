// Gen9 instructions in IGA syntax: assembled by iga64 -a -p=9 at test time, then disassembled by iga64 and by
// gpuvp's disassembler (tests/test_eu_disasm.cpp), which must print the same text.
mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f
(W) mov (1|M0) r2.1<1>:ud 0x12:ud
add (16|M0) r4.0<1>:d r6.0<8;8,1>:d -r8.0<8;8,1>:d
mul (8|M0) (sat)r2.0<1>:f (abs)r3.0<8;8,1>:f 1.5:f
(f0.0) sel (8|M0) r2.0<1>:f r3.0<8;8,1>:f r4.0<8;8,1>:f
cmp (8|M0) (lt)f0.0 null<1>:f r3.0<8;8,1>:f 0x0:f
cmp (16|M0) (eq)f1.1 null<1>:d r3.0<8;8,1>:d -7:d
cmp (8|M8) (ge)f0.1 r9.0<1>:uw r3.0<16;8,2>:uw 0xFFFF:uw
math.inv (8|M0) r2.0<1>:f r3.0<8;8,1>:f
math.sqt (16|M0) r2.0<1>:f r3.0<8;8,1>:f
math.rsqt (8|M0) r2.0<1>:f r3.0<8;8,1>:f
math.fdiv (8|M0) r2.0<1>:f r3.0<8;8,1>:f r5.0<8;8,1>:f
math.pow (8|M0) r2.0<1>:f r3.0<8;8,1>:f r5.0<8;8,1>:f
math.idiv (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud r5.0<8;8,1>:ud
mov (8|M0) r2.0<1>:df 1.5:df
mov (8|M0) r2.0<1>:df 0.1:df
mov (8|M0) r2.0<1>:w 0x12345678:v
mov (8|M0) r2.0<1>:uw 0x12345678:uv
mov (8|M0) r2.0<1>:f 0x3F800000:vf
mov (8|M0) r2.0<1>:f 0.1:f
mov (8|M0) r2.0<1>:f -2.0:f
mov (8|M0) r2.0<1>:f 0x7F800000:f
mov (8|M0) r2.0<1>:f 100000000.0:f
mov (8|M0) r2.0<1>:hf 0x3C00:hf
mov (8|M0) r2.0<1>:d -5:d
mov (8|M0) r2.0<1>:w -5:w
mov (8|M0) r2.0<1>:q 0x123456789:q
mov (8|M0) r2.0<1>:uq 0x123456789:uq
mov (8|M0) r2.0<1>:ub r3.0<32;8,4>:ub
mov (8|M0) r2.0<2>:b r3.3<16;8,2>:b
mov (16|M16) r2.0<1>:f acc0.0<8;8,1>:f
mov (4|M4) r2.0<1>:f r3.0<1;1,0>:f
(~f1.1.any4h) mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f
(f0.0.all8h) mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f
mov (8|M0) r2.0<1>:f r[a0.0]<8;8,1>:f
mov (8|M0) r2.0<1>:f r[a0.1,4]<1,0>:f
mov (8|M0) r[a0.2,-32]<1>:f r3.0<8;8,1>:f
mov (8|M0) r2.0<1>:f -(abs)r3.0<8;8,1>:f
and (8|M8) r2.0<1>:ud r3.0<8;8,1>:ud ~r4.0<8;8,1>:ud
or (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud 0xFF:ud
xor (16|M0) r2.0<1>:d r4.0<8;8,1>:d r6.0<8;8,1>:d
not (8|M0) r2.0<1>:d ~r3.0<8;8,1>:d
shl (1|M0) a0.0<1>:uw r3.1<0;1,0>:uw 0x2:uw
shr (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud 0x4:ud
asr (8|M0) r2.0<1>:d r3.0<8;8,1>:d 0x1F:ud
mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f {AccWrEn,Atomic,Breakpoint,NoDDChk,NoDDClr}
mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f {Switch}
mac (8|M0) r2.0<1>:f r3.0<8;8,1>:f r4.0<8;8,1>:f {AccWrEn}
mach (8|M0) r2.0<1>:d r3.0<8;8,1>:d r4.0<8;8,1>:d {AccWrEn}
addc (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud r4.0<8;8,1>:ud {AccWrEn}
subb (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud r4.0<8;8,1>:ud {AccWrEn}
frc (8|M0) r2.0<1>:f r3.0<8;8,1>:f
rndd (8|M0) r2.0<1>:f r3.0<8;8,1>:f
rnde (8|M0) r2.0<1>:f r3.0<8;8,1>:f
lzd (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud
fbh (8|M0) r2.0<1>:ud r3.0<8;8,1>:d
cbit (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud
bfrev (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud
bfi1 (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud r4.0<8;8,1>:ud
avg (8|M0) r2.0<1>:d r3.0<8;8,1>:d r4.0<8;8,1>:d
add (32|M0) r2.0<1>:w r3.0<16;16,1>:w r4.0<16;16,1>:w
mov (8|M24) r2.0<1>:f r3.0<8;8,1>:f
mov (1|M0) sr0.0<1>:ud cr0.0<0;1,0>:ud {Switch}
mov (8|M0) r2.0<1>:f r3.0<8;8,1>:f
mad (8|M0) r10.0<1>:f r11.0<4;1>:f r12.0<4;1>:f r13.0<1>:f
lrp (8|M0) r10.0<1>:f -r11.0<4;1>:f r12.0<4;1>:f (abs)r13.0<1>:f
mad (16|M0) (sat)r10.0<1>:f r11.0<4;1>:f r12.0<4;1>:f r13.0<1>:f
bfe (8|M0) r10.0<1>:d r11.0<4;1>:d r12.0<4;1>:d r13.0<1>:d
bfi2 (8|M0) r10.0<1>:ud r11.0<4;1>:ud r12.0<4;1>:ud r13.0<1>:ud
csel (8|M0) r10.0<1>:f r11.0<4;1>:f r12.0<4;1>:f r13.0<1>:f
mad (8|M0) r10.0<1>:df r11.0<4;1>:df r12.0<4;1>:df r13.0<1>:df
nop
send (8|M0) r12:ud r2:ud 0xC 0x2210C000
(W) send (16|M0) null:ud r112:ud 0x27 0x02000010 {EOT}
