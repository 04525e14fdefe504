#!/usr/bin/env python3
"""gpuvp performance report: one self-contained HTML page from a run's --stats JSON and, optionally, its --trace.

    gpuvp_report.py STATS.json [TRACE.json] -o DIR

writes DIR/index.html and nothing else: every chart is inline SVG, the CSS and the small script are inline, so the
page opens offline. The same inputs give the same file byte for byte (no time stamps, no random ids).

Exit status: 0 written; 2 bad command line or bad input (a missing or unreadable file, not JSON, not a gpuvp-stats
document of a supported schema_version, a trace that is not a Chrome trace, an output directory that cannot be
written), with one line on stderr: "gpuvp report: error: <what and which file>".

Needs Python 3.9+ and matplotlib (Debian: python3-matplotlib; numpy comes with it). Nothing else.

What the inputs mean (README "Statistics and timeline", tlm/core/stats.h, tlm/core/timeline.cpp):
- stats "series" (--stats-interval NS): time_ps are the sample times (0, NS, 2 NS, ..., and the end of the run);
  counters and busy_ps hold every statistic's CUMULATIVE value at each sample, so an interval's value is the
  difference of two samples over the difference of their times.
- histograms: "buckets" maps a bucket's lower bound to its count; bucket 0 counts zeros, bucket 2^(i-1) counts
  samples in [2^(i-1), 2^i).
- trace: Chrome trace JSON; "X" spans with ts and dur in microseconds (picosecond precision as a fraction); "M"
  thread_name events name the tracks; "C" counters (bus ports' bytes per 1 us window, B/us).
"""

import argparse
import html
import io
import json
import math
import os
import re
import shlex
import sys

SUPPORTED_SCHEMA_VERSIONS = (2,)
PS_PER_US = 1_000_000
TOP_N = 12
MAX_PLOT_BINS = 400  # series longer than this are averaged over wider bins for the charts (~2 px a bin)
MAX_HEATMAP_BINS = 160
MAX_TRACE_BINS = 1200
MAX_KERNEL_ROWS = 30

H = html.escape


class ReportError(Exception):
    """A bad input: one line for stderr."""


# ----------------------------------------------------------------------------------------------------------------
# Formatting


def fmt_int(n):
    return f"{int(n):,}"


def fmt_time(ps):
    """A time in picoseconds in the largest unit that keeps it >= 1: 895.3 us, 5.986 us, 120 ps."""
    if ps is None:
        return "–"
    a = abs(ps)
    for div, unit in ((1e12, "s"), (1e9, "ms"), (1e6, "µs"), (1e3, "ns")):
        if a >= div:
            v = ps / div
            decimals = 1 if abs(v) >= 100 else 2 if abs(v) >= 10 else 3
            return f"{v:,.{decimals}f} {unit}"
    if float(ps).is_integer():
        return f"{int(ps):,} ps"
    return f"{ps:.3g} ps"


def fmt_time_short(ps):
    """Axis and bucket labels: three significant digits."""
    a = abs(ps)
    for div, unit in ((1e12, "s"), (1e9, "ms"), (1e6, "µs"), (1e3, "ns")):
        if a >= div:
            return f"{ps / div:.3g} {unit}"
    return f"{ps:.3g} ps"


def fmt_bytes(n):
    n = float(n)
    for div, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if abs(n) >= div:
            return f"{n / div:,.1f} {unit}"
    return f"{n:,.0f} B"


def fmt_bytes_short(n):
    for div, unit in ((1 << 30, "Gi"), (1 << 20, "Mi"), (1 << 10, "Ki")):
        if abs(n) >= div:
            return f"{n / div:.3g} {unit}"
    return f"{n:.3g}"


def fmt_pct(x):
    return f"{100.0 * x:.2f} %"


def fmt_gbps(bytes_per_ps):
    return f"{bytes_per_ps * 1000.0:,.3f} GB/s"


