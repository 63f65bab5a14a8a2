"""Request bodies of the JSON API: validated at the boundary, and the source of /openapi.json."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Name = Annotated[str, Field(min_length=1, max_length=64)]
SeatNumber = Annotated[int, Field(ge=0, le=63)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class JoinBody(Body):
    pin: Annotated[str, Field(max_length=16)]
    role: Literal["host", "player", "spectator"]


class EmptyBody(Body):
    pass


class SeatSpec(Body):
    name: Annotated[str, Field(min_length=1, max_length=40)]
    colour: Name | None = None
    camp: Name | None = None
    ai: Name | None = None
    profile: Name | None = None


class CreateSessionBody(Body):
    game: Name
    seats: Annotated[list[SeatSpec], Field(min_length=1, max_length=16)]
    mode: Name | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None


class CommandSpec(Body):
    name: Name
    args: dict[str, Any] = Field(default_factory=dict)
    seat: SeatNumber | None = None


StateId = Annotated[int, Field(ge=0, le=2**53 - 1)]


class CommandBody(CommandSpec):
    state_id: StateId


class UndoBody(Body):
    state_id: StateId
    seat: SeatNumber | None = None


class ReadingBody(Body):
    source: Name
    command: CommandSpec
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    needs_review: bool = False
    candidates: Annotated[list[dict[str, Any]], Field(max_length=16)] | None = None


class ReadingActionBody(Body):
    seat: SeatNumber | None = None
    args: dict[str, Any] | None = None


MODELS: tuple[type[Body], ...] = (
    JoinBody, EmptyBody, SeatSpec, CreateSessionBody, CommandSpec, CommandBody, UndoBody,
    ReadingBody, ReadingActionBody,
)
