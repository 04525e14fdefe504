# Synthesizes one RTL block with yosys (generic gates) and prints its cell count; fails if synthesis fails.
# Usage: cmake -DYOSYS=yosys -DTOP=ring_ptr -DSOURCE=ring_ptr.sv -P synth.cmake
execute_process(COMMAND ${YOSYS} -q -p "read_verilog -sv ${SOURCE}; synth -top ${TOP}; tee -o /dev/stdout stat"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "yosys synthesis of ${TOP} failed (${result}):\n${errors}${output}")
endif()
string(REGEX MATCH "Number of cells: *([0-9]+)" _match "${output}")
if(NOT _match)
  message(FATAL_ERROR "yosys synthesis of ${TOP}: no cell count in its report:\n${output}")
endif()
set(cells ${CMAKE_MATCH_1})
set(flops 0)
string(REGEX MATCHALL "\\$_[A-Z]*DFF[A-Z0-9_]* +[0-9]+" _dffs "${output}")
foreach(d ${_dffs})
  string(REGEX MATCH "[0-9]+$" n "${d}")
  math(EXPR flops "${flops} + ${n}")
endforeach()
message(STATUS "yosys synth -top ${TOP}: ${cells} cells (${flops} flip-flops)")
