#!/usr/bin/env python3
"""Tests of tests/report/check_report_in_chromium.py: it passes a clean page and fails each kind of broken one.

    /usr/bin/python3 tests/report/test_check_report_in_chromium.py [-v]
    GPUVP=build/release/platform/gpuvp /usr/bin/python3 tests/report/test_check_report_in_chromium.py  # + a real report

Plain unittest, standard library only; skipped without Chromium (Debian: chromium). With a gpuvp binary (--gpuvp
PATH, $GPUVP, or build/release/platform/gpuvp in this checkout) it also checks the demo's real report, with a
screenshot, and needs matplotlib for the generator then ($REPORT_PYTHON, else this interpreter).
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECKER = os.path.join(HERE, "check_report_in_chromium.py")
GENERATOR = os.path.join(ROOT, "platform", "report", "gpuvp_report.py")
PYTHON = os.environ.get("REPORT_PYTHON") or sys.executable
SECTIONS = ["run", "utilisation", "bandwidth", "latency", "attribution", "tiles", "eu"]
GPUVP = None


def page(body_extra="", head_extra="", skip=(), empty=()):
    parts = []
    for sid in SECTIONS:
        if sid in skip:
            continue
        content = "" if sid in empty else f"<p>Some real content for the {sid} section, long enough to count.</p>"
        parts.append(f'<section id="{sid}"><h2>{sid}</h2>{content}</section>')
    return ("<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title><link rel=icon href='data:,'>"
            f"{head_extra}</head><body>{''.join(parts)}{body_extra}</body></html>")


def have_chromium():
    return any(shutil.which(n) for n in (os.environ.get("CHROMIUM") or "", "chromium", "chromium-browser",
                                         "google-chrome", "chrome") if n)


@unittest.skipUnless(have_chromium(), "no Chromium (Debian: apt-get install chromium)")
class CheckerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpuvp-report-checker-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, name, html_text, *extra):
        path = os.path.join(self.tmp, name + ".html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(html_text)
        r = subprocess.run([sys.executable, CHECKER, path, *extra], capture_output=True, text=True, timeout=180)
        return r

    def assert_fails(self, name, html_text, expected, *extra):
        r = self.check(name, html_text, *extra)
        self.assertEqual(r.returncode, 1, f"{name} passed: {r.stdout}{r.stderr}")
        first = r.stderr.splitlines()[0] if r.stderr else ""
        self.assertIn("FAIL", first)
        self.assertIn(expected, r.stderr)

    def test_clean_page_passes_and_screenshot(self):
        shot = os.path.join(self.tmp, "clean.png")
        r = self.check("clean", page(body_extra="<script>console.log('fine'); console.warn('fine too');</script>"),
                       "--screenshot", shot)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("OK", r.stdout)
        with open(shot, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        width, _ = struct.unpack(">II", head[16:24])
        self.assertEqual(width, 1280)

    def test_console_error_fails(self):
        self.assert_fails("console_error", page(body_extra='<script>console.error("x")</script>'),
                          "console error: x")

    def test_thrown_exception_fails(self):
        self.assert_fails("exception", page(body_extra='<script>throw new Error("boom")</script>'),
                          "uncaught exception")

    def test_exception_in_a_later_timer_fails(self):
        self.assert_fails("late_exception",
                          page(body_extra="<script>setTimeout(function () { null.x(); }, 100)</script>"),
                          "uncaught exception")

    def test_unhandled_rejection_fails(self):
        self.assert_fails("rejection", page(body_extra='<script>Promise.reject(new Error("nope"))</script>'),
                          "uncaught exception")

    def test_missing_section_fails(self):
        self.assert_fails("missing", page(skip=("eu",)), 'section "eu" is missing')

    def test_empty_section_fails(self):
        self.assert_fails("empty", page(empty=("latency",)), 'section "latency" is empty')

    def test_hidden_section_fails(self):
        self.assert_fails("hidden", page(head_extra="<style>#tiles{display:none}</style>"),
                          'section "tiles" is not displayed')

    def test_external_resource_fails(self):
        # A file that is not the report (no network involved): the page is not self-contained.
        self.assert_fails("external", page(head_extra='<script src="file:///nonexistent/gpuvp-x.js"></script>'),
                          "self-contained")

    def test_timeout_fails(self):
        self.assert_fails("timeout", page(), "timed out", "--timeout", "0.3")

    def test_real_report(self):
        if not GPUVP or not os.access(GPUVP, os.X_OK):
            self.skipTest("no gpuvp binary (--gpuvp PATH or GPUVP=PATH)")
        d = os.path.join(self.tmp, "real")
        os.makedirs(d)
        r = subprocess.run([GPUVP, "run", "--quiet", "--stats", "stats.json", "--stats-interval", "20000",
                            "--trace", "trace.json"], cwd=d, capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run([PYTHON, GENERATOR, "stats.json", "trace.json", "-o", "report"], cwd=d,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        shot = os.path.join(d, "report.png")
        r = subprocess.run([sys.executable, CHECKER, os.path.join(d, "report", "index.html"), "--screenshot", shot],
                           capture_output=True, text=True, timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.getsize(shot) > 10000)


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
    # CI installs Chromium (./dev.sh test sets this): there a missing browser is a failure, not a skip.
    if os.environ.get("GPUVP_REQUIRE_CHROMIUM") and not have_chromium():
        print("test_check_report_in_chromium: GPUVP_REQUIRE_CHROMIUM is set but no Chromium was found",
              file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
