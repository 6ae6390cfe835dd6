#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/ci.md's GitLab CI job, GitHub Actions steps and JSON record, run
# exactly as written (issue 4): the blocks are cut out of the page between
# its "ci-test:NAME begin/end" markers, parsed as YAML (ruby's Psych), and
# their shell commands run the way each CI system runs them, over dist/
# trees of good and bad binaries, with the binary under test where the
# fetching job or step leaves it (tools/elf-buildid, without its
# executable bit, as artifacts and downloads come) and not on PATH. The
# blocks that fetch and build the static binary (issue 14) cannot run
# here: they are parsed and checked to hand that file on. The JUnit
# XML must parse (python xml.etree) with the right counts; the --json
# document must have exactly the fields the page documents.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain pie existing reserved

require_deps kit

DOC=$TOP/docs/ci.md

# block NAME: the page's ci-test block NAME (lib.sh's doc_block).
block() { doc_block "$DOC" ci-test "$1"; }

# yaml2json < YAML: the same data as JSON (ruby Psych, safe_load).
yaml2json() { ruby -ryaml -rjson -e 'puts JSON.generate(YAML.safe_load(STDIN.read))'; }

# junit_counts XML: "tests failures errors skipped" from the attributes,
# checked against the testcase children; prints "bad: ..." on a mismatch.
junit_counts() {
	python3 - "$1" <<'PY'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception as e:
    print("bad: does not parse: %s" % e); sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
if len(suites) != 1:
    print("bad: %d testsuite elements" % len(suites)); sys.exit()
s = suites[0]
if s.get("name") != "elf-buildid verify":
    print("bad: testsuite name %r" % s.get("name")); sys.exit()
cases = s.findall("testcase")
kids = {"failure": 0, "error": 0, "skipped": 0}
for c in cases:
    if c.get("classname") != "elf-buildid.verify":
        print("bad: classname %r" % c.get("classname")); sys.exit()
    for k in kids:
        kids[k] += len(c.findall(k))
attrs = [s.get(a) for a in ("tests", "failures", "errors", "skipped")]
got = [str(len(cases)), str(kids["failure"]), str(kids["error"]), str(kids["skipped"])]
if attrs != got:
    print("bad: attributes %s but children %s" % (attrs, got)); sys.exit()
print(" ".join(got))
PY
}

# junit_names XML STATUS: names of the testcases with a child STATUS
# (failure, error, skipped) or "pass" for none.
junit_names() {
	python3 - "$1" "$2" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for c in root.iter("testcase"):
    kinds = [k for k in ("failure", "error", "skipped") if c.find(k) is not None]
    if (sys.argv[2] == "pass" and not kinds) or sys.argv[2] in kinds:
        print(c.get("name"))
PY
}

# A dist/ tree: good and bad binaries, as a build job would leave them;
# and tools/elf-buildid, the binary as the fetching job leaves it.
make_dist() { # DIR good|mixed
	local d=$1/dist
	rm -rf "$d" "$1/tools"
	mkdir -p "$d/bin" "$d/libexec" "$1/tools"
	cp "$EBID" "$1/tools/elf-buildid"
	cp "$FIXTURES/plain" "$d/bin/server"
	cp "$FIXTURES/pie" "$d/libexec/agent"
	chmod u+w "$d/bin/server" "$d/libexec/agent"
	"$EBID" inject -q "$d/bin/server" "$d/libexec/agent"
	printf '#!/bin/sh\nexec "$(dirname "$0")/server" "$@"\n' >"$d/bin/start.sh"
	if [ "$2" = mixed ]; then
		cp "$FIXTURES/plain" "$d/bin/legacy"             # no id
		cp "$FIXTURES/existing" "$d/bin/linked-with-B"   # not kernel-visible
		cp "$FIXTURES/reserved" "$d/libexec/reserved"    # zero id
		# server's id on other bytes (strip keeps the id): a collision;
		# a plain copy would be the same file shipped twice, which passes
		cp "$d/bin/server" "$d/libexec/server-copy"
		strip "$d/libexec/server-copy"
	fi
}

