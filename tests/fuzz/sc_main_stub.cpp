// libsystemc.so refers to sc_main. The harnesses start in libFuzzer's main (the platform elaborates on the first input)
// and fuzz_seeds in its own, so SystemC's main and this sc_main never run.
extern "C" int sc_main(int /*argc*/, char** /*argv*/) { return 0; }
