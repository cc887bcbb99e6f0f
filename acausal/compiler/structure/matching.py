"""Maximum bipartite matching between equations and variables (integer graphs only).

Augmenting paths are searched iteratively (no recursion), so chains of many thousand equations
do not hit Python's recursion limit. A cheap greedy pass first matches most equations, which keeps
the total cost near-linear for the sparse systems of component models.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


class Matching:
    """A matching between equations ``0..n_eqs-1`` and variables ``0..n_vars-1``.

    ``eq_to_var[e]`` / ``var_to_eq[v]`` are -1 where unmatched. The lists grow when equations or
    variables are added (Pantelides adds both).
    """

    def __init__(self, n_eqs: int, n_vars: int) -> None:
        self.eq_to_var = [-1] * n_eqs
        self.var_to_eq = [-1] * n_vars

    def grow(self, n_eqs: int, n_vars: int) -> None:
        self.eq_to_var.extend([-1] * (n_eqs - len(self.eq_to_var)))
        self.var_to_eq.extend([-1] * (n_vars - len(self.var_to_eq)))

    def augment(
        self,
        eq: int,
        incidence: Sequence[Sequence[int]],
        allowed: Callable[[int], bool] | None = None,
        visited_eqs: list[int] | None = None,
        visited_vars: list[int] | None = None,
    ) -> bool:
        """Search an augmenting path from the unmatched equation ``eq``; apply it if found.

        ``allowed(v)`` restricts the variables that may be matched (Pantelides: highest
        derivatives only). When the search fails, the visited equations and variables (the
        structurally singular subset) are appended to ``visited_eqs`` / ``visited_vars``.
        """
        var_to_eq = self.var_to_eq
        seen_vars: set[int] = set()
        seen_eqs = {eq}
        order_eqs = [eq]
        order_vars: list[int] = []
        # Cheap lookahead (as in Duff's MC21): a free variable next to the root ends the search.
        for v in incidence[eq]:
            if var_to_eq[v] == -1 and (allowed is None or allowed(v)):
                self.eq_to_var[eq] = v
                var_to_eq[v] = eq
                return True
        # Depth-first search; parent links give the alternating path back to ``eq``.
        parent_eq: dict[int, int] = {}
        stack = [(eq, iter(incidence[eq]))]
        while stack:
            e, it = stack[-1]
            advanced = False
            for v in it:
                if v in seen_vars or (allowed is not None and not allowed(v)):
                    continue
                seen_vars.add(v)
                order_vars.append(v)
                owner = var_to_eq[v]
                if owner == -1:
                    # Free variable found: every equation on the path takes the variable
                    # through which the search left it.
                    while True:
                        old_v = self.eq_to_var[e]
                        self.eq_to_var[e] = v
                        var_to_eq[v] = e
                        if e == eq:
                            return True
                        v, e = old_v, parent_eq[e]
                if owner not in seen_eqs:
                    seen_eqs.add(owner)
                    order_eqs.append(owner)
                    parent_eq[owner] = e
                    # lookahead from the new equation before descending further
                    for w in incidence[owner]:
                        if var_to_eq[w] == -1 and w not in seen_vars and \
                                (allowed is None or allowed(w)):
                            seen_vars.add(w)
                            order_vars.append(w)
                            e2, v2 = owner, w
                            while True:
                                old_v = self.eq_to_var[e2]
                                self.eq_to_var[e2] = v2
                                var_to_eq[v2] = e2
                                if e2 == eq:
                                    return True
                                v2, e2 = old_v, parent_eq[e2]
                    stack.append((owner, iter(incidence[owner])))
                    advanced = True
                    break
            if not advanced:
                stack.pop()
        if visited_eqs is not None:
            visited_eqs.extend(order_eqs)
        if visited_vars is not None:
            visited_vars.extend(order_vars)
        return False


def maximum_matching(
    n_eqs: int,
    n_vars: int,
    incidence: Sequence[Sequence[int]],
    allowed: Callable[[int], bool] | None = None,
    in_order: bool = False,
    any_perfect: bool = False,
) -> Matching:
    """Greedy start, then augmenting paths from every still unmatched equation.

    With ``in_order`` each equation prefers its variables in the order of its incidence list
    (callers sort by preference), the least shared variable first otherwise. Without either
    preference or ``allowed``, a Karp-Sipser start (:func:`_karp_sipser`) is tried first and
    kept when it completes to a perfect matching (the usual, regular model).

    ``any_perfect``: the caller only asks whether a perfect matching exists (the structural
    check), so Karp-Sipser's is completed in phases (:func:`_complete_in_phases`, cheaper on
    long chains). Otherwise it is completed one equation after another, as before: which
    equation a perfect matching gives each variable steers tearing and the elimination of
    linear blocks (with the phases the 20-link spatial chain's right-hand side took 28 339
    instructions instead of 26 368).
    """
    if not in_order and allowed is None:
        m = _karp_sipser(n_eqs, n_vars, incidence)
        if any_perfect:
            complete = _complete_in_phases(m, incidence)
        else:
            complete = all(m.eq_to_var[e] != -1 or m.augment(e, incidence)
                           for e in range(n_eqs))
        if complete and -1 not in m.var_to_eq:
            return m
        # not perfect: the matching below decides which equations and variables are left
        # over, as the error messages have always named them (the later of two conflicting
        # equations, in declaration order)
    m = Matching(n_eqs, n_vars)
    degree = [0] * n_vars
    for e in range(n_eqs):
        for v in incidence[e]:
            degree[v] += 1
    # Greedy start: equations with few variables first, each taking its least shared variable.
    for e in sorted(range(n_eqs), key=lambda e: len(incidence[e])):
        best = -1
        for v in incidence[e]:
            if m.var_to_eq[v] == -1 and (allowed is None or allowed(v)) and \
                    (best == -1 or degree[v] < degree[best]):
                best = v
                if in_order:
                    break
        if best != -1:
            m.var_to_eq[best] = e
            m.eq_to_var[e] = best
    for e in range(n_eqs):
        if m.eq_to_var[e] == -1:
            m.augment(e, incidence, allowed)
    return m


def _complete_in_phases(m: Matching, incidence: Sequence[Sequence[int]]) -> bool:
    """Augment ``m`` from its unmatched equations in phases (Pothen and Fan, "Computing the
    block triangular form of a sparse matrix", ACM TOMS 16(4), 1990: depth-first search with
    lookahead): within a phase a variable is visited once over all the searches, so a phase
    costs one pass over the graph however many equations it serves; phases repeat while one
    augments. Separate searches (:meth:`Matching.augment`) each cross the whole chain again:
    Karp-Sipser leaves 95 equations of a 100-link spatial chain, and its structural check took
    0.39 s with them, 0.13 s in phases. Whether every equation is matched."""
    eq_to_var, var_to_eq = m.eq_to_var, m.var_to_eq
    unmatched = [e for e in range(len(eq_to_var)) if eq_to_var[e] == -1]
    while unmatched:
        seen = bytearray(len(var_to_eq))  # variables visited in this phase
        for root in unmatched:
            stack = [(root, iter(incidence[root]))]
            while stack:
                e, it = stack[-1]
                free = next((v for v in incidence[e] if var_to_eq[v] == -1 and not seen[v]),
                            -1)  # lookahead: a free variable next to e ends the search
                if free != -1:
                    seen[free] = 1
                    for e2, _ in reversed(stack):  # each equation takes the next variable
                        free, eq_to_var[e2] = eq_to_var[e2], free
                        var_to_eq[eq_to_var[e2]] = e2
                    break
                for v in it:
                    if not seen[v]:
                        seen[v] = 1
                        stack.append((var_to_eq[v], iter(incidence[var_to_eq[v]])))
                        break
                else:
                    stack.pop()
        still = [e for e in unmatched if eq_to_var[e] == -1]
        if len(still) == len(unmatched):
            return False
        unmatched = still
    return True


def _karp_sipser(n_eqs: int, n_vars: int, incidence: Sequence[Sequence[int]]) -> Matching:
    """Karp and Sipser's greedy matching (FOCS 1981; the start of Duff, Kaya and Ucar's
    matching codes): a vertex with one unmatched neighbour left must take it in some maximum
    matching, so such pairs are matched first, and only when none is left does an equation with
    the fewest variables take its least shared one. On the chains and trees of component models
    this leaves almost nothing for the augmenting paths, whose searches can each cross the
    whole chain (a 100-link spatial chain needed thousands after the plain greedy start)."""
    m = Matching(n_eqs, n_vars)
    eq_to_var, var_to_eq = m.eq_to_var, m.var_to_eq
    # each equation's variables and each variable's equations without repeats (a repeat is
    # rare: marked by the last equation that listed the variable, not found by a set per list)
    incidence = list(incidence)
    eqs_of: list[list[int]] = [[] for _ in range(n_vars)]
    last = [-1] * n_vars
    for e, inc in enumerate(incidence):
        repeated = False
        for v in inc:
            if last[v] == e:
                repeated = True
                continue
            last[v] = e
            eqs_of[v].append(e)
        if repeated:
            incidence[e] = list(dict.fromkeys(inc))
    eq_degree = [len(inc) for inc in incidence]
    var_degree = [len(es) for es in eqs_of]
    eq_done = [False] * n_eqs
    var_done = [False] * n_vars
    # vertices with one unmatched neighbour left: equation e as e, variable v as ~v (< 0);
    # stale entries are skipped when popped
    ones = [e for e in range(n_eqs) if eq_degree[e] == 1] + \
        [~v for v in range(n_vars) if var_degree[v] == 1]
    order = sorted(range(n_eqs), key=eq_degree.__getitem__)  # the lengths, before any take
    next_greedy = 0

    def take(e: int, v: int) -> None:
        eq_to_var[e], var_to_eq[v] = v, e
        eq_done[e] = var_done[v] = True
        for w in incidence[e]:  # the variables of e lose an equation
            if not var_done[w]:
                var_degree[w] -= 1
                if var_degree[w] == 1:
                    ones.append(~w)
        for f in eqs_of[v]:  # the equations of v lose a variable
            if not eq_done[f]:
                eq_degree[f] -= 1
                if eq_degree[f] == 1:
                    ones.append(f)

    while True:
        while ones:
            k = ones.pop()
            if k >= 0:
                if eq_done[k] or eq_degree[k] != 1:
                    continue
                for v in incidence[k]:
                    if not var_done[v]:
                        take(k, v)
                        break
            else:
                k = ~k
                if var_done[k] or var_degree[k] != 1:
                    continue
                for e in eqs_of[k]:
                    if not eq_done[e]:
                        take(e, k)
                        break
        # no forced pair left: the plain greedy rule once, then forced pairs again
        while next_greedy < n_eqs and (eq_done[order[next_greedy]] or
                                       eq_degree[order[next_greedy]] == 0):
            next_greedy += 1
        if next_greedy == n_eqs:
            return m
        e = order[next_greedy]
        v = min((w for w in incidence[e] if not var_done[w]), key=lambda w: var_degree[w])
        take(e, v)
