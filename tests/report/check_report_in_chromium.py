#!/usr/bin/env python3
"""Render a gpuvp HTML report in headless Chromium and check it as a browser sees it.

    check_report_in_chromium.py REPORT.html [--screenshot FILE.png] [--timeout S] [--sections run,utilisation,...]

Fails (exit 1, one line per problem on stderr, the first naming the error) on:
- any console error (console.error, console.assert failing) or log entry of level error (a failed load, a CSP
  violation, ...), and any uncaught exception or unhandled promise rejection;
- a request for anything but the report itself and data: URLs (a report must open offline);
- a section of the list missing (by id), not a <section>, without a heading, empty or not displayed;
- Chromium not starting, not answering, or the whole check taking longer than --timeout (default 60 s).
Exit 0 when the page is clean; 2 on a bad command line (no such file).

Standard library only: Chromium (Debian package `chromium`) is driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: JSON messages separated by NUL bytes on file descriptors 3 and 4), so no websocket client,
driver or port is needed. Runs as root too (--no-sandbox), with a temporary profile that is removed afterwards.
"""

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SECTIONS = ["run", "utilisation", "bandwidth", "latency", "attribution", "tiles", "eu"]
WIDTH = 1280
MAX_SCREENSHOT_HEIGHT = 16000  # Chromium's largest texture; taller pages are cut there


class Failure(Exception):
    pass


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise Failure("no Chromium found (Debian: apt-get install chromium; or set CHROMIUM=/path/to/chromium)")


