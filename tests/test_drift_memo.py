"""``linter.drift.memo.Memo``: one computation per key, however many threads ask."""

from __future__ import annotations

import threading
import time

import pytest

from linter.drift.memo import Busy, Memo


def test_threads_asking_together_share_one_computation() -> None:
    memo = Memo()
    calls: list[str] = []
    start = threading.Barrier(16)

    def compute() -> str:
        calls.append("computed")
        time.sleep(0.05)  # the others arrive while it runs
        return "analysis"

    got: list[str] = []

    def ask() -> None:
        start.wait()
        got.append(memo.once(("config.json", "text"), compute))

    threads = [threading.Thread(target=ask) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["computed"]
    assert got == ["analysis"] * 16
    assert memo.once(("config.json", "other"), lambda: "second") == "second"
    assert len(memo) == 2


def test_a_computation_that_fails_keeps_nothing() -> None:
    memo = Memo()

    def fail() -> str:
        raise ValueError("broken capture")

    with pytest.raises(ValueError, match="broken capture"):
        memo.once("key", fail)
    assert len(memo) == 0
    assert memo.once("key", lambda: "read") == "read"


def test_a_thread_that_must_not_wait_is_told_the_analysis_is_busy() -> None:
    memo = Memo()
    started, finish = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        finish.wait(5)
        return "analysis"

    worker = threading.Thread(target=memo.once, args=("key", slow))
    worker.start()
    started.wait(5)
    with pytest.raises(Busy):
        memo.once("key", lambda: "computed twice", wait=False)
    finish.set()
    worker.join()
    assert memo.once("key", lambda: "computed twice", wait=False) == "analysis"
