#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (a whole Omnibus build)
# scripts/omnibus/elf_buildid.rb (issue 5), run by ruby the way Omnibus runs
# a software definition: the file is instance_eval'ed in a Software object,
# its build block is evaluated in a cleanroom that exposes only Omnibus'
# DSL (block, command, install_dir, ...), and each queued build command is
# then instance_eval'ed in the Builder. The stub below is minimal but does
# exactly that, so the definition's own code path really runs over a fake
# install tree. Judged like the shell hook: ids, debug files by id, gdb,
# kernel visibility, idempotence, and a failing build on a file with no room.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude

DEF=$TOP/scripts/omnibus/elf_buildid.rb

cat >omnibus-stub.rb <<'RUBY'
# Minimal Omnibus: Software DSL, Builder cleanroom, BuildCommand runner.
require "logger"

module Omnibus
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
      @commands << ["Execute: `#{cmd}'", proc { system(options.fetch(:env, {}), cmd) or raise "command failed: #{cmd}" }]
    end
    def install_dir; software.install_dir; end
    def project_dir; software.project_dir; end
    def workers; 2; end
    EXPOSED = %i{block command install_dir project_dir workers}
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

  # Only the exposed DSL is reachable from a build block, as in Omnibus.
  class Cleanroom < BasicObject
    def initialize(builder); @builder = builder; end
    def method_missing(m, *a, &b)
      ::Kernel.raise ::NoMethodError, "not in the Omnibus build DSL: #{m}" unless Builder::EXPOSED.include?(m)
      @builder.__send__(m, *a, &b)
    end
    def respond_to_missing?(m, p = false) = Builder::EXPOSED.include?(m)
  end

  class Software
    attr_reader :install_dir, :project_dir, :builder
    def initialize(install_dir, project_dir)
      @install_dir, @project_dir = install_dir, project_dir
      @builder = Builder.new(self)
    end
    def name(v = nil); v ? (@name = v) : @name; end
    def default_version(v = nil); v ? (@version = v) : @version; end
    def license(v = nil); @license = v; end
    def skip_transitive_dependency_licensing(v = nil); @skip = v; end
    def dependency(v); (@deps ||= []) << v; end
    def build(&blk); Cleanroom.new(@builder).instance_exec(&blk); end
    def self.load(path, install_dir, project_dir)
      s = new(install_dir, project_dir)
      s.instance_eval(File.read(path), path, 1)
      s
    end
  end
end

path, install_dir = ARGV
sw = Omnibus::Software.load(path, install_dir, Dir.pwd)
abort "software name is #{sw.name.inspect}" unless sw.name == "elf-buildid-hook"
puts "commands: #{sw.builder.commands.size}"
begin
  sw.builder.build!
rescue => e
  warn "omnibus-stub: build failed: #{e.message}"
  exit 1
end
puts "build ok"
RUBY

export ELF_BUILDID=$EBID

t_begin "the definition loads in the stub: name elf-buildid-hook, one build command queued"
tree=$SCRATCH/opt/app
make_app_tree "$tree"
export ELF_BUILDID_DEBUG_DIR=$SCRATCH/debug
expect_exit 0 ruby omnibus-stub.rb "$DEF" "$tree"
expect_match "stub output" "$out" '^commands: 1$'
expect_match "stub output" "$out" '^build ok$'
expect_match "log" "$err" 'running: elf-buildid'
stub_err=$err
t_end

t_begin "after the Omnibus build: stripped binaries and debug files by id (readelf, ebid.py, gdb), verify passes"
check_split_tree "$tree" "$SCRATCH/debug"
expect_exit 0 "$EBID" verify -r "$tree"
expect_match "the hook logged verify's lines" "$stub_err" "PASS  $tree/bin/hello  [0-9a-f]{40}"
expect_eq "hard link" "$(stat -c %i "$tree/bin/hello-hl")" "$(stat -c %i "$tree/bin/hello")"
find "$tree" -name '*.debug' | grep_q . && t_fail "debug files left in the install tree"
t_end

t_begin "default debug dir is <install_dir>-debug, outside the packaged tree"
tree2=$SCRATCH/opt/app2
make_app_tree "$tree2"
unset ELF_BUILDID_DEBUG_DIR
expect_exit 0 ruby omnibus-stub.rb "$DEF" "$tree2"
[ -d "$tree2-debug/.build-id" ] || t_fail "no $tree2-debug/.build-id"
check_split_tree "$tree2" "$tree2-debug"
t_end

t_begin "a second Omnibus build changes nothing"
export ELF_BUILDID_DEBUG_DIR=$SCRATCH/debug
before=$(tree_state "$tree")
dbefore=$(tree_state "$SCRATCH/debug")
expect_exit 0 ruby omnibus-stub.rb "$DEF" "$tree"
expect_eq "install tree" "$(tree_state "$tree")" "$before"
expect_eq "debug tree" "$(tree_state "$SCRATCH/debug")" "$dbefore"
t_end

t_begin "a file with no room fails the Omnibus build with the tool's message; ELF_BUILDID_EXCLUDE lets it through"
tree3=$SCRATCH/opt/app3
make_app_tree "$tree3"
cp "$KIT/cprog-noroom" "$tree3/bin/legacy"
export ELF_BUILDID_DEBUG_DIR=$SCRATCH/debug3
expect_exit 1 ruby omnibus-stub.rb "$DEF" "$tree3"
expect_match "stderr" "$err" 'build failed: .*inject'
expect_match "stderr names the file" "$err" 'bin/legacy.*(no safe placement|room)'
ELF_BUILDID_EXCLUDE='legacy *.bak' expect_exit 0 ruby omnibus-stub.rb "$DEF" "$tree3"
check_split_tree "$tree3" "$SCRATCH/debug3"
t_end

t_begin "ELF_BUILDID_MANIFEST: a manifest of the final (stripped) files"
tree5=$SCRATCH/opt/app5
make_app_tree "$tree5"
ELF_BUILDID_MANIFEST=$SCRATCH/m5.json ELF_BUILDID_DEBUG_DIR=$SCRATCH/debug5 expect_exit 0 ruby omnibus-stub.rb "$DEF" "$tree5"
got=$(python3 - "$SCRATCH/m5.json" <<'PY'
import hashlib, json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print("no valid manifest: %s" % e); sys.exit()
bad = []
stamped = [f for f in doc["files"] if f["action"] not in ("skipped", "failed")]
for f in stamped:
    if f["sha256"] != hashlib.sha256(open(f["path"], "rb").read()).hexdigest():
        bad.append("%s: sha256 is not that of the final file" % f["path"])
if len(stamped) != 3: bad.append("%d stamped files listed, want 3" % len(stamped))
print("; ".join(bad) or "ok")
PY
)
expect_eq "manifest" "$got" ok
t_end

t_begin "ELF_BUILDID_SPLIT=0: ids and the gate only, no strip"
tree4=$SCRATCH/opt/app4
make_app_tree "$tree4"
ELF_BUILDID_SPLIT=0 ELF_BUILDID_DEBUG_DIR=$SCRATCH/debug4 expect_exit 0 ruby omnibus-stub.rb "$DEF" "$tree4"
expect_exit 0 "$EBID" verify --content-hash "$tree4/bin/hello"
[ -e "$SCRATCH/debug4/.build-id" ] && t_fail "a debug tree was made with ELF_BUILDID_SPLIT=0"
t_end

t_done
