"""The virtual connection graph of overdetermined connectors (Modelica specification 9.4).

Nodes are the connectors whose class declares an :class:`~acausal.Overdetermined` record
(a 3-D frame's orientation). Edges are

* ``connect(a, b)`` statements: *breakable*. A connect edge of the spanning tree equates the
  record element by element; one that closes a loop gives the record's reduced residue instead
  (3 equations for a rotation instead of 9 equalities, 6 of which would be redundant);
* ``branch(a, b)`` statements of components: *rigid*. The component's own equations relate the
  two records, so a branch is always in the tree, and a loop made of branches alone cannot be
  broken anywhere (an error).

Each tree of the forest has exactly one root: its definite ``root``, else the ``potential_root``
with the smallest priority (ties: the first in the model's declaration order), else it is an error
that names the part's connectors. A connect statement that would join two trees that each have a
definite root is treated as closing a loop (a mechanism between the world and a fixed frame: the
residue relates the two), as the Modelica specification does; two definite roots joined by
branches alone are an error.

Everything is deterministic: connectors in the model's depth-first declaration order, branches
first and then connect statements in the order the components state them (Kruskal: a connect
that joins two already joined connectors closes a loop). So the loop of a mechanism written in
loop order is closed by its last connect statement, in every process.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import ModelDefinitionError


@dataclass
class GraphEdge:
    """A connect or branch edge between two connectors (by index), and who stated it."""

    a: int
    b: int
    rigid: bool  # a branch
    stated_by: str  # the path of the component that stated it ('' for the root)


@dataclass
class Loop:
    """A kinematic (or other) loop closed by a connect edge: its residue replaces equalities."""

    a: Any  # the two connectors of the closing connect edge
    b: Any
    stated_by: str
    components: list[str]  # paths of the components whose branches form the loop, in order
    hint: str  # the record's advice for a redundant loop


@dataclass
class GraphResult:
    """What the flattening needs from the graph."""

    tree_connects: list[tuple[Any, Any]] = field(default_factory=list)  # equate element-wise
    loops: list[Loop] = field(default_factory=list)  # equate by residue
    roots: list[Any] = field(default_factory=list)  # the selected root of each part


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: int, b: int) -> bool:
        """Join the sets of a and b; False when they were already one set."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[max(ra, rb)] = min(ra, rb)
        return True


