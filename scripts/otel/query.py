#!/usr/bin/env python3
"""Read back what the OpenTelemetry test backends received.

Start the backends with scripts/otel/backends.sh start, then source
$OTEL_E2E_DIR/env. Subcommands print one JSON object per line:

  spans TRACE_ID            spans of one trace (32 hex digits)
  spans-by-service SERVICE  spans whose resource has service.name=SERVICE
  metrics                   latest point of each metric series

Span lines: {name, span_id, parent_span_id, trace_id, kind, service,
attributes, resource, links: [{trace_id, span_id, attributes}], status:
{code, message}}. parent_span_id is null for a root span. status.code is
UNSET, OK or ERROR.

Metric lines: {name, attributes, value} for sums and gauges, and
{name, attributes, count, sum, buckets: {le: count}} for histograms.
attributes holds the point attributes plus the resource attributes
(service.name ...), as VictoriaMetrics stores them as labels.

Nothing here waits: poll from the test with a bounded loop until the
expected spans or points show up.
"""
import json
import os
import re
import sys
import urllib.parse
import urllib.request

TIMEOUT = 10


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"query.py: {name} is not set; source $OTEL_E2E_DIR/env first")
    return value


def http_get(url):
    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:
        return resp.read().decode("utf-8")


# ---------- traces from the rotel debug log ----------

_VALUE = re.compile(r"^(Str|Int|Bool|Double|Slice|Map|Bytes)\((.*)\)$", re.S)


def _value(text):
    """Turn rotel's Str(x) / Int(1) / Bool(true) / Double(1.5) into JSON."""
    m = _VALUE.match(text)
    if not m:
        return text
    kind, raw = m.groups()
    if kind == "Int":
        return int(raw)
    if kind == "Double":
        return float(raw)
    if kind == "Bool":
        return raw == "true"
    return raw  # Str, and Slice/Map/Bytes as their text


def _kv(line):
    """Parse '-> key: Value(...)' into (key, value)."""
    body = line.split("->", 1)[1].strip()
    key, _, val = body.partition(": ")
    return key.strip(), _value(val.strip())


def _field(line):
    """Parse '    Name           : child' into ('Name', 'child')."""
    key, _, val = line.partition(":")
    return key.strip(), val.strip()


def rotel_spans(path):
    """Parse the detailed debug log of rotel into span dicts.

    Layout (one block per ResourceSpans):
      Resource attributes:      then '     -> k: Str(v)' lines
      Span #n                   then 'Trace ID : ...' style fields
      Attributes:               span attributes, '     -> k: V'
      Events: / SpanEvent #n    event fields (skipped)
      Links: / SpanLink #n      '     -> Trace ID: ..', '     -> ID: ..',
                                '     -> Attributes:' then deeper '->' lines
    Known limit: string values that contain a newline break the format.
    """
    spans = []
    resource = {}
    span = None
    section = None  # resource | span | attrs | events | links | linkattrs
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            line = raw.rstrip("\n")
            stripped = line.strip()
            if line.startswith("ResourceSpans #"):
                resource, span, section = {}, None, None
            elif line.startswith("Resource attributes"):
                section = "resource"
            elif line.startswith("ScopeSpans") or line.startswith("InstrumentationScope"):
                section = None
            elif line.startswith("Span #"):
                span = {
                    "name": None, "span_id": None, "parent_span_id": None,
                    "trace_id": None, "kind": None,
                    "service": resource.get("service.name"),
                    "attributes": {}, "resource": dict(resource), "links": [],
                    "status": {"code": "UNSET", "message": ""},
                }
                spans.append(span)
                section = "span"
            elif span is not None and line.startswith("Attributes"):
                section = "attrs"
            elif span is not None and line.startswith("Events"):
                section = "events"
            elif span is not None and line.startswith("Links"):
                section = "links"
            elif section == "links" and line.startswith("SpanLink #"):
                span["links"].append({"trace_id": None, "span_id": None, "attributes": {}})
            elif section == "events" and line.startswith("SpanEvent #"):
                pass
            elif stripped.startswith("->"):
                if section == "resource":
                    k, v = _kv(line)
                    resource[k] = v
                elif section == "attrs":
                    k, v = _kv(line)
                    span["attributes"][k] = v
                elif section in ("links", "linkattrs") and span["links"]:
                    link = span["links"][-1]
                    indent = len(line) - len(line.lstrip())
                    body = stripped[2:].strip()
                    if section == "linkattrs" and indent > 5:
                        k, v = _kv(line)
                        link["attributes"][k] = v
                    elif body.startswith("Trace ID:"):
                        link["trace_id"] = body.split(":", 1)[1].strip()
                        section = "links"
                    elif body.startswith("ID:"):
                        link["span_id"] = body.split(":", 1)[1].strip()
                    elif body.startswith("Attributes"):
                        section = "linkattrs"
            elif section == "span" and ":" in line:
                key, val = _field(line)
                if key == "Trace ID":
                    span["trace_id"] = val
                elif key == "Parent ID":
                    span["parent_span_id"] = val or None
                elif key == "ID":
                    span["span_id"] = val
                elif key == "Name":
                    span["name"] = val
                elif key == "Kind":
                    span["kind"] = val.replace("SPAN_KIND_", "")
                elif key == "Status code":
                    span["status"]["code"] = val.replace("STATUS_CODE_", "")
                elif key == "Status message":
                    span["status"]["message"] = val
    return spans


