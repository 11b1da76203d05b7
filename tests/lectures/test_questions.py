"""Questions in lecture files: the Question API (answers normalized, judged, refused in one sentence), the
measures that compute right answers (each against an independent formula or module), the checker on every
kind of bad question, the shipped questions, and question_of."""

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc import lectures
from posenc.lab.results import summarize
from posenc.lectures import measures
from posenc.lectures.__main__ import main
from posenc.lectures.question import Question, read_question

CHOICE = Question("Which?", "choice", ("a", "b", "c"), "2", 0.0, "", "given in the file")
NUMBER = Question("How many?", "number", (), repr(54410.14), 100.0, "positions", "given in the file")

HEAD = """title = "A lecture"

[[slide]]
title = "One"
view = "rotation?k=5"
"""


def write(tmp_path: Path, question: str, name: str = "mine.toml") -> Path:
    path = tmp_path / name
    path.write_text(HEAD + "\n[slide.question]\n" + question, encoding="utf-8")
    return path


def one_sentence(message: str) -> bool:
    return bool(message) and message.endswith(".") and "\n" not in message


# --- the Question API ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "normalized"), [("0", "0"), ("2", "2"), (" 1 ", "1")])
def test_a_choice_answer_is_a_choice_s_index(value, normalized):
    assert CHOICE.accepts(value) == normalized
    assert CHOICE.is_right(normalized) is (normalized == "2")


@pytest.mark.parametrize("value", ["3", "-1", "01", "1.0", "b", "", " ", "２", "0x1", "1 2"])
def test_anything_else_is_not_a_choice(value):
    with pytest.raises(ValueError, match=r"^An answer to this question is a choice's number, 0 to 2\.$"):
        CHOICE.accepts(value)


@pytest.mark.parametrize(("value", "normalized"), [
    ("54410.14", "54410.14"), ("54400", "54400.0"), (" 5.4e4 ", "54000.0"), ("-0", "-0.0"), ("1E3", "1000.0"),
])
def test_a_number_answer_is_normalized_as_repr_of_its_float(value, normalized):
    assert NUMBER.accepts(value) == normalized


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "1e400", "54,410", "54 410", "1_000", "", "12 positions",
                                   "0x10", "½"])
def test_anything_else_is_not_a_number(value):
    with pytest.raises(ValueError, match=r"^An answer to this question is a finite number") as error:
        NUMBER.accepts(value)
    assert one_sentence(str(error.value))


def test_a_number_is_right_within_its_tolerance_inclusive():
    assert NUMBER.is_right("54410.14") and NUMBER.is_right("54310.14") and NUMBER.is_right("54510.14")
    assert not NUMBER.is_right("54510.2") and not NUMBER.is_right("0")
    exact = Question("q", "number", (), "64.0", 0.0, "", "given in the file")
    assert exact.is_right("64") and exact.is_right("64.0") and exact.is_right("6.4e1") and not exact.is_right("64.0001")


def test_long_and_non_text_answers_are_refused_in_one_sentence():
    for question in (CHOICE, NUMBER):
        with pytest.raises(ValueError, match=r"^An answer is at most 64 characters; got 65\.$"):
            question.accepts("1" * 65)
        for value in (1, 1.0, None, b"1", ["1"]):
            with pytest.raises(ValueError, match=r"^An answer is text; got \w+\.$"):
                question.accepts(value)
    assert NUMBER.accepts("1" * 64) == repr(float("1" * 64))


@given(st.one_of(st.text(max_size=80), st.text(alphabet="0123456789.,-+eE _infa", max_size=20)))
def test_random_text_is_an_answer_or_a_one_sentence_value_error(text):
    for question in (CHOICE, NUMBER):
        try:
            normalized = question.accepts(text)
        except ValueError as error:
            assert type(error) is ValueError and one_sentence(str(error)), str(error)
            with pytest.raises(ValueError):
                question.is_right(text)
            continue
        assert question.accepts(normalized) == normalized  # normalizing is idempotent
        assert isinstance(question.is_right(normalized), bool)
        if question.kind == "number":
            assert math.isfinite(float(normalized)) and normalized == repr(float(normalized))
        else:
            assert normalized in {"0", "1", "2"}


