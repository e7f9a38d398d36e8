"""What the loop remembers of its own turns, per conversation, for the follow-ups of the next turn.

A host keeps only the text of a conversation (ovos-persona: the utterance and the answer per turn),
so "and twenty percent?" or "divide that by four" would be answered from rounded prose. The engine
remembers each turn's tool calls, their results and the answer as delivered (``records``), in a store
it shares between turns like its thread pool (``stores``: this process, a file, Redis), and puts the
calls of the earlier turns back before their answers in the next turn's messages (``conversation``).
A follow-up that changes one thing of the last turn ("no, I meant seventy", "and thirty?", "and in
tokyo") makes its call again with it changed (``followups``).
"""

from ovos_agentic_loop._memory.conversation import ConversationMemory, Recall, redo_call, restated_note
from ovos_agentic_loop._memory.followups import (
    Correction,
    Retarget,
    follow_up_call,
    follow_up_in,
)
from ovos_agentic_loop._memory.records import RememberedCall, RememberedTurn

__all__ = [
    "ConversationMemory",
    "Correction",
    "Recall",
    "RememberedCall",
    "RememberedTurn",
    "Retarget",
    "follow_up_call",
    "follow_up_in",
    "redo_call",
    "restated_note",
]
