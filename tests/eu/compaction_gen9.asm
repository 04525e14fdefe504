// Gen9 instructions that iga64 -Xautocompact encodes in the 8-byte compacted form (tests/test_eu_compaction.cpp), also
// checked uncompacted (tests/test_eu_disasm.cpp): three-source forms, 13-bit immediates, subregisters and regions of
// the compaction tables, and a loop whose labels fall on 8-byte boundaries.
mad (16|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f
(W) mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f
mad (8|M0) r10.0<1>:f -r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f
mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f -r13.0<1>:f
lrp (8|M0) (sat)r10.0<1>:f r11.0<0;0>:f r12.0<2;1>:f r13.4<0>:f
mov (16|M0) r20.0<1>:ud 0x0:ud
mov (8|M0) r20.0<1>:d -4096:d
add (16|M16) r4.0<1>:f r6.0<8;8,1>:f -r8.0<8;8,1>:f
(W) add (1|M0) a0.0<1>:uw r2.0<0;1,0>:uw 0x40:uw
cmp (16|M0) (ge)f0.0 null<1>:f r3.0<8;8,1>:f r4.0<8;8,1>:f
mul (8|M0) r2.0<1>:d r3.0<8;8,1>:d 4095:d
and (8|M0) r2.0<1>:ud r3.0<8;8,1>:ud 0x1F:ud
(W) mov (8|M0) r127.0<1>:ud r0.0<8;8,1>:ud
sel (8|M0) (lt)f0.0 r2.0<1>:f r3.0<8;8,1>:f r4.0<8;8,1>:f {AccWrEn}
mov (8|M0) r2.0<1>:uw r3.0<16;8,2>:uw
LOOP:
add (16|M0) r4.0<1>:d r4.0<8;8,1>:d 1:d
cmp (16|M0) (lt)f0.0 null<1>:d r4.0<8;8,1>:d 16:d
(f0.0) while (16|M0) LOOP
