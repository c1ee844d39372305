"""``/model`` in a real pseudo-terminal: the menu of models, switching, and what follows from it.

The menu lists the current model, those configured in settings and those the endpoint serves
(``GET /v1/models`` of the scripted server); the next requests name the chosen model, the
footer and the saved chat show it, and ``/stats`` splits the tokens per model. A failing
``/v1/models`` is said in one line and ``/model NAME`` still switches.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.fake_openai import FakeOpenAI, Reply


def _settings(tmp_path: Path, server_url: str) -> None:
    settings = {
        "modelProviders": {
            "openai": [
                {"id": "configured-model", "envKey": "OPENAI_API_KEY"},
                {"id": "same-url-model", "baseUrl": server_url + "/", "envKey": "X"},
                {"id": "elsewhere-model", "baseUrl": "http://127.0.0.1:9/v1", "envKey": "X"},
            ]
        }
    }
    home = tmp_path / "home" / ".qwen"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps(settings))


def test_model_menu_switches_the_model_of_the_next_requests(chat: Any, tmp_path: Path) -> None:
    script = [Reply(content="One."), Reply(content="Two."), Reply(content="Three.")]
    with FakeOpenAI(script, models=["beta-model", "alpha-model", "fake-model"]) as server:
        _settings(tmp_path, server.url)
        term = chat(server, size=(24, 80))
        term.prompt()
        term.send("first\r")
        term.expect("One.")
        term.prompt()
        term.send("/model\r")
        term.expect("Select Model")
        menu = term.expect(r"(?s)fake-model \(current\).*?Esc to close")[0]
        names = ["configured-model", "same-url-model", "alpha-model", "beta-model"]
        positions = [menu.find(name) for name in names]
        assert -1 not in positions and positions == sorted(positions), menu
        assert "elsewhere-model" not in menu  # another endpoint: not offered
        term.send("\x1b[B\x1b[B\x1b[B\x1b[B")  # down four times: beta-model
        term.send("\r")
        term.expect("Switched the model to beta-model.")
        term.expect(r"beta-model\s+default mode")  # the footer
        term.send("second\r")
        term.expect("Two.")
        term.prompt()
        term.send("/model alpha-model\r")
        term.expect("Switched the model to alpha-model.")
        term.prompt()
        term.send("third\r")
        term.expect("Three.")
        term.prompt()
        term.send("/stats\r")
        term.expect(r"fake-model: input 100\s+output 10\s+cached 0\s+requests 1")
        term.expect(r"beta-model: input 100")
        term.expect(r"alpha-model: input 100")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert [request["model"] for request in server.requests] == [
        "fake-model",
        "beta-model",
        "alpha-model",
    ]
    [saved] = (tmp_path / "home" / ".qwen" / "tmp").glob("*/chats/*.json")
    assert json.loads(saved.read_text())["model"] == "alpha-model"


def test_a_failing_model_list_is_said_and_model_name_still_switches(chat: Any) -> None:
    with FakeOpenAI([Reply(content="Switched answer.")]) as server:  # GET /v1/models: 404
        term = chat(server)
        term.prompt()
        term.send("/model\r")
        term.expect(r"Could not list the endpoint's models: 404 Not Found \(/model NAME")
        term.expect(r"fake-model \(current\)")  # the menu still opens
        term.send("\x1b")
        term.prompt()
        term.send("/model other-model\r")
        term.expect("Switched the model to other-model.")
        term.prompt()
        term.send("hello\r")
        term.expect("Switched answer.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert [request["model"] for request in server.requests] == ["other-model"]
