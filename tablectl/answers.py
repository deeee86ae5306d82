"""Commands are idempotent by id: the table's answer to each of the latest commands.

A console that hears no reply (the controller died between journaling a bet and answering
it, the broker dropped the reply) sends the same command again with the same id. The table
must not apply it twice: it answers with its first answer (``repeated: true``) and changes
nothing. The journal knows which ids it applied: a command's id is stored in its row
(:data:`ID_FIELD`), so a restarted table rebuilds these answers in the replay it makes anyway.

An id is the sender's: the dealer's ``c-17`` and seat 3's ``c-17`` are two commands. The
latest :data:`KEPT` answers are remembered (hundreds of rounds of commands): a retry comes
seconds later, not hours. An id sent again with another command (another bet, another
amount) is refused: its first command stands, and a new command needs a new id.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from controller.events import Action, Event
from controller.journal import parse_record, record_text

__all__ = [
    "FAILED",
    "ID_FIELD",
    "KEPT",
    "Answer",
    "Answers",
    "answer_of",
    "refusal",
    "sender_of",
    "split_id",
]

#: the field of a journal row that carries the id of the command it journaled
ID_FIELD = "command_id"

#: how many of the latest commands' answers a table remembers
KEPT = 4096

#: the answer to a command whose handling raised: nothing of it was applied
FAILED = "the table failed while handling it; the pit manager was alerted"

_KEY = f'"{ID_FIELD}":"'


@dataclass(frozen=True, slots=True)
class Answer:
    """The table's answer to one command, and the command it answered (its journal text
    without the id: the same id with another command is another command)."""

    command: str
    ok: bool
    reason: str
    text: str


def refusal(actions: list[Action], event: Event) -> Action | None:
    """The table's refusal of ``event`` among its actions, if it refused it."""
    return next(
        (a for a in actions if a.kind == "refused" and a.data.get("command") == event.kind), None
    )


def answer_of(event: Event, actions: list[Action], text: str) -> Answer:
    """The answer the table gave ``event``, whose actions were ``actions``."""
    refused = refusal(actions, event)
    reason = "" if refused is None else str(refused.data.get("reason", ""))
    return Answer(event.kind, refused is None, reason, text)


def sender_of(actor: str) -> str:
    """Whose ids a command's actor uses: ``seat:3``, ``dealer`` or ``pit`` (one pit topic,
    whatever name a pit manager signs with).

    >>> sender_of("seat:3"), sender_of("dealer"), sender_of("pit:ann")
    ('seat:3', 'dealer', 'pit')
    """
    return "pit" if actor.startswith("pit:") or actor == "pit" else actor


def split_id(text: str) -> tuple[str, str | None]:
    """A journal row's record text → (the text without its command id, the id or None).

    The table writes records in canonical JSON (compact, sorted keys), where the id is one
    plain member; the text without it is the command as it would be journaled without an
    id, so a replay decodes each distinct command once however many ids it came with. This
    finds the member in the text instead of parsing it (a parse is 7 µs a row: a second
    on a long journal); an id written with escapes, or a record in another JSON form, is
    parsed and written out again.

    >>> split_id('{"actor":"dealer","command_id":"c-17","kind":"start_round"}')
    ('{"actor":"dealer","kind":"start_round"}', 'c-17')
    >>> split_id('{"actor":"seat:1","command_id":"x","spot":"ante"}')
    ('{"actor":"seat:1","spot":"ante"}', 'x')
    >>> split_id('{"actor":"dealer","kind":"start_round"}')
    ('{"actor":"dealer","kind":"start_round"}', None)
    """
    start = text.find(_KEY)
    if start < 0:
        return text, None
    # Inside a JSON string every quote is escaped, so the key's quotes are structure: a
    # member starts here (of the record itself: a record with nested objects is parsed),
    # and its value ends at the next quote unless it has escapes.
    begin = start + len(_KEY)
    end = text.find('"', begin)
    value = text[begin:end]
    if end < 0 or "\\" in value or text.find("{", 1) >= 0:  # escapes, or nested objects
        return _split_parsed(text)
    if text[end + 1] == ",":
        return text[:start] + text[end + 2 :], value
    if text[start - 1] == ",":  # the last member: its comma goes with it
        return text[: start - 1] + text[end + 1 :], value
    return text[:start] + text[end + 1 :], value  # the only member


def _split_parsed(text: str) -> tuple[str, str | None]:
    """:func:`split_id` by parsing the record (ids with escapes, other JSON forms)."""
    doc = parse_record(text)
    value = doc.pop(ID_FIELD, None)
    if value is None:
        return text, None
    return record_text(doc), str(value)


class Answers:
    """The answers to the latest :data:`KEPT` commands, by sender and id."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._answers: OrderedDict[tuple[str, str], Answer] = OrderedDict()

    def get(self, sender: str, command_id: str) -> Answer | None:
        """The answer already given to ``sender``'s command ``command_id``, if any."""
        return self._answers.get((sender, command_id))

    def keep(self, sender: str, command_id: str, answer: Answer) -> None:
        """Remember an answer (forgetting the oldest beyond :attr:`kept`)."""
        key = (sender, command_id)
        self._answers[key] = answer
        self._answers.move_to_end(key)
        if len(self._answers) > self.kept:
            self._answers.popitem(last=False)

    def __len__(self) -> int:
        return len(self._answers)
