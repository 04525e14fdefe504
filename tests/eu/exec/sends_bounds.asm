// A split send whose second payload (2 registers by its extended descriptor) would run past r127.
sends (8|M0)    r42:ud        r30:ud            r127:ud           0x8C              0x04281234
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