def test_the_revealed_answer_is_the_choice_s_text_or_the_number_with_its_unit():
    assert CHOICE.answer == "c"
    assert NUMBER.answer == "54,410.1 positions (± 100)"
    assert Question("q", "number", (), "13.3", 5.0, "%", "x").answer == "13.3% (± 5)"


@pytest.mark.parametrize("fields", [
    ("", "choice", ("a", "b"), "0", 0.0, "", "x"),
    ("q", "choice", ("a",), "0", 0.0, "", "x"),
    ("q", "choice", tuple("abcdefg"), "0", 0.0, "", "x"),
    ("q", "choice", ("a", "b"), "2", 0.0, "", "x"),
    ("q", "choice", ("a", "b"), "0", 1.0, "", "x"),
    ("q", "number", ("a", "b"), "1.0", 0.0, "", "x"),
    ("q", "number", (), "1", 0.0, "", "x"),
    ("q", "number", (), "nan", 0.0, "", "x"),
    ("q", "number", (), "1.0", -1.0, "", "x"),
    ("q", "number", (), "1.0", math.inf, "", "x"),
    ("q", "free", (), "1.0", 0.0, "", "x"),
])
def test_a_question_that_cannot_be_answered_is_not_made(fields):
    with pytest.raises(ValueError):
        Question(*fields)


# --- the measures ----------------------------------------------------------------------------------------

def test_wavelength_is_2_pi_n_to_the_2i_over_d():
    for d_model, n, pair in [(128, 10000, 63), (128, 10000, 0), (64, 500000.0, 17), (512, 10000, 100)]:
        value, tolerance, unit, sentence = measures.measure("wavelength", d_model=d_model, n=n, pair=pair)
        assert value == pytest.approx(2 * math.pi * n ** (2 * pair / d_model), rel=1e-12)
        assert tolerance == pytest.approx(0.05 * value) and unit == "positions" and one_sentence(sentence)
    assert measures.measure("wavelength").value == pytest.approx(2 * math.pi * 10000 ** (126 / 128))  # the last
    assert measures.measure("wavelength", pair=0).value == pytest.approx(2 * math.pi)


def test_rope_theta_is_n_to_the_minus_2i_over_d():
    value, _, unit, _ = measures.measure("rope_theta", d=64, n=10000, pair=16)
    assert value == pytest.approx(10000 ** (-32 / 64), rel=1e-12) and value == pytest.approx(0.01)
    assert unit == "radians per position"


