"""cephlab.core.run, the one subprocess runner: real programs, no cluster."""
import pytest

from cephlab.core import run
from cephlab.core.errors import ClusterError, SetupError


def test_output_comes_back():
    assert run.run(["sh", "-c", "echo hello"]).stdout == "hello\n"


def test_a_failure_names_the_step_the_exit_code_and_the_last_lines():
    with pytest.raises(run.CommandFailed) as e:
        run.run(["sh", "-c", "echo one >&2; echo two >&2; exit 3"], what="the probe")
    assert str(e.value) == "the probe failed (exit 3): one | two"
    assert e.value.result.returncode == 3 and isinstance(e.value, ClusterError)


def test_check_false_returns_the_failed_result():
    out = run.run(["sh", "-c", "exit 4"], check=False)
    assert out.returncode == 4


def test_a_missing_program_says_what_to_install():
    with pytest.raises(run.ProgramMissing, match="no-such-tool is not installed: apt-get install x"):
        run.run(["no-such-tool"], hint="apt-get install x")
    assert issubclass(run.ProgramMissing, SetupError)


def test_a_timeout_kills_the_program():
    with pytest.raises(run.CommandTimeout, match="sleep did not finish within 0.2 s"):
        run.run(["sleep", "5"], timeout=0.2)


def test_bytes_in_and_out():
    out = run.run(["cat"], input=b"\x00\xff", text=False)
    assert out.stdout == b"\x00\xff"


def test_a_log_file_receives_the_output(tmp_path):
    log = tmp_path / "x.log"
    out = run.run(["sh", "-c", "echo to-log; echo err >&2"], log=log)
    assert "to-log" in log.read_text() and "err" in log.read_text() and out.stdout == log.read_text()


def test_tests_can_replace_the_runner(monkeypatch):
    seen = []

    def fake(cmd, **kw):
        seen.append(cmd)
        return run.CommandResult(cmd, 0, "faked", "")
    monkeypatch.setattr(run, "RUNNER", fake)
    assert run.run(["true", "x"]).stdout == "faked" and seen == [["true", "x"]]


def test_spawn_and_finish():
    assert run.finish(run.spawn(["sh", "-c", "echo bg"]), "bg") == "bg\n"
    with pytest.raises(run.CommandFailed, match=r"bg2 failed \(exit 2\): bad"):
        run.finish(run.spawn(["sh", "-c", "echo bad; exit 2"]), "bg2")


def test_tail_keeps_the_last_non_empty_lines():
    assert run.tail("a\n\nb\nc\n", lines=2) == "b | c"
    assert run.tail("") == "no output"
