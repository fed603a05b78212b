"""docker-compose.yml keeps the sandbox service hardened as issue 3 item 9 says."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def service() -> dict[str, Any]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    sandbox: dict[str, Any] = compose["services"]["sandbox"]
    return sandbox


def _bytes(size: str) -> int:
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    size = size.lower().rstrip("b")
    return int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)


def test_the_sandbox_has_no_network(service: dict[str, Any]) -> None:
    assert service["network_mode"] == "none"


def test_the_sandbox_root_filesystem_is_read_only(service: dict[str, Any]) -> None:
    assert service["read_only"] is True


def test_tmp_is_a_tmpfs_with_a_size(service: dict[str, Any]) -> None:
    [tmp] = [t for t in service["tmpfs"] if t.split(":")[0] == "/tmp"]
    assert "size=" in tmp


def test_memory_limit_equals_memory_plus_swap_limit(service: dict[str, Any]) -> None:
    assert _bytes(str(service["mem_limit"])) == _bytes(str(service["memswap_limit"]))


def test_pids_and_cpus_are_limited(service: dict[str, Any]) -> None:
    assert 0 < int(service["pids_limit"]) <= 1024
    assert 0 < float(service["cpus"]) <= 4


def test_every_capability_is_dropped_and_no_new_privileges(service: dict[str, Any]) -> None:
    assert service["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in service["security_opt"]
    assert "cap_add" not in service
    assert not service.get("privileged", False)


def test_the_sandbox_runs_as_a_non_root_user(service: dict[str, Any]) -> None:
    user = str(service["user"]).split(":")[0]
    assert user not in ("", "0", "root")


def test_the_service_talks_over_a_unix_socket_in_a_shared_volume(service: dict[str, Any]) -> None:
    assert "--unix" in service["command"]
    socket_path = service["command"][service["command"].index("--unix") + 1]
    mounts = [v.split(":")[1] for v in service["volumes"]]
    assert any(socket_path.startswith(m.rstrip("/") + "/") for m in mounts)
