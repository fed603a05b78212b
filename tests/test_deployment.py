"""The deployment files stay true: docker-compose.yml, the Dockerfiles, .env.example, README.

Images cannot be built on these machines (no Docker engine, no registry), so the files are
checked statically: structure and settings of the compose file, pinned base images, non-root
users, files copied that exist, commands that exist, no torch in the bot image, and every
variable of the settings classes listed with its real default in .env.example and the
README's configuration table.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic_settings import BaseSettings

from bot.cli import build_parser
from bot.settings import TutorSettings
from sandbox.settings import SandboxSettings
from tests.conftest import ROOT

SETTINGS: list[tuple[str, type[BaseSettings]]] = [
    ("TUTOR_", TutorSettings),
    ("TUTOR_SANDBOX_", SandboxSettings),
]
ENV_LINE = re.compile(r"^(?:# )?(TUTOR_[A-Z0-9_]+)=(.*)$")
INTERPOLATION = re.compile(r"^\$\{(TUTOR_[A-Z0-9_]+):-(.*)\}$")


def _shown(value: object) -> str:
    """A default as a person writes it in an env file (``15.0`` -> ``15``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return json.dumps([str(v) for v in value])
    return str(value)


def settings_defaults() -> dict[str, str]:
    """Every environment variable the settings classes read, with its default as text."""
    defaults: dict[str, str] = {}
    for prefix, cls in SETTINGS:
        for name, field in cls.model_fields.items():
            value = field.get_default(call_default_factory=True)
            defaults[prefix + name.upper()] = _shown(value)
    return defaults


def env_example() -> dict[str, str]:
    lines = (ROOT / ".env.example").read_text().splitlines()
    found = [m.groups() for line in lines if (m := ENV_LINE.match(line))]
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), "a variable is listed twice"
    return dict(found)


