"""Config: every setting declared once, validated, loadable from TOML and the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_memory.core.config import Config, settings
from agent_memory.core.errors import ConfigError

README = Path(__file__).resolve().parents[2] / "README.md"


def test_defaults_match_the_design() -> None:
    """The defaults are the design's: 30 candidates, 1,500 tokens, tool_only, flags off."""
    config = Config()
    assert config.retrieval.candidates_per_generator == 30
    assert config.retrieval.budget_tokens == 1500
    assert config.retrieval.rrf_k > 0
    assert config.trigger.mode == "tool_only"
    assert config.reranker.enabled is False
    assert config.reranker.mode == "after_floors"
    assert config.rewrite.enabled is False
    assert config.policy.provisional_ttl_days == 30
    assert config.gate.calibrated_for == config.embedder.model


def test_config_is_frozen() -> None:
    """A Config cannot be changed after validation."""
    config = Config()
    with pytest.raises(Exception, match="frozen"):
        config.gate.dense_floor = 0.9  # type: ignore[misc]


def test_toml_file_and_environment_override_defaults(tmp_path: Path) -> None:
    """TOML overrides defaults and AGENT_MEMORY_<SECTION>__<NAME> overrides TOML."""
    path = tmp_path / "memory.toml"
    path.write_text("[gate]\ndense_floor = 0.5\n[reranker]\nenabled = true\n")
    config = Config.load(path, environ={"AGENT_MEMORY_GATE__DENSE_FLOOR": "0.6"})
    assert config.gate.dense_floor == 0.6
    assert config.reranker.enabled is True
    assert config.retrieval.budget_tokens == 1500


def test_cli_variables_without_separator_are_not_settings() -> None:
    """AGENT_MEMORY_STORE and AGENT_MEMORY_CONFIG belong to the CLI, not to Config."""
    config = Config.load(environ={"AGENT_MEMORY_STORE": "x.db", "AGENT_MEMORY_CONFIG": "y"})
    assert config == Config()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"gate": {"dense_flor": 0.4}}, "unknown setting 'gate.dense_flor'"),
        ({"gates": {}}, "unknown setting 'gates'"),
        ({"retrieval": {"budget_tokens": "lots"}}, "retrieval.budget_tokens"),
        ({"retrieval": {"candidates_per_generator": 0}}, "candidates_per_generator"),
        ({"retrieval": {"max_limit": 51}}, "retrieval.max_limit"),
        ({"retrieval": {"default_limit": 20, "max_limit": 10}}, "default_limit"),
        ({"trigger": {"mode": "sometimes"}}, "trigger.mode"),
        ({"reranker": {"mode": "before"}}, "reranker.mode"),
        # a cut-off before year 1 cannot be computed: the worker's sweep would fail on it
        ({"retention": {"search_log_days": float("inf")}}, "retention.search_log_days"),
        ({"retention": {"transcript_days": 1e9}}, "retention.transcript_days"),
    ],
)
def test_invalid_settings_are_rejected_with_the_key(kwargs: dict, message: str) -> None:
    """Unknown keys and bad values raise ConfigError naming the setting."""
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        Config(**kwargs)


def test_unknown_keys_in_toml_and_environment_are_rejected(tmp_path: Path) -> None:
    """A typo in a file or a variable is an error, never a silent default."""
    path = tmp_path / "memory.toml"
    path.write_text("[embedder]\nmodle = 'x'\n")
    with pytest.raises(ConfigError, match=r"unknown setting 'embedder\.modle'"):
        Config.load(path)
    with pytest.raises(ConfigError, match="AGENT_MEMORY_GATE__DENSE_FLOR"):
        Config.load(environ={"AGENT_MEMORY_GATE__DENSE_FLOR": "0.1"})


def test_malformed_toml_is_a_config_error(tmp_path: Path) -> None:
    """A file that is not TOML, or has a bare top-level key, gets a clear ConfigError."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[gate\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Config.load(bad)
    bare = tmp_path / "bare.toml"
    bare.write_text("dense_floor = 0.3\n")
    with pytest.raises(ConfigError, match="must be a table"):
        Config.load(bare)
    with pytest.raises(ConfigError, match="does not exist"):
        Config.load(tmp_path / "missing.toml")


def test_every_setting_has_help_and_is_documented_in_the_readme() -> None:
    """Each setting is declared once with help text, and the README names it."""
    readme = README.read_text()
    declared = list(settings())
    assert len(declared) >= 15
    for setting in declared:
        assert setting.help, setting.name
        assert f"`{setting.name}`" in readme, f"README does not document {setting.name}"
