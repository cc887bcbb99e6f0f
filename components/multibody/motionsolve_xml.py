"""Read Altair MotionSolve ``<Force_JointFriction .../>`` elements and put them on 3-D joints.

:func:`read_force_joint_friction` reads the elements of an XML file or string into plain dicts
(``id``, ``label``, ``joint_id`` and the attribute values, converted to SI);
:func:`from_motionsolve_xml` turns the plain joints of a model (:class:`~.joints.Revolute`,
:class:`~.joints.Prismatic`, :class:`~.joints.Cylindrical`, :class:`~.joints.Spherical`,
:class:`~.joints.Universal`) into the matching friction joints of
:mod:`acausal.components.multibody.joint_friction`, with the joint's own options and the
element's attributes as parameters::

    joints = {301001: Revolute(n=(0, 0, 1)), 301002: Prismatic(n=(1, 0, 0))}
    built = from_motionsolve_xml("model.xml", joints, units="N-mm-s")
    built[301001]          # RevoluteWithFriction(n=(0, 0, 1), mu_static=..., pin_radius=...)

The attributes, their joint types, defaults and units are those of the MotionSolve reference
guide's ``Force_JointFriction`` model element (its *Format* blocks, one per joint type); see
``docs/motionsolve_xml.md`` for the table, the unit conversions and the errors.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from xml.parsers import expat

from acausal import Parameter
from acausal.errors import AcausalError, InputError, ParameterError, did_you_mean

from .joints import Cylindrical, Prismatic, Revolute, Spherical, Universal

__all__ = ["ATTRIBUTES", "JOINT_ATTRIBUTES", "UNIT_FACTORS", "from_motionsolve_xml",
           "read_force_joint_friction"]

#: The element's tag (matched case-insensitively, without a namespace prefix).
TAG = "Force_JointFriction"

#: Attributes every joint type has (besides ``id``, ``label``, ``joint_id``).
COMMON_ATTRIBUTES = ("mu_static", "mu_dynamic", "max_stiction_deform", "bristle_stiffness",
                     "damping_effects", "viscous_effects", "stiction_trans_vel", "inactive",
                     "effect", "inputs")

#: The joint-specific attributes of each MotionSolve joint type (the seed's Format blocks).
JOINT_ATTRIBUTES = {
    "Revolute": ("torque_preload", "friction_arm", "bending_reaction_arm", "pin_radius"),
    "Spherical": ("torque_preload", "ball_radius"),
    "Translational": ("force_preload", "reaction_arm", "initial_overlap", "overlap_delta"),
    "Cylindrical": ("force_preload", "torque_preload", "pin_radius", "initial_overlap",
                    "overlap_delta"),
    "Universal": ("torque_preload", "friction_arm", "bending_reaction_arm", "pin_radius",
                  "yoke_choice"),
}

_IDENTITY = ("id", "label", "joint_id")

#: Every attribute a ``Force_JointFriction`` element can have, in the order of the Format blocks.
ATTRIBUTES = _IDENTITY + COMMON_ATTRIBUTES + tuple(dict.fromkeys(
    name for names in JOINT_ATTRIBUTES.values() for name in names))

#: MotionSolve joint type of each plain joint class, and the friction class that replaces it.
_JOINT_TYPES = {Revolute: "Revolute", Prismatic: "Translational", Cylindrical: "Cylindrical",
                Spherical: "Spherical", Universal: "Universal"}
_FRICTION_CLASSES = {"Revolute": "RevoluteWithFriction", "Translational": "PrismaticWithFriction",
                     "Cylindrical": "CylindricalWithFriction",
                     "Spherical": "SphericalWithFriction", "Universal": "UniversalWithFriction"}

_POSITIVE = ("mu_static", "mu_dynamic")
_NON_NEGATIVE = ("max_stiction_deform", "stiction_trans_vel", "bristle_stiffness",
                 "damping_effects", "viscous_effects", "friction_arm", "reaction_arm",
                 "bending_reaction_arm", "pin_radius", "ball_radius", "initial_overlap")
_REAL = ("force_preload", "torque_preload")
_KEYWORDS = {
    "effect": ("All", "Stiction", "Sliding"),
    "inactive": ("None", "Static"),
    "overlap_delta": ("Constant", "Increase", "Decrease"),
    "yoke_choice": ("I_YOKE", "J_YOKE"),
}

#: Factor from the file's units to SI, per attribute (attributes not listed: factor 1).
UNIT_FACTORS = {
    "SI": {},
    "N-mm-s": {
        "max_stiction_deform": 1e-3, "friction_arm": 1e-3, "reaction_arm": 1e-3,
        "bending_reaction_arm": 1e-3, "pin_radius": 1e-3, "ball_radius": 1e-3,
        "initial_overlap": 1e-3,                     # mm -> m
        "stiction_trans_vel": 1e-3,                  # mm/s -> m/s
        "force_preload": 1.0,                        # N
        "torque_preload": 1e-3,                      # N.mm -> N.m
        "bristle_stiffness": 1e3,                    # N/mm -> N/m
        "damping_effects": 1e3, "viscous_effects": 1e3,   # N.s/mm -> N.s/m
    },
}

#: Names of MotionSolve's Python API / Adams statement that are not XML attribute names.
_ALIASES = {"joint": "joint_id", "yoke": "yoke_choice",
            "stiction_transition_velocity": "stiction_trans_vel",
            "max_stiction_deformation": "max_stiction_deform",
            "friction_force_preload": "force_preload",
            "friction_torque_preload": "torque_preload", "input_forces": "inputs"}

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
#: An attribute value in typographic quotes (as the reference guide prints its Format blocks).
_CURLY_VALUE = re.compile(r"(=\s*)[\u201c\u201d]([^\u201c\u201d\"<>]*)[\u201c\u201d]")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_WRAPPER = "_acausal_root"


class _Element:
    """One ``Force_JointFriction`` element as read: its attributes (lower-case name ->
    (name as written, value)) and its line in the source."""

    def __init__(self, line: int, attributes: dict[str, tuple[str, str]], source: str):
        self.line = line
        self.attributes = attributes
        self.source = source
        self.id: int | None = None
        self.label: str | None = None
        self.twice: list[tuple[str, str]] = []   # attributes given twice (names as written)

    def where(self) -> str:
        """'Force_JointFriction id=3 (label 'x', line 7 of model.xml)' for messages."""
        what = f"{TAG} id={self.id}" if self.id is not None else f"{TAG} element"
        extra = [f"label {self.label!r}"] if self.label else []
        extra.append(f"line {self.line} of {self.source}")
        return f"{what} ({', '.join(extra)})"


# ----------------------------------------------------------------------------------------------
# Reading the XML
# ----------------------------------------------------------------------------------------------


def _source_text(path_or_string) -> tuple[str, str]:
    """The XML text and a name for messages (the file path or 'the XML string')."""
    if isinstance(path_or_string, str) and path_or_string.lstrip("\ufeff \t\r\n").startswith("<"):
        return path_or_string.lstrip("\ufeff"), "the XML string"
    if isinstance(path_or_string, str) and not path_or_string.strip():
        raise InputError("path_or_string is empty: give the path of a MotionSolve XML file "
                         "or the XML itself.")
    if not isinstance(path_or_string, (str, PathLike)):
        raise InputError(f"path_or_string must be a file path (str or "
                         f"pathlib.Path) or an XML string; got a {type(path_or_string).__name__}.")
    path = Path(path_or_string)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"Cannot read the MotionSolve file '{path}': {err.strerror or err}. "
                         "Give the path of an existing XML file, or the XML itself as a string "
                         "starting with '<'.") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text, f"'{path}'"


def _straight_quotes(text: str) -> str:
    """Attribute values in typographic quotes (the reference guide's “...”) in straight ones."""
    return _CURLY_VALUE.sub(lambda m: m.group(1) + '"' + m.group(2) + '"', text)


def _expat_elements(text: str, source: str) -> list[_Element]:
    """Every Force_JointFriction element of ``text`` (raises expat.ExpatError)."""
    found: list[_Element] = []
    parser = expat.ParserCreate()
    parser.ordered_attributes = True

    def start(name, attrs):
        if name.rsplit(":", 1)[-1].lower() != TAG.lower():
            return
        el = _Element(parser.CurrentLineNumber, {}, source)
        for written, value in zip(attrs[::2], attrs[1::2]):
            key = written.rsplit(":", 1)[-1].lower()
            if key in el.attributes:
                el.twice.append((el.attributes[key][0], written))
            else:
                el.attributes[key] = (written, value)
        found.append(el)

    parser.StartElementHandler = start
    parser.Parse(text, True)
    return found


def _parse(text: str, source: str) -> list[_Element]:
    text = _straight_quotes(text)
    try:
        return _expat_elements(text, source)
    except expat.ExpatError as err:
        if err.code != expat.errors.codes[expat.errors.XML_ERROR_JUNK_AFTER_DOC_ELEMENT]:
            _raise_malformed(err, source, err.lineno, err.offset)
    # Several elements without a root: wrap them. The wrapper goes on the first line and the XML
    # declaration (if any) becomes blanks, so that lines and columns still hold.
    body = _XML_DECLARATION.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text, count=1)
    try:
        return _expat_elements(f"<{_WRAPPER}>{body}</{_WRAPPER}>", source)
    except expat.ExpatError as err:
        shift = len(_WRAPPER) + 2 if err.lineno == 1 else 0
        _raise_malformed(err, source, err.lineno, err.offset - shift)