def readme_table() -> dict[str, str]:
    """The README's configuration table: variable -> default (backticks removed)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(TUTOR_[A-Z0-9_]+)` \| ([^|]*) \|", section, re.MULTILINE)
    names = [name for name, _ in rows]
    assert len(names) == len(set(names)), "a variable is listed twice"
    return {name: default.strip().strip("`") for name, default in rows}


def test_env_example_lists_every_variable_and_no_other() -> None:
    assert sorted(env_example()) == sorted(settings_defaults())


def test_env_example_shows_the_real_defaults() -> None:
    defaults = settings_defaults()
    for name, shown in env_example().items():
        if name != "TUTOR_DISCORD_TOKEN":
            assert shown == defaults[name], name


def test_env_example_loads_as_an_env_file_without_changing_a_default() -> None:
    path = ROOT / ".env.example"
    assert TutorSettings(_env_file=path) == TutorSettings(_env_file=None)  # type: ignore[call-arg]
    loaded = SandboxSettings(_env_file=path)  # type: ignore[call-arg]
    assert loaded == SandboxSettings(_env_file=None)  # type: ignore[call-arg]


def test_the_readme_table_lists_every_variable_with_its_default() -> None:
    table = readme_table()
    assert sorted(table) == sorted(settings_defaults())
    for name, default in settings_defaults().items():
        if name != "TUTOR_DISCORD_TOKEN":
            assert table[name] in (default, "unset" if default == "" else default), name


# --- docker-compose.yml -------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def _env_names(service: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in service.get("environment", {}).items()}


def _mounts(service: dict[str, Any]) -> dict[str, str]:
    """Named volume -> mount point."""
    return dict(v.split(":")[:2] for v in service["volumes"])


def test_compose_has_the_bot_and_the_sandbox(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"bot", "sandbox"}


def test_the_bot_reads_dotenv_and_the_sandbox_never_does(compose: dict[str, Any]) -> None:
    assert compose["services"]["bot"]["env_file"] == ".env"
    assert "env_file" not in compose["services"]["sandbox"]


def test_the_sandbox_gets_only_sandbox_variables_with_their_defaults(
    compose: dict[str, Any],
) -> None:
    defaults = settings_defaults()
    for name, value in _env_names(compose["services"]["sandbox"]).items():
        assert name.startswith("TUTOR_SANDBOX_"), name
        assert name in defaults, name
        if match := INTERPOLATION.match(value):
            assert match.group(1) == name
            assert match.group(2) == defaults[name], name


def test_the_bot_reaches_the_socket_the_sandbox_serves(compose: dict[str, Any]) -> None:
    bot, sandbox = compose["services"]["bot"], compose["services"]["sandbox"]
    served = sandbox["command"][sandbox["command"].index("--unix") + 1]
    address = _env_names(bot)["TUTOR_SANDBOX_ADDRESS"]
    assert address == f"unix:{served}"
    volume = next(v for v, mount in _mounts(sandbox).items() if served.startswith(mount + "/"))
    assert _mounts(bot)[volume] == _mounts(sandbox)[volume]


def test_the_bot_may_connect_to_the_sandbox_socket(compose: dict[str, Any]) -> None:
    bot, sandbox = compose["services"]["bot"], compose["services"]["sandbox"]
    sandbox_gid = str(sandbox["user"]).split(":")[1]
    assert sandbox_gid in [str(g) for g in bot["group_add"]]


def test_the_database_lives_in_a_named_volume(compose: dict[str, Any]) -> None:
    bot = compose["services"]["bot"]
    database = Path(_env_names(bot)["TUTOR_DATABASE_PATH"])
    volume = next(v for v, mount in _mounts(bot).items() if mount == str(database.parent))
    assert volume in compose["volumes"]


def test_every_named_volume_is_declared(compose: dict[str, Any]) -> None:
    for service in compose["services"].values():
        for volume in _mounts(service):
            assert volume in compose["volumes"]


@pytest.mark.parametrize("name", ["bot", "sandbox"])
def test_each_service_restarts_and_logs_to_docker(compose: dict[str, Any], name: str) -> None:
    service = compose["services"][name]
    assert service["restart"] == "unless-stopped"
    assert service["logging"]["driver"] == "json-file"
    assert service["logging"]["options"]["max-size"]


@pytest.mark.parametrize("name", ["bot", "sandbox"])
def test_each_healthcheck_runs_a_real_tutor_health_command(
    compose: dict[str, Any], name: str
) -> None:
    check = compose["services"][name]["healthcheck"]
    assert check["test"][0] == "CMD"
    command = check["test"][1:]
    assert command[:2] == ["tutor", "health"]
    args = build_parser().parse_args(command[1:])
    assert args.check
    for key in ("interval", "timeout", "start_period"):
        assert re.fullmatch(r"\d+s", check[key]), key
    assert check["retries"] >= 1


def test_the_bot_checks_its_heartbeat_and_waits_for_a_healthy_sandbox(
    compose: dict[str, Any],
) -> None:
    bot = compose["services"]["bot"]
    assert build_parser().parse_args(bot["healthcheck"]["test"][2:]).check == [
        "database",
        "sandbox",
        "heartbeat",
    ]
    assert bot["depends_on"]["sandbox"]["condition"] == "service_healthy"


@pytest.mark.parametrize("name", ["bot", "sandbox"])
def test_each_service_command_is_a_tutor_subcommand(compose: dict[str, Any], name: str) -> None:
    command = compose["services"][name]["command"]
    assert command[0] == "tutor"
    build_parser().parse_args(command[1:])


def test_the_bot_is_locked_down_too(compose: dict[str, Any]) -> None:
    bot = compose["services"]["bot"]
    assert bot["read_only"] is True
    assert bot["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in bot["security_opt"]
    assert str(bot["user"]).split(":")[0] not in ("", "0", "root")


# --- Dockerfiles ----------------------------------------------------------------------------


def _dockerfile(path: str) -> list[str]:
    """Instructions with continuation lines joined and comments dropped."""
    text = (ROOT / path).read_text()
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line.strip() for line in joined.splitlines() if line.strip() and line[0] != "#"]


DOCKERFILES = ["bot/Dockerfile", "sandbox/Dockerfile"]


def test_compose_builds_the_dockerfiles_that_exist(compose: dict[str, Any]) -> None:
    built = sorted(s["build"]["dockerfile"] for s in compose["services"].values())
    assert built == DOCKERFILES
    for path in built:
        assert (ROOT / path).is_file()


@pytest.mark.parametrize("path", DOCKERFILES)
def test_the_base_image_is_pinned(path: str) -> None:
    bases = [line.split()[1] for line in _dockerfile(path) if line.startswith("FROM ")]
    assert bases
    for base in bases:  # every stage: a build stage's output is tied to its CPython
        image, _, tag = base.partition(":")
        assert image == "python"
        assert re.fullmatch(r"3\.11(\.\d+)?-slim-bookworm(@sha256:[0-9a-f]{64})?", tag), base
    assert len(set(bases)) == 1, "the stages must share one base image"


@pytest.mark.parametrize("path", DOCKERFILES)
def test_the_image_runs_as_a_non_root_user(path: str) -> None:
    users = [line.split()[1] for line in _dockerfile(path) if line.startswith("USER ")]
    assert users
    assert users[-1].split(":")[0] not in ("0", "root")


@pytest.mark.parametrize("path", DOCKERFILES)
def test_every_copied_file_exists(path: str) -> None:
    for line in _dockerfile(path):
        if line.startswith("COPY ") and not line.startswith("COPY --from="):
            sources = line.split()[1:-1]
            for source in sources:
                assert (ROOT / source).exists(), f"{path}: COPY {source}"


@pytest.mark.parametrize("path", DOCKERFILES)
def test_the_image_command_is_a_tutor_subcommand(path: str) -> None:
    [cmd] = [line for line in _dockerfile(path) if line.startswith("CMD ")]
    command = json.loads(cmd.removeprefix("CMD "))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert command[0] in scripts
    build_parser().parse_args(command[1:])


def test_the_bot_image_installs_no_torch() -> None:
    installs = [line for line in _dockerfile("bot/Dockerfile") if "pip install" in line]
    assert installs
    for line in installs:
        assert "[sandbox]" not in line
        assert not re.search(r"pip install[^&]*torch", line), line
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not [d for d in dependencies if re.match(r"(torch|numpy)\b", d)]


def _stages(path: str) -> list[list[str]]:
    """The instructions of each build stage of a Dockerfile, in order."""
    stages: list[list[str]] = []
    for line in _dockerfile(path):
        if line.startswith("FROM "):
            stages.append([])
        if stages:
            stages[-1].append(line)
    return stages


def test_the_bot_image_builds_the_compiled_grader_in_a_stage_of_its_own() -> None:
    [builder, runtime] = _stages("bot/Dockerfile")
    assert builder[0].split()[2:] == ["AS", "grader-build"]
    assert any("./scripts/build-compiled-grader" in line for line in builder if line[:4] == "RUN ")
    # what the build script copies into its tree must be in the stage
    script = (ROOT / "scripts/build-compiled-grader").read_text()
    [copy] = [line for line in script.splitlines() if line.strip().startswith("cp -r ")]
    needed = copy.split()[2:-1]
    copied = {
        source for line in builder if line.startswith("COPY ") for source in line.split()[1:-1]
    }
    assert set(needed) <= copied, f"the build script copies {needed}"
    # no compiler in the image that runs: the runtime stage takes only the built modules
    assert not any("gcc" in line or "mypy" in line for line in runtime)


def test_the_bot_image_imports_the_compiled_grader() -> None:
    [_, runtime] = _stages("bot/Dockerfile")
    copies = [line.split() for line in runtime if line.startswith("COPY --from=grader-build ")]
    assert [words[-1] for words in copies] == ["/usr/local/lib/python3.11/site-packages/"]
    # after pip install has put the sources there, so the extension modules sit next to them
    install = next(k for k, line in enumerate(runtime) if "pip install ." in line)
    assert runtime.index(" ".join(copies[0])) > install
    # and the build checks that the grader imported is the extension module
    assert any(
        "import bot.grading.grader" in line and ".so" in line
        for line in runtime[runtime.index(" ".join(copies[0])) :]
        if line.startswith("RUN ")
    )


def test_the_build_context_leaves_out_secrets_and_state() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".env" in ignored
    assert "data" in ignored
