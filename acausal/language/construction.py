"""Creating components: deep legal nesting, endless self-construction, and errors named by the
part's path.

Every component and connector class's ``__init__`` is wrapped by :func:`guard_construction`
(``Node.__init_subclass__`` does it, and ``Node.__init__`` itself is wrapped). The wrapper

* counts the components under construction, one level per component (a class's
  ``super().__init__`` chain is the same level): beyond :data:`MAX_NESTING` levels a component
  builds itself without end, which is reported as a ModelDefinitionError;
* lets legal deep nesting run: Python's recursion limit (1000 frames by default) would stop a
  recursive chain of a few hundred parts (each level takes several frames), so the limit is
  raised as the nesting deepens, to twice the frames in use plus :data:`HEADROOM` (what Python
  allows a program anyway), and restored when the outermost construction returns; binding
  (``Node._bind``, recursive too) does the same through :class:`binding_level`. The C stack a
  level uses (about 1 kB) bounds MAX_NESTING: 2000 levels stay far from the usual 8 MB;
* names the part whose creation failed. A check in a component's ``__init__`` runs before the
  component has a path, so its error can only say ``"TSDA: f_act ..."``. As such an error
  propagates out of the enclosing components' ``__init__``, each level finds the attribute the
  failed part was being assigned to, in the enclosing ``__init__``'s source at the failing
  call (``self.tsda = TSDA(...)``: ``tsda``; an element of a list: ``links[3]``), and the
  outermost level rewrites the message: ``"TSDA 'suspension.tsda': f_act ..."``. The source
  is read with :mod:`ast` at the position of the call (Python >= 3.11 records it per
  instruction; 3.10 uses the line), not by decoding bytecode, which changes between Python
  versions. A helper or a lambda that returns the part is followed to the statement that
  stores it, and so is a local variable that exactly one later statement stores
  (``joint = Joint(...)`` ... ``self.joint = joint``). Where the assignment cannot be read (no
  source, a ``setattr``, a part passed to another call or kept in a dict), the message keeps
  what is known and says where the part was created (the enclosing ``__init__``, file and
  line): a guess is never printed. Value checks that need no
  construction-time decision are better declared as parameter rules
  (:mod:`acausal.language.rules`), which always know the path.
"""

from __future__ import annotations

import ast
import functools
import linecache
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import AcausalError, ModelDefinitionError

__all__ = ["HEADROOM", "MAX_NESTING", "CallSite", "binding_level", "call_site",
           "guard_construction", "nesting_depth"]

#: Deepest nesting of components under construction (parts of parts ...). Deeper is a component
#: that builds itself without end.
MAX_NESTING = 2000
#: Frames left free above the deepest construction level (Python's default recursion limit).
HEADROOM = 1000


@dataclass
class _Level:
    obj: Any  # the component being created
    frame: Any  # the frame of its guarded __init__ call (the outermost one of its super() chain)
    depth: int  # that frame's depth in the stack


class _State(threading.local):
    def __init__(self) -> None:
        self.levels: list[_Level] = []
        self.saved_limit: int | None = None
        self.set_limit: int | None = None
        self.bind_depth = 0  # levels of Node._bind in progress
        self.templates: set[int] = set()  # ids of the templates being instantiated by binding


_state = _State()


def nesting_depth() -> int:
    """How many components are under construction in this thread (0 outside a construction)."""
    return len(_state.levels)


@dataclass
class _FailedPart:
    """What is known of the part whose creation failed, as its error propagates."""

    cls_name: str  # its class
    obj: Any  # the component whose attribute the known path starts at
    parts: list[str] = field(default_factory=list)  # attribute names down to the failed part
    owner: str = ""  # the class whose __init__ made it, when the attribute could not be read
    frame: Any = None  # the guarded frame of the level the known path starts at
    done: bool = False  # no more levels are added (unknown assignment, or the message written)
    site: str = ""  # where the owner created it ("Top.__init__ at model.py, line 9")


