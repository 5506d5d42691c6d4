# RocjitKernels.cmake - rocjit_add_kernels(): ship kernel sources inside a target.
#
#   rocjit_add_kernels(TARGET <target> DIR <dir> [GLOB <pattern>...] [HEADERS <name>...]
#                      [NAME_EXPRESSIONS <file>]
#                      [BUNDLE_ARCHS <target-id>...] [BUNDLE_OPTIONS <option>...]
#                      [BUNDLE_DESTINATION <install dir>] [BUNDLE_NO_INSTALL]
#                      [SIGNING_KEY <file>])
#
# BUNDLE_ARCHS builds, with every build of <target>, a prebuilt bundle of its kernels for
# those target ids (`rocjit export`): <target's file>.rocjit next to the executable, where
# rocjit looks for it, and installs it to BUNDLE_DESTINATION (default: the binary dir,
# ${CMAKE_INSTALL_BINDIR} or bin).  Install <target> there too (install(TARGETS)): the
# bundle serves the executable beside it.  BUNDLE_NO_INSTALL, for a program that is not
# installed, builds the bundle next to it and installs nothing.  With a bundle for its
# GPU the application needs no compiler on the machine it runs on.  BUNDLE_OPTIONS are
# the compiler options the application passes (part of the key).  Needs the rocjit tool:
# the rocjit_cli target of this build, or the installed rocjit::rocjit_cli / `rocjit`
# program.
#
# SIGNING_KEY (with BUNDLE_ARCHS) signs every entry of that bundle with the secret key in
# <file> (relative paths are relative to ${CMAKE_CURRENT_SOURCE_DIR}), so that it serves
# applications that trust the key (ROCJIT_TRUSTED_KEYS=<the NAME.pub line>).  Make the
# key with `rocjit keygen --dir <dir> NAME` (NAME.secret, mode 0600, and NAME.pub) and keep
# NAME.secret out of version control.  The build reads the key where it is, never copies
# or prints it, and signs again when it changes.  A missing <file> fails the configure; an
# unreadable one (open to group or others, not a key) fails the build.
#
# Embeds every file under <dir> (recursively) whose name matches one of the patterns
# (default: *.hip *.cu *.h *.hpp *.cuh) into <target> as text, and registers them with
# rocjit_register_sources_v2() before main() runs.  Each is registered under its path relative
# to <dir> with '/' separators ("axpy.hip", "sub/x.h"), the name to pass to
# rocjit_kernel_get_registered() and rocjit_registered_source(); headers are registered the
# same way.
#
# HEADERS names files under <dir> (relative paths, e.g. cmath cuda/std/limits) that are
# headers whatever their names: they are embedded even when no pattern matches them and
# registered with rocjit_register_headers_v2(), so every kernel can #include <cmath>.  Files
# named *.h, *.hpp, *.cuh or *.inc are headers without being listed.
#
# How: a build-time step (add_custom_command running rocjit_embed.cmake) writes
# ${CMAKE_CURRENT_BINARY_DIR}/rocjit_kernels_<target>.c, which is added to <target>.  It
# depends on every embedded file, so editing a kernel re-embeds it on the next build; the C
# file is rewritten only when its content changes, so touching a kernel without changing it
# recompiles nothing.  The file list is globbed at configure time with CONFIGURE_DEPENDS:
# adding or removing a kernel file re-runs CMake by itself.
#
# NAME_EXPRESSIONS names a file of the programs the application compiles from templated
# sources, one a line: "expr=<name><TAB><name expression>[<TAB><name expression>...]", the
# source <name> (relative to DIR) compiled with those name expressions instantiated, as
# rocjit_kernel_get_registered_v2() with rocjit_registered_options.name_expressions asks for
# it ("expr=scale.hip<TAB>scale<float, 4>"); '#' lines are comments.  They go into the
# manifest (format 3), so that `rocjit prewarm --manifest` and the BUNDLE_ARCHS bundle
# compile exactly those programs: a source named there is never compiled whole, where its
# templates would instantiate nothing.  The file is read at build time: it may be the
# OUTPUT of a custom command of this directory, such as a program of the build that prints
# the list (ops/CMakeLists.txt does this for the op set); relative paths are relative to
# ${CMAKE_CURRENT_SOURCE_DIR}.  The manifest is then written at build time too, by the
# target <target>_rocjit_manifest (built by default).
#
# Call it from the directory that defines <target> (custom commands and source properties
# are per directory).
#
# Also writes ${CMAKE_CURRENT_BINARY_DIR}/<target>.rocjit-manifest ("# rocjit-manifest 1",
# "dir=<dir>", then one embedded name per line; with HEADERS, "# rocjit-manifest 2" and
# "file=<name>" or "header=<name>" lines; with NAME_EXPRESSIONS, "# rocjit-manifest 3", the
# lines of format 2 and the expr= lines) and sets these properties on <target>:
#   ROCJIT_MANIFEST     the manifest's path
#   ROCJIT_KERNELS_DIR  <dir>, absolute (useful as $ROCJIT_KERNEL_PATH while developing)
#
# Requirements and caveats
#  - <target> must link rocjit (rocjit::rocjit): the generated file includes <rocjit.h> and
#    calls rocjit_register_sources_v2().
#  - The generated file is C; in a project without the C language enabled it is compiled as
#    C++ (it is valid as both).
#  - Use an executable, shared/module library or object library.  In a STATIC library the
#    generated object is referenced by nothing, so the linker may drop it and nothing gets
#    registered: a warning says so.
#  - One call per target (put every kernel under one <dir>).
#  - Registration uses __attribute__((constructor)): GCC and Clang.

