// bench_eu: an ALU-bound SIMD16 float kernel: 16 independent mad per iteration, r100 counts iterations up to
// r102 (set by the benchmark); 19 instructions per iteration.
LOOP:
mad (16|M0)     r10.0<1>:f   r10.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r12.0<1>:f   r12.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r14.0<1>:f   r14.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r16.0<1>:f   r16.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r18.0<1>:f   r18.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r20.0<1>:f   r20.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r22.0<1>:f   r22.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r24.0<1>:f   r24.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r26.0<1>:f   r26.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r28.0<1>:f   r28.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r30.0<1>:f   r30.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r32.0<1>:f   r32.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r34.0<1>:f   r34.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r36.0<1>:f   r36.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r38.0<1>:f   r38.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r40.0<1>:f   r40.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
add (16|M0)     r100.0<1>:d   r100.0<8;8,1>:d   1:d
cmp (16|M0)     (lt)f0.0      null<1>:d         r100.0<8;8,1>:d   r102.0<8;8,1>:d
(f0.0) while (16|M0)          LOOP
send (16|M0)    null:ud       r127:ud           0x27              0x02000010 {EOT}
