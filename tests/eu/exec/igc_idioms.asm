// Instruction forms IGC 1.0.12504 emits for Gen9 64-bit integer, double and control-flow code (found by the OpenCL
// corpus): inputs r2 (:q, 4 channels), r3 (:uq, 4), r4 (:d, 4), r5 (:f, 4); outputs below. Channels 0..7.
// r10 (:q) = (long)r4 << 32: a QWord destination shifts by up to 63 even from a DWord source.
shl (4|M0)      r10.0<1>:q    r4.0<4;4,1>:d     32:w
// r11 (:q) = r2 & 0xFFFFFFFF_E0000000: a signed DWord immediate sign-extends in a logic instruction too.
and (4|M0)      r11.0<1>:q    r2.0<4;4,1>:q     -536870912:d
// r12.0 (:uw) = channels where r3 < r2 as unsigned QWords (UQ values above 2^63 are large, not negative).
cmp (4|M0)      (lt)f0.0      null<1>:q         r3.0<4;4,1>:uq    r2.0<4;4,1>:uq
(W) mov (1|M0)  r12.0<1>:uw   f0.0<0;1,0>:uw
// r13 (:df) = (double)r3 as unsigned.
mov (4|M0)      r13.0<1>:df   r3.0<4;4,1>:uq
// r14 (:q) = r2 - |r2|: -(abs) is the negated absolute value.
add (4|M0)      r14.0<1>:q    r2.0<4;4,1>:q     -(abs)r2.0<4;4,1>:q
// r15 (:f) = min(r5, 1.5) and r16 = max(r5, 1.5): a NaN source, signalling or quiet, loses.
sel (4|M0)      (lt)f0.1      r15.0<1>:f        r5.0<4;4,1>:f     1.5:f
sel (4|M0)      (ge)f0.1      r16.0<1>:f        r5.0<4;4,1>:f     1.5:f
// Forward gotos on Gen9 send the channels whose predicate is FALSE to UIP (IGC flips the vISA predicate for
// BDW/SKL); an all-zero flag makes an unconditional jump. r17 = 7 only where r4 > 0; r18 stays 0.
mov (8|M0)      r17.0<1>:d    0:d
mov (8|M0)      r18.0<1>:d    0:d
cmp (8|M0)      (gt)f1.0      null<1>:d         r4.0<8;8,1>:d     0:d
(f1.0) goto (8|M0)            JOIN0             JOIN0
mov (8|M0)      r17.0<1>:d    7:d
JOIN0:
join (8|M0)     AFTER0
AFTER0:
(W) mov (1|M0)  f1.1<1>:uw    0x0:uw
(f1.1) goto (8|M0)            JOIN1             JOIN1
mov (8|M0)      r18.0<1>:d    9:d
JOIN1:
join (8|M0)     AFTER1
AFTER1:
(W) mov (8|M0)  r127.0<1>:ud  r0.0<8;8,1>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
