"""Kustomize without the ``kustomize`` binary: a folder's ``kustomization.yaml`` built
into the objects it makes, each value remembering the file and line that set it.

Read: ``resources`` (and the older ``bases``: local files and folders, a folder being
another kustomization, built first), ``configMapGenerator`` (``literals``, ``files``),
``helmCharts`` (returned as chart releases, not rendered), ``patchesStrategicMerge``,
``patches`` and ``patchesJson6902`` (strategic merge by the Kubernetes merge keys,
``model/frontends/strategic_merge.py``; JSON 6902 ``add``/``replace``/``remove``), ``namespace``,
``namePrefix``/``nameSuffix`` and ``images`` (``newName``, ``newTag``, ``digest``), in
the order Kustomize's built-in transformers run them. Nothing outside the repository is
read (``sources/repository.py``): a remote resource or a path leading out of it is a note,
as is every input that cannot be read, with its file and line.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from linter.gitops import inline
from linter.gitops.flux import by_profile
from linter.gitops.model import ChartSource, Layer, WrappedRelease
from linter.gitops.repo import shown
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.strategic_merge import merge
from linter.parsing import bounded
from linter.parsing.documents import ADVISORY_PROBLEMS, Document, ParsedFile, parse_yaml
from linter.positions import Origin, PathT, format_path, nearest
from linter.sources.repository import root_of
from linter.sources.wrappers import KUSTOMIZATION_FILES

KIND = "Kustomization"
# (file, line, column, document index) of a value.
Where = tuple[str, int, int, int]
_NOWHERE: Where = ("", 1, 1, 0)


@dataclasses.dataclass
class Obj:
    """One object the build makes, and where each of its values was written."""

    data: dict[str, Any]
    spans: dict[PathT, Where]
    original_name: str

    def locate(self, path: PathT) -> Origin:
        source, line, column, index = nearest(self.spans, path, _NOWHERE)
        return Origin(source, line, column, index, format_path(path))


@dataclasses.dataclass
class ImageSet:
    """An ``images`` entry of a kustomization that changed a container's image."""

    image: str  # the image it made
    where: Where
    field: str  # newTag, digest or newName


@dataclasses.dataclass
class Build:
    """What one kustomization folder makes."""

    folder: str  # as shown: the environment's name
    file: str
    objects: list[Obj] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    reads: set[str] = dataclasses.field(default_factory=set)  # real paths of files read
    charts: list[WrappedRelease] = dataclasses.field(default_factory=list)
    images: list[ImageSet] = dataclasses.field(default_factory=list)  # this folder's own
    bases: list[Build] = dataclasses.field(default_factory=list)  # folders it includes


def kustomization_in(folder: Path) -> Path | None:
    for name in KUSTOMIZATION_FILES:
        if (folder / name).is_file():
            return folder / name
    return None


def build(folder: Path, settings: ModelSettings, _stack: tuple[str, ...] = ()) -> Build:
    """The objects the kustomization of ``folder`` makes (notes for what it cannot)."""
    path = kustomization_in(folder)
    shown_folder = shown(folder) or "."
    out = Build(shown_folder, shown(path) if path else shown_folder)
    if path is None:
        out.notes.append(f"{shown_folder}: no kustomization.yaml in this folder")
        return out
    out.reads.add(os.path.realpath(path))
    document = _read_document(path, out)
    if document is None:
        return out
    _Builder(out, folder, document, settings, (*_stack, os.path.realpath(folder))).run()
    return out


def post_render(
    objects: list[Obj], document: Document, settings: ModelSettings
) -> tuple[list[Obj], list[str], list[ImageSet]]:
    """``objects`` once the patches and ``images`` of the kustomization written at
    ``document`` (a Flux HelmRelease's ``postRenderers[].kustomize``) are applied, with
    a note for each that could not be; a ``path`` is read from the document's folder."""
    folder = Path(document.source).parent
    out = Build(shown(folder) or ".", document.source, objects=objects)
    _Builder(out, folder, document, settings, ()).patch_and_set_images()
    return out.objects, out.notes, out.images


