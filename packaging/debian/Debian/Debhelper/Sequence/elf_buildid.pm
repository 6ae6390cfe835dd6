#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# The dh sequence add-on of `dh $@ --with elf-buildid`: dh_elf_buildid
# before dh_dwz, which rewrites the debug info, or before dh_strip, which
# names the debug files by build-id, when the sequence has no dh_dwz (dh
# before compat 12, or --with golang, which removes it).

use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_before('dh_dwz', 'dh_elf_buildid') or insert_before('dh_strip', 'dh_elf_buildid');

1;
