// One instruction of each timing class (tests/test_eu_timing.cpp lists what each must give), assembled by iga64.
add (16|M0)      r10.0<1>:f    r11.0<8;8,1>:f    r13.0<8;8,1>:f
add (8|M0)       r10.0<1>:f    r11.0<8;8,1>:f    1.0:f
mad (16|M0)      r20.0<1>:f    r21.0<2;1>:f      r23.0<2;1>:f      r8.4<0>:f
mov (1|M0)       r30.0<1>:ud   0x5:ud
add (8|M0)       r40.0<1>:df   r42.0<4;4,1>:df   r44.0<4;4,1>:df
add (16|M0)      r50.0<1>:hf   r51.0<16;16,1>:hf r52.0<16;16,1>:hf
mul (16|M0)      r60.0<1>:d    r62.0<8;8,1>:d    r64.0<8;8,1>:d
mul (16|M0)      r60.0<1>:d    r62.0<8;8,1>:d    r66.0<16;16,1>:w
math.inv (16|M0) r70.0<1>:f    r72.0<8;8,1>:f
math.fdiv (16|M0) r70.0<1>:f   r72.0<8;8,1>:f    r74.0<8;8,1>:f
math.idiv (8|M0) r76.0<1>:d    r77.0<8;8,1>:d    r78.0<8;8,1>:d
cmp (16|M0)      (lt)f0.0      null<1>:f         r80.0<8;8,1>:f    0.0:f
(f1.0) sel (16|M0) r82.0<1>:f  r83.0<8;8,1>:f    r85.0<8;8,1>:f
sel (16|M0)      (ge)f0.0      r82.0<1>:f        r83.0<8;8,1>:f    0.0:f
mov (8|M0)       r90.0<1>:ud   r[a0.0,8]<8;8,1>:ud
mul (8|M0)       acc0.0<1>:d   r2.0<8;8,1>:d     r6.0<16;8,2>:uw
mach (8|M0)      r24.0<1>:d    r2.0<8;8,1>:d     r6.0<8;8,1>:d
mov (8|M0)       r20.0<1>:ud   r21.4<4;4,1>:ud
add (16|M0)      r30.0<1>:f    r31.3<0;1,0>:f    r32.0<8;8,1>:f
add (16|M16)     r34.0<1>:f    r36.0<8;8,1>:f    r38.0<8;8,1>:f
send (16|M0)     r100:ud       r102:ud           0xC               0x04205E00
sends (16|M0)    null:ud       r110:ud           r112:ud           0x8C              0x04025E01
send (8|M0)      r104:ud       r106:ud           0xC               a0.0
(f0.0) if (16|M0)                ENDIF0            ENDIF0
ENDIF0:
endif (16|M0)    NEXT0
NEXT0:
nop
send (16|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
