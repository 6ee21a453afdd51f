"""The store's tables. Import ``Base.metadata`` from here to see all of them."""

from hideseek_chat.store.models.base import Base
from hideseek_chat.store.models.botnet import (
    BotnetMatchRow,
    BotnetSeatRow,
    BotnetStatus,
    BotnetStepKind,
    BotnetStepRow,
)
from hideseek_chat.store.models.chat import ChatMessageRow, ChatPrefsRow, HidingSpotRow, PersonRow
from hideseek_chat.store.models.checks import AnswerCheckRow, CheckVerdict, EndGameClaimRow
from hideseek_chat.store.models.game import (
    CatchRow,
    ChatRow,
    DeadlineRow,
    GameRow,
    HandBonusRow,
    HideOrderRow,
    PauseRow,
    PendingCatchRow,
    PlayerRow,
    RestPeriodRow,
    RoundRow,
    SettingsRow,
    TeamRow,
    ZoneRow,
)
from hideseek_chat.store.models.log import EventRow, OutboxRow, PingRow, ProcessedUpdateRow
from hideseek_chat.store.models.maps import (
    FeatureRow,
    MapKindRow,
    MapPackRow,
    MapRouteRow,
    StationRouteRow,
    StationRow,
)
from hideseek_chat.store.models.play import (
    BannedQuestionRow,
    CardRow,
    CurseRow,
    DrawCycleRow,
    QuestionRow,
)

__all__ = [
    "AnswerCheckRow",
    "BannedQuestionRow",
    "Base",
    "BotnetMatchRow",
    "BotnetSeatRow",
    "BotnetStatus",
    "BotnetStepKind",
    "BotnetStepRow",
    "CardRow",
    "CatchRow",
    "ChatMessageRow",
    "ChatPrefsRow",
    "ChatRow",
    "CheckVerdict",
    "CurseRow",
    "DeadlineRow",
    "DrawCycleRow",
    "EndGameClaimRow",
    "EventRow",
    "FeatureRow",
    "GameRow",
    "HandBonusRow",
    "HideOrderRow",
    "HidingSpotRow",
    "MapKindRow",
    "MapPackRow",
    "MapRouteRow",
    "OutboxRow",
    "PauseRow",
    "PendingCatchRow",
    "PersonRow",
    "PingRow",
    "PlayerRow",
    "ProcessedUpdateRow",
    "QuestionRow",
    "RestPeriodRow",
    "RoundRow",
    "SettingsRow",
    "StationRouteRow",
    "StationRow",
    "TeamRow",
    "ZoneRow",
]