# The binary is not on PATH: the blocks must run it from where they put it.
if command -v elf-buildid >/dev/null 2>&1; then
	PATH=$(printf '%s' "$PATH" | tr ':' '\n' |
		grep -vxF "$(dirname "$(command -v elf-buildid)")" | paste -sd:)
	export PATH
fi

t_begin "docs/ci.md has the marked blocks and the YAML parses"
for b in gitlab-job gitlab-fetch gitlab-release github-steps github-release \
	json-record json-fields; do
	expect_true "no ci-test:$b block in docs/ci.md" block "$b" >"$b.txt"
	expect_true "ci-test:$b block is empty" [ -s "$b.txt" ]
done
t_check
yaml2json <gitlab-job.txt >gitlab.json 2>gitlab.err || t_fail "GitLab job: $(cat gitlab.err)"
t_check
yaml2json <gitlab-fetch.txt >gitlab-fetch.json 2>gitlab.err || t_fail "GitLab fetch job: $(cat gitlab.err)"
t_check
yaml2json <gitlab-release.txt >gitlab-release.json 2>gitlab.err || t_fail "GitLab release job: $(cat gitlab.err)"
t_check
yaml2json <github-steps.txt >github.json 2>github.err || t_fail "GitHub steps: $(cat github.err)"
t_check
yaml2json <github-release.txt >github-release.json 2>github.err || t_fail "GitHub release workflow: $(cat github.err)"
expect_false "elf-buildid is on PATH: the test would not see a block that relies on it" \
	command -v elf-buildid
t_end

