"""A pod spec assembled from values that are not a pod spec (KServe model specs, KubeAI
models, Helm values), with the origin of every piece, so that one pod extractor serves
every input and findings still point at the line the user wrote."""

from __future__ import annotations

from typing import Any

from linter.positions import Origin, PathT, nearest


class SyntheticPod:
    def __init__(self, fallback: Origin) -> None:
        self.spec: dict[str, Any] = {}
        self.origins: dict[PathT, Origin] = {}
        self.fallback = fallback

    def set(self, path: PathT, value: Any, origin: Origin | None) -> None:
        node: Any = self.spec
        for index, key in enumerate(path[:-1]):
            nxt = path[index + 1]
            if isinstance(node, list):
                position = int(key)
                while len(node) <= position:
                    node.append({})
                node = node[position]
                continue
            node = node.setdefault(key, [] if isinstance(nxt, int) else {})
        last = path[-1]
        if isinstance(node, list):
            while len(node) <= int(last):
                node.append({})
            node[int(last)] = value
        else:
            node[last] = value
        if origin is not None:
            self.origins[path] = origin

    def append(self, path: PathT, value: Any, origin: Origin | None) -> int:
        node: Any = self.spec
        for position, key in enumerate(path):
            if isinstance(node, list):
                node = node[int(key)]
                continue
            if key not in node:
                node[key] = [] if position == len(path) - 1 else {}
            node = node[key]
        index = len(node)
        node.append(value)
        if origin is not None:
            self.origins[(*path, index)] = origin
            # A list assembled from several keys is where its first item was written.
            self.origins.setdefault(path, origin)
        return index

    def locate(self, path: PathT) -> Origin:
        return nearest(self.origins, path, self.fallback)

    def put_tree(self, path: PathT, value: Any, locate: Any, source: PathT) -> None:
        """Set ``value`` at ``path``; every nested item keeps the origin of its source."""
        self.set(path, value, locate(source))
        self.copy_origins(path, value, locate, source)

    def copy_origins(self, path: PathT, value: Any, locate: Any, source: PathT) -> None:
        stack: list[tuple[PathT, Any, PathT]] = [(path, value, source)]
        while stack:
            target, node, origin_path = stack.pop()
            items: list[tuple[str | int, Any]] = []
            if isinstance(node, dict):
                items = list(node.items())
            elif isinstance(node, list):
                items = list(enumerate(node))
            for key, child in items:
                self.origins[(*target, key)] = locate((*origin_path, key))
                stack.append(((*target, key), child, (*origin_path, key)))
