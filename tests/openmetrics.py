#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Judges the OpenMetrics files of `--openmetrics` for t0435.

The parsers are not ours: prometheus_client's OpenMetrics parser (Debian's
python3-prometheus-client, for Debian's /usr/bin/python3) reads the file,
its Prometheus text parser reads what node_exporter serves. This module
adds only what those parsers let through: a sample line they drop (the
OpenMetrics parser silently keeps one of two equal adjacent label sets),
a label value that is not UTF-8, and the file's `path` labels read back to
bytes by the rule docs/prometheus.md gives. The expected values come from
the same run's --json document, another view of the same results.

  openmetrics.py verify PROM JSON T0 T1
  openmetrics.py running PROM JSON T0 T1
      "ok", or one problem per line: the families, their types, units and
      samples against the document; the timestamp within [T0, T1].
  openmetrics.py parse PROM verify|running
      "ok" when PROM parses and has the command's families.
  openmetrics.py same PROM OTHER
      "ok" when both files have the same samples, timestamps aside.
  openmetrics.py node PROM METRICS
      "ok" when METRICS (node_exporter's /metrics) serves PROM's families
      with PROM's samples, no more, no fewer, and node_textfile_scrape_error
      is 0.
  openmetrics.py rules-test RULES VERIFY-PROM RUNNING-PROM OUT
      writes OUT, a `promtool test rules` file for RULES: every sample of
      the two files as an input series on one instance, and the alerts
      each rule must raise from them (and from stopped timestamps).
"""
import collections
import json
import math
import re
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families
from prometheus_client.parser import text_string_to_metric_families as text_parse

VERIFY = {
    "elf_buildid_verify_files": "",
    "elf_buildid_verify_file_verdict": "",
    "elf_buildid_verify_failed_check": "",
    "elf_buildid_verify_last_run_timestamp_seconds": "seconds",
}
RUNNING = {
    "elf_buildid_running_mapped_files": "",
    "elf_buildid_running_file_processes": "",
    "elf_buildid_running_processes": "",
    "elf_buildid_running_last_run_timestamp_seconds": "seconds",
}
LIVE_VERDICTS = ["ok", "invisible", "replaced", "duplicate", "unreadable", "constant"]


def load(path):
    """{family: (type, unit, [(labels dict, value)])} and problems."""
    raw = open(path, "rb").read()
    bad = []
    if not raw.endswith(b"\n# EOF\n"):
        bad.append("the file does not end with '# EOF' and a newline")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return {}, bad + ["not UTF-8: %s" % e]
    try:
        fams = list(text_string_to_metric_families(text))
    except ValueError as e:
        return {}, bad + ["the OpenMetrics parser refuses it: %s" % e]
    out, nsamples = {}, 0
    for f in fams:
        samples = [(s.labels, s.value) for s in f.samples]
        nsamples += len(samples)
        keys = [tuple(sorted(l.items())) for l, _ in samples]
        if len(set(keys)) != len(keys):
            bad.append("%s: a label set appears twice" % f.name)
        out[f.name] = (f.type, f.unit, samples)
    lines = [l for l in text.split("\n") if l and not l.startswith("#")]
    if len(lines) != nsamples:
        bad.append("%d sample lines but the parser kept %d" % (len(lines), nsamples))
    return out, bad


def path_bytes(label):
    """The path a label names: \\xHH is a byte, \\\\ a backslash."""
    out, i = bytearray(), 0
    while i < len(label):
        c = label[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
        elif label[i + 1:i + 2] == "\\":
            out += b"\\"
            i += 2
        elif re.match(r"x[0-9a-f]{2}$", label[i + 1:i + 4]):
            out.append(int(label[i + 2:i + 4], 16))
            i += 4
        else:
            raise ValueError("label %r: a backslash that is no escape" % label)
    return bytes(out)


def json_bytes(s):
    """A path of --json (bytes that are not UTF-8 as lone surrogates)."""
    return s.encode("utf-8", "surrogateescape")


def families(fams, want):
    """Problems with the set of families, their types and units."""
    bad = []
    if set(fams) != set(want):
        bad.append("families %s, want %s" % (sorted(fams), sorted(want)))
    for name, unit in want.items():
        if name in fams and fams[name][:2] != ("gauge", unit):
            bad.append("%s is %r, want ('gauge', %r)" % (name, fams[name][:2], unit))
    return bad


def by_label(samples, *names):
    """{tuple of the labels' values: value}, paths read back to bytes."""
    out = {}
    for labels, value in samples:
        key = tuple(path_bytes(labels[n]) if n == "path" else labels.get(n) for n in names)
        out[key] = value
    return out


def stamp(fams, name, t0, t1):
    samples = fams.get(name, (0, 0, []))[2]
    if len(samples) != 1 or not t0 <= samples[0][1] <= t1 + 0.001:
        return ["%s: %r, not one sample within [%s, %s]" % (name, samples, t0, t1)]
    return []


def check_verify(fams, doc, t0, t1):
    bad = families(fams, VERIFY)
    summary = doc["summary"]
    want = {("pass",): summary["passed"], ("fail",): summary["failed"],
            ("skip",): summary["skipped"], ("error",): summary["errors"]}
    got = by_label(fams.get("elf_buildid_verify_files", (0, 0, []))[2], "verdict")
    if got != want:
        bad.append("elf_buildid_verify_files %r, want %r" % (got, want))
    files = doc["files"]
    want = {(json_bytes(f["path"]), f["status"]): 1 for f in files}
    got = by_label(fams.get("elf_buildid_verify_file_verdict", (0, 0, []))[2], "path", "verdict")
    if got != want:
        bad.append("elf_buildid_verify_file_verdict %r, want %r" % (got, want))
    want = {(json_bytes(f["path"]), c["name"]): 1 for f in files
            for c in f["checks"] if c["status"] == "fail"}
    got = by_label(fams.get("elf_buildid_verify_failed_check", (0, 0, []))[2], "path", "check")
    if got != want:
        bad.append("elf_buildid_verify_failed_check %r, want %r" % (got, want))
    return bad + stamp(fams, "elf_buildid_verify_last_run_timestamp_seconds", t0, t1)


def check_running(fams, doc, t0, t1):
    bad = families(fams, RUNNING)
    files = [f for p in doc["processes"] for f in p["files"]]
    count = collections.Counter(f["verdict"] for f in files)
    want = {(v,): count[v] for v in LIVE_VERDICTS}
    got = by_label(fams.get("elf_buildid_running_mapped_files", (0, 0, []))[2], "verdict")
    if got != want:
        bad.append("elf_buildid_running_mapped_files %r, want %r" % (got, want))
    want = dict(collections.Counter((json_bytes(f["path"]), f["verdict"]) for f in files))
    got = by_label(fams.get("elf_buildid_running_file_processes", (0, 0, []))[2], "path", "verdict")
    if got != want:
        bad.append("elf_buildid_running_file_processes %r, want %r" % (got, want))
    procs = doc["processes"]
    unreadable = sum(1 for p in procs if p["error"] is not None)
    want = {("read",): len(procs) - unreadable, ("unreadable",): unreadable,
            ("exited",): doc["exited"]}
    got = by_label(fams.get("elf_buildid_running_processes", (0, 0, []))[2], "state")
    if got != want:
        bad.append("elf_buildid_running_processes %r, want %r" % (got, want))
    return bad + stamp(fams, "elf_buildid_running_last_run_timestamp_seconds", t0, t1)


def sample_set(fams, skip_stamps):
    return {(name, tuple(sorted(l.items())), v) for name, (_, _, samples) in fams.items()
            for l, v in samples if not (skip_stamps and name.endswith("_timestamp_seconds"))}


def check_node(fams, served):
    """Problems with node_exporter's /metrics text against the file's."""
    got, errors = set(), None
    for f in text_parse(served):
        for s in f.samples:
            if s.name in fams:
                got.add((s.name, tuple(sorted(s.labels.items())), s.value))
            if s.name == "node_textfile_scrape_error":
                errors = s.value
    want = sample_set(fams, False)
    bad = []
    if errors != 0:
        bad.append("node_textfile_scrape_error is %r" % errors)
    for s in sorted(want - got, key=repr):
        bad.append("not served: %r" % (s,))
    for s in sorted(got - want, key=repr):
        bad.append("served, not in the file: %r" % (s,))
    return bad


def render(template, labels, value):
    """A rule's annotation as Prometheus renders it, for the templates
    docs/prometheus.md uses: {{ $labels.NAME }} and {{ $value }}."""
    def one(m):
        if m.group(1) == "$value":
            return str(int(value)) if float(value).is_integer() else repr(value)
        if m.group(1).startswith("$labels."):
            return labels.get(m.group(1)[len("$labels."):], "")
        raise ValueError("a template this test cannot render: " + m.group(0))
    return re.sub(r"\{\{\s*(\S+)\s*\}\}", one, template)


def promql_series(name, labels):
    return name + "{" + ",".join("%s=%s" % (k, json.dumps(v, ensure_ascii=False))
                                 for k, v in sorted(labels.items())) + "}"


def alert(rules, name, labels, value):
    """The alert rule NAME raises for a series of labels and value."""
    rule = [r for g in rules["groups"] for r in g["rules"] if r.get("alert") == name]
    if len(rule) != 1:
        raise ValueError("want one rule %s, got %d" % (name, len(rule)))
    labels = dict(labels, **rule[0].get("labels", {}))
    notes = {k: render(v, labels, value) for k, v in rule[0].get("annotations", {}).items()}
    return {"exp_labels": labels, "exp_annotations": notes}


def rules_test(rules_path, verify_prom, running_prom, out):
    """The promtool unit test: every sample of both files on instance
    host1, the per-file alerts, and the stale ones on two more instances,
    one whose runs go on and one whose runs stopped at time 0."""
    rules = yaml_load(rules_path)
    inst, series = {"instance": "host1"}, []
    failing, misidentified = [], []
    for prom in (verify_prom, running_prom):
        fams, bad = load(prom)
        if bad:
            raise ValueError("; ".join(bad))
        for name, (_, _, samples) in fams.items():
            if name.endswith("_timestamp_seconds"):
                continue
            for labels, value in samples:
                labels = dict(labels, **inst)
                series.append({"series": promql_series(name, labels), "values": "%gx60" % value})
                bad_file = labels.get("verdict") in ("fail", "error")
                if name == "elf_buildid_verify_file_verdict" and bad_file:
                    failing.append(alert(rules, "BuildIdCheckFailed", labels, value))
                live = labels.get("verdict") in ("invisible", "replaced", "duplicate", "constant")
                if name == "elf_buildid_running_file_processes" and live and value > 0:
                    misidentified.append(alert(rules, "RunningBinaryMisidentified", labels, value))
    stale = {}
    for kind, after in (("verify", 4 * 3600), ("running", 40 * 60)):
        name = "elf_buildid_%s_last_run_timestamp_seconds" % kind
        series.append({"series": promql_series(name, {"instance": "going"}), "values": "0+60x300"})
        series.append({"series": promql_series(name, {"instance": "stopped"}), "values": "0x300"})
        alertname = "BuildId%sStale" % kind.capitalize()
        stale[kind] = {"eval_time": "%ds" % after, "alertname": alertname,
                       "exp_alerts": [alert(rules, alertname, {"instance": "stopped"}, after)]}
    tests = [{"eval_time": "5m", "alertname": "BuildIdCheckFailed", "exp_alerts": failing},
             {"eval_time": "10m", "alertname": "RunningBinaryMisidentified", "exp_alerts": []},
             {"eval_time": "20m", "alertname": "RunningBinaryMisidentified",
              "exp_alerts": misidentified}, stale["verify"], stale["running"]]
    doc = {"rule_files": [rules_path], "evaluation_interval": "1m",
           "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": tests}]}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
    return "%d failing, %d misidentified" % (len(failing), len(misidentified))


