# SPDX-License-Identifier: MIT
#
# Omnibus software definition: build-ids for everything under install_dir.
#
# Copy this file to config/software/elf-buildid-hook.rb of an Omnibus project
# and make it the LAST dependency of the project, so that it runs after every
# other software definition has installed its files:
#
#   # config/projects/myapp.rb
#   dependency "elf-buildid"       # builds the tool (omnibus/software/elf-buildid.rb)
#   dependency "myapp"
#   dependency "elf-buildid-hook"  # last
#
# Its name is elf-buildid-hook: "elf-buildid" is the definition that builds
# the tool from its release tarball into install_dir/embedded.
#
# It runs the packaging flow of docs/packaging.md over install_dir, per file:
#   elf-buildid inject -r  ->  objcopy --only-keep-debug  ->
#   strip --strip-debug (programs) / --strip-unneeded (*.so, *.so.*)  ->
#   objcopy --add-gnu-debuglink  ->  elf-buildid link --debug-dir
# then `elf-buildid verify -r install_dir`, and fails the build when any step
# fails. The debug files land OUTSIDE install_dir (they are not packaged):
# in $ELF_BUILDID_DEBUG_DIR, default "<install_dir>-debug", as a build-id
# tree (.build-id/xx/rest.debug) to ship as a separate package or to upload
# to a debuginfod server. Run it again and nothing changes.
#
# Environment: ELF_BUILDID (the tool; default install_dir/embedded/bin/
# elf-buildid when the elf-buildid definition built it there, else
# "elf-buildid" on PATH),
# ELF_BUILDID_DEBUG_DIR, ELF_BUILDID_EXCLUDE (space-separated globs left
# alone), ELF_BUILDID_SPLIT=0 (inject and verify only), ELF_BUILDID_MANIFEST
# (write elf-buildid's JSON manifest of the final, stripped files there),
# OBJCOPY, STRIP, READELF (binutils for the target architecture).

require "fileutils"
require "open3"
require "tmpdir"

name "elf-buildid-hook"
default_version "1.0.0"
license :project_license
skip_transitive_dependency_licensing true

# The flow, as a lambda so that it needs nothing from Omnibus but the paths
# and a logger; build commands below call it.
elf_buildid_flow = lambda do |root, debug_dir, log|
  embedded = File.join(root, "embedded", "bin", "elf-buildid")
  ebid = ENV.fetch("ELF_BUILDID") { File.executable?(embedded) ? embedded : "elf-buildid" }
  objcopy = ENV.fetch("OBJCOPY", "objcopy")
  strip = ENV.fetch("STRIP", "strip")
  readelf = ENV.fetch("READELF", "readelf")
  excludes = ENV.fetch("ELF_BUILDID_EXCLUDE", "").split.map { |g| "--exclude=#{g}" }
  split = ENV.fetch("ELF_BUILDID_SPLIT", "1") != "0"

  # Runs argv (no shell); returns stdout; raises with stderr on failure.
  run = lambda do |*argv|
    out, err, status = Open3.capture3(*argv)
    err.each_line { |l| log.call(l.chomp) }
    unless status.success?
      raise "elf-buildid hook: `#{argv.join(" ")}` failed (exit #{status.exitstatus}): #{err.lines.last.to_s.chomp}"
    end
    out
  end

  # 1. Ids: "ID  PATH" for each program and shared library, each inode once.
  ids = run.call(ebid, "inject", "-r", *excludes, root)
  files = ids.each_line.map do |l|
    id, path = l.chomp.split("  ", 2)
    raise "elf-buildid hook: unexpected inject output #{l.inspect}" unless path && id =~ /\A\h+\z/
    [id, path]
  end
  log.call("elf-buildid: #{files.size} programs and libraries under #{root}")

  if split
    FileUtils.mkdir_p(debug_dir)
    Dir.mktmpdir("elf-buildid-omnibus") do |stage|
      files.each_with_index do |(id, path), i|
        want = File.join(debug_dir, ".build-id", id[0, 2], "#{id[2..]}.debug")
        sections = run.call(readelf, "-SW", path)
        if sections.include?(" .gnu_debuglink ")
          # Split before: a second run, or by the software's own build.
          raise "elf-buildid hook: #{path} has a .gnu_debuglink but #{want} does not exist" unless File.file?(want)
          next
        end
        dir = File.join(stage, i.to_s)
        FileUtils.mkdir_p(dir)
        dbg = File.join(dir, "#{File.basename(path)}.debug")
        sflag = File.basename(path) =~ /\.so(\.|\z)/ ? "--strip-unneeded" : "--strip-debug"
        run.call(objcopy, "--only-keep-debug", path, dbg)          # 2.
        run.call(strip, sflag, path)                               # 3.
        run.call(objcopy, "--add-gnu-debuglink=#{dbg}", path)      # 4.
        run.call(ebid, "link", "--debug-dir=#{debug_dir}", "--debug-file=#{dbg}", path) # 5.
      end
    end
  end

  # The record of what ships: a second inject over the final files rewrites
  # nothing (every id is there) and writes the manifest.
  manifest = ENV.fetch("ELF_BUILDID_MANIFEST", "")
  run.call(ebid, "inject", "-r", "-q", *excludes, "--manifest=#{manifest}", root) unless manifest.empty?

  # 6. The gate (not --content-hash: stripping changed the bytes on purpose).
  run.call(ebid, "verify", "-r", *excludes, root).each_line { |l| log.call(l.chomp) }
end

build do
  debug_dir = ENV.fetch("ELF_BUILDID_DEBUG_DIR", "#{install_dir}-debug")
  block "elf-buildid: ids, debug files by id and the gate over #{install_dir}" do
    elf_buildid_flow.call(install_dir, debug_dir, ->(msg) { log.info(log_key) { msg } })
  end
end
