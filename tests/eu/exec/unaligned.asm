// Fast forms on regions that start inside a register (fuzz_eu found a misaligned vector store there): a destination
// at dword 1 (spanning r10-r11), sources at dwords 1 and 3; inputs r2, r3 (dwords).
add (8|M0)      r10.1<1>:ud   r2.0<8;8,1>:ud    r3.0<8;8,1>:ud
mov (8|M0)      r12.3<1>:ud   r2.1<8;8,1>:ud
mul (8|M0)      r14.2<1>:d    r2.3<8;8,1>:d     r3.1<8;8,1>:d
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
