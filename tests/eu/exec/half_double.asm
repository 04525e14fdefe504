// Half and double precision add, mul and mad (the fast forms of fast_path.cpp): HF at SIMD16 and SIMD8 with a scalar,
// a replicated and an immediate source, the upper half of a SIMD32 thread (M16); DF at SIMD8 in Align1 and Align16
// with a scalar source (each mad adds a product of the magnitude of its own, so that fusing shows). First with every
// denormal flushed (cr0 as reset), then HF and DF denormals preserved but not F ones (0x440: the host does not flush,
// so DF and F modes part), then every denormal preserved (0x4C0).
add (16|M0)     r10.0<1>:hf   r2.0<16;16,1>:hf  r3.0<16;16,1>:hf
mul (16|M0)     r11.0<1>:hf   r4.0<16;16,1>:hf  r5.0<16;16,1>:hf
mul (8|M0)      r12.0<1>:hf   r6.0<8;8,1>:hf    r7.0<0;1,0>:hf
add (16|M0)     r13.0<1>:hf   r8.0<16;16,1>:hf  0x3C00:hf
mad (16|M0)     r14.0<1>:hf   r2.0<4;1>:hf      r9.0<4;1>:hf      r3.0<1>:hf
mad (8|M0)      r15.0<1>:hf   r4.0<4;1>:hf      r5.0<0;0>:hf      r8.0<1>:hf
add (16|M16)    r16.0<1>:hf   r9.0<16;16,1>:hf  r3.0<16;16,1>:hf
add (8|M0)      r20.0<1>:df   r40.0<4;4,1>:df   r42.0<4;4,1>:df
mul (8|M0)      r22.0<1>:df   r44.0<4;4,1>:df   r48.0<0;1,0>:df
mad (8|M0)      r24.0<1>:df   r22.0<2;1>:df     r50.0<2;1>:df     r52.0<1>:df
(W) or (1|M0)   cr0.0<1>:ud   cr0.0<0;1,0>:ud   0x440:ud {Switch}
add (16|M0)     r26.0<1>:hf   r2.0<16;16,1>:hf  r3.0<16;16,1>:hf
mul (16|M0)     r27.0<1>:hf   r4.0<16;16,1>:hf  r5.0<16;16,1>:hf
mad (16|M0)     r28.0<1>:hf   r6.0<4;1>:hf      r7.0<4;1>:hf      r8.0<1>:hf
mul (8|M0)      r30.0<1>:df   r44.0<4;4,1>:df   r48.0<0;1,0>:df
(W) or (1|M0)   cr0.0<1>:ud   cr0.0<0;1,0>:ud   0x4C0:ud {Switch}
add (16|M0)     r31.0<1>:hf   r2.0<16;16,1>:hf  r9.0<16;16,1>:hf
add (8|M0)      r32.0<1>:df   r40.0<4;4,1>:df   r42.0<4;4,1>:df
mul (8|M0)      r34.0<1>:df   r44.0<4;4,1>:df   r48.0<0;1,0>:df
mad (8|M0)      r36.0<1>:df   r34.0<2;1>:df     r50.0<2;1>:df     r52.0<1>:df
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
