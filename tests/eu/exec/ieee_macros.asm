// IGC's IEEE double divide (r10 = r2 / r3) and square root (r20 = sqrt(r4)) macro sequences for Gen9, SIMD4, as
// ocloc emits them for OpenCL `a / b` and `sqrt(a)`: math.invm/rsqtm give an approximation or, flagging the channel
// (eo), the final result; the madm steps refine the others. The early-out flags go to r30.0 (divide) and r30.1 (sqrt).
(W)      or (1|M0)               cr0.0<1>:ud   cr0.0<0;1,0>:ud   0x4C0:uw {Switch}
(W)      mov (4|M0)              r40.0<1>:df   1.0:df
(W)      mov (4|M0)              r41.0<1>:df   0.0:df
(W)      mov (4|M0)              r42.0<1>:df   0.5:df
(W)      mov (4|M0)              r43.0<1>:df   1.5:df
(W)      mov (1|M0)              f0.0<1>:uw    0x0:uw
(W)      mov (1|M0)              f1.0<1>:uw    0x0:uw
// Divide: a = r2, b = r3.
(W)      math.invm (4|M0) (eo)f0.0  r10.mme0:df  r2.nomme:df    r3.nomme:df
(W&~f0.0) madm (4|M0)            r11.mme1:df   r41.nomme:df      r2.nomme:df       r10.mme0:df
(W&~f0.0) madm (4|M0)            r12.mme2:df   r40.nomme:df      -r3.nomme:df      r10.mme0:df
(W&~f0.0) madm (4|M0)            r13.mme3:df   r2.nomme:df       -r3.nomme:df      r11.mme1:df
(W&~f0.0) madm (4|M0)            r14.mme4:df   r10.mme0:df       r12.mme2:df       r10.mme0:df
(W&~f0.0) madm (4|M0)            r15.mme5:df   r40.nomme:df      -r3.nomme:df      r14.mme4:df
(W&~f0.0) madm (4|M0)            r10.mme6:df   r10.mme0:df       r12.mme2:df       r14.mme4:df
(W&~f0.0) madm (4|M0)            r11.mme7:df   r11.mme1:df       r13.mme3:df       r14.mme4:df
(W&~f0.0) madm (4|M0)            r14.mme0:df   r14.mme4:df       r10.mme6:df       r15.mme5:df
(W&~f0.0) madm (4|M0)            r13.mme1:df   r2.nomme:df       -r3.nomme:df      r11.mme7:df
(W&~f0.0) madm (4|M0)            r10.nomme:df  r11.mme7:df       r13.mme1:df       r14.mme0:df
// Square root: a = r4.
(W)      math.rsqtm (4|M0) (eo)f1.0  r20.mme0:df  r4.nomme:df
(W&~f1.0) madm (4|M0)            r21.mme1:df   r41.nomme:df      r42.nomme:df      r20.mme0:df
(W&~f1.0) madm (4|M0)            r22.mme2:df   r41.nomme:df      r4.nomme:df       r20.mme0:df
(W&~f1.0) madm (4|M0)            r23.mme3:df   r42.nomme:df      -r22.mme2:df      r21.mme1:df
(W&~f1.0) madm (4|M0)            r24.mme5:df   r40.nomme:df      r43.nomme:df      r23.mme3:df
(W&~f1.0) madm (4|M0)            r20.mme6:df   r41.nomme:df      r23.mme3:df       r22.mme2:df
(W&~f1.0) madm (4|M0)            r23.mme7:df   r41.nomme:df      r23.mme3:df       r21.mme1:df
(W&~f1.0) madm (4|M0)            r20.mme6:df   r22.mme2:df       r24.mme5:df       r20.mme6:df
(W&~f1.0) madm (4|M0)            r24.mme5:df   r21.mme1:df       r24.mme5:df       r23.mme7:df
(W&~f1.0) madm (4|M0)            r21.mme1:df   r4.nomme:df       -r20.mme6:df      r20.mme6:df
(W&~f1.0) madm (4|M0)            r20.nomme:df  r20.mme6:df       r21.mme1:df       r24.mme5:df
(W)      mov (1|M0)              r30.0<1>:uw   f0.0<0;1,0>:uw
(W)      mov (1|M0)              r30.1<1>:uw   f1.0<0;1,0>:uw
// The structured form of the divide (the brief's IGC output): the early-out channels skip the madm steps by if/endif.
(W)      math.invm (4|M0) (eo)f1.0  r50.mme0:df  r2.nomme:df    r3.nomme:df
(~f1.0)  if (4|M0)               L_end         L_end
         madm (4|M0)             r51.mme1:df   r41.nomme:df      r2.nomme:df       r50.mme0:df
         madm (4|M0)             r52.mme2:df   r40.nomme:df      -r3.nomme:df      r50.mme0:df
         madm (4|M0)             r53.mme3:df   r2.nomme:df       -r3.nomme:df      r51.mme1:df
         madm (4|M0)             r54.mme4:df   r50.mme0:df       r52.mme2:df       r50.mme0:df
         madm (4|M0)             r55.mme5:df   r40.nomme:df      -r3.nomme:df      r54.mme4:df
         madm (4|M0)             r50.mme6:df   r50.mme0:df       r52.mme2:df       r54.mme4:df
         madm (4|M0)             r51.mme7:df   r51.mme1:df       r53.mme3:df       r54.mme4:df
         madm (4|M0)             r54.mme0:df   r54.mme4:df       r50.mme6:df       r55.mme5:df
         madm (4|M0)             r53.mme1:df   r2.nomme:df       -r3.nomme:df      r51.mme7:df
         madm (4|M0)             r50.nomme:df  r51.mme7:df       r53.mme1:df       r54.mme0:df
L_end:
         endif (4|M0)            L_next
L_next:
(W)      send (8|M0)             null:ud       r127:ud           0x27              0x02000010 {EOT}
