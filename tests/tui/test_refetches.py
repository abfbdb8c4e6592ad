"""When the app tells the URL table that rows may have gone (tui/refetches.py): from a refetch's
start (asked for, or seen in the events) until it is over, then once more after the last one."""

from __future__ import annotations

from sitemap_tui.engine.model import Node, NodeState
from sitemap_tui.tui.refetches import Refetches


def node(node_id: int, state: NodeState) -> Node:
    return Node(id=node_id, url=f"https://example.com/s{node_id}.xml", state=state)


def test_a_refetch_asked_for_lasts_until_its_command_is_done() -> None:
    told: list[bool] = []
    r = Refetches(told.append)
    r.asked(5)
    assert told == [True]
    # still DONE before the engine resets it, then fetched again: not over until the command is
    r.seen([], {5: node(5, NodeState.DONE)})
    r.seen([5], {5: node(5, NodeState.FETCHING)})
    r.seen([], {5: node(5, NodeState.DONE)})
    assert told == [True]
    r.done(5)
    assert told == [True, False]
    r.settled()  # (seen in the events too: the expansion's end tells once more)
    assert told == [True, False, False]


def test_a_refetch_seen_in_the_events_lasts_until_the_file_is_done_or_gone() -> None:
    told: list[bool] = []
    r = Refetches(told.append)
    r.seen([7, 8], {7: node(7, NodeState.PENDING), 8: node(8, NodeState.FETCHING)})
    assert told == [True]
    r.seen([], {7: node(7, NodeState.PARSING), 8: node(8, NodeState.FAILED)})
    assert told == [True]
    r.seen([], {})  # 7 forgotten (its parent fetched again)
    assert told == [True, False]
    # the command that fetched them ends: its last commit is in, one more whole count
    r.settled()
    assert told == [True, False, False]
    r.settled()
    assert told == [True, False, False]
    r.seen([9], {9: node(9, NodeState.PENDING)})
    r.clear()  # the engine stopped: nothing more finishes
    assert told == [True, False, False, True, False]
