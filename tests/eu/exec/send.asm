// A message with a header to SFID 12 (the data port's DC1 in the platform; a stand-in in the test): mlen 2, rlen 2.
mov (8|M0)      r30.0<1>:ud   0x11:ud
mov (8|M0)      r31.0<1>:ud   0x22:ud
(f0.0) send (8|M0)  r40:ud    r30:ud            0xC               0x04281234
add (8|M0)      r50.0<1>:ud   r40.0<8;8,1>:ud   r41.0<8;8,1>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
