"""A seeded random walk through the app in a real browser, as a student clicking around: the driver of
tests/browser/test_random_walk.py.

Every step picks one action among those the page offers now (go to another page, move a slider by keys, type
a number, choose a selectbox's option, pick a model, toggle a checkbox, open or close an expander, switch a
view, empty or add to a multiselect, press Previous/Next), does it as a student would, waits until the run is
over (``settle``) and checks the page shows no exception, no error box and no traceback. Every few steps and
after every model pick, the copied link must reopen the same view (``assert_link_reproduces``).

The walk depends only on its seed and on what the app shows, so the same seed replays the same actions; a
failure names the seed, the step and every action so far.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app_routes import page_paths
from browser_controls import assert_clean, assert_link_reproduces, controls, settle
from live_app import wait_idle

SIDEBAR = "[data-testid=stSidebar]"
OPTION = "[role=listbox] [role=option]"
SLIDER_KEYS = ("Home", "End", "ArrowLeft", "ArrowRight", "PageUp", "PageDown")
# Typed into a number input: hostile text first, then the field's own bounds and values inside them.
HOSTILE_NUMBERS = ("1e309", "-1e309", "-1", "nan", "0", "1e12", "123456789012345678901234567890", "0.5", "2.75",
                   "1e-9", "", "abc", "--3", "1,5")
# The buttons a walk may press: the derivation's steps. Not "Train …" (a minute of torch) nor its "Cancel".
BUTTONS = ("Previous", "Next")
# How often each kind of action is drawn, among those the page offers.
WEIGHTS = {"slider": 5, "number": 2, "selectbox": 3, "model": 1, "checkbox": 1, "expander": 2, "view": 1,
           "multiselect": 2, "button": 1}
STARTS = 2_000  # ms an action's run may take to start
SHOWS = 10_000  # ms a page may take to show a control again (``Walk.candidates``)
# Counts the runs the page starts (window.__posencRuns), in every document the walk's tab opens.
COUNT_RUNS = """(() => { let last = null; window.__posencRuns = 0;
  setInterval(() => { const app = document.querySelector('[data-testid=stApp]');
    const state = app ? app.dataset.testScriptState : null;
    if (state !== last) { if (state === 'running') window.__posencRuns++; last = state; } }, 5); })()"""
# The copied link is checked after every LINK_EVERY-th action (and after every model pick). Each check opens a
# fresh tab, which costs Chromium 6-14 s of CPU on a CI machine of 2026-11-28 (the page's own run costs the server
# 0.3-2 s): 6, not 4, took ~8 reopened tabs off each part's 45 actions (CI was 61 min on that machine).
LINK_EVERY = 6

# Every control the walk can use, as (kind, selector), and for each visible one: its kind, index among the
# selector's matches, where it is (sidebar or main), its label, and what it holds.
CANDIDATES = """(kinds) => {
  const out = [];
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  for (const [kind, selector] of kinds) {
    [...document.querySelectorAll(selector)].forEach((e, index) => {
      if (!shown(e)) return;
      const side = e.closest('[data-testid=stSidebar]') ? 'sidebar' : 'main';
      const label = ((e.querySelector('[data-testid=stWidgetLabel]') || e).innerText || '').trim().split('\\n').pop();
      const item = {kind, index, side, label};
      if (kind === 'slider') { const r = e.querySelector('input[type=range]'); if (!r || r.disabled) return; }
      if (kind === 'number') { const i = e.querySelector('input'); if (!i || i.disabled) return;
        Object.assign(item, {min: i.min, max: i.max, step: i.step, value: i.value}); }
      if (kind === 'selectbox') { const i = e.querySelector('input'); if (!i || i.disabled) return;
        if (side === 'sidebar' && label === 'model') item.kind = 'model'; }
      if (kind === 'checkbox') { const i = e.querySelector('input'); if (!i || i.disabled) return; item.checked = i.checked; }
      if (kind === 'expander') { const d = e.closest('details'); item.open = !!(d && d.open);
        item.label = e.innerText.trim().split('\\n').pop(); }
      if (kind === 'view') { if (e.getAttribute('aria-checked') === 'true') return; item.label = e.innerText.trim(); }
      if (kind === 'multiselect') item.tags = [...e.querySelectorAll('[data-tag] [title]')].map(t => t.title);
      if (kind === 'button') { if (e.disabled) return; item.label = e.innerText.trim().split('\\n').pop(); }
      out.push(item);
    });
  }
  return out;
}"""
# What a page that shows no control holds (for ``Walk.candidates``' failure): each kind's count, shown or not,
# whether the sidebar is there and the start of the page's text.
HELD = """(kinds) => ({counts: Object.fromEntries(kinds.map(([k, s]) => [k, document.querySelectorAll(s).length])),
  sidebar: !!document.querySelector('[data-testid=stSidebar]'),
  state: (document.querySelector('[data-testid=stApp]') || {dataset: {}}).dataset.testScriptState,
  text: document.body.innerText.slice(0, 300)})"""
SELECTORS = {"slider": "[data-testid=stSlider]", "number": "[data-testid=stNumberInput]",
             "selectbox": "[data-testid=stSelectbox]", "checkbox": "[data-testid=stCheckbox]",
             "expander": "[data-testid=stExpander] summary", "view": "[data-testid=stButtonGroup] [role=radio]",
             "multiselect": "[data-testid=stMultiSelect]", "button": "[data-testid=stButton] button"}


@dataclass
class Walk:
    """One walk: ``pages`` (the fixture), the app's base URL, a seed and the pages it visits."""

    pages: object
    app: str
    seed: str
    paths: list[str] = field(default_factory=page_paths)
    models: tuple[str, ...] = ()
    actions: list[str] = field(default_factory=list)
    replay: str = ""  # how to run this walk again, for a failure's message

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.page = self.pages()
        self.page.add_init_script(COUNT_RUNS)
        self.runs = 0
        self.checked = None  # the view (address, controls) whose link was last reopened
        self.links = 0  # links reopened
        self.deck: list[str] = []
        self.path = None
        self.visited: set[str] = set()

    # -- the walk ------------------------------------------------------------------------------------------------

    def run(self, count: int) -> None:
        stay = 0
        for step in range(count):
            where, started = f"action {step}", time.monotonic()
            try:
                if self.path is None or stay <= 0:
                    self.navigate(first=self.path is None)
                    stay = self.rng.randint(2, 4)  # at most 5 actions a page: 45 see all 9 pages
                    model_picked = False
                else:
                    model_picked = self.act()
                    stay -= 1
                assert_clean(self.page, f"{where}: {self.actions[-1]}")
                acted = time.monotonic()
                if model_picked or step % LINK_EVERY == LINK_EVERY - 1:
                    self.check_link(f"{where}: {self.actions[-1]}")
                print(f"{step:4d} {acted - started:5.1f} s {time.monotonic() - acted:5.1f} s  {self.actions[-1]}")
            except Exception as error:  # an assertion, or a control that never answered (a timeout)
                self.fail(step, error)

    def fail(self, step: int, error: Exception) -> None:
        shown = self.page.locator("[data-testid=stException], [data-testid=stAlertContentError]").all_inner_texts()
        listing = "\n".join(f"  {number:3d}. {action}" for number, action in enumerate(self.actions))
        pytest.fail(f"random walk, seed {self.seed!r}, failed at action {step} ({self.actions[-1] if self.actions else ''})"
                    f"\nat {self.page.url}\n{type(error).__name__}: {error}\nshown: {shown}\n"
                    f"actions so far:\n{listing}\n{self.replay}",
                    pytrace=False)

    def settle(self, starts_run: bool = True) -> None:
        """Wait for the run the action started (up to ``STARTS`` ms), then until it is over and the controls
        stand still. A slider sends its value after 200 ms, later on a busy machine: waiting only for an idle
        page could read the address bar before that run wrote it. ``starts_run`` False: the action changed
        no value (a slider at its end pushed further, a number the field refused), so no run is awaited.
        The pointer is moved off the controls first: a hovered expander shows an arrow for its icon, which
        would read as another control than the reopened link's."""
        self.page.mouse.move(1399, 999)
        if starts_run:
            try:
                self.page.wait_for_function("(n) => window.__posencRuns > n", arg=self.runs, timeout=STARTS)
            except PlaywrightTimeout:
                pass
        settle(self.page, debounce=0)  # the run has started: no need to wait for a widget's debounce
        self.runs = self.page.evaluate("() => window.__posencRuns")

    def before(self) -> None:
        """Count the runs started so far, before an action (see ``settle``)."""
        self.runs = self.page.evaluate("() => window.__posencRuns")

    def record(self, text: str) -> None:
        self.actions.append(f"[{self.path or 'heatmap'}] {text}")

    # -- going to a page -----------------------------------------------------------------------------------------

    def next_path(self) -> str:
        """The next page of a shuffled deck of every page: every page is visited once before any twice."""
        if not self.deck:
            self.deck = self.rng.sample(self.paths, len(self.paths))
            if self.deck[0] == self.path and len(self.deck) > 1:
                self.deck.append(self.deck.pop(0))
        return self.deck.pop(0)

    def navigate(self, first: bool = False) -> None:
        path = self.next_path()
        how = "url" if first else self.rng.choice(("link", "link", "url", "bare url"))
        if how == "link":
            self.show_sidebar()
            self.path = path
            self.record(f"sidebar link to /{path}")
            self.before()
            self.page.locator(f'[data-testid=stSidebarNav] a[href="{self.app}/{path}"]').click()
            self.page.wait_for_url(lambda url: urlsplit(url).path == f"/{path}")
            self.settle()
        else:
            query = urlsplit(self.page.url).query if how == "url" and not first else ""
            url = f"{self.app}/{path}" + (f"?{query}" if query else "")
            self.path = path
            self.record(f"open {url.removeprefix(self.app)}")
            self.runs = 0  # a new document counts afresh
            self.page.goto(url)
            self.page.wait_for_selector(f"{SIDEBAR} [data-testid=stSelectbox]", state="attached")
            self.settle()
        self.visited.add(path)

    def show_sidebar(self) -> None:
        """Open the sidebar where presenter mode collapsed it."""
        expand = self.page.locator("[data-testid=stExpandSidebarButton]")
        if expand.count() and expand.is_visible():
            expand.click()
            self.page.wait_for_timeout(400)

    # -- one action on the page ----------------------------------------------------------------------------------

    def act(self) -> bool:
        """Do one action the page offers; True when it picked a model."""
        self.show_sidebar()
        self.before()
        found = self.candidates()
        kinds = sorted({item["kind"] for item in found})
        kind = self.rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
        item = self.rng.choice([i for i in found if i["kind"] == kind])
        getattr(self, kind)(item, self.page.locator(SELECTORS["selectbox" if kind == "model" else kind]).nth(item["index"]))
        return kind == "model"

    def candidates(self) -> list[dict]:
        """The controls the page shows now. None at all is a page between two states (one CI run, seed 38:1,
        loaded with the other core's tests, found none on /properties right after the link check, which a
        replay did not): wait up to ``SHOWS`` ms for one before calling it a failure, which then says what the
        page held."""
        deadline = time.monotonic() + SHOWS / 1000
        while True:
            found = [item for item in self.page.evaluate(CANDIDATES, list(SELECTORS.items()))
                     if item["kind"] != "button" or item["label"] in BUTTONS]
            if found or time.monotonic() > deadline:
                break
            self.page.wait_for_timeout(250)
            self.show_sidebar()
        if not found:
            held = self.page.evaluate(HELD, list(SELECTORS.items()))
            raise AssertionError(f"the page shows no control for {SHOWS} ms; what it holds: {held}")
        return found

    def slider(self, item, element) -> None:
        keys = [self.rng.choice(SLIDER_KEYS) for _ in range(self.rng.randint(1, 3))]
        self.record(f"slider {item['label']!r} ({item['side']}): {' '.join(keys)}")
        handle = element.locator("input[type=range]")
        was = handle.input_value()
        handle.focus()
        for key in keys:
            handle.press(key)
        self.settle(starts_run=handle.input_value() != was)

    def number(self, item, element) -> None:
        low, high = float(item["min"] or "-inf"), float(item["max"] or "inf")
        pick = self.rng.random()
        if pick < 0.4:
            text = self.rng.choice(HOSTILE_NUMBERS)
        elif pick < 0.6:
            text = self.rng.choice([item["min"], item["max"]])
        elif math.isfinite(low) and math.isfinite(high):  # inside the bounds: an integer or a fraction
            value = self.rng.uniform(low, min(high, low + 10 ** self.rng.randint(0, 6)))
            text = f"{value:.{self.rng.choice((0, 0, 2))}f}"
        else:
            text = str(self.rng.randint(0, 1000))
        self.record(f"number {item['label']!r} ({item['side']}) := {text!r} (was {item['value']})")
        entry = element.locator("input")
        entry.click()
        entry.press("ControlOrMeta+a")
        entry.press("Delete")
        if text:
            entry.press_sequentially(text)  # keys, as typed: a number field takes only the characters it can
        entry.press("Enter")
        # Streamlit's field refuses a number outside its range and puts back its value for text it cannot read
        # (1e309): neither starts a run
        refused = entry.get_attribute("aria-invalid") == "true"
        self.settle(starts_run=not refused and entry.input_value() != item["value"])
        if refused:
            # The refused text stays in the field, red, "Number is outside the allowed range", while the view
            # and the address bar keep the value in force: a student types a valid one, the walk the one before.
            assert_clean(self.page, self.actions[-1])
            self.record(f"number {item['label']!r}: {text!r} refused by the field, {item['value']!r} typed back")
            entry.fill(item["value"])
            entry.press("Enter")
            self.settle(starts_run=False)

    def _open_list(self, entry) -> None:
        """Open the list of ``entry`` (a selectbox's input). A late rerun can close a list as it opens (a loaded CI
        machine, seed 38:1: the list of a Properties selectbox never showed in 60 s): the walk waits until the run
        is over and opens it again, as a student clicks again, at most three times."""
        for attempt in range(3):
            entry.click()
            if not self.page.locator(OPTION).count():
                entry.press("ArrowDown")  # a click opens the list only sometimes; the arrow key always does
            try:
                self.page.wait_for_selector(OPTION, timeout=15_000 if attempt < 2 else 60_000)
                return
            except PlaywrightTimeout:
                if attempt == 2:
                    raise
                self._close_list()

    def _close_list(self) -> None:
        """Close an open (or half-open) list and wait until the run is over: before a list is opened again."""
        self.page.keyboard.press("Escape")
        wait_idle(self.page)

    def _options(self) -> list[tuple[str, bool]]:
        """The open list's options, (text, selected), read in one step: a late rerun can close the list between
        two reads of it, as one failed CI run found (seed 38:1)."""
        return [tuple(o) for o in self.page.evaluate(
            "(s) => [...document.querySelectorAll(s)].map(o => [o.innerText.trim(), o.getAttribute('aria-selected') === 'true'])",
            OPTION)]

    def _click_option(self, name: str, reopen) -> None:
        """Click the option reading ``name``; if a late rerun closed the list, ``reopen()`` it and try again."""
        for _ in range(3):
            names = [text for text, _ in self._options()]
            if name in names:
                try:
                    self.page.locator(OPTION).nth(names.index(name)).click(timeout=5_000)
                    return
                except PlaywrightTimeout:
                    pass
            self._close_list()
            reopen()
        raise AssertionError(f"{self.actions[-1]}: the option {name!r} could not be clicked in 3 openings of its list")

    def selectbox(self, item, element) -> None:
        entry = element.locator("input")
        self._open_list(entry)
        options = self._options()
        other = [text for text, selected in options if not selected]
        name = self.rng.choice(other or [options[0][0]])  # another option than the one shown
        self.record(f"selectbox {item['label']!r} ({item['side']}) := {name!r}")
        self._click_option(name, lambda: self._open_list(entry))
        self.settle()

    def model(self, item, element) -> None:
        name = "none" if self.rng.random() < 0.2 else self.rng.choice(self.models)
        self.record(f"model := {name!r}")
        entry = element.locator("input")
        self._open_list(entry)
        entry.fill(name)
        self._click_option(name, lambda: (self._open_list(entry), entry.fill(name)))
        self.settle()

    def checkbox(self, item, element) -> None:
        self.record(f"checkbox {item['label']!r} ({item['side']}) := {not item['checked']}")
        element.locator("label").first.click()
        self.settle()

    def expander(self, item, element) -> None:
        if item["open"] and self.rng.random() < 0.6:  # mostly open what is closed
            others = [i for i in self.page.evaluate(CANDIDATES, [("expander", SELECTORS["expander"])]) if not i["open"]]
            if others:
                item = self.rng.choice(others)
                element = self.page.locator(SELECTORS["expander"]).nth(item["index"])
        self.record(f"expander {item['label']!r} ({item['side']}): {'close' if item['open'] else 'open'}")
        element.click()
        self.settle()

    def view(self, item, element) -> None:
        self.record(f"view {item['label']!r}")
        element.click()
        self.settle()

    def multiselect(self, item, element) -> None:
        tags = item["tags"]
        how = self.rng.choice(("empty", "add", "add", "remove")) if tags else "add"
        if how == "empty":
            self.record(f"multiselect {item['label']!r}: empty (was {tags})")
            element.hover()
            element.get_by_role("button", name="Clear all").click()
        elif how == "remove":
            tag = self.rng.choice(tags)
            self.record(f"multiselect {item['label']!r}: remove {tag!r} (of {tags})")
            element.get_by_role("button", name=f"Remove {tag}", exact=True).click()
        else:
            element.locator("input").click()
            try:
                self.page.wait_for_selector(OPTION, timeout=3_000)
                # empty when a late rerun closed the list between the wait and the read (a loaded machine: seed 7:0)
                names, why = [text for text, _ in self._options()], "the list closed before it was read"
            except PlaywrightTimeout:  # at its most selections, the list offers none
                names, why = [], "nothing offered"
            if not names:
                self.record(f"multiselect {item['label']!r}: add, {why} (has {tags})")
                self.page.keyboard.press("Escape")
                self.settle(starts_run=False)
                return
            name = self.rng.choice(names)
            self.record(f"multiselect {item['label']!r}: add {name!r} (to {tags})")
            field = element.locator("input")
            self._click_option(name, lambda: (field.click(), self.page.wait_for_selector(OPTION, timeout=3_000)))
            self.page.keyboard.press("Escape")
        self.settle()

    def button(self, item, element) -> None:
        self.record(f"button {item['label']!r}")
        element.click()
        self.settle()

    # -- the copied link -----------------------------------------------------------------------------------------

    def check_link(self, where: str) -> None:
        """The address bar reopens the same view. A chart's data expander is not in the URL (a closed
        expander is one element; its tables are made only when opened), so open ones are closed first."""
        while True:
            found = self.page.evaluate(CANDIDATES, [("expander", SELECTORS["expander"])])
            shown = [i for i in found if i["open"] and i["label"].startswith("Chart data")]
            if not shown:
                break
            self.record(f"expander {shown[0]['label']!r}: close (before the link check)")
            self.before()
            self.page.locator(SELECTORS["expander"]).nth(shown[0]["index"]).click()
            self.settle()
            assert_clean(self.page, self.actions[-1])
        view = (self.page.url, controls(self.page))
        if view == self.checked:  # the view the last check reopened: nothing to learn (and 4 s saved)
            return
        try:
            assert_link_reproduces(self.pages, self.page, f"link after {where}")
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.link_difference()}") from None
        self.checked = view
        self.links += 1

    def link_difference(self) -> str:
        """Which controls the address bar, opened again, shows otherwise than the walk's page (for a failure)."""
        shown, other = controls(self.page), self.pages()
        try:
            other.goto(self.page.url)
            other.wait_for_selector(f"{SIDEBAR} [data-testid=stSelectbox]")
            settle(other, debounce=0)
            reopened = controls(other)
        except Exception as error:  # noqa: BLE001 (only a message)
            return f"(the link did not reopen: {error})"
        finally:
            other.close()
        lines = [f"  {a} -> {b}" for a, b in zip(shown, reopened) if a != b]
        if len(shown) != len(reopened):
            lines.append(f"  {len(shown)} controls -> {len(reopened)}: {shown[len(reopened):] or reopened[len(shown):]}")
        return "walk's page -> reopened link:\n" + "\n".join(lines or ["  (the same now: the first reopening differed)"])
