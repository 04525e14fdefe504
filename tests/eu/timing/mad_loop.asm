// Two independent SIMD16 mad chains in a loop: r100 counts iterations up to r102 (set by the test), f0 ends it.
// One thread's iteration (tests/test_eu_timing.cpp): mad 4 + mad 4 + add 4 (front end), cmp waits 8 for the add's
// r100, while waits 8 for cmp's f0, then the while's 8 front-end cycles: 32 cycles.
LOOP:
mad (16|M0)     r10.0<1>:f   r10.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
mad (16|M0)     r12.0<1>:f   r12.0<4;1>:f   r60.0<4;1>:f      r62.0<1>:f
add (16|M0)     r100.0<1>:d   r100.0<8;8,1>:d   1:d
cmp (16|M0)     (lt)f0.0      null<1>:d         r100.0<8;8,1>:d   r102.0<8;8,1>:d
(f0.0) while (16|M0)          LOOP
send (16|M0)    null:ud       r127:ud           0x27              0x02000010 {EOT}
