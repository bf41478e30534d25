"""The two ruamel.yaml set-ups planwatch reads and writes its YAML files with (store
records and the settings file): a strict safe loader, and a round-trip one that writes
block lists as people write them and never folds a long line."""

from ruamel.yaml import YAML


def safe_yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.allow_duplicate_keys = False
    return yaml


def rt_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.preserve_quotes = True
    yaml.default_flow_style = False
    yaml.width = 4096  # never fold a long title over two lines
    yaml.indent(mapping=2, sequence=4, offset=2)  # block lists as people write them: "  - db"
    return yaml
