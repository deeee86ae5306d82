"""Commands are idempotent by id: the table's answer to each of the latest commands.

A console that hears no reply (the controller died between journaling a bet and answering
it, the broker dropped the reply) sends the same command again with the same id. The table
must not apply it twice: it answers with its first answer (``repeated: true``) and changes
nothing. The journal knows which ids it applied: a command's id is stored in its row
(:data:`~controller.journal.ID_FIELD`), so a restarted table rebuilds these answers in the
replay it makes anyway.

An id is the sender's: the dealer's ``c-17`` and seat 3's ``c-17`` are two commands. The
latest :data:`KEPT` answers are remembered (hundreds of rounds of commands): a retry comes
seconds later, not hours. An id sent again with another command (another bet, another
amount) is refused: its first command stands, and a new command needs a new id.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from controller.events import Action, Event

__all__ = ["FAILED", "KEPT", "Answer", "Answers", "answer_of", "refusal", "sender_of"]

#: how many of the latest commands' answers a table remembers
KEPT = 4096

#: the answer to a command whose handling raised: nothing of it was applied
FAILED = "the table failed while handling it; the pit manager was alerted"


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


def answer_of(event: Event, refused: Action | None, text: str = "", failed: bool = False) -> Answer:
    """The answer the table gave ``event``: its refusal of it (:func:`refusal`), if it
    refused it, or that its handling failed (nothing of it applied); ``text``: the command
    without its id."""
    if failed:
        return Answer(event.kind, False, FAILED, text)
    reason = "" if refused is None else str(refused.data.get("reason", ""))
    return Answer(event.kind, refused is None, reason, text)


def sender_of(actor: str) -> str:
    """Whose ids a command's actor uses: ``seat:3``, ``dealer`` or ``pit`` (one pit topic,
    whatever name a pit manager signs with).

    >>> sender_of("seat:3"), sender_of("dealer"), sender_of("pit:ann")
    ('seat:3', 'dealer', 'pit')
    """
    return "pit" if actor.startswith("pit:") or actor == "pit" else actor


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
