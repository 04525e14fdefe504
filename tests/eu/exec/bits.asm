// Bit instructions: input r2:ud, r3:ud, r4:ud set by test_eu_exec.cpp.
bfrev (8|M0)    r10.0<1>:ud   r2.0<8;8,1>:ud
cbit (8|M0)     r11.0<1>:ud   r2.0<8;8,1>:ud
fbh (8|M0)      r12.0<1>:ud   r2.0<8;8,1>:ud
fbh (8|M0)      r13.0<1>:ud   r2.0<8;8,1>:d
fbl (8|M0)      r14.0<1>:ud   r2.0<8;8,1>:ud
lzd (8|M0)      r15.0<1>:ud   r2.0<8;8,1>:ud
bfe (8|M0)      r16.0<1>:ud   r3.0<4;1>:ud      r4.0<4;1>:ud      r2.0<1>:ud
bfe (8|M0)      r17.0<1>:d    r3.0<4;1>:d       r4.0<4;1>:d       r2.0<1>:d
bfi1 (8|M0)     r18.0<1>:ud   r3.0<8;8,1>:ud    r4.0<8;8,1>:ud
bfi2 (8|M0)     r19.0<1>:ud   r18.0<4;1>:ud     r5.0<4;1>:ud      r2.0<1>:ud
addc (8|M0)     r20.0<1>:ud   r2.0<8;8,1>:ud    r3.0<8;8,1>:ud
mov (8|M0)      r21.0<1>:ud   acc0.0<8;8,1>:ud
subb (8|M0)     r22.0<1>:ud   r3.0<8;8,1>:ud    r2.0<8;8,1>:ud
mov (8|M0)      r23.0<1>:ud   acc0.0<8;8,1>:ud
mul (8|M0)      acc0.0<1>:d   r2.0<8;8,1>:d     r6.0<16;8,2>:uw
mach (8|M0)     r24.0<1>:d    r2.0<8;8,1>:d     r6.0<8;8,1>:d
mul (8|M0)      acc0.0<1>:ud  r2.0<8;8,1>:ud    r6.0<16;8,2>:uw
mach (8|M0)     r25.0<1>:ud   r2.0<8;8,1>:ud    r6.0<8;8,1>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
