// math idiv: quotient to the destination, remainder to the next register; inputs r4, r5 (:d).
math.idiv (8|M0)  r10.0<1>:d  r4.0<8;8,1>:d   r5.0<8;8,1>:d
math.idiv (8|M0)  r12.0<1>:ud r4.0<8;8,1>:ud  r5.0<8;8,1>:ud
// SIMD4 into the upper half of a register: the remainder lands in the upper half of the next one.
math.idiv (4|M0)  r14.4<1>:d  r4.0<4;4,1>:d   r5.0<4;4,1>:d
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
