# SPDX-License-Identifier: Apache-2.0
# `cmake --install`: the clfilters tool (and clfilters-mpi where MPI was found), the library, its headers, a CMake package (find_package(clfilters),
# target clfilters::clfilters) and a pkg-config file (clfilters.pc).
include(CMakePackageConfigHelpers)

# The installed tool finds the shared library beside it, in ../lib.
set_target_properties(clfilters_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS clfilters_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET clfilters_mpi_cli)
  set_target_properties(clfilters_mpi_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  install(TARGETS clfilters_mpi_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} OPTIONAL)
endif()
install(TARGETS clfilters EXPORT clfiltersTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/clfilters DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(clf_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/clfilters)
install(EXPORT clfiltersTargets NAMESPACE clfilters:: DESTINATION ${clf_cmake_dir})
configure_package_config_file(cmake/clfiltersConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/clfiltersConfig.cmake
                              INSTALL_DESTINATION ${clf_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/clfiltersConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clfiltersConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/clfiltersConfigVersion.cmake
        DESTINATION ${clf_cmake_dir})

# pkg-config: a static library also lists what it links privately (pkg-config --static).
if(BUILD_SHARED_LIBS)
  set(CLF_PC_LIBS_PRIVATE "")
else()
  set(CLF_PC_LIBS_PRIVATE "-lpng -ljpeg -lfmt -pthread")
endif()
# Relocatable: the prefix is found from the file's own place, so `cmake --install --prefix DIR` works.
file(RELATIVE_PATH CLF_PC_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(cmake/clfilters.pc.in ${CMAKE_CURRENT_BINARY_DIR}/clfilters.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/clfilters.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
