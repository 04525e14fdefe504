// if without else whose then-block falls through to the endif (IGC's common form): the channels that skipped the
// block must join at the endif, so the code after it runs once, for all channels. Input r2 (:d, 8 channels: x).
// r10 = x < 4 ? 100 : 0; r11 = 1 in every channel; r12.0 counts the (W) instructions after the endif: exactly 1.
mov (8|M0)      r10.0<1>:d    0:d
(W) mov (1|M0)  r12.0<1>:d    0:d
cmp (8|M0)      (lt)f0.0      null<1>:d         r2.0<8;8,1>:d     4:d
(f0.0) if (8|M0)              ENDIF0            ENDIF0
mov (8|M0)      r10.0<1>:d    100:d
ENDIF0:
endif (8|M0)    AFTER0
AFTER0:
(W) add (1|M0)  r12.0<1>:d    r12.0<0;1,0>:d    1:d
mov (8|M0)      r11.0<1>:d    1:d
(W) cmp (8|M0)  (eq)f0.1      null<1>:d         r2.0<8;8,1>:d     r2.0<8;8,1>:d
(f0.1) if (8|M0)              ENDIF1            ENDIF1
ENDIF1:
endif (8|M0)    AFTER1
AFTER1:
(W) mov (8|M0)  r127.0<1>:ud  r0.0<8;8,1>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