def _read_document(path: Path, out: Build) -> Document | None:
    parsed = _parse(path, out)
    if parsed is None:
        return None
    if not parsed.documents or not isinstance(parsed.documents[0].data, dict):
        out.notes.append(f"{parsed.source}:1: a kustomization must be a mapping")
        return None
    return parsed.documents[0]


def _parse(path: Path, out: Build, at: str = "") -> ParsedFile | None:
    name = shown(path)
    try:
        text = bounded.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:  # bounded.InputRefused is an OSError
        out.notes.append(f"{at or name}: cannot read {name}: {exc}")
        return None
    out.reads.add(os.path.realpath(path))
    parsed = parse_yaml(name, text)
    problems = [p for p in parsed.problems if p.rule_id not in ADVISORY_PROBLEMS]
    if problems:
        first = problems[0]
        out.notes.append(f"{name}:{first.line}: not read: {first.message}")
        return None
    return parsed


def _where(document: Document, path: PathT) -> Where:
    span = document.span(path)
    return (document.source, span.line, span.column, document.index)


def _spans_of(document: Document, prefix: PathT = (), into: PathT = ()) -> dict[PathT, Where]:
    """The positions of ``document`` under ``prefix``, keyed from ``into``."""
    size = len(prefix)
    out = {
        (*into, *p[size:]): (document.source, s.line, s.column, document.index)
        for p, s in document.line_map.items()
        if p[:size] == prefix
    }
    out.setdefault(into, _where(document, prefix))
    return out