t_begin "the fetch and release blocks hand the gate the static binary at tools/elf-buildid"
got=$(python3 - gitlab.json gitlab-fetch.json gitlab-release.json github.json github-release.json <<'PY'
import json, sys
gate, fetch, release, steps, workflow = (json.load(open(f)) for f in sys.argv[1:6])
bad = []
gate_job = list(gate.values())[0]
if len(fetch) != 1: bad.append("GitLab fetch: want one job, got %s" % list(fetch))
fname, fjob = list(fetch.items())[0]
needed = [n.get("job") for n in gate_job.get("needs", []) if isinstance(n, dict)]
if fname not in needed: bad.append("GitLab gate needs %s, not the fetch job %r" % (needed, fname))
if fjob.get("stage") != ".pre": bad.append("GitLab fetch job's stage is %r, not .pre" % fjob.get("stage"))
if "tools/elf-buildid" not in fjob.get("artifacts", {}).get("paths", []):
    bad.append("GitLab fetch job does not keep tools/elf-buildid: %r" % fjob.get("artifacts"))
fscript = " ".join(fjob.get("script", []))
if "--output tools/elf-buildid" not in fscript: bad.append("GitLab fetch job does not write tools/elf-buildid")
pkg = "/packages/generic/elf-buildid/"
if pkg not in fscript: bad.append("GitLab fetch job does not read %s" % pkg)
if len(release) != 1: bad.append("GitLab release: want one job, got %s" % list(release))
rscript = list(release.values())[0].get("script", [])
for want in ("make STATIC=1", "strip -o elf-buildid build/static/elf-buildid"):
    if want not in rscript: bad.append("GitLab release job does not run %r" % want)
up = [l for l in rscript if "--upload-file elf-buildid" in l]
if not up or pkg not in up[0] or not up[0].endswith('/elf-buildid"'):
    bad.append("GitLab release job does not upload elf-buildid to %s...elf-buildid" % pkg)
get = [s for s in steps if str(s.get("uses", "")).startswith("actions/download-artifact@")]
gate_i = [i for i, s in enumerate(steps) if "verify --junit" in s.get("run", "")]
if len(get) != 1 or not gate_i or steps.index(get[0]) > gate_i[0]:
    bad.append("GitHub: want one download-artifact step before the gate")
else:
    w = get[0].get("with", {})
    if w.get("path") != "tools": bad.append("GitHub download path is %r, not tools" % w.get("path"))
    name = w.get("name")
    jobs = list(workflow.get("jobs", {}).values())
    ups = [s.get("with", {}) for j in jobs for s in j.get("steps", [])
           if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    if [(u.get("name"), u.get("path")) for u in ups] != [(name, "elf-buildid")]:
        bad.append("GitHub release uploads %r, the gate downloads %r into tools/" % (ups, name))
    runs = " ".join(s.get("run", "") for j in jobs for s in j.get("steps", []))
    for want in ("make STATIC=1", "strip -o elf-buildid build/static/elf-buildid"):
        if want not in runs: bad.append("GitHub release does not run %r" % want)
print("; ".join(bad) or "ok")
PY
)
expect_eq "fetch and release blocks" "$got" ok
t_end

t_begin "the GitLab job: one job, junit report.xml as artifacts:reports:junit, uploaded when: always"
got=$(python3 - gitlab.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
bad = []
if len(doc) != 1: bad.append("want one job, got %s" % list(doc))
job = list(doc.values())[0]
if not isinstance(job.get("script"), list) or not job["script"]: bad.append("no script list")
if "before_script" in job or "after_script" in job:
    bad.append("before_script/after_script would not be run by this test")
a = job.get("artifacts", {})
if a.get("reports", {}).get("junit") != "report.xml": bad.append("artifacts:reports:junit is %r" % a.get("reports"))
if a.get("when") != "always": bad.append("artifacts:when is %r" % a.get("when"))
if not any("elf-buildid verify --junit report.xml -r dist/" in l for l in job.get("script", [])):
    bad.append("script does not run 'elf-buildid verify --junit report.xml -r dist/'")
print("; ".join(bad) or "ok")
PY
)
expect_eq "job" "$got" ok
t_end

# run_gitlab DIR: run the job's script lines as a GitLab runner does (one
# shell, stop at the first failing line); sets $job_rc.
run_gitlab() {
	python3 -c 'import json,sys; [print(l) for l in list(json.load(open(sys.argv[1])).values())[0]["script"]]' \
		gitlab.json >"$1/script.lines"
	chmod -x "$1/tools/elf-buildid" # artifacts come without it
	job_rc=0
	local line
	while IFS= read -r line; do
		(cd "$1" && bash --noprofile --norc -eo pipefail -c "$line") >>"$1/job.log" 2>&1 </dev/null || {
			job_rc=$?
			break
		}
	done <"$1/script.lines"
}

t_begin "GitLab job on a mixed dist/: fails, report.xml parses with 7 tests, 5 failures, 0 errors, 1 skipped"
mkdir -p gl-mixed
make_dist gl-mixed mixed
run_gitlab gl-mixed
expect_eq "job exit status" "$job_rc" 1
expect_eq "junit counts" "$(junit_counts gl-mixed/report.xml)" "7 5 0 1"
expect_eq "failed files" "$(junit_names gl-mixed/report.xml failure | tr '\n' ' ')" \
	"dist/bin/legacy dist/bin/linked-with-B dist/bin/server dist/libexec/reserved dist/libexec/server-copy "
expect_eq "passing files" "$(junit_names gl-mixed/report.xml pass | tr '\n' ' ')" "dist/libexec/agent "
expect_eq "skipped files" "$(junit_names gl-mixed/report.xml skipped | tr '\n' ' ')" "dist/bin/start.sh "
t_end

t_begin "GitLab job on a good dist/: passes, report.xml with 3 tests, 0 failures, 1 skipped"
mkdir -p gl-good
make_dist gl-good good
run_gitlab gl-good
expect_eq "job exit status" "$job_rc" 0
expect_eq "junit counts" "$(junit_counts gl-good/report.xml)" "3 0 0 1"
t_end

t_begin "GitLab job on a dist/ with an unreadable ELF: fails with exit 2, the error is in report.xml"
mkdir -p gl-error
make_dist gl-error good
head -c 3000 "$FIXTURES/plain" >gl-error/dist/bin/truncated
run_gitlab gl-error
expect_eq "job exit status" "$job_rc" 2
expect_eq "junit counts" "$(junit_counts gl-error/report.xml)" "4 0 1 1"
expect_eq "error files" "$(junit_names gl-error/report.xml error)" "dist/bin/truncated"
t_end

t_begin "the GitHub steps: the gate's run step, then reporting steps with if: always() reading report.xml"
got=$(python3 - github.json <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))
bad = []
runs = [s for s in steps if "run" in s]
if len(runs) != 1 or "elf-buildid verify --junit report.xml -r dist/" not in runs[0]["run"]:
    bad.append("want one run step with the gate, got %r" % runs)