def fmt_number(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return fmt_int(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return fmt_int(int(v))
        return f"{v:,.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.3e}"
    return str(v)


def fmt_value(v, unit):
    """A statistic's value in its declared unit, readable."""
    if unit == "ps":
        return fmt_time(v)
    if unit == "bytes":
        return fmt_int(v) + " B" + (f" ({fmt_bytes(v)})" if abs(v) >= 1024 else "")
    if unit == "ratio":
        return fmt_pct(v)
    if unit == "bytes/s":
        return f"{v / 1e9:,.3f} GB/s"
    return fmt_number(v) + (f" {unit}" if unit and unit != "events" else "")


def time_axis(max_ps):
    """(divisor, unit) for a time axis reaching max_ps."""
    for div, unit in ((1e12, "s"), (1e9, "ms"), (1e6, "µs"), (1e3, "ns")):
        if max_ps >= 2 * div:
            return div, unit
    return 1.0, "ps"


# ----------------------------------------------------------------------------------------------------------------
# HTML pieces


class Cell:
    """A table cell: its HTML, the value it sorts by, and whether it is a number (right-aligned)."""

    def __init__(self, text_html, sort=None, num=None, cls="", attrs=""):
        self.html = text_html
        self.sort = sort
        self.num = isinstance(sort, (int, float)) if num is None else num
        self.cls = cls
        self.attrs = attrs


def cell(v):
    if isinstance(v, Cell):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return Cell(H(fmt_number(v)), v)
    return Cell(H(str(v)))


def time_cell(ps):
    return Cell(H(fmt_time(ps)), ps)


def pct_cell(x, bar=True):
    """A share with a small bar behind the number."""
    width = max(0.0, min(1.0, x)) * 100
    inner = H(fmt_pct(x))
    if bar:
        inner = f'<span class="bar" style="width:{width:.1f}%"></span><span class="bv">{inner}</span>'
    return Cell(inner, x, cls="pct")


def table(headers, rows, summary_rows=(), sortable=True, cls="", caption=""):
    out = [f'<div class="tw"><table class="{"sortable " if sortable else ""}{cls}">']
    if caption:
        out.append(f"<caption>{caption}</caption>")
    cells = [[cell(c) for c in r] for r in rows]
    numeric_col = [
        bool(cells) and all(r[i].num for r in cells if i < len(r) and r[i].html not in ("", "–"))
        for i in range(len(headers))
    ]
    out.append("<thead><tr>")
    for i, h in enumerate(headers):
        out.append(f'<th{" class=num" if numeric_col[i] else ""}>{H(h)}</th>')
    out.append("</tr></thead><tbody>")

    def row_html(r, extra_cls=""):
        parts = [f'<tr{f" class={extra_cls}" if extra_cls else ""}>']
        for c in r:
            classes = " ".join(x for x in ("num" if c.num else "", c.cls) if x)
            attrs = f' class="{classes}"' if classes else ""
            if c.sort is not None and isinstance(c.sort, (int, float)):
                attrs += f' data-sort="{c.sort!r}"'
            attrs += c.attrs
            parts.append(f"<td{attrs}>{c.html}</td>")
        parts.append("</tr>")
        return "".join(parts)

    for r in cells:
        out.append(row_html(r))
    out.append("</tbody>")
    if summary_rows:
        out.append("<tfoot>")
        for r in summary_rows:
            out.append(row_html([cell(c) for c in r], "rest"))
        out.append("</tfoot>")
    out.append("</table></div>")
    return "".join(out)


def note(text_html, kind="info"):
    return f'<p class="note {kind}">{text_html}</p>'


def missing(what_html, how_html):
    """A section part whose data the inputs do not have: what is missing and how to get it."""
    return f'<div class="missing"><strong>{what_html}</strong> {how_html}</div>'


def figure(svg, caption_html=""):
    cap = f"<figcaption>{caption_html}</figcaption>" if caption_html else ""
    return f'<figure class="chart">{svg}{cap}</figure>'


def code(text):
    return f"<code>{H(text)}</code>"


# ----------------------------------------------------------------------------------------------------------------
# Inputs


def load_json(path, what):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError(f"cannot read {what} '{path}': {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReportError(f"{what} '{path}' is not UTF-8 text (byte {e.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{what} '{path}' is not JSON (line {e.lineno} column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise ReportError(f"{what} '{path}' is nested too deeply to read") from None


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_stats(doc, path):
    where = f"stats file '{path}'"
    if not isinstance(doc, dict):
        raise ReportError(f"{where} is not a gpuvp-stats document (not a JSON object)")
    if doc.get("schema") != "gpuvp-stats":
        got = doc.get("schema")
        raise ReportError(
            f"{where} is not a gpuvp-stats document (\"schema\" is {json.dumps(got) if got is not None else 'missing'})"
        )
    version = doc.get("schema_version")
    if version not in SUPPORTED_SCHEMA_VERSIONS or isinstance(version, bool):
        supported = ", ".join(str(v) for v in SUPPORTED_SCHEMA_VERSIONS)
        raise ReportError(f"{where} has unsupported schema_version {json.dumps(version)} "
                          f"(this report reads {supported})")
    if not is_number(doc.get("sim_time_ps")) or doc["sim_time_ps"] < 0:
        raise ReportError(f"{where}: \"sim_time_ps\" is missing or not a number")
    for key in ("stats", "metrics", "outcome"):
        if not isinstance(doc.get(key), dict):
            raise ReportError(f"{where}: \"{key}\" is missing or not an object")
    if "config" in doc and not isinstance(doc["config"], dict):
        raise ReportError(f"{where}: \"config\" is not an object")
    if "command_line" in doc and not isinstance(doc["command_line"], list):
        raise ReportError(f"{where}: \"command_line\" is not a list")
    if "wall_time_s" in doc and not is_number(doc["wall_time_s"]):
        raise ReportError(f"{where}: \"wall_time_s\" is not a number")
    if "regions" in doc and not isinstance(doc["regions"], list):
        raise ReportError(f"{where}: \"regions\" is not a list")
    series = doc.get("series")
    if series is not None:
        if not isinstance(series, dict):
            raise ReportError(f"{where}: \"series\" is not an object")
        times = series.get("time_ps")
        if not isinstance(times, list) or not all(is_number(t) for t in times):
            raise ReportError(f"{where}: \"series.time_ps\" is missing or not a list of numbers")
        if not is_number(series.get("interval_ps")):
            raise ReportError(f"{where}: \"series.interval_ps\" is missing or not a number")
        for key in ("busy_ps", "counters"):
            group = series.get(key, {})
            if not isinstance(group, dict):
                raise ReportError(f"{where}: \"series.{key}\" is not an object")
            for name, values in group.items():
                if not isinstance(values, list) or len(values) != len(times):
                    raise ReportError(
                        f"{where}: \"series.{key}.{name}\" is not a list as long as series.time_ps ({len(times)})"
                    )
    return doc


def check_trace(doc, path):
    where = f"trace file '{path}'"
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
        if not isinstance(events, list):
            raise ReportError(f"{where} is not a Chrome trace (no \"traceEvents\" list)")
    elif isinstance(doc, list):
        events = doc  # the JSON Array Format
    else:
        raise ReportError(f"{where} is not a Chrome trace (neither an object with \"traceEvents\" nor a list)")
    for i, e in enumerate(events):
        if not isinstance(e, dict) or not isinstance(e.get("ph"), str):
            raise ReportError(f"{where} is not a Chrome trace (event {i} is not an object with a \"ph\" phase)")
    return events


# ----------------------------------------------------------------------------------------------------------------
# The trace, read once


class Span:
    __slots__ = ("track", "name", "start", "dur", "args")

    def __init__(self, track, name, start, dur, args):
        self.track = track
        self.name = name
        self.start = start
        self.dur = dur
        self.args = args

    @property
    def end(self):
        return self.start + self.dur


class Trace:
    def __init__(self, events):
        self.tracks = {}  # (pid, tid) -> name
        self.spans = []
        self.counters = {}  # name -> [(ts_ps, value)]
        self.counter_tracks = {}  # name -> track name
        self.ignored = 0
        for e in events:
            if e["ph"] == "M" and e.get("name") == "thread_name":
                args = e.get("args")
                if isinstance(args, dict) and isinstance(args.get("name"), str):
                    self.tracks[(e.get("pid"), e.get("tid"))] = args["name"]
        for e in events:
            ph = e["ph"]
            if ph == "X":
                ts, dur, name = e.get("ts"), e.get("dur", 0), e.get("name")
                if not is_number(ts) or not is_number(dur) or not isinstance(name, str):
                    self.ignored += 1
                    continue
                track = self.track_name(e)
                args = e.get("args") if isinstance(e.get("args"), dict) else {}
                self.spans.append(Span(track, name, round(ts * PS_PER_US), round(dur * PS_PER_US), args))
            elif ph == "C":
                ts, name, args = e.get("ts"), e.get("name"), e.get("args")
                if not is_number(ts) or not isinstance(name, str) or not isinstance(args, dict):
                    self.ignored += 1
                    continue
                value = args.get("value")
                if not is_number(value):
                    values = [v for v in args.values() if is_number(v)]
                    if len(values) != 1:
                        self.ignored += 1
                        continue
                    value = values[0]
                self.counters.setdefault(name, []).append((round(ts * PS_PER_US), float(value)))
                self.counter_tracks.setdefault(name, self.track_name(e))
        self.spans.sort(key=lambda s: (s.start, -s.dur, s.track, s.name))
        for samples in self.counters.values():
            samples.sort(key=lambda s: s[0])
        self.end_ps = max((s.end for s in self.spans), default=0)

    def track_name(self, e):
        name = self.tracks.get((e.get("pid"), e.get("tid")))
        if name is None:
            tid = e.get("tid")
            return f"thread {tid}" if tid is not None else "(no track)"
        return name


# ----------------------------------------------------------------------------------------------------------------
# Statistics helpers


def walk_stats(node, prefix=""):
    """(path, value) for every leaf statistic of the nested "stats" tree; histograms and busy times as leaves."""
    if isinstance(node, dict):
        if is_histogram(node) or is_busy(node):
            yield prefix, node
            return
        for k in sorted(node):
            yield from walk_stats(node[k], f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix, node


def is_histogram(v):
    return isinstance(v, dict) and isinstance(v.get("buckets"), dict) and "count" in v


def is_busy(v):
    return isinstance(v, dict) and "busy_ps" in v and "utilisation" in v


def stat_at(stats, path):
    node = stats
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def config_at(config, path, default=None):
    v = stat_at(config or {}, path)
    return default if v is None else v


def flatten(node, prefix=""):
    if isinstance(node, dict) and node:
        for k in sorted(node):
            yield from flatten(node[k], f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix, node


def natural_key(text):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


# ----------------------------------------------------------------------------------------------------------------
# Charts (matplotlib, imported once the inputs are known good)


class Charts:
    PALETTE = [
        "#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e", "#9498a0",
        "#1f5f8b", "#c04e7e",
    ]

    def __init__(self):
        import matplotlib

        matplotlib.use("svg")
        import matplotlib.pyplot as plt

        self.mpl = matplotlib
        self.plt = plt
        self.count = 0
        rc = matplotlib.rcParams
        rc.update(matplotlib.rcParamsDefault)
        rc["svg.fonttype"] = "none"  # text as <text>: small, selectable, drawn by the browser
        rc["svg.hashsalt"] = "gpuvp-report"
        rc["font.family"] = ["DejaVu Sans", "sans-serif"]
        rc["font.size"] = 9
        rc["axes.titlesize"] = 10
        rc["axes.titleweight"] = "bold"
        rc["axes.titlelocation"] = "left"
        rc["axes.spines.top"] = False
        rc["axes.spines.right"] = False
        rc["axes.edgecolor"] = "#888888"
        rc["axes.grid"] = True
        rc["grid.color"] = "#e4e4e4"
        rc["grid.linewidth"] = 0.6
        rc["axes.axisbelow"] = True
        rc["legend.frameon"] = False
        rc["legend.fontsize"] = 8
        rc["xtick.color"] = "#444444"
        rc["ytick.color"] = "#444444"
        rc["axes.prop_cycle"] = matplotlib.cycler(color=self.PALETTE)
        rc["path.simplify"] = True

    def figure(self, width, height, **kw):
        return self.plt.subplots(figsize=(width, height), **kw)

    # Charts over simulated time share one layout (inches), so that their time axes line up down the page.
    WIDTH, LEFT, RIGHT, TOP, BOTTOM, GAP = 11.0, 1.35, 1.75, 0.3, 0.55, 0.42

    def time_figure(self, heights):
        """A figure of stacked panels sharing the time axis, at fixed margins (legends go in the right one)."""
        total = self.TOP + sum(heights) + self.GAP * (len(heights) - 1) + self.BOTTOM
        fig = self.plt.figure(figsize=(self.WIDTH, total))
        axes, y = [], total - self.TOP
        for h in heights:
            y -= h
            ax = fig.add_axes([self.LEFT / self.WIDTH, y / total, (self.WIDTH - self.LEFT - self.RIGHT) / self.WIDTH,
                               h / total], sharex=axes[0] if axes else None)
            axes.append(ax)
            y -= self.GAP
        for ax in axes[:-1]:
            ax.tick_params(labelbottom=False)
        return fig, axes

    def side_axes(self, fig, ax, width=0.15, pad=0.12):
        """An axes (a colour bar's) in the right margin beside ax."""
        box = ax.get_position()
        w = fig.get_figwidth()
        return fig.add_axes([box.x1 + pad / w, box.y0, width / w, box.height])

    def svg(self, fig, label, tight=True):
        """The figure as an inline <svg>: no prolog, no metadata, ids unique in the page."""
        self.count += 1
        prefix = f"c{self.count}-"
        self.mpl.rcParams["svg.hashsalt"] = f"gpuvp-report-{self.count}"
        buf = io.StringIO()
        if tight:
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight",
                        pad_inches=0.08)
        else:
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        self.plt.close(fig)
        s = buf.getvalue()
        s = s[s.index("<svg"):]
        s = re.sub(r"\s*<metadata>.*?</metadata>", "", s, flags=re.S)
        s = re.sub(r'\s*<style type="text/css">.*?</style>', "", s, flags=re.S)
        s = re.sub(r"\s*<defs>\s*</defs>", "", s)
        refs = set(re.findall(r"url\(#([^)]+)\)", s)) | set(re.findall(r'href="#([^"]+)"', s))
        s = re.sub(r' id="([^"]+)"', lambda m: f' id="{prefix}{m.group(1)}"' if m.group(1) in refs else "", s)
        s = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", s)
        s = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', s)
        m = re.match(r'<svg ([^>]*)>', s)
        attrs = m.group(1)
        width = re.search(r'width="([\d.]+)pt"', attrs)
        attrs = re.sub(r'\s*(width|height)="[^"]*"', "", attrs)
        max_w = f' style="max-width:{float(width.group(1)) * 4 / 3:.0f}px"' if width else ""
        s = f'<svg {attrs} class="chart" role="img" aria-label="{H(label)}"{max_w}>' + s[m.end():]
        return s.strip() + "\n"


def rebin(edges, deltas, max_bins=MAX_PLOT_BINS):
    """Merge consecutive intervals so that at most max_bins remain; values stay exact sums over their bins."""
    n = len(deltas)
    if n <= max_bins:
        return edges, deltas, 1
    k = math.ceil(n / max_bins)
    new_edges = [edges[i] for i in range(0, n, k)] + [edges[n]]
    new_deltas = [sum(deltas[i:i + k]) for i in range(0, n, k)]
    return new_edges, new_deltas, k


def rectangles(spans, y, height, colour):
    """Many bars of one colour as a single compound path (one SVG element, not one per bar)."""
    from matplotlib.path import Path
    from matplotlib.patches import PathPatch

    verts, codes = [], []
    for x, w in spans:
        verts += [(x, y), (x + w, y), (x + w, y + height), (x, y + height), (x, y)]
        codes += [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY]
    return PathPatch(Path(verts, codes), facecolor=colour, edgecolor="none", linewidth=0)


def step_average(samples, end, max_bins):
    """A counter track (value held from each sample to the next, the last to end) as (edges, values): the samples
    themselves when few, else the exact mean over max_bins equal bins."""
    if not samples:
        return [0, end], [0.0]
    if len(samples) <= max_bins:
        return [t for t, _ in samples] + [max(end, samples[-1][0])], [v for _, v in samples]
    start = samples[0][0]
    stop = max(end, samples[-1][0])
    width = (stop - start) / max_bins
    if width <= 0:
        return [start, stop], [samples[-1][1]]
    area = [0.0] * max_bins
    for i, (t, v) in enumerate(samples):
        t1 = samples[i + 1][0] if i + 1 < len(samples) else stop
        if v == 0 or t1 <= t:
            continue
        b = min(int((t - start) / width), max_bins - 1)
        while t < t1 and b < max_bins:
            edge = start + (b + 1) * width
            seg = min(t1, edge) - t
            area[b] += v * seg
            t += seg
            b += 1
    return [start + i * width for i in range(max_bins + 1)], [a / width for a in area]


class Series:
    """The stats document's interval series: per-interval values from the cumulative samples."""

    def __init__(self, doc):
        self.interval_ps = doc["interval_ps"]
        self.times = [int(t) for t in doc["time_ps"]]
        self.busy = doc.get("busy_ps", {})
        self.counters = doc.get("counters", {})
        self.usable = len(self.times) >= 2 and self.times[-1] > self.times[0]

    def deltas(self, values):
        return [values[i + 1] - values[i] for i in range(len(values) - 1)]

    def rates(self, values, scale=1.0, max_bins=MAX_PLOT_BINS):
        """(edges, per-ps rate x scale) of a cumulative series, merged into at most max_bins bins."""
        edges, deltas, k = rebin(self.times, self.deltas(values), max_bins)
        rates = []
        for i, d in enumerate(deltas):
            dt = edges[i + 1] - edges[i]
            rates.append(d / dt * scale if dt > 0 else 0.0)
        return edges, rates, k


# ----------------------------------------------------------------------------------------------------------------
# The report


class Report:
    def __init__(self, stats_doc, stats_path, trace_events, trace_path):
        self.doc = stats_doc
        self.stats_path = stats_path
        self.trace_path = trace_path
        self.stats = stats_doc["stats"]
        self.metrics = stats_doc["metrics"]
        self.config = stats_doc.get("config") or {}
        self.sim_ps = stats_doc["sim_time_ps"]
        self.series = Series(stats_doc["series"]) if isinstance(stats_doc.get("series"), dict) else None
        self.trace = Trace(trace_events) if trace_events is not None else None
        self.charts = Charts()
        self.leaves = dict(walk_stats(self.stats))
        self.axis_div, self.axis_unit = time_axis(max(self.sim_ps, self.trace.end_ps if self.trace else 0))

    # -- helpers ---------------------------------------------------------------------------------------------
    def unit(self, path):
        m = self.metrics.get(path)
        return m.get("unit", "") if isinstance(m, dict) else ""

    def describe(self, path):
        m = self.metrics.get(path)
        return m.get("description", "") if isinstance(m, dict) else ""

    def busy_paths(self):
        paths = [p for p, m in self.metrics.items() if isinstance(m, dict) and m.get("kind") == "busy_time"]
        if not paths:
            paths = [p for p, v in self.leaves.items() if is_busy(v)]
        return sorted(paths, key=natural_key)

    def share(self, ps):
        return ps / self.sim_ps if self.sim_ps > 0 else 0.0

    def hz(self, path, default):
        v = config_at(self.config, path)
        return v if is_number(v) and v > 0 else default

    def no_trace(self, what):
        return missing(
            f"No trace: {what} come from the timeline.",
            f"Run with {code('--trace trace.json')} and pass the trace to the report: "
            f"{code('gpuvp_report.py stats.json trace.json -o DIR')}.",
        )

    def no_series(self, what):
        return missing(
            f"No interval series in the statistics: {what}.",
            f"Run with {code('--stats-interval NS')} beside {code('--stats')} (for example "
            f"{code('--stats-interval 10000')} for 10 µs intervals) for values over time.",
        )

    def time_xaxis(self, ax, end_ps=None):
        ax.set_xlim(0, (end_ps if end_ps is not None else max(self.sim_ps, 1)) / self.axis_div)
        ax.set_xlabel(f"simulated time ({self.axis_unit})")

    # -- page ------------------------------------------------------------------------------------------------
    def build(self):
        sections = [
            ("run", "Run", self.section_run),
            ("utilisation", "Utilisation", self.section_utilisation),
            ("bandwidth", "Bandwidth", self.section_bandwidth),
            ("latency", "Latency", self.section_latency),
            ("attribution", "Time attribution", self.section_attribution),
            ("tiles", "vc4 tile cost", self.section_tiles),
            ("eu", "EU array", self.section_eu),
        ]
        body = []
        for sid, title, fn in sections:
            body.append(f'<section id="{sid}"><h2>{H(title)}</h2>\n{fn()}\n</section>')
        nav = "".join(f'<a href="#{sid}">{H(title)}</a>' for sid, title, _ in sections)
        outcome = self.doc["outcome"]
        result = str(outcome.get("result", "unknown"))
        sources = [self.link(self.stats_path)] + ([self.link(self.trace_path)] if self.trace_path else [])
        header = (
            '<header><div class="wrap"><h1>gpuvp performance report</h1><p class="sub">'
            f'<span class="badge {self.result_class(result)}">{H(result)}</span> '
            f"{H(fmt_time(self.sim_ps))} simulated · gpuvp {H(str(self.doc.get('gpuvp_version', '?')))} · "
            f"from {' and '.join(sources)}</p></div>"
            f'<nav><div class="wrap">{nav}</div></nav></header>'
        )
        title = f"gpuvp report: {result}, {fmt_time(self.sim_ps)} simulated"
        return (
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<link rel="icon" href="data:,">\n'
            f"<title>{H(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{header}\n"
            f'<main class="wrap">\n' + "\n".join(body) + "\n</main>\n"
            f'<footer class="wrap">Generated by platform/report/gpuvp_report.py from {" and ".join(sources)}. '
            "Times are simulated time unless marked host time; GB/s = 10<sup>9</sup> bytes per simulated second; "
            "KiB, MiB = 2<sup>10</sup>, 2<sup>20</sup> bytes.</footer>\n"
            f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
        )

    @staticmethod
    def link(path):
        """The input beside the report (the caller copies the stats and the trace next to index.html)."""
        name = H(os.path.basename(path))
        return f'<a href="{name}">{name}</a>'

    @staticmethod
    def result_class(result):
        return {"completed": "ok", "failed": "bad"}.get(result, "warn")

    # -- 1. run ----------------------------------------------------------------------------------------------
    def section_run(self):
        d = self.doc
        outcome = d["outcome"]
        result = str(outcome.get("result", "unknown"))
        wall = d.get("wall_time_s")
        cards = [
            ("Outcome", f'<span class="badge {self.result_class(result)}">{H(result)}</span>',
             f"exit code {H(str(outcome.get('exit_code', '?')))}"),
            ("Simulated time", H(fmt_time(self.sim_ps)), f'<span class="exact">{fmt_int(self.sim_ps)} ps</span>'),
        ]
        if is_number(wall):
            cards.append(("Wall time (host)", H(f"{wall:,.3f} s"), "host time of the run"))
            if wall > 0 and self.sim_ps > 0:
                per_s = self.sim_ps / wall
                slow = wall * 1e12 / self.sim_ps
                cards.append(("Host speed", H(fmt_time(per_s)) + " <small>/ host s</small>",
                              H(f"simulated per host second; {slow:,.0f}× slower than real time" if slow >= 1
                                else f"simulated per host second; {1 / slow:,.1f}× faster than real time")))
        else:
            cards.append(("Wall time (host)", "–", "not in the statistics"))
        out = ['<div class="cards">']
        for title, value, sub in cards:
            out.append(f'<div class="card"><div class="ct">{H(title)}</div><div class="cv">{value}</div>'
                       f'<div class="cs">{sub}</div></div>')
        out.append("</div>")
        out.append(self.glance())
        detail = outcome.get("detail")
        if detail and str(detail) != result:
            out.append(f'<p class="outcome"><strong>Outcome:</strong> {H(str(detail))}</p>')
        incidents = outcome.get("incidents")
        if isinstance(incidents, list) and incidents:
            out.append("<p><strong>Incidents</strong> (hangs and errors the blocks recorded):</p><ul class=incidents>")
            out.extend(f"<li>{H(str(i))}</li>" for i in incidents)
            out.append("</ul>")
        cmd = d.get("command_line")
        if cmd:
            out.append("<h3>Command line</h3><pre class=cmd>" + H(shlex.join(str(a) for a in cmd)) + "</pre>")
        else:
            out.append(note("The statistics do not record the command line."))
        out.append(self.regions_html())
        out.append(self.config_html(cmd or []))
        return "\n".join(out)

    def glance(self):
        """One line of headline figures: the busiest blocks and the memory traffic."""
        busy = []
        for p in self.busy_paths():
            v = stat_at(self.stats, p)
            if is_busy(v) and v.get("busy_ps", 0) > 0 and not p.startswith(("gpuvp.bus.", "gpuvp.dram.")):
                busy.append((v["busy_ps"], p))
        busy.sort(key=lambda x: (-x[0], x[1]))
        parts = []
        if busy:
            parts.append("busiest blocks " + ", ".join(
                f"<code>{H(self.short(p))}</code> {H(fmt_pct(self.share(b)))}" for b, p in busy[:3]))
        dram = stat_at(self.stats, "gpuvp.bus.dram.bytes")
        if is_number(dram) and self.sim_ps:
            parts.append(f"DRAM port {H(fmt_bytes(dram))} at {H(fmt_gbps(dram / self.sim_ps))} on average")
        return f'<p class="glance"><strong>At a glance:</strong> {"; ".join(parts)}.</p>' if parts else ""

    def regions_html(self):
        regions = self.doc.get("regions")
        if not regions:
            return ""
        rows = []
        busy_paths = self.busy_paths()
        for r in regions:
            if not isinstance(r, dict):
                continue
            b, e = r.get("begin_ps", 0), r.get("end_ps", 0)
            busiest = []
            for p in busy_paths:
                v = stat_at(r.get("stats", {}), p)
                if is_busy(v) and v.get("busy_ps", 0) > 0:
                    busiest.append((v.get("utilisation", 0), p))
            busiest.sort(key=lambda x: (-x[0], x[1]))
            top = ", ".join(f"{p.removeprefix('gpuvp.').removesuffix('.busy')} {fmt_pct(u)}" for u, p in busiest[:4])
            dram = stat_at(r.get("stats", {}), "gpuvp.bus.dram.bytes")
            bw = fmt_gbps(dram / (e - b)) if is_number(dram) and e > b else "–"
            rows.append([
                Cell(H(str(r.get("name", "?")))
                     + (" <small>(open at the end)</small>" if r.get("open_at_end") else "")),
                time_cell(b), time_cell(e), time_cell(e - b), pct_cell(self.share(e - b)),
                Cell(H(bw), dram / (e - b) * 1000 if is_number(dram) and e > b else 0), Cell(H(top or "idle")),
            ])
        return ("<h3>Regions of interest</h3>"
                "<p>The script's <code>stats_begin</code> / <code>stats_end</code> regions, with their busiest blocks "
                "(utilisation within the region) and DRAM-port bandwidth.</p>"
                + table(["region", "begin", "end", "duration", "share of run", "DRAM port", "busiest blocks"], rows))

    def config_html(self, cmd):
        if not self.config:
            return note("The statistics do not record the configuration.")
        overridden = set()
        for i, a in enumerate(cmd):
            if a == "--set" and i + 1 < len(cmd):
                overridden.add(str(cmd[i + 1]).split("=", 1)[0])
            elif str(a).startswith("--set="):
                overridden.add(str(a)[6:].split("=", 1)[0])
        rows = []
        for key, value in flatten(self.config):
            shown = value if isinstance(value, str) else json.dumps(value)
            mark = key in overridden
            rows.append(f'<tr{" class=set" if mark else ""}><td>{H(key)}</td><td>{H(shown)}'
                        f'{" <small>(--set)</small>" if mark else ""}</td></tr>')
        return (
            f'<details class="config"><summary>Configuration: {len(rows)} keys (the effective configuration, '
            f"defaults included{'; keys set on the command line are marked' if overridden else ''})</summary>"
            '<input type="search" class="filter" placeholder="filter keys, e.g. clock_hz" aria-label="filter keys">'
            '<table class="kv"><thead><tr><th>key</th><th>value</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table></details>"
        )

    # -- 2. utilisation ----------------------------------------------------------------------------------------
    def block_groups(self, paths):
        groups = [
            ("Gen engines", lambda p: re.match(r"^gpuvp\.gen\.(?!guc\.)[^.]+\.busy$", p)),
            ("GuC", lambda p: p.startswith("gpuvp.gen.guc.")),
            ("vc4 control list threads", lambda p: re.match(r"^gpuvp\.v3d\.ct\d+\.busy$", p)),
            ("vc4 QPU array", lambda p: p.startswith("gpuvp.v3d.qpus")),
            ("Bus ports and DRAM", lambda p: p.startswith("gpuvp.bus.") or p.startswith("gpuvp.dram.")),
        ]
        out, used = [], set()
        for title, test in groups:
            members = [p for p in paths if p not in used and test(p)]
            used.update(members)
            if members:
                out.append((title, members))
        rest = [p for p in paths if p not in used]
        if rest:
            out.append(("Other blocks", rest))
        return out

    @staticmethod
    def short(path):
        return path.removeprefix("gpuvp.").removesuffix(".busy")

    def subslice_paths(self):
        """EU subslices' active-cycle counters (array timing), in subslice order."""
        found = {}
        for p in self.metrics:
            m = re.match(r"^(.*\.gpgpu)\.subslice(\d+)\.active_cycles$", p)
            if m:
                found[int(m.group(2))] = p
        return [found[k] for k in sorted(found)]

    def qpu_paths(self):
        found = {}
        for p in self.metrics:
            m = re.match(r"^(.*\.qpus)\.qpu(\d+)\.busy_cycles$", p)
            if m:
                found[int(m.group(2))] = p
        return [found[k] for k in sorted(found)]

    def section_utilisation(self):
        out = []
        paths = self.busy_paths()
        groups = self.block_groups(paths)
        if self.series is not None and self.series.usable:
            out.append(self.utilisation_chart(groups))
            qpu = self.qpu_heatmap()
            if qpu:
                out.append(qpu)
        elif self.series is not None:
            out.append(missing("The interval series has fewer than two samples.",
                               f"Use a {code('--stats-interval')} shorter than the run."))
        else:
            out.append(self.no_series("utilisation over time is not available"))
        # whole-run table
        rows = []
        for title, members in groups:
            for p in members:
                v = stat_at(self.stats, p)
                busy = v.get("busy_ps", 0) if is_busy(v) else 0
                rows.append([
                    Cell(f"<code>{H(p)}</code>", p), Cell(H(title)), time_cell(busy),
                    pct_cell(self.share(busy)), Cell(H(self.describe(p))),
                ])
        if rows:
            out.append("<h3>Whole run</h3><p>Busy time of each block over the simulated time "
                       f"({H(fmt_time(self.sim_ps))}).</p>")
            out.append(table(["block", "group", "busy", "utilisation", "what busy means"], rows,
                             cls="util"))
        else:
            out.append(missing("The statistics have no busy times.", "No block of this platform tracks busy time."))
        qpu_table = self.qpu_table()
        if qpu_table:
            out.append(qpu_table)
        return "\n".join(out)

    def utilisation_chart(self, groups):
        s = self.series
        panels = []
        for title, members in groups:
            lines = [(self.short(p), s.busy[p]) for p in members if p in s.busy]
            if lines:
                panels.append((title, lines, None))
        sub = self.subslice_paths()
        ss_lines = [(re.sub(r".*\.(subslice\d+)\.active_cycles$", r"\1", p), s.counters[p])
                    for p in sub if p in s.counters and s.counters[p] and s.counters[p][-1] > 0]
        eu_note = ""
        if ss_lines:
            hz = self.hz("gen.clock_hz", 1e9)
            eus = config_at(self.config, "gen.gpgpu.eus_per_subslice", 8)
            panels.append(("EU subslices: active EU cycles over the subslice's EU cycles (own scale)", ss_lines,
                           1e12 / (hz * eus)))
            eu_note = (" EU subslices: active EU cycles over the subslice's EU cycles at <code>gen.clock_hz</code>; "
                       "the EU array books a walker's cycles when the walker ends, so a kernel's activity lands in "
                       "the interval where it ended.")
        if not panels:
            return missing("The interval series has no busy times.", "This platform's blocks track none.")
        fig, axes = self.charts.time_figure([1.25] * len(panels))
        merged = 1
        for ax, (title, lines, scale) in zip(axes, panels):
            top = 1.0 if scale is None else 0.0  # busy times on 0-100 %; EU activity on its own scale
            idle, drawn = [], 0
            for i, (label, values) in enumerate(lines):
                edges, rates, merged = s.rates(values, 1.0 if scale is None else scale)
                if not any(rates):
                    idle.append(label)  # a flat line at 0 would hide the others: named beside the legend
                    continue
                top = max(top, max(rates))
                ax.stairs([100.0 * r for r in rates], [e / self.axis_div for e in edges], label=label,
                          linewidth=1.3, baseline=None, color=self.charts.PALETTE[i % len(self.charts.PALETTE)])
                drawn += 1
            ax.set_ylim(0, 100.0 * (top if top > 0 else 1.0) * 1.08)
            ax.set_ylabel("busy %" if scale is None else "active %")
            ax.set_title(title)
            if drawn:
                ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1 if drawn <= 6 else 2)
            if idle:
                names = idle if len(idle) <= 5 else idle[:4] + [f"and {len(idle) - 4} more"]
                ax.text(1.02, 0.0, "idle throughout:\n" + "\n".join(names), transform=ax.transAxes, va="bottom",
                        ha="left", fontsize=7.5, color="#777777")
        self.time_xaxis(axes[-1], s.times[-1])
        svg = self.charts.svg(fig, "utilisation over time per block", tight=False)
        how = (f"{H(fmt_time(s.interval_ps))} intervals" if merged == 1
               else f"{H(fmt_time(s.interval_ps))} intervals averaged {merged} at a time")
        return figure(svg, f"Utilisation over time: busy time in each interval over the interval ({how}; the last "
                           "interval ends with the run). Samples are taken at kernel time, so a decoupled block may "
                           f"show up to one quantum of work early.{eu_note}")

    def qpu_heatmap(self):
        s = self.series
        paths = [p for p in self.qpu_paths() if p in s.counters]
        if not paths or all(s.counters[p][-1] == 0 for p in paths):
            return ""
        hz = self.hz("vc4.v3d.clock_hz", 250e6)
        rows, edges = [], None
        for p in paths:
            edges, rates, merged = s.rates(s.counters[p], 1e12 / hz, MAX_HEATMAP_BINS)
            rows.append([100.0 * r for r in rates])
        import numpy as np

        fig, (ax,) = self.charts.time_figure([0.2 * len(paths) + 0.2])
        x = np.array(edges, dtype=float) / self.axis_div
        y = np.arange(len(paths) + 1) - 0.5
        mesh = ax.pcolormesh(x, y, np.array(rows), cmap="Blues", vmin=0, vmax=max(100.0, max(map(max, rows))),
                             shading="flat", rasterized=len(rows[0]) * len(rows) > 400)
        ax.set_yticks(range(len(paths)))
        ax.set_yticklabels([re.sub(r".*\.(qpu\d+)\.busy_cycles$", r"\1", p) for p in paths])
        ax.invert_yaxis()
        ax.grid(False)
        ax.set_title("QPUs: busy cycles per interval")
        self.time_xaxis(ax, s.times[-1])
        cb = fig.colorbar(mesh, cax=self.charts.side_axes(fig, ax))
        cb.set_label("busy %")
        svg = self.charts.svg(fig, "QPU busy heat map", tight=False)
        how = "" if merged == 1 else f" Intervals are averaged {merged} at a time."
        return figure(svg, "Each QPU's busy cycles (<code>qpuN.busy_cycles</code>: V3D cycles running a program) over "
                           f"the interval's V3D cycles at <code>vc4.v3d.clock_hz</code>.{how}")

    def qpu_table(self):
        paths = self.qpu_paths()
        if not paths:
            return ""
        stall_kinds = ["tmu", "dma", "semaphore", "mutex", "scoreboard"]
        hz = self.hz("vc4.v3d.clock_hz", 250e6)
        run_cycles = self.sim_ps * hz / 1e12
        rows, chart_rows = [], []
        for p in paths:
            base = p.removesuffix(".busy_cycles")
            q = base.rsplit(".", 1)[1]
            stalls = [stat_at(self.stats, f"{base}.{k}_stall_cycles") or 0 for k in stall_kinds]
            chart_rows.append((q, base, stat_at(self.stats, p) or 0, stalls))
        # stall kinds that are 0 on every QPU get no column (named under the table)
        shown = [k for k in range(len(stall_kinds)) if any(st[k] for _, _, _, st in chart_rows)]
        never = [stall_kinds[k] for k in range(len(stall_kinds)) if k not in shown]
        for q, base, busy, stalls in chart_rows:
            ins = stat_at(self.stats, base + ".instructions") or 0
            progs = stat_at(self.stats, base + ".programs") or 0
            rows.append([Cell(H(q), int(q[3:]) if q[3:].isdigit() else 0, num=False),
                         busy, pct_cell(busy / run_cycles if run_cycles else 0), ins,
                         Cell(f"{ins / busy:.3f}" if busy else "–", ins / busy if busy else 0), progs]
                        + [Cell(f"{fmt_int(stalls[k])} <small>({100 * stalls[k] / busy:.1f} %)</small>" if busy
                                else fmt_int(stalls[k]), stalls[k]) for k in shown])
        chart_rows = [(q, busy, stalls) for q, _, busy, stalls in chart_rows]
        if not any(b for _, b, _ in chart_rows):
            return ("<h3>QPUs</h3>" + note("No QPU ran a program in this run."))
        fig, ax = self.charts.figure(11, 0.22 * len(chart_rows) + 1.2)
        labels = [q for q, _, _ in chart_rows]
        left = [0.0] * len(chart_rows)
        colours = ["#ff725c", "#efb118", "#a463f2", "#9c6b4e", "#ff8ab7"]
        for k, kind in enumerate(stall_kinds):
            vals = [st[k] for _, _, st in chart_rows]
            if any(vals):
                ax.barh(labels, vals, left=left, label=f"{kind} stall", color=colours[k], height=0.7)
                left = [a + b for a, b in zip(left, vals)]
        rest = [max(0, b - l) for (_, b, _), l in zip(chart_rows, left)]
        ax.barh(labels, rest, left=left, label="issuing / other", color="#4269d0", height=0.7)
        ax.invert_yaxis()
        ax.set_xlabel("V3D cycles")
        ax.set_title("QPUs: busy cycles by what they waited for")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.grid(axis="y", visible=False)
        svg = self.charts.svg(fig, "QPU busy cycles by stall reason")
        return ("<h3>QPUs</h3>" + figure(svg, "Stall cycles are part of the busy cycles (a QPU waiting for a TMU "
                                              "lookup, a VPM DMA, a semaphore, the mutex or the scoreboard).")
                + table(["QPU", "busy cycles", "busy of run", "instructions", "instr / busy cycle", "programs"]
                        + [f"{stall_kinds[k]} stall" for k in shown], rows)
                + (note(f"No QPU waited for: {', '.join(never)} (0 cycles on every QPU).") if never else ""))

    # -- 3. bandwidth ----------------------------------------------------------------------------------------
    def bus_ports(self):
        ports = []
        for p in self.metrics:
            m = re.match(r"^gpuvp\.bus\.([^.]+)\.bytes$", p)
            if m:
                ports.append(m.group(1))
        return sorted(ports, key=lambda x: (x != "dram", x))

    def port_peak(self, port):
        """The port's peak bytes per ps from the configuration, if it says."""
        bus_hz = config_at(self.config, "bus.clock_hz")
        per_cycle = config_at(self.config, "bus.dram_port_bytes_per_cycle" if port == "dram"
                              else "bus.mmio_port_bytes_per_cycle")
        if is_number(bus_hz) and is_number(per_cycle):
            return bus_hz * per_cycle / 1e12
        return None

    def dram_peak(self):
        hz, per_cycle = config_at(self.config, "dram.clock_hz"), config_at(self.config, "dram.bytes_per_cycle")
        if is_number(hz) and is_number(per_cycle):
            return hz * per_cycle / 1e12
        return None

    def section_bandwidth(self):
        out = []
        ports = self.bus_ports()
        if self.series is not None and self.series.usable:
            out.append(self.bandwidth_chart(ports))
        elif self.series is None:
            out.append(self.no_series("bandwidth over time per interval is not available"))
        if self.trace is not None:
            out.append(self.trace_bandwidth_chart())
        # totals
        rows = []
        peaks_1us = self.trace_peaks() if self.trace is not None else {}
        for port in ports:
            b = stat_at(self.stats, f"gpuvp.bus.{port}.bytes") or 0
            t = stat_at(self.stats, f"gpuvp.bus.{port}.transactions") or 0
            w = stat_at(self.stats, f"gpuvp.bus.{port}.contention_wait_ps") or 0
            busy = stat_at(self.stats, f"gpuvp.bus.{port}.busy")
            peak = self.port_peak(port)
            avg = b / self.sim_ps if self.sim_ps else 0
            p1 = peaks_1us.get(port)
            rows.append([
                Cell(f"bus port <code>{H(port)}</code>", port), Cell(H(fmt_bytes(b)), b), t,
                Cell(f"{b / t:,.1f} B" if t else "–", b / t if t else 0),
                Cell(H(fmt_gbps(avg)), avg * 1000),
                Cell(H(fmt_gbps(p1 / 1e6)) if p1 is not None else "–", p1 / 1e6 * 1000 if p1 is not None else 0),
                Cell(H(fmt_gbps(peak)) if peak else "–", peak * 1000 if peak else 0),
                pct_cell(busy.get("utilisation", 0)) if is_busy(busy) else Cell("–"),
                time_cell(w),
            ])
        dram = stat_at(self.stats, "gpuvp.dram")
        if isinstance(dram, dict) and "bytes_read" in dram:
            for direction, key, count_key in (("read", "bytes_read", "reads"), ("written", "bytes_written", "writes")):
                b, t = dram.get(key, 0), dram.get(count_key, 0)
                avg = b / self.sim_ps if self.sim_ps else 0
                rows.append([Cell(f"DRAM {direction}", "dram " + direction), Cell(H(fmt_bytes(b)), b), t,
                             Cell(f"{b / t:,.1f} B" if t else "–", b / t if t else 0),
                             Cell(H(fmt_gbps(avg)), avg * 1000), Cell("–"),
                             Cell(H(fmt_gbps(self.dram_peak())) if self.dram_peak() else "–",
                                  (self.dram_peak() or 0) * 1000),
                             pct_cell(dram["busy"]["utilisation"]) if is_busy(dram.get("busy")) else Cell("–"),
                             Cell("–")])
        if rows:
            out.append("<h3>Whole run</h3>")
            out.append(table(["where", "bytes", "transactions", "B / transaction", "average",
                              "peak 1 µs (trace)", "configured peak", "busy", "contention wait"], rows))
            out.append("<p>The bus counts bytes per target port (<code>gpuvp.bus.&lt;port&gt;.bytes</code>): "
                       "<code>dram</code> carries every initiator's memory traffic, <code>gen</code> and "
                       "<code>v3d</code> the register accesses to the GPUs. Configured peak: the port's bytes per "
                       "cycle at <code>bus.clock_hz</code> (DRAM: <code>dram.bytes_per_cycle</code> at "
                       "<code>dram.clock_hz</code>).</p>")
        out.append(self.initiator_table())
        return "\n".join(out)

    def bandwidth_chart(self, ports):
        s = self.series
        panels = []
        for port in ports:
            key = f"gpuvp.bus.{port}.bytes"
            if key in s.counters:
                panels.append((f"bus port {port}", [("bytes", s.counters[key])], self.port_peak(port)))
        rd, wr = s.counters.get("gpuvp.dram.bytes_read"), s.counters.get("gpuvp.dram.bytes_written")
        if rd is not None and wr is not None:
            panels.append(("DRAM", [("read", rd), ("written", wr)], self.dram_peak()))
        if not panels:
            return missing("The interval series has no byte counters.", "")
        fig, axes = self.charts.time_figure([1.2] * len(panels))
        merged = 1
        for ax, (title, lines, peak) in zip(axes, panels):
            top = 0.0
            for label, values in lines:
                edges, rates, merged = s.rates(values, 1000.0)  # bytes/ps -> GB/s
                top = max(top, max(rates, default=0))
                ax.stairs(rates, [e / self.axis_div for e in edges], label=label, linewidth=1.3, baseline=None)
            if peak and top > 0.25 * peak * 1000:
                ax.axhline(peak * 1000, color="#c04e7e", linestyle="--", linewidth=0.9, label="configured peak")
                top = max(top, peak * 1000)
            ax.set_ylim(0, top * 1.1 if top > 0 else 1)
            ax.set_ylabel("GB/s")
            ax.set_title(title)
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
        self.time_xaxis(axes[-1], s.times[-1])
        svg = self.charts.svg(fig, "bandwidth over time", tight=False)
        how = (f"{H(fmt_time(s.interval_ps))} intervals" if merged == 1
               else f"{H(fmt_time(s.interval_ps))} intervals averaged {merged} at a time")
        return figure(svg, f"Bandwidth per interval from the series' byte counters ({how}).")

    def trace_bus_counters(self):
        """{port: {"read": samples, "write": samples}} from the trace's B/us counter tracks."""
        ports = {}
        for name, samples in self.trace.counters.items():
            m = re.match(r"^gpuvp\.bus\.(\S+) (read|write) B/us$", name)
            if m:
                ports.setdefault(m.group(1), {})[m.group(2)] = samples
        return ports

    def trace_peaks(self):
        return {port: max((v for d in dirs.values() for _, v in d), default=0)
                for port, dirs in self.trace_bus_counters().items()}

    def trace_bandwidth_chart(self):
        ports = self.trace_bus_counters()
        if not ports:
            return missing("The trace has no bus bandwidth counters.",
                           "Traces from gpuvp's <code>--trace</code> have <code>gpuvp.bus.&lt;port&gt; read B/us</code>"
                           " tracks; this one does not.")
        names = sorted(ports, key=lambda x: (x != "dram", x))
        fig, axes = self.charts.time_figure([1.1] * len(names))
        end = max(self.sim_ps, self.trace.end_ps)
        for ax, port in zip(axes, names):
            for direction in ("read", "write"):
                samples = ports[port].get(direction)
                if not samples:
                    continue
                edges, values = step_average(samples, end, MAX_TRACE_BINS)
                xs = [t / self.axis_div for t in edges]
                ys = [v / 1000.0 for v in values]  # B/us -> GB/s
                ax.stairs(ys, xs, label=direction, linewidth=0.9, baseline=None,
                          fill=False)
            ax.set_ylabel("GB/s")
            ax.set_ylim(bottom=0)
            ax.set_title(f"bus port {port} (trace, 1 µs windows)")
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
        self.time_xaxis(axes[-1], end)
        svg = self.charts.svg(fig, "bus bandwidth from the trace", tight=False)
        many = max(len(d.get(k, [])) for d in ports.values() for k in ("read", "write"))
        how = (f" More than {MAX_TRACE_BINS} samples: drawn as the mean over {MAX_TRACE_BINS} equal bins (the peak "
               "1 µs window is in the table below)." if many > MAX_TRACE_BINS else "")
        return figure(svg, "Bytes each bus port moved in each 1 µs window of simulated time, from the trace's counter "
                           f"tracks (reads and writes apart): the fine-grained view of the bursts.{how}")

    def initiator_table(self):
        rows = []
        for p in sorted(self.metrics, key=natural_key):
            m = re.match(r"^(gpuvp\.(?:.+\.)?(?:memory|host))\.(reads|writes|transactions|dmi_accesses|errors)$", p)
            if not m:
                continue
            rows.append((m.group(1), m.group(2), stat_at(self.stats, p) or 0))
        if not rows:
            return ""
        inits = {}
        for init, kind, v in rows:
            inits.setdefault(init, {})[kind] = v
        body = []
        for init in sorted(inits, key=natural_key):
            k = inits[init]
            body.append([Cell(f"<code>{H(init)}</code>", init),
                         Cell(fmt_int(k["reads"]) if "reads" in k else "–", k.get("reads", 0)),
                         Cell(fmt_int(k["writes"]) if "writes" in k else "–", k.get("writes", 0)),
                         Cell(fmt_int(k["transactions"]) if "transactions" in k else "–", k.get("transactions", 0)),
                         Cell(fmt_int(k["dmi_accesses"]) if "dmi_accesses" in k else "–", k.get("dmi_accesses", 0)),
                         Cell(fmt_int(k["errors"]) if "errors" in k else "–", k.get("errors", 0))])
        return ("<h3>Initiators</h3><p>Accesses each initiator issued. The statistics count bytes per target port "
                "only, so bandwidth per initiator is not available.</p>"
                + table(["initiator", "reads", "writes", "bus transactions", "DMI accesses", "errors"], body))

    # -- 4. latency -----------------------------------------------------------------------------------------
    def section_latency(self):
        hists = [(p, v) for p, v in self.leaves.items() if is_histogram(v)]
        if not hists:
            return missing("The statistics have no histograms.", "No block of this platform records one.")
        hists.sort(key=lambda pv: natural_key(pv[0]))
        rows = []
        for p, h in hists:
            unit = self.unit(p)
            count = h.get("count", 0)

            def f(v):
                return fmt_value(v, unit) if count and is_number(v) else "–"

            rows.append([Cell(f"<code>{H(p)}</code>", p), Cell(H(self.describe(p))), count,
                         Cell(H(f(h.get("min"))), h.get("min", 0) if count else 0),
                         Cell(H(f(h.get("mean"))), h.get("mean", 0) if count else 0),
                         Cell(H(f(h.get("max"))), h.get("max", 0) if count else 0),
                         Cell(H(unit or "–"))])
        out = []
        with_samples = [(p, h) for p, h in hists if h.get("count", 0) > 0 and h.get("buckets")]
        if with_samples:
            out.append(self.histogram_charts(with_samples))
        else:
            out.append(note("No histogram took a sample in this run."))
        out.append(table(["histogram", "what it measures", "samples", "min", "mean", "max", "unit"], rows))
        empty = len(hists) - len(with_samples)
        if empty:
            out.append(note(f"{empty} histogram{'s' if empty > 1 else ''} took no sample (shown with – above)."))
        return "\n".join(out)

    def histogram_charts(self, hists):
        cols = 3
        nrows = math.ceil(len(hists) / cols)
        fig, axes = self.charts.figure(11, 2.4 * nrows + 0.2, nrows=nrows, ncols=cols, squeeze=False)
        for i, (p, h) in enumerate(hists):
            ax = axes[i // cols, i % cols]
            unit = self.unit(p)
            buckets = {}
            for k, v in h["buckets"].items():
                try:
                    buckets[int(k)] = v
                except ValueError:
                    continue
            if not buckets:
                ax.set_visible(False)
                continue
            idx = sorted({0 if b == 0 else b.bit_length() for b in buckets})
            lo, hi = idx[0], idx[-1]
            pad = max(1, (7 - (hi - lo + 1)) // 2)  # a few empty buckets either side, for scale
            lo, hi = max(0, lo - pad), hi + pad
            labels, counts = [], []
            for i2 in range(lo, hi + 1):
                low = 0 if i2 == 0 else 1 << (i2 - 1)
                counts.append(buckets.get(low, 0))
                if unit == "ps":
                    labels.append("0" if low == 0 else "≥" + fmt_time_short(low))
                elif unit == "bytes":
                    labels.append("0" if low == 0 else f"≥{fmt_bytes_short(low)}B")
                else:
                    labels.append("0" if low == 0 else f"≥{low:,}")
            ax.bar(range(len(counts)), counts, color="#4269d0", width=0.8)
            step = max(1, math.ceil(len(labels) / 8))
            ax.set_xticks(range(0, len(labels), step))
            ax.set_xticklabels(labels[::step], rotation=30, ha="right")
            ax.set_title(self.short(p), fontsize=9)
            ax.set_ylabel("samples")
            ax.grid(axis="x", visible=False)
        for j in range(len(hists), nrows * cols):
            axes[j // cols, j % cols].set_visible(False)
        fig.tight_layout()
        svg = self.charts.svg(fig, "latency histograms")
        return figure(svg, "Samples per power-of-two bucket: the label is the bucket's lower bound; a bucket holds "
                           "samples from its bound up to twice it.")

    # -- 5. attribution -------------------------------------------------------------------------------------
    CATEGORY_RULES = [
        ("context", re.compile(r"^ctx (0x[0-9a-fA-F]+)$")),
        ("batch", re.compile(r"^batch (0x[0-9a-fA-F]+)$")),
        ("kernel", re.compile(r"^kernel (0x[0-9a-fA-F]+)$")),
        ("bin list", re.compile(r"^bin list (0x[0-9a-fA-F]+) \(frame (\d+)\)$")),
        ("render list", re.compile(r"^render list (0x[0-9a-fA-F]+) \(frame (\d+)\)$")),
        ("tile", re.compile(r"^tile (\d+),\s*(\d+)$")),
        ("QPU program", re.compile(r"^(program|fragments|vertices|coordinates) (0x[0-9a-fA-F]+)$")),
    ]

    def category(self, span):
        if span.name == "busy":
            return "busy"
        for cat, rx in self.CATEGORY_RULES:
            if rx.match(span.name):
                return cat
        if span.track.endswith(".guc"):
            if span.name == "firmware":
                return "GuC firmware"
            if span.name == "boot ROM":
                return "GuC boot ROM"
            return "GuC interrupt"
        if span.track == "host_cpu" or span.track.startswith("host"):
            return "host wait" if span.name.startswith(("poll", "wait")) else "host command"
        return "other"

    def section_attribution(self):
        if self.trace is None:
            return self.no_trace("per-context, per-batch, per-kernel and per-frame times")
        spans = self.trace.spans
        if not spans:
            return missing("The trace has no spans.", "A run with <code>--trace</code> that did work writes them.")
        by_cat = {}
        for s in spans:
            by_cat.setdefault(self.category(s), []).append(s)
        out = [self.gantt(by_cat)]
        if self.trace.ignored:
            out.append(note(f"{self.trace.ignored} trace events without a usable time, duration or name were "
                            "ignored.", "warn"))
        out.append(self.span_table("Contexts", "execlist contexts running on an engine (<code>ctx 0x…</code>)",
                                   by_cat.get("context", [])))
        out.append(self.span_table("Batches", "batch buffers, MI_BATCH_BUFFER_START to END (<code>batch 0x…</code>)",
                                   by_cat.get("batch", [])))
        out.append(self.span_table("Kernels", "GPGPU walkers on the EU array (<code>kernel 0x…</code>: the kernel's "
                                   "address)", by_cat.get("kernel", [])))
        out.append(self.frame_table(by_cat))
        out.append(self.aggregate_table("QPU programs", "QPU programs and shader batches by kind and address",
                                        by_cat.get("QPU program", []), key=lambda s: s.name, tracks=True))
        guc = by_cat.get("GuC firmware", []) + by_cat.get("GuC boot ROM", []) + by_cat.get("GuC interrupt", [])
        out.append(self.aggregate_table("GuC", "the GuC's boot ROM, firmware execution and the interrupts it served",
                                        guc, key=lambda s: s.name))
        out.append(self.aggregate_table("Host script commands", "one span per command of the host script (host "
                                        "time spent in simulated time; poll commands wait for the GPU)",
                                        by_cat.get("host command", []) + by_cat.get("host wait", []),
                                        key=lambda s: s.name))
        other = by_cat.get("other", [])
        if other:
            out.append(self.aggregate_table("Other spans", "spans of kinds this report does not know",
                                            other, key=lambda s: f"{s.track}: {s.name}"))
        return "\n".join(x for x in out if x)

    def span_table(self, title, what, spans):
        if not spans:
            return f"<h3>{H(title)}</h3>" + note(f"No {what} in the trace.")
        ordered = sorted(spans, key=lambda s: (-s.dur, s.start, s.track, s.name))
        top, rest = ordered[:TOP_N], ordered[TOP_N:]
        rows = [[Cell(H(s.name), s.name, num=False), Cell(f"<code>{H(s.track)}</code>", s.track),
                 time_cell(s.start), time_cell(s.dur), pct_cell(self.share(s.dur))] for s in top]
        total = sum(s.dur for s in spans)
        summary = []
        if rest:
            rd = sum(s.dur for s in rest)
            summary.append([Cell(f"… {len(rest)} more", 0, num=False), "", "", time_cell(rd),
                            pct_cell(self.share(rd))])
        summary.append([Cell(f"all {len(spans)}", 0, num=False), "", "", time_cell(total), pct_cell(self.share(total))])
        names = len({s.name for s in spans})
        return (f"<h3>{H(title)}</h3><p>{len(spans)} spans of {names} distinct {what}; the longest "
                f"{min(TOP_N, len(spans))} first. Share: the span's duration over the run's "
                f"{H(fmt_time(self.sim_ps))} (spans on different tracks overlap, so shares need not add up).</p>"
                + table(["name", "track", "start", "duration", "share of run"], rows, summary))

    def aggregate_table(self, title, what, spans, key, tracks=False):
        if not spans:
            return ""
        groups = {}
        for s in spans:
            groups.setdefault(key(s), []).append(s)
        ordered = sorted(groups.items(), key=lambda kv: (-sum(s.dur for s in kv[1]), kv[0]))
        top, rest = ordered[:TOP_N], ordered[TOP_N:]
        rows = []
        for name, ss in top:
            total = sum(s.dur for s in ss)
            row = [Cell(H(name), name, num=False), len(ss), time_cell(ss[0].start), time_cell(total),
                   time_cell(total / len(ss)), time_cell(max(s.dur for s in ss)), pct_cell(self.share(total))]
            if tracks:
                row.insert(2, len({s.track for s in ss}))
            rows.append(row)
        summary = []
        grand = sum(s.dur for s in spans)
        if rest:
            rs = [s for _, ss in rest for s in ss]
            rd = sum(s.dur for s in rs)
            row = [Cell(f"… {len(rest)} more", 0, num=False), len(rs), "", time_cell(rd), "", "",
                   pct_cell(self.share(rd))]
            if tracks:
                row.insert(2, "")
            summary.append(row)
        row = [Cell("all", 0, num=False), len(spans), "", time_cell(grand), "", "", pct_cell(self.share(grand))]
        if tracks:
            row.insert(2, "")
        summary.append(row)
        headers = ["name", "spans", "first start", "total", "mean", "longest", "share of run"]
        if tracks:
            headers.insert(2, "tracks")
        extra = (" Spans on different tracks (QPUs) run at once, so the total can exceed the run." if tracks else "")
        return (f"<h3>{H(title)}</h3><p>{H(what[:1].upper() + what[1:])}: {len(spans)} spans in {len(groups)} "
                f"groups, by total time.{extra}</p>"
                + table(headers, rows, summary))

    def frames(self, by_cat):
        """{frame: {"bin": [spans], "render": [spans]}} from the bin and render list spans."""
        frames = {}
        for cat, key in (("bin list", "bin"), ("render list", "render")):
            for s in by_cat.get(cat, []):
                m = self.CATEGORY_RULES[3 if key == "bin" else 4][1].match(s.name)
                frame = int(m.group(2))
                entry = frames.setdefault(frame, {})
                entry.setdefault(key, []).append(s)
        return frames

    def frame_table(self, by_cat):
        frames = self.frames(by_cat)
        if not frames:
            return "<h3>vc4 frames</h3>" + note("No vc4 bin or render lists in the trace (no frame was drawn).")
        qpu = by_cat.get("QPU program", [])
        tiles = self.tile_frames(by_cat)
        rows = []
        for n in sorted(frames):
            f = frames[n]
            allspans = f.get("bin", []) + f.get("render", [])
            start = min(s.start for s in allspans)
            end = max(s.end for s in allspans)
            bin_d = sum(s.dur for s in f.get("bin", []))
            ren_d = sum(s.dur for s in f.get("render", []))
            renders = f.get("render", [])
            qpu_ps = sum(max(0, min(q.end, r.end) - max(q.start, r.start)) for r in renders for q in qpu)
            ntiles = len(tiles.get(n, {}).get("spans", []))
            lists = ", ".join(s.name.split(" (")[0] for s in allspans)
            rows.append([Cell(str(n), n), Cell(H(lists)), time_cell(start), time_cell(bin_d), time_cell(ren_d),
                         time_cell(end - start), pct_cell(self.share(end - start)), time_cell(qpu_ps),
                         Cell(fmt_int(ntiles) if ntiles else "–", ntiles)])
        return ("<h3>vc4 frames</h3><p>Per frame (N counts each thread's lists): the binning list on CT0, the render "
                "list on CT1, the frame from the first list's start to the last one's end, and the QPU time "
                "(summed over QPUs) spent inside the render list.</p>"
                + table(["frame", "lists", "start", "binning", "rendering", "frame time", "share of run",
                         "QPU time in rendering", "tiles"], rows))

    def gantt(self, by_cat):
        spans = self.trace.spans
        tracks = sorted({s.track for s in spans})
        order = ["host_cpu"]
        order += sorted([t for t in tracks if re.match(r"^gpuvp\.gen\.(?!guc$)", t)],
                        key=lambda t: (["rcs", "bcs", "vcs0", "vcs1", "vecs"].index(t.rsplit(".", 1)[1])
                                       if t.rsplit(".", 1)[1] in ("rcs", "bcs", "vcs0", "vcs1", "vecs") else 9, t))
        order += [t for t in tracks if t.endswith("gen.gpgpu")]
        order += [t for t in tracks if t.endswith(".guc")]
        order += sorted([t for t in tracks if re.match(r"^gpuvp\.v3d\.ct\d+$", t)])
        qpu_tracks = [t for t in tracks if re.match(r".*\.qpus\.qpu\d+$", t)]
        rows = [t for t in order if t in tracks]
        rows += sorted([t for t in tracks if t not in rows and t not in qpu_tracks and not t.endswith(".qpus")
                        and "subslice" not in t], key=natural_key)
        qpu_row = f"QPUs ({len(qpu_tracks)}, merged)" if qpu_tracks else None
        if qpu_row:
            rows.append(qpu_row)
        colours = {
            "busy": "#dfe3e8", "GuC firmware": "#dfe3e8", "GuC boot ROM": "#c9ced6", "context": "#4269d0",
            "batch": "#efb118", "kernel": "#3ca951", "bin list": "#a463f2", "render list": "#9c6b4e",
            "tile": "#ff8ab7", "QPU program": "#6cc5b0", "GuC interrupt": "#ff725c", "host command": "#1f5f8b",
            "host wait": "#c6d7f2",
            "other": "#9498a0",
        }
        level = {"busy": 0, "GuC firmware": 0, "GuC boot ROM": 0, "host wait": 0, "batch": 2, "tile": 2}
        heights = {0: 0.8, 1: 0.55, 2: 0.28}
        end = max(self.sim_ps, self.trace.end_ps, 1)
        eps = end / 1600  # spans closer than this merge: about a pixel, the chart cannot show them apart anyway
        bars = {}
        for s in spans:
            row = qpu_row if s.track in qpu_tracks else s.track
            if row not in rows:
                continue
            cat = self.category(s)
            bars.setdefault((row, cat), []).append((s.start, s.end))
        fig, (ax,) = self.charts.time_figure([max(2.6, 0.3 * len(rows))])
        used = []
        for (row, cat), ivs in sorted(bars.items(), key=lambda kv: (level.get(kv[0][1], 1), kv[0][0], kv[0][1])):
            ivs.sort()
            merged = []
            for a, b in ivs:
                if merged and a - merged[-1][1] <= eps:
                    merged[-1][1] = max(merged[-1][1], b)
                else:
                    merged.append([a, b])
            lv = level.get(cat, 1)
            h = heights[lv]
            y = rows.index(row)
            ax.add_patch(rectangles([(a / self.axis_div, max(b - a, eps * 0.6) / self.axis_div) for a, b in merged],
                                    y - h / 2, h, colours.get(cat, "#9498a0")))
            if cat not in used:
                used.append(cat)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([r.removeprefix("gpuvp.") for r in rows])
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.grid(axis="y", visible=False)
        self.time_xaxis(ax, end)
        from matplotlib.patches import Patch

        legend_order = ["busy", "GuC firmware", "GuC boot ROM", "context", "batch", "kernel", "bin list", "render list",
                        "tile", "QPU program", "GuC interrupt", "host wait", "host command", "other"]
        handles = [Patch(color=colours[c], label=c) for c in legend_order if c in used]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        ax.set_title("Timeline of the main tracks")
        svg = self.charts.svg(fig, "timeline of the main tracks", tight=False)
        return figure(svg, "Spans of the main tracks (pale: the block busy, the GuC executing, the host waiting in a "
                           "poll; narrow: batches inside contexts, tiles inside render lists). Spans closer than "
                           f"{H(fmt_time(eps))} are drawn merged; open the trace in Perfetto "
                           "(ui.perfetto.dev) to zoom in.")

    # -- 6. tiles -------------------------------------------------------------------------------------------
    def tile_frames(self, by_cat):
        """{frame: {"spans": [...], "cost": {(x, y): ps}}} from "tile X,Y" spans."""
        tiles = by_cat.get("tile", [])
        if not tiles:
            return {}
        renders = []
        for s in by_cat.get("render list", []):
            m = self.CATEGORY_RULES[4][1].match(s.name)
            renders.append((s.start, s.end, int(m.group(2))))
        frames = {}
        for s in tiles:
            m = self.CATEGORY_RULES[5][1].match(s.name)
            x, y = int(m.group(1)), int(m.group(2))
            if isinstance(s.args.get("x"), int) and isinstance(s.args.get("y"), int):
                x, y = s.args["x"], s.args["y"]
            frame = s.args.get("frame")
            if not isinstance(frame, int) or isinstance(frame, bool):
                frame = None
                for a, b, n in renders:
                    if a <= s.start <= b:
                        frame = n
                        break
            f = frames.setdefault(frame if frame is not None else -1, {"spans": [], "cost": {}})
            f["spans"].append(s)
            f["cost"][(x, y)] = f["cost"].get((x, y), 0) + s.dur
        return frames

    def section_tiles(self):
        if self.trace is None:
            return self.no_trace("per-tile costs")
        by_cat = {}
        for s in self.trace.spans:
            by_cat.setdefault(self.category(s), []).append(s)
        frames = self.tile_frames(by_cat)
        rendered = stat_at(self.stats, "gpuvp.v3d.renderer.tiles")
        if not frames:
            if not by_cat.get("render list"):
                return missing("No vc4 frame was rendered in this run.",
                               "Run a workload that renders with the vc4 (the default demo renders one frame) "
                               "to see its per-tile cost.")
            return missing("This trace has no per-tile spans.",
                           "The heat map needs the vc4 renderer's <code>tile X,Y</code> spans (args frame, x, y), "
                           "which gpuvp writes with <code>--trace</code> (older traces lack them)"
                           + (f"; the statistics say the renderer selected {fmt_int(rendered)} tiles."
                              if is_number(rendered) else "."))
        keys = sorted(frames)
        shown = keys[-4:]
        out = []
        if len(keys) > len(shown):
            out.append(note(f"{len(keys)} frames have tile spans; the last {len(shown)} are shown."))
        for n in shown:
            out.append(self.tile_heatmap(n, frames[n]))
        return "\n".join(out)

    def tile_heatmap(self, n, frame):
        import numpy as np

        cost = frame["cost"]
        w = max(x for x, _ in cost) + 1
        h = max(y for _, y in cost) + 1
        grid = np.full((h, w), np.nan)
        for (x, y), ps in cost.items():
            grid[y, x] = ps / 1e3  # ns
        vals = sorted(cost.values())
        total = sum(vals)
        unit_div, unit = (1e3, "ns") if vals[-1] < 2e6 else (1e6, "µs")
        grid = grid * 1e3 / unit_div
        cell_in = max(0.22, min(0.9, 8.0 / max(w, h * 1.6)))  # a tile's side in inches
        fig_w = cell_in * w + 1.9
        fig_h = cell_in * h + 1.0
        fig, ax = self.charts.figure(fig_w, fig_h)
        masked = np.ma.masked_invalid(grid)
        cmap = self.charts.mpl.colormaps["magma_r"].copy()
        cmap.set_bad("#f2f2f2")
        mesh = ax.pcolormesh(np.arange(w + 1) - 0.5, np.arange(h + 1) - 0.5, masked, cmap=cmap, vmin=0,
                             edgecolors="white", linewidth=0.5)
        ax.set_xlim(-0.5, w - 0.5)
        ax.set_ylim(h - 0.5, -0.5)
        ax.set_aspect("equal")
        ax.grid(False)
        ax.set_xlabel("tile x")
        ax.set_ylabel("tile y")
        ax.xaxis.set_major_locator(self.charts.mpl.ticker.MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(self.charts.mpl.ticker.MaxNLocator(integer=True))
        if w * h <= 256:
            vmax = np.nanmax(grid)
            for (x, y), ps in cost.items():
                v = ps / unit_div
                ax.text(x, y, f"{v:.3g}", ha="center", va="center", fontsize=max(6.0, min(9.0, cell_in * 14)),
                        color="white" if v > 0.55 * vmax else "#222222")
        cb = fig.colorbar(mesh, ax=ax, pad=0.02, fraction=0.04)
        cb.set_label(f"render cost ({unit})")
        label = f"frame {n}" if n >= 0 else "frame unknown"
        ax.set_title(f"{label}: cost per tile")
        svg = self.charts.svg(fig, f"tile cost heat map, {label}")
        mean = total / len(vals)
        worst = sorted(cost.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        worst_txt = ", ".join(f"({x},{y}) {fmt_time(ps)}" for (x, y), ps in worst)
        rows = [["tiles rendered", Cell(fmt_int(len(vals)), len(vals))],
                ["tile spans", Cell(fmt_int(len(frame["spans"])), len(frame["spans"]))],
                ["grid", Cell(f"{w} × {h} tiles")],
                ["total", time_cell(total)], ["min", time_cell(vals[0])], ["mean", time_cell(mean)],
                ["max", time_cell(vals[-1])],
                ["max / mean", Cell(f"{vals[-1] / mean:.2f}", vals[-1] / mean if mean else 0)]]
        return (f'<div class="tileframe"><h3>{H(label.capitalize())}</h3><div class="side">'
                + figure(svg, "Each tile's render cost (its <code>tile X,Y</code> spans summed), tile (0,0) at the "
                              "top left; grey: no span for that tile.")
                + "<div>" + table(["", ""], rows, sortable=False, cls="compact")
                + f'<p class="worst"><strong>Costliest tiles</strong> (x,y): {H(worst_txt)}</p></div></div></div>')

    # -- 7. EU ----------------------------------------------------------------------------------------------
    def section_eu(self):
        roots = sorted({re.sub(r"^(.*\.gpgpu)\..*$", r"\1", p) for p in self.metrics if ".gpgpu." in p})
        if not roots:
            if config_at(self.config, "gen.enabled") is False:
                return missing("This run's platform has no Gen GPU (<code>gen.enabled=false</code>), so no EU array.",
                               "Run with the Gen GPU enabled (the default) for EU occupancy and stalls.")
            return missing("The statistics have no EU array (no <code>*.gpgpu.*</code> statistics).",
                           "The Gen GPU's render engine has the GPGPU pipe; the gpuvp that wrote these statistics "
                           "reported none.")
        out = []
        for root in roots:
            out.append(self.eu_root(root, len(roots) > 1))
        return "\n".join(out)

    def eu_root(self, root, titled):
        node = stat_at(self.stats, root) or {}
        head = f"<h3><code>{H(root)}</code></h3>" if titled else ""
        walkers = node.get("walkers", 0)
        timing = config_at(self.config, "gen.gpgpu.timing")
        provisional = (
            "<strong>Provisional model.</strong> The EU array's timing model is not finished "
            "(docs/gen-eu-timing.md, docs/gen-gpgpu.md): the rules marked <em>stated</em> there are modelling "
            "choices not yet checked against the planned calibration (clpeak on the model against published Gen9 "
            "GT2 results): the dispatch rate, the barrier release latency (a low-quality figure), L3 associativity, "
            "atomics' cost, the end of thread waiting for its writes; the LLC and the instruction cache are not "
            "modelled (misses go to DRAM; a new kernel's first fetch adds to the walker's time), nor mid-thread "
            "preemption. Read the figures below as the model's, not as a Gen9's."
        )
        if not walkers:
            return head + missing("No EU kernels ran in this run (0 GPGPU_WALKER commands).",
                                  "Run a workload that dispatches kernels on the render engine (the default demo "
                                  "does; <code>gpuvp exec -- PROGRAM</code> runs an OpenCL program) to see EU "
                                  "occupancy and stalls.")
        out = [head, note(provisional, "warn")]
        array_stats = timing != "functional"
        if timing == "functional":
            out.append(note("This run used <code>gen.gpgpu.timing=functional</code>: the EU array's timing model was "
                            "off, so occupancy, stalls and the memory hierarchy were not measured (their counters "
                            "read 0). Run with <code>--set gen.gpgpu.timing=array</code> (the default) for them.",
                            "warn"))
        subslices = sorted((k for k in node if re.match(r"^subslice\d+$", k)), key=natural_key)
        if array_stats and subslices:
            out.append(self.eu_charts(root, node, subslices))
            out.append(self.subslice_table(root, node, subslices))
        elif array_stats:
            out.append(missing("The statistics have no per-subslice figures.", "An older gpuvp wrote these "
                               "statistics; per-subslice occupancy and stalls need the EU array's timing model."))
        out.append(self.kernel_table(timing))
        # everything at the pipe's level, as recorded
        rows = []
        for k in sorted(node, key=natural_key):
            v = node[k]
            if isinstance(v, dict):
                continue
            p = f"{root}.{k}"
            rows.append([Cell(f"<code>{H(k)}</code>", k), Cell(H(fmt_value(v, self.unit(p))), v if is_number(v) else 0),
                         Cell(H(self.describe(p)))])
        if rows:
            out.append("<h3>EU array totals</h3>"
                       f"<p>Every statistic of <code>{H(root)}</code> as the run recorded it"
                       + (f" (timing model: <code>{H(str(timing))}</code>)" if timing else "") + ".</p>")
            out.append(table(["statistic", "value", "what it counts"], rows))
        return "\n".join(out)

    def eu_charts(self, root, node, subslices):
        import numpy as np

        eus = []
        for ss in subslices:
            for eu in sorted((k for k in node[ss] if re.match(r"^eu\d+$", k)), key=natural_key):
                e = node[ss][eu]
                eus.append((f"{ss.replace('subslice', 'ss')}.{eu}", e.get("active_cycles", 0),
                            e.get("stalled_cycles", 0), e.get("idle_cycles", 0)))
        reasons = ["dependency", "memory", "barrier", "unit"]
        classes = ["fpu", "fpu0_only", "extended_math", "send", "control", "other"]
        fig = self.charts.plt.figure(figsize=(11, max(3.2, 0.17 * len(eus) + 1.0)))
        gs = fig.add_gridspec(2, 2, width_ratios=[1.25, 1], hspace=0.75, wspace=0.35)
        ax = fig.add_subplot(gs[:, 0])
        if eus:
            labels = [e[0] for e in eus]
            tot = [max(1, a + s + i) for _, a, s, i in eus]
            act = np.array([a / t * 100 for (_, a, _, _), t in zip(eus, tot)])
            stl = np.array([s / t * 100 for (_, _, s, _), t in zip(eus, tot)])
            idl = np.array([i / t * 100 for (_, _, _, i), t in zip(eus, tot)])
            ax.barh(labels, act, color="#3ca951", label="active", height=0.75)
            ax.barh(labels, stl, left=act, color="#ff725c", label="stalled", height=0.75)
            ax.barh(labels, idl, left=act + stl, color="#dfe3e8", label="idle", height=0.75)
            ax.invert_yaxis()
            ax.set_xlim(0, 100)
            ax.set_xlabel("% of the array's cycles")
            ax.tick_params(axis="y", labelsize=7)
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.0 + 0.5 / len(eus) + 0.02), ncol=3)
            ax.grid(axis="y", visible=False)
            ax.set_title("Each EU: active / stalled / idle", pad=22)
        else:
            ax.set_visible(False)
        ax2 = fig.add_subplot(gs[0, 1])
        x = np.arange(len(subslices))
        bottom = np.zeros(len(subslices))
        colours = {"dependency": "#4269d0", "memory": "#ff725c", "barrier": "#efb118", "unit": "#a463f2"}
        for r in reasons:
            vals = np.array([(node[ss].get("thread_stall_cycles") or {}).get(r, 0) for ss in subslices], dtype=float)
            ax2.bar(x, vals, bottom=bottom, label=r, color=colours[r], width=0.6)
            bottom += vals
        ax2.set_xticks(x)
        ax2.set_xticklabels(subslices)
        ax2.set_ylabel("thread-cycles")
        ax2.set_title("Stall reasons per subslice")
        ax2.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax2.grid(axis="x", visible=False)
        ax3 = fig.add_subplot(gs[1, 1])
        bottom = np.zeros(len(subslices))
        for i, c in enumerate(classes):
            vals = np.array([(node[ss].get("instructions") or {}).get(c, 0) for ss in subslices], dtype=float)
            if vals.any():
                ax3.bar(x, vals, bottom=bottom, label=c, color=self.charts.PALETTE[i % 12], width=0.6)
                bottom += vals
        ax3.set_xticks(x)
        ax3.set_xticklabels(subslices)
        ax3.set_ylabel("instructions")
        ax3.set_title("Instruction mix per subslice")
        ax3.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax3.grid(axis="x", visible=False)
        svg = self.charts.svg(fig, "EU occupancy and stalls")
        return figure(svg, "Left: each EU's cycles while walkers ran (<code>active_cycles</code>: a unit executed; "
                           "<code>stalled_cycles</code>: threads resident, none issuing; <code>idle_cycles</code>: no "
                           "thread), which add up to <code>array_cycles</code>. Right: thread-cycles an instruction "
                           "waited, blamed on the constraint that lifted last (<code>thread_stall_cycles</code>), and "
                           "the instructions issued by class.")

    def subslice_table(self, root, node, subslices):
        rows = []
        for ss in subslices:
            n = node[ss]

            def r(k):
                v = n.get(k)
                return pct_cell(v) if is_number(v) else Cell("–")

            rows.append([Cell(H(ss), ss), r("occupancy"), r("active"), r("stalled"), r("fpu_utilisation"),
                         n.get("threads", 0), sum((n.get("instructions") or {}).values()), n.get("thread_cycles", 0),
                         n.get("flops32", 0), n.get("flops64", 0)])
        return ("<h3>Subslices</h3><p>Over the time walkers ran on the array: <em>occupancy</em> resident threads "
                "over thread slots, <em>active</em> and <em>stalled</em> EU cycles over the subslice's EU cycles, "
                "<em>FPU utilisation</em> busy FPU cycles over FPU cycles.</p>"
                + table(["subslice", "occupancy", "active", "stalled", "FPU utilisation", "threads", "instructions",
                         "thread-cycles", "flops32", "flops64"], rows))

    def kernel_table(self, timing):
        if self.trace is None:
            return ("<h3>Kernels</h3>" + self.no_trace("the kernels' times and per-kernel subslice activity"))
        kernels = [s for s in self.trace.spans if self.CATEGORY_RULES[2][1].match(s.name)]
        if not kernels:
            return "<h3>Kernels</h3>" + note(
                "The trace has no kernel spans" + (": the EU array writes them under <code>gen.gpgpu.timing=array"
                                                   "</code> only." if timing == "functional" else "."))
        active = {}
        for name, samples in self.trace.counters.items():
            m = re.match(r"^(?:.*\.)?(subslice\d+) active$", name)
            if m:
                active[m.group(1)] = dict(samples)
        ss = sorted(active, key=natural_key)
        if len(kernels) <= MAX_KERNEL_ROWS:
            rows = []
            for k in kernels:
                rows.append([Cell(H(k.name), k.name, num=False), time_cell(k.start), time_cell(k.dur),
                             pct_cell(self.share(k.dur))]
                            + [pct_cell(active[s][k.start]) if k.start in active[s] else Cell("–") for s in ss])
            return ("<h3>Kernels</h3><p>Each walker from the trace, in order, with the share of each subslice's EU "
                    "cycles that were active during it (the trace's <code>gen.gpgpu.subsliceN active</code> "
                    "counters).</p>"
                    + table(["kernel", "start", "duration", "share of run"] + [f"{s} active" for s in ss], rows))
        groups = {}
        for k in kernels:
            groups.setdefault(k.name, []).append(k)
        ordered = sorted(groups.items(), key=lambda kv: (-sum(k.dur for k in kv[1]), kv[0]))
        rows = []
        for name, ks in ordered[:TOP_N]:
            total = sum(k.dur for k in ks)
            row = [Cell(H(name), name, num=False), len(ks), time_cell(total), time_cell(total / len(ks)),
                   pct_cell(self.share(total))]
            for s in ss:  # the subslice's active share, weighted by the walkers' durations
                known = [(active[s][k.start], k.dur) for k in ks if k.start in active[s]]
                w = sum(d for _, d in known)
                row.append(pct_cell(sum(v * d for v, d in known) / w) if w else Cell("–"))
            rows.append(row)
        summary = []
        if len(ordered) > TOP_N:
            rest = [k for _, ks in ordered[TOP_N:] for k in ks]
            rd = sum(k.dur for k in rest)
            summary.append([Cell(f"… {len(ordered) - TOP_N} more", 0, num=False), len(rest), time_cell(rd), "",
                            pct_cell(self.share(rd))] + [""] * len(ss))
        return (f"<h3>Kernels</h3><p>{len(kernels)} walkers of {len(groups)} kernels, by total time, with the share of "
                "each subslice's EU cycles that were active during them (the trace's "
                "<code>gen.gpgpu.subsliceN active</code> counters, weighted by duration).</p>"
                + table(["kernel", "walkers", "total", "mean", "share of run"] + [f"{s} active" for s in ss], rows,
                        summary))


# ----------------------------------------------------------------------------------------------------------------

CSS = """
:root{--fg:#1d2330;--muted:#5b6472;--line:#dde1e6;--bg:#f4f6f8;--card:#fff;--accent:#4269d0;--ok:#1f8a4c;--bad:#c0392b;--warn:#b7791f}
*{box-sizing:border-box}
html{scroll-behavior:smooth;scroll-padding-top:56px}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
.wrap{max-width:1240px;margin:0 auto;padding:0 20px}
header{background:#1d2330;color:#fff}
header h1{margin:0;padding:18px 0 2px;font-size:22px;font-weight:600}
header .sub{margin:0;padding:0 0 12px;color:#c8cfda}
header a{color:#9fc0ff}
nav{position:sticky;top:0;background:#262e3d;z-index:5;border-top:1px solid #394356}
header{position:sticky;top:-70px;z-index:5}
nav a{display:inline-block;color:#e6ebf2;text-decoration:none;padding:9px 12px;font-size:13px}
nav a:hover{background:#394356}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:18px 0;padding:6px 22px 18px}
h2{font-size:19px;margin:14px 0 10px;padding-bottom:6px;border-bottom:2px solid var(--accent)}
h3{font-size:15px;margin:20px 0 6px}
p{margin:6px 0}
code{font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace;background:#f0f2f5;padding:1px 4px;border-radius:3px}
pre.cmd{font:12px/1.5 ui-monospace,"DejaVu Sans Mono",monospace;background:#f0f2f5;padding:8px 10px;border-radius:5px;white-space:pre-wrap;word-break:break-all;margin:4px 0}
small{color:var(--muted)}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-weight:600;font-size:13px;color:#fff;background:var(--warn)}
.badge.ok{background:var(--ok)}.badge.bad{background:var(--bad)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin:10px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:10px 14px;background:#fbfcfd}
.card .ct{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .cv{font-size:22px;font-weight:600;margin:2px 0}
.card .cs{color:var(--muted);font-size:12px}
.exact{font-variant-numeric:tabular-nums}
.tw{overflow-x:auto;margin:8px 0 14px}
table{border-collapse:collapse;font-size:13px;width:100%}
td:first-child{white-space:nowrap}
th,td{padding:4px 9px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600;white-space:nowrap;position:relative}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th:hover{background:#e2e7ee}
th.asc::after{content:" ▲";font-size:10px}th.desc::after{content:" ▼";font-size:10px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:nth-child(even){background:#fafbfc}
tbody tr:hover{background:#f0f5ff}
tfoot tr.rest td{color:var(--muted);font-style:italic;background:#f7f8fa}
td.pct{position:relative;min-width:110px}
td.pct .bar{position:absolute;left:0;top:4px;bottom:4px;background:#bcd0f7;border-radius:2px}
td.pct .bv{position:relative}
table.compact{width:auto}table.compact td{padding:2px 10px}
table.compact thead{display:none}
figure.chart{margin:10px 0 16px}
svg.chart{width:100%;height:auto;display:block}
figcaption{color:var(--muted);font-size:12.5px;margin-top:4px}
.note{border-left:4px solid var(--accent);background:#f1f5fd;padding:7px 12px;border-radius:0 5px 5px 0}
.note.warn{border-color:var(--warn);background:#fdf7ec}
.missing{border:1px dashed #b9c0cb;background:#fafbfc;border-radius:6px;padding:12px 16px;margin:10px 0;color:#39414e}
.missing strong{display:block;margin-bottom:2px}
details.config{margin:12px 0}
details.config summary{cursor:pointer;font-weight:600}
details.config input{margin:8px 0;padding:5px 8px;width:320px;max-width:100%;border:1px solid var(--line);border-radius:4px;font:inherit}
table.kv td:first-child{font:12px ui-monospace,"DejaVu Sans Mono",monospace;white-space:nowrap}
table.kv td{padding:2px 9px}
tr.set td{background:#fff5d6}
.tileframe .side{display:grid;grid-template-columns:minmax(0,auto) minmax(240px,1fr);gap:24px;align-items:start}
.tileframe figure{margin-top:0}
.tileframe table{width:auto;min-width:240px}
.tileframe .worst{font-size:13px;max-width:360px}
@media (max-width:900px){.tileframe .side{grid-template-columns:1fr}}
ul.incidents{margin:4px 0 10px}
.outcome{font-size:14px}
footer{color:var(--muted);font-size:12px;padding:6px 20px 30px}
"""

SCRIPT = """
(function () {
  'use strict';
  function key(td) {
    if (!td) return '';
    var s = td.getAttribute('data-sort');
    if (s !== null && s !== '' && !isNaN(Number(s))) return Number(s);
    return td.textContent.trim().toLowerCase();
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var body = table.tBodies[0];
    if (!body) return;
    table.querySelectorAll('thead th').forEach(function (th, col) {
      th.title = 'sort';
      th.addEventListener('click', function () {
        var asc = !th.classList.contains('asc');
        table.querySelectorAll('thead th').forEach(function (o) { o.classList.remove('asc', 'desc'); });
        th.classList.add(asc ? 'asc' : 'desc');
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          if (typeof x === 'number' && typeof y === 'number') return asc ? x - y : y - x;
          x = String(x); y = String(y);
          return asc ? x.localeCompare(y, undefined, {numeric: true}) : y.localeCompare(x, undefined, {numeric: true});
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll('details.config').forEach(function (d) {
    var input = d.querySelector('input.filter');
    var rows = d.querySelectorAll('tbody tr');
    if (!input) return;
    input.addEventListener('input', function () {
      var q = input.value.trim().toLowerCase();
      rows.forEach(function (r) { r.style.display = !q || r.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none'; });
    });
  });
})();
"""


def generate(stats_path, trace_path, out_dir):
    doc = check_stats(load_json(stats_path, "stats file"), stats_path)
    events = None
    if trace_path:
        events = check_trace(load_json(trace_path, "trace file"), trace_path)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise ReportError(f"cannot create output directory '{out_dir}': {e.strerror or e}") from None
    if not os.path.isdir(out_dir):
        raise ReportError(f"output '{out_dir}' is not a directory")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ReportError("matplotlib is not installed (Debian: apt-get install python3-matplotlib)") from None
    page = Report(doc, stats_path, events, trace_path).build()
    target = os.path.join(out_dir, "index.html")
    try:
        with open(target, "w", encoding="utf-8", newline="\n") as f:
            f.write(page)
    except OSError as e:
        raise ReportError(f"cannot write '{target}': {e.strerror or e}") from None
    return target


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"gpuvp report: error: {message} (usage: gpuvp_report.py STATS.json [TRACE.json] -o DIR)",
              file=sys.stderr)
        sys.exit(2)


def main(argv=None):
    parser = Parser(prog="gpuvp_report.py",
                    description="Write a self-contained HTML performance report of a gpuvp run (DIR/index.html).")
    parser.add_argument("stats", metavar="STATS.json", help="the run's --stats file (schema gpuvp-stats)")
    parser.add_argument("trace", metavar="TRACE.json", nargs="?", help="the run's --trace file (optional)")
    parser.add_argument("-o", "--output", metavar="DIR", required=True, help="directory to write index.html into")
    args = parser.parse_args(argv)
    try:
        generate(args.stats, args.trace, args.output)
    except ReportError as e:
        print(f"gpuvp report: error: {e}", file=sys.stderr)
        return 2
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as e:
        # Well-formed JSON with values of the wrong kind (a histogram's count as text, ...): still one line.
        print(f"gpuvp report: error: '{args.stats}' or its trace holds a value of an unexpected kind "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