class Browser:
    """Chromium with its DevTools protocol on a pipe."""

    def __init__(self, deadline):
        self.deadline = deadline
        self.profile = tempfile.mkdtemp(prefix="gpuvp-report-check-")
        to_child_r, self.to_child = os.pipe()  # we write commands, Chromium reads fd 3
        self.from_child, from_child_w = os.pipe()  # Chromium writes fd 4, we read
        args = [
            find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--disable-sync", "--disable-component-update", "--disable-default-apps", "--mute-audio",
            "--hide-scrollbars", f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
            f"--window-size={WIDTH},900", "about:blank",
        ]

        def child_fds():  # Chromium reads commands on fd 3 and writes answers on fd 4
            high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     pass_fds=(3, 4), preexec_fn=child_fds,
                                     start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def close(self):
        """Chromium's own shutdown first, then whatever is left of the process group we started."""
        if self.proc.poll() is None:
            try:
                self.send("Browser.close")
                self.proc.wait(timeout=5)
            except (Failure, OSError, subprocess.TimeoutExpired):
                pass
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)  # the session we started: Chromium's helpers (zygote, renderer, ...)
            except ProcessLookupError:
                break
            if self.proc.poll() is None:
                try:
                    self.proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    continue
            time.sleep(0.2)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def chromium_log(self):
        self.log.seek(0)
        lines = self.log.read().decode("utf-8", "replace").strip().splitlines()
        return " | ".join(lines[-5:])

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            try:
                n = os.write(self.to_child, data)
            except BrokenPipeError:
                raise Failure(f"Chromium closed its DevTools pipe ({self.chromium_log() or 'no output'})") from None
            data = data[n:]
        return self.next_id

    def read_message(self, until):
        while b"\0" not in self.buffer:
            left = until - time.monotonic()
            if left <= 0:
                raise Failure("timed out waiting for Chromium")
            ready, _, _ = select.select([self.from_child], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(self.from_child, 1 << 20)
                if not chunk:
                    raise Failure(f"Chromium exited ({self.chromium_log() or 'no output'})")
                self.buffer += chunk
            elif self.proc.poll() is not None:
                raise Failure(f"Chromium exited with status {self.proc.returncode} "
                              f"({self.chromium_log() or 'no output'})")
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=None, timeout=30):
        wanted = self.send(method, params, session)
        until = min(self.deadline, time.monotonic() + timeout)
        while True:
            msg = self.read_message(until)
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise Failure(f"DevTools {method}: {msg['error'].get('message', msg['error'])}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, session, timeout):
        until = min(self.deadline, time.monotonic() + timeout)
        for e in self.events:
            if e.get("method") == method and e.get("sessionId") == session:
                return e
        while True:
            msg = self.read_message(until)
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method and msg.get("sessionId") == session:
                    return msg

    def drain(self, seconds):
        """Collect events for a while (late errors: timers, animation frames)."""
        until = min(self.deadline, time.monotonic() + seconds)
        try:
            while True:
                msg = self.read_message(until)
                if "method" in msg:
                    self.events.append(msg)
        except Failure:
            if time.monotonic() >= self.deadline:
                raise


def describe_remote(obj):
    if not isinstance(obj, dict):
        return str(obj)
    if "value" in obj:
        return str(obj["value"])
    return obj.get("description") or obj.get("unserializableValue") or obj.get("type", "?")


def page_problems(events, session, page_url):
    problems = []
    for e in events:
        if e.get("sessionId") != session:
            continue
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            text = " ".join(describe_remote(a) for a in p.get("args", []))
            problems.append(f"console {p['type']}: {text}")
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            text = describe_remote(d.get("exception")) if d.get("exception") else d.get("text", "exception")
            text = text.strip().splitlines()[0] if text.strip() else "exception"
            problems.append(f"uncaught exception: {text} (line {d.get('lineNumber', 0) + 1}, "
                            f"column {d.get('columnNumber', 0) + 1})")
        elif m == "Log.entryAdded":
            entry = p.get("entry", {})
            if entry.get("level") == "error":
                problems.append(f"console error ({entry.get('source', 'log')}): {entry.get('text', '')}"
                                + (f" [{entry['url']}]" if entry.get("url") else ""))
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if url != page_url and not url.startswith("data:") and url != "about:blank":
                problems.append(f"the page loads {url}: a report must be self-contained (everything inlined)")
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            problems.append(f"a load failed: {p.get('errorText', '?')}")
    return problems


CHECK_SECTIONS_JS = """
(function (ids) {
  var out = [];
  ids.forEach(function (id) {
    var el = document.getElementById(id);
    if (!el) { out.push('section "' + id + '" is missing'); return; }
    if (el.tagName !== 'SECTION') { out.push('#' + id + ' is a <' + el.tagName.toLowerCase() + '>, not a <section>'); return; }
    var heading = el.querySelector('h1, h2, h3');
    if (!heading || !heading.textContent.trim()) { out.push('section "' + id + '" has no heading'); }
    var text = el.innerText.replace(heading ? heading.innerText : '', '').trim();
    var pictures = el.querySelectorAll('svg, img, canvas, table').length;
    if (text.length < 20 && pictures === 0) { out.push('section "' + id + '" is empty'); }
    var box = el.getBoundingClientRect();
    if (box.height <= 0 || box.width <= 0 || getComputedStyle(el).display === 'none' || getComputedStyle(el).visibility === 'hidden') {
      out.push('section "' + id + '" is not displayed');
    }
  });
  return JSON.stringify({problems: out, height: Math.ceil(document.documentElement.scrollHeight),
                         title: document.title, svgs: document.querySelectorAll('svg').length});
})(%s)
"""


def check(path, screenshot, timeout, sections):
    deadline = time.monotonic() + timeout
    page_url = "file://" + os.path.abspath(path)
    browser = Browser(deadline)
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            browser.call(f"{domain}.enable", session=session)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        browser.call("Page.navigate", {"url": page_url}, session=session)
        browser.wait_event("Page.loadEventFired", session, timeout)
        browser.drain(0.7)
        result = browser.call("Runtime.evaluate", {"expression": CHECK_SECTIONS_JS % json.dumps(sections),
                                                   "returnByValue": True}, session=session)
        if "exceptionDetails" in result:
            raise Failure(f"the section check did not run: {result['exceptionDetails'].get('text')}")
        info = json.loads(result["result"]["value"])
        shot_note = ""
        if screenshot:
            height = max(900, min(info["height"], MAX_SCREENSHOT_HEIGHT))
            browser.call("Emulation.setDeviceMetricsOverride",
                         {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False},
                         session=session)
            browser.drain(0.3)
            shot = browser.call("Page.captureScreenshot",
                                {"format": "png", "captureBeyondViewport": False,
                                 "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1}},
                                session=session, timeout=timeout)
            with open(screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            shot_note = f"; screenshot {screenshot} ({WIDTH}x{height}" + (
                f", cut from {info['height']}" if info["height"] > height else "") + ")"
        browser.drain(0.2)
        problems = page_problems(browser.events, session, page_url) + info["problems"]
        return problems, f"{info['svgs']} charts, page {info['height']} px high{shot_note}"
    finally:
        browser.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="the HTML file to check")
    parser.add_argument("--screenshot", metavar="FILE.png", help="write a full-page screenshot, 1280 px wide")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for the whole check (default 60)")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"section ids that must be present and non-empty (default {','.join(SECTIONS)})")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.report):
        print(f"check_report_in_chromium: error: no such file '{args.report}'", file=sys.stderr)
        return 2
    sections = [s for s in args.sections.split(",") if s]
    try:
        problems, summary = check(args.report, args.screenshot, args.timeout, sections)
    except Failure as e:
        print(f"check_report_in_chromium: FAIL {args.report}: {e}", file=sys.stderr)
        return 1
    if problems:
        print(f"check_report_in_chromium: FAIL {args.report}: {problems[0]}", file=sys.stderr)
        for p in problems[1:]:
            print(f"  also: {p}", file=sys.stderr)
        return 1
    print(f"check_report_in_chromium: OK {args.report}: {len(sections)} sections, no console errors; {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
