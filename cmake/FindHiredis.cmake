# FindHiredis.cmake - finds hiredis (hiredis/hiredis.h and libhiredis), the Redis client
# library of the remote tier, and makes it an imported target, so that nothing that
# links it carries the library's absolute path.
#
# Used by rocjit's build and installed with its CMake package (rocjitConfig.cmake's
# find_dependency(Hiredis) when rocjit was built with it): rocjit::rocjit_static links
# Hiredis::hiredis.
#
#   Hiredis::hiredis    the imported library (the folder holding hiredis/ as a usage
#                       requirement: sources write #include <hiredis/hiredis.h>)
#   Hiredis_FOUND, Hiredis_VERSION (read from hiredis.h)
#   HIREDIS_INCLUDE_DIR, HIREDIS_LIBRARY (cache; set them to pick another hiredis)

find_path(HIREDIS_INCLUDE_DIR hiredis/hiredis.h)
find_library(HIREDIS_LIBRARY hiredis)
mark_as_advanced(HIREDIS_INCLUDE_DIR HIREDIS_LIBRARY)

if(HIREDIS_INCLUDE_DIR AND EXISTS "${HIREDIS_INCLUDE_DIR}/hiredis/hiredis.h")
  file(STRINGS "${HIREDIS_INCLUDE_DIR}/hiredis/hiredis.h" _hiredis_version_lines
       REGEX "^#define HIREDIS_(MAJOR|MINOR|PATCH) +[0-9]+")
  set(Hiredis_VERSION "")
  foreach(_hiredis_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*HIREDIS_${_hiredis_part} +([0-9]+).*" "\\1" _hiredis_number
           "${_hiredis_version_lines}")
    list(APPEND Hiredis_VERSION "${_hiredis_number}")
  endforeach()
  list(JOIN Hiredis_VERSION "." Hiredis_VERSION)
  unset(_hiredis_version_lines)
  unset(_hiredis_part)
  unset(_hiredis_number)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Hiredis
  REQUIRED_VARS HIREDIS_LIBRARY HIREDIS_INCLUDE_DIR
  VERSION_VAR Hiredis_VERSION)

if(Hiredis_FOUND AND NOT TARGET Hiredis::hiredis)
  add_library(Hiredis::hiredis UNKNOWN IMPORTED)
  set_target_properties(Hiredis::hiredis PROPERTIES
    IMPORTED_LOCATION "${HIREDIS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${HIREDIS_INCLUDE_DIR}")
endif()
