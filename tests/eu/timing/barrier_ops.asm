// The gateway's barrier message (SFID 3, mlen 1, function 4) and the wait on n0.0 it releases, as IGC emits them.
(W) send (1|M0)  null:ud       r40:ud            0x3               0x02000004
wait (1|M0)      n0.0<0;1,0>:ud
