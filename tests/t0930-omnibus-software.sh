#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (an Omnibus build from the tarball)
# scripts/omnibus/software/elf-buildid.rb (issue 14, item 4): the Omnibus
# software definition that builds the tool from the release tarball.
# `make dist` (in a clone of HEAD) writes build/omnibus/elf-buildid.rb
# with the tarball's sha256; a ruby stand-in for Omnibus loads it as
# Omnibus does (instance_eval in a Software, the version block applied when
# it names default_version), fetches the file:// URL, checks the sha256,
# extracts, and runs the build block (make, make install PREFIX=
# install_dir/embedded) in a cleanroom with the builder DSL; then the hook
# definition (scripts/omnibus/elf_buildid.rb) runs over the install dir
# with the tool it finds there. A wrong sha256, or a changed tarball,
# fails the build before anything is built; the unfilled template refuses
# to load. (The stand-in's file:// fetch is its own; real Omnibus fetches
# over http(s).)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
not_with_sanitizers "the Omnibus software definition" "Omnibus builds its own binary from the release tarball"
require_deps ship
kit_prelude

if ! git -C "$TOP" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	t_skip "make dist needs a git checkout" "$TOP is not one (an extracted tarball?): no tarball to build from"
	t_done
fi

cat >standin.rb <<'RUBY'
# Minimal Omnibus: Software DSL with version blocks and a NetFetcher-like
# fetch (file:// only, sha256 checked), Builder cleanroom, build commands
# run in project_dir.
require "digest"
require "fileutils"
require "logger"
require "uri"

module Omnibus
  class ChecksumMismatch < StandardError; end

  class Log
    def initialize; @l = Logger.new($stderr); @l.formatter = ->(_s, _t, _p, m) { "#{m}\n" }; end
    %i{info warn debug}.each do |lvl|
      define_method(lvl) { |key = nil, &blk| @l.send(lvl, "[#{key}] #{blk ? blk.call : ""}") }
    end
  end

  class Builder
    attr_reader :software, :commands
    def initialize(software); @software = software; @commands = []; end
    def block(name = "<Dynamic Ruby block>", &proc); @commands << [name, proc]; end
    def command(cmd, options = {})
      @commands << ["Execute: `#{cmd}'", proc {
        env = options.fetch(:env, {})
        system(env, cmd, chdir: options.fetch(:cwd, software.project_dir)) or raise "command failed: #{cmd}"
      }]
    end
    def make(*args)
      options = args.last.is_a?(Hash) ? args.pop : {}
      command(["make", *args].join(" "), options)
    end
    def install_dir; software.install_dir; end
    def project_dir; software.project_dir; end
    def workers; 2; end
    def with_embedded_path(env = {})
      path = ["#{install_dir}/bin", "#{install_dir}/embedded/bin", ENV["PATH"]].join(File::PATH_SEPARATOR)
      env.merge("PATH" => path)
    end
    def with_standard_compiler_flags(env = {})
      env.merge(
        "CFLAGS" => "-I#{install_dir}/embedded/include -O2",
        "LDFLAGS" => "-Wl,-rpath,#{install_dir}/embedded/lib -L#{install_dir}/embedded/lib",
        "PKG_CONFIG_PATH" => "#{install_dir}/embedded/lib/pkgconfig:#{ENV.fetch("PKG_CONFIG_PATH", "")}",
      )
    end
    EXPOSED = %i{block command make install_dir project_dir workers with_embedded_path with_standard_compiler_flags}
    def build!
      @commands.each do |name, proc|
        log.info(log_key) { "running: #{name}" }
        instance_eval(&proc)
      end
    end
    private
    def log; @log ||= Log.new; end
    def log_key; "Builder: #{software.name}"; end
  end

  class Cleanroom < BasicObject
    def initialize(builder); @builder = builder; end
    def method_missing(m, *a, &b)
      ::Kernel.raise ::NoMethodError, "not in the Omnibus build DSL: #{m}" unless Builder::EXPOSED.include?(m)
      @builder.__send__(m, *a, &b)
    end
    def respond_to_missing?(m, p = false) = Builder::EXPOSED.include?(m)
  end

  class Software
    NULL = Object.new
    attr_reader :install_dir, :builder, :cache_dir, :deps
    def initialize(install_dir, source_root)
      @install_dir, @source_root = install_dir, source_root
      @builder = Builder.new(self)
      @source = {}
      @deps = []
    end
    def name(v = nil); v ? (@name = v) : @name; end
    def default_version(v = nil); v ? (@version = v) : @version; end
    # As Omnibus: with a block, apply it now if it names the version in
    # use; without, the version in use.
    def version(v = NULL, &blk)
      return @version if v.equal?(NULL)
      raise "version #{v.inspect} without a block" unless blk
      instance_eval(&blk) if v == @version
    end
    def source(v = nil); v ? @source.merge!(v) : @source; end
    def relative_path(v = nil); v ? (@relative_path = v) : @relative_path; end
    def license(v = nil); @license = v; end
    def license_file(v = nil); @license_file = v; end
    def skip_transitive_dependency_licensing(v = nil); @skip = v; end
    def dependency(v); @deps << v; end
    def build(&blk); @build = blk; end
    def project_dir; File.join(@source_root, @relative_path || name); end

    # NetFetcher: download, verify the checksum, extract.
    def fetch!
      url = @source[:url] or return
      want = @source[:sha256] or raise "#{name}: source has no sha256"
      uri = URI(url)
      raise "stand-in fetches file:// only, not #{url}" unless uri.scheme == "file"
      got = Digest::SHA256.file(uri.path).hexdigest
      unless got == want
        raise ChecksumMismatch, "Verification for #{File.basename(uri.path)} failed due to a checksum mismatch. Expected #{want}, got #{got}"
      end
      FileUtils.mkdir_p(@source_root)
      system("tar", "-xzf", uri.path, "-C", @source_root) or raise "extracting #{uri.path} failed"
      raise "#{project_dir} not in the tarball (relative_path)" unless File.directory?(project_dir)
    end

    def build!
      fetch!
      Cleanroom.new(@builder).instance_exec(&@build) if @build
      @builder.build!
    end

    def self.load(path, install_dir, source_root)
      s = new(install_dir, source_root)
      s.instance_eval(File.read(path), path, 1)
      s
    end
  end
