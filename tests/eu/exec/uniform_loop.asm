// A loop controlled by one channel ((1|M0) while) in a SIMD8 thread: the other channels follow the thread's jumps.
LOOP:
add (8|M0)      r10.0<1>:d    r10.0<8;8,1>:d    1:d
add (1|M0)      r11.0<1>:d    r11.0<0;1,0>:d    1:d
cmp (1|M0)      (lt)f0.0      null<1>:d         r11.0<0;1,0>:d    5:d
(f0.0) while (1|M0)           LOOP
(f0.0) if (1|M0)              SKIP              SKIP
mov (8|M0)      r12.0<1>:d    7:d
SKIP:
endif (1|M0)    END
END:
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