class _Builder:
    def __init__(
        self,
        out: Build,
        folder: Path,
        document: Document,
        settings: ModelSettings,
        stack: tuple[str, ...],
    ) -> None:
        self.out = out
        self.folder = folder
        self.doc = document
        self.data: dict[str, Any] = document.data
        self.settings = settings
        self.stack = stack
        self.root = Path(root_of(str(folder)))

    def at(self, *path: str | int) -> str:
        return f"{self.doc.source}:{self.doc.span(path).line}"

    def run(self) -> None:
        for key in ("resources", "bases"):
            for index, entry in _items(self.data, key):
                self._resource(index, entry, key)
        for key in ("components", "crds", "transformers", "generators", "replacements"):
            if self.data.get(key):
                self.out.notes.append(f"{self.at(key)}: {key} are not read without kustomize")
        self._config_maps()
        self._helm_charts()
        self.patch_and_set_images(between=self._names)

    def _names(self) -> None:
        self._namespace()
        self._prefix_suffix()

    def patch_and_set_images(self, between: Callable[[], None] | None = None) -> None:
        """The patches and ``images`` of the kustomization, in Kustomize's order (the
        name transformers, ``between``, run before the JSON 6902 patches)."""
        for index, entry in _items(self.data, "patchesStrategicMerge"):
            self._strategic_entry(("patchesStrategicMerge", index), entry, None)
        for index, entry in _items(self.data, "patches"):
            self._patch(("patches", index), entry)
        if between is not None:
            between()
        for index, entry in _items(self.data, "patchesJson6902"):
            self._patch(("patchesJson6902", index), entry, json_only=True)
        self._images()

    # resources ---------------------------------------------------------------------

    def _inside(self, relative: str, at: str) -> Path | None:
        if "://" in relative or relative.startswith(("git@", "github.com/")):
            self.out.notes.append(f"{at}: {relative} is remote: not read")
            return None
        target = Path(os.path.realpath(self.folder / relative))
        root = Path(os.path.realpath(self.root))
        if root not in (target, *target.parents):
            self.out.notes.append(f"{at}: {relative} is outside the repository: not read")
            return None
        if not target.exists():
            self.out.notes.append(f"{at}: {relative}: no such file or folder")
            return None
        return target

    def _resource(self, index: int, entry: Any, key: str) -> None:
        at = self.at(key, index)
        if not isinstance(entry, str):
            self.out.notes.append(f"{at}: {key}[{index}] must be a path")
            return
        target = self._inside(entry, at)
        if target is None:
            return
        if target.is_dir():
            if str(target) in self.stack:
                self.out.notes.append(f"{at}: {entry} includes itself: not read again")
                return
            if kustomization_in(target) is None:
                self.out.notes.append(f"{at}: {entry} holds no kustomization.yaml")
                return
            base = build(target, self.settings, self.stack)
            self.out.bases.append(base)
            # Copies: the base is judged alone too, and this folder's patches change them.
            self.out.objects.extend(
                Obj(_copy(o.data), dict(o.spans), o.original_name) for o in base.objects
            )
            self.out.notes.extend(base.notes)
            self.out.reads |= base.reads
            self.out.charts.extend(base.charts)
            return
        parsed = _parse(target, self.out, at)
        if parsed is None:
            return
        for document in parsed.documents:
            if isinstance(document.data, dict) and isinstance(document.data.get("kind"), str):
                self.out.objects.append(_obj(document))

    # generators --------------------------------------------------------------------

    def _config_maps(self) -> None:
        for index, entry in _items(self.data, "configMapGenerator"):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                self.out.notes.append(f"{self.at('configMapGenerator', index)}: needs a name")
                continue
            here: PathT = ("configMapGenerator", index)
            data: dict[str, Any] = {}
            spans: dict[PathT, Where] = {(): _where(self.doc, here)}
            for number, literal in _items(entry, "literals"):
                key, sep, value = str(literal).partition("=")
                if sep:
                    data[key] = value
                    spans[("data", key)] = _where(self.doc, (*here, "literals", number))
            for number, spec in _items(entry, "files"):
                key, sep, name = str(spec).partition("=")
                name = name if sep else key
                key = key if sep else os.path.basename(name)
                at = self.at(*here, "files", number)
                target = self._inside(name, at)
                if target is None or not target.is_file():
                    continue
                try:
                    data[key] = bounded.read_text(target)
                except (OSError, UnicodeDecodeError) as exc:
                    self.out.notes.append(f"{at}: cannot read {name}: {exc}")
                    continue
                self.out.reads.add(str(target))
                spans[("data", key)] = _where(self.doc, (*here, "files", number))
            made = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": entry["name"]},
                "data": data,
            }
            self.out.objects.append(Obj(made, spans, entry["name"]))

    def _helm_charts(self) -> None:
        home = self.data.get("helmGlobals", {}) if isinstance(self.data, dict) else {}
        chart_home = home.get("chartHome", "charts") if isinstance(home, dict) else "charts"
        entries = list(_items(self.data, "helmCharts"))
        for index, entry in entries:
            here: PathT = ("helmCharts", index)
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                self.out.notes.append(f"{self.at(*here)}: a helmCharts entry needs a name")
                continue
            name: str = entry["name"]
            layers: list[Layer] = []
            values_file = entry.get("valuesFile")
            if isinstance(values_file, str):
                target = self._inside(values_file, self.at(*here, "valuesFile"))
                parsed = _parse(target, self.out) if target and target.is_file() else None
                if parsed is not None and parsed.documents:
                    layers.append(Layer(parsed.source, parsed.documents[0]))
            if isinstance(entry.get("valuesInline"), dict):
                document = inline.subdocument(self.doc, (*here, "valuesInline"))
                label = f"{self.doc.source} helmCharts[{index}].valuesInline"
                layers.append(Layer(label, document))
            chart = self._chart(entry, str(chart_home))
            title = self.out.folder if len(entries) == 1 else f"{self.out.folder}[{name}]"
            line = self.doc.span(here).line
            self.out.charts.append(
                WrappedRelease(
                    KIND,
                    title,
                    self.doc.source,
                    line,
                    self.doc.index,
                    chart,
                    tuple(layers),
                    reads=tuple(x.document.source for x in layers),
                    release_name=str(entry.get("releaseName") or ""),
                )
            )

    def _chart(self, entry: dict[str, Any], chart_home: str) -> ChartSource:
        name, version = entry["name"], str(entry.get("version") or "")
        local = Path(os.path.realpath(self.folder / chart_home / name))
        root = Path(os.path.realpath(self.root))
        if root in (local, *local.parents) and (local / "Chart.yaml").is_file():
            return ChartSource(f"chart {shown(local)}", shown(local), chart=name, version=version)
        words = " ".join(
            w for w in ("chart", name, version, f"({entry.get('repo') or 'no repo'})") if w
        )
        return by_profile(words, name, version, self.settings)

    # patches -----------------------------------------------------------------------

    def _patch(self, here: PathT, entry: Any, *, json_only: bool = False) -> None:
        at = self.at(*here)
        if not isinstance(entry, dict):
            self.out.notes.append(f"{at}: a patch must be a mapping with path or patch")
            return
        target = entry.get("target") if isinstance(entry.get("target"), dict) else None
        documents = self._patch_documents(here, entry, at)
        for document in documents:
            if isinstance(document.data, list):
                if target is None:
                    self.out.notes.append(f"{at}: a JSON 6902 patch needs a target")
                    continue
                for obj in self._targets(target, at):
                    _Json6902(self.out, document, obj).apply()
            elif isinstance(document.data, dict) and not json_only:
                self._strategic(document, target, at)
            else:
                self.out.notes.append(f"{at}: not a patch: neither a mapping nor a list")

    def _patch_documents(self, here: PathT, entry: dict[str, Any], at: str) -> list[Document]:
        if isinstance(entry.get("patch"), str):
            return self._inline((*here, "patch"), entry["patch"])
        if isinstance(entry.get("patch"), dict | list):
            # Written as YAML, as Flux's post-renderers write patchesJson6902 operations.
            return [inline.subdocument(self.doc, (*here, "patch"))]
        if isinstance(entry.get("path"), str):
            target = self._inside(entry["path"], at)
            parsed = _parse(target, self.out) if target and target.is_file() else None
            return [] if parsed is None else list(parsed.documents)
        self.out.notes.append(f"{at}: a patch needs path or patch")
        return []

    def _inline(self, here: PathT, text: str) -> list[Document]:
        """The patch written as a string at ``here``, on the kustomization's lines."""
        document, problems = inline.string_document(self.doc, self._text(), here, text)
        if document is None:
            # The reader words it for values: this string is a patch.
            first = problems[0]
            message = first.message.replace("the values string", "the patch", 1)
            self.out.notes.append(f"{first.file}:{first.line}: {message}")
            return []
        return [document]

    def _text(self) -> str:
        try:
            return bounded.read_text(self.doc.source)
        except (OSError, UnicodeDecodeError):
            return ""

    def _strategic_entry(self, here: PathT, entry: Any, target: dict[str, Any] | None) -> None:
        at = self.at(*here)
        if isinstance(entry, str) and "\n" not in entry.strip():
            documents = self._patch_documents(here, {"path": entry}, at)
        elif isinstance(entry, str):
            documents = self._inline(here, entry)
        elif isinstance(entry, dict):
            # An object written in place, as Flux's post-renderers write them.
            documents = [inline.subdocument(self.doc, here)]
        else:
            self.out.notes.append(f"{at}: a strategic merge patch must be a path")
            return
        for document in documents:
            if isinstance(document.data, dict):
                self._strategic(document, target, at)

    def _strategic(self, document: Document, target: dict[str, Any] | None, at: str) -> None:
        patch = document.data
        meta = patch.get("metadata") if isinstance(patch.get("metadata"), dict) else {}
        selector = target or {"kind": patch.get("kind"), "name": meta.get("name")}
        for obj in self._targets(selector, f"{document.source}:{document.span(()).line}"):
            if patch.get("$patch") == "delete":
                self.out.objects.remove(obj)
                continue
            body = dict(patch)
            if target is not None:
                # A patch chosen by target may name another object: its own name is not set.
                body.pop("metadata", None)
            merged, where = merge(obj.data, ("b",), body, ("p",))
            spans: dict[PathT, Where] = {}
            for path, written in where.items():
                if written[:1] == ("b",):
                    spans[path] = obj.spans.get(written[1:]) or nearest(
                        obj.spans, written[1:], _NOWHERE
                    )
                else:
                    spans[path] = _where(document, written[1:])
            if isinstance(merged, dict):
                obj.data, obj.spans = merged, spans

    def _targets(self, target: dict[str, Any], at: str) -> list[Obj]:
        found = [o for o in self.out.objects if _selected(o, target)]
        if not found:
            wanted = "/".join(str(target.get(k)) for k in ("kind", "name") if target.get(k))
            self.out.notes.append(
                f"{at}: the patch's target {wanted or target} is not among the resources read"
            )
        return found

    # transformers ------------------------------------------------------------------

    def _namespace(self) -> None:
        namespace = self.data.get("namespace")
        if not isinstance(namespace, str):
            return
        for obj in self.out.objects:
            meta = obj.data.setdefault("metadata", {})
            if isinstance(meta, dict):
                meta["namespace"] = namespace
                obj.spans[("metadata", "namespace")] = _where(self.doc, ("namespace",))

    def _prefix_suffix(self) -> None:
        prefix, suffix = self.data.get("namePrefix") or "", self.data.get("nameSuffix") or ""
        if not prefix and not suffix:
            return
        for obj in self.out.objects:
            meta = obj.data.get("metadata")
            if isinstance(meta, dict) and isinstance(meta.get("name"), str):
                meta["name"] = f"{prefix}{meta['name']}{suffix}"

    def _images(self) -> None:
        for index, entry in _items(self.data, "images"):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                self.out.notes.append(f"{self.at('images', index)}: an image needs a name")
                continue
            for obj in self.out.objects:
                for path, image in _images_of(obj.data):
                    made, field = _new_image(image, entry)
                    if made is None:
                        continue
                    _set(obj.data, path, made)
                    where = _where(self.doc, ("images", index, field))
                    obj.spans[path] = where
                    self.out.images.append(ImageSet(made, where, field))


