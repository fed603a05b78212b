"""The pure progress rules: points, FSRS ratings, lapses, local days and streaks."""

from __future__ import annotations

from datetime import UTC, date, datetime

from fsrs import State

from bot.content.models import Label
from bot.progress.models import ReviewRating
from bot.progress.rules import (
    is_lapse,
    iso_week,
    item_value,
    local_date,
    points_gained,
    review_rating,
    streaks,
)


def rate(**overrides: object) -> ReviewRating:
    fields: dict[str, object] = {
        "label": Label.CORRECT,
        "verdict_correct": True,
        "first_try": False,
        "hint_used": False,
        "duration_ms": 30_000,
    }
    fields.update(overrides)
    return review_rating(**fields)  # type: ignore[arg-type]


def test_item_value_scales_score_by_difficulty() -> None:
    assert [item_value(1.0, d) for d in (1, 2, 3)] == [10, 20, 30]


def test_item_value_rounds_halves_up() -> None:
    assert item_value(0.25, 1) == 3


def test_points_gained_is_only_the_improvement_over_the_best() -> None:
    assert points_gained(10, 5) == 5


def test_points_gained_is_zero_when_not_improving() -> None:
    assert points_gained(5, 10) == 0


def test_wrong_verdict_rates_again_even_with_a_good_label() -> None:
    assert rate(verdict_correct=False, label=Label.PARTIAL) is ReviewRating.AGAIN


def test_incorrect_rates_again() -> None:
    assert rate(label=Label.INCORRECT, verdict_correct=None) is ReviewRating.AGAIN


def test_partial_rates_hard() -> None:
    assert rate(label=Label.PARTIAL) is ReviewRating.HARD


def test_correct_rates_good() -> None:
    assert rate() is ReviewRating.GOOD


def test_quick_correct_first_try_without_hint_rates_easy() -> None:
    assert rate(first_try=True) is ReviewRating.EASY


def test_correct_first_try_with_the_hint_is_only_good() -> None:
    assert rate(first_try=True, hint_used=True) is ReviewRating.GOOD


def test_slow_correct_first_try_is_only_good() -> None:
    assert rate(first_try=True, duration_ms=61_000) is ReviewRating.GOOD


def test_unknown_duration_is_never_easy() -> None:
    assert rate(first_try=True, duration_ms=None) is ReviewRating.GOOD


def test_again_on_a_learnt_card_is_a_lapse() -> None:
    assert is_lapse(State.Review, ReviewRating.AGAIN)


def test_again_while_still_learning_is_not_a_lapse() -> None:
    assert not is_lapse(State.Learning, ReviewRating.AGAIN)


def test_local_date_uses_the_time_zone() -> None:
    late_evening_utc = datetime(2025, 3, 3, 23, 30, tzinfo=UTC)
    assert local_date(late_evening_utc, "Europe/Berlin") == date(2025, 3, 4)


def test_iso_week_is_local_to_the_time_zone() -> None:
    sunday_night_utc = datetime(2025, 3, 9, 23, 30, tzinfo=UTC)
    assert iso_week(sunday_night_utc, "UTC") == "2025-W10"
    assert iso_week(sunday_night_utc, "Europe/Berlin") == "2025-W11"


def test_streak_counts_consecutive_days_ending_today() -> None:
    days = [date(2025, 3, 1), date(2025, 3, 2), date(2025, 3, 3)]
    assert streaks(days, today=date(2025, 3, 3)).current == 3


def test_streak_survives_until_today_is_over() -> None:
    days = [date(2025, 3, 1), date(2025, 3, 2)]
    assert streaks(days, today=date(2025, 3, 3)).current == 2


def test_streak_breaks_after_a_missed_day() -> None:
    days = [date(2025, 3, 1), date(2025, 3, 2)]
    assert streaks(days, today=date(2025, 3, 4)).current == 0


def test_best_streak_is_the_longest_run() -> None:
    days = [date(2025, 3, d) for d in (1, 2, 3, 4, 7, 8)]
    assert streaks(days, today=date(2025, 3, 8)).best == 4


def test_no_days_means_no_streak() -> None:
    assert streaks([], today=date(2025, 3, 8)).model_dump() == {"current": 0, "best": 0}
