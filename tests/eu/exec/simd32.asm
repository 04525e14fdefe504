// SIMD32 as two SIMD16 halves (M0, M16) and one SIMD32 predicated move; inputs r2-r5 (:f, 32 channels).
add (16|M0)     r10.0<1>:f    r2.0<8;8,1>:f     1.0:f
add (16|M16)    r12.0<1>:f    r4.0<8;8,1>:f     2.0:f
cmp (16|M0)     (lt)f0.0      null<1>:f         r2.0<8;8,1>:f     8.0:f
cmp (16|M16)    (lt)f0.0      null<1>:f         r4.0<8;8,1>:f     20.0:f
mov (1|M0)      r14.0<1>:ud   f0.0<0;1,0>:ud
(f0.0) mov (32|M0)            r16.0<1>:w        1:w
send (16|M0)    null:ud       r127:ud           0x27              0x02000010 {EOT}
