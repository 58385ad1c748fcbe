# Debian packages, built by CPack from the install rules (scripts/build_deb.sh; `cpack -G DEB` in the build folder):
#   sieve          the command line and server (/usr/bin/sieve), libsieve.so.0, the ONNX Runtime library they load
#                  (Debian packages none: it goes in /usr/lib/sieve, which their RUNPATH names) and a systemd unit
#   libsieve-dev   the C header, libsieve.so and libsieve.a, the pkg-config file and the CMake package
# The other libraries are Debian's: dpkg-shlibdeps writes the dependencies on them.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "sieve")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "Sieve <sieve@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Local text embeddings, reranking and search on ONNX Runtime")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL server dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# gzip: a few seconds where xz takes many for ONNX Runtime's 35 MB.
set(CPACK_DEBIAN_COMPRESSION_TYPE "gzip")
# ONNX Runtime is in the package itself: dpkg-shlibdeps finds it there.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CMAKE_BINARY_DIR}/_CPack_Packages/Linux/DEB/sieve-${PROJECT_VERSION}-Linux/server/usr/lib/sieve")
set(CPACK_DEBIAN_SERVER_PACKAGE_NAME "sieve")
set(CPACK_DEBIAN_SERVER_DESCRIPTION "Local text embeddings, reranking and search on ONNX Runtime
 Sieve runs Hugging Face models exported to ONNX: dense, sparse and multi-vector
 embeddings, cross-encoders and classifiers, with tokenization identical to
 Hugging Face tokenizers. One program: a command line, an HTTP server speaking
 the OpenAI, Text Embeddings Inference, Cohere and Ollama APIs, and a local
 search engine. A systemd unit (sieve.service) serves /var/lib/sieve/models.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME "libsieve-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "sieve (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEV_DESCRIPTION "Sieve's C library: header, pkg-config and CMake files
 The C ABI of Sieve (sieve.h) for programs that embed texts and rerank with it,
 with libsieve.so, libsieve.a, a pkg-config file (sieve.pc) and a CMake package.")
set(CPACK_COMPONENT_SERVER_DISPLAY_NAME "sieve")
set(CPACK_COMPONENT_DEV_DISPLAY_NAME "libsieve-dev")
set(CPACK_COMPONENT_DEV_DEPENDS server)
include(CPack)