@pytest.mark.parametrize(("d_model", "offset"), [(128, 0), (128, 1), (64, 37), (16, 1000)])
def test_similarity_is_the_sum_of_cosines_of_the_offset(d_model, offset):
    theta = 10000.0 ** (-2 * np.arange(d_model // 2) / d_model)
    value, tolerance, _, _ = measures.measure("similarity", d_model=d_model, offset=offset)
    assert value == pytest.approx(float(np.cos(offset * theta).sum()), abs=1e-9)
    assert tolerance == pytest.approx(0.01 * d_model / 2)
    if offset == 0:
        assert value == pytest.approx(d_model / 2)


@pytest.mark.parametrize("factor", [2.0, 8.0, 32.0])
def test_yarn_s_attention_factor_is_0_1_ln_s_plus_1(factor):
    value, tolerance, _, _ = measures.measure("attention_factor", rope_type="yarn", factor=factor,
                                              original_max_position_embeddings=4096)
    assert value == pytest.approx(0.1 * math.log(factor) + 1, rel=1e-12) and tolerance == 0.005


def _llama3_first_disagreement() -> int:
    """Llama 3.1 8B's config (head_dim 128, rope_theta 500,000, llama3: factor 8, low 1, high 4, original 8,192),
    its frequencies by Meta's apply_scaling, and one seeded q and k rotated as HF's half layout: the first
    whole distance where the scores with and without the scaling differ by more than 1% of |q|·|k|."""
    d, base, factor, low, high, original = 128, 500000.0, 8.0, 1.0, 4.0, 8192
    plain = base ** (-np.arange(0, d, 2) / d)
    wavelength = 2 * np.pi / plain
    smooth = (original / wavelength - low) / (high - low)
    scaled = np.where(wavelength < original / high, plain,
                      np.where(wavelength > original / low, plain / factor,
                               (1 - smooth) * plain / factor + smooth * plain))
    q, k = np.random.default_rng(0).standard_normal((2, d))
    qa, qb, ka, kb = q[: d // 2], q[d // 2:], k[: d // 2], k[d // 2:]
    delta = np.arange(65536)[:, None]

    def score(theta):  # q rotated by (m + Δ)θ, k by mθ: Σ (qa·ka + qb·kb)·cos(Δθ) + (qa·kb − qb·ka)·sin(Δθ)
        return ((qa * ka + qb * kb) * np.cos(delta * theta) + (qa * kb - qb * ka) * np.sin(delta * theta)).sum(1)

    apart = np.abs(score(scaled) - score(plain)) > 0.01 * np.linalg.norm(q) * np.linalg.norm(k)
    return int(np.argmax(apart))


def test_a_dropped_llama3_scaling_disagrees_first_where_meta_s_formula_says():
    value, tolerance, unit, sentence = measures.measure("dropped_scaling", model="llama-3.1-8b")
    assert value == _llama3_first_disagreement() == 755
    assert tolerance == pytest.approx(75.5) and unit == "tokens" and "Llama 3.1 8B" in sentence


def test_the_lab_s_exact_match_is_the_lab_s_own_summary_for_every_task_scheme_and_length():
    summary = summarize()
    assert summary
    for task, schemes in summary.items():
        for scheme, lengths in schemes.items():
            for length, row in lengths.items():
                value, tolerance, unit, _ = measures.measure("lab_exact_match", task=task, scheme=scheme, length=length)
                assert value == pytest.approx(100 * row["mean"], abs=1e-9), (task, scheme, length)
                assert (tolerance, unit) == (5.0, "%")


@pytest.mark.parametrize(("offset", "bucket"), [(0, 0), (3, 19), (-3, 3), (-10, 8), (-200, 15), (200, 31), (-7, 7)])
def test_t5_s_bucket_is_hf_s(offset, bucket):
    """bidirectional, 32 buckets, max_distance 128: B = 16, e = 8, n = |r|, bucket = 16·[r > 0] + n if n < 8,
    else + min(15, 8 + ⌊ln(n/8)/ln(16)·8⌋)."""
    assert measures.measure("t5_bucket", offset=offset) == (float(bucket), 0.0, "", measures.t5_bucket(offset).sentence)


@pytest.mark.parametrize(("name", "arguments", "message"), [
    ("nosuch", {}, "there is no measure 'nosuch'; the measures are wavelength, "),
    ("wavelength", {"d": 128}, "the measure 'wavelength' takes d_model, n, pair; missing nothing, unexpected d."),
    ("lab_exact_match", {"task": "copy"}, "missing scheme, length, unexpected nothing."),
    ("wavelength", {"pair": 64}, "pair must be at most 63"),
    ("wavelength", {"d_model": "128"}, "d_model must be a whole number"),
    ("wavelength", {"n": True}, "n must be a positive number"),
    ("attention_factor", {"rope_type": "yarn", "factor": 8.0, "nope": 1}, "unexpected ['nope']"),
    ("attention_factor", {"rope_type": "spiral"}, "rope_type"),
    ("dropped_scaling", {"model": "gpt2"}, "GPT-2 (124M) rotates no query or key"),
    ("dropped_scaling", {"model": "qwen3-8b"}, "nothing to drop"),
    ("dropped_scaling", {"model": "llama-9"}, "Unknown model 'llama-9'"),
    ("dropped_scaling", {"model": 8}, "model must be a preset's name"),
    ("lab_exact_match", {"task": "sort", "scheme": "rope", "length": 9}, "the lab has no task 'sort'"),
    ("lab_exact_match", {"task": "copy", "scheme": "rope", "length": 25}, "length must be at most 24"),
    ("lab_exact_match", {"task": "copy", "scheme": "ropee", "length": 9}, "the lab has no scheme 'ropee' on copy"),
    ("t5_bucket", {"offset": 1, "bidirectional": "yes"}, "bidirectional must be true or false"),
    ("similarity", {"offset": -1}, "offset must be at least 0"),
])
def test_a_bad_measure_is_a_value_error_of_one_sentence(name, arguments, message):
    with pytest.raises(ValueError) as error:
        measures.measure(name, **arguments)
    assert message in str(error.value) and one_sentence(str(error.value)), str(error.value)


def test_measures_are_cached_but_not_across_types():
    assert measures.measure("wavelength", pair=1) is measures.measure("wavelength", pair=1)
    with pytest.raises(ValueError, match="not a bool"):
        measures.measure("wavelength", pair=True)


# --- questions in files, and the checker -----------------------------------------------------------------

def test_the_three_ways_to_write_a_question(tmp_path):
    choice = lectures.read(write(tmp_path, 'text = " Which? "\nchoices = ["a", "b"]\nanswer = 1\n')).slides[0]
    assert choice.question == Question("Which?", "choice", ("a", "b"), "1", 0.0, "", "given in the file")
    number = lectures.read(write(tmp_path, 'text = "n?"\nanswer = 64\ntolerance = 0.5\nunit = "dims"\n')).slides[0]
    assert number.question == Question("n?", "number", (), "64.0", 0.5, "dims", "given in the file")
    exact = lectures.read(write(tmp_path, 'text = "n?"\nanswer = 1.5\n')).slides[0].question
    assert (exact.correct, exact.tolerance, exact.unit) == ("1.5", 0.0, "")
    measured = lectures.read(write(tmp_path, 'text = "λ?"\nmeasure = "wavelength"\nd_model = 128\npair = 63\n'))
    question = measured.slides[0].question
    assert question.kind == "number" and float(question.correct) == pytest.approx(2 * math.pi * 10000 ** (126 / 128))
    assert question.source.startswith("The wavelength of pair 63") and question.unit == "positions"
    overridden = lectures.read(write(tmp_path, 'text = "λ?"\nmeasure = "wavelength"\ntolerance = 1000\n'))
    assert overridden.slides[0].question.tolerance == 1000.0
    empty = lectures.read(write(tmp_path, "")).slides[0]
    assert empty.question is None and "its question has no text (text = \"…\")." in empty.question_problems
    plain = lectures.read(lectures.FILES / "sinusoidal.toml").slides[0]
    assert plain.question is None and plain.question_problems == ()


@pytest.mark.parametrize(("question", "problem"), [
    ('choices = ["a", "b"]\nanswer = 0\n', "its question has no text (text = \"…\")"),
    ('text = "  "\nanswer = 1\n', "its question has no text"),
    ('text = "q"\nchoices = ["a"]\nanswer = 0\n', "its question has 1 choices; a question has 2 to 6"),
    ('text = "q"\nchoices = ["a", "b", "c", "d", "e", "f", "g"]\nanswer = 0\n', "has 7 choices; a question has 2 to 6"),
    ('text = "q"\nchoices = ["a", ""]\nanswer = 0\n', "choices must be a list of non-empty texts"),
    ('text = "q"\nchoices = "a, b"\nanswer = 0\n', "choices must be a list of non-empty texts"),
    ('text = "q"\nchoices = ["a", "b"]\nanswer = 2\n', "its question's answer 2 is not a choice's index (0 to 1)"),
    ('text = "q"\nchoices = ["a", "b"]\nanswer = -1\n', "answer -1 is not a choice's index"),
    ('text = "q"\nchoices = ["a", "b"]\nanswer = "b"\n', "answer must be the 0-based index of the right choice; got 'b'"),
    ('text = "q"\nchoices = ["a", "b"]\nanswer = 1.0\n', "answer must be the 0-based index"),
    ('text = "q"\nchoices = ["a", "b"]\n', "its question has no answer (answer = the 0-based index"),
    ('text = "q"\nchoices = ["a", "b"]\nanswer = 0\ntolerance = 1\n',
     "its question has 'tolerance', which a choice question does not take (it takes text, choices, answer)"),
    ('text = "q"\n', "its question has no answer: give choices and the right one's index"),
    ('text = "q"\nanswer = nan\n', "its question's answer must be a finite number; got nan"),
    ('text = "q"\nanswer = inf\ntolerance = 1\n', "answer must be a finite number; got inf"),
    ('text = "q"\nanswer = "64"\n', "answer must be a finite number; got '64'"),
    ('text = "q"\nanswer = 64\ntolerance = -1\n', "tolerance must be a finite number of at least 0; got -1"),
    ('text = "q"\nanswer = 64\ntolerance = inf\n', "tolerance must be a finite number of at least 0; got inf"),
    ('text = "q"\nanswer = 64\ntolerance = true\n', "tolerance must be a finite number of at least 0; got True"),
    ('text = "q"\nanswer = 64\nunit = 3\n', "its question's unit must be text; got 3"),
    ('text = "q"\nanswer = 64\nhint = "x"\n', "its question has 'hint', which a number question does not take"),
    ('text = "q"\nmeasure = "wavelenght"\n', "its question's measure 'wavelenght' is not one of wavelength, "),
    ('text = "q"\nmeasure = 3\n', "its question's measure 3 is not one of"),
    ('text = "q"\nmeasure = "wavelength"\npair = 64\n',
     "its question's measure 'wavelength' cannot be computed: pair must be at most 63"),
    ('text = "q"\nmeasure = "wavelength"\nhint = 1\n',
     "cannot be computed: the measure 'wavelength' takes d_model, n, pair; missing nothing, unexpected hint"),
    ('text = "q"\nmeasure = "dropped_scaling"\nmodel = "gpt2"\n', "GPT-2 (124M) rotates no query or key"),
    ('text = "q"\nmeasure = "wavelength"\nanswer = 6\n', "its question has 'answer', but a measure computes it"),
    ('text = "q"\nmeasure = "wavelength"\nchoices = ["a", "b"]\n', "has 'choices', but a measure computes it"),
    ('text = "q"\nmeasure = "wavelength"\nunit = "x"\n', "has 'unit', which a measured question does not take"),
    ('text = "q"\nmeasure = "wavelength"\ntolerance = -2\n', "tolerance must be a finite number of at least 0"),
])
def test_every_bad_question_is_named_with_the_file_and_the_slide(tmp_path, question, problem):
    lecture = lectures.read(write(tmp_path, question))
    assert lecture.slides[0].question is None
    found = lectures.problems(lecture)
    assert found and all(line.startswith("mine.toml, slide 1 (One): ") for line in found)
    assert any(problem in line for line in found), found
    assert all("\n" not in line for line in found)


def test_a_question_that_is_not_a_table_is_named(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(HEAD + 'question = "What?"\n', encoding="utf-8")
    assert lectures.problems(lectures.read(path)) == [
        "mine.toml, slide 1 (One): its question must be a table ([slide.question] with text = …); got 'What?'"]
    assert read_question([1, 2]) == (None, ("its question must be a table ([slide.question] with text = …); "
                                            "got [1, 2].",))


def test_the_command_checks_questions(tmp_path, capsys):
    good = write(tmp_path, 'text = "q"\nchoices = ["a", "b"]\nanswer = 1\n', "good.toml")
    bad = write(tmp_path, 'text = "q"\nchoices = ["a", "b"]\nanswer = 5\n', "bad.toml")
    assert main(["check", str(good)]) == 0
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["good.toml: 1 slides, no problem",
                   "bad.toml, slide 1 (One): its question's answer 5 is not a choice's index (0 to 1)"]


# --- the shipped questions and question_of --------------------------------------------------------------

SHIPPED = {
    ("sinusoidal", 2): ("choice", "1"),
    ("sinusoidal", 3): ("number", repr(float(2 * math.pi * 10000 ** (126 / 128)))),
    ("sinusoidal", 7): ("choice", "1"),
    ("sinusoidal", 9): ("number", "64.0"),
    ("rope-to-128k", 2): ("choice", "0"),
    ("rope-to-128k", 6): ("number", repr(0.1 * math.log(8) + 1)),
    ("rope-to-128k", 7): ("number", "755.0"),
    ("rope-to-128k", 11): ("number", repr(100 * summarize()["copy"]["alibi"][12]["mean"])),
}


def test_every_shipped_question_checks_clean_and_is_right_by_posenc_s_numbers():
    for name in lectures.names():
        lecture = lectures.load(name)
        assert lectures.problems(lecture) == []
        asked = {(name, number): slide.question for number, slide in enumerate(lecture.slides, start=1)
                 if slide.question is not None}
        assert len(asked) >= 3
        assert any(q.source != "given in the file" for q in asked.values())  # at least one measured
        assert all(not slide.question_problems for slide in lecture.slides)
        for key, question in asked.items():
            kind, correct = SHIPPED[key]
            assert question.kind == kind
            if kind == "choice":
                assert question.correct == correct
            else:
                assert float(question.correct) == pytest.approx(float(correct), rel=1e-12)
                assert question.is_right(question.correct) and question.tolerance > 0
    assert len(SHIPPED) == sum(slide.question is not None for name in lectures.names()
                               for slide in lectures.load(name).slides)


def test_question_of_gives_a_slide_s_question_cached():
    assert lectures.question_of("sinusoidal", 1) is None
    question = lectures.question_of("sinusoidal", 2)
    assert question.kind == "choice" and question.choices[int(question.correct)].startswith("(0, 1, 0, 1")
    assert lectures.question_of("sinusoidal", 2) is question
    assert lectures.question_of("rope-to-128k", 7).correct == "755.0"
    assert lectures.question_of("sinusoidal", 12) is None


@pytest.mark.parametrize(("name", "slide", "message"), [
    ("nosuch", 1, "there is no lecture 'nosuch'; the lectures are rope-to-128k, sinusoidal."),
    ("../etc/passwd", 1, "there is no lecture"),
    ("sinusoidal", 0, "sinusoidal has slides 1 to 12; got 0."),
    ("sinusoidal", 13, "sinusoidal has slides 1 to 12; got 13."),
    ("sinusoidal", "2", "sinusoidal has slides 1 to 12; got '2'."),
    ("sinusoidal", True, "got True"),
    (None, 1, "a lecture's name is text"),
])
def test_question_of_refuses_an_unknown_lecture_or_slide(name, slide, message):
    with pytest.raises(ValueError) as error:
        lectures.question_of(name, slide)
    assert message in str(error.value)


def test_question_of_reads_the_lectures_directory(tmp_path, monkeypatch):
    (tmp_path / "own.toml").write_text(HEAD + '[slide.question]\ntext = "q"\nanswer = 3\ntolerance = 1\n')
    monkeypatch.setattr(lectures.lecture, "FILES", tmp_path)
    assert lectures.question_of("own", 1).correct == "3.0"
    with pytest.raises(ValueError, match="the lectures are own"):
        lectures.question_of("sinusoidal", 1)