def build_connection_graph(connectors: list, connects: list[tuple[Any, Any, str]],
                           branches: list[tuple[Any, Any, str]],
                           roots: list[tuple[Any, bool, int, str]]) -> GraphResult:
    """Select roots and a spanning tree; mark every connector with ``_graph_root`` and every
    first argument of a branch with ``_rooted``.

    ``connectors``: every connector with an overdetermined record, in declaration order;
    ``connects``/``branches``: (a, b, stating component path) in statement order; ``roots``:
    (connector, definite, priority, stating component path).
    """
    index = {id(c): i for i, c in enumerate(connectors)}
    n = len(connectors)
    edges = [GraphEdge(index[id(a)], index[id(b)], True, who) for a, b, who in branches]
    edges += [GraphEdge(index[id(a)], index[id(b)], False, who) for a, b, who in connects]

    tree = _UnionFind(n)
    # tree representative -> the definite root in that tree
    grounded = {index[id(c)]: index[id(c)] for c, is_definite, _, _ in roots if is_definite}
    by_connects = _UnionFind(n)  # parts joined by connect statements alone
    adjacency: list[list[int]] = [[] for _ in range(n)]
    closing: list[GraphEdge] = []
    redundant: set[int] = set()  # closing connects whose ends other connects already join
    for e in edges:
        ra, rb = tree.find(e.a), tree.find(e.b)
        both_grounded = ra in grounded and rb in grounded
        if ra != rb and not (both_grounded and not e.rigid):
            if both_grounded:
                raise ModelDefinitionError(
                    f"Two roots in one rigid part of the model: '{connectors[grounded[ra]].path}' "
                    f"and '{connectors[grounded[rb]].path}' are joined by the rigid relation "
                    f"(branch) of '{e.stated_by or '<root>'}', so both would fix the same "
                    "orientation. Keep one root (e.g. one World or Fixed) per rigid part.")
            tree.union(e.a, e.b)
            root_of = grounded.pop(ra, None)
            if root_of is None:
                root_of = grounded.pop(rb, None)
            else:
                grounded.pop(rb, None)
            if root_of is not None:
                grounded[tree.find(e.a)] = root_of
            adjacency[e.a].append(e.b)
            adjacency[e.b].append(e.a)
        elif e.rigid:
            raise ModelDefinitionError(
                f"The branches of {_names([e.stated_by])} and of the components that join "
                f"'{connectors[e.a].path}' and '{connectors[e.b].path}' form a loop of rigid "
                "relations (branch statements) with no connect statement in it, so the loop "
                "cannot be closed: connect the parts with connect() instead of building the loop "
                "inside components.")
        else:  # closes a loop, or joins two parts that each have their own root
            closing.append(e)
        if not e.rigid and not by_connects.union(e.a, e.b):
            redundant.add(id(e))

    parts: dict[int, list[int]] = {}
    for i in range(n):
        parts.setdefault(tree.find(i), []).append(i)
    potential: dict[int, list[tuple[int, int]]] = {}
    for connector, is_definite, priority, _ in roots:
        i = index[id(connector)]
        if not is_definite:
            potential.setdefault(tree.find(i), []).append((priority, i))

    result = GraphResult()
    depth = [-1] * n
    parent = [-1] * n
    for part_id in sorted(parts):
        members = parts[part_id]
        if part_id in grounded:
            chosen = grounded[part_id]
        elif potential.get(part_id):
            chosen = min(potential[part_id])[1]
        else:
            shown = ", ".join(f"'{connectors[i].path}'" for i in members[:6])
            more = f" and {len(members) - 6} more" if len(members) > 6 else ""
            raise ModelDefinitionError(
                f"The connectors {shown}{more} form a part of the model whose "
                f"{type(connectors[members[0]]).__name__} orientation nothing determines: the "
                "part has no root (such as a World or a fixed frame) and no part that may serve "
                "as one (such as a Body). Connect it to the rest of the model or add a body or "
                "a fixed frame.")
        result.roots.append(connectors[chosen])
        depth[chosen] = 0
        queue = deque([chosen])
        while queue:  # breadth first, neighbours in edge order
            i = queue.popleft()
            for j in adjacency[i]:
                if depth[j] < 0:
                    depth[j] = depth[i] + 1
                    parent[j] = i
                    queue.append(j)

    roots_set = {id(c) for c in result.roots}
    definite = {id(c) for c, is_definite, _, _ in roots if is_definite}
    for i, c in enumerate(connectors):
        object.__setattr__(c, "_graph_root", id(c) in roots_set)
        # the spanning tree towards the root, for checks that follow a part's chain to it
        # (a body's inertia matters about the axes the joints on that chain let it turn)
        object.__setattr__(c, "_graph_parent", connectors[parent[i]] if parent[i] >= 0 else None)
        object.__setattr__(c, "_graph_fixed", id(c) in definite)
    for a, b, _ in branches:
        if getattr(a, "_rooted", None) is None:
            object.__setattr__(a, "_rooted", depth[index[id(a)]] < depth[index[id(b)]])

    owner_of = {}
    for e in edges:
        if e.rigid:
            owner_of[(e.a, e.b)] = owner_of[(e.b, e.a)] = e.stated_by
    closing_ids = {id(e) for e in closing}
    for e in edges:
        if e.rigid:
            continue
        a, b = connectors[e.a], connectors[e.b]
        if id(e) not in closing_ids:
            result.tree_connects.append((a, b))
            continue
        if id(e) in redundant:
            continue  # a repeated connect, or one within a connection set: nothing new
        path = _tree_path(e.a, e.b, parent, depth)
        components = []
        for x, y in zip(path, path[1:]):
            who = owner_of.get((x, y))
            if who is not None and who not in components:
                components.append(who)
        result.loops.append(Loop(a, b, e.stated_by, components,
                                 type(a).overdetermined.loop_hint))
    return result


def _tree_path(a: int, b: int, parent: list[int], depth: list[int]) -> list[int]:
    """The nodes of the tree path from a to b (through the ground, root to root, when they are
    in two trees that each have a definite root)."""
    left, right = [a], [b]
    while left[-1] != right[-1]:
        if depth[left[-1]] == 0 and depth[right[-1]] == 0:  # two roots: the ground joins them
            return left + right[::-1]
        if depth[left[-1]] >= depth[right[-1]]:
            left.append(parent[left[-1]])
        else:
            right.append(parent[right[-1]])
    return left + right[-2::-1]


def _names(paths: list[str]) -> str:
    return ", ".join(f"'{p or '<root>'}'" for p in paths)
