#!/usr/bin/env python3
"""Tests of platform/report/gpuvp_report.py (plain unittest, standard library only).

    GPUVP=build/release/platform/gpuvp /usr/bin/python3 tests/report/test_report_generator.py [-v]
    /usr/bin/python3 tests/report/test_report_generator.py --gpuvp build/release/platform/gpuvp [-v]

The inputs are made here, by running the gpuvp binary (its path from --gpuvp, else $GPUVP, else
build/release/platform/gpuvp in this checkout) on its embedded demo: with --stats-interval and --trace, and without.
The generator runs under $REPORT_PYTHON, else this interpreter; it needs matplotlib (Debian: python3-matplotlib, so
run this with /usr/bin/python3 where another python3 comes first on PATH).
"""

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GENERATOR = os.path.join(ROOT, "platform", "report", "gpuvp_report.py")
PYTHON = os.environ.get("REPORT_PYTHON") or sys.executable
SECTIONS = ["run", "utilisation", "bandwidth", "latency", "attribution", "tiles", "eu"]
GPUVP = None  # set in main()


def run_generator(*args, env=None):
    return subprocess.run([PYTHON, GENERATOR, *args], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))


def section(html_text, sid):
    """The HTML of <section id=sid>...</section> (sections do not nest)."""
    m = re.search(r'<section id="%s">(.*?)</section>' % re.escape(sid), html_text, re.S)
    return m.group(1) if m else None


def text_of(fragment):
    """Visible text, tags removed, entities decoded, whitespace folded."""
    import html

    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment)))