end

# standin.rb install_dir source_root DEFINITION...: each in turn, as the
# dependencies of a project.
install_dir, source_root, *defs = ARGV
begin
  defs.each do |path|
    sw = Omnibus::Software.load(path, install_dir, source_root)
    puts "software: #{sw.name} #{sw.version.inspect} url=#{sw.source[:url].inspect} sha256=#{sw.source[:sha256].inspect} deps=#{sw.deps.inspect}"
    sw.build!
    puts "built: #{sw.name}"
  end
rescue Exception => e
  warn "standin: build failed: #{e.class}: #{e.message}"
  exit 1
end
puts "build ok"
RUBY

HOOK=$TOP/scripts/omnibus/elf_buildid.rb
TEMPLATE=$TOP/scripts/omnibus/software/elf-buildid.rb

t_begin "make dist writes the definition: version, file:// URL and the tarball's sha256 filled in"
expect_exit 0 git clone -q "$TOP" "$SCRATCH/src"
expect_exit 0 make -C "$SCRATCH/src" --no-print-directory dist
V=$(cd "$SCRATCH/src" && scripts/version.sh --head)
TARBALL=$SCRATCH/src/build/elf-buildid-$V.tar.gz
DEF=$SCRATCH/src/build/omnibus/elf-buildid.rb
sha=$(sha256sum "$TARBALL" | cut -d' ' -f1)
expect_true "no $DEF" [ -f "$DEF" ]
expect_exit 0 grep -c '@[A-Z_0-9]*@' "$TEMPLATE"
expect_exit 1 grep '@[A-Z_0-9]*@' "$DEF"
src=$(cat "$DEF")
expect_match "default_version" "$src" "^default_version \"$(re_quote "$V")\"\$"
expect_match "sha256" "$src" "^sha = \"$sha\"\$"
expect_match "url" "$src" "^source url: \"file://$(re_quote "$SCRATCH/src/build")/elf-buildid-#\\{version\\}\\.tar\\.gz\"\$"
t_end

t_begin "the unfilled template refuses to load"
expect_exit 1 ruby standin.rb "$SCRATCH/t/install" "$SCRATCH/t/src" "$TEMPLATE"
expect_match "stderr" "$err" 'unfilled template'
t_end

