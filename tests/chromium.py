"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages separated by NUL, commands on descriptor 3, answers and events on 4), so a
test sees every console message, every request and the rendered page without a package
for the protocol or a port."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

BINARIES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def binary() -> str:
    """The browser to run; skipped without one, except in CI (``CI=true``), where
    ``.ci/run`` installs Debian's chromium and its absence is a failure."""
    for name in BINARIES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI") == "true":
        pytest.fail("CI=true but no chromium on PATH: .ci/run installs Debian's chromium")
    pytest.skip("no chromium binary on PATH (apt-get install chromium; CI=true requires it)")


def _high(fd: int) -> int:
    """``fd`` moved above 10, so that placing the child's 3 and 4 overwrites neither."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Browser:
    """One headless browser; ``page`` opens a target whose events are recorded."""

    def __init__(self, profile: Path, timeout: float = 60.0) -> None:
        self.timeout = timeout
        to_child_read, self._send = (_high(fd) for fd in os.pipe())
        self._receive, from_child_write = (_high(fd) for fd in os.pipe())

        def place() -> None:  # in the child: its descriptors 3 and 4 are the pipe
            os.dup2(to_child_read, 3)
            os.dup2(from_child_write, 4)

        self.process = subprocess.Popen(
            [
                binary(),
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",  # CI runs as root
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=place,  # the test process runs no other thread
        )
        os.close(to_child_read)
        os.close(from_child_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        # The browser may be gone already (a failed test): closing it is best effort.
        with contextlib.suppress(OSError, TimeoutError, RuntimeError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._send)
        os.close(self._receive)

    def _message(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._receive], [], [], left)[0]:
                raise TimeoutError("chromium sent nothing in time")
            chunk = os.read(self._receive, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            command["sessionId"] = session
        os.write(self._send, json.dumps(command).encode() + b"\0")
        while True:
            message = self._message()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, method: str, session: str) -> None:
        while not any(
            e.get("method") == method and e.get("sessionId") == session for e in self.events
        ):
            self.events.append(self._message())

    def load(self, url: str, width: int = 1000) -> Page:
        """A new tab showing ``url``, once its load event fired."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=width,
            height=800,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.call("Page.navigate", session, url=url)
        self.wait_for("Page.loadEventFired", session)
        return Page(self, session)


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def _events(self, *methods: str) -> list[dict[str, Any]]:
        return [
            e["params"]
            for e in self.browser.events
            if e.get("sessionId") == self.session and e.get("method") in methods
        ]

    @property
    def requests(self) -> list[str]:
        """Every URL the page asked for, its own included."""
        return [event["request"]["url"] for event in self._events("Network.requestWillBeSent")]

    @property
    def console(self) -> list[str]:
        """Console calls, uncaught exceptions and the browser's log entries (a refused
        load, a Content-Security-Policy violation), as ``level: text``."""
        out = [
            f"{e['type']}: {' '.join(str(a.get('value', a.get('description'))) for a in e['args'])}"
            for e in self._events("Runtime.consoleAPICalled")
        ]
        out.extend(
            f"exception: {e['exceptionDetails'].get('text')}"
            for e in self._events("Runtime.exceptionThrown")
        )
        out.extend(
            f"{e['entry']['level']}: {e['entry']['text']}" for e in self._events("Log.entryAdded")
        )
        return out

    def evaluate(self, expression: str) -> Any:
        found = self.browser.call(
            "Runtime.evaluate", self.session, expression=expression, returnByValue=True
        )
        return found["result"].get("value")

    def screenshot(self, path: Path) -> None:
        """The whole page as PNG."""
        size = self.browser.call("Page.getLayoutMetrics", self.session)["cssContentSize"]
        shot = self.browser.call(
            "Page.captureScreenshot",
            self.session,
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