def guard_construction(init):
    """Wrap a component class's ``__init__`` (see the module docstring)."""

    @functools.wraps(init)
    def guarded(self, *args, **kwargs):
        state = _state
        levels = state.levels
        if levels and levels[-1].obj is self:  # super().__init__ of the same component
            return init(self, *args, **kwargs)
        if len(levels) >= MAX_NESTING:
            err = ModelDefinitionError(
                f"{type(self).__name__} builds itself recursively: creating it creates parts "
                f"nested more than {MAX_NESTING} deep. A component cannot contain an instance "
                "of itself; build repeated structures as a list of parts (see the chain "
                "examples) or stop the recursion with a size parameter.")
            err._acausal_part = _FailedPart(type(self).__name__, self, done=True)
            raise err
        frame = sys._getframe()
        depth = _frame_depth(frame, levels[-1] if levels else None)
        _make_room(state, depth)
        levels.append(_Level(self, frame, depth))
        try:
            return init(self, *args, **kwargs)
        except RecursionError:
            err = ModelDefinitionError(
                f"{type(self).__name__} builds itself recursively (Python's recursion limit was "
                "reached while creating it): a component cannot contain an instance of itself; "
                "build repeated structures as a list of parts.")
            err._acausal_part = _FailedPart(type(self).__name__, self, done=True)
            raise err from None
        except AcausalError as err:
            _add_level(err, self, frame)
            if len(levels) == 1:  # the outermost construction: write the path into the message
                _write_path(err, _declared_in_class_body(frame.f_back))
            raise
        finally:
            levels.pop()
            if not levels and not state.bind_depth:
                _restore_limit(state)
            # the frame object refers to its own locals, this one among them: a reference
            # cycle that kept every construction's frame (and its callers') alive until the
            # cyclic collector ran, thousands of frames for a large model
            del frame

    guarded._acausal_guarded = True
    return guarded


class binding_level:
    """One level of ``Node._bind`` (a context manager): refuses a template that is already
    being instantiated further up (a class that contains an instance of itself, which binding
    would copy without end) and makes room in the recursion limit as binding deepens, as
    construction does (binding recurses once per level of parts)."""

    __slots__ = ("template", "entered")

    def __init__(self, template: Any = None) -> None:
        self.template = template
        self.entered = False

    def __enter__(self) -> bool:
        """False when the template is already being instantiated (the caller reports it)."""
        state = _state
        if self.template is not None:
            if id(self.template) in state.templates:
                return False
            state.templates.add(id(self.template))
        self.entered = True
        state.bind_depth += 1
        if state.bind_depth % 50 == 0:  # room for the next 50 levels and their parts
            _make_room(state, _frame_depth(sys._getframe(), None) + 500)
        return True

    def __exit__(self, *exc) -> None:
        if not self.entered:
            return
        state = _state
        if self.template is not None:
            state.templates.discard(id(self.template))
        state.bind_depth -= 1
        if not state.bind_depth and not state.levels:
            _restore_limit(state)


# -- where a statement was written -----------------------------------------------------------

@dataclass(frozen=True)
class CallSite:
    """Where a call was made (its caller's code and instruction), for messages that quote the
    call as written: the source is read only when a message needs it."""

    code: Any  # None after pickling (a code object does not pickle): no source then
    lasti: int
    lineno: int
    constructing: bool  # made while components were being created (in an __init__)

    def __reduce__(self):
        return (CallSite, (None, self.lasti, self.lineno, self.constructing))

    def where(self) -> str:
        """``'model.py, line 12'`` (the file's name, not its folder)."""
        if self.code is None:
            return f"line {self.lineno}"
        return f"{_file_name(self.code)}, line {self.lineno}"

    def function(self) -> str:
        """The caller's qualified name (``Oscillator.__init__``), or ``''`` at module level."""
        if self.code is None:
            return ""
        name = getattr(self.code, "co_qualname", self.code.co_name)
        return "" if name == "<module>" else name.replace("<locals>.", "")

    def argument(self, k: int) -> str | None:
        """The source text of the call's argument ``k`` (``'spring.flange_a'``), or None
        when the source cannot be read."""
        if self.code is None:
            return None
        node, _ = _failing_call(self.code, self.lasti, self.lineno)
        if not isinstance(node, ast.Call) or k >= len(node.args):
            return None
        return ast.unparse(node.args[k])


def _file_name(code) -> str:
    """The name of the file of ``code``, without its folder."""
    return code.co_filename.replace("\\", "/").rpartition("/")[2]


def call_site(depth: int = 2) -> CallSite:
    """The call site of the function that calls this one (``depth`` frames up)."""
    frame = sys._getframe(depth)
    return CallSite(frame.f_code, frame.f_lasti, frame.f_lineno, bool(_state.levels))


# -- the recursion limit ---------------------------------------------------------------------

def _frame_depth(frame, parent: _Level | None) -> int:
    """The depth of ``frame`` in the stack, counted from the enclosing level's frame."""
    steps, f = 0, frame
    while f is not None:
        if parent is not None and f is parent.frame:
            return parent.depth + steps
        f = f.f_back
        steps += 1
    return steps


def _make_room(state: _State, depth: int) -> None:
    limit = sys.getrecursionlimit()
    if 2 * depth + HEADROOM <= limit:
        return
    if state.saved_limit is None:
        state.saved_limit = limit
    # twice the frames: Python also counts the C calls between them (a constructor call goes
    # through type.__call__), about one per frame here
    state.set_limit = 2 * depth + HEADROOM
    sys.setrecursionlimit(state.set_limit)


