"""htsim's connection matrices (fastpath.fabric.connection_matrix) and its AllReduce generator's
semantics (fastpath.fabric.chain_allreduce), with plain data."""

from __future__ import annotations

import numpy as np
import pytest

from fastpath.fabric import FabricError, FabricFlows, chain_allreduce, run
from fastpath.fabric.connection_matrix import parse_connection_matrix, write_connection_matrix
from fastpath.fabric.topo import leaf_spine
from fastpath.model import RunConfig

SMALL = """# two flows start, a third waits for both, a fourth for the third
Nodes 4
Connections 4
Triggers 2
0->1 id 10 start 2000000 size 5000 send_done_trigger 1
2->3 id 11 start 0 size 6000 recv_done_trigger 1
3->0 id 12 trigger 1 size 7000 send_done_trigger 2
1->2 id 13 trigger 2 size 8000 prio 0
trigger id 1 barrier count 2
trigger id 2 oneshot
"""


def deps_of(flows: FabricFlows) -> list[list[int]]:
    return [sorted(int(d) for d in flows.dep_idx[flows.dep_ptr[i]:flows.dep_ptr[i + 1]]) for i in range(flows.n)]


def problems(text: str) -> str:
    with pytest.raises(FabricError) as exc:
        parse_connection_matrix(text)
    return "; ".join(exc.value.problems)


def test_a_matrix_becomes_flows_with_their_starts_and_dependencies() -> None:
    cm = parse_connection_matrix(SMALL)
    f = cm.flows
    assert cm.nodes == 4 and cm.flow_ids == (10, 11, 12, 13)
    assert f.src.tolist() == [0, 2, 3, 1] and f.dst.tolist() == [1, 3, 0, 2]
    assert f.size.tolist() == [5000, 6000, 7000, 8000]
    assert f.start_s[0] == pytest.approx(2e-6) and f.start_s[1] == 0.0   # picoseconds
    assert deps_of(f) == [[], [], [0, 1], [2]]                            # the barrier waits for both


@pytest.mark.parametrize(("change", "named"), [
    (("0->1 id 10", "0->9 id 10"), "line 5: destination host 9 is not one of the 4 nodes"),
    (("id 11", "id 10"), "line 6: flow id 10 is already used on line 5"),
    (("id 10", "id 0"), "line 5: needs 'id N' with N > 0"),
    (("size 5000", "size 5000 colour red"), "line 5: unknown token 'colour'"),
    (("size 5000", "size lots"), "line 5: size 'lots' is not an integer"),
    (("barrier count 2", "barrier"), "line 9: barrier 1 needs 'count N'"),
    (("barrier count 2", "barrier count 3"), "line 9: barrier 1 counts 3 activations but 2 flows fire it"),
    (("barrier count 2", "oneshot"), "line 9: oneshot trigger 1 is fired by 2 flows"),
    (("trigger id 2 oneshot", "trigger id 2 multishot"), "line 10: multishot trigger"),
    (("trigger id 2 oneshot\n", ""), "trigger 2: used but not defined"),
    (("Connections 4", "Connections 5"), "Connections says 5 but the file has 4"),
    (("Nodes 4", "Nodes 4\nFailures 1"), "failures are not modelled"),
    (("prio 0", "prio 2"), "line 8: prio '2': only priority 0 is modelled"),
    (("id 10 start 2000000", "id 10"), "line 5: needs 'start PS' or 'trigger T'"),
    (("0->1", "0->0"), "line 5: host 0 sends to itself"),
])
def test_every_problem_is_named_with_its_line(change: tuple[str, str], named: str) -> None:
    assert named in problems(SMALL.replace(*change, 1))


def test_several_problems_are_all_named() -> None:
    text = SMALL.replace("0->1 id 10", "0->7 id 10").replace("size 8000", "size 0")
    got = problems(text)
    assert "destination host 7" in got and "line 8: needs 'size BYTES' > 0" in got


