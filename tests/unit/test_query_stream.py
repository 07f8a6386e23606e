"""A cell's query stream held to what psql says on its standard error, with no server and no psql:
the stream knows its server only as the small protocol it reports to (``QueryServer``, to which
mypy holds the run's Database), which a stand-in here answers, recording what it was told and asked."""

from __future__ import annotations

import threading

from harness.runners.postgres.query import END_OF_QUERY, LOST_WAIT, PsqlSays, Verdict

WORD = f"{END_OF_QUERY} 0123abcd"
DSN = "host=db.example dbname=hanoi user=port"


class StandIn:
    """A server that answers as it is told to, and writes down each call."""

    server = "a stand-in PostgreSQL"

    def __init__(self, has_ended: str | None = None) -> None:
        self.has_ended = has_ended
        self.calls: list[tuple[object, ...]] = []

    def host_pid(self, backend: int) -> int | None:
        self.calls.append(("host_pid", backend))
        return None

    def started(self, backend: int, role: str) -> None:
        self.calls.append(("started", backend, role))

    def signal(self, how: str, backend: int, role: str, answered: threading.Event) -> None:
        self.calls.append(("signal", how, backend, role))

    def unreachable(self, dsn: str, reason: str) -> str:
        self.calls.append(("unreachable", dsn, reason))
        return f"cannot connect: {reason}"

    def ended(self, wait: float = 0.0) -> str | None:
        self.calls.append(("ended", wait))
        return self.has_ended

    def unanswered(self, cancelled: bool, ending: bool) -> str:
        self.calls.append(("unanswered", cancelled, ending))
        return "no answer"


def heard(*blocks: bytes, notices: bool = False) -> tuple[PsqlSays, list[int], list[str], bytes]:
    """psql's stderr heard in ``blocks``: what was heard, the backends told, the ends told, the notices' texts."""
    backends: list[int] = []
    ends: list[str] = []
    says = PsqlSays(WORD, notices, backends.append, lambda: ends.append("end"))
    texts = b"".join(says.hear(block) for block in (*blocks, b"\n"))
    return says, backends, ends, texts


def test_a_query_that_ran_tells_its_backend_once_and_its_end_and_is_judged_clean():
    says, backends, ends, _ = heard(b"4242\n", b"17\n", f"{WORD}\n".encode())
    assert backends == [4242]  # a later line of digits is a port's, not psql's
    assert ends == ["end"] and says.query_ended
    server = StandIn()
    assert says.verdict(server, DSN, "exit 0") == Verdict()
    assert server.calls == []


def test_notices_split_over_blocks_are_the_moves_and_their_fields_are_not():
    _, _, _, texts = heard(
        b"4242\nNOTICE:  00000: 1 0 2\nLOCATION:  exec_stmt_raise, pl_exec.c:3911\nNOTI",
        b"CE:  00000: 2 0 1\nwith a second line\nLOCATION:  exec_stmt_raise, pl_exec.c:3911\n",
        f"{WORD}\nNOTICE:  00000: 9 9 9\n".encode(),
        notices=True,
    )
    assert texts == b"1 0 2\n2 0 1\nwith a second line\n"  # after the end of the query, a notice is no move


def test_psql_that_never_connected_asks_the_server_why_with_its_own_words():
    says, backends, _, _ = heard(b"psql: error: connection to server at \"db.example\" failed: Connection refused\n")
    server = StandIn()
    verdict = says.verdict(server, DSN, "exit 2")
    assert backends == []
    assert server.calls == [("unreachable", DSN, 'connection to server at "db.example" failed: Connection refused')]
    assert verdict == Verdict(silence='cannot connect: connection to server at "db.example" failed: Connection refused')


def test_a_connection_lost_mid_query_is_the_cells_failure_unless_the_server_has_ended():
    lost = (b"4242\n", b"server closed the connection unexpectedly\n")
    says, _, _, _ = heard(*lost)
    server = StandIn()
    assert says.verdict(server, DSN, "exit 2") == Verdict("the connection to PostgreSQL was lost", "server closed the connection unexpectedly")
    assert server.calls == [("ended", LOST_WAIT)]
    says, _, _, _ = heard(*lost)
    gone = StandIn(has_ended="a stand-in PostgreSQL has ended")
    assert says.verdict(gone, DSN, "exit 2") == Verdict(None, "server closed the connection unexpectedly", silence="a stand-in PostgreSQL has ended")


def test_the_servers_first_error_is_the_failure_and_its_own_deadline_a_timeout():
    says, _, _, _ = heard(b"4242\nERROR:  22003: integer out of range\nERROR:  XX000: later\n", f"{WORD}\n".encode())
    assert says.verdict(StandIn(), DSN, "exit 1") == Verdict("the query failed with SQLSTATE 22003", "integer out of range")
    says, _, _, _ = heard(b"4242\nERROR:  57014: canceling statement due to statement timeout\n", f"{WORD}\n".encode())
    assert says.verdict(StandIn(), DSN, "exit 1") == Verdict(timed_out=True)
