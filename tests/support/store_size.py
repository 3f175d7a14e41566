"""How many bytes a run store's blobs take (compressed as stored)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def stored_blob_bytes(store: Path) -> int:
    con = sqlite3.connect(store)
    try:
        return int(con.execute("SELECT SUM(LENGTH(data)) FROM blobs").fetchone()[0] or 0)
    finally:
        con.close()
