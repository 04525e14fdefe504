// SIMD16 divergent control flow; inputs r2-r3 (:d, 16 channels: x), r4-r5 (:d, n), r6-r7 (:d, cont mask).
// if/else/endif: r10-r11 = x < 8 ? 1 : 2 (the if's JIP is the instruction after the else, as Mesa and IGC emit).
cmp (16|M0)     (lt)f0.0      null<1>:d         r2.0<8;8,1>:d     8:d
(f0.0) if (16|M0)             ELSE0             ENDIF0
mov (16|M0)     r10.0<1>:d    1:d
else (16|M0)    ENDIF0        ENDIF0
ELSE0:
mov (16|M0)     r10.0<1>:d    2:d
ENDIF0:
endif (16|M0)   AFTER0
AFTER0:
// while/break: r12-r13 = n (the counter), r14-r15 = 0 + 1 + ... + (n - 1).
mov (16|M0)     r12.0<1>:d    0:d
mov (16|M0)     r14.0<1>:d    0:d
LOOP1:
cmp (16|M0)     (ge)f0.1      null<1>:d         r12.0<8;8,1>:d    r4.0<8;8,1>:d
(f0.1) break (16|M0)          WHILE1            WHILE1
add (16|M0)     r14.0<1>:d    r14.0<8;8,1>:d    r12.0<8;8,1>:d
add (16|M0)     r12.0<1>:d    r12.0<8;8,1>:d    1:d
WHILE1:
while (16|M0)   LOOP1
// cont: i = 1..10, skipping the i with (i & mask) != 0; r22-r23 = the sum of the others.
mov (16|M0)     r20.0<1>:d    0:d
mov (16|M0)     r22.0<1>:d    0:d
LOOP2:
add (16|M0)     r20.0<1>:d    r20.0<8;8,1>:d    1:d
cmp (16|M0)     (gt)f1.1      null<1>:d         r20.0<8;8,1>:d    10:d
(f1.1) break (16|M0)          WHILE2            WHILE2
and (16|M0)     (nz)f1.0      null<1>:d         r20.0<8;8,1>:d    r6.0<8;8,1>:d
(f1.0) cont (16|M0)           WHILE2            WHILE2
add (16|M0)     r22.0<1>:d    r22.0<8;8,1>:d    r20.0<8;8,1>:d
WHILE2:
while (16|M0)   LOOP2
// goto/join: channels with x < 4 skip to the join; r24-r25 = 5 for the others. A forward goto on Gen9 sends the
// channels whose predicate is false (IGC CFGStructurizer::generateGotoJoin flips its predicate for BDW/SKL).
cmp (16|M0)     (ge)f0.0      null<1>:d         r2.0<8;8,1>:d     4:d
(f0.0) goto (16|M0)           JOIN3             JOIN3
mov (16|M0)     r24.0<1>:d    5:d
JOIN3:
join (16|M0)    AFTER3
AFTER3:
// halt: the channel with x == 3 stops until the final halt; r26-r27 = 7 for the others.
cmp (16|M0)     (eq)f0.0      null<1>:d         r2.0<8;8,1>:d     3:d
(f0.0) halt (16|M0)           HALT4             HALT4
mov (16|M0)     r26.0<1>:d    7:d
HALT4:
halt (16|M0)    END4          END4
END4:
mov (16|M0)     r28.0<1>:ud   ce0.0<0;1,0>:ud
send (16|M0)    null:ud       r127:ud           0x27              0x02000010 {EOT}