# ---------- traces from Arize Phoenix ----------


def phoenix_spans(base, project="default"):
    """All spans of one Phoenix project, via GET /v1/projects/{p}/spans.

    Phoenix drops links and resource attributes, so links is always [] and
    service is the project name (set by the resource attribute
    openinference.project.name or the x-project-name header).
    """
    out, cursor = [], None
    while True:
        q = {"limit": "1000"}
        if cursor:
            q["cursor"] = cursor
        url = f"{base}/v1/projects/{urllib.parse.quote(project, safe='')}/spans?" + urllib.parse.urlencode(q)
        try:
            doc = json.loads(http_get(url))
        except urllib.error.HTTPError as err:
            if err.code == 404:  # no span has reached this project yet
                return out
            raise
        for s in doc.get("data", []):
            out.append({
                "name": s["name"],
                "span_id": s["context"]["span_id"],
                "parent_span_id": s.get("parent_id"),
                "trace_id": s["context"]["trace_id"],
                "kind": s.get("span_kind"),
                "service": project,
                "attributes": s.get("attributes") or {},
                "resource": {},
                "links": [],
                "status": {"code": s.get("status_code", "UNSET"), "message": s.get("status_message", "")},
            })
        cursor = doc.get("next_cursor")
        if not cursor:
            return out


def all_spans(project=None):
    kind = os.environ.get("OTEL_E2E_TRACES_KIND", "rotel")
    where = env("OTEL_E2E_TRACES_QUERY")
    if kind == "phoenix":
        return phoenix_spans(where, project or "default")
    if not os.path.exists(where):
        return []
    return rotel_spans(where)


# ---------- metrics from VictoriaMetrics ----------


def metric_points():
    base = env("OTEL_E2E_METRICS_QUERY")
    # Make points that just arrived visible to queries (otherwise ~1 s).
    urllib.request.urlopen(base + "/internal/force_flush", timeout=TIMEOUT).read()
    url = base + "/api/v1/export?" + urllib.parse.urlencode({"match[]": '{__name__=~".+"}'})
    series = []
    for line in http_get(url).splitlines():
        if line.strip():
            series.append(json.loads(line))
    # Each export of a cumulative metric adds a sample: keep the newest.
    plain, hists = [], {}
    for s in series:
        labels = dict(s["metric"])
        name = labels.pop("__name__")
        value = s["values"][s["timestamps"].index(max(s["timestamps"]))]
        for suffix in ("_bucket", "_count", "_sum"):
            if name.endswith(suffix):
                base_name = name[: -len(suffix)]
                le = labels.pop("le", None)
                key = (base_name, json.dumps(labels, sort_keys=True))
                h = hists.setdefault(key, {"name": base_name, "attributes": labels,
                                           "count": None, "sum": None, "buckets": {}})
                if suffix == "_bucket":
                    h["buckets"][le] = value
                else:
                    h[suffix[1:]] = value
                break
        else:
            plain.append({"name": name, "attributes": labels, "value": value})
    # A real histogram has _count; lone _sum/_bucket names stay plain.
    for (base_name, _), h in sorted(hists.items()):
        if h["count"] is None:
            for part in ("sum",):
                if h[part] is not None:
                    plain.append({"name": base_name + "_" + part, "attributes": h["attributes"], "value": h[part]})
            continue
        plain.append(h)
    return sorted(plain, key=lambda p: (p["name"], json.dumps(p["attributes"], sort_keys=True)))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd = argv[1]
    if cmd == "spans" and len(argv) == 3:
        trace_id = argv[2].lower()
        rows = [s for s in all_spans() if s["trace_id"] == trace_id]
    elif cmd == "spans-by-service" and len(argv) == 3:
        rows = [s for s in all_spans(project=argv[2]) if s["service"] == argv[2]]
    elif cmd == "metrics" and len(argv) == 2:
        rows = metric_points()
    else:
        sys.exit(__doc__)
    for row in rows:
        print(json.dumps(row, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
