"""The input line: multi-line editing, history, slash-command completion, key bindings.

The input sits in a rounded box (:mod:`.input_box`), with a placeholder while empty and the
footer (:mod:`.footer`) under it; long lines wrap inside the box, which grows with them. Enter
sends; Ctrl-J, Alt-Enter, or a trailing ``\\`` before Enter start a new line. Ctrl-C clears a
non-empty prompt and, on an empty one, returns :data:`INTERRUPT` (the app asks for a second
press to quit). Ctrl-D on an empty prompt returns ``None`` (quit). Esc, as in Qwen Code, closes
the completion menu, leaves shell mode (a leading ``!``), or clears a typed prompt when pressed
twice. Shift-Tab cycles the approval mode, shown at the right of the input line when it is not
``default``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from qwen_tools.cli.chat.commands import command_menu
from qwen_tools.cli.chat.input_box import put_in_box
from qwen_tools.config.tool_settings import ApprovalMode

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.styles import Style

    from qwen_tools.config.config import Config

INTERRUPT: Final = "\x03"
"""What :meth:`ChatPrompt.read` returns for Ctrl-C on an empty prompt."""

_MODE_CYCLE = (
    ApprovalMode.DEFAULT,
    ApprovalMode.AUTO_EDIT,
    ApprovalMode.AUTO,
    ApprovalMode.YOLO,
    ApprovalMode.PLAN,
)
_MODE_STYLE = {
    ApprovalMode.DEFAULT: "class:hint",
    ApprovalMode.AUTO_EDIT: "fg:ansigreen",
    ApprovalMode.AUTO: "fg:ansiyellow",
    ApprovalMode.YOLO: "fg:ansired bold",
    ApprovalMode.PLAN: "fg:ansicyan",
}


def history_path(config: Config) -> Path:
    """Per-project prompt history: ``<qwen home>/tmp/<project hash>/chat_history``."""
    return config.get_project_temp_dir() / "chat_history"


class ChatPrompt:
    """A prompt_toolkit session configured for the chat."""

    def __init__(
        self,
        config: Config,
        model: str,
        *,
        history_file: Path | None,
        footer: Callable[[int], tuple[str, str]] | None = None,
    ) -> None:
        """``footer(width)`` gives the footer's left and right parts."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.formatted_text import FormattedText
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory

        self.config = config
        self.model = model
        self.footer = footer
        self._clear_armed = False
        """An Esc was pressed on a typed prompt: the next one clears it."""
        history: History = InMemoryHistory()
        if history_file is not None:
            try:
                history_file.parent.mkdir(parents=True, exist_ok=True)
                history_file.touch(exist_ok=True)
                history = FileHistory(str(history_file))
            except OSError:
                pass
        self.session: PromptSession[str] = PromptSession(
            history=history,
            multiline=True,
            key_bindings=self._bindings(),
            completer=_completer(config),
            complete_while_typing=True,
            prompt_continuation=lambda width, _line, wrap: (
                " " * (width - 2) + ("  " if wrap else "… ")
            ),
            rprompt=self._mode_hint,
            reserve_space_for_menu=_MENU_ROWS + 1,
            style=_style(),
            enable_history_search=False,
            placeholder=FormattedText([("class:hint", "Type your message or @path/to/file")]),
            bottom_toolbar=self._footer if footer is not None else None,
        )
        self._fit_box()
        put_in_box(self.session, self._border_style)
        self.session.default_buffer.on_text_changed += self._disarm

    def _disarm(self, _buffer: object) -> None:
        self._clear_armed = False

    async def read(self, default: str = "") -> str | None:
        """The next prompt (``default`` already typed); ``None`` on Ctrl-D, :data:`INTERRUPT`
        on Ctrl-C (empty prompt)."""
        self._clear_armed = False
        try:
            return await self.session.prompt_async(
                self._message, handle_sigint=False, default=default
            )
        except EOFError:
            return None
        except KeyboardInterrupt:
            return INTERRUPT

    def _fit_box(self) -> None:
        """The input is as tall as its text (room for the menu only while completing), so the
        footer sits right under it instead of at the bottom of the screen."""
        from prompt_toolkit.filters import to_filter
        from prompt_toolkit.layout.controls import BufferControl
        from prompt_toolkit.layout.dimension import Dimension

        buffer = self.session.default_buffer
        windows = [
            window
            for window in self.session.app.layout.find_all_windows()
            if isinstance(window.content, BufferControl) and window.content.buffer is buffer
        ]
        if not windows:
            return
        window = windows[0]

        def height() -> Dimension:
            completing = buffer.complete_state is not None
            return Dimension(min=_MENU_ROWS + 1) if completing else Dimension()

        window.height = height
        window.dont_extend_height = to_filter(True)

    def _message(self) -> StyleAndTextTuples:
        """The prompt sign."""
        return [("class:prompt", "> ")]

    def _shell_mode(self) -> bool:
        return self.session.default_buffer.text.startswith("!")

    def _border_style(self) -> str:
        return "class:border.shell" if self._shell_mode() else "class:border"

    def _footer(self) -> StyleAndTextTuples:
        """The footer line under the box."""
        from prompt_toolkit.application import get_app

        if self.footer is None:
            return []
        width = get_app().output.get_size().columns
        left, right = self.footer(width)
        gap = max(width - len(left) - len(right) - 1, 1)
        return [("class:footer", left + " " * gap), ("class:footer.right", right)]

    def _mode_hint(self) -> StyleAndTextTuples:
        """At the right of the input line: shell mode, or the approval mode unless it is
        ``default``."""
        from prompt_toolkit.application import get_app

        mode = self.config.approval_mode
        if get_app().is_done:
            return []
        if self._clear_armed:
            return [("class:hint", "Press Esc again to clear.")]
        if self._shell_mode():
            return [("class:prompt.shell", "shell mode"), ("class:hint", " (! command)")]
        if mode is ApprovalMode.DEFAULT:
            return []
        return [(_MODE_STYLE[mode], f"{mode.value} mode"), ("class:hint", " (shift+tab)")]

    def _bindings(self) -> KeyBindings:
        from prompt_toolkit.filters import completion_is_selected, has_completions
        from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

        bindings = KeyBindings()

        @bindings.add("enter", filter=~(has_completions & completion_is_selected))
        def _send(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            if buffer.document.text_before_cursor.endswith("\\"):
                buffer.delete_before_cursor()
                buffer.insert_text("\n")
                return
            buffer.validate_and_handle()

        @bindings.add("tab", filter=has_completions)
        def _take_completion(event: KeyPressEvent) -> None:
            """As in Qwen Code: Tab takes the highlighted (or first) completion and closes the
            menu, so the next Enter sends (a menu left open made Enter add a new line)."""
            buffer = event.current_buffer
            state = buffer.complete_state
            if state is None or not state.completions:
                return
            buffer.apply_completion(state.current_completion or state.completions[0])

        @bindings.add("enter", filter=has_completions & completion_is_selected)
        def _keep_completion(event: KeyPressEvent) -> None:
            """Enter on a completion chosen with the arrows takes it (the text already holds
            it) and closes the menu; the next Enter sends."""
            event.current_buffer.complete_state = None

        @bindings.add("c-j")
        @bindings.add("escape", "enter")
        def _newline(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("\n")

        @bindings.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            if buffer.text:
                buffer.reset()
            else:
                event.app.exit(exception=KeyboardInterrupt())

        @bindings.add("escape")
        def _escape(event: KeyPressEvent) -> None:
            """As in Qwen Code: Esc closes the menu, leaves shell mode (the ``!`` goes), or
            clears a typed prompt when pressed twice."""
            buffer = event.current_buffer
            if buffer.complete_state is not None:
                buffer.cancel_completion()
            elif self._shell_mode():
                cursor = buffer.cursor_position
                buffer.text = buffer.text[1:]
                buffer.cursor_position = max(cursor - 1, 0)
            elif self._clear_armed:
                self._clear_armed = False
                buffer.reset()
            elif buffer.text:
                self._clear_armed = True
                event.app.invalidate()

        @bindings.add("s-tab")
        def _cycle_mode(event: KeyPressEvent) -> None:
            current = self.config.approval_mode
            position = _MODE_CYCLE.index(current) if current in _MODE_CYCLE else 0
            self.config.approval_mode = _MODE_CYCLE[(position + 1) % len(_MODE_CYCLE)]
            event.app.invalidate()

        return bindings


_MENU_ROWS = 8
"""Rows of the completion menu (the input grows to show them while it is open)."""


def _style() -> Style:
    from prompt_toolkit.styles import Style

    return Style.from_dict(
        {
            "prompt": "fg:ansimagenta bold",
            "prompt.shell": "fg:ansiyellow bold",
            "border.shell": "fg:ansiyellow",
            "hint": "fg:ansibrightblack",
            "rprompt": "bg:default",
            "border": "fg:ansibrightblack",
            "bottom-toolbar": "noreverse bg:default",
            "footer": "fg:ansicyan",
            "footer.right": "fg:ansibrightblack",
        }
    )


def _completer(config: Config) -> Completer:
    from prompt_toolkit.completion import Completer

    class SlashCompleter(Completer):
        r"""Completes ``/command`` names, the modes after ``/mode`` and ``@path``\ s."""

        def get_completions(
            self, document: Document, complete_event: CompleteEvent
        ) -> Iterable[Completion]:
            text = document.text_before_cursor
            word = text.split()[-1] if text and not text[-1].isspace() else ""
            if word.startswith("@"):
                return _path_completions(config, word[1:])
            return _completions(text)

    return SlashCompleter()


def _path_completions(config: Config, word: str) -> Iterable[Completion]:
    from prompt_toolkit.completion import Completion

    from qwen_tools.cli.chat.at_files import path_completions

    for path in path_completions(config, word):
        yield Completion(path, start_position=-len(word))


def _completions(text: str) -> Iterable[Completion]:
    from prompt_toolkit.completion import Completion

    if not text.startswith("/") or "\n" in text:
        return
    if text.startswith(("/mode ", "/approval-mode ")):
        word = text.partition(" ")[2]
        for mode in ApprovalMode:
            if mode.value.startswith(word):
                yield Completion(mode.value, start_position=-len(word))
        return
    if " " in text:
        return
    for name, description in command_menu():
        if name.startswith(text):  # the description beside it, as Qwen Code's popup
            yield Completion(name, start_position=-len(text), display_meta=description)