def _items(data: Any, key: str) -> Iterator[tuple[int, Any]]:
    value = data.get(key) if isinstance(data, dict) else None
    return enumerate(value) if isinstance(value, list) else iter(())


def _obj(document: Document) -> Obj:
    meta = document.data.get("metadata")
    name = str(meta.get("name", "")) if isinstance(meta, dict) else ""
    return Obj(_copy(document.data), _spans_of(document), name)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _selected(obj: Obj, target: dict[str, Any]) -> bool:
    written = obj.data.get("metadata")
    meta: dict[str, Any] = written if isinstance(written, dict) else {}
    for key, have in (
        ("kind", [obj.data.get("kind")]),
        ("name", [meta.get("name"), obj.original_name]),
        ("namespace", [meta.get("namespace")]),
    ):
        wanted = target.get(key)
        if wanted is None:
            continue
        if not any(isinstance(h, str) and _full_match(str(wanted), h) for h in have):
            return False
    selector = target.get("labelSelector")
    if isinstance(selector, str):
        found = meta.get("labels")
        labels: dict[str, Any] = found if isinstance(found, dict) else {}
        for term in selector.split(","):
            key, _, value = term.partition("=")
            if str(labels.get(key.strip())) != value.strip():
                return False
    return True


def _full_match(pattern: str, text: str) -> bool:
    # Kustomize's target names are anchored regular expressions.
    try:
        return re.fullmatch(pattern, text) is not None
    except re.error:
        return pattern == text


