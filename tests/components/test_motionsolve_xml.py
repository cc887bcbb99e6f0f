"""MotionSolve ``Force_JointFriction`` XML (``components/multibody/motionsolve_xml.py``).

* the reference guide's own example element (revolute 301001), in SI and in N-mm-s;
* one element per joint type with its full attribute set, every conversion checked;
* a whole model file, several elements without a root, typographic quotes, case-insensitivity;
* every error names the element id and the attribute and says what to do;
* the friction joints are built with the plain joint's overrides (skipped until
  ``components/multibody/joint_friction.py`` exists).
"""

from __future__ import annotations

import importlib.util

import pytest

from acausal.base.errors import AcausalError, InputError, ParameterError
from acausal.components.multibody.joints import (
    Cylindrical,
    Prismatic,
    Revolute,
    Spherical,
    Universal,
)
from acausal.components.multibody.motionsolve_xml import (
    ATTRIBUTES,
    JOINT_ATTRIBUTES,
    UNIT_FACTORS,
    from_motionsolve_xml,
    read_force_joint_friction,
)
from acausal.components.multibody.parts import Body

HAVE_FRICTION = importlib.util.find_spec("acausal.components.multibody.joint_friction") is not None
needs_friction = pytest.mark.skipif(not HAVE_FRICTION, reason="components/multibody/"
                                    "joint_friction.py (the friction joints) does not exist yet")

#: The example of the MotionSolve reference guide (Force_JointFriction model element), verbatim
#: in its values.
SEED_EXAMPLE = """<Force_JointFriction
     id = "1"
     joint_id = "301001"
     mu_static = "0.5"
     mu_dynamic = "0.3"
     inactive = "NONE"
     stiction_trans_vel = "10."
     effect = "All"
     torque_preload = "0."
     friction_arm = "7."
     pin_radius = "5."
     bending_reaction_arm = "5."
     inputs = "1111"
/>"""

COMMON = ('mu_static="0.4" mu_dynamic="0.25" max_stiction_deform="0.02" bristle_stiffness="100" '
          'damping_effects="0.316" viscous_effects="0.0004" stiction_trans_vel="0.1" '
          'inactive="static" effect="stiction" inputs="1010"')

#: One element per joint type with all of its attributes (values in the file's units).
FULL = {
    "Revolute": (11, 1, 'torque_preload="20" friction_arm="7" bending_reaction_arm="5" '
                 'pin_radius="4"'),
    "Spherical": (12, 2, 'torque_preload="30" ball_radius="6"'),
    "Translational": (13, 3, 'force_preload="40" reaction_arm="8" initial_overlap="1000" '
                      'overlap_delta="increase"'),
    "Cylindrical": (14, 4, 'force_preload="50" torque_preload="60" pin_radius="9" '
                    'initial_overlap="500" overlap_delta="DECREASE"'),
    "Universal": (15, 5, 'torque_preload="70" friction_arm="3" bending_reaction_arm="2" '
                  'pin_radius="1.5" yoke_choice="j_yoke"'),
}
FILE_VALUES = {"mu_static": 0.4, "mu_dynamic": 0.25, "max_stiction_deform": 0.02,
               "bristle_stiffness": 100.0, "damping_effects": 0.316, "viscous_effects": 0.0004,
               "stiction_trans_vel": 0.1, "torque_preload": None, "force_preload": None}
#: The same values in SI when the file is in N-mm-s (written out, not computed from the table).
NMMS_COMMON = {"mu_static": 0.4, "mu_dynamic": 0.25, "max_stiction_deform": 2e-5,
               "bristle_stiffness": 1e5, "damping_effects": 316.0, "viscous_effects": 0.4,
               "stiction_trans_vel": 1e-4}
