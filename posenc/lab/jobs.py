"""Live training, bounded so that a lecture hall cannot take the server down.

One :class:`TrainingQueue` per server process (the app keeps it with ``st.cache_resource``):

- **one training at a time**: a worker thread takes the requests in order (FIFO); every other request
  waits, and :meth:`TrainingQueue.position` tells it its place (0: running now);
- **in a child process**, forked from a server that has already imported torch (multiprocessing's
  ``forkserver``), torch on one thread: the Streamlit process, which serves every session under one
  GIL, never runs a training step, so other sessions keep their core;
- **at most** :data:`CPU_SECONDS` **of one core** per training (training and evaluation): the child
  stops itself at the bound (its result then says so), the kernel's RLIMIT_CPU stops it a little
  later if it does not, and the parent kills it after :data:`WALL_SECONDS` of wall time;
- **bounded memory**: at most :data:`MAX_WAITING` requests wait (more are refused with a sentence), and
  the results of the last :data:`CACHE_SIZE` settings are kept, keyed by their settings, so a request
  asked before (by anyone) is answered at once;
- the same settings asked by several sessions are one training; a cancel removes only the asking
  session's interest, and the training stops when nobody waits for it any more.
- **without the server's script**: multiprocessing has a child import its parent's ``__main__`` from its file,
  and a Streamlit server's ``__main__`` is the app's script (Streamlit's script runner puts it there; AppTest
  does too, in a test's process), so each child ran app.py bare before its training: ~2 s of its CPU bound
  and a page of warnings, and a crash there ended the training "without a result" (tests/lab/test_jobs.py,
  beside AppTest files in pytest-xdist's worker). A child named :data:`TRAINING` is prepared without it
  (:func:`_without_the_main_script`).

Torch is imported only in the child (this module imports none), so the app's process stays light.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import multiprocessing
import threading
import time
from dataclasses import dataclass
from multiprocessing import spawn

from posenc.lab.names import check_scheme, check_task
from posenc.lab.recipe import LIVE_BOUNDS, live_recipe

CPU_SECONDS = 60.0
"""The CPU time one live training may take (training and evaluation), in seconds of one core."""
WALL_SECONDS = 150.0
"""Wall-clock bound of one training in its child, a backstop for a child that stops answering."""
MAX_WAITING = 24
"""Requests that may wait at once, the running one aside; more get :class:`QueueFull`."""
CACHE_SIZE = 64
"""Results kept, by their settings (a result is about 30 kB: its records and two attention maps)."""
EVALUATION_RESERVE = 6.0
"""Seconds of the bound kept for testing: a training still running then is stopped (its testing takes
about 4 s at the largest live setting)."""
SEED_RANGE = (0, 9999)
"""The training seeds a user may choose."""
TRAINING = "posenc-training"
"""The name of a training's child process, which is prepared without its parent's ``__main__``."""


class QueueFull(RuntimeError):
    """Too many trainings wait already; the message says so in a sentence."""


@dataclass(frozen=True)
class Request:
    """What to train: one scheme on one task, with a user's training length, steps and seed."""

    task: str
    scheme: str
    seed: int
    train_max_length: int
    steps: int

    def __post_init__(self) -> None:
        check_task(self.task)
        check_scheme(self.scheme)
        live_recipe(self.train_max_length, self.steps)  # a ValueError with a sentence when out of bounds
        low, high = SEED_RANGE
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not low <= self.seed <= high:
            raise ValueError(f"seed must be a whole number in {low} … {high}; got {self.seed!r}.")


@dataclass
class Ticket:
    """One training as the sessions see it. ``state``: queued, running, done, cancelled, failed."""

    request: Request
    number: int
    state: str = "queued"
    done: int = 0
    total: int = 0
    phase: str = "waiting"
    result: dict | None = None
    message: str = ""
    cpu_seconds: float = 0.0
    watchers: int = 1
    cancel_event: object = dataclasses.field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.state in ("done", "cancelled", "failed")


