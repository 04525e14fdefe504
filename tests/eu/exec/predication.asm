// Flags, predication and masks (8 channels dispatched); inputs r2 (:f), r3 (:d).
add (8|M0)      (gt)f0.0      r10.0<1>:f        r2.0<8;8,1>:f     -1.0:f
(f0.0) mov (8|M0)             r11.0<1>:f        1.0:f
(~f0.0) mov (8|M0)            r11.0<1>:f        -1.0:f
(f0.0) sel (8|M0)             r12.0<1>:f        r2.0<8;8,1>:f     0.0:f
mov (1|M0)      r13.0<1>:uw   f0.0<0;1,0>:uw
(f0.0.any4h) mov (8|M0)       r14.0<1>:f        1.0:f
(f0.0.all4h) mov (8|M0)       r15.0<1>:f        1.0:f
(W) mov (16|M0) r16.0<1>:d    9:d
mov (8|M8)      r18.0<1>:d    3:d
cmp (8|M0)      (ne)f1.0      null<1>:f         r2.0<8;8,1>:f     r2.0<8;8,1>:f
mov (1|M0)      r19.0<1>:uw   f1.0<0;1,0>:uw
cmp (8|M0)      (le)f1.1      r20.0<1>:d        r3.0<8;8,1>:d     0:d
mov (1|M0)      r21.0<1>:uw   f1.1<0;1,0>:uw
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
