"""modelDescription.xml of an exported FMU (FMI 2.0, section 2.2): the ScalarVariables of
:mod:`acausal.export.fmu.variables` with their units, the interfaces (model exchange, optionally
co-simulation) and the model structure."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ...base.version import __version__
from .variables import ScalarVariable

#: FMI 2.0's structured variable names (section 2.2.9): with all names of this form the
#: naming convention is "structured", else "flat"
_BNAME = r"(?:[A-Za-z_][A-Za-z0-9_]*|'(?:[^'\\]|\\.)+')"
_IDENT = rf"{_BNAME}(?:\[\d+(?:,\d+)*\])?(?:\.{_BNAME}(?:\[\d+(?:,\d+)*\])?)*"
_STRUCTURED = re.compile(rf"(?:{_IDENT}|der\({_IDENT}(?:,\d+)?\))")


def _number(value: float) -> str:
    return repr(float(value))


#: the capabilities model exchange and co-simulation share (after their own ones)
_CAPABILITIES = {"canBeInstantiatedOnlyOncePerProcess": "false",
                 "canNotUseMemoryManagementFunctions": "true", "canGetAndSetFMUstate": "true",
                 "canSerializeFMUstate": "true", "providesDirectionalDerivative": "false"}


def _interface(root: ET.Element, tag: str, attributes: dict, source_files: list[str]) -> None:
    """The element ``ModelExchange`` or ``CoSimulation`` with its capabilities and sources."""
    element = ET.SubElement(root, tag, {**attributes, **_CAPABILITIES})
    files = ET.SubElement(element, "SourceFiles")
    for name in source_files:
        ET.SubElement(files, "File", {"name": name})


def model_description(cs, variables: list[ScalarVariable], *, model_identifier: str,
                      description: str, n_indicators: int, start_time: float,
                      stop_time: float | None, source_files: list[str],
                      cosimulation: bool) -> str:
    """modelDescription.xml of the FMU, its GUID left as ``@GUID@`` (the export fills it in
    from a hash of the FMU's files): model exchange (and co-simulation), units, log
    categories, DefaultExperiment, the ScalarVariables in the order of ``variables`` (value
    reference = position), the model structure."""
    naming = "structured" if all(_STRUCTURED.fullmatch(v.name) for v in variables) else "flat"
    root = ET.Element("fmiModelDescription", {
        "fmiVersion": "2.0", "modelName": cs.model_name, "guid": "@GUID@",
        "description": description, "generationTool": f"acausal {__version__}",
        "variableNamingConvention": naming,
        "numberOfEventIndicators": str(n_indicators)})
    interface = {"modelIdentifier": model_identifier, "needsExecutionTool": "false"}
    _interface(root, "ModelExchange", {**interface, "completedIntegratorStepNotNeeded": "true"},
               source_files)
    if cosimulation:
        _interface(root, "CoSimulation", {
            **interface, "canHandleVariableCommunicationStepSize": "true",
            "canInterpolateInputs": "false", "maxOutputDerivativeOrder": "0",
            "canRunAsynchronuously": "false"}, source_files)
    units = sorted({v.unit for v in variables if v.unit})
    if units:
        defs = ET.SubElement(root, "UnitDefinitions")
        for unit in units:
            ET.SubElement(defs, "Unit", {"name": unit})
    ET.SubElement(root, "LogCategories")[:] = [
        ET.Element("Category", {"name": "logEvents", "description": "events and initialisation"}),
        ET.Element("Category", {"name": "logStatusDiscard",
                                "description": "failed evaluations (a smaller step may succeed)"}),
        ET.Element("Category", {"name": "logStatusError", "description": "errors"})]
    experiment = {"startTime": _number(start_time)}
    if stop_time is not None:
        experiment["stopTime"] = _number(stop_time)
    ET.SubElement(root, "DefaultExperiment", experiment)
    mv = ET.SubElement(root, "ModelVariables")
    for vr, var in enumerate(variables):
        attrs = {"name": var.name, "valueReference": str(vr)}
        if var.description:
            attrs["description"] = var.description
        attrs["causality"] = var.causality
        attrs["variability"] = var.variability
        if var.initial is not None and var.causality != "input":
            attrs["initial"] = var.initial
        sv = ET.SubElement(mv, "ScalarVariable", attrs)
        real = {}
        if var.unit:
            real["unit"] = var.unit
        if var.min is not None:
            real["min"] = _number(var.min)
        if var.max is not None:
            real["max"] = _number(var.max)
        if var.nominal is not None:
            real["nominal"] = _number(var.nominal)
        if var.start is not None and var.initial != "calculated":
            real["start"] = _number(var.start)
        if var.derivative is not None:
            real["derivative"] = str(var.derivative)
        if var.reinit:
            real["reinit"] = "true"
        ET.SubElement(sv, "Real", real)
    structure = ET.SubElement(root, "ModelStructure")
    index = {id(var): k + 1 for k, var in enumerate(variables)}
    outputs = [index[id(v)] for v in variables if v.causality == "output"]
    derivatives = [index[id(v)] for v in variables if v.kind == "derivative"]
    initial = sorted(index[id(v)] for v in variables
                     if (v.causality == "output" and v.initial in ("approx", "calculated"))
                     or v.kind == "derivative"
                     or (v.kind == "state" and v.initial == "approx"))
    for tag, items in (("Outputs", outputs), ("Derivatives", derivatives),
                       ("InitialUnknowns", initial)):
        if items:
            group = ET.SubElement(structure, tag)
            for k in items:
                ET.SubElement(group, "Unknown", {"index": str(k)})
    ET.indent(root, "  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
