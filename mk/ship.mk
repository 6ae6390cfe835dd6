# SPDX-License-Identifier: MIT
# Release artifacts (docs/packaging.md, "Releases").
#
#   make dist   build/elf-buildid-VERSION.tar.gz and its .sha256 line, the
#               same bytes from the same commit (scripts/dist.sh), and
#               build/omnibus/elf-buildid.rb with its sha256 filled in
#   make deb    build/elf-buildid_VERSION_ARCH.deb: `make install` into a
#               staging root plus Debian metadata, dpkg-deb (scripts/mkdeb.sh);
#               and build/dh-elf-buildid_VERSION_all.deb, the debhelper
#               add-on, from `make install-debhelper`
#   make rpm    build/elf-buildid-VERSION-1.ARCH.rpm and its -debuginfo
#               package: packaging/rpm/elf-buildid.spec, whose %build and
#               %install run make and `make install PREFIX=/usr` in the
#               tree, built by Debian's rpmbuild (scripts/mkrpm.sh)
#
# VERSION is scripts/version.sh's (Makefile). `make dist` refuses a work
# tree whose tracked files differ from HEAD (DIST_DIRTY=1 packs HEAD anyway).

.PHONY: dist deb rpm

dist:
	$(Q)scripts/dist.sh build

deb:
	$(Q)VERSION='$(VERSION)' EBID_BUILD=$(BUILD) MAKE='$(MAKE)' scripts/mkdeb.sh build

rpm:
	$(Q)VERSION='$(VERSION)' MAKE='$(MAKE)' scripts/mkrpm.sh build