def with_tiles(trace, frame_arg=True):
    """The demo's trace plus per-tile spans inside its render list (what the vc4 renderer's track will carry): a 4 x 2
    grid of tiles, tile (x, y) costing 5 + 3x + 7y us."""
    doc = copy.deepcopy(trace)
    # The model's own tile spans out first: these replace them with costs the test knows.
    doc["traceEvents"] = [e for e in doc["traceEvents"] if not (e.get("ph") == "X" and e["name"].startswith("tile "))]
    events = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    render = next(e for e in events if e.get("ph") == "X" and e["name"].startswith("render list"))
    frame = int(re.search(r"\(frame (\d+)\)", render["name"]).group(1))
    t = render["ts"]
    for y in range(2):
        for x in range(4):
            dur = 5 + 3 * x + 7 * y
            span = {"ph": "X", "pid": 1, "tid": render["tid"], "name": f"tile {x},{y}", "ts": t, "dur": dur}
            if frame_arg:
                span["args"] = {"frame": frame, "x": x, "y": y}
            events.append(span)
            t += dur
    return doc, frame, names[render["tid"]]


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not GPUVP or not os.access(GPUVP, os.X_OK):
            raise unittest.SkipTest(f"no gpuvp binary (--gpuvp PATH or GPUVP=PATH; tried {GPUVP!r})")
        cls.tmp = tempfile.mkdtemp(prefix="gpuvp-report-test-")
        d = cls.tmp
        cls.stats_path, cls.trace_path = os.path.join(d, "stats.json"), os.path.join(d, "trace.json")
        cls.plain_path = os.path.join(d, "plain.json")
        for args in (["--stats", cls.stats_path, "--stats-interval", "20000", "--trace", cls.trace_path],
                     ["--stats", cls.plain_path]):
            r = subprocess.run([GPUVP, "run", "--quiet", *args], cwd=d, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                raise AssertionError(f"gpuvp run {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
        with open(cls.stats_path) as f:
            cls.stats = json.load(f)
        with open(cls.trace_path) as f:
            cls.trace = json.load(f)
        with open(cls.plain_path) as f:
            cls.plain = json.load(f)
        cls.full_dir = os.path.join(d, "full")
        r = run_generator(cls.stats_path, cls.trace_path, "-o", cls.full_dir)
        if r.returncode != 0:
            raise AssertionError(f"the generator failed on the demo ({r.returncode}): {r.stderr.strip()}")
        with open(os.path.join(cls.full_dir, "index.html"), encoding="utf-8") as f:
            cls.html = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def write_json(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def generate(self, *inputs, name):
        out = os.path.join(self.tmp, name)
        r = run_generator(*inputs, "-o", out)
        self.assertEqual(r.returncode, 0, f"generator failed: {r.stderr}")
        self.assertNotIn("error", r.stderr)  # (matplotlib may say it is building its font cache on a new machine)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            return f.read()

    # -- the demo with everything ---------------------------------------------------------------------------
    def test_writes_only_index_html(self):
        self.assertEqual(os.listdir(self.full_dir), ["index.html"])

    def test_every_section_present_and_not_empty(self):
        for sid in SECTIONS:
            body = section(self.html, sid)
            self.assertIsNotNone(body, f"section {sid} missing")
            self.assertRegex(body, r"<h2>[^<]+</h2>", f"section {sid} has no heading")
            self.assertGreater(len(text_of(body)), 40, f"section {sid} is empty")

    def test_self_contained(self):
        self.assertTrue(self.html.startswith("<!DOCTYPE html>"))
        self.assertNotRegex(self.html, r'(?:src|href)\s*=\s*"(?:https?:)?//', "the page refers to the network")
        self.assertNotIn("<?xml", self.html)
        self.assertNotIn("<img", self.html)
        self.assertNotIn("@import", self.html)
        self.assertGreaterEqual(self.html.count("<svg "), 6)
        ids = re.findall(r'\sid="([^"]+)"', self.html)
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        self.assertEqual(duplicates, [], "ids must be unique in the page (inline SVGs share it)")

    def test_run_section_facts(self):
        run = text_of(section(self.html, "run"))
        outcome = self.stats["outcome"]
        self.assertEqual(outcome["result"], "completed")
        self.assertIn("completed", run)
        self.assertIn(f"exit code {outcome['exit_code']}", run)
        sim = self.stats["sim_time_ps"]
        self.assertIn(f"{sim:,} ps", run)  # the exact simulated time
        self.assertIn(f"{self.stats['wall_time_s']:,.3f} s", run)
        self.assertIn("--stats-interval 20000", run)  # the command line
        self.assertIn("Configuration:", run)
        self.assertIn("sim.quantum_ns", section(self.html, "run"))

    def test_utilisation_of_rcs_matches_the_stats(self):
        busy = self.stats["stats"]["gpuvp"]["gen"]["rcs"]["busy"]["busy_ps"]
        expected = f"{100.0 * busy / self.stats['sim_time_ps']:.2f} %"
        util = section(self.html, "utilisation")
        row = re.search(r"<tr><td><code>gpuvp\.gen\.rcs\.busy</code></td>.*?</tr>", util, re.S)
        self.assertIsNotNone(row, "no whole-run row for gpuvp.gen.rcs.busy")
        self.assertIn(expected, text_of(row.group(0)))
        self.assertIn('aria-label="utilisation over time per block"', util)
        self.assertIn('aria-label="QPU busy heat map"', util)

    def test_utilisation_over_time_reads_cumulative_series(self):
        # The series is cumulative: a busy-time series never decreases and ends at the whole-run busy time.
        series = self.stats["series"]
        rcs = series["busy_ps"]["gpuvp.gen.rcs.busy"]
        self.assertEqual(rcs, sorted(rcs))
        self.assertEqual(rcs[-1], self.stats["stats"]["gpuvp"]["gen"]["rcs"]["busy"]["busy_ps"])
        interval = series["interval_ps"]
        self.assertIn(f"{interval // 1_000_000:.2f} µs intervals", text_of(section(self.html, "utilisation")))

    def test_bandwidth_facts(self):
        bw = text_of(section(self.html, "bandwidth"))
        dram_bytes = self.stats["stats"]["gpuvp"]["bus"]["dram"]["bytes"]
        avg = dram_bytes / self.stats["sim_time_ps"] * 1000.0
        self.assertIn(f"{avg:,.3f} GB/s", bw)
        self.assertIn(f"{self.stats['stats']['gpuvp']['bus']['dram']['transactions']:,}", bw)
        self.assertIn('aria-label="bandwidth over time"', section(self.html, "bandwidth"))
        self.assertIn('aria-label="bus bandwidth from the trace"', section(self.html, "bandwidth"))

    def test_latency_lists_every_histogram(self):
        lat = section(self.html, "latency")
        hists = [p for p, m in self.stats["metrics"].items() if m["kind"] == "histogram"]
        self.assertTrue(hists)
        for p in hists:
            self.assertIn(f"<code>{p}</code>", lat)
        h = self.stats["stats"]["gpuvp"]["gen"]["rcs"]["submit_to_start_ps"]
        row = re.search(r"<tr><td><code>gpuvp\.gen\.rcs\.submit_to_start_ps</code></td>.*?</tr>", lat, re.S)
        cells = text_of(row.group(0))
        self.assertIn(f" {h['count']} ", cells)
        self.assertIn(f"{h['max'] / 1000:.1f} ns", cells)  # 894000 ps -> 894.0 ns

    def test_attribution_from_the_trace(self):
        att = section(self.html, "attribution")
        spans = [e for e in self.trace["traceEvents"] if e.get("ph") == "X"]
        for prefix in ("ctx 0x", "batch 0x", "kernel 0x"):
            names = {e["name"] for e in spans if e["name"].startswith(prefix)}
            self.assertTrue(names, prefix)
            for n in names:
                self.assertIn(f"<td>{n}</td>", att)
        self.assertIn('aria-label="timeline of the main tracks"', att)
        self.assertIn("vc4 frames", att)
        render = next(e for e in spans if e["name"].startswith("render list"))
        self.assertIn(f"{render['dur']:.1f} µs", text_of(att))  # 138.592 us -> 138.6 us

    def test_tiles_of_the_demo_frame(self):
        # The demo renders a 256x128 frame in 64x64 tiles: a 4 x 2 heat map from the renderer's own spans.
        tiles = text_of(section(self.html, "tiles"))
        self.assertIn("grid 4 × 2 tiles", tiles)
        self.assertIn("<svg", section(self.html, "tiles"))

    def test_tiles_absent_says_how(self):
        # A trace without tile spans (an older gpuvp's).
        doc = copy.deepcopy(self.trace)
        doc["traceEvents"] = [e for e in doc["traceEvents"] if not (e.get("ph") == "X" and e["name"].startswith("tile "))]
        d = tempfile.mkdtemp(dir=self.tmp)
        path = os.path.join(d, "trace.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        r = run_generator(self.stats_path, path, "-o", d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(d, "index.html")) as f:
            page = f.read()
        tiles = text_of(section(page, "tiles"))
        self.assertIn("no per-tile spans", tiles)
        self.assertIn("tile X,Y", tiles)
        self.assertNotIn("<svg", section(page, "tiles"))

    def test_eu_section(self):
        eu = section(self.html, "eu")
        gp = self.stats["stats"]["gpuvp"]["gen"]["rcs"]["gpgpu"]
        self.assertIn("Provisional model", eu)
        self.assertIn('aria-label="EU occupancy and stalls"', eu)
        occ = f"{100.0 * gp['subslice0']['occupancy']:.2f} %"
        row = re.search(r"<tr><td>subslice0</td>.*?</tr>", eu, re.S)
        self.assertIn(occ, text_of(row.group(0)))
        self.assertIn(f"{gp['eu_instructions']:,} instructions", text_of(eu))
        kernels = {e["name"] for e in self.trace["traceEvents"]
                   if e.get("ph") == "X" and e["name"].startswith("kernel")}
        for k in kernels:
            self.assertIn(k, eu)

    # -- determinism ----------------------------------------------------------------------------------------
    def test_deterministic(self):
        outs = []
        for i, seed in enumerate(("1", "2")):
            out = os.path.join(self.tmp, f"det{i}")
            r = run_generator(self.stats_path, self.trace_path, "-o", out, env={"PYTHONHASHSEED": seed})
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "index.html"), "rb") as f:
                outs.append(f.read())
        self.assertEqual(outs[0], outs[1], "two runs on the same inputs differ")
        with open(os.path.join(self.full_dir, "index.html"), "rb") as f:
            self.assertEqual(f.read(), outs[0])

    # -- optional data missing ------------------------------------------------------------------------------
    def test_without_series(self):
        self.assertNotIn("series", self.plain)
        page = self.generate(self.plain_path, self.trace_path, name="noseries")
        util = section(page, "utilisation")
        self.assertIn("--stats-interval NS", text_of(util))
        self.assertNotIn('aria-label="utilisation over time per block"', util)
        self.assertIn("<code>gpuvp.gen.rcs.busy</code>", util)  # the whole-run table stays
        self.assertIn("--stats-interval NS", text_of(section(page, "bandwidth")))
        self.assertNotIn('aria-label="bandwidth over time"', page)
        self.assertIn('aria-label="bus bandwidth from the trace"', page)  # the trace still has it

    def test_without_trace(self):
        page = self.generate(self.plain_path, name="notrace")
        for sid in ("attribution", "tiles"):
            body = text_of(section(page, sid))
            self.assertIn("No trace", body)
            self.assertIn("--trace", body)
            self.assertNotIn("<svg", section(page, sid))
        self.assertIn("No trace", text_of(section(page, "eu")))  # the kernels table
        self.assertIn(f"{self.plain['sim_time_ps']:,} ps", text_of(section(page, "run")))

    def test_no_eu_kernels(self):
        doc = copy.deepcopy(self.plain)
        gp = doc["stats"]["gpuvp"]["gen"]["rcs"]["gpgpu"]
        for k, v in list(gp.items()):
            if isinstance(v, (int, float)):
                gp[k] = 0
        page = self.generate(self.write_json("nokernels.json", doc), name="nokernels")
        eu = text_of(section(page, "eu"))
        self.assertIn("No EU kernels ran", eu)
        self.assertNotIn("<svg", section(page, "eu"))

    # -- tiles ----------------------------------------------------------------------------------------------
    def test_tile_heat_map(self):
        doc, frame, track = with_tiles(self.trace)
        page = self.generate(self.stats_path, self.write_json("tiles.json", doc), name="tiles")
        tiles = section(page, "tiles")
        self.assertIn(f'aria-label="tile cost heat map, frame {frame}"', tiles)
        t = text_of(tiles)
        self.assertIn("4 × 2 tiles", t)
        self.assertIn("tiles rendered 8", t)
        self.assertIn("(3,1) 21.00 µs", t)  # the costliest: 5 + 3*3 + 7*1 us
        self.assertIn(f"{sum(5 + 3 * x + 7 * y for x in range(4) for y in range(2)):.1f} µs", t)  # total 107.0 us
        # the frame table counts them
        self.assertRegex(text_of(section(page, "attribution")), r"render list 0x[0-9a-f]+ .* 8 ")
        self.assertIn(track, page)

    def test_tile_spans_without_args_take_the_render_lists_frame(self):
        doc, frame, _ = with_tiles(self.trace, frame_arg=False)
        page = self.generate(self.stats_path, self.write_json("tiles_noargs.json", doc), name="tiles_noargs")
        self.assertIn(f'aria-label="tile cost heat map, frame {frame}"', section(page, "tiles"))

    # -- bad input ------------------------------------------------------------------------------------------
    def assert_bad(self, args, *fragments):
        out = os.path.join(self.tmp, "bad-out")
        shutil.rmtree(out, ignore_errors=True)
        r = run_generator(*args, "-o", out)
        self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
        self.assertEqual(r.stdout, "")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"expected one line on stderr, got: {r.stderr!r}")
        self.assertTrue(lines[0].startswith("gpuvp report: error: "), lines[0])
        for frag in fragments:
            self.assertIn(frag, lines[0])
        self.assertFalse(os.path.exists(os.path.join(out, "index.html")))
        return lines[0]

    def test_bad_inputs(self):
        d = self.tmp
        missing = os.path.join(d, "no-such-file.json")
        self.assert_bad([missing], missing, "cannot read")
        self.assert_bad([d], d)  # a directory
        notjson = os.path.join(d, "notjson.json")
        with open(notjson, "w") as f:
            f.write("{\"schema\": \"gpuvp-stats\",")
        self.assert_bad([notjson], notjson, "not JSON")
        empty = os.path.join(d, "empty.json")
        open(empty, "w").close()
        self.assert_bad([empty], empty, "not JSON")
        self.assert_bad([self.write_json("array.json", [1, 2])], "array.json", "not a gpuvp-stats")
        wrong = dict(self.plain, schema="something-else")
        self.assert_bad([self.write_json("wrong_schema.json", wrong)], "wrong_schema.json", "something-else")
        noschema = {k: v for k, v in self.plain.items() if k != "schema"}
        self.assert_bad([self.write_json("no_schema.json", noschema)], "no_schema.json", "schema")
        v3 = dict(self.plain, schema_version=3)
        self.assert_bad([self.write_json("v3.json", v3)], "v3.json", "unsupported schema_version 3")
        nosim = {k: v for k, v in self.plain.items() if k != "sim_time_ps"}
        self.assert_bad([self.write_json("nosim.json", nosim)], "nosim.json", "sim_time_ps")
        badseries = copy.deepcopy(self.stats)
        badseries["series"]["time_ps"] = badseries["series"]["time_ps"][:-1]
        self.assert_bad([self.write_json("badseries.json", badseries)], "badseries.json", "series")
        # traces
        self.assert_bad([self.plain_path, missing], missing, "trace")
        self.assert_bad([self.plain_path, notjson], notjson, "not JSON")
        self.assert_bad([self.plain_path, self.plain_path], self.plain_path, "not a Chrome trace")
        events_not_list = self.write_json("events_not_list.json", {"traceEvents": {"a": 1}})
        self.assert_bad([self.plain_path, events_not_list], "events_not_list.json", "not a Chrome trace")
        bad_event = self.write_json("bad_event.json", {"traceEvents": [{"ph": "X"}, 7]})
        self.assert_bad([self.plain_path, bad_event], "bad_event.json", "event 1")

    def test_bad_command_line_and_output(self):
        r = run_generator(self.plain_path)  # no -o
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1)
        self.assertTrue(r.stderr.startswith("gpuvp report: error: "))
        afile = os.path.join(self.tmp, "a-file")
        open(afile, "w").close()
        r = run_generator(self.plain_path, "-o", afile)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1)
        self.assertIn(afile, r.stderr)

    def test_creates_the_output_directory(self):
        out = os.path.join(self.tmp, "new", "deeper")
        r = run_generator(self.plain_path, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(out), ["index.html"])

    def test_chrome_trace_array_format_accepted(self):
        events = self.write_json("array_trace.json", self.trace["traceEvents"])
        page = self.generate(self.stats_path, events, name="arraytrace")
        self.assertIn('aria-label="timeline of the main tracks"', page)


def main():
    global GPUVP
    argv = list(sys.argv)
    if "--gpuvp" in argv:
        i = argv.index("--gpuvp")
        GPUVP = argv[i + 1] if i + 1 < len(argv) else None
        del argv[i:i + 2]
    else:
        GPUVP = os.environ.get("GPUVP") or os.path.join(ROOT, "build", "release", "platform", "gpuvp")
    if GPUVP:
        GPUVP = os.path.abspath(GPUVP)
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
