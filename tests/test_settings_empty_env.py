"""A ``TUTOR_*`` variable set empty in the environment means the default, over ``.env``.

README: the environment wins over ``.env``, and ``NAME=`` with no value means the default.
pydantic-settings' ``env_ignore_empty`` dropped the empty variable only from the
environment's values, so ``.env`` then gave the name: with ``TUTOR_DATABASE_PATH=/tmp/a.db``
in ``.env``, ``TUTOR_DATABASE_PATH= tutor stats`` read ``/tmp/a.db`` "(from
TUTOR_DATABASE_PATH)" (fresh22 #9). Both rules now hold, for every setting.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from pydantic import ValidationError
from pydantic_settings import BaseSettings, SettingsError

from bot.cli import main
from bot.progress.settings import ProgressSettings
from bot.settings import (
    ContentSettings,
    PlayLearnerSettings,
    SyncSettings,
    TutorBaseSettings,
    TutorSettings,
)
from sandbox.settings import SandboxSettings, sandbox_environment
from tests.cli.test_empty_paths import EMPTY_VARIABLE_DEFAULT, stats_error
from tests.progress.conftest import ALICE

SETTINGS_CLASSES = [
    TutorSettings,
    ProgressSettings,
    PlayLearnerSettings,
    ContentSettings,
    SyncSettings,
    SandboxSettings,
]
"""Every ``TUTOR_*`` settings class (checked against the code below)."""

EVERY_SETTING = [
    pytest.param(cls, field, id=f"{cls.__name__}.{field}")
    for cls in SETTINGS_CLASSES
    for field in cls.model_fields
]


@pytest.fixture
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory, and no ``TUTOR_*`` variable in the environment."""
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.upper().startswith("TUTOR_")]:
        monkeypatch.delenv(name)
    return tmp_path


def _variable(cls: type[BaseSettings], field: str) -> str:
    return str(cls.model_config.get("env_prefix") or "") + field.upper()


def test_every_settings_class_is_a_tutor_one() -> None:
    """A new settings class must take the rule too: every ``BaseSettings`` of the project
    derives from :class:`TutorBaseSettings` and is listed above."""
    for module in ("bot.settings", "bot.progress.settings", "sandbox.settings"):
        importlib.import_module(module)
    found: set[type] = set()
    pending = list(BaseSettings.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith(("bot.", "sandbox.")) and cls is not TutorBaseSettings:
            found.add(cls)
    assert found == set(SETTINGS_CLASSES)
    assert all(issubclass(cls, TutorBaseSettings) for cls in found)


@pytest.mark.parametrize(("cls", "field"), EVERY_SETTING)
def test_an_empty_variable_hides_the_dot_env_value(
    cls: type[BaseSettings], field: str, clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``.env`` gives a value (valid or not: either way it would show); the environment sets
    the name empty: the setting is the default and ``.env`` is not read for it."""
    name = _variable(cls, field)
    (clean / ".env").write_text(f"{name}=x\n")
    # Control: without the variable, .env's value is read (and taken, or refused).
    try:
        read = field in cls().model_fields_set
    except ValidationError as refused:
        read = field in {str(err["loc"][0]) for err in refused.errors()}
    except SettingsError:  # a list value that is not JSON
        read = True
    assert read
    monkeypatch.setenv(name, "")
    settings = cls()
    assert field not in settings.model_fields_set
    default = cls.model_fields[field].get_default(call_default_factory=True)
    assert getattr(settings, field) == default


def test_an_empty_value_in_dot_env_is_still_the_default(clean: Path) -> None:
    (clean / ".env").write_text("TUTOR_DATABASE_PATH=\nTUTOR_DROP_TICK_S=\n")
    settings = TutorSettings()
    assert settings.database_path == Path("data/tutor.db")
    assert settings.drop_tick_s == 30.0


def test_a_value_in_the_environment_still_wins(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (clean / ".env").write_text("TUTOR_DROP_TICK_S=5\nTUTOR_RUN_COOLDOWN_S=7\n")
    monkeypatch.setenv("TUTOR_DROP_TICK_S", "9")
    settings = TutorSettings()
    assert (settings.drop_tick_s, settings.run_cooldown_s) == (9.0, 7.0)


def test_stats_reads_the_default_database_and_says_the_environment_chose_it(
    clean: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The finding, through the CLI: ``TUTOR_DATABASE_PATH= tutor stats`` with a path in
    ``.env``."""
    (clean / ".env").write_text(f"TUTOR_DATABASE_PATH={clean / 'f22a.db'}\n")
    assert main(["stats", "--learner", str(ALICE)]) == 1
    err = capsys.readouterr().err
    assert f"tutor stats: database {clean / 'f22a.db'} (from TUTOR_DATABASE_PATH in .env)" in err

    monkeypatch.setenv("TUTOR_DATABASE_PATH", "")
    err = stats_error(capsys)
    assert EMPTY_VARIABLE_DEFAULT in err
    assert "f22a.db" not in err

    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(clean / "env.db"))
    assert main(["stats", "--learner", str(ALICE)]) == 1
    err = capsys.readouterr().err
    assert f"database {clean / 'env.db'} (from TUTOR_DATABASE_PATH in the environment)" in err


def test_an_empty_learner_variable_is_the_default_learner_in_stats(
    clean: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``TUTOR_PLAY_LEARNER_ID=bad`` in ``.env`` would stop ``tutor stats`` (exit 2); set
    empty in the environment it is the default learner, and stats goes on."""
    (clean / ".env").write_text("TUTOR_PLAY_LEARNER_ID=bad\n")
    assert main(["stats"]) == 2
    assert "TUTOR_PLAY_LEARNER_ID" in capsys.readouterr().err
    monkeypatch.setenv("TUTOR_PLAY_LEARNER_ID", "")
    assert main(["stats"]) == 1  # no database here: but the learner was accepted
    assert "no progress database at data/tutor.db" in capsys.readouterr().err


def test_a_local_worker_is_handed_the_empty_variable(clean: Path) -> None:
    """The worker reads ``.env`` in its own working directory too: it is handed the empty
    variable so it takes the default as well, not the file's value."""
    (clean / ".env").write_text("TUTOR_SANDBOX_WALL_S=1\nTUTOR_SANDBOX_PIDS=40\n")
    environ = {"TUTOR_SANDBOX_WALL_S": ""}
    assert sandbox_environment(environ) == {
        "TUTOR_SANDBOX_WALL_S": "",
        "TUTOR_SANDBOX_PIDS": "40",
    }
