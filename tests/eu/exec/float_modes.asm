// cr0 denormal and rounding modes; inputs r2, r3 (denormals), r4, r5 (rounding), r6 (:d), r7 (half conversion).
add (8|M0)      r10.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
(W) or (1|M0)   cr0.0<1>:ud   cr0.0<0;1,0>:ud   0x4C0:ud {Switch}
add (8|M0)      r11.0<1>:f    r2.0<8;8,1>:f     r3.0<8;8,1>:f
add (8|M0)      r12.0<1>:f    r4.0<8;8,1>:f     r5.0<8;8,1>:f
mov (8|M0)      r13.0<1>:f    r6.0<8;8,1>:d
mov (8|M0)      r14.0<1>:hf   r7.0<8;8,1>:f
(W) or (1|M0)   cr0.0<1>:ud   cr0.0<0;1,0>:ud   0x30:ud {Switch}
add (8|M0)      r15.0<1>:f    r4.0<8;8,1>:f     r5.0<8;8,1>:f
mov (8|M0)      r16.0<1>:f    r6.0<8;8,1>:d
mov (8|M0)      r17.0<1>:hf   r7.0<8;8,1>:f
(W) and (1|M0)  cr0.0<1>:ud   cr0.0<0;1,0>:ud   0xFFFFFFDF:ud {Switch}
add (8|M0)      r18.0<1>:f    r4.0<8;8,1>:f     r5.0<8;8,1>:f
mov (8|M0)      r19.0<1>:hf   r7.0<8;8,1>:f
mov (1|M0)      r20.0<1>:ud   cr0.0<0;1,0>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
