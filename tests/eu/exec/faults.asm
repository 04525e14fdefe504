// Modelled errors: r2.0 selects one (0: unmodelled instruction, 1: region outside the GRF, 2: endless loop).
cmp (8|M0)      (eq)f0.0      null<1>:ud        r2.0<0;1,0>:ud    0:ud
(f0.0) if (8|M0)              NEXT1             NEXT1
dp4 (8|M0)      r10.0<1>:f    r3.0<8;8,1>:f     r4.0<8;8,1>:f
NEXT1:
endif (8|M0)    AFTER1
AFTER1:
cmp (8|M0)      (eq)f0.0      null<1>:ud        r2.0<0;1,0>:ud    1:ud
(f0.0) if (8|M0)              NEXT2             NEXT2
mov (1|M0)      a0.0<1>:uw    0xFF0:uw
mov (8|M0)      r10.0<1>:f    r[a0.0,0]<8;8,1>:f
NEXT2:
endif (8|M0)    AFTER2
AFTER2:
LOOP:
add (1|M0)      r11.0<1>:ud   r11.0<0;1,0>:ud   1:ud
while (1|M0)    LOOP
