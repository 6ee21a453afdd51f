"""The deployment files: Dockerfile, compose.yaml, constraints.txt, Procfile, .dockerignore.

The image itself is built and run where a docker daemon answers; elsewhere that test is
skipped and says why. The other tests read the files for what a deployment relies on.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import uuid
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    joined = re.sub(r"\\\n\s*", " ", text)
    result = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            result.append((word.upper(), rest.strip()))
    return result


def _final_stage() -> list[tuple[str, str]]:
    steps = _instructions()
    last_from = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


def test_the_image_is_slim_python_3_11_and_runs_as_a_user_of_its_own() -> None:
    froms = [args for word, args in _instructions() if word == "FROM"]
    assert froms and all(args.split()[0] == "python:3.11-slim" for args in froms)
    users = [args for word, args in _final_stage() if word == "USER"]
    assert users, "the final stage never leaves root"
    assert users[-1].split(":")[0] not in ("root", "0")
    runs = " ".join(args for word, args in _final_stage() if word == "RUN")
    assert "useradd" in runs and users[-1] in runs


def test_dependencies_are_installed_under_the_constraints() -> None:
    runs = [args for word, args in _instructions() if word == "RUN"]
    installs = [r for r in runs if "pip install" in r]
    assert installs
    for install in installs:
        words = shlex.split(install.split("pip install", 1)[1].split("&&")[0])
        assert "--constraint" in words or "-c" in words, install
        flag = "--constraint" if "--constraint" in words else "-c"
        assert words[words.index(flag) + 1] == "constraints.txt"
    copied = " ".join(args for word, args in _instructions() if word == "COPY")
    assert "constraints.txt" in copied


def test_health_is_checked_on_healthz_and_data_lives_in_a_volume() -> None:
    final = _final_stage()
    [health] = [args for word, args in final if word == "HEALTHCHECK"]
    assert "/healthz" in health and "${PORT}" in health
    volumes = [json.loads(args) for word, args in final if word == "VOLUME"]
    assert ["/data"] in volumes
    env = " ".join(args for word, args in final if word == "ENV")
    assert "HIDESEEK_DATA_DIR=/data" in env
    [entrypoint] = [json.loads(args) for word, args in final if word == "ENTRYPOINT"]
    assert entrypoint == ["hideseek-chat"]  # exec form: SIGTERM reaches the bot itself


def _dockerignored(path: str) -> bool:
    """Whether .dockerignore leaves ``path`` out of the build context (its last match wins)."""
    ignored = False
    for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line.lstrip("!").rstrip("/")
        candidates = [path] + [str(p) for p in Path(path).parents if str(p) != "."]
        if any(
            fnmatch.fnmatch(c, pattern) or fnmatch.fnmatch(c, pattern.replace("**/", ""))
            for c in candidates
        ):
            ignored = not negate
    return ignored


def test_everything_the_image_copies_exists_and_is_in_the_build_context() -> None:
    sources = []
    for word, args in _instructions():
        if word == "COPY" and "--from" not in args:
            sources += args.split()[:-1]
    assert "hideseek_chat" in sources and "migrations" in sources and "locales" in sources
    for source in sources:
        assert (ROOT / source).exists(), source
        assert not _dockerignored(source), f".dockerignore leaves out {source}"
    assert _dockerignored(".env") and _dockerignored("tests/test_deploy.py")
    assert _dockerignored("hideseek_chat/__pycache__/x.pyc")


def _dependencies() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    listed = project["dependencies"] + project["optional-dependencies"]["test"]
    return [Requirement(text) for text in listed]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt pins exact versions: {line!r}"
            pins[canonicalize_name(name)] = version
    return pins


def test_constraints_pin_every_dependency_within_pyprojects_range() -> None:
    pins = _pins()
    assert canonicalize_name("hideseek-chat") not in pins
    for requirement in _dependencies():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not pinned in constraints.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {requirement.name}=={pins[name]}, "
            f"outside pyproject.toml's {requirement.specifier}"
        )
        if "binary" in requirement.extras:
            assert f"{name}-binary" in pins


def test_the_procfile_has_one_process_type_per_mode_and_a_release_step() -> None:
    processes = {}
    for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            kind, _, command = line.partition(":")
            assert kind not in processes
            processes[kind.strip()] = command.strip()
    assert processes == {
        "release": "hideseek-chat db upgrade",
        "web": "hideseek-chat webhook",
        "worker": "hideseek-chat run",
    }
    comment = (ROOT / "Procfile").read_text(encoding="utf-8")
    assert "never" in comment and "both" in comment  # says not to run web and worker together


def _load_yaml(path: Path) -> Any:
    """Parse YAML with PyYAML, here or in the system's Python; skip when neither has it."""
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        pass
    else:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    for python in ("/usr/bin/python3", shutil.which("python3")):
        if python and python != sys.executable and Path(python).is_file():
            done = subprocess.run(
                [
                    python,
                    "-c",
                    "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
                    str(path),
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
            if done.returncode == 0:
                return json.loads(done.stdout)
    pytest.skip(
        "PyYAML is not installed (neither in this Python nor the system's): compose.yaml unread"
    )


def test_compose_runs_postgresql_15_a_release_step_and_the_bot() -> None:
    compose = _load_yaml(ROOT / "compose.yaml")
    services = compose["services"]
    db, migrate, bot = services["db"], services["migrate"], services["bot"]
    assert db["image"].startswith("postgres:15")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert any(v.endswith(":/var/lib/postgresql/data") for v in db["volumes"])
    assert migrate["command"] == ["db", "upgrade"]
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    assert bot["depends_on"] == {
        "db": {"condition": "service_healthy"},
        "migrate": {"condition": "service_completed_successfully"},
    }
    assert bot["command"] == ["${BOT_MODE:-run}"]
    for service in (migrate, bot):
        assert service["build"] == "."
        assert "@db:5432/" in service["environment"]["DATABASE_URL"]
        assert service["env_file"] == [{"path": ".env", "required": False}]
    assert "data:/data" in bot["volumes"]
    assert {"pgdata", "data"} <= set(compose["volumes"])
    assert bot["ports"] == ["127.0.0.1:${PORT:-8080}:8080"]  # behind a TLS proxy
    assert bot["environment"]["PORT"] == "8080"


def _docker_reason() -> str | None:
    docker = shutil.which("docker")
    if docker is None:
        return "docker is not installed"
    try:
        info = subprocess.run([docker, "info"], capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the docker daemon does not answer"
    if info.returncode != 0:
        return "no docker daemon is running (docker info failed)"
    return None


def test_the_image_builds_and_runs_the_command() -> None:
    reason = _docker_reason()
    if reason is not None:
        pytest.skip(f"the container is not built: {reason}")
    tag = f"hideseek-chat-test:{uuid.uuid4().hex[:8]}"
    built = subprocess.run(
        ["docker", "build", "-t", tag, str(ROOT)], capture_output=True, text=True, timeout=1800
    )
    assert built.returncode == 0, built.stderr[-3000:]
    try:
        helped = subprocess.run(
            ["docker", "run", "--rm", tag, "--help"], capture_output=True, text=True, timeout=300
        )
        assert helped.returncode == 0, helped.stderr
        assert "usage: hideseek-chat" in helped.stdout and "webhook" in helped.stdout
        who = subprocess.run(
            ["docker", "run", "--rm", "--entrypoint", "id", tag, "-u"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert who.stdout.strip() not in ("", "0")
        migrated = subprocess.run(
            ["docker", "run", "--rm", tag, "db", "upgrade"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert migrated.returncode == 0, migrated.stderr  # the scripts ship; /data is writable
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=300)
