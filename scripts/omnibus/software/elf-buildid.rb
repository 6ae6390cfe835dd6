# SPDX-License-Identifier: MIT
#
# Omnibus software definition that BUILDS elf-buildid from its release
# tarball into install_dir/embedded (config/software/*.rb style).
#
# This committed file is a template: the tarball cannot hold its own
# checksum. `make dist` writes build/omnibus/elf-buildid.rb from it with
# the placeholders filled in: the version, the sha256 of
# build/elf-buildid-VERSION.tar.gz and the URL base (DIST_URL_BASE, where
# the tarball is published; default file:// of build/); publish that file
# with the tarball and copy it to
# config/software/elf-buildid.rb of your Omnibus project. Unfilled, it
# refuses to load.
#
# Not to be confused with scripts/omnibus/elf_buildid.rb, the hook that
# RUNS the tool over install_dir at the end of a project's build; it finds
# the tool this definition built with
#   ENV["ELF_BUILDID"] = "#{install_dir}/embedded/bin/elf-buildid"
#
# No dependency lines: elf-buildid needs libelf (elfutils), libcrypto
# (OpenSSL) and zlib, and links them from the build machine (pkg-config).
# omnibus-software has no elfutils, so the binary depends on the system's
# libelf; Omnibus' health check then names libelf.so.1 and libcrypto.so.3.

sha = "@SHA256@"
unless sha =~ /\A\h{64}\z/
  raise "elf-buildid software definition: unfilled template (sha256 #{sha.inspect}); use the file `make dist` writes"
end

name "elf-buildid"
default_version "@VERSION@"
license "MIT"
skip_transitive_dependency_licensing true

version("@VERSION@") { source sha256: sha }
source url: "@URL_BASE@/elf-buildid-#{version}.tar.gz"
relative_path "elf-buildid-#{version}"

build do
  env = with_standard_compiler_flags(with_embedded_path)
  make "-j #{workers}", env: env
  make "install PREFIX=#{install_dir}/embedded", env: env
end
