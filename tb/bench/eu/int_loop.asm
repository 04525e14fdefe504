// bench_eu: an integer SIMD16 kernel: 16 dword operations per iteration (add, mul, xor, and, shl, or), r100 counts
// iterations up to r102; 19 instructions per iteration.
LOOP:
add (16|M0)  r10.0<1>:d   r10.0<8;8,1>:d   r60.0<8;8,1>:d
mul (16|M0)  r12.0<1>:d   r12.0<8;8,1>:d   r60.0<8;8,1>:d
xor (16|M0)  r14.0<1>:d   r14.0<8;8,1>:d   r60.0<8;8,1>:d
and (16|M0)  r16.0<1>:d   r16.0<8;8,1>:d   r60.0<8;8,1>:d
shl (16|M0)  r18.0<1>:d   r18.0<8;8,1>:d   3:d
or (16|M0)  r20.0<1>:d   r20.0<8;8,1>:d   r60.0<8;8,1>:d
add (16|M0)  r22.0<1>:d   r22.0<8;8,1>:d   r60.0<8;8,1>:d
mul (16|M0)  r24.0<1>:d   r24.0<8;8,1>:d   r60.0<8;8,1>:d
add (16|M0)  r26.0<1>:d   r26.0<8;8,1>:d   r60.0<8;8,1>:d
mul (16|M0)  r28.0<1>:d   r28.0<8;8,1>:d   r60.0<8;8,1>:d
xor (16|M0)  r30.0<1>:d   r30.0<8;8,1>:d   r60.0<8;8,1>:d
and (16|M0)  r32.0<1>:d   r32.0<8;8,1>:d   r60.0<8;8,1>:d
shl (16|M0)  r34.0<1>:d   r34.0<8;8,1>:d   3:d
or (16|M0)  r36.0<1>:d   r36.0<8;8,1>:d   r60.0<8;8,1>:d
add (16|M0)  r38.0<1>:d   r38.0<8;8,1>:d   r60.0<8;8,1>:d
mul (16|M0)  r40.0<1>:d   r40.0<8;8,1>:d   r60.0<8;8,1>:d
add (16|M0)     r100.0<1>:d   r100.0<8;8,1>:d   1:d
cmp (16|M0)     (lt)f0.0      null<1>:d         r100.0<8;8,1>:d   r102.0<8;8,1>:d
(f0.0) while (16|M0)          LOOP
send (16|M0)    null:ud       r127:ud           0x27              0x02000010 {EOT}
