// Accumulator, csel, DF arithmetic and saturating conversions; inputs r2, r3 (:f), r4, r5 (:df), r6 (:d).
mov (8|M0)      acc0.0<1>:f   r2.0<8;8,1>:f
mac (8|M0)      r10.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
csel (8|M0)     (lt)f0.0      r11.0<1>:f        r2.0<4;1>:f       r3.0<4;1>:f       r3.0<1>:f
add (4|M0)      (sat)r12.0<1>:df  r4.0<4;4,1>:df  r5.0<4;4,1>:df
mad (4|M0)      r14.0<1>:df   r4.0<4;1>:df      r5.0<4;1>:df      r5.0<1>:df
sel (4|M0)      (ge)f0.1      r16.0<1>:df       r4.0<4;4,1>:df    r5.0<4;4,1>:df
mov (8|M0)      (sat)r18.0<1>:ub  r2.0<8;8,1>:f
mov (8|M0)      (sat)r19.0<1>:f   r6.0<8;8,1>:d
add (8|M0)      (eq)f1.0      r20.0<1>:d        r6.0<8;8,1>:d     3:d
mov (1|M0)      r21.0<1>:uw   f1.0<0;1,0>:uw
add (8|M0)      (lt)f1.1      r22.0<1>:w        r6.0<8;8,1>:d     0:d
mov (1|M0)      r23.0<1>:uw   f1.1<0;1,0>:uw
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
