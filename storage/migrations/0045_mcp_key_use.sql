-- Assistant (MCP) keys record their last use (flushed from memory as API keys do) and may expire as API keys may.
ALTER TABLE mcp_keys ADD COLUMN last_used_at timestamptz, ADD COLUMN expires_at timestamptz;