def test_a_dependency_loop_is_refused() -> None:
    text = ("Nodes 2\n0->1 id 1 trigger 2 size 10 send_done_trigger 1\n1->0 id 2 trigger 1 size 10 "
            "send_done_trigger 2\ntrigger id 1 oneshot\ntrigger id 2 oneshot\n")
    assert "waits (through triggers) on itself" in problems(text)


def test_written_matrices_read_back_the_same() -> None:
    flows = parse_connection_matrix(SMALL).flows
    back = parse_connection_matrix(write_connection_matrix(flows, 4)).flows
    for column in ("src", "dst", "size", "start_s", "dep_ptr", "dep_idx"):
        assert np.array_equal(getattr(back, column), getattr(flows, column)), column


def test_a_flow_that_two_dependency_sets_need_cannot_be_written() -> None:
    flows = FabricFlows.of([0, 1, 2], [1, 2, 0], 10, deps=[[], [0], [0, 1]])
    with pytest.raises(FabricError, match="flow 0 would fire two triggers"):
        write_connection_matrix(flows, 3)


def test_chain_allreduce_is_htsims_generator_for_the_same_seed() -> None:
    """gen_allreduce.py 128 128 8 1000000 0 1 starts with these five hops (its groups come from Python's
    random.shuffle seeded with 1): 14->46, then 46->71, 71->36, 36->95, 95->113, each triggered by the last."""
    f = chain_allreduce(128, 8, 1_000_000, seed=1)
    assert f.n == 128 * 15
    first = list(zip(f.src[:5].tolist(), f.dst[:5].tolist(), strict=True))
    assert first == [(14, 46), (46, 71), (71, 36), (36, 95), (95, 113)]
    deps = deps_of(f)
    assert deps[:5] == [[], [0], [1], [2], [3]] and deps[15] == []       # the group's second chain starts at once
    text = write_connection_matrix(f, 128)
    assert text.splitlines()[:5] == ["Nodes 128", "Connections 1920", "Triggers 1792",
                                     "14->46 id 1 start 0 size 1000000 send_done_trigger 1",
                                     "46->71 id 2 trigger 1 size 1000000 send_done_trigger 2"]


def test_chain_groups_cover_every_host_once_and_chains_go_round_their_ring() -> None:
    f = chain_allreduce(32, 8, 1000, seed=7, locality=True)
    members = [sorted(set(f.src[f.group == g].tolist())) for g in range(4)]
    assert sorted(h for m in members for h in m) == list(range(32))
    for c in range(32):                                 # 15 hops, each from where the last one went
        hop = slice(15 * c, 15 * c + 15)
        assert np.array_equal(f.src[hop][1:], f.dst[hop][:-1])
        assert f.src[hop][8] == f.src[hop][0]            # back at its start after 8 hops, then 7 more
        assert f.dst[hop][-1] == f.src[hop][7]           # ending at the member before its start


def test_on_a_fabric_each_hop_of_a_chain_starts_after_the_one_before_and_nothing_is_lost() -> None:
    fabric = leaf_spine(2, 2, 4)
    flows = chain_allreduce(8, 4, 200_000, seed=3)
    res = run(fabric, flows, RunConfig(max_time_s=2e-3)).result
    assert not np.isnan(res.flow_finish_s).any() and res.flow_dropped.sum() == 0
    deps = deps_of(flows)
    for i, d in enumerate(deps):
        if d:
            assert res.flow_start_s[i] >= res.flow_finish_s[d[0]]
    wire_s = 200_000 * 8 / 400e9
    chain = res.flow_finish_s[6] - res.flow_start_s[0]  # one chain of 7 hops takes at least 7 serialisations
    assert chain >= 7 * wire_s


@pytest.mark.parametrize(("nodes", "size", "groups"), [(8, 1, None), (8, 16, None), (8, 4, 3), (8, 4, 0)])
def test_chain_groups_that_do_not_fit_the_nodes_are_refused(nodes: int, size: int, groups: int | None) -> None:
    with pytest.raises(FabricError, match="do not fit"):
        chain_allreduce(nodes, size, 1000, seed=1, groups=groups)
