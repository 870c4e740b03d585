# `cmake --install <build> --prefix P`: the executable, the bundled scenes (all of assets/), a desktop
# entry and an icon. The shaders are compiled into the executable (app/CMakeLists.txt), so none are
# installed. `cpack -G DEB` (in the build folder) packs the same files for /usr; dpkg-shlibdeps finds the
# Debian packages of the linked libraries, and the GL/EGL ones, which GLAD opens at run time, are named.
include(GNUInstallDirs)
install(TARGETS satlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/satlab/assets)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/satlab.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
# The icon (tools/make_icon.py draws both), as SVG and as 256 px PNG for launchers that take no SVG.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/satlab.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/satlab.png
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/256x256/apps)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME satlab)
set(CPACK_PACKAGE_VENDOR satlab)
set(CPACK_PACKAGE_CONTACT "satlab maintainers <satlab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "summed-area-table image filters: variable box blur and depth of field")
set(CPACK_PACKAGE_DESCRIPTION
    "An interactive image-filter app built on summed-area tables, with a CUDA backend where a GPU is present\nand a CPU backend everywhere, a command line (render, bench, verify) and headless EGL rendering.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libegl1, libgl1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libegl-mesa0 | libnvidia-egl, libgl1-mesa-dri")
set(CPACK_GENERATOR DEB)
include(CPack)