NMMS_SPECIFIC = {
    "Revolute": {"torque_preload": 0.02, "friction_arm": 7e-3, "bending_reaction_arm": 5e-3,
                 "pin_radius": 4e-3},
    "Spherical": {"torque_preload": 0.03, "ball_radius": 6e-3},
    "Translational": {"force_preload": 40.0, "reaction_arm": 8e-3, "initial_overlap": 1.0,
                      "overlap_delta": "Increase"},
    "Cylindrical": {"force_preload": 50.0, "torque_preload": 0.06, "pin_radius": 9e-3,
                    "initial_overlap": 0.5, "overlap_delta": "Decrease"},
    "Universal": {"torque_preload": 0.07, "friction_arm": 3e-3, "bending_reaction_arm": 2e-3,
                  "pin_radius": 1.5e-3, "yoke_choice": "J_YOKE"},
}
PLAIN = {"Revolute": Revolute, "Spherical": Spherical, "Translational": Prismatic,
         "Cylindrical": Cylindrical, "Universal": Universal}


def element(eid=1, jid=301001, extra="", common='mu_static="0.5" mu_dynamic="0.3"'):
    return f'<Force_JointFriction id="{eid}" joint_id="{jid}" {common} {extra}/>'


def full_xml():
    return "\n".join(element(eid, jid, extra, COMMON) for eid, jid, extra in FULL.values())


def error(match_all, func, *args, cls=ParameterError, **kwargs):
    """Call func, expect cls, and check that every string of match_all is in the message."""
    with pytest.raises(cls) as info:
        func(*args, **kwargs)
    message = str(info.value)
    for text in match_all:
        assert text in message, f"{text!r} not in {message!r}"
    return message


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------


def test_seed_example_si():
    (rec,) = read_force_joint_friction(SEED_EXAMPLE)
    assert rec == {"id": 1, "label": None, "joint_id": 301001, "mu_static": 0.5,
                   "mu_dynamic": 0.3, "inactive": "None", "stiction_trans_vel": 10.0,
                   "effect": "All", "torque_preload": 0.0, "friction_arm": 7.0,
                   "pin_radius": 5.0, "bending_reaction_arm": 5.0, "inputs": "1111"}
    assert isinstance(rec["id"], int) and isinstance(rec["joint_id"], int)


def test_seed_example_n_mm_s():
    (rec,) = read_force_joint_friction(SEED_EXAMPLE, units="N-mm-s")
    expected = {"mu_static": 0.5, "mu_dynamic": 0.3, "stiction_trans_vel": 0.01,   # 10 mm/s
                "torque_preload": 0.0, "friction_arm": 0.007, "pin_radius": 0.005,
                "bending_reaction_arm": 0.005}
    for key, value in expected.items():
        assert rec[key] == pytest.approx(value, rel=1e-15, abs=0), key
    assert (rec["inactive"], rec["effect"], rec["inputs"]) == ("None", "All", "1111")
    assert set(rec) == {"id", "label", "joint_id", *expected, "inactive", "effect", "inputs"}


def test_full_attribute_set_per_joint_type_si():
    records = {rec["id"]: rec for rec in read_force_joint_friction(full_xml())}
    assert list(records) == [11, 12, 13, 14, 15]
    for kind, (eid, jid, _) in FULL.items():
        rec = records[eid]
        assert rec["joint_id"] == jid
        assert set(rec) == {"id", "label", "joint_id", *FILE_VALUES.keys() - {
            "torque_preload", "force_preload"}, "inactive", "effect", "inputs",
            *JOINT_ATTRIBUTES[kind]}
        for key, value in FILE_VALUES.items():
            if value is not None:
                assert rec[key] == value, (kind, key)
        assert (rec["inactive"], rec["effect"], rec["inputs"]) == ("Static", "Stiction", "1010")
    assert records[11]["pin_radius"] == 4.0 and records[12]["ball_radius"] == 6.0
    assert records[13]["initial_overlap"] == 1000.0 and records[14]["torque_preload"] == 60.0
    assert records[15]["yoke_choice"] == "J_YOKE"


def test_full_attribute_set_per_joint_type_n_mm_s():
    records = {rec["id"]: rec for rec in read_force_joint_friction(full_xml(), units="n-MM-s")}
    for kind, (eid, _, _) in FULL.items():
        rec = records[eid]
        expected = {**NMMS_COMMON, **NMMS_SPECIFIC[kind]}
        for key, value in expected.items():
            if isinstance(value, str):
                assert rec[key] == value, (kind, key)
            else:
                assert rec[key] == pytest.approx(value, rel=1e-12, abs=0), (kind, key)


