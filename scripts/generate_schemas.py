#!/usr/bin/env python3
"""Write schemas/*.schema.json from the models (teamdeck.model.schemas).

Run after changing a model: ``python scripts/generate_schemas.py``. Files whose content
is unchanged are left alone; schema files no model produces any more are reported,
not deleted.
"""

from __future__ import annotations

import sys
from pathlib import Path

from teamdeck.model.schemas import all_schemas, schema_bytes

SCHEMAS_DIR = Path(__file__).resolve().parents[1] / "schemas"


def main() -> int:
    SCHEMAS_DIR.mkdir(exist_ok=True)
    schemas = all_schemas()
    for filename, schema in schemas.items():
        target = SCHEMAS_DIR / filename
        data = schema_bytes(schema)
        if target.exists() and target.read_bytes() == data:
            continue
        target.write_bytes(data)
        print(f"wrote {target.relative_to(SCHEMAS_DIR.parent)}")
    for orphan in sorted(set(path.name for path in SCHEMAS_DIR.glob("*.schema.json")) - set(schemas)):
        print(f"note: schemas/{orphan} is not generated from any model", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
