"""The direct load into Neo4j, up to the driver: a missing driver or password is a clear user error, and a fake
driver receives parameterised statements (no text spliced into queries) covering the whole graph."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Self

import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.export.bolt import import_driver, load_bolt
from elotui.export.graph_model import build_graph

ENV = {"NEO4J_USER": "alice", "NEO4J_PASSWORD": "secret"}


class FakeServiceUnavailable(Exception):
    pass


class FakeResult:
    def consume(self) -> None:
        return None


class FakeSession:
    def __init__(self, log: list, fail_after: int | None) -> None:
        self.log = log
        self.fail_after = fail_after

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.log.append(("session closed",))

    def run(self, query: str, params: dict) -> FakeResult:
        if self.fail_after is not None and len([e for e in self.log if e[0] == "run"]) >= self.fail_after:
            raise FakeServiceUnavailable("connection refused")
        self.log.append(("run", query, params))
        return FakeResult()


def fake_neo4j(log: list, fail_after: int | None = None) -> SimpleNamespace:
    class Driver:
        def __init__(self, uri: str, auth: tuple[str, str]) -> None:
            log.append(("driver", uri, auth))

        def __enter__(self) -> Self:
            return self

        def __exit__(self, *exc: object) -> None:
            log.append(("driver closed",))

        def session(self, **kwargs: object) -> FakeSession:
            log.append(("session", kwargs))
            return FakeSession(log, fail_after)

    return SimpleNamespace(
        GraphDatabase=SimpleNamespace(driver=Driver),
        exceptions=SimpleNamespace(Neo4jError=RuntimeError, DriverError=FakeServiceUnavailable),
    )


def test_missing_driver_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "neo4j", None)  # makes `import neo4j` raise ImportError
    with pytest.raises(UserError, match=r"elotui\[neo4j\]"):
        import_driver()


def test_cli_without_driver_exits_2_and_writes_nothing(filled, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "neo4j", None)
    monkeypatch.setenv("NEO4J_PASSWORD", "x")
    out = tmp_path / "g"
    rc = main(
        [
            "graph",
            str(filled.path),
            "--store",
            str(filled.store_path),
            "-o",
            str(out),
            "--neo4j-uri",
            "bolt://127.0.0.1:7687",
        ]
    )
    assert rc == 2
    assert "pip install 'elotui[neo4j]'" in capsys.readouterr().err
    assert not out.exists()


def test_password_is_required(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    with pytest.raises(UserError, match="NEO4J_PASSWORD"):
        load_bolt(g, "bolt://127.0.0.1:7687", driver_module=fake_neo4j([]), env={})


def test_uri_scheme_is_checked(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    with pytest.raises(UserError, match="bolt://"):
        load_bolt(g, "http://127.0.0.1:7474", driver_module=fake_neo4j([]), env=ENV)


def test_fake_driver_receives_the_whole_graph_as_parameters(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    log: list = []
    ran = load_bolt(
        g, "bolt://db:7687", driver_module=fake_neo4j(log), env={**ENV, "NEO4J_DATABASE": "evals"}, batch=10
    )
    assert log[0] == ("driver", "bolt://db:7687", ("alice", "secret"))
    assert log[1] == ("session", {"database": "evals"})
    runs = [e for e in log if e[0] == "run"]
    assert len(runs) == ran
    assert log[-2:] == [("session closed",), ("driver closed",)]
    node_rows = {}
    rel_rows = []
    for _, query, params in runs:
        if query.startswith("CREATE CONSTRAINT"):
            assert params == {}
            continue
        assert "UNWIND $rows AS row" in query
        assert len(params["rows"]) <= 10
        for row in params["rows"]:
            if "id" in row:
                node_rows[row["id"]] = row["props"]
            else:
                rel_rows.append((query.split("[r:")[1].split("]")[0], row["start"], row["end"]))
        for row in params["rows"]:  # the text travels as data, never inside the query
            for value in (row.get("props") or {}).values():
                if isinstance(value, str) and len(value) > 3:
                    assert value not in query
    assert node_rows == {n.id: n.props for n in g.nodes}
    assert sorted(rel_rows) == sorted((r.type, r.start, r.end) for r in g.relationships)


def test_driver_failure_is_a_user_error(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    with pytest.raises(UserError, match="FakeServiceUnavailable: connection refused"):
        load_bolt(g, "neo4j://db:7687", driver_module=fake_neo4j([], fail_after=2), env=ENV)


def test_cli_loads_with_a_fake_driver(filled, tmp_path: Path, monkeypatch, capsys) -> None:
    log: list = []
    monkeypatch.setitem(sys.modules, "neo4j", fake_neo4j(log))
    monkeypatch.setenv("NEO4J_PASSWORD", "pw")
    monkeypatch.delenv("NEO4J_USER", raising=False)
    rc = main(
        [
            "graph",
            str(filled.path),
            "--store",
            str(filled.store_path),
            "-o",
            str(tmp_path / "g"),
            "--neo4j-uri",
            "bolt://127.0.0.1:7687",
        ]
    )
    assert rc == 0
    assert log[0] == ("driver", "bolt://127.0.0.1:7687", ("neo4j", "pw"))
    assert "loaded into bolt://127.0.0.1:7687" in capsys.readouterr().err
    assert (tmp_path / "g" / "graph.cypher").exists()