class TrainingQueue:
    """The process's live trainings: FIFO, one at a time, each in a bounded child process."""

    def __init__(self, cpu_seconds: float = CPU_SECONDS, wall_seconds: float = WALL_SECONDS,
                 max_waiting: int = MAX_WAITING, cache_size: int = CACHE_SIZE) -> None:
        self.cpu_seconds, self.wall_seconds = float(cpu_seconds), float(wall_seconds)
        self.max_waiting, self.cache_size = int(max_waiting), int(cache_size)
        self._lock = threading.Condition()
        self._waiting: collections.deque[Ticket] = collections.deque()
        self._running: Ticket | None = None
        self._cache: collections.OrderedDict[Request, Ticket] = collections.OrderedDict()
        self._numbers = itertools.count(1)
        self._worker: threading.Thread | None = None
        self._context = multiprocessing.get_context("forkserver")
        if not getattr(spawn.get_preparation_data, "posenc", False):
            spawn.get_preparation_data = _without_the_main_script(spawn.get_preparation_data)
        self._context.set_forkserver_preload(["torch", "posenc.lab.train", "posenc.lab.evaluate"])

    # -- what sessions call -------------------------------------------------------------------------
    def cached(self, request: Request) -> Ticket | None:
        """The finished ticket of these settings, if one is kept."""
        with self._lock:
            ticket = self._cache.get(request)
            if ticket is not None:
                self._cache.move_to_end(request)
            return ticket

    def submit(self, request: Request) -> Ticket:
        """The ticket of ``request``: a kept result, the same settings already asked, or a new place in line."""
        with self._lock:
            if request in self._cache:
                self._cache.move_to_end(request)
                return self._cache[request]
            for ticket in self._in_flight():
                if ticket.request == request:
                    ticket.watchers += 1
                    return ticket
            if len(self._waiting) >= self.max_waiting:
                raise QueueFull(f"{len(self._waiting)} trainings are waiting already, the most this server "
                                f"takes; please try again in a minute (or read the shipped results above).")
            ticket = Ticket(request, next(self._numbers), cancel_event=self._context.Event())
            self._waiting.append(ticket)
            self._start_worker()
            self._lock.notify_all()
            return ticket

    def position(self, ticket: Ticket) -> int | None:
        """0 while it runs, 1 for the next in line, …; None once finished."""
        with self._lock:
            if ticket is self._running:
                return 0
            for place, waiting in enumerate(self._waiting, start=1):
                if waiting is ticket:
                    return place
            return None

    def cancel(self, ticket: Ticket) -> None:
        """This session no longer waits for ``ticket``; the training stops when nobody does."""
        with self._lock:
            if ticket.finished:
                return
            ticket.watchers -= 1
            if ticket.watchers > 0:
                return
            if ticket in self._waiting:
                self._waiting.remove(ticket)
                ticket.state, ticket.message = "cancelled", "Cancelled before it started."
            else:
                ticket.cancel_event.set()

    def snapshot(self) -> dict[str, int]:
        """How busy the queue is: running (0 or 1), waiting, kept results."""
        with self._lock:
            return {"running": int(self._running is not None), "waiting": len(self._waiting),
                    "kept": len(self._cache)}

    # -- the worker ---------------------------------------------------------------------------------
    def _in_flight(self) -> list[Ticket]:
        return ([self._running] if self._running is not None else []) + list(self._waiting)

    def _start_worker(self) -> None:
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._loop, name="posenc-lab-training", daemon=True)
            self._worker.start()

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._waiting:
                    if not self._lock.wait(timeout=60):
                        self._worker = None  # idle for a minute: the thread ends, the next submit starts one
                        return
                ticket = self._waiting.popleft()
                self._running, ticket.state, ticket.phase = ticket, "running", "starting"
            try:
                outcome = self._train(ticket)
            except Exception as error:  # a failure of one training never stops the queue
                outcome = {"message": f"The training failed: {type(error).__name__}.", "state": "failed"}
            with self._lock:  # finished and no longer running in one step: a finished ticket's queue is free of it
                for name, value in outcome.items():
                    setattr(ticket, name, value)
                self._running = None
                if ticket.state == "done":
                    self._cache[ticket.request] = ticket
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)

    def _train(self, ticket: Ticket) -> dict:
        """Run ``ticket``'s training in a child; its progress goes to the ticket as it comes, its outcome (the
        ticket's fields, ``state`` last: a reader who sees it finished finds the rest set) is returned once the
        child has ended, for :meth:`_loop` to set with the queue's running slot freed."""
        receive, send = self._context.Pipe(duplex=False)
        child = self._context.Process(target=_child, args=(ticket.request, send, ticket.cancel_event,
                                                           self.cpu_seconds), daemon=True, name=TRAINING)
        started = time.monotonic()
        child.start()
        send.close()
        try:
            while True:
                if receive.poll(0.2):
                    try:
                        message = receive.recv()
                    except EOFError:
                        message = ("failed", "The training process ended without a result.")
                    kind = message[0]
                    if kind == "progress":
                        ticket.phase, ticket.done, ticket.total = message[1], message[2], message[3]
                        continue
                    if kind == "done":
                        return {"result": message[1], "cpu_seconds": message[2], "state": "done"}
                    if kind == "cancelled":
                        return {"message": "Cancelled.", "state": "cancelled"}
                    return {"message": message[1], "state": "failed"}
                if not child.is_alive() and not receive.poll(0):
                    return {"message": (f"The training process stopped (exit code {child.exitcode}): past its bound "
                                        f"of {self.cpu_seconds:.0f} s of CPU, or out of memory."), "state": "failed"}
                if time.monotonic() - started > self.wall_seconds:
                    return {"message": f"The training took longer than {self.wall_seconds:.0f} s and was stopped.",
                            "state": "failed"}
        finally:
            receive.close()
            child.join(timeout=5)
            if child.is_alive():
                child.kill()
                child.join(timeout=5)


