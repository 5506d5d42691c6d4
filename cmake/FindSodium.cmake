# FindSodium.cmake - finds libsodium (sodium.h and libsodium), the cryptography behind
# signed code objects (src/sign/sign.c: ed25519, BLAKE2b), and makes it an imported
# target, so that nothing that links it carries the library's absolute path.
#
# Used by rocjit's build and installed with its CMake package (rocjitConfig.cmake's
# find_dependency(Sodium)): rocjit::rocjit_static links Sodium::sodium.
#
#   Sodium::sodium      the imported library (its header folder as a usage requirement)
#   Sodium_FOUND, Sodium_VERSION (read from sodium/version.h)
#   SODIUM_INCLUDE_DIR, SODIUM_LIBRARY (cache; set them to pick another libsodium)

find_path(SODIUM_INCLUDE_DIR sodium.h)
find_library(SODIUM_LIBRARY sodium)
mark_as_advanced(SODIUM_INCLUDE_DIR SODIUM_LIBRARY)

if(SODIUM_INCLUDE_DIR AND EXISTS "${SODIUM_INCLUDE_DIR}/sodium/version.h")
  file(STRINGS "${SODIUM_INCLUDE_DIR}/sodium/version.h" _sodium_version_line
       REGEX "^#define SODIUM_VERSION_STRING +\"[0-9.]+\"")
  string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" Sodium_VERSION "${_sodium_version_line}")
  unset(_sodium_version_line)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Sodium
  REQUIRED_VARS SODIUM_LIBRARY SODIUM_INCLUDE_DIR
  VERSION_VAR Sodium_VERSION)

if(Sodium_FOUND AND NOT TARGET Sodium::sodium)
  add_library(Sodium::sodium UNKNOWN IMPORTED)
  set_target_properties(Sodium::sodium PROPERTIES
    IMPORTED_LOCATION "${SODIUM_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SODIUM_INCLUDE_DIR}")
endif()
