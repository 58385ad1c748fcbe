# ctest's sieve_capi_leaks_are_reported (sanitized builds): the C test's
# --leak-on-purpose run drops a model and a tokenizer without destroying
# them; LeakSanitizer must report both, through the functions that made them,
# despite the suppressions the sanitized runs use.
#   cmake -DTEST=<sieve_capi_test> -DSOURCE=<source dir> -P expect_leak_reports.cmake
execute_process(COMMAND "${TEST}" --source "${SOURCE}" --leak-on-purpose
  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE code)
foreach(function sieve_model_load sieve_tokenizer_load)
  string(FIND "${out}" " in ${function}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${out}\nno leak was reported through ${function} (exit status ${code})")
  endif()
endforeach()
message(STATUS "both dropped handles were reported as leaks")
