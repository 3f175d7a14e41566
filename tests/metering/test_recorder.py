"""The model server's record of calls: numbering, pages, what is dropped."""

from __future__ import annotations

from eunomia.metering import UsageRecorder


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def test_calls_are_numbered_and_paged() -> None:
    recorder = UsageRecorder(clock=Clock())
    for i in range(5):
        recorder.record(model="gpt-local", started_at=recorder.now(), status=200,
                        answered_by="qwen", input_tokens=100 + i, output_tokens=i,
                        cached_input_tokens=500)
    page = recorder.page()
    assert [c.seq for c in page.calls] == [1, 2, 3, 4, 5] and page.last_seq == 5
    assert not page.more and page.dropped == 0
    assert page.calls[0].cached_input_tokens == 100  # never more than the input tokens
    assert page.calls[0].seconds == 1.0
    first = recorder.page(after=0, limit=2)
    assert [c.seq for c in first.calls] == [1, 2] and first.more and first.last_seq == 2
    rest = recorder.page(after=first.last_seq)
    assert [c.seq for c in rest.calls] == [3, 4, 5] and not rest.more
    assert recorder.page(after=5).calls == [] and recorder.page(after=5).last_seq == 5
    # the cursor for "from now on", whatever the number given
    assert recorder.page(after=2**62).last_seq == 5
    since = recorder.page(since=page.calls[3].started_at)
    assert [c.seq for c in since.calls] == [4, 5]


def test_old_calls_are_dropped_and_a_reader_is_told() -> None:
    recorder = UsageRecorder(keep=3, clock=Clock())
    for _ in range(5):
        recorder.record(model="m", started_at=recorder.now(), status=500)
    page = recorder.page(after=0)
    assert [c.seq for c in page.calls] == [3, 4, 5] and page.dropped == 2
    assert recorder.page(after=3).dropped == 0
    failed = page.calls[0]
    assert (failed.input_tokens, failed.output_tokens, failed.status) == (None, None, 500)
