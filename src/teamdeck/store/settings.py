"""Workspace settings: ``.teamdeck.yaml`` at the workspace root (optional)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from teamdeck.errors import InvalidFile
from teamdeck.model.settings import Settings
from teamdeck.store.loaders import read_capped
from teamdeck.store.workspace import SETTINGS_FILE
from teamdeck.store.yaml_text import parse_yaml


def load_settings(root: Path) -> Settings:
    """The workspace's settings, or the defaults when the file is absent.

    Raises:
        InvalidFile: the file exists but is not valid settings.
    """
    path = root / SETTINGS_FILE
    try:
        raw = parse_yaml(read_capped(path), Path(SETTINGS_FILE))
    except FileNotFoundError:
        return Settings()
    try:
        return Settings.model_validate(raw or {})
    except ValidationError as err:
        raise InvalidFile(SETTINGS_FILE, "", str(err.errors()[0]["msg"])) from None
