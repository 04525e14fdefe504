// For the GPGPU host driver (the demo's GPGPU step, test_gpgpu): work-groups of 32 items as two SIMD16 threads. Each
// item stores its local ID to shared local memory, the group meets at a barrier, then item i writes SLM[31 - i] to
// out[group * 32 + i] (BTI 0) and atomically adds 1 to a counter at the 64-bit address in r4.0:uq (A64 untyped atomic
// ADD, SIMD8 halves).
mov (16|M0)     r30.0<1>:ud   r1.0<16;16,1>:uw
shl (16|M0)     r20.0<1>:ud   r30.0<8;8,1>:ud   2:ud
mov (16|M0)     r22.0<1>:ud   r30.0<8;8,1>:ud
send (16|M0)    null:ud       r20:ud            0xC               0x08025EFE
(W) and (1|M0)  r40.2<1>:ud   r0.2<0;1,0>:ud    0x8F000000:ud
(W) send (1|M0) null:ud       r40:ud            0x3               0x02000004
(W) wait (1|M0) n0.0<0;1,0>:ud
add (16|M0)     r24.0<1>:d    -r30.0<8;8,1>:d   31:d
shl (16|M0)     r20.0<1>:ud   r24.0<8;8,1>:ud   2:ud
send (16|M0)    r22:ud        r20:ud            0xC               0x04205EFE
mul (1|M0)      r5.0<1>:ud    r0.1<0;1,0>:ud    32:ud
add (16|M0)     r20.0<1>:ud   r30.0<8;8,1>:ud   r5.0<0;1,0>:ud
shl (16|M0)     r20.0<1>:ud   r20.0<8;8,1>:ud   2:ud
send (16|M0)    null:ud       r20:ud            0xC               0x08025E00
mov (8|M0)      r50.0<1>:uq   r4.0<0;1,0>:uq
mov (8|M0)      r52.0<1>:ud   1:ud
send (8|M0)     r54:ud        r50:ud            0xC               0x0614A7FF
mov (8|M8)      r50.0<1>:uq   r4.0<0;1,0>:uq
mov (8|M8)      r52.0<1>:ud   1:ud
send (8|M8)     r55:ud        r50:ud            0xC               0x0614A7FF
(W) mov (8|M0)  r127.0<1>:ud  r0.0<8;8,1>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