def _images_of(data: Any, path: PathT = ()) -> Iterator[tuple[PathT, str]]:
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("containers", "initContainers") and isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, dict) and isinstance(item.get("image"), str):
                        yield (*path, key, index, "image"), item["image"]
            else:
                yield from _images_of(value, (*path, key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from _images_of(item, (*path, index))


def _split_image(image: str) -> tuple[str, str, str]:
    """(name, tag, digest) of an image reference."""
    name, _, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        return name[:colon], name[colon + 1 :], digest
    return name, "", digest


def _new_image(image: str, entry: dict[str, Any]) -> tuple[str | None, str]:
    name, tag, digest = _split_image(image)
    if name != entry["name"]:
        return None, ""
    new_name = str(entry.get("newName") or name)
    if entry.get("digest"):
        return f"{new_name}@{entry['digest']}", "digest"
    if entry.get("newTag") is not None:
        return f"{new_name}:{entry['newTag']}", "newTag"
    if "newName" not in entry:
        return None, ""
    kept = f"@{digest}" if digest else f":{tag}" if tag else ""
    return f"{new_name}{kept}", "newName"


def _set(data: Any, path: PathT, value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


class _Json6902:
    """The operations of a JSON 6902 patch (RFC 6902) applied to one object."""

    def __init__(self, out: Build, document: Document, obj: Obj) -> None:
        self.out, self.doc, self.obj = out, document, obj

    def apply(self) -> None:
        for index, op in enumerate(self.doc.data):
            at = f"{self.doc.source}:{self.doc.span((index,)).line}"
            if not isinstance(op, dict) or not isinstance(op.get("path"), str):
                self.out.notes.append(f"{at}: a JSON 6902 operation needs op and path")
                continue
            name = op.get("op")
            if name not in ("add", "replace", "remove"):
                self.out.notes.append(f"{at}: the JSON 6902 operation {name} is not applied")
                continue
            problem = self._one(name, _pointer(op["path"]), op, index)
            if problem:
                self.out.notes.append(
                    f"{at}: {op['path']}: {problem}; the operation is not applied"
                )

    def _one(self, name: str, parts: list[str], op: dict[str, Any], index: int) -> str | None:
        if not parts:
            return "the whole object cannot be replaced"
        parent: Any = self.obj.data
        path: PathT = ()
        for part in parts[:-1]:
            key = _key(parent, part)
            if key is None:
                return "no such path in the target"
            parent, path = parent[key], (*path, key)
        last = parts[-1]
        if name != "remove" and "value" not in op:
            return "the operation has no value"
        if isinstance(parent, list):
            if last == "-" and name == "add":
                slot = len(parent)
            elif last.isdigit() and int(last) <= len(parent) - (name != "add"):
                slot = int(last)
            else:
                return "no such list index in the target"
            if name == "add":
                parent.insert(slot, _copy(op["value"]))
                self._shift(path, slot, 1)
            elif name == "remove":
                del parent[slot]
                self._drop((*path, slot))
                self._shift(path, slot + 1, -1)
                return None
            else:
                parent[slot] = _copy(op["value"])
                self._drop((*path, slot))
            self._written((*path, slot), index)
            return None
        if not isinstance(parent, dict):
            return "no such path in the target"
        if name != "add" and last not in parent:
            return "no such key in the target"
        if name == "remove":
            del parent[last]
            self._drop((*path, last))
            return None
        parent[last] = _copy(op["value"])
        self._drop((*path, last))
        self._written((*path, last), index)
        return None

    def _written(self, here: PathT, index: int) -> None:
        self.obj.spans.update(_spans_of(self.doc, (index, "value"), here))

    def _drop(self, here: PathT) -> None:
        size = len(here)
        for path in [p for p in self.obj.spans if p[:size] == here]:
            del self.obj.spans[path]

    def _shift(self, parent: PathT, start: int, by: int) -> None:
        size = len(parent)
        moved = {}
        for path in list(self.obj.spans):
            if path[:size] == parent and len(path) > size:
                slot = path[size]
                if isinstance(slot, int) and slot >= start:
                    moved[(*parent, slot + by, *path[size + 1 :])] = self.obj.spans.pop(path)
        self.obj.spans.update(moved)


def _pointer(text: str) -> list[str]:
    if not text.startswith("/"):
        return [text] if text else []
    return [p.replace("~1", "/").replace("~0", "~") for p in text[1:].split("/")]


def _key(parent: Any, part: str) -> Any:
    if isinstance(parent, dict):
        return part if part in parent else None
    if isinstance(parent, list) and part.isdigit() and int(part) < len(parent):
        return int(part)
    return None
