// Regions, subregisters, indirect addressing and data types; inputs r2, r3, r4 (floats), r5/r6 (:q), r7/r8 (:df).
mov (8|M0)      r10.0<1>:f    r2.3<0;1,0>:f
mov (8|M0)      r11.0<1>:f    r2.0<1;4,0>:f
mov (4|M0)      r12.0<2>:f    r2.0<8;4,2>:f
mov (8|M0)      r14.0<1>:ub   r9.0<32;8,4>:ub
add (4|M0)      r16.4<1>:f    r2.2<4;4,1>:f     r3.4<4;4,1>:f
mov (1|M0)      a0.0<1>:uw    0x60:uw
mov (8|M0)      r17.0<1>:f    r[a0.0,8]<8;8,1>:f
mov (1|M0)      a0.0<1>:uw    0x40:uw
mov (1|M0)      a0.1<1>:uw    0x58:uw
mov (1|M0)      a0.2<1>:uw    0x64:uw
mov (1|M0)      a0.3<1>:uw    0x7C:uw
mov (4|M0)      r18.0<1>:f    r[a0.0,0]<1,0>:f
mov (1|M0)      a0.4<1>:uw    0x260:uw
mov (4|M0)      r[a0.4,4]<1>:f  r2.0<4;4,1>:f
add (4|M0)      r20.0<1>:q    r5.0<4;4,1>:q     r6.0<4;4,1>:q
mul (4|M0)      r21.0<1>:df   r7.0<4;4,1>:df    r8.0<4;4,1>:df
mov (8|M0)      r23.0<1>:hf   r4.0<8;8,1>:f
mov (8|M0)      r24.0<1>:f    r23.0<8;8,1>:hf
mov (4|M0)      r25.0<1>:df   r2.0<4;4,1>:f
mov (4|M0)      r26.0<1>:f    r7.0<4;4,1>:df
mov (8|M0)      r27.0<1>:d    r14.0<8;8,1>:b
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