def _raise_malformed(err, source: str, line: int, column: int):
    raise ParameterError(
        f"Malformed XML in {source}: {expat.ErrorString(err.code)} at line {line}, column "
        f"{column + 1}. Fix the XML there (a missing quote, '/>' or '>', an unescaped '&' or "
        "'<' in a value) and read it again.") from None


# ----------------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------------


def _integer(el: _Element, key: str) -> int:
    written, raw = el.attributes[key]
    text = raw.strip()
    if not _INTEGER.fullmatch(text):
        raise ParameterError(f"{el.where()}: {written}=\"{raw}\" is not an integer: give a whole "
                             f"number, e.g. {written}=\"1\".")
    return int(text)


def _number(el: _Element, key: str) -> float:
    written, raw = el.attributes[key]
    text = raw.strip()
    value = float(text) if _NUMBER.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise ParameterError(f"{el.where()}: {written}=\"{raw}\" is not a number: give a finite "
                             f"real number, e.g. {written}=\"0.5\".")
    return value


def _value(el: _Element, key: str, factors: dict[str, float]):
    written, raw = el.attributes[key]
    if key in _KEYWORDS:
        allowed = _KEYWORDS[key]
        canonical = {a.lower(): a for a in allowed}.get(raw.strip().lower())
        if canonical is None:
            raise ParameterError(f"{el.where()}: {written}=\"{raw}\" is not allowed: use one of "
                                 f"{', '.join(allowed)} (case-insensitive).")
        return canonical
    if key == "inputs":
        text = raw.strip()
        if len(text) != 4 or set(text) - {"0", "1"}:
            raise ParameterError(
                f"{el.where()}: inputs=\"{raw}\" is not a 4-bit value: give 4 characters 0 or 1 "
                "(preload, reaction force, bending moment, torsional moment), e.g. "
                "inputs=\"1111\" for all four.")
        return text
    value = _number(el, key)
    if key in _POSITIVE and value <= 0:
        raise ParameterError(f"{el.where()}: {written}=\"{raw}\" must be > 0 (MotionSolve: "
                             f"{key.upper()} > 0): give a positive friction coefficient.")
    if key in _NON_NEGATIVE and value < 0:
        raise ParameterError(f"{el.where()}: {written}=\"{raw}\" is negative: it must be >= 0.")
    return value * factors.get(key, 1.0)


