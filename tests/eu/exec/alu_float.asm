// Single-precision ALU: inputs r2, r3, r4 (8 floats each) set by test_eu_exec.cpp.
add (8|M0)      r10.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
mul (8|M0)      r11.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
mad (8|M0)      r12.0<1>:f    r4.0<4;1>:f       r2.0<4;1>:f       r3.0<1>:f
add (8|M0)  (sat)r13.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
sel (8|M0) (lt)f0.0 r14.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
sel (8|M0) (ge)f0.0 r15.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
frc (8|M0)      r16.0<1>:f    r2.0<8;8,1>:f
rndd (8|M0)     r17.0<1>:f    r2.0<8;8,1>:f
rndu (8|M0)     r18.0<1>:f    r2.0<8;8,1>:f
rnde (8|M0)     r19.0<1>:f    r2.0<8;8,1>:f
rndz (8|M0)     r20.0<1>:f    r2.0<8;8,1>:f
add (8|M0)      r21.0<1>:f    -r2.0<8;8,1>:f    (abs)r3.0<8;8,1>:f
mov (8|M0)      r22.0<1>:d    r2.0<8;8,1>:f
mov (8|M0)      r23.0<1>:ud   r2.0<8;8,1>:f
mul (8|M0)      r24.0<1>:f    r2.0<8;8,1>:f     0.5:f
add (8|M0)      r25.0<1>:f    r2.0<8;8,1>:f     0x48:vf
mov (8|M0)      r26.0<1>:f    0x3C38302C:vf
lrp (8|M0)      r27.0<1>:f    r4.0<4;1>:f       r2.0<4;1>:f       r3.0<1>:f
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