def test_unit_table_covers_every_dimensional_attribute():
    dimensional = set(ATTRIBUTES) - {"id", "label", "joint_id", "mu_static", "mu_dynamic",
                                     "inactive", "effect", "inputs", "overlap_delta",
                                     "yoke_choice"}
    assert set(UNIT_FACTORS["N-mm-s"]) == dimensional
    assert UNIT_FACTORS["SI"] == {}


def test_whole_model_file_with_other_elements(tmp_path):
    text = """<?xml version="1.0" encoding="UTF-8"?>
<!-- a MotionSolve model -->
<MotionSolve>
  <Model>
    <Reference_Marker id="30101010" body_id="30101"/>
    <Constraint_Joint id="301001" type="REVOLUTE" i_marker_id="30101010" j_marker_id="1"/>
    <Force_JointFriction id="7" label="Pin friction" joint_id="301001" mu_static="0.5"
        mu_dynamic="0.3" pin_radius="5."/>
    <Force_Vector_TwoBody id="9" mu_static="not read"/>
    <FORCE_JOINTFRICTION id="8" joint_id="301002" mu_static="0.2" mu_dynamic="0.1"/>
  </Model>
</MotionSolve>
"""
    path = tmp_path / "model.xml"
    path.write_text(text, encoding="utf-8")
    for source in (path, str(path), text):
        records = read_force_joint_friction(source, units="N-mm-s")
        assert [(r["id"], r["joint_id"], r["label"]) for r in records] == [
            (7, 301001, "Pin friction"), (8, 301002, None)]
        assert records[0]["pin_radius"] == pytest.approx(5e-3)
    # errors in a file name the file and the line
    path.write_text(text.replace('mu_dynamic="0.3"', 'mu_dynamic="0.3x"'))
    error(["id=7", "label 'Pin friction'", "line 7", "model.xml", 'mu_dynamic="0.3x"',
           "not a number"], read_force_joint_friction, path)


def test_several_elements_without_root_and_typographic_quotes():
    text = ('<Force_JointFriction id = \u201c1\u201d joint_id = \u201c5\u201d '
            'mu_static = \u201c0.5\u201d mu_dynamic = \u201c0.3\u201d '
            'effect = \u201cSliding\u201d />\n'
            + element(2, 6, 'label="the \u201cbig\u201d pin"'))
    records = read_force_joint_friction(text)
    assert [(r["id"], r["joint_id"]) for r in records] == [(1, 5), (2, 6)]
    assert records[0]["effect"] == "Sliding" and records[0]["mu_static"] == 0.5
    assert records[1]["label"] == "the \u201cbig\u201d pin"   # quotes inside a value are kept


def test_keywords_and_attribute_names_case_insensitive():
    text = ('<force_jointfriction ID="1" Joint_ID="2" MU_STATIC="0.5" Mu_Dynamic="0.3" '
            'EFFECT="sLiDiNg" Inactive="STATIC" overlap_DELTA="constant" />'
            + element(2, 3, 'effect="STICTION" inactive="none" yoke_choice="I_Yoke"'))
    a, b = read_force_joint_friction(text)
    assert (a["effect"], a["inactive"], a["overlap_delta"]) == ("Sliding", "Static", "Constant")
    assert a["mu_static"] == 0.5 and a["mu_dynamic"] == 0.3 and a["joint_id"] == 2
    assert (b["effect"], b["inactive"], b["yoke_choice"]) == ("Stiction", "None", "I_YOKE")


def test_no_elements():
    assert read_force_joint_friction("<MotionSolve><Model/></MotionSolve>") == []
    given = Revolute()
    assert from_motionsolve_xml("<Model/>", {1: given})[1] is given


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("extra, texts", [
    ('mu_dynamic="abc"', ["id=1", 'mu_dynamic="abc"', "not a number"]),
    ('pin_radius="1,5"', ["id=1", 'pin_radius="1,5"', "not a number"]),
    ('pin_radius="nan"', ["id=1", "pin_radius", "not a number"]),
    ('pin_radius="1e999"', ["id=1", "pin_radius", "not a number"]),
    ('pin_radius=""', ["id=1", "pin_radius", "not a number"]),
])
def test_not_a_number(extra, texts):
    common = 'mu_static="0.5"' + ("" if "mu_dynamic" in extra else ' mu_dynamic="0.3"')
    error(texts, read_force_joint_friction, element(extra=extra, common=common))