def _check_units(units) -> dict[str, float]:
    for name, factors in UNIT_FACTORS.items():
        if isinstance(units, str) and units.strip().lower() == name.lower():
            return factors
    raise InputError(f"units={units!r} is not known: use one of "
                     f"{', '.join(repr(u) for u in UNIT_FACTORS)} (the file's unit system; the "
                     "values are converted to SI).")


def _joint_types_with(key: str) -> list[str]:
    return [t for t, names in JOINT_ATTRIBUTES.items() if key in names]


def _convert(el: _Element, factors: dict[str, float]) -> dict:
    attrs = el.attributes
    if "label" in attrs:
        el.label = attrs["label"][1]
    if "id" not in attrs:
        raise ParameterError(f"{el.where()} has no id: give it id=\"<integer > 0>\", unique "
                             f"among the {TAG} elements.")
    el.id = _integer(el, "id")
    if el.id <= 0:
        raise ParameterError(f"{el.where()}: id=\"{attrs['id'][1]}\" must be an integer > 0.")
    if el.twice:
        first, second = el.twice[0]
        raise ParameterError(f"{el.where()}: the attribute '{first}' is given twice ('{first}' "
                             f"and '{second}'; attribute names are case-insensitive): keep one.")
    for key, (written, _) in attrs.items():
        if key not in ATTRIBUTES:
            if key in _ALIASES:
                hint = (f" '{written}' is the name in MotionSolve's Python API (or Adams); the "
                        f"XML attribute is '{_ALIASES[key]}'.")
            else:
                hint = did_you_mean(key, ATTRIBUTES)
            raise ParameterError(f"{el.where()}: unknown attribute '{written}'.{hint} Known "
                                 f"attributes: {', '.join(ATTRIBUTES)}.")
    for key in ("joint_id", "mu_static", "mu_dynamic"):
        if key not in attrs:
            example = "<integer>" if key == "joint_id" else "<real > 0>"
            raise ParameterError(f"{el.where()}: the required attribute {key} is missing: give "
                                 f"{key}=\"{example}\" (MotionSolve has no default).")
    record = {"id": el.id, "label": el.label, "joint_id": _integer(el, "joint_id")}
    for key in ATTRIBUTES[len(_IDENTITY):]:
        if key in attrs:
            record[key] = _value(el, key, factors)
    if record["mu_dynamic"] > record["mu_static"]:
        raise ParameterError(
            f"{el.where()}: {attrs['mu_dynamic'][0]}=\"{attrs['mu_dynamic'][1]}\" exceeds "
            f"{attrs['mu_static'][0]}=\"{attrs['mu_static'][1]}\": MotionSolve requires "
            "mu_dynamic <= mu_static (the friction drops from stiction to sliding); correct one "
            "of them.")
    return record