inst=$SCRATCH/opt/app
t_begin "the stand-in fetches, checks the sha256, builds and installs into install_dir/embedded"
make_app_tree "$inst"
expect_exit 0 ruby standin.rb "$inst" "$SCRATCH/cache/src" "$DEF"
expect_match "loaded" "$out" "^software: elf-buildid \"$(re_quote "$V")\" url=\"file://[^\"]*/elf-buildid-$(re_quote "$V")\\.tar\\.gz\" sha256=\"$sha\" deps=\\[\\]\$"
expect_match "built" "$out" '^build ok$'
expect_match "make ran" "$err" 'running: Execute: `make -j 2'"'"
expect_match "make install ran" "$err" "running: Execute: \`make install PREFIX=$(re_quote "$inst")/embedded'"
expect_true "sources not extracted at $SCRATCH/cache/src/elf-buildid-$V" [ -f "$SCRATCH/cache/src/elf-buildid-$V/VERSION" ]
expect_exit 0 "$inst/embedded/bin/elf-buildid" --version
expect_eq "--version" "$out" "elf-buildid $V"
for f in share/man/man1/elf-buildid.1 share/elf-buildid/package-hook.sh \
	share/elf-buildid/omnibus/elf_buildid.rb share/elf-buildid/omnibus/software/elf-buildid.rb; do
	expect_true "not installed: embedded/$f" [ -f "$inst/embedded/$f" ]
done
t_end

t_begin "then the hook definition runs over install_dir with the tool built in embedded/"
# No other elf-buildid to find: the hook must take the embedded one.
path=/usr/sbin:/usr/bin:/sbin:/bin
expect_eq "an elf-buildid on $path" "$(PATH=$path command -v elf-buildid)" ""
(unset ELF_BUILDID; PATH=$path ELF_BUILDID_DEBUG_DIR=$SCRATCH/debug \
	ruby standin.rb "$inst" "$SCRATCH/cache/src" "$HOOK") >"$SCRATCH/.hook.out" 2>"$SCRATCH/.hook.err"
st=$?
expect_eq "hook: $(tail -n 3 "$SCRATCH/.hook.err")" "$st" 0
expect_match "hook ran" "$(cat "$SCRATCH/.hook.out")" '^built: elf-buildid-hook$'
expect_match "the hook's verify passed the tool itself" "$(cat "$SCRATCH/.hook.err")" \
	"PASS  $(re_quote "$inst")/embedded/bin/elf-buildid  [0-9a-f]{40}"
check_split_tree "$inst" "$SCRATCH/debug"
expect_exit 0 "$inst/embedded/bin/elf-buildid" verify -r "$inst"
t_end

t_begin "a wrong sha256 in the definition fails the build before anything is built"
sed "s/^sha = \"$sha\"/sha = \"$(printf '%s' "$sha" | tr '0-9a-f' '1-9a-f0')\"/" "$DEF" >wrong-sha.rb
expect_exit 1 grep -F "$sha" wrong-sha.rb
inst2=$SCRATCH/opt/app2
expect_exit 1 ruby standin.rb "$inst2" "$SCRATCH/cache2/src" "$SCRATCH/wrong-sha.rb"
expect_match "stderr" "$err" 'ChecksumMismatch: .*checksum mismatch'
expect_false "something was installed in $inst2" [ -e "$inst2" ]
expect_false "something was extracted" [ -e "$SCRATCH/cache2/src" ]
t_end

t_begin "a changed tarball under the right name fails the build the same way"
mkdir -p evil
cp "$TARBALL" "evil/elf-buildid-$V.tar.gz"
printf 'x' >>"evil/elf-buildid-$V.tar.gz"
sed "s|file://$SCRATCH/src/build/|file://$SCRATCH/evil/|" "$DEF" >evil.rb
expect_exit 0 grep -F "file://$SCRATCH/evil/" evil.rb
expect_exit 1 ruby standin.rb "$SCRATCH/opt/app3" "$SCRATCH/cache3/src" "$SCRATCH/evil.rb"
expect_match "stderr" "$err" "checksum mismatch. Expected $sha, got "
expect_false "something was installed" [ -e "$SCRATCH/opt/app3" ]
t_end

t_done
