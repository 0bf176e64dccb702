"""`magboard.host.rules`: the rules pages by their old name (firmware/rules_pages.py holds them)."""

from magboard.firmware.rules_pages import lights_markdown, rules_markdown

__all__ = ["lights_markdown", "rules_markdown"]