def _restore_limit(state: _State) -> None:
    if state.saved_limit is not None and sys.getrecursionlimit() == state.set_limit:
        sys.setrecursionlimit(state.saved_limit)  # unless someone else changed it meanwhile
    state.saved_limit = state.set_limit = None


# -- naming the part whose creation failed ---------------------------------------------------

def _add_level(err: AcausalError, obj: Any, frame) -> None:
    """Record the failed part (innermost level) or the attribute the enclosing component
    ``obj`` was assigning it to (the levels above)."""
    info = getattr(err, "_acausal_part", None)
    if info is None:
        err._acausal_part = _FailedPart(type(obj).__name__, obj, frame=frame)
        return
    if info.done or info.obj is obj:
        return
    # the traceback entries from this level's __init__ down to the frame that called the
    # constructor of the part below (whose guarded frame is info.frame)
    entries, tb, inside = [], err.__traceback__, False
    while tb is not None and tb.tb_frame is not info.frame:
        if inside:
            entries.append(tb)
        inside = inside or tb.tb_frame is frame
        tb = tb.tb_next
    name = _assigned_attribute(entries, obj) if tb is not None else None
    if name is None:
        info.owner, info.done = type(obj).__name__, True
        if entries:  # where the part was created: the call in the enclosing __init__ (or helper)
            code = entries[-1].tb_frame.f_code
            info.site = (f"{getattr(code, 'co_qualname', code.co_name)} at "
                         f"{_file_name(code)}, line {entries[-1].tb_lineno}")
        return
    info.parts.insert(0, name)
    info.obj, info.frame = obj, frame


def _write_path(err: AcausalError, prefix: str | None) -> None:
    info = getattr(err, "_acausal_part", None)
    if info is None or (info.done and not info.owner):
        return
    parts = ([prefix] if prefix else []) + info.parts
    if not parts and not info.owner:
        return
    where = f"{info.cls_name} '{'.'.join(parts)}'" if parts else info.cls_name
    if info.owner:
        of = f" of a {type(info.obj).__name__}" if info.parts else ""
        site = info.site or f"the creation of a {info.owner}"
        where += (f"{of} (created in {site}, not stored in an attribute by that statement, so "
                  "its path in the model is not known yet)")
    text = str(err.args[0]) if err.args else ""
    cls = info.cls_name
    if text.startswith(cls + ":") or text.startswith(cls + " "):
        text = where + text[len(cls):]
    elif not text.startswith(f"{cls} '"):
        text = f"{where}: {text}"
    err.args = (text, *err.args[1:])
    info.done, info.owner = True, ""


def _assigned_attribute(entries: list, owner: Any) -> str | None:
    """The attribute of ``owner`` that the failing part was being assigned to, read from the
    source of the calls in ``entries`` (traceback entries, outermost first, down to the one that
    called the part's constructor): ``self.body = Body(...)`` gives ``'body'``, an element of a
    list ``'links[2]'``. A helper that returns the part is followed to its caller. None when
    the assignment cannot be read."""
    index = ""
    pending: int | None = None  # the element a comprehension frame was building
    for tb in reversed(entries):
        code = tb.tb_frame.f_code
        if code.co_name in ("<listcomp>", "<genexpr>"):
            pending = _iterator_position(tb.tb_frame)
            continue
        if code.co_name == "<lambda>":  # a factory: its caller stores what it returns
            continue
        if code.co_name == "guarded" and code.co_filename == __file__:
            continue  # the wrapper of a base class's __init__ (same component)
        node, parents = _failing_call(code, tb.tb_lasti, tb.tb_lineno)
        if node is None:
            return None
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            index = (f"[{pending}]" if pending is not None else "[?]") + index
        outcome = _statement_target(node, parents, tb.tb_frame, owner)
        if outcome is None:
            return None
        kind, text = outcome
        if kind == "attribute":
            return text + index
        index = text + index  # kind == "return": the caller assigns what the helper returns
        pending = None
    return None


def _statement_target(node, parents, frame, owner) -> tuple[str, str] | None:
    """How the statement containing ``node`` uses it: ('attribute', name + element index) when
    it assigns it to an attribute of ``owner``, ('return', element index) when it returns it;
    None otherwise."""
    index = ""
    child = node
    for parent in parents:
        if isinstance(parent, (ast.List, ast.Tuple)) and child in parent.elts:
            index = f"[{parent.elts.index(child)}]" + index
        elif isinstance(parent, (ast.ListComp, ast.GeneratorExp)) and child is parent.elt:
            index = "[?]" + index  # Python >= 3.12 inlines the comprehension: position unknown
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            for target in targets:
                if _is_attribute_of(target, frame, owner):
                    return "attribute", target.attr + index
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and parents:
                # a local variable (``joint = Revolute(...)``): the one statement of the
                # function that stores it in an attribute (``self.joint = joint``), if any
                stored = _stored_later(parents[-1], parent, targets[0].id, frame, owner)
                if stored is not None:
                    return "attribute", stored + index
            return None
        elif isinstance(parent, ast.Return):
            return "return", index
        elif not (isinstance(parent, ast.IfExp) and child is not parent.test):
            return None  # an argument, an operand, a dict value...: not the part stored as is
        child = parent
    return None


