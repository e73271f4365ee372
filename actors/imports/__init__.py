"""CSV import (domain 4.12): upload, column mapping, preview, execution in batches through the board's actor."""
