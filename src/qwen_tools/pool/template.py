"""``Template``: what a session's workspace starts as (a directory's files, or a git revision).

A directory template is a tar of the directory, made once on the driver; the pool puts it in
Ray's object store once and every worker fetches it once (:meth:`Template.shared`). A git
template names a repository and a revision; each worker clones it once. Either way a worker
keeps one pristine copy per template (:mod:`.workspace`) and copies it for each session.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
from dataclasses import dataclass, replace
from typing import Any, Literal

__all__ = ["Template"]


@dataclass(frozen=True)
class Template:
    """A workspace template; build it with :meth:`from_directory` or :meth:`from_git`."""

    id: str
    """Names the template in a worker's cache (a content hash, or the repository and revision)."""
    kind: Literal["tar", "git"]
    data: Any = None
    """``tar``: the archive's bytes, or a Ray ``ObjectRef`` to them once :meth:`shared`."""
    url: str | None = None
    revision: str | None = None

    @classmethod
    def from_directory(cls, path: str | os.PathLike[str]) -> Template:
        """The files under ``path`` (symlinks kept as links), archived now."""
        root = os.fspath(path)
        if not os.path.isdir(root):
            raise NotADirectoryError(f"template directory not found: {root}")
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
            archive.add(root, arcname=".", recursive=True)
        data = buffer.getvalue()
        return cls(hashlib.sha256(data).hexdigest()[:24], "tar", data)

    @classmethod
    def from_files(cls, files: dict[str, str | bytes]) -> Template:
        """A template of a few files given as ``{relative path: content}``."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
            for name, content in sorted(files.items()):
                raw = content.encode() if isinstance(content, str) else content
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(raw), 0o644
                archive.addfile(info, io.BytesIO(raw))
        data = buffer.getvalue()
        return cls(hashlib.sha256(data).hexdigest()[:24], "tar", data)

    @classmethod
    def from_git(cls, url: str, revision: str = "HEAD") -> Template:
        """A clone of ``url`` (anything ``git clone`` takes) checked out at ``revision``."""
        digest = hashlib.sha256(f"{url}\0{revision}".encode()).hexdigest()[:24]
        return cls(digest, "git", url=url, revision=revision)

    @classmethod
    def parse(cls, spec: str | dict[str, Any]) -> Template:
        """A template from a rollout task: a directory path, ``{"dir": path}`` or
        ``{"git": url, "revision": rev}``."""
        if isinstance(spec, str):
            return cls.from_directory(spec)
        if "git" in spec:
            return cls.from_git(str(spec["git"]), str(spec.get("revision") or "HEAD"))
        if "dir" in spec:
            return cls.from_directory(str(spec["dir"]))
        if "files" in spec:
            return cls.from_files(dict(spec["files"]))
        raise ValueError(f"a template is a directory, {{'git': url}} or {{'files': ...}}: {spec!r}")

    def with_data(self, data: Any) -> Template:
        """The same template carrying ``data`` (bytes, or an object-store reference)."""
        return replace(self, data=data)

    def shared(self) -> Template:
        """The template with its archive in Ray's object store (needs ``ray.init`` first)."""
        if self.kind != "tar" or not isinstance(self.data, bytes):
            return self
        import ray

        return self.with_data(ray.put(self.data))
