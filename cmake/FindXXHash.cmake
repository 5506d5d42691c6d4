# FindXXHash.cmake - finds xxHash (xxhash.h and libxxhash) and makes it an imported
# target, so that nothing that links it carries the library's absolute path.
#
# Used by rocjit's build and installed with its CMake package (rocjitConfig.cmake's
# find_dependency(XXHash)): rocjit::rocjit_static links xxHash::xxhash.
#
#   xxHash::xxhash      the imported library (its header folder as a usage requirement)
#   XXHash_FOUND, XXHash_VERSION (read from xxhash.h)
#   XXHASH_INCLUDE_DIR, XXHASH_LIBRARY (cache; set them to pick another xxHash)
#
# Where xxHash's own CMake package was loaded first (it defines xxHash::xxhash too), that
# target is kept.

find_path(XXHASH_INCLUDE_DIR xxhash.h)
find_library(XXHASH_LIBRARY xxhash)
mark_as_advanced(XXHASH_INCLUDE_DIR XXHASH_LIBRARY)

if(XXHASH_INCLUDE_DIR AND EXISTS "${XXHASH_INCLUDE_DIR}/xxhash.h")
  file(STRINGS "${XXHASH_INCLUDE_DIR}/xxhash.h" _xxhash_version_lines
       REGEX "^#define XXH_VERSION_(MAJOR|MINOR|RELEASE) +[0-9]+")
  set(XXHash_VERSION "")
  foreach(_xxhash_part MAJOR MINOR RELEASE)
    string(REGEX REPLACE ".*XXH_VERSION_${_xxhash_part} +([0-9]+).*" "\\1" _xxhash_number
           "${_xxhash_version_lines}")
    list(APPEND XXHash_VERSION "${_xxhash_number}")
  endforeach()
  list(JOIN XXHash_VERSION "." XXHash_VERSION)
  unset(_xxhash_version_lines)
  unset(_xxhash_part)
  unset(_xxhash_number)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XXHash
  REQUIRED_VARS XXHASH_LIBRARY XXHASH_INCLUDE_DIR
  VERSION_VAR XXHash_VERSION)

if(XXHash_FOUND AND NOT TARGET xxHash::xxhash)
  add_library(xxHash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxHash::xxhash PROPERTIES
    IMPORTED_LOCATION "${XXHASH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${XXHASH_INCLUDE_DIR}")
endif()
