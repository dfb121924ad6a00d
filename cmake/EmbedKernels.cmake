# SPDX-License-Identifier: Apache-2.0
# Embeds OpenCL C sources into the binary so the installed tool needs no source tree.
# clf_embed_kernels(OUT_VAR file1.cl file2.cl ...) generates one .cpp holding every file as a
# string, looked up at run time by file name (see src/runtime/kernel_sources.hpp).
set(CLF_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_kernels_script.cmake)

function(clf_embed_kernels out_var)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_kernels.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DFILES=${ARGN}" -P ${CLF_EMBED_SCRIPT}
    DEPENDS ${ARGN} ${CLF_EMBED_SCRIPT}
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