def _read(path_or_string, units) -> list[tuple[_Element, dict]]:
    factors = _check_units(units)
    text, source = _source_text(path_or_string)
    elements = _parse(text, source)
    result = []
    by_id: dict[int, _Element] = {}
    by_joint: dict[int, _Element] = {}
    for el in elements:
        record = _convert(el, factors)
        other = by_id.get(el.id)
        if other is not None:
            raise ParameterError(
                f"{el.where()}: the id {el.id} is also the id of the element on line "
                f"{other.line}: give each {TAG} element its own id.")
        other = by_joint.get(record["joint_id"])
        if other is not None:
            raise ParameterError(
                f"{el.where()}: joint_id={record['joint_id']} already has friction from "
                f"{other.where()}: a joint takes one {TAG} element; remove one of them or "
                "correct its joint_id.")
        by_id[el.id] = el
        by_joint[record["joint_id"]] = el
        result.append((el, record))
    return result


def read_force_joint_friction(path_or_string, *, units: str = "SI") -> list[dict]:
    """The ``Force_JointFriction`` elements of a MotionSolve XML file or string, in file order.

    ``path_or_string``: a path (``str`` or :class:`pathlib.Path`) or XML text (one element,
    several elements without a root, or a whole model file whose other elements are ignored;
    the typographic quotes of the reference guide's Format text are accepted).
    ``units``: the file's unit system, ``"SI"`` or ``"N-mm-s"`` (values are converted to SI).

    Returns one dict per element: ``id``, ``label`` (None when absent), ``joint_id`` and the
    attributes the element gives (absent ones are left out), numbers as SI floats, keywords in
    their canonical spelling (``"All"``, ``"Static"``, ``"I_YOKE"``...), ``inputs`` as the
    4-character string. ``mu_dynamic > mu_static`` is refused (MotionSolve requires
    ``mu_dynamic <= mu_static``). Attributes are checked against all joint types together (see
    :func:`from_motionsolve_xml` for the per-joint check). Raises
    :class:`~acausal.errors.ParameterError` for a bad element or malformed XML and
    :class:`~acausal.errors.InputError` for unknown ``units`` or an unreadable file.
    """
    return [record for _, record in _read(path_or_string, units)]


# ----------------------------------------------------------------------------------------------
# Building the friction joints
# ----------------------------------------------------------------------------------------------


def _check_joints(joints) -> dict[int, object]:
    if not isinstance(joints, Mapping):
        raise ParameterError(f"from_motionsolve_xml: joints must be a mapping joint_id -> joint "
                             f"(a dict); got a {type(joints).__name__}.")
    checked: dict[int, object] = {}
    plain = ", ".join(c.__name__ for c in _JOINT_TYPES)
    for key, joint in joints.items():
        try:
            if isinstance(key, bool):
                raise TypeError
            jid = operator.index(key)
        except TypeError:
            raise ParameterError(f"from_motionsolve_xml: the joints key {key!r} is not an "
                                 "integer: key each joint by its MotionSolve joint id (int).") \
                from None
        kind = type(joint)
        if kind not in _JOINT_TYPES:
            name = kind.__name__
            if name.endswith("WithFriction"):
                why = (f"it already has friction: pass the plain {name[:-len('WithFriction')]} "
                       "and let the file add the friction")
            else:
                why = ("give the joint the file's joint_id names, created from "
                       "acausal.components.multibody.joints")
            raise ParameterError(f"from_motionsolve_xml: joints[{key!r}] is a {name}, not one "
                                 f"of the plain 3-D joints {plain}: {why}.")
        checked[jid] = joint
    return checked


