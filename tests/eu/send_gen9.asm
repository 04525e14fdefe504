// Sends in every Gen9 form: send/sendc with an immediate or a0.0 descriptor, split sends/sendsc with immediate or
// register (a0.n) extended descriptors; gpuvp prints iga64's text and the start of its comment (payload lengths and
// the shared function), tests/test_eu_disasm.cpp.
sends (8|M0) r10:ud r2:ud r4:ud 0x8A 0x04205E00
(W) sends (16|M0) null:ud r2:ud r4:ud 0x10C 0x02094000 {EOT}
sendsc (8|M0) r10:ud r2:ud r4:ud 0x4C 0x04205E00
sends (8|M0) r10:ud r2:ud r4:ud a0.2 0x04205E00
sends (8|M0) r10:ud r2:ud r4:ud 0x8A a0.0
(f0.0) sends (16|M16) r10:f r2:ud r4:ud a0.1 a0.0
send (8|M0) r10:ud r2:ud 0xA a0.0
sendc (16|M0) r12:uw r2 0xC 0x2210C000
send (8|M0) r12:uw r2 0x4 0x02184001
send (8|M0) r12 r2 0x2 0x0A4A0000
send (8|M0) r12 r2 0x3 0x02008000
send (8|M0) r12 r2 0x5 0x02008000
send (8|M0) r12 r2 0x6 0x02008000
send (8|M0) r12 r2 0x7 0x02008000
send (8|M0) r12 r2 0x8 0x02008000
send (8|M0) r12 r2 0x9 0x02008000
send (8|M0) r12 r2 0xB 0x02008000
send (8|M0) r12 r2 0xD 0x02008000
send (8|M0) r12 r2 0x0 0x02008000
send (8|M0) r12 r2 0x1 0x02008000