after = steps[steps.index(runs[0]) + 1:] if runs else []
if not after: bad.append("no reporting step after the gate")
for s in after:
    if s.get("if") != "always()": bad.append("step %r lacks if: always()" % s.get("name"))
    if "report.xml" not in json.dumps(s.get("with", {})): bad.append("step %r does not read report.xml" % s.get("name"))
print("; ".join(bad) or "ok")
PY
)
expect_eq "steps" "$got" ok
t_end

# run_github DIR: run each run: step as GitHub's default bash shell does.
run_github() {
	python3 -c 'import json,sys; [print(s["run"]) for s in json.load(open(sys.argv[1])) if "run" in s]' \
		github.json >"$1/step.sh"
	chmod -x "$1/tools/elf-buildid" # artifacts come without it
	job_rc=0
	(cd "$1" && bash --noprofile --norc -eo pipefail step.sh) >"$1/job.log" 2>&1 </dev/null || job_rc=$?
}

t_begin "GitHub step on a mixed dist/: fails, report.xml parses with the same counts"
mkdir -p gh-mixed
make_dist gh-mixed mixed
run_github gh-mixed
expect_eq "step exit status" "$job_rc" 1
expect_eq "junit counts" "$(junit_counts gh-mixed/report.xml)" "7 5 0 1"
t_end

t_begin "GitHub step on a good dist/: passes"
mkdir -p gh-good
make_dist gh-good good
run_github gh-good
expect_eq "step exit status" "$job_rc" 0
expect_eq "junit counts" "$(junit_counts gh-good/report.xml)" "3 0 0 1"
t_end

t_begin "the JSON record command: exit 0 on a mixed tree (checks failed), has every documented field and no other"
mkdir -p js
make_dist js mixed
(cd js && bash --noprofile --norc -eo pipefail ../json-record.txt) >js/job.log 2>&1 </dev/null
expect_eq "record step exit status" "$?" 0
# The documented fields: first column of the table, without backquotes.
sed -n 's/^| `\([][a-z0-9_.]*\)`.*/\1/p' json-fields.txt >fields.doc
[ "$(wc -l <fields.doc)" -ge 10 ] || t_fail "too few documented fields: $(cat fields.doc)"
got=$(python3 - js/build-ids.json fields.doc <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
documented = set(l.strip() for l in open(sys.argv[2]) if l.strip())
seen = set()
def walk(v, p):
    if isinstance(v, dict):
        for k, x in v.items():
            q = p + "." + k if p else k
            seen.add(q)
            walk(x, q)
    elif isinstance(v, list):
        for x in v:
            walk(x, p + "[]")
walk(doc, "")
# Containers are documented through their members.
containers = {p for p in seen if any(o.startswith(p + ".") or o.startswith(p + "[]") for o in seen)}
bad = []
for p in sorted(seen - containers - documented):
    bad.append("undocumented field " + p)
for p in sorted(documented - seen):
    bad.append("documented field missing " + p)
if doc.get("tool") != "elf-buildid" or doc.get("command") != "verify":
    bad.append("tool/command are %r/%r" % (doc.get("tool"), doc.get("command")))
files = doc.get("files", [])
paths = [f.get("path") for f in files]
if paths != sorted(paths): bad.append("files not sorted by path")
st = {}
for f in files:
    st[f.get("status")] = st.get(f.get("status"), 0) + 1
    if f.get("status") not in ("pass", "fail", "skip", "error"): bad.append("status %r" % f.get("status"))
    for c in f.get("checks", []):
        if c.get("status") not in ("pass", "fail", "skip"): bad.append("check status %r" % c.get("status"))
s = doc.get("summary", {})
want = {"passed": st.get("pass", 0), "failed": st.get("fail", 0), "skipped": st.get("skip", 0), "errors": st.get("error", 0)}
if s != want: bad.append("summary %r but files say %r" % (s, want))
if want != {"passed": 1, "failed": 5, "skipped": 1, "errors": 0}: bad.append("counts %r" % want)
print("; ".join(bad) or "ok")
PY
)
expect_eq "json" "$got" ok
t_end

t_done