def yaml_load(path):
    import yaml
    return yaml.safe_load(open(path, encoding="utf-8"))


def main(argv):
    try:
        return judge(argv)
    except (ValueError, OSError) as e:  # a label that is no escape, no file
        print(e)
        return 0


def judge(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd in ("verify", "running") and len(argv) == 6:
        fams, bad = load(argv[2])
        check = check_verify if cmd == "verify" else check_running
        if not bad:
            doc = json.load(open(argv[3], encoding="utf-8"))
            bad = check(fams, doc, float(argv[4]), float(argv[5]))
    elif cmd == "parse" and len(argv) == 4 and argv[3] in ("verify", "running"):
        fams, bad = load(argv[2])
        bad = bad or families(fams, VERIFY if argv[3] == "verify" else RUNNING)
    elif cmd == "same" and len(argv) == 4:
        (a, bad_a), (b, bad_b) = load(argv[2]), load(argv[3])
        bad = bad_a + bad_b
        if not bad and sample_set(a, True) != sample_set(b, True):
            bad = ["the samples differ: %r" % (sample_set(a, True) ^ sample_set(b, True))]
    elif cmd == "node" and len(argv) == 4:
        fams, bad = load(argv[2])
        bad = bad or check_node(fams, open(argv[3], encoding="utf-8").read())
    elif cmd == "rules-test" and len(argv) == 6:
        print(rules_test(*argv[2:6]))
        return 0
    else:
        sys.exit(__doc__)
    print("\n".join(bad) or "ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
