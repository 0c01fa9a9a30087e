# Installation and the Debian package (cpack -G DEB, run by `cmake --workflow --preset package`).
# The package holds both programs, the schema files and man pages made from the programs' --help.
include(GNUInstallDirs)

install(TARGETS entities-images-mock entities-images-contract RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schema/ DESTINATION ${CMAKE_INSTALL_DATADIR}/entities-images/schema)

# Man pages from --help and --version (help2man), so they cannot drift from the programs.
find_program(ENTIMG_HELP2MAN help2man)
if(ENTIMG_HELP2MAN)
  set(man_pages)
  foreach(program entities-images-mock entities-images-contract)
    if(program STREQUAL "entities-images-mock")
      set(summary "a DRF-faithful mock of django-edw's entity images listing")
    else()
      set(summary "contract checks of django-edw's entity images listing")
    endif()
    set(page ${CMAKE_CURRENT_BINARY_DIR}/man/${program}.1.gz)
    add_custom_command(
      OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
      COMMAND ${ENTIMG_HELP2MAN} --no-info --no-discard-stderr --section 1 --name ${summary}
              --output ${CMAKE_CURRENT_BINARY_DIR}/man/${program}.1 $<TARGET_FILE:${program}>
      COMMAND gzip -9nf ${CMAKE_CURRENT_BINARY_DIR}/man/${program}.1
      DEPENDS ${program}
      COMMENT "Man page of ${program} from its --help"
      VERBATIM)
    list(APPEND man_pages ${page})
  endforeach()
  add_custom_target(man ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man pages (ci/setup.sh installs it)")
endif()

set(CPACK_PACKAGE_NAME entities-images)
set(CPACK_PACKAGE_VENDOR "entities-images")
set(CPACK_PACKAGE_CONTACT "entities-images maintainers <root@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "entities-images-contract checks any deployment of GET /edw/api/entities-images/ (django-edw on Django\n\
REST Framework) for schema, ordering, pagination links, headers and page length; entities-images-mock\n\
serves a DRF-faithful mock of it on a generated collection or recorded records.")
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # entities-images_<version>_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: from the libraries the programs link (dpkg-shlibdeps)
include(CPack)
