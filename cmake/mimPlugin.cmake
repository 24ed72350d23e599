# mim_add_plugin for plugins built outside the source tree against an
# installed libmim (docs/writing-plugins.md §6):
#
#   find_package(mim REQUIRED)
#   mim_add_plugin(NAME SOURCES a.c b.c [INTERFACE path/NAME.mim] [OUTPUT_DIRECTORY dir])
#
# bootstraps the interface (default: NAME.mim in the current source
# directory) with the installed `mim` into the header <mim/plugin/NAME.h>,
# builds the module libmim_NAME.so against it and copies the interface next
# to the library, into OUTPUT_DIRECTORY (default: <build>/lib/mim), so that
# `mim -P <that directory>` finds both. The target is mim_plugin_NAME.
function(mim_add_plugin name)
    cmake_parse_arguments(ARG "" "INTERFACE;OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
    set(sources ${ARG_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
    if(NOT ARG_INTERFACE)
        set(ARG_INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/${name}.mim)
    endif()
    get_filename_component(iface ${ARG_INTERFACE} ABSOLUTE)
    get_filename_component(iface_dir ${iface} DIRECTORY)
    if(NOT ARG_OUTPUT_DIRECTORY)
        set(ARG_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/mim)
    endif()
    set(inc ${CMAKE_CURRENT_BINARY_DIR}/mim_plugin_${name}/include)
    set(header ${inc}/mim/plugin/${name}.h)
    add_custom_command(
        OUTPUT ${header}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${inc}/mim/plugin
        COMMAND mim::cli ${iface} -P ${iface_dir} --bootstrap -O0 --output-h ${header}
        DEPENDS ${iface}
        COMMENT "Bootstrapping plugin header mim/plugin/${name}.h"
        VERBATIM)
    set(target mim_plugin_${name})
    add_library(${target} MODULE ${sources} ${header})
    set_target_properties(${target} PROPERTIES
        OUTPUT_NAME mim_${name} PREFIX "lib" SUFFIX ".so" LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
        C_STANDARD 17 C_STANDARD_REQUIRED ON C_VISIBILITY_PRESET hidden)
    target_include_directories(${target} PRIVATE ${inc})
    target_link_libraries(${target} PRIVATE mim::mim)
    add_custom_command(TARGET ${target} POST_BUILD
        COMMAND ${CMAKE_COMMAND} -E copy ${iface} ${ARG_OUTPUT_DIRECTORY}/${name}.mim
        VERBATIM)
endfunction()