def _stored_later(function: ast.AST, statement: ast.AST, name: str, frame, owner: Any
                  ) -> str | None:
    """The attribute (with an element index) of ``owner`` that the local variable ``name``,
    assigned by ``statement``, is stored in by a later statement of ``function``
    (``self.joint = joint``, ``self.joints = [a, joint]``): read from the source, only when
    exactly one statement does so and no later statement assigns the variable again."""
    found: list[str] = []
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign) or node.lineno <= statement.lineno:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return None  # assigned again: which value is stored is not known from the source
        value, index = node.value, ""
        if isinstance(value, (ast.List, ast.Tuple)):
            positions = [k for k, e in enumerate(value.elts)
                         if isinstance(e, ast.Name) and e.id == name]
            if len(positions) != 1:
                continue
            index = f"[{positions[0]}]"
        elif not (isinstance(value, ast.Name) and value.id == name):
            continue
        found.extend(t.attr + index for t in node.targets if _is_attribute_of(t, frame, owner))
    return found[0] if len(found) == 1 else None


def _is_attribute_of(target: ast.AST, frame, owner: Any) -> bool:
    """``target`` is ``name.attr`` with ``name`` bound to ``owner`` in ``frame``."""
    return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and frame.f_locals.get(target.value.id) is owner)


def _iterator_position(frame) -> int | None:
    """Which element a comprehension frame (Python 3.10, 3.11) was building: the position of its
    iterator (a range's or a list's, read from the iterator's state), None when not known."""
    iterator = frame.f_locals.get(".0")
    try:
        state = iterator.__reduce__()
    except (AttributeError, TypeError):
        return None
    if len(state) == 3 and isinstance(state[2], int) and state[2] >= 1:
        return state[2] - 1
    return None


def _failing_call(code, lasti: int, lineno: int) -> tuple[ast.AST | None, list[ast.AST]]:
    """The expression node of the call at instruction ``lasti`` of ``code`` and its ancestors
    (innermost first) up to the function's statement."""
    function = _function_node(code)
    if function is None:
        return None, []
    position = None
    if hasattr(code, "co_positions"):  # Python >= 3.11: the call's exact columns
        positions = list(code.co_positions())
        if 0 <= lasti // 2 < len(positions):
            position = positions[lasti // 2]
    parents: dict[ast.AST, ast.AST] = {}
    best = None
    for parent in ast.walk(function):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
            if not isinstance(child, ast.expr) or getattr(child, "lineno", None) is None:
                continue
            if position is not None and None not in position:
                hit = (child.lineno, child.end_lineno, child.col_offset,
                       child.end_col_offset) == tuple(position)
            else:  # Python 3.10: the only call on the failing line
                hit = isinstance(child, ast.Call) and child.lineno == lineno
                if hit and best is not None:
                    return None, []  # two calls on the line: which one failed is not known
            if hit:
                best = child
    if best is None:
        return None, []
    chain, node = [], best
    while node in parents:
        node = parents[node]
        chain.append(node)
    return best, chain


def _function_node(code) -> ast.AST | None:
    """The ``def`` of ``code`` in its source file (None when the source is not available)."""
    tree = _parsed(code.co_filename)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name == code.co_name \
                and (node.lineno == code.co_firstlineno
                     or any(d.lineno == code.co_firstlineno for d in node.decorator_list)):
            return node
    return None


@functools.lru_cache(maxsize=64)
def _parsed_text(filename: str, text: str) -> ast.AST | None:
    try:
        return ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None


def _parsed(filename: str) -> ast.AST | None:
    lines = linecache.getlines(filename)
    return _parsed_text(filename, "".join(lines)) if lines else None


def _declared_in_class_body(frame) -> str | None:
    """``'Model.tsda'`` when ``frame`` (the caller of the outermost construction) is a class
    body assigning the new part to a name: a part declared as a class attribute."""
    if frame is None:
        return None
    names = frame.f_locals
    if not isinstance(names, dict) or "__qualname__" not in names or "__module__" not in names:
        return None
    owner = str(names["__qualname__"]).rpartition("<locals>.")[2]  # a class made in a function
    code = frame.f_code
    tree = _parsed(code.co_filename)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.lineno <= frame.f_lineno <= node.end_lineno:
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and stmt.lineno <= frame.f_lineno \
                        <= stmt.end_lineno and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name):
                    return f"{owner}.{stmt.targets[0].id}"
    return None
