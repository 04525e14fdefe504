// Align16 three-source forms (issue 17): replicated scalars, Gen9 mixed HF/F sources, Align16 predicates,
// assembled and disassembled by iga64 and disassembled by gpuvp (tests/test_eu_disasm.cpp).
mad (8|M0) r10.0<1>:f r11.0<0;0>:f r12.0<2;1>:f r13.0<1>:f
mad (8|M0) r10.0<1>:f r11.1<0;0>:f r12.2<0;0>:f r13.3<0>:f
mad (16|M0) r10.0<1>:hf r11.0<2;1>:hf r12.0<2;1>:hf r13.0<1>:hf
mad (8|M0) r10.0<1>:hf r11.0<2;1>:hf r12.0<2;1>:f r13.0<1>:hf
mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:hf r13.0<1>:f
mad (8|M0) r10.0<1>:f r11.0<2;1>:hf r12.0<2;1>:f r13.0<1>:f
(f0.0.any4h) mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f
(~f1.0.all4h) lrp (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f
(f0.1) bfe (8|M0) r10.0<1>:ud r11.0<2;1>:ud r12.0<0;0>:ud r13.0<1>:ud
bfi2 (16|M16) r10.0<1>:d r11.0<2;1>:d r12.0<2;1>:d r13.0<0>:d
csel (8|M0) (lt)f0.0 r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f
mad (4|M0) r10.0<1>:df r11.0<2;1>:df r12.0<0;0>:df r13.0<1>:df
