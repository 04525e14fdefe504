// Gen9 structured control flow in IGA syntax (labels become byte offsets): assembled and disassembled by iga64 and
// disassembled by gpuvp (tests/test_eu_disasm.cpp), which must print the same text.
(f0.0) if (8|M0) ELSE END
mov (8|M0) r2.0<1>:f 1.0:f
ELSE:
else (8|M0) END END
mov (8|M0) r2.0<1>:f 2.0:f
END:
endif (8|M0) NEXT
NEXT:
LOOP:
add (16|M0) r4.0<1>:d r4.0<8;8,1>:d 1:d
cmp (16|M0) (ge)f0.1 null<1>:d r4.0<8;8,1>:d 16:d
(f0.1) break (16|M0) DONE DONE
cmp (16|M0) (eq)f1.0 null<1>:d r4.0<8;8,1>:d 3:d
(f1.0) cont (16|M0) LOOP2 DONE
LOOP2:
(~f0.1.any16h) while (16|M0) LOOP
DONE:
(f0.0) halt (8|M0) EXIT EXIT
EXIT:
(W) send (16|M0) null:ud r112:ud 0x27 0x02000010 {EOT}
(f0.0) goto (16|M0) JOIN JOIN
add (16|M0) r4.0<1>:d r4.0<8;8,1>:d 1:d
JOIN:
join (16|M0) FIN
FIN:
nop
