# Finds ONNX Runtime and defines the imported target onnxruntime::onnxruntime.
# Order: ONNXRUNTIME_ROOT (CMake or environment variable), a system install
# (CMake package, then pkg-config), then .deps/onnxruntime that
# scripts/fetch_onnxruntime.sh fills.
set(ONNXRUNTIME_ROOT "$ENV{ONNXRUNTIME_ROOT}" CACHE PATH "ONNX Runtime install prefix (include/ and lib/)")

function(_sieve_ort_from_prefix prefix)
  find_path(_ORT_INCLUDE onnxruntime_c_api.h
    PATHS "${prefix}/include" "${prefix}/include/onnxruntime" "${prefix}/include/onnxruntime/core/session"
    NO_DEFAULT_PATH)
  find_library(_ORT_LIBRARY NAMES onnxruntime PATHS "${prefix}/lib" "${prefix}/lib64" NO_DEFAULT_PATH)
  if(_ORT_INCLUDE AND _ORT_LIBRARY)
    add_library(onnxruntime::onnxruntime SHARED IMPORTED GLOBAL)
    set_target_properties(onnxruntime::onnxruntime PROPERTIES
      IMPORTED_LOCATION "${_ORT_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${_ORT_INCLUDE}")
    set(SIEVE_ORT_SOURCE "${prefix}" PARENT_SCOPE)
  endif()
  unset(_ORT_INCLUDE CACHE)
  unset(_ORT_LIBRARY CACHE)
endfunction()

if(ONNXRUNTIME_ROOT)
  _sieve_ort_from_prefix("${ONNXRUNTIME_ROOT}")
  if(NOT TARGET onnxruntime::onnxruntime)
    message(FATAL_ERROR "ONNXRUNTIME_ROOT=${ONNXRUNTIME_ROOT} has no include/onnxruntime_c_api.h and lib/libonnxruntime.so")
  endif()
endif()

if(NOT TARGET onnxruntime::onnxruntime)
  find_package(onnxruntime CONFIG QUIET)
  if(TARGET onnxruntime::onnxruntime)
    set(SIEVE_ORT_SOURCE "system CMake package")
  endif()
endif()

if(NOT TARGET onnxruntime::onnxruntime)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(ORT_PC QUIET IMPORTED_TARGET libonnxruntime)
    if(ORT_PC_FOUND)
      add_library(onnxruntime::onnxruntime ALIAS PkgConfig::ORT_PC)
      set(SIEVE_ORT_SOURCE "pkg-config")
    endif()
  endif()
endif()

if(NOT TARGET onnxruntime::onnxruntime)
  _sieve_ort_from_prefix("${PROJECT_SOURCE_DIR}/.deps/onnxruntime")
endif()

if(NOT TARGET onnxruntime::onnxruntime)
  message(FATAL_ERROR "ONNX Runtime not found: run scripts/fetch_onnxruntime.sh, or set ONNXRUNTIME_ROOT")
endif()
message(STATUS "ONNX Runtime: ${SIEVE_ORT_SOURCE}")
