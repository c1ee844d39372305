"""What kind of file read_file is looking at, and how its bytes become text.

Detection follows Qwen Code's order:

1. TypeScript extensions are text (the MIME table would call ``.ts`` a video), ``.svg`` is
   SVG, ``.ipynb`` is a notebook.
2. The MIME type from the extension: images (GIF, JPEG, PNG and WebP are checked against
   their magic bytes), audio, video, PDF, and textual types (``text/*``, ``+xml``, ``+json``,
   JavaScript, JSON, XML, TOML).
3. Extensions of archives, executables, office documents and the like are binary.
4. Well-known source extensions and file names (``Makefile``, ``.gitignore`` …) are text.
5. Otherwise the first 4 KiB decide: a NUL byte or more than 30 % control bytes make it
   binary, a byte-order mark makes it text.

Decoding lives in :mod:`qwen_tools.fs.text_file`; ``decode_text`` and ``detect_bom`` are
re-exported here.
"""

from __future__ import annotations

import os
from typing import Literal, TypeAlias

from qwen_tools.fs.text_file import decode_text, detect_bom

__all__ = [
    "FileType",
    "decode_text",
    "detect_bom",
    "detect_file_type",
    "js_extname",
    "media_mime_type",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FileType: TypeAlias = Literal["text", "svg", "notebook", "image", "audio", "video", "pdf", "binary"]

# Media types of the MIME table Qwen Code uses (``mime/lite``): "type ext ext ...".
_MEDIA_TABLE = """
audio/aac aac adts|audio/adpcm adp|audio/amr amr|audio/basic au snd|audio/midi kar mid midi rmi
audio/mobile-xmf mxmf|audio/mp4 m4a m4b mp4a|audio/mpeg m2a m3a mp2 mp2a mp3 mpga
audio/ogg oga ogg opus spx|audio/s3m s3m|audio/silk sil|audio/wav wav|audio/webm weba|audio/xm xm
image/aces exr|image/apng apng|image/avci avci|image/avcs avcs|image/avif avif|image/bmp bmp dib
image/cgm cgm|image/dicom-rle drle|image/dpx dpx|image/emf emf|image/fits fits|image/g3fax g3
image/gif gif|image/heic heic|image/heic-sequence heics|image/heif heif|image/heif-sequence heifs
image/hej2k hej2|image/ief ief|image/jaii jaii|image/jais jais|image/jls jls|image/jp2 jp2 jpg2
image/jpeg jpe jpeg jpg|image/jph jph|image/jphc jhc|image/jpm jpgm jpm|image/jpx jpf jpx
image/jxl jxl|image/jxr jxr|image/jxra jxra|image/jxrs jxrs|image/jxs jxs|image/jxsc jxsc
image/jxsi jxsi|image/jxss jxss|image/ktx ktx|image/ktx2 ktx2|image/pjpeg jfif|image/png png
image/sgi sgi|image/svg+xml svg svgz|image/t38 t38|image/tiff tif tiff|image/tiff-fx tfx
image/webp webp|image/wmf wmf|video/3gpp 3gp 3gpp|video/3gpp2 3g2|video/h261 h261|video/h263 h263
video/h264 h264|video/iso.segment m4s|video/jpeg jpgv|video/mj2 mj2 mjp2|video/mp2t m2t m2ts mts ts
video/mp4 mp4 mp4v mpg4|video/mpeg m1v m2v mpe mpeg mpg|video/ogg ogv|video/quicktime mov qt
video/webm webm|application/pdf pdf
"""

# Extensions whose MIME type in that table is textual.
_TEXT_MIME_EXTENSIONS = _words(
    """
    aml appcache atom atomcat atomdeleted atomsvc ccxml cdfx cjs coffee conf cpl css csv
    davmount dbk def dwd ecma emma emotionml fdt geojson gltf gml gpx grxml held htm html ics
    ifb in ini ink inkml its jade js json jsonld jsonml jsx less lgr list litcoffee log lostxml
    mads maei man manifest map markdown mathml md mdx me meta4 metalink mets mjs mml mods mpd
    mpf mpp mrcx ms mscml musd mxml n3 omdoc opf owl pls provx pskcxml rapd rdf relo rif rl rld
    rng roff rs rsat rsd rsheet rss rtx rusd sbml senmlx sensmlx sgm sgml shex shf shtml slim
    slm sls smi smil spdx sru srx ssdl ssml stpx styl stylus swidtag t td tei teicorpus text
    tfi toml tr tsv ttl ttml txt uri uris urls vcard vtt vxml webmanifest wgsl wif wsdl
    wspolicy x3d x3dz xaml xav xca xcs xdf xdssc xel xenc xer xht xhtml xhvml xlf xml xns xop
    xpl xsd xsl xslt xspf xvm xvml yaml yin yml
    """
)

_MEDIA_TYPES: dict[str, str] = {
    ext: entry.split()[0]
    for entry in _MEDIA_TABLE.replace("\n", "|").split("|")
    if entry.strip()
    for ext in entry.split()[1:]
}

# Media types the MIME table lacks, keyed by extension.
_EXTRA_MEDIA_TYPES = {
    ".m4v": "video/x-m4v",
    ".mkv": "video/x-matroska",
    ".avi": "video/x-msvideo",
    ".flac": "audio/x-flac",
    ".aac": "audio/x-aac",
}

_BINARY_EXTENSIONS = _words(
    """
    .7z .a .bin .bmp .bz2 .class .dll .doc .docx .dylib .exe .gif .gz .jar .jpeg .jpg .lib .o
    .obj .odp .ods .odt .pdf .png .ppt .pptx .pyc .pyo .rar .so .svg .tar .war .wasm .webp .xls
    .xlsx .zip
    """
)

_KNOWN_TEXT_EXTENSIONS = _words(
    """
    .adoc .astro .bash .bib .c .cc .cfg .clj .cljc .cljs .cmake .conf .containerfile .cpp .cr
    .cs .cxx .dart .dockerfile .edn .erl .ex .exs .fish .fs .fsi .fsx .go .gql .gradle .graphql
    .groovy .h .hcl .hh .hpp .hrl .hs .hxx .ini .inl .java .jsx .kt .kts .lhs .lua .m .mk .ml
    .mli .mm .nim .nomad .org .php .pl .pm .properties .proto .ps1 .py .pyi .pyw .pyx .r .rb
    .rs .rst .sc .scala .sh .sol .sql .svelte .swift .tex .tf .tfvars .thrift .toml .tpp .vb
    .vue .zig .zsh
    """
)

_KNOWN_TEXT_NAMES = _words(
    """
    .bashrc .dockerignore .editorconfig .env .gitattributes .gitignore .npmignore .profile
    .zshrc AUTHORS BUILD CHANGELOG CMakeLists.txt COPYING Cargo.lock Containerfile Dockerfile
    GNUmakefile Gemfile Jenkinsfile LICENSE Makefile NOTICE Pipfile Pipfile.lock Procfile
    README Rakefile Vagrantfile WORKSPACE go.mod go.sum go.work package-lock.json
    pnpm-lock.yaml poetry.lock requirements.txt yarn.lock
    """
)

_SNIFFED_IMAGE_TYPES = frozenset({"image/gif", "image/jpeg", "image/png", "image/webp"})
_IMAGE_MAX_SOURCE_BYTES = 100 * 1024 * 1024


def js_extname(path: str) -> str:
    """Node's ``path.extname``: ``""`` for ``.gitignore`` and names without a dot."""
    name = os.path.basename(path)
    index = name.rfind(".")
    if index <= 0 or name == "..":
        return ""
    return name[index:]


def _mime_lookup(path: str) -> str | None:
    """The MIME type of the extension, when the table knows it (media, PDF or text)."""
    name = os.path.basename(path).lower()
    ext = name.rpartition(".")[2]
    if len(ext) >= len(name) - 1:  # no extension, or a dot-file such as ".json"
        return None
    if ext in _MEDIA_TYPES:
        return _MEDIA_TYPES[ext]
    return "text/plain" if ext in _TEXT_MIME_EXTENSIONS else None


def media_mime_type(path: str) -> str:
    """The MIME type sent with inline data (``application/octet-stream`` when unknown)."""
    return (
        _mime_lookup(path)
        or _EXTRA_MEDIA_TYPES.get(js_extname(path).lower())
        or "application/octet-stream"
    )


def _looks_like_text(data: bytes) -> bool:
    window = data[:8192]
    if b"\x00" in window:
        return False
    return window.decode("utf-8", "replace").count("\ufffd") <= 2


def _magic_extension(data: bytes) -> str | None:
    """The file kind announced by well-known magic bytes."""
    if data.startswith(b"%PDF-"):
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        return "zip"
    if data.startswith(b"\x1f\x8b"):
        return "gz"
    if len(data) >= 7 and data.startswith(b"Rar!\x1a\x07"):
        return "rar"
    if len(data) >= 8 and data[0] == 0x89 and data[1:4] == b"PNG":
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data.startswith(b"GIF8"):
        return "gif"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _sample(path: str, fd: int | None, size: int, max_source: int | None = None) -> bytes | None:
    """The first ``size`` bytes, from ``fd`` when given (no new open), else by ``path``.

    ``None`` when the file cannot be read, or is larger than ``max_source``.
    """
    try:
        if fd is not None:
            if max_source is not None and os.fstat(fd).st_size > max_source:
                return None
            return os.pread(fd, size, 0)
        with open(path, "rb") as fh:
            if max_source is not None and os.fstat(fh.fileno()).st_size > max_source:
                return None
            return fh.read(size)
    except OSError:
        return None


def _classify_image(path: str, mime: str, fd: int | None) -> FileType:
    """Check GIF/JPEG/PNG/WebP files against their content; other images are trusted."""
    if mime not in _SNIFFED_IMAGE_TYPES:
        return "image"
    sample = _sample(path, fd, 8192, _IMAGE_MAX_SOURCE_BYTES)
    if not sample:  # unreadable, too large to check, or empty
        return "image"
    magic = _magic_extension(sample)
    if magic is not None:
        own = {"image/gif": "gif", "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}
        return "image" if magic in (own[mime], "jpg", "png", "webp") else "binary"
    if len(sample) < 3 or not (detect_bom(sample) or _looks_like_text(sample)):
        return "binary"
    return "text"


def _sniff_binary(path: str, fd: int | None) -> bool:
    """A NUL byte or more than 30 % control bytes in the first 4 KiB (a BOM means text)."""
    sample = _sample(path, fd, 4096)
    if not sample or detect_bom(sample[:4]):
        return False
    if b"\x00" in sample:
        return True
    control = sum(1 for byte in sample if byte < 9 or 13 < byte < 32)
    return control / len(sample) > 0.3


def detect_file_type(path: str, fd: int | None = None) -> FileType:
    """Classify the file at ``path`` (reads at most a few KiB of it).

    ``fd``, an open descriptor of that file, is read instead of opening ``path`` again (the
    read tools pass the descriptor they checked, so a name swapped since is never sniffed).
    """
    ext = js_extname(path).lower()
    if ext in (".ts", ".mts", ".cts", ".tsx"):
        return "text"
    if ext == ".svg":
        return "svg"
    if ext == ".ipynb":
        return "notebook"
    mime = _mime_lookup(path) or _EXTRA_MEDIA_TYPES.get(ext)
    if mime is not None:
        if mime.startswith("image/"):
            return _classify_image(path, mime, fd)
        if mime.startswith("audio/"):
            return "audio"
        if mime.startswith("video/"):
            return "video"
        if mime == "application/pdf":
            return "pdf"
        return "text"
    if ext in _BINARY_EXTENSIONS:
        return "binary"
    if ext in _KNOWN_TEXT_EXTENSIONS or os.path.basename(path) in _KNOWN_TEXT_NAMES:
        return "text"
    return "binary" if _sniff_binary(path, fd) else "text"
