// Divergent subroutine calls (input r2:d): the channels with r2 > 0 call SUB, where those with r2 > 1 return early;
// then a call through a register target (an offset from the call: SUB2 - 0x50) and a predicated calla (absolute).
// Offsets are of the native encoding (16 bytes an instruction).
         mov (8|M0)               r10.0<1>:d    0:d
         cmp (8|M0)  (gt)f0.0     null<1>:d     r2.0<8;8,1>:d     0:d
(f0.0)   call (8|M0)              r20.0         SUB
         add (8|M0)               r10.0<1>:d    r10.0<8;8,1>:d    100:d
(W)      mov (1|M0)               r22.0<1>:d    0x80:d
         call (8|M0)              r24.0         r22.0
(f0.0)   calla (8|M0)             r26.0         0xF0
(W)      send (8|M0)              null:ud       r127:ud           0x27              0x02000010 {EOT}
SUB:
         add (8|M0)               r10.0<1>:d    r10.0<8;8,1>:d    1:d
         cmp (8|M0)  (gt)f1.0     null<1>:d     r2.0<8;8,1>:d     1:d
(f1.0)   ret (8|M0)               r20.0
         add (8|M0)               r10.0<1>:d    r10.0<8;8,1>:d    10:d
         ret (8|M0)               r20.0
SUB2:
         mov (8|M0)               r11.0<1>:d    7:d
         ret (8|M0)               r24.0
SUB3:
         mov (8|M0)               r12.0<1>:d    5:d
         ret (8|M0)               r26.0
