# Install rules and CPack (DEB and TGZ) for the three programs, the desktop entry, icon and metainfo.
include(GNUInstallDirs)
install(TARGETS shardx shardx-cli shardx-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/shardx.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/io.github.shardx.shardx.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/shardx.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/shardx/samples)

set(CPACK_PACKAGE_NAME shardx)
set(CPACK_PACKAGE_VENDOR "shardx")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Explorer and step-through debugger for tensor sharding")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "shardx developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Distro Qt, Graphviz and Vulkan: depend on Debian's packages rather than bundling them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
