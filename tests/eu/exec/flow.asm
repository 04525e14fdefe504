// jmpi over a block, a subroutine call and return, wait on n0, and sends with descriptors in a0.
(W) mov (1|M0)  r10.0<1>:d    1:d
(W) jmpi (1|M0) SKIP
(W) mov (1|M0)  r10.0<1>:d    2:d
SKIP:
call (8|M0)     r20.0         SUB
(W) mov (1|M0)  r11.0<1>:d    3:d
wait (1|M0)     n0.0<0;1,0>:ud
(W) mov (1|M0)  a0.0<1>:ud    0x04281234:ud
(W) mov (1|M0)  a0.1<1>:ud    0x0000004C:ud
send (8|M0)     r40:ud        r30:ud            0xC               a0.0
sends (8|M0)    r42:ud        r30:ud            r31:ud            a0.1              a0.0
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
SUB:
(W) mov (1|M0)  r12.0<1>:d    4:d
ret (8|M0)      r20.0