@pytest.mark.parametrize("key", ["mu_static", "mu_dynamic"])
@pytest.mark.parametrize("value", ["0", "-0.1"])
def test_mu_must_be_positive(key, value):
    common = {"mu_static": 'mu_static="0.5"', "mu_dynamic": 'mu_dynamic="0.3"'}
    common[key] = f'{key}="{value}"'
    error(["id=1", f'{key}="{value}"', "> 0"], read_force_joint_friction,
          element(common=" ".join(common.values())))


@pytest.mark.parametrize("key", ["max_stiction_deform", "stiction_trans_vel", "bristle_stiffness",
                                 "damping_effects", "viscous_effects", "friction_arm",
                                 "reaction_arm", "bending_reaction_arm", "pin_radius",
                                 "ball_radius", "initial_overlap"])
def test_negative_values_refused(key):
    error(["id=1", f'{key}="-2"', ">= 0"], read_force_joint_friction,
          element(extra=f'{key}="-2"'))
    assert read_force_joint_friction(element(extra=f'{key}="0"'))[0][key] == 0.0


def test_preloads_may_be_any_real():
    (rec,) = read_force_joint_friction(element(extra='torque_preload="-3" force_preload="2"'))
    assert (rec["torque_preload"], rec["force_preload"]) == (-3.0, 2.0)


@pytest.mark.parametrize("missing", ["id", "joint_id", "mu_static", "mu_dynamic"])
def test_missing_required(missing):
    attrs = {"id": 'id="4"', "label": 'label="arm pin"', "joint_id": 'joint_id="2"',
             "mu_static": 'mu_static="0.5"', "mu_dynamic": 'mu_dynamic="0.3"'}
    del attrs[missing]
    text = f'<Model>\n<Force_JointFriction {" ".join(attrs.values())}/></Model>'
    texts = [missing, "missing" if missing != "id" else "has no id", "line 2", "'arm pin'"]
    if missing != "id":
        texts.append("id=4")
    error(texts, read_force_joint_friction, text)


@pytest.mark.parametrize("value", ["111", "11111", "1121", "15", "ALL", "11 1"])
def test_inputs_must_be_four_bits(value):
    error(["id=1", f'inputs="{value}"', "4 characters 0 or 1"], read_force_joint_friction,
          element(extra=f'inputs="{value}"'))


@pytest.mark.parametrize("key, value, allowed", [
    ("effect", "Static", "All, Stiction, Sliding"),
    ("inactive", "Dynamic", "None, Static"),
    ("overlap_delta", "grow", "Constant, Increase, Decrease"),
    ("yoke_choice", "I", "I_YOKE, J_YOKE"),
])
def test_bad_keyword(key, value, allowed):
    error(["id=1", f'{key}="{value}"', allowed], read_force_joint_friction,
          element(extra=f'{key}="{value}"'))


@pytest.mark.parametrize("text, texts", [
    (element(eid="x"), ['id="x"', "not an integer"]),
    (element(eid="0"), ['id="0"', "> 0"]),
    (element(jid="3.5"), ["id=1", 'joint_id="3.5"', "not an integer"]),
])
def test_bad_ids(text, texts):
    error(texts, read_force_joint_friction, text)


def test_unknown_attribute():
    msg = error(["id=1", "unknown attribute 'pin_radious'", "Did you mean 'pin_radius'"],
                read_force_joint_friction, element(extra='pin_radious="1"'))
    assert "Known attributes" in msg
    error(["id=1", "'yoke'", "Python API", "'yoke_choice'"], read_force_joint_friction,
          element(extra='yoke="I_YOKE"'))
    error(["id=1", "'MU_STATIC'", "twice"], read_force_joint_friction,
          element(extra='MU_STATIC="0.4"'))


def test_duplicate_ids_and_joints():
    error(["id=3", "line 2", "also the id of the element on line 1", "its own id"],
          read_force_joint_friction, element(3, 10) + "\n" + element(3, 11))
    error(["id=4", "joint_id=10", "already has friction", "id=3"], read_force_joint_friction,
          element(3, 10) + "\n" + element(4, 10))


