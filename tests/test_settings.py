"""Settings: environment with the TUTOR_ prefix, safe defaults, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.cli import main
from bot.settings import SandboxEndpoint, TutorSettings


def _settings(**env: str) -> TutorSettings:
    return TutorSettings(_env_file=None)  # type: ignore[call-arg]


def test_defaults_need_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TUTOR_DISCORD_TOKEN", raising=False)
    settings = _settings()
    assert settings.discord_token is None
    assert settings.database_path == Path("data/tutor.db")
    assert settings.content_dir == Path("content")
    assert settings.drop_grace.total_seconds() == 3 * 3600


def test_variables_use_the_tutor_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_DEV_GUILD_ID", "123")
    monkeypatch.setenv("TUTOR_SANDBOX_ADDRESS", "unix:/run/sandbox.sock")
    monkeypatch.setenv("TUTOR_RUN_COOLDOWN_S", "5")
    settings = _settings()
    assert settings.dev_guild_id == 123
    assert settings.sandbox_address == "unix:/run/sandbox.sock"
    assert settings.run_cooldown_s == 5


def test_the_token_never_appears_in_repr_or_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_DISCORD_TOKEN", "MTIz.secret.token")
    settings = _settings()
    assert "secret" not in repr(settings)
    assert "secret" not in str(settings.model_dump())
    assert settings.discord_token is not None
    assert settings.discord_token.get_secret_value() == "MTIz.secret.token"


def test_a_bad_sandbox_address_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_ADDRESS", "tcp://sandbox")
    with pytest.raises(ValidationError, match="sandbox_address must be local, unix:"):
        _settings()


def test_the_default_sandbox_address_starts_a_local_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TUTOR_SANDBOX_ADDRESS", raising=False)
    assert _settings().sandbox_endpoint == SandboxEndpoint(kind="local")


@pytest.mark.parametrize(
    ("address", "endpoint"),
    [
        ("local", SandboxEndpoint(kind="local")),
        ("unix:/run/s.sock", SandboxEndpoint(kind="unix", unix_path=Path("/run/s.sock"))),
        ("http://sandbox:8060", SandboxEndpoint(kind="http", url="http://sandbox:8060")),
    ],
)
def test_each_sandbox_address_form_is_parsed(
    monkeypatch: pytest.MonkeyPatch, address: str, endpoint: SandboxEndpoint
) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_ADDRESS", address)
    assert _settings().sandbox_endpoint == endpoint


def test_the_progress_store_options_are_read_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_ANSWER_RETENTION_DAYS", "0")
    monkeypatch.setenv("TUTOR_DB_BUSY_TIMEOUT_S", "2.5")
    monkeypatch.setenv("TUTOR_DB_SYNCHRONOUS", "FULL")
    settings = _settings()
    assert settings.answer_retention_days == 0
    assert settings.db_busy_timeout_s == 2.5
    assert settings.db_synchronous == "FULL"


def test_tutor_bot_names_the_bad_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("TUTOR_DISCORD_TOKEN", "x")
    monkeypatch.setenv("TUTOR_DROP_TICK_S", "0")
    assert main(["bot"]) == 2
    assert capsys.readouterr().err.strip() == (
        "tutor bot: TUTOR_DROP_TICK_S: Input should be greater than or equal to 1"
    )


def test_tutor_bot_without_a_token_says_where_to_put_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TUTOR_DISCORD_TOKEN", raising=False)
    assert main(["bot"]) == 2
    assert capsys.readouterr().err.startswith("tutor bot: TUTOR_DISCORD_TOKEN is not set")


def test_a_database_path_in_a_missing_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "typo" / "tutor.db"))
    with pytest.raises(ValidationError) as refused:
        _settings()
    assert "typo' does not exist" in str(refused.value)
    assert not (tmp_path / "typo").exists()


def test_a_database_path_under_a_file_is_refused_as_not_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "afile").write_text("")
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "afile" / "tutor.db"))
    with pytest.raises(ValidationError) as refused:
        _settings()
    assert "afile' is not a directory" in str(refused.value)


def test_the_default_database_path_is_accepted_before_data_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_DATABASE_PATH", "data/tutor.db")
    assert _settings().database_path == Path("data/tutor.db")


def test_a_database_path_in_an_existing_directory_is_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "new.db"))
    assert _settings().database_path == tmp_path / "new.db"


def test_tutor_health_names_a_database_path_in_a_missing_directory_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "typo" / "tutor.db"))
    assert main(["health", "--check", "database"]) == 2
    assert capsys.readouterr().err.startswith("tutor health: TUTOR_DATABASE_PATH: ")


@pytest.mark.parametrize("typed", ["debug", "Debug", " DEBUG "])
def test_the_log_level_is_accepted_in_any_case(typed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_LOG_LEVEL", typed)
    assert _settings().log_level == "DEBUG"
