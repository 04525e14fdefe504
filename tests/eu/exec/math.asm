// The math shared function; inputs r2, r3 (:f), r4, r5 (:d).
math.inv (8|M0)   r10.0<1>:f  r2.0<8;8,1>:f
math.log (8|M0)   r11.0<1>:f  r2.0<8;8,1>:f
math.exp (8|M0)   r12.0<1>:f  r2.0<8;8,1>:f
math.sqt (8|M0)   r13.0<1>:f  r2.0<8;8,1>:f
math.rsqt (8|M0)  r14.0<1>:f  r2.0<8;8,1>:f
math.sin (8|M0)   r15.0<1>:f  r2.0<8;8,1>:f
math.cos (8|M0)   r16.0<1>:f  r2.0<8;8,1>:f
math.fdiv (8|M0)  r17.0<1>:f  r2.0<8;8,1>:f   r3.0<8;8,1>:f
math.pow (8|M0)   r18.0<1>:f  r2.0<8;8,1>:f   r3.0<8;8,1>:f
math.iqot (8|M0)  r19.0<1>:d  r4.0<8;8,1>:d   r5.0<8;8,1>:d
math.irem (8|M0)  r20.0<1>:d  r4.0<8;8,1>:d   r5.0<8;8,1>:d
math.iqot (8|M0)  r21.0<1>:ud r4.0<8;8,1>:ud  r5.0<8;8,1>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
