"""The Length generalization page's views: the shipped results, what they say, the attention maps of a
trained model, and "train your own" through the server's one training queue (posenc.lab.jobs).

The shipped views read posenc/lab/data/results.jsonl and attention.npz (no torch in this process); a live
training runs in a child process, one at a time per server (the queue tells the others their place).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import streamlit as st

from posenc.figures import generalization as figures
from posenc.lab import extension, jobs, results
from posenc.lab.findings import seeds_verdict
from posenc.lab.names import SCHEME_LABELS, SCHEMES, TOKEN_NAMES
from posenc.lab.recipe import DEFAULT, LIVE_BOUNDS
from posenc.lab.shipped import animation_lengths
from posenc.schemes.scheme import Option
from posenc.settings.parsing import code_span
from posenc.ui import binding, motion, presenter
from posenc.ui.compute import built_once, shared_figure

# A bound selectbox shows the names the URL carries (binding.bound_control); their labels are in the help.
SCHEME_NAMES = "The schemes by name: " + "; ".join(f"{name}: {text}" for name, text in SCHEME_LABELS.items()) + "."

TASK_HELP = "copy: the digits again, in order; reverse: in reverse order; selective_copy: the non-zero digits in order, then the zeros."

WHERE_TO_LOOK: dict[str, str] = {
    "copy": "a fixed distance back (n + 1 tokens).",
    "reverse": "the mirror position around |.",
    "selective_copy": "the next non-zero digit after those already written: a place found by counting digits by "
                      "their content, not by a fixed distance.",
}
"""What the query at the answer must find to do each task of posenc.lab.names.TASKS (one entry per task)."""

LIVE_TICKET_KEY = "_posenc_lab_ticket"  # this session's live training (a jobs.Ticket), if any

LIVE_CONTROLS = (
    Option("own_length", "training length L (digits)", DEFAULT.train_max_length, *LIVE_BOUNDS["train_max_length"],
           help="Strings of 1…L digits in training; the test runs to 3L."),
    Option("own_steps", "optimizer steps", DEFAULT.steps, *LIVE_BOUNDS["steps"],
           help="DroPE adds its recalibration steps."),
    Option("own_seed", "seed", 0, *jobs.SEED_RANGE,
           help="The same seed and settings give the same numbers, bit for bit."),
)


def label(scheme: str) -> str:
    return SCHEME_LABELS.get(scheme, scheme)


def _curves(summary: dict, schemes: list[str]) -> tuple[np.ndarray, dict]:
    lengths = np.array(sorted(next(iter(summary.values())))) if summary else np.array([], int)
    series = {}
    for scheme in schemes:
        if scheme in summary:
            cells = [summary[scheme][n] for n in lengths]
            series[label(scheme)] = tuple(np.array([c[k] for c in cells]) for k in ("mean", "min", "max"))
    return lengths, series


def accuracy_view(task: str, schemes: list[str]) -> None:
    """Exact match against test length for the chosen schemes: the mean over seeds and its spread."""
    summary = results.summarize()[task]
    length = results.train_max_length()
    lengths, series = _curves(summary, schemes)
    seeds = max(cell["seeds"] for per in summary.values() for cell in per.values())
    if not series:
        st.info("No scheme chosen: pick some above to draw their curves.")
        return
    figure = built_once(("lab accuracy", task, tuple(schemes)), lambda: figures.accuracy_chart(
        lengths, series, train_max_length=length, title=f"{task}: exact match against test length"))
    presenter.chart(figure, key="lab_accuracy", name="generalization", sidebar=False, task=task, schemes=schemes)
    st.caption(f"Each point: the share of {DEFAULT.examples} test strings answered exactly right, the mean of "
               f"{seeds} training seed{'s' if seeds != 1 else ''}; the band spans the lowest and highest seed. "
               "Shaded: the lengths trained on.")


def numbers_table(task: str, schemes: list[str]) -> None:
    """The numbers behind the chart: in distribution, just past it, and at the longest test length."""
    summary = results.summarize()[task]
    length = results.train_max_length()
    inside = results.in_distribution()[task]
    longest = max(next(iter(summary.values())))
    rows = []
    for scheme in [s for s in schemes if s in summary]:
        per = summary[scheme]
        rows.append({"scheme": label(scheme),
                     f"1…{length} (trained)": inside[scheme]["mean"],
                     f"{length + 1}…{2 * length}": float(np.mean([per[n]["mean"] for n in per if length < n <= 2 * length])),
                     f"at {2 * length}": per[2 * length]["mean"] if 2 * length in per else np.nan,
                     f"at {longest}": per[longest]["mean"]})
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="lab_numbers",
                     column_config={k: st.column_config.NumberColumn(format="%.3f") for k in rows[0] if k != "scheme"})


# "X generalizes better than Y", as the papers found; checked against the shipped numbers, not assumed.
PAPER_CLAIMS = (
    ("Kazemnejad et al. 2023", "nope", "rope"), ("Kazemnejad et al. 2023", "t5", "rope"),
    ("Kazemnejad et al. 2023", "nope", "learned"), ("Kazemnejad et al. 2023", "t5", "sinusoidal"),
    ("Kazemnejad et al. 2023", "nope", "alibi"), ("Kazemnejad et al. 2023", "alibi", "rope"),
    ("Press et al. 2021", "alibi", "sinusoidal"), ("Press et al. 2021", "alibi", "rope"),
)


def beyond_scores(task: str) -> dict[str, float]:
    """Mean exact match over test lengths L+1…2L, per scheme (the lab's measure of generalization)."""
    summary = results.summarize()[task]
    length = results.train_max_length()
    return {scheme: float(np.mean([per[n]["mean"] for n in per if length < n <= 2 * length]))
            for scheme, per in summary.items()}


def reading(task: str) -> str:
    """What the shipped results of ``task`` say, in sentences built from the numbers themselves."""
    length = results.train_max_length()
    inside = results.in_distribution()[task]
    scores = beyond_scores(task)
    ranked = sorted(scores, key=lambda s: -scores[s])
    low_inside = [s for s in inside if inside[s]["mean"] < 0.95]
    lines = []
    worst = min(inside, key=lambda s: inside[s]["mean"])
    if low_inside:
        lines.append(f"- **In distribution** (1…{length} digits), {', '.join(label(s) for s in low_inside)} stay "
                     f"below 0.95 exact match: the recipe does not train them fully on {code_span(task)}.")
    else:
        lines.append(f"- **In distribution** (1…{length} digits) every scheme learned {code_span(task)}: mean exact match "
                     f"≥ {inside[worst]['mean']:.3f} (lowest: {label(worst)}).")
    best = ", ".join(f"{label(s)} ({scores[s]:.2f})" for s in ranked[:3])
    last = ", ".join(f"{label(s)} ({scores[s]:.2f})" for s in ranked[-3:])
    lines.append(f"- **Past it** ({length + 1}…{2 * length} digits, mean exact match): best {best}; "
                 f"least {last}.")
    found: dict[bool | None, dict[str, list[str]]] = {True: {}, False: {}, None: {}}
    spread = results.beyond_by_seed()[task]
    for paper, better, worse in PAPER_CLAIMS:
        if better in scores and worse in scores:
            ours, theirs = spread[better], spread[worse]
            agrees = seeds_verdict(ours, theirs)
            seeds = (f"; seeds {ours.min():.2f}–{ours.max():.2f} vs {theirs.min():.2f}–{theirs.max():.2f}"
                     if agrees is None else "")
            text = f"{label(better)} > {label(worse)} ({scores[better]:.2f} vs {scores[worse]:.2f}{seeds})"
            found[agrees].setdefault(paper, []).append(text)
    for agrees, heading in ((True, "As the papers found"), (False, "Not as the papers found"),
                            (None, "Within the seeds' spread, no finding either way")):
        if found[agrees]:
            lines.append(f"- **{heading}:** " + "; ".join(f"{paper}: {', '.join(claims)}"
                                                          for paper, claims in found[agrees].items()) + ".")
    seeds = max(cell["seeds"] for per in results.summarize()[task].values() for cell in per.values())
    lines.append(f"- **At this scale.** {DEFAULT.layers} layers {DEFAULT.d_model} wide, {DEFAULT.steps:,} steps, "
                 f"strings of 1…{length} digits, {seeds} seed{'s' if seeds != 1 else ''}: the papers trained larger models for longer on "
                 "more tasks. A gap smaller than the seed bands in the chart is not a finding.")
    return "\n".join(lines)


def token_labels(tokens: np.ndarray) -> list[str]:
    return [TOKEN_NAMES[int(t)] if 0 <= int(t) < len(TOKEN_NAMES) else "?" for t in tokens]


def attention_view(task: str, scheme: str, layer: int, maps_by_length: dict | None = None,
                   accuracy: dict | None = None, key: str = "lab_attention") -> None:
    """The attention of every head of one layer, reading a string of L digits and one past L: the shipped seed-0
    model's (its figure built once per process and shared), or the maps given (a model trained here)."""
    per_row = 2 * presenter.grid_columns()
    shipped = maps_by_length is None

    def build():
        maps = {n: results.load_attention(task, scheme, n) for n in results.attention_lengths()} if shipped \
            else maps_by_length
        if accuracy is None:
            records = results.load_records(task=task, scheme=scheme)
            scores = {int(r["test_length"]): float(r["accuracy"]) for r in records if r["seed"] == 0}
        else:
            scores = accuracy
        rows, titles, labels = [], [], []
        for n in sorted(maps):
            probabilities, tokens = maps[n]
            rows.append(np.asarray(probabilities, dtype=np.float32)[layer - 1])
            where = "trained length" if n <= results.train_max_length() else "past the training length"
            score = f", exact match {scores[n]:.2f}" if n in scores else ""
            titles.append(f"{n} digits ({where}{score})")
            labels.append(token_labels(tokens))
        return figures.attention_grid(rows, titles, labels, title=f"{label(scheme)} on {task}: layer {layer}, every head",
                                      per_row=per_row)

    figure = built_once(("lab attention", task, scheme, layer, per_row), build) if shipped else build()
    presenter.chart(figure, key=key, name="attention", sidebar=False, task=task, scheme=scheme, layer=layer)


@shared_figure
def attention_animation_figure(task: str, scheme: str, layer: int, per_row: int = 2):
    """Every head of one layer of the shipped seed-0 model, one frame per test length 1 … 3L (the shipped maps)."""
    length = results.train_max_length()
    records = results.load_records(task=task, scheme=scheme)
    accuracy = {int(r["test_length"]): float(r["accuracy"]) for r in records if r["seed"] == 0}
    lengths = list(animation_lengths(max(accuracy)))
    maps, headings = [], []
    for n in lengths:
        probabilities, _ = results.load_attention(task, scheme, n)
        maps.append(probabilities[layer - 1])
        where = f"within 1…{length} (trained)" if n <= length else f"past the training length {length}"
        headings.append(f"{label(scheme)} on {task}, layer {layer}: {n} digit{'s' if n != 1 else ''}, {where}; "
                        f"exact match {accuracy[n]:.2f}")
    return figures.attention_animation(maps, lengths, headings, train_max_length=length,
                                       title=f"{label(scheme)} on {task}: layer {layer}", per_row=per_row)


def attention_animation_view(task: str, scheme: str, layer: int) -> None:
    """The attention maps of every head as the test string grows from 1 digit to 3L."""
    figure = attention_animation_figure(task, scheme, layer, 2 * presenter.grid_columns())
    motion.animation(figure, "lab_attention_animation", what="test length", name="attention_animation", sidebar=False,
                     task=task, scheme=scheme, layer=layer)
    seen = 2 * results.train_max_length() + 1
    st.caption(f"The dashed square: the {seen} tokens of the longest training string ({results.train_max_length()} "
               "digits); each map grows past it as the string does. The title gives the seed-0 model's exact match "
               "at that length (200 test strings); the map reads the first of them.")


# -- train your own --------------------------------------------------------------------------------

@st.cache_resource
def training_queue() -> jobs.TrainingQueue:
    """The server process's one training queue, shared by every session."""
    return jobs.TrainingQueue()


def train_your_own(task: str) -> None:
    """One scheme with a user's training length, steps and seed, trained live through the queue."""
    columns = st.columns([2, 2, 2, 1])
    with columns[0]:
        scheme = binding.bound_control(Option("own_scheme", "scheme", "alibi", choices=SCHEMES, help=SCHEME_NAMES),
                                       "own_scheme")
    values = []
    for column, option in zip(columns[1:], LIVE_CONTROLS):
        with column:
            values.append(binding.bound_control(option, option.name))
    length, steps, seed = (int(v) for v in values)
    try:
        request = jobs.Request(task, scheme, seed, length, steps)
    except ValueError as error:  # the controls keep values in bounds; a sentence if one slips through
        binding.warn(str(error))
        return
    queue = training_queue()
    ticket = st.session_state.get(LIVE_TICKET_KEY)
    if ticket is not None and ticket.request != request and not ticket.finished:
        queue.cancel(ticket)  # the settings moved on: this session no longer waits for the old ones
        ticket = st.session_state[LIVE_TICKET_KEY] = None
    kept = queue.cached(request)
    if kept is not None:
        _show_result(kept)
        return
    if ticket is not None and ticket.request == request and not ticket.finished:
        _progress(ticket)
        return
    if ticket is not None and ticket.request == request and ticket.state in ("failed", "cancelled"):
        st.info(ticket.message)
    st.caption(f"One training at a time per server, each at most {jobs.CPU_SECONDS:.0f} s of one core; others "
               f"wait in line and see their place. The result is kept by its settings: the same settings, asked "
               f"again by anyone, come back at once.")
    if st.button(f"Train {label(scheme)} on {task}", key="own_train", icon=":material/model_training:"):
        try:
            st.session_state[LIVE_TICKET_KEY] = queue.submit(request)
        except jobs.QueueFull as error:
            binding.warn(str(error))
            return
        st.rerun()


@st.fragment(run_every=0.5)
def _progress(ticket: jobs.Ticket) -> None:
    """Place in line, or progress, and a cancel button; redrawn twice a second until the training ends."""
    queue = training_queue()
    if ticket.finished:
        st.rerun()  # the whole page, to show the result
    place = queue.position(ticket)
    if place is None or ticket.finished:
        st.rerun()
    if place > 0:
        ahead = place - 1
        st.progress(0.0, text=f"Waiting in line: {'your training is next' if ahead == 0 else f'{ahead} ahead of yours'} "
                              f"(one training runs at a time on this server).")
    elif ticket.total == 0:
        st.progress(0.0, text="Starting the training process …")
    elif ticket.phase == "evaluating":
        st.progress(1.0, text="Trained; testing exact match at every length …")
    else:
        fraction = ticket.done / ticket.total if ticket.total else 0.0
        st.progress(min(fraction, 1.0), text=f"Training: step {ticket.done:,} of {ticket.total:,}")
    if st.button("Cancel", key="own_cancel", icon=":material/cancel:"):
        queue.cancel(ticket)
        st.session_state[LIVE_TICKET_KEY] = None
        st.rerun()


def _show_result(ticket: jobs.Ticket) -> None:
    request, result = ticket.request, ticket.result
    records = result["records"]
    lengths = np.array([r["test_length"] for r in records])
    accuracy = np.array([r["accuracy"] for r in records], dtype=float)
    series = {f"{label(request.scheme)}, yours (seed {request.seed})": (accuracy, accuracy, accuracy)}
    if request.train_max_length == results.train_max_length() and request.scheme in results.summarize()[request.task]:
        shipped = results.summarize()[request.task][request.scheme]
        common = [n for n in lengths if n in shipped]
        if common:
            series[f"{label(request.scheme)}, shipped (mean of seeds)"] = tuple(
                np.array([shipped[n][k] if n in shipped else np.nan for n in lengths]) for k in ("mean", "min", "max"))
    presenter.chart(figures.accuracy_chart(lengths, series, train_max_length=request.train_max_length,
                                           title=f"Yours: {label(request.scheme)} on {request.task}, L = "
                                                 f"{request.train_max_length}, {request.steps:,} steps"),
                    key="own_accuracy", name="trained", sidebar=False, task=request.task, scheme=request.scheme,
                    length=request.train_max_length, steps=request.steps, seed=request.seed)
    inside = accuracy[lengths <= request.train_max_length].mean()
    st.caption(f"In distribution: mean exact match {inside:.3f}. Trained in {ticket.cpu_seconds:.1f} s of CPU. "
               f"The same settings give these numbers again, bit for bit: `python -m posenc.lab run --task "
               f"{request.task} --scheme {request.scheme} --seed {request.seed} --train-max-length "
               f"{request.train_max_length} --steps {request.steps}`.")
    maps = {int(n): (np.asarray(p, np.float32), np.asarray(t)) for n, (p, t) in result["maps"].items()}
    layers = next(iter(maps.values()))[0].shape[0]
    layer = binding.bound_control(Option("own_layer", "layer of your model", layers, 1, layers), "own_layer")
    attention_view(request.task, request.scheme, int(layer), maps_by_length=maps,
                   accuracy={int(r["test_length"]): float(r["accuracy"]) for r in records}, key="own_attention")


# -- stretching RoPE (issue 30) ----------------------------------------------------------------------

STRETCH = (
    Option("stretch_factor", "stretched to (× L)", str(extension.FACTORS[0]),
           choices=tuple(str(f) for f in extension.FACTORS),
           help="The new context: 2L or 4L digits (the scaling's factor)."),
    Option("stretch_steps", "fine-tune steps", str(extension.FINETUNE_STEPS[-1]),
           choices=tuple(str(s) for s in extension.FINETUNE_STEPS if s),
           help="The fine-tuned chart: steps at lengths 1…F·L after stretching (the other chart: none)."),
)

METHOD_NAMES = "The methods by name: " + "; ".join(f"{name}: {text}" for name, text in
                                                     extension.METHOD_LABELS.items()) + "."


def stretching_view(task: str, methods: list[str], factor: int, steps: int) -> None:
    """Accuracy against test length of the stretched RoPE models, zero-shot and after ``steps`` of fine-tune."""
    if task not in extension.TASKS:
        st.info(f"Stretching RoPE is measured on {' and '.join(extension.TASKS)}: choose one of them as the task above.")
        return
    records = extension.load_extension(task)
    if not records:
        st.info("The stretched models' numbers are not shipped in this copy: run "
                "`python -m posenc.lab regenerate-extension`.")
        return
    length = int(records[0]["train_max_length"])
    for shown_steps, title in ((0, "zero-shot"), (steps, f"fine-tuned {steps} steps at 1…{factor * length}")):
        curves = extension.curves(records, task, factor, shown_steps)
        series = {extension.METHOD_LABELS[m]: (curves[m]["mean"], curves[m]["min"], curves[m]["max"])
                  for m in methods if m in curves}
        if not series:
            st.info("No method chosen: pick some above to draw their curves.")
            return
        lengths = next(iter(curves.values()))["lengths"]
        figure = built_once(("lab stretch", task, tuple(methods), factor, shown_steps), functools.partial(
            figures.accuracy_chart, lengths, series, train_max_length=length, extended_length=factor * length,
            title=f"RoPE on {task}, stretched to {factor}L: {title}"))
        presenter.chart(figure, key=f"lab_stretch_{'zero' if shown_steps == 0 else 'tuned'}", name="stretching",
                        sidebar=False, task=task, methods=methods, factor=factor, steps=shown_steps)
    seeds = len({r["seed"] for r in records})
    st.caption(f"The shipped RoPE models (trained on 1…{length} digits, shaded), their rotation stretched to "
               f"{factor * length} digits (dashed) by each method, tested to {4 * length}: the mean exact match of "
               f"{seeds} seed{'s' if seeds != 1 else ''}, the band their spread. Reproduced by `python -m posenc.lab extend --task {task} "
               f"--method METHOD --factor {factor} --finetune-steps STEPS --seed N`.")


STRETCH_MAP = (
    Option("stretch_map_method", "stretched by", "yarn", choices=tuple(extension.METHODS),
           help="The method whose stretched model the animation shows. " + METHOD_NAMES),
    Option("stretch_map_layer", "layer", DEFAULT.layers, 1, DEFAULT.layers),
)


def _where(n: int, length: int, stretched: int) -> str:
    if n <= length:
        return f"within 1…{length} (trained)"
    return f"within the stretched context 1…{stretched}" if n <= stretched else f"past the stretched context {stretched}"


@shared_figure
def stretched_animation_figure(task: str, method: str, layer: int, per_row: int = 2):
    """Every head of one layer of the stretched seed-0 RoPE model (extension.MAP_FACTOR, MAP_FINETUNE_STEPS), one
    frame per test length 1…4L; each frame's exact match from extension.jsonl (that seed)."""
    factor, steps = extension.MAP_FACTOR, extension.MAP_FINETUNE_STEPS
    length = results.train_max_length()
    accuracy = extension.seed_accuracy(task, method, factor, steps)
    lengths = list(animation_lengths(extension.TEST_FACTOR * length))
    name = f"RoPE stretched by {extension.METHOD_LABELS[method]} to {factor}L, fine-tuned {steps} steps"
    maps, headings = [], []
    for n in lengths:
        maps.append(extension.load_extension_attention(task, method, factor, steps, n)[0][layer - 1])
        score = f"exact match {accuracy[n]:.2f}" if n in accuracy else "exact match not shipped"
        headings.append(f"{name}, on {task}, layer {layer}: {n} digit{'s' if n != 1 else ''}, "
                        f"{_where(n, length, factor * length)}; {score}")
    return figures.attention_animation(maps, lengths, headings, train_max_length=length,
                                       extended_length=factor * length, title=f"{name}, on {task}: layer {layer}",
                                       per_row=per_row)


def stretched_animation_view(task: str) -> None:
    """The animation of a stretched model's attention maps over every test length 1…4L, its method and layer
    bound to the URL (stretch_map_method, stretch_map_layer); a message when the shipped maps lack it."""
    if task not in extension.TASKS:
        return  # stretching_view says which tasks the experiment measures
    st.markdown(f"**Inside a stretched model**: the heads of a stretched RoPE model at every test length from 1 to "
                f"{extension.TEST_FACTOR * results.train_max_length()} digits, as the string grows past its training "
                "length and into the stretched context.")
    columns = st.columns(2)
    values = []
    for column, option in zip(columns, STRETCH_MAP):
        with column:
            values.append(binding.bound_control(option, option.name))
    method, layer = str(values[0]), int(values[1])
    factor, steps = extension.MAP_FACTOR, extension.MAP_FINETUNE_STEPS
    if not extension.has_maps(task, method, factor, steps):
        st.info(f"The attention maps of RoPE stretched by {extension.METHOD_LABELS[method]} to {factor}L on {task} "
                "are not shipped in this copy: run `python -m posenc.lab regenerate-extension-maps`.")
        return
    figure = stretched_animation_figure(task, method, layer, 2 * presenter.grid_columns())
    motion.animation(figure, "lab_stretch_animation", what="test length", name="stretch_animation", sidebar=False,
                     task=task, method=method, layer=layer)
    st.caption(stretched_animation_caption(task, method))


def stretched_animation_caption(task: str, method: str) -> str:
    """What the animation's squares mark, and the seed-0 model's exact match inside each of them."""
    factor, steps = extension.MAP_FACTOR, extension.MAP_FINETUNE_STEPS
    length = results.train_max_length()
    accuracy = extension.seed_accuracy(task, method, factor, steps)
    spans = [(1, length), (length + 1, factor * length), (factor * length + 1, extension.TEST_FACTOR * length)]
    means = [f"{np.mean([accuracy[n] for n in range(a, b + 1)]):.2f} on {a}…{b} digits" for a, b in spans
             if a <= b and all(n in accuracy for n in range(a, b + 1))]
    worst = min(accuracy, key=lambda n: (accuracy[n], n)) if accuracy else None
    lowest = f"; lowest {accuracy[worst]:.2f} at {worst} digits" if worst is not None else ""
    return (f"The seed-0 RoPE model of {task}, its rotation stretched by {extension.METHOD_LABELS[method]} to "
            f"{factor * length} digits and fine-tuned {steps} steps at 1…{factor * length}. Dashed square: the "
            f"{2 * length + 1} tokens of the longest training string ({length} digits); dotted: the "
            f"{2 * factor * length + 1} tokens of the stretched context ({factor * length} digits). Its exact match "
            f"({DEFAULT.examples} test strings a length, extension.jsonl): {', '.join(means) or 'not shipped'}{lowest}. Reproduced "
            "by `python -m posenc.lab regenerate-extension-maps`.")


CASE_NOTES = {True: "", False: " (not)", None: " (seeds overlap)"}
"""After a case's numbers: nothing where it holds, whether it fails or its seeds overlap (no finding)."""


@functools.cache
def claims_reading() -> str:
    """The papers' claims, each with its verdict and the numbers behind it (mean exact match over 1…F·L). Made
    once per process from the shipped numbers (it took ~20 ms a run)."""
    lines = []
    for checked in extension.check_claims():
        claim = checked["claim"]
        better, worse = (f"{extension.METHOD_LABELS[m]} at {s} steps" for m, s in (claim.better, claim.worse))
        numbers = "; ".join(f"{c['task']} ×{c['factor']}: {c['better']:.2f} vs {c['worse']:.2f}"
                            f"{CASE_NOTES[c['holds']]}" for c in checked["cases"])
        lines.append(f"- **{claim.statement}** ({claim.source}): **{checked['verdict']}**. {better} against "
                     f"{worse}, mean exact match over the stretched context 1…F·L: {numbers or 'no numbers'}.")
    lines.append(f"- A case holds when every seed's mean beats every seed's of the other ('matches' allows "
                 f"{extension.MATCH_TOLERANCE:.2f} below), fails when none does; where the seeds overlap it is no "
                 "finding at this scale.")
    return "\n".join(lines)
