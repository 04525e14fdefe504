// GPGPU dispatch test (test_gpgpu.cpp): a kernel that never ends (the walker's instruction limit stops it).
L0:
add (8|M0)      r10.0<1>:ud   r10.0<8;8,1>:ud   1:ud
(W) jmpi (1|M0) L0