def _without_the_main_script(prepare):
    """multiprocessing's ``spawn.get_preparation_data`` (what a new child is told before it unpickles its target),
    less the parent's ``__main__`` for a child named :data:`TRAINING`: its target, :func:`_child`, and its
    arguments are this module's, and a child told the main script's path runs that script first (``spawn.prepare``,
    read in Python 3.11). Other children are prepared as multiprocessing prepares them."""

    def prepared(name: str) -> dict:
        data = prepare(name)
        if name == TRAINING:
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data

    prepared.posenc = True
    return prepared


def _child(request: Request, send, cancel_event, cpu_seconds: float) -> None:
    """Train, evaluate and draw the attention maps of ``request`` (in the child process); report through ``send``."""
    import resource

    hard = int(cpu_seconds) + 15
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard + 5))  # SIGXCPU, then SIGKILL, if the polite stop fails
    start = time.process_time()
    try:
        import torch

        from posenc.lab.evaluate import attention_maps, evaluate
        from posenc.lab.shipped import map_lengths
        from posenc.lab.train import TrainingCancelled, train

        torch.set_num_threads(1)
        recipe = live_recipe(request.train_max_length, request.steps)
        over = {"time": False}
        last = {"sent": 0.0}

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last["sent"] > 0.2 or done == total:
                last["sent"] = now
                send.send(("progress", "training", done, total))

        def should_stop() -> bool:
            if time.process_time() - start > cpu_seconds - EVALUATION_RESERVE:  # leave time to test what was learned
                over["time"] = True
                return True
            return cancel_event.is_set()

        try:
            model = train(request.task, request.scheme, request.seed, recipe, progress=progress,
                          should_stop=should_stop)
        except TrainingCancelled:
            if not over["time"]:
                send.send(("cancelled",))
                return
            send.send(("failed", f"The training reached the bound of {cpu_seconds:.0f} s of CPU before its last "
                                 f"step; choose fewer steps or a shorter training length."))
            return
        send.send(("progress", "evaluating", 0, 1))
        records = evaluate(model, request.task, request.seed)
        for record in records:
            record["steps"] = request.steps
        lengths = map_lengths(request.train_max_length)
        maps = {length: attention_maps(model, request.task, length, seed=0) for length in lengths}
        result = {"records": records,
                  "maps": {length: (probabilities.astype("float16"), tokens.astype("int8"))
                           for length, (probabilities, tokens) in maps.items()}}
        send.send(("done", result, time.process_time() - start))
    except Exception as error:  # a sentence, never a traceback on the page
        send.send(("failed", f"The training failed: {type(error).__name__}: {str(error)[:300]}"))
    finally:
        send.close()


__all__ = ["CPU_SECONDS", "LIVE_BOUNDS", "MAX_WAITING", "QueueFull", "Request", "Ticket", "TrainingQueue"]
