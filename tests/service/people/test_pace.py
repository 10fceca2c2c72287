"""The engine's pace in people's games (docs/play.md, "The engine's pace"): the slot's referee
settings carry ``MaxMoveTime`` for engines that announce it."""

from __future__ import annotations

from arena.referee import RefereeConfig
from people.runner import MOVE_TIME_OPTION, people_config


def test_people_games_send_the_move_time_cap_beside_the_other_options(settings) -> None:
    settings.BAO_PEOPLE_ENGINE_MOVE_MS = 1000
    base = RefereeConfig(engine_options={"Hash": "1000"})
    config = people_config(base)
    assert config.engine_options == {"Hash": "1000", MOVE_TIME_OPTION: "1000"}
    assert base.engine_options == {"Hash": "1000"}  # the matches' settings are untouched
    assert MOVE_TIME_OPTION == "MaxMoveTime"


def test_no_cap_is_sent_when_the_setting_is_zero_or_the_option_set_already(settings) -> None:
    settings.BAO_PEOPLE_ENGINE_MOVE_MS = 0
    base = RefereeConfig()
    assert people_config(base).engine_options == {}
    settings.BAO_PEOPLE_ENGINE_MOVE_MS = 1000
    chosen = RefereeConfig(engine_options={MOVE_TIME_OPTION: "250"})
    assert people_config(chosen).engine_options == {MOVE_TIME_OPTION: "250"}