@pytest.mark.parametrize("text, line", [
    ('<Force_JointFriction id="1" joint_id="2" mu_static="0.5 mu_dynamic="0.3"/>', "line 1"),
    ('<Model>\n<Force_JointFriction id="1" joint_id="2"\n mu_static=0.5/></Model>', "line 3"),
    (element() + "\n" + element(2, 5) + '\n<Force_JointFriction id="3" & />', "line 3"),
    ("<Model>\n  <Force_JointFriction id='1' joint_id='2' mu_static='1' mu_dynamic='1'/>\n",
     "line 3"),
])
def test_malformed_xml(text, line):
    error(["Malformed XML", line, "the XML string"], read_force_joint_friction, text)


def test_inputs_errors():
    error(["units='mks'", "'SI'", "'N-mm-s'"], read_force_joint_friction, SEED_EXAMPLE,
          units="mks", cls=InputError)
    error(["no_such_file.xml"], read_force_joint_friction, "no_such_file.xml", cls=InputError)
    error(["empty"], read_force_joint_friction, "  ", cls=InputError)
    error(["int"], read_force_joint_friction, 42, cls=InputError)
    assert issubclass(InputError, AcausalError)


def test_errors_in_from_motionsolve_xml_before_building():
    joints = {301001: Revolute(), 7: Spherical()}
    # an attribute of another joint type: names the types that have it
    error(["id=1", "'ball_radius'", "Revolute joint", "only Spherical joints have it"],
          from_motionsolve_xml, element(extra='ball_radius="2"'), joints)
    error(["id=1", "'pin_radius'", "Spherical joint",
           "Revolute joints and Cylindrical joints and Universal joints"],
          from_motionsolve_xml, element(jid=7, extra='pin_radius="2"'), joints)
    error(["'force_preload'", "Translational joints and Cylindrical joints"],
          from_motionsolve_xml, element(extra='force_preload="2"'), joints)
    error(["'yoke_choice'", "Universal joints"], from_motionsolve_xml,
          element(extra='yoke_choice="I_YOKE"'), joints)
    error(["'pin_radius'", "Translational joint", "Prismatic"], from_motionsolve_xml,
          element(jid=8, extra='overlap_delta="Constant" pin_radius="1"'),
          {8: Prismatic()})
    # a joint_id that is not in joints lists the ids there are
    error(["id=1", "joint_id=99", "301001, 7"], from_motionsolve_xml, element(jid=99), joints)
    # joints values that are not plain joints
    error(["joints[5]", "Body", "Revolute, Prismatic, Cylindrical, Spherical, Universal"],
          from_motionsolve_xml, element(), {301001: Revolute(), 5: Body()})

    class RevoluteWithFriction(Revolute):   # stands for the friction joint of the library
        pass

    error(["joints[301001]", "already has friction", "plain Revolute"],
          from_motionsolve_xml, element(), {301001: RevoluteWithFriction()})
    error(["joints key 'a'", "integer"], from_motionsolve_xml, element(), {"a": Revolute()})
    error(["mapping"], from_motionsolve_xml, element(), [Revolute()])
    # the reader's errors come through
    error(["id=1", 'mu_static="-1"'], from_motionsolve_xml,
          element(common='mu_static="-1" mu_dynamic="0.3"'), joints)


# ----------------------------------------------------------------------------------------------
# Building the friction joints
# ----------------------------------------------------------------------------------------------


@needs_friction
def test_seed_example_on_revolute_keeps_overrides():
    from acausal.components.multibody import joint_friction as jf

    plain = Revolute(n=(1.0, 0.0, 0.0), use_axis_flange=True, phi_offset=0.25)
    other = Spherical()
    built = from_motionsolve_xml(SEED_EXAMPLE, {301001: plain, 42: other}, units="N-mm-s")
    assert list(built) == [301001, 42]
    assert built[42] is other
    joint = built[301001]
    assert type(joint) is jf.RevoluteWithFriction
    ov = joint._overrides
    assert ov["n"] == (1.0, 0.0, 0.0) and ov["use_axis_flange"] is True
    assert ov["phi_offset"] == 0.25
    assert hasattr(joint, "axis") and hasattr(joint, "support")   # the flange option took effect
    assert ov["pin_radius"] == pytest.approx(5e-3) and ov["friction_arm"] == pytest.approx(7e-3)
    assert ov["stiction_trans_vel"] == pytest.approx(1e-2) and ov["inputs"] == "1111"
    assert ov["mu_static"] == 0.5 and ov["effect"] == "All" and ov["inactive"] == "None"
    assert not {"id", "label", "joint_id"} & set(ov)