include_guard(GLOBAL)

# This file is used from the source tree and from an installed package: the script lies
# next to it in both.  The variable is only visible in the including directory and below;
# the global property serves calls from elsewhere (include_guard skips a second include).
set(_ROCJIT_KERNELS_DIR "${CMAKE_CURRENT_LIST_DIR}")
set_property(GLOBAL PROPERTY _ROCJIT_KERNELS_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(rocjit_add_kernels)
  cmake_parse_arguments(PARSE_ARGV 0 arg "BUNDLE_NO_INSTALL"
                        "TARGET;DIR;BUNDLE_DESTINATION;SIGNING_KEY;NAME_EXPRESSIONS"
                        "GLOB;HEADERS;BUNDLE_ARCHS;BUNDLE_OPTIONS")
  set(usage "usage: rocjit_add_kernels(TARGET <target> DIR <dir> [GLOB <pattern>...])")

  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rocjit_add_kernels: unexpected arguments "
      "'${arg_UNPARSED_ARGUMENTS}'; ${usage}")
  endif()
  if(NOT arg_TARGET)
    message(FATAL_ERROR "rocjit_add_kernels: TARGET is missing; ${usage}")
  endif()
  set(target "${arg_TARGET}")
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "rocjit_add_kernels: '${target}' is not a target: call "
      "add_executable()/add_library() for it first, then rocjit_add_kernels()")
  endif()
  get_target_property(imported "${target}" IMPORTED)
  get_target_property(alias "${target}" ALIASED_TARGET)
  get_target_property(type "${target}" TYPE)
  if(imported OR alias OR type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    message(FATAL_ERROR "rocjit_add_kernels: '${target}' (${type}) cannot hold "
      "sources: give an executable, or a shared, module, static or object library "
      "built by this project")
  endif()
  if(type STREQUAL "STATIC_LIBRARY")
    message(WARNING "rocjit_add_kernels: '${target}' is a static library: nothing "
      "references the generated registration code, so the linker may drop it and "
      "the kernels would not be registered.  Embed them in the executable, or in a "
      "shared or OBJECT library, instead.")
  endif()
  get_target_property(previous "${target}" ROCJIT_MANIFEST)
  if(previous)
    message(FATAL_ERROR "rocjit_add_kernels: called twice for '${target}' (manifest "
      "${previous}): put all its kernels under one DIR, or select them with GLOB")
  endif()

  if(NOT arg_DIR)
    message(FATAL_ERROR "rocjit_add_kernels: DIR is missing (the folder holding the "
      "kernel sources); ${usage}")
  endif()
  get_filename_component(dir "${arg_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT IS_DIRECTORY "${dir}")
    message(FATAL_ERROR "rocjit_add_kernels: DIR '${dir}' is not a directory: pass "
      "the folder that holds the kernel sources (relative paths are relative to "
      "${CMAKE_CURRENT_SOURCE_DIR})")
  endif()

  set(globs ${arg_GLOB})
  if(NOT globs)
    set(globs *.hip *.cu *.h *.hpp *.cuh)
  endif()
  set(patterns "")
  foreach(glob IN LISTS globs)
    list(APPEND patterns "${dir}/${glob}")
  endforeach()
  file(GLOB_RECURSE paths LIST_DIRECTORIES false CONFIGURE_DEPENDS ${patterns})
  set(header_paths "")
  foreach(header IN LISTS arg_HEADERS)
    if(IS_ABSOLUTE "${header}" OR NOT EXISTS "${dir}/${header}" OR IS_DIRECTORY "${dir}/${header}")
      message(FATAL_ERROR "rocjit_add_kernels: HEADERS '${header}' is not a file under "
        "'${dir}': name headers by their paths relative to DIR (e.g. HEADERS cmath "
        "cuda/std/limits)")
    endif()
    get_filename_component(header_path "${dir}/${header}" ABSOLUTE)
    list(APPEND paths "${header_path}")
    list(APPEND header_paths "${header_path}")
  endforeach()
  list(REMOVE_DUPLICATES paths)
  list(SORT paths)
  if(NOT paths)
    message(FATAL_ERROR "rocjit_add_kernels: no file under '${dir}' matches "
      "'${globs}': check DIR, or pass GLOB with the patterns your kernel files "
      "match (e.g. GLOB *.hip *.inc)")
  endif()

  set(names "")
  set(header_names "")
  # The manifest names the folder and every embedded file (sorted: the registration
  # order; a key holds the headers its source reaches, in name order, docs/keys.md).  `rocjit prewarm
  # --manifest` reads it to store exactly what the application will look up.  Format 2
  # (only with HEADERS, so other manifests stay readable by older tools) tags each name;
  # format 3 (only with NAME_EXPRESSIONS) is format 2 with expr= lines after the files.
  set(expressions "")
  if(DEFINED arg_NAME_EXPRESSIONS OR "NAME_EXPRESSIONS" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    if(arg_NAME_EXPRESSIONS STREQUAL "")
      message(FATAL_ERROR "rocjit_add_kernels: NAME_EXPRESSIONS needs the file that lists "
        "the programs (lines expr=<file><TAB><name expression>)")
    endif()
    get_filename_component(expressions "${arg_NAME_EXPRESSIONS}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  if(expressions)
    set(manifest_text "# rocjit-manifest 3\ndir=${dir}\n")
  elseif(header_paths)
    set(manifest_text "# rocjit-manifest 2\ndir=${dir}\n")
  else()
    set(manifest_text "# rocjit-manifest 1\ndir=${dir}\n")
  endif()
  foreach(path IN LISTS paths)
    # CMake splits names at ';' and reads '\' as '/'; '"' breaks its own
    # CONFIGURE_DEPENDS check (3.25); a line break would break the manifest.
    if(NOT IS_ABSOLUTE "${path}" OR NOT EXISTS "${path}" OR path MATCHES "[\"\n\r\\]")
      message(FATAL_ERROR "rocjit_add_kernels: a file under '${dir}' has a name "
        "CMake cannot pass on (near '${path}'): names must not hold ';', '\\', "
        "'\"' or line breaks; rename it")
    endif()
    file(RELATIVE_PATH name "${dir}" "${path}")
    list(APPEND names "${name}")
    if(NOT header_paths AND NOT expressions)
      string(APPEND manifest_text "${name}\n")
    elseif(path IN_LIST header_paths)
      list(APPEND header_names "${name}")
      string(APPEND manifest_text "header=${name}\n")
    else()
      string(APPEND manifest_text "file=${name}\n")
    endif()
  endforeach()

  # The manifest is (re)written only when its content changes.  With NAME_EXPRESSIONS
  # the files' part is written here and the manifest at build time (rocjit_manifest.cmake),
  # by a target of its own: the expressions may come from a program that links <target>.
  set(manifest "${CMAKE_CURRENT_BINARY_DIR}/${target}.rocjit-manifest")
  set(written "${manifest}")
  if(expressions)
    set(written "${manifest}.files")
  endif()
  set(old "")
  if(EXISTS "${written}")
    file(READ "${written}" old)
  endif()
  if(NOT old STREQUAL manifest_text)
    file(WRITE "${written}" "${manifest_text}")
  endif()
  set(script_dir "${_ROCJIT_KERNELS_DIR}")
  if(NOT script_dir)
    get_property(script_dir GLOBAL PROPERTY _ROCJIT_KERNELS_DIR)
  endif()
  set(manifest_target "")
  if(expressions)
    add_custom_command(
      OUTPUT "${manifest}"
      COMMAND "${CMAKE_COMMAND}" "-DBASE=${written}" "-DEXPRESSIONS=${expressions}"
        "-DOUT=${manifest}" -P "${script_dir}/rocjit_manifest.cmake"
      DEPENDS "${written}" "${expressions}" "${script_dir}/rocjit_manifest.cmake"
      COMMENT "Writing the kernel manifest of ${target} with its name expressions"
      VERBATIM)
    set(manifest_target "${target}_rocjit_manifest")
    add_custom_target("${manifest_target}" ALL DEPENDS "${manifest}")
  endif()

  # The rule's output is a stamp, the C file a byproduct: the script leaves the C file alone
  # when its content is unchanged, and the stamp keeps Make from re-running the rule on
  # every build after a kernel was touched but not changed (Ninja would cope either way).
  # A stamp without its C file (deleted by hand) is dropped here, so re-running cmake
  # regenerates it.
  set(out "${CMAKE_CURRENT_BINARY_DIR}/rocjit_kernels_${target}.c")
  set(stamp "${out}.stamp")
  if(EXISTS "${stamp}" AND NOT EXISTS "${out}")
    file(REMOVE "${stamp}")
  endif()
  set(script "${script_dir}/rocjit_embed.cmake")
  # $<SEMICOLON> keeps the list one argument on the command line.
  string(REPLACE ";" "$<SEMICOLON>" names_arg "${names}")
  string(REPLACE ";" "$<SEMICOLON>" headers_arg "${header_names}")
  list(LENGTH names count)
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS "${out}"
    COMMAND "${CMAKE_COMMAND}" "-DOUT=${out}" "-DDIR=${dir}" "-DFILES=${names_arg}"
      "-DHEADERS=${headers_arg}" -P "${script}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${paths} "${script}"
    COMMENT "Embedding ${count} kernel source(s) from ${dir} into ${target}"
    VERBATIM)
  target_sources("${target}" PRIVATE "${out}" "${stamp}")

  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    set_source_files_properties("${out}" PROPERTIES LANGUAGE CXX)
  endif()

  set_target_properties("${target}" PROPERTIES
    ROCJIT_MANIFEST "${manifest}"
    ROCJIT_KERNELS_DIR "${dir}")

  set(signing_key "")
  if(DEFINED arg_SIGNING_KEY OR "SIGNING_KEY" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    _rocjit_signing_key(signing_key "${arg_SIGNING_KEY}" "${arg_BUNDLE_ARCHS}")
  endif()
  if(arg_BUNDLE_ARCHS)
    if(arg_BUNDLE_NO_INSTALL AND arg_BUNDLE_DESTINATION)
      message(FATAL_ERROR "rocjit_add_kernels: BUNDLE_NO_INSTALL and BUNDLE_DESTINATION "
        "contradict each other: pass one of them")
    endif()
    _rocjit_add_bundle("${target}" "${manifest}" "${arg_BUNDLE_ARCHS}" "${arg_BUNDLE_OPTIONS}"
                       "${arg_BUNDLE_DESTINATION}" "${arg_BUNDLE_NO_INSTALL}" "${paths}"
                       "${signing_key}")
    if(manifest_target)
      add_dependencies("${target}_rocjit_bundle" "${manifest_target}")
    endif()
  endif()
endfunction()

# SIGNING_KEY's file, made absolute into var.  Checked at configure time only for what a
# typo or a forgotten keygen gives (no file, a folder, the public half); whether the file
# holds a usable secret key is the tool's to say when it signs, so the configure never
# reads the secret.
function(_rocjit_signing_key var file archs)
  set(keygen "make a key pair with `rocjit keygen --dir <dir> NAME` (it writes "
    "NAME.secret, mode 0600, and NAME.pub), pass SIGNING_KEY <dir>/NAME.secret, keep "
    "NAME.secret out of version control, and give consumers the line of NAME.pub in "
    "ROCJIT_TRUSTED_KEYS")
  if(file STREQUAL "")
    message(FATAL_ERROR "rocjit_add_kernels: SIGNING_KEY needs the secret key file: "
      ${keygen})
  endif()
  if(NOT archs)
    message(FATAL_ERROR "rocjit_add_kernels: SIGNING_KEY signs the bundle that "
      "BUNDLE_ARCHS builds, and there is none: add BUNDLE_ARCHS <target-id>...")
  endif()
  get_filename_component(path "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "rocjit_add_kernels: SIGNING_KEY '${path}' does not exist "
      "(relative paths are relative to ${CMAKE_CURRENT_SOURCE_DIR}): " ${keygen})
  endif()
  if(IS_DIRECTORY "${path}")
    message(FATAL_ERROR "rocjit_add_kernels: SIGNING_KEY '${path}' is a folder: pass "
      "the NAME.secret file that `rocjit keygen` wrote in it")
  endif()
  if(path MATCHES "\\.pub$")
    message(FATAL_ERROR "rocjit_add_kernels: SIGNING_KEY '${path}' is a public key: "
      "sign with its secret half (NAME.secret, beside it); the .pub line is what "
      "consumers put in ROCJIT_TRUSTED_KEYS")
  endif()
  set(${var} "${path}" PARENT_SCOPE)
endfunction()

# The bundle step of rocjit_add_kernels(BUNDLE_ARCHS ...).  signing_key: an absolute path,
# or "" for an unsigned bundle.
function(_rocjit_add_bundle target manifest archs options destination no_install depends
                            signing_key)
  if(TARGET rocjit_cli)
    set(tool "$<TARGET_FILE:rocjit_cli>")
    set(tool_dep rocjit_cli)
  elseif(TARGET rocjit::rocjit_cli)
    set(tool "$<TARGET_FILE:rocjit::rocjit_cli>")
    set(tool_dep rocjit::rocjit_cli)
  else()
    find_program(ROCJIT_TOOL rocjit)
    if(NOT ROCJIT_TOOL)
      message(FATAL_ERROR "rocjit_add_kernels: BUNDLE_ARCHS needs the rocjit tool: build "
        "it in this project (rocjit_cli) or install rocjit and put it on PATH")
    endif()
    set(tool "${ROCJIT_TOOL}")
    set(tool_dep "")
  endif()
  string(REPLACE ";" "," arch_list "${archs}")
  set(bundle "${CMAKE_CURRENT_BINARY_DIR}/${target}.rocjit")
  set(extra "")
  if(options)
    set(extra -- ${options})
  endif()
  # A private cache in the build folder: building never touches the user's cache.
  set(cache "${CMAKE_CURRENT_BINARY_DIR}/rocjit-build-cache")
  if(signing_key)
    # The export signs what it exports with $ROCJIT_SIGNING_KEY (set here, so that one in
    # the builder's environment cannot stand in), but a key it cannot use is only a
    # warning to it, and the entries would go out unsigned.  `rocjit sign` fails on such a
    # key, so it runs next on the same cache (signing all of it again with the same key),
    # and the bundle takes its name only after both succeeded: a failed step leaves no
    # bundle that a later build would take for done.  The cache is the target's own: a
    # signature lives with its entry in the cache, and another target's bundle step,
    # running in parallel with another key, must not re-sign an entry between this
    # export's signing and its copy.
    set(cache "${CMAKE_CURRENT_BINARY_DIR}/rocjit-build-cache-${target}")
    set(part "${bundle}.part")
    add_custom_command(OUTPUT "${bundle}"
      COMMAND "${CMAKE_COMMAND}" -E rm -f "${bundle}" "${part}"
      COMMAND "${CMAKE_COMMAND}" -E env "ROCJIT_SIGNING_KEY=${signing_key}"
              "${tool}" --cache "${cache}" export -o "${part}" --no-progress
              --manifest "${manifest}" --arch "${arch_list}" ${extra}
      COMMAND "${tool}" --cache "${cache}" sign --key "${signing_key}"
      COMMAND "${CMAKE_COMMAND}" -E rename "${part}" "${bundle}"
      DEPENDS ${depends} "${manifest}" "${signing_key}" ${tool_dep}
      COMMENT "Building the rocjit bundle of ${target} for ${arch_list}, signed"
      VERBATIM)
  else()
    add_custom_command(OUTPUT "${bundle}"
      COMMAND "${CMAKE_COMMAND}" -E rm -f "${bundle}"
      COMMAND "${tool}" --cache "${cache}" export
              -o "${bundle}" --no-progress --manifest "${manifest}" --arch "${arch_list}"
              ${extra}
      DEPENDS ${depends} "${manifest}" ${tool_dep}
      COMMENT "Building the rocjit bundle of ${target} for ${arch_list}"
      VERBATIM)
  endif()
  add_custom_target("${target}_rocjit_bundle" ALL DEPENDS "${bundle}")
  # Next to the executable, where the library looks for <executable>.rocjit.
  add_custom_command(TARGET "${target}_rocjit_bundle" POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${bundle}"
            "$<TARGET_FILE:${target}>.rocjit"
    VERBATIM)
  add_dependencies("${target}_rocjit_bundle" "${target}")
  set_target_properties("${target}" PROPERTIES ROCJIT_BUNDLE "${bundle}")
  if(no_install)
    return()
  endif()
  if(NOT destination)
    if(CMAKE_INSTALL_BINDIR)
      set(destination "${CMAKE_INSTALL_BINDIR}")
    else()
      set(destination bin)
    endif()
  endif()
  get_target_property(name "${target}" OUTPUT_NAME)
  if(NOT name)
    set(name "${target}")
  endif()
  install(FILES "${bundle}" DESTINATION "${destination}"
          RENAME "${name}${CMAKE_EXECUTABLE_SUFFIX}.rocjit")
endfunction()
