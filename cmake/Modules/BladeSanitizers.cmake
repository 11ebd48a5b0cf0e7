# SPDX-License-Identifier: MIT
#
# Builds for hostile input (docs/reliability.md):
#
#   BLADE_SANITIZE=address,undefined   compile and link everything with these
#                                      sanitizers; any finding aborts the program
#   BLADE_FUZZ=ON                      build the libFuzzer targets of tests/fuzz
#                                      (clang only); the core is compiled with
#                                      coverage instrumentation for them
#   BLADE_CORE_ONLY=ON                 only the C core and its tests (no GNU Radio
#                                      blocks, Python or apps): what the sanitizer
#                                      and fuzzing builds need, built in minutes
#
# tools/hostile-input configures a build directory with all three (clang, no CUDA)
# and runs it; ./tools/bootstrap test calls that.

option(BLADE_CORE_ONLY "Build only the C core and its test suites" OFF)
set(BLADE_SANITIZE "" CACHE STRING
    "Sanitizers for every target, e.g. address,undefined (empty: none)")
option(BLADE_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(BLADE_SANITIZE)
    # -fno-sanitize-recover: a finding stops the program with an error exit, so a
    # test cannot pass with a report buried in its log.
    set(_blade_sanitize_flags
        -fsanitize=${BLADE_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
    if(BLADE_SANITIZE MATCHES "undefined" AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
        # Clang's "undefined" includes it, GCC's does not: a double too large for
        # the integer it is converted to (a date or an angle from a file).
        list(APPEND _blade_sanitize_flags -fsanitize=float-cast-overflow)
    endif()
    # For the tests: stack traces for undefined behaviour, leaks count as failures.
    set(BLADE_SANITIZER_ENVIRONMENT
        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
        "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1")
    add_compile_options(${_blade_sanitize_flags})
    add_link_options(-fsanitize=${BLADE_SANITIZE})
    message(STATUS "Sanitizers: ${BLADE_SANITIZE} (${_blade_sanitize_flags})")
endif()

if(BLADE_FUZZ)
    if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR
            "BLADE_FUZZ needs clang's libFuzzer: configure with CC=clang CXX=clang++ "
            "(Debian: apt-get install clang libclang-rt-14-dev)")
    endif()
    # Coverage for the fuzzers' guidance, in every object; the fuzzer targets add
    # libFuzzer's main themselves (-fsanitize=fuzzer).
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()