@needs_friction
def test_every_joint_type_built_with_its_full_attribute_set():
    from acausal.components.multibody import joint_friction as jf

    plain = {1: Revolute(n=(0.0, 1.0, 0.0)), 2: Spherical(angles_fixed=True),
             3: Prismatic(n=(0.0, 0.0, 1.0)), 4: Cylindrical(n=(0.0, 1.0, 0.0)),
             5: Universal(n_a=(0.0, 0.0, 1.0), n_b=(1.0, 0.0, 0.0))}
    built = from_motionsolve_xml(full_xml(), plain, units="N-mm-s")
    classes = {1: jf.RevoluteWithFriction, 2: jf.SphericalWithFriction,
               3: jf.PrismaticWithFriction, 4: jf.CylindricalWithFriction,
               5: jf.UniversalWithFriction}
    for kind, (_, jid, _) in FULL.items():
        joint = built[jid]
        assert type(joint) is classes[jid]
        assert isinstance(joint, PLAIN[kind])
        ov = joint._overrides
        for key, value in plain[jid]._overrides.items():
            assert ov[key] == value, (kind, key)
        for key, value in {**NMMS_COMMON, **NMMS_SPECIFIC[kind]}.items():
            assert ov[key] == (value if isinstance(value, str) else pytest.approx(value)), key
        assert (ov["inactive"], ov["effect"], ov["inputs"]) == ("Static", "Stiction", "1010")


@needs_friction
def test_built_joint_binds():
    built = from_motionsolve_xml(SEED_EXAMPLE, {301001: Revolute(n=(1.0, 0.0, 0.0))})
    joint = built[301001].bind()
    values = {p.name: p.number for p in joint._parameters}
    assert values["pin_radius"] == 5.0 and values["friction_arm"] == 7.0
    assert values["mu_static"] == 0.5 and values["mu_dynamic"] == 0.3
    assert values["stiction_trans_vel"] == 10.0 and values["torque_preload"] == 0.0
    assert (joint.n, joint.effect, joint.inactive, joint.inputs) == ((1.0, 0.0, 0.0), "All",
                                                                     "None", "1111")



@needs_friction
def test_pendulum_with_friction_from_xml_slows_down():
    """End to end: a pendulum released horizontally swings slower with the file's friction."""
    from acausal import Component, Variable, compile, connect
    from acausal.components.multibody import World

    xml = element(1, 7, 'pin_radius="5" friction_arm="7" bending_reaction_arm="5" '
                  'stiction_trans_vel="1" damping_effects="0.0316"')

    class Pendulum(Component):
        def __init__(self, friction=False, **kw):
            super().__init__(**kw)
            self.world = World()
            rev = Revolute(n=(0, 0, 1), phi=Variable(start=0.0, fixed=True),
                           w=Variable(start=0.0, fixed=True))
            self.rev = from_motionsolve_xml(xml, {7: rev}, units="N-mm-s")[7] if friction \
                else rev
            self.body = Body(m=1.0, r_CM=[0.5, 0.0, 0.0])

        def connections(self):
            return [connect(self.world.frame_b, self.rev.frame_a),
                    connect(self.body.frame_a, self.rev.frame_b)]

    with_friction = compile(Pendulum(friction=True)).simulate(0.5)
    plain = compile(Pendulum()).simulate(0.5)
    w_f, w_0 = with_friction["rev.w"][-1], plain["rev.w"][-1]
    assert w_0 < -5.0 and 0.999 * w_0 < w_f < 0.9 * w_0   # slower, but still swinging
    assert with_friction["rev.normal_force"][-1] > 9.81   # at least the weight on the pin
