"""posenc.figures.answers: one bar per choice, the right one marked only after the reveal, labels kept legible."""

from posenc.figures.answers import OTHER, RIGHT, answer_counts


def test_bars_count_and_the_reveal_marks_the_right_answer():
    before = answer_counts(["a", "b", "c"], [2, 0, 5], None, title="Answers")
    bar = before.data[0]
    assert list(bar.x) == [2, 0, 5] and list(bar.y) == ["a", "b", "c"] and len(set(bar.marker.color)) == 1
    assert before.layout.title.text == "Answers (7 answers)"
    after = answer_counts(["a", "b", "c"], [2, 0, 5], [False, True, False], title="Answers")
    assert list(after.data[0].y) == ["a", "✓ b", "c"]
    assert list(after.data[0].marker.color) == [OTHER, RIGHT, OTHER]


def test_labels_of_several_lines_make_the_chart_taller():
    one = answer_counts(["a", "b"], [1, 1], None, title="t")
    two = answer_counts(["a<br>b", "c<br>d"], [1, 1], None, title="t")
    assert two.layout.height > one.layout.height
    assert answer_counts(["a"], [1], None, title="t").layout.title.text == "t (1 answer)"
