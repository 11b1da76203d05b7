"""The server's training queue (posenc.lab.jobs): one at a time, in order, bounded, cancellable, kept.

Real trainings in child processes, at the smallest live settings (L = 2, 100 steps: about 2 s each)."""

import sys
import time
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.lab import jobs
from posenc.lab.names import SCHEMES, TASKS
from posenc.lab.recipe import LIVE_BOUNDS

TINY = {"train_max_length": 2, "steps": 100}


def wait(ticket, seconds=90):
    deadline = time.monotonic() + seconds
    while not ticket.finished:
        assert time.monotonic() < deadline, f"ticket still {ticket.state} after {seconds} s"
        time.sleep(0.1)
    return ticket


@pytest.fixture(scope="module")
def queue():
    return jobs.TrainingQueue()


def test_one_training_at_a_time_in_order_with_places_and_one_training_for_the_same_settings(queue):
    first = queue.submit(jobs.Request("copy", "alibi", 0, **TINY))
    second = queue.submit(jobs.Request("copy", "nope", 0, **TINY))
    again = queue.submit(jobs.Request("copy", "alibi", 0, **TINY))
    assert again is first and first.watchers == 2
    assert queue.position(second) in (1, 2)
    running_at_once = 0
    while not (first.finished and second.finished):
        running_at_once = max(running_at_once, [first.state, second.state].count("running"))
        if first.state == "running":
            assert queue.position(first) == 0 and queue.position(second) == 1
        time.sleep(0.05)
    assert running_at_once == 1
    assert first.state == second.state == "done", (first.message, second.message)
    records = first.result["records"]
    assert [r["test_length"] for r in records] == list(range(1, 7))  # test lengths 1…3L
    assert records[0]["accuracy"] == 1.0  # copy of one digit is learned in 100 steps
    assert set(first.result["maps"]) == {2, 3}  # L and past it
    assert first.cpu_seconds < jobs.CPU_SECONDS


def test_a_result_is_kept_by_its_settings_and_equals_the_command(queue):
    """The same settings, asked again, come back at once; and they are the command's numbers, bit for bit."""
    request = jobs.Request("copy", "alibi", 0, **TINY)
    kept = queue.cached(request)
    assert kept is not None and queue.submit(request) is kept
    import json
    import subprocess

    out = subprocess.run([sys.executable, "-m", "posenc.lab", "run", "--task", "copy", "--scheme", "alibi",
                          "--seed", "0", "--train-max-length", "2", "--steps", "100"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    command = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [r["accuracy"] for r in command] == [r["accuracy"] for r in kept.result["records"]]


def test_a_training_s_child_does_not_run_the_server_s_script(queue, tmp_path, monkeypatch):
    """A Streamlit server's ``__main__`` is the app's script, a module with a file and no spec (Streamlit's script
    runner puts it there; AppTest does too, in a test's process). multiprocessing had each training's child run that
    script before its training: ~2 s of the child's CPU bound, and a crash there ended the training "without a
    result" (this file, beside AppTest files in pytest-xdist's worker)."""
    ran = tmp_path / "ran"
    script = tmp_path / "server_script.py"
    script.write_text(f"open({str(ran)!r}, 'w').close()\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", main)
    ticket = wait(queue.submit(jobs.Request("copy", "nope", 5, **TINY)))
    assert ticket.state == "done", ticket.message
    assert not ran.exists()


def test_cancel_stops_a_training_and_frees_the_queue(queue):
    ticket = queue.submit(jobs.Request("reverse", "rope", 3, 8, 1500))
    deadline = time.monotonic() + 60
    while ticket.done < 20 and time.monotonic() < deadline:
        time.sleep(0.1)
    queue.cancel(ticket)
    wait(ticket)
    assert ticket.state == "cancelled" and ticket.done < ticket.total
    assert queue.cached(ticket.request) is None
    assert queue.snapshot()["running"] == 0


def test_a_finished_ticket_has_left_the_queue():
    """A ticket is finished only once its child has ended and the queue runs nothing: under load a child took seconds
    to end after its last message, and the ticket said done (or cancelled) while the queue still ran it (seen with
    the lab's test files run side by side on two workers: test_cancel_stops_a_training_and_frees_the_queue found
    running == 1)."""
    queue = jobs.TrainingQueue()
    real = queue._context

    class SlowJoin:  # the child's end takes a second, as on a loaded machine
        def __init__(self, child):
            self._child = child

        def __getattr__(self, name):
            return getattr(self._child, name)

        def join(self, timeout=None):
            time.sleep(1.0)
            return self._child.join(timeout)

    class SlowEnd:
        def __getattr__(self, name):
            return getattr(real, name)

        def Process(self, *args, **kwargs):  # noqa: N802 (multiprocessing's name)
            return SlowJoin(real.Process(*args, **kwargs))

    queue._context = SlowEnd()
    ticket = queue.submit(jobs.Request("copy", "alibi", 2, **TINY))
    wait(ticket)
    assert ticket.state == "done", ticket.message
    assert queue.snapshot()["running"] == 0 and queue.position(ticket) is None


def test_a_cancel_by_one_session_leaves_the_others_waiting(queue):
    request = jobs.Request("copy", "t5", 1, **TINY)
    ticket = queue.submit(request)
    assert queue.submit(request) is ticket
    queue.cancel(ticket)  # one of two sessions leaves
    assert wait(ticket).state == "done"


def test_a_training_is_stopped_at_its_cpu_bound():
    bounded = jobs.TrainingQueue(cpu_seconds=jobs.EVALUATION_RESERVE + 1.5)
    ticket = wait(bounded.submit(jobs.Request("copy", "transformer_xl", 0, 8, 1500)))
    assert ticket.state == "failed"
    assert "bound" in ticket.message and ticket.done < ticket.total


def test_the_waiting_line_is_bounded_with_a_sentence():
    small = jobs.TrainingQueue(max_waiting=1)
    running = small.submit(jobs.Request("copy", "rope", 5, 8, 1500))
    while running.state == "queued":
        time.sleep(0.05)
    waiting = small.submit(jobs.Request("copy", "rope", 6, 8, 1500))
    with pytest.raises(jobs.QueueFull, match="waiting already"):
        small.submit(jobs.Request("copy", "rope", 7, 8, 1500))
    small.cancel(waiting)
    assert waiting.state == "cancelled" and small.position(waiting) is None
    small.cancel(running)
    wait(running)


@given(task=st.one_of(st.sampled_from(TASKS), st.text(max_size=8)),
       scheme=st.one_of(st.sampled_from(SCHEMES), st.text(max_size=8)),
       seed=st.one_of(st.integers(-5, 10_005), st.booleans(), st.floats(allow_nan=True), st.text(max_size=3)),
       length=st.integers(-1, 14), steps=st.integers(-10, 2000))
def test_a_request_is_checked_with_a_sentence(task, scheme, seed, length, steps):
    valid = (task in TASKS and scheme in SCHEMES and isinstance(seed, int) and not isinstance(seed, bool)
             and jobs.SEED_RANGE[0] <= seed <= jobs.SEED_RANGE[1]
             and LIVE_BOUNDS["train_max_length"][0] <= length <= LIVE_BOUNDS["train_max_length"][1]
             and LIVE_BOUNDS["steps"][0] <= steps <= LIVE_BOUNDS["steps"][1])
    if valid:
        assert jobs.Request(task, scheme, seed, length, steps).seed == seed
    else:
        with pytest.raises(ValueError, match=r"\S+ .*"):
            jobs.Request(task, scheme, seed, length, steps)
