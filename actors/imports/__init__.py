"""CSV import (docs/import.md): upload, column mapping, preview, execution in batches through the board's actor."""