def _check_ranges(el: _Element, cls: type, params: dict) -> None:
    """Each numeric attribute within the range the friction joint declares for it (e.g. a
    pin_radius > 0, which its laws divide by), named as the element writes it: the joint
    would refuse it only when the model is compiled, without naming the element."""
    declared = cls.declarations()
    for key, value in params.items():
        decl = declared.get(key)
        if isinstance(value, float) and isinstance(decl, Parameter) and not decl.admits(value):
            written, raw = el.attributes[key]
            raise ParameterError(
                f"{el.where()}: {written}=\"{raw}\" gives {cls.__name__}.{key} = {value:g} (SI), "
                f"but it must be {decl.bounds_text()} ({decl.description or key}): give a value "
                "in that range.")


def from_motionsolve_xml(path_or_string, joints, *, units: str = "SI") -> dict:
    """Joints with friction from MotionSolve ``Force_JointFriction`` elements.

    ``joints``: joint_id (int) -> a plain 3-D joint (``Revolute``, ``Prismatic`` (MotionSolve
    "Translational"), ``Cylindrical``, ``Spherical``, ``Universal`` (MotionSolve "Hooke" or
    "Universal")), not yet placed in a model. ``path_or_string`` and ``units`` as in
    :func:`read_force_joint_friction`.

    Returns a dict with one entry per joint_id of ``joints``: for a joint named by an element,
    the matching friction joint (``RevoluteWithFriction``, ``PrismaticWithFriction``,
    ``CylindricalWithFriction``, ``SphericalWithFriction``, ``UniversalWithFriction`` of
    :mod:`acausal.components.multibody.joint_friction`) created with the plain joint's own
    overrides (``n``, ``use_axis_flange``, ``n_a``, ...) plus the element's attributes (SI);
    attributes the element leaves out take the friction class's defaults. A joint without an
    element is returned as it was given.

    Raises :class:`~acausal.errors.ParameterError` (naming the element id and the attribute)
    for an attribute the joint type does not have, a missing ``mu_static``/``mu_dynamic``/
    ``id``/``joint_id``, a value that is not a number, out of range (MotionSolve's ranges, and
    the friction joint's declared bounds, e.g. ``pin_radius > 0``) or not an allowed keyword,
    ``mu_dynamic > mu_static``,
    a joint_id not in ``joints``, two elements for one joint, duplicate ids, a ``joints`` value
    that is not a plain joint, and malformed XML.
    """
    plain = _check_joints(joints)
    elements = _read(path_or_string, units)
    classes = None
    built: dict[int, object] = dict(plain)
    for el, record in elements:
        jid = record["joint_id"]
        joint = plain.get(jid)
        if joint is None:
            known = ", ".join(str(k) for k in plain) or "none"
            raise ParameterError(f"{el.where()}: joint_id={jid} is not in joints (joint ids "
                                 f"given: {known}): add the joint with that id to joints, or "
                                 "correct joint_id.")
        kind = _JOINT_TYPES[type(joint)]
        allowed = JOINT_ATTRIBUTES[kind]
        for key in record:
            if key in _IDENTITY or key in COMMON_ATTRIBUTES or key in allowed:
                continue
            owners = " and ".join(f"{t} joints" for t in _joint_types_with(key))
            raise ParameterError(
                f"{el.where()}: the attribute '{el.attributes[key][0]}' is not an attribute of "
                f"a {kind} joint (joint_id {jid} is a {type(joint).__name__}); only {owners} "
                f"have it. A {kind} joint takes {', '.join(allowed)} besides the common "
                "attributes: remove it, or check that joint_id names the right joint.")
        if classes is None:
            from . import joint_friction as classes  # lazy: the module comes with the joints
        cls = getattr(classes, _FRICTION_CLASSES[kind])
        params = {k: v for k, v in record.items() if k not in _IDENTITY}
        _check_ranges(el, cls, params)
        try:
            built[jid] = cls(**dict(joint._overrides), **params)
        except AcausalError as err:
            raise ParameterError(f"{el.where()}: cannot create {cls.__name__} for joint_id "
                                 f"{jid}: {err}") from err
    return built
