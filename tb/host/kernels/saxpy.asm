// saxpy for the GPGPU host driver (the demo's GPGPU step, test_gpgpu): c[gid] = s * a[gid] + b[gid], SIMD16, one
// thread per work-group of 16 (the multiply and the add round separately: no mad).
// Payload as IGC lays it out on Gen9: r0 header (r0.1 = group ID X), r1..r3 per-thread local IDs X/Y/Z (16 uw each),
// r4 cross-thread data (r4.0 = s). Buffers: BTI 0 = a, 1 = b, 2 = c (untyped surface messages, DC1).
mul (1|M0)      r5.0<1>:ud    r0.1<0;1,0>:ud    16:ud
add (16|M0)     r20.0<1>:ud   r1.0<16;16,1>:uw  r5.0<0;1,0>:ud
shl (16|M0)     r20.0<1>:ud   r20.0<8;8,1>:ud   2:ud
send (16|M0)    r10:ud        r20:ud            0xC               0x04205E00
send (16|M0)    r12:ud        r20:ud            0xC               0x04205E01
mul (16|M0)     r14.0<1>:f    r10.0<8;8,1>:f    r4.0<0;1,0>:f
add (16|M0)     r22.0<1>:f    r14.0<8;8,1>:f    r12.0<8;8,1>:f
send (16|M0)    null:ud       r20:ud            0xC               0x08025E02
(W) mov (8|M0)  r127.0<1>:ud  r0.0<8;8,1>:ud
send (8|M0)     null:ud       r127:ud           0x27              0x02000010 {EOT}
