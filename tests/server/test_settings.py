"""Settings: defaults, environment variables, flags that override them, and refusals."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from baloot_engine.server.settings import (
    SETTINGS,
    Settings,
    SettingsError,
    build_parser,
    cpu_count,
    load_settings,
    unknown_variables,
)
from baloot_engine.telemetry.logs import LogFormat, LogLevel

KEY = "KsD3bD8p0hRj5zC6Qy1iN2m9wVfUe4tYxA7oLrGkHqI"
SECOND_KEY = "Zq8Wm3Tn5Rb7Yc2Vx4Ls6Kd9Jf1Hg0Pa3Ue5Io7Nr8M"


def test_defaults_serve_on_localhost() -> None:
    settings = load_settings([], {})
    assert settings == Settings()
    assert settings.address == "localhost:50051"
    assert (settings.metrics_host, settings.metrics_port) == ("127.0.0.1", 9464)
    assert settings.metrics_enabled
    assert settings.log_format is LogFormat.AUTO
    assert settings.log_level is LogLevel.INFO
    assert not settings.allow_preset_deck
    assert settings.state_keys == ()
    assert settings.workers == 1


def test_the_table_covers_every_field() -> None:
    assert [spec.name for spec in SETTINGS] == [f.name for f in dataclasses.fields(Settings)]


def test_environment_values_are_typed() -> None:
    settings = load_settings(
        [],
        {
            "BALOOT_HOST": "0.0.0.0",
            "BALOOT_PORT": "6000",
            "BALOOT_METRICS_ENABLED": "off",
            "BALOOT_METRICS_PORT": "9100",
            "BALOOT_GRACE_SECONDS": "2.5",
            "BALOOT_LOG_FORMAT": "JSON",
            "BALOOT_LOG_LEVEL": "debug",
            "BALOOT_MAX_MESSAGE_BYTES": "65536",
            "BALOOT_REFLECTION": "no",
            "BALOOT_ALLOW_PRESET_DECK": "true",
            "BALOOT_STATE_KEYS": f"{KEY}, {SECOND_KEY}",
            "BALOOT_STATE_KEY_FILE": "/run/secrets/state.key",
            "BALOOT_WORKERS": "1",
        },
    )
    assert settings == Settings(
        host="0.0.0.0",
        port=6000,
        metrics_enabled=False,
        metrics_port=9100,
        grace_seconds=2.5,
        log_format=LogFormat.JSON,
        log_level=LogLevel.DEBUG,
        max_message_bytes=65536,
        reflection=False,
        allow_preset_deck=True,
        state_keys=(KEY, SECOND_KEY),
        state_key_file=Path("/run/secrets/state.key"),
        workers=1,
    )


def test_flags_override_the_environment() -> None:
    settings = load_settings(
        ["--port", "7000", "--metrics-enabled", "true", "--log-level", "warning"],
        {"BALOOT_PORT": "6000", "BALOOT_METRICS_ENABLED": "false", "BALOOT_HOST": "::"},
    )
    assert settings.port == 7000
    assert settings.metrics_enabled
    assert settings.log_level is LogLevel.WARNING
    assert settings.address == "[::]:7000"


def test_workers_take_a_count_or_auto_for_one_per_cpu() -> None:
    assert load_settings([], {"BALOOT_WORKERS": "4"}).workers == 4
    assert load_settings(["--workers", "2"], {"BALOOT_WORKERS": "4"}).workers == 2
    assert load_settings(["--workers", "auto"], {}).workers == min(cpu_count(), 64)
    assert load_settings([], {"BALOOT_WORKERS": " AUTO "}).workers == min(cpu_count(), 64)


def test_an_empty_variable_counts_as_unset() -> None:
    assert load_settings([], {"BALOOT_PORT": "", "BALOOT_LOG_LEVEL": "  "}) == Settings()


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("BALOOT_PORT", "abc", "expected an integer from 0 to 65535"),
        ("BALOOT_PORT", "65536", "expected an integer from 0 to 65535"),
        ("BALOOT_METRICS_PORT", "-1", "expected an integer from 0 to 65535"),
        ("BALOOT_METRICS_ENABLED", "maybe", "expected true or false"),
        ("BALOOT_GRACE_SECONDS", "-3", "at least 0"),
        ("BALOOT_GRACE_SECONDS", "nan", "at least 0"),
        ("BALOOT_LOG_FORMAT", "xml", "expected one of auto, json, console"),
        ("BALOOT_LOG_LEVEL", "loud", "expected one of debug, info, warning, error"),
        ("BALOOT_MAX_MESSAGE_BYTES", "10", "expected an integer from 4096"),
        ("BALOOT_HOST", "two words", "expected a host name"),
        ("BALOOT_STATE_KEYS", "a,,b", "comma-separated list"),
        ("BALOOT_STATE_KEYS", "too-short", "32 bytes each"),
        ("BALOOT_WORKERS", "65", "expected an integer from 1 to 64, or auto"),
        ("BALOOT_WORKERS", "0", "expected an integer from 1 to 64, or auto"),
        ("BALOOT_WORKERS", "many", "expected an integer from 1 to 64, or auto"),
    ],
)
def test_invalid_values_are_refused_in_one_line_naming_the_variable(
    variable: str, value: str, expected: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings([], {variable: value})
    message = str(raised.value)
    assert message.startswith(f"invalid {variable}=")
    assert expected in message
    assert "\n" not in message


def test_an_invalid_flag_is_named_as_a_flag() -> None:
    with pytest.raises(SettingsError, match=r"^invalid --metrics-port='x': "):
        load_settings(["--metrics-port", "x"], {})


def test_secret_values_never_appear_in_messages_or_summaries() -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings([], {"BALOOT_STATE_KEYS": "topsecret,,"})
    assert "topsecret" not in str(raised.value)
    with pytest.raises(SettingsError) as short:
        load_settings([], {"BALOOT_STATE_KEYS": "topsecret"})
    assert "topsecret" not in str(short.value)
    settings = load_settings([], {"BALOOT_STATE_KEYS": KEY})
    assert KEY not in repr(settings)
    assert settings.redacted()["state_keys"] == "<1 configured>"
    assert Settings().redacted()["state_keys"] == "<none>"


def test_state_keys_have_no_command_line_flag() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--state-keys", "k"])


def test_redacted_settings_are_plain_values() -> None:
    shown = Settings().redacted()
    assert shown["log_format"] == "auto"
    assert shown["state_key_file"] == "var/state.key"
    assert set(shown) == {spec.name for spec in SETTINGS}


def test_unknown_baloot_variables_are_reported() -> None:
    env = {"BALOOT_PROT": "1", "BALOOT_PORT": "1", "HOME": "/root"}
    assert unknown_variables(env) == ["BALOOT_PROT"]


def test_every_flag_is_documented_with_its_variable() -> None:
    text = build_parser().format_help()
    for spec in SETTINGS:
        if spec.flag:
            assert spec.option in text
            assert spec.env in text


def test_the_load_and_connection_settings_are_typed_with_defaults() -> None:
    defaults = load_settings([], {})
    assert defaults.max_concurrent_rpcs == 256
    assert defaults.lame_duck_seconds == 5.0
    assert defaults.keepalive_seconds == 60.0
    assert defaults.max_connection_age_seconds == 300.0
    assert defaults.max_connection_age_grace_seconds == 620.0
    settings = load_settings(
        ["--max-concurrent-rpcs", "64", "--lame-duck-seconds", "0"],
        {
            "BALOOT_MAX_CONCURRENT_RPCS": "8",
            "BALOOT_KEEPALIVE_SECONDS": "0",
            "BALOOT_MAX_CONNECTION_AGE_SECONDS": "90.5",
            "BALOOT_MAX_CONNECTION_AGE_GRACE_SECONDS": "5",
        },
    )
    assert settings.max_concurrent_rpcs == 64
    assert settings.lame_duck_seconds == 0.0
    assert settings.keepalive_seconds == 0.0
    assert settings.max_connection_age_seconds == 90.5
    assert settings.max_connection_age_grace_seconds == 5.0


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("BALOOT_MAX_CONCURRENT_RPCS", "0"),
        ("BALOOT_MAX_CONCURRENT_RPCS", "many"),
        ("BALOOT_LAME_DUCK_SECONDS", "-1"),
        ("BALOOT_KEEPALIVE_SECONDS", "inf"),
        ("BALOOT_MAX_CONNECTION_AGE_SECONDS", "soon"),
    ],
)
def test_invalid_load_settings_are_refused(variable: str, value: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        load_settings([], {variable: value})
