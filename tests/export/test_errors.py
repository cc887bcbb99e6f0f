"""Errors of the exports: each is an acausal error that names what is wrong and what to do."""

from __future__ import annotations

import shutil
import sys

import pytest

from acausal import AcausalError, InputError, UnknownNameError
from acausal.export.c_code import CompilerNotFoundError, ExportError, find_c_compiler


@pytest.fixture(scope="module")
def oscillator(compiled):
    return compiled("oscillator")


def test_unknown_output_name(oscillator, tmp_path):
    with pytest.raises(UnknownNameError, match=r"'mass\.ss' is not a variable.*'mass\.s'"):
        oscillator.export_fmu(tmp_path / "o.fmu", outputs=["mass.ss"])
    assert not (tmp_path / "o.fmu").exists()


def test_parameter_as_output(oscillator, tmp_path):
    with pytest.raises(InputError, match=r"'spring\.c' is a parameter.*causality=\"parameter\""):
        oscillator.export_fmu(tmp_path / "o.fmu", outputs=["spring.c"])


@pytest.mark.parametrize("version", ["1.0", "3.0", 2])
def test_unsupported_fmi_version(oscillator, tmp_path, version):
    with pytest.raises(InputError, match=r"fmi_version=.* not supported.*\"2\.0\""):
        oscillator.export_fmu(tmp_path / "o.fmu", fmi_version=version)


@pytest.mark.parametrize("kind", ["cs", "ModelExchange", "scheduled-execution"])
def test_unsupported_kind(oscillator, tmp_path, kind):
    with pytest.raises(InputError, match=r"kind=.* not supported.*\"model-exchange\".*"
                                         r"\"co-simulation\""):
        oscillator.export_fmu(tmp_path / "o.fmu", kind=kind)


def test_no_compiler(oscillator, tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(CompilerNotFoundError, match=r"No C compiler found \(tried cc, gcc, "
                                                    r"clang\).*install gcc or clang"):
        oscillator.export_fmu(tmp_path / "o.fmu")
    assert issubclass(CompilerNotFoundError, AcausalError)
    assert not (tmp_path / "o.fmu").exists()


def test_named_compiler_missing(oscillator, tmp_path):
    with pytest.raises(CompilerNotFoundError, match="no-such-cc"):
        oscillator.export_fmu(tmp_path / "o.fmu", compiler="no-such-cc")


@pytest.mark.skipif(sys.platform.startswith("win"), reason="a shell script as the compiler")
def test_compiler_failure_is_reported(oscillator, tmp_path):
    fake = tmp_path / "fakecc"
    fake.write_text("#!/bin/sh\necho 'fatal: out of cheese' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(ExportError, match=r"(?s)C compiler failed \(exit status 3\).*out of "
                                          r"cheese"):
        oscillator.export_fmu(tmp_path / "o.fmu", compiler=str(fake))
    assert not (tmp_path / "o.fmu").exists()


def test_cc_environment_variable_is_used(monkeypatch, c_compiler):
    monkeypatch.setenv("CC", c_compiler + " -O1")
    assert find_c_compiler() == shutil.which(c_compiler)


def test_bad_paths(oscillator, tmp_path):
    with pytest.raises(InputError, match=r"should end in \.fmu"):
        oscillator.export_fmu(tmp_path / "o.zip")
    with pytest.raises(InputError, match="is a folder"):
        oscillator.export_fmu(tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="is a file"):
        oscillator.generate_c(tmp_path / "file")


def test_bad_names_and_parameters(oscillator, tmp_path):
    with pytest.raises(InputError, match="C identifier"):
        oscillator.generate_c(tmp_path / "c", name="my model")
    with pytest.raises(InputError, match="C identifier"):
        oscillator.export_fmu(tmp_path / "o.fmu", model_identifier="1-osc")
    with pytest.raises(AcausalError, match=r"'spring\.k' is not a parameter.*'spring\.c'"):
        oscillator.export_fmu(tmp_path / "o.fmu", params={"spring.k": 1.0})
    with pytest.raises(InputError, match="stop_time"):
        oscillator.export_fmu(tmp_path / "o.fmu", stop_time=-1.0)


def test_error_messages_are_one_family():
    for cls in (ExportError, CompilerNotFoundError):
        assert issubclass(cls, AcausalError)
