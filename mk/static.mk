# SPDX-License-Identifier: MIT
# A fully static binary: one file, copied into any Linux image
# (a CI container, a distroless or scratch image), that needs no libelf,
# libcrypto, zlib or even libc there.
#
#   make STATIC=1           build/static/elf-buildid (the Makefile sets
#                           BUILD), linked with -static against libelf.a,
#                           libcrypto.a, libz.a and glibc's libc.a
#   make STATIC=1 install   installs that binary
#
# The .a files come with libelf-dev, libssl-dev, zlib1g-dev and libc6-dev
# (scripts/install-deps.sh static). pkg-config --static adds what they
# need in turn: libcrypto's -ldl -pthread; libelf needs only zlib (Debian's
# libelf 0.188 has no zstd; libdw's lzma and bz2 are not linked).
#
# The link warns three times, each about glibc functions that a static
# binary can only call through the shared libraries of the same glibc
# version at run time: dlopen (OpenSSL's DSO loader, for engines and
# provider modules), getaddrinfo and gethostbyname (OpenSSL's BIO sockets).
# None is reached: elf-buildid only digests (SHA-1, SHA-256, MD5) with the
# default provider built into libcrypto.a, opens no socket, and, built with
# EBID_STATIC, reads no OpenSSL configuration (src/id/hash.c), so that no
# openssl.cnf or OPENSSL_CONF of the machine it runs on can make it dlopen
# a provider module. tests/t0920-static.sh checks that our own objects call
# none of these functions, and runs the binary in an empty chroot.

ifeq ($(STATIC),1)
ifneq ($(SANITIZE),)
$(error STATIC=1 cannot be combined with SANITIZE=$(SANITIZE): the sanitizer runtimes need a dynamic link)
endif
PKG_LIBS := $(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null || \
	echo -lelf -lcrypto -ldl -pthread -lz)
ALL_CFLAGS  += -DEBID_STATIC
ALL_LDFLAGS += -static
endif
